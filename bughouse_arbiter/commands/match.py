"""``bughouse match``: four engines, two boards, a live display, a BPGN file.

With no options it plays one match between the project's own searching
engines at 60+0, shows the table live on a terminal (redrawn four times a
second; one line per move when the output is not a terminal) and writes the
game, move by move, to ``games/bughouse-YYYYmmdd-HHMMSS.bpgn`` under the
current folder. ``--games N`` plays N matches with the seats rotated between games
(partners stay partners), the engines kept alive from one game to the next
(restarted after a crash), and ends with a summary table. ``--team 1=SPEC``
seats one native engine, or a team engine (``team-uci:CMD``, hivemind's
dialect), at both seats of team 1 (A-White + B-Black; team 2 is
A-Black + B-White); with ``--games`` it follows its team's seats as they
rotate. Ctrl+C (or SIGTERM, SIGHUP) stops the match, writes it with result
``*`` and the reason, closes every engine and exits with status 130 (143
for SIGTERM, 129 for SIGHUP).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
from collections.abc import Callable
from typing import Any

import trio

from ..bpgn import BpgnFile
from ..config.options import add_engines_file, add_out, add_rule, add_seat_engine, add_tc
from ..config.specs import (
    DEFAULT_ENGINE,
    game_seed,
    rotate,
    rotated_seat,
    rotated_team,
)
from ..core.model import SEATS, Seat
from ..environment import Environment
from ..errors import ConfigError, EngineFailed
from ..exits import FAILED, OK
from ..players.debug_logs import DebugLogs
from ..players.factory import create_team_player
from ..players.process import live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..table.arbiter import MatchEvent
from ..table.games import play_game
from ..table.keeper import EngineKeeper, entrants
from ..table.recording import GameWriter, make_folder
from ..table.stopping import exit_status, stop_on_signals
from ..ui.match_view import (
    Display,
    GameSummary,
    game_summary,
    progress_line,
    score_text,
    summary_table,
)
from ..ui.render import RenderOptions
from . import SUMMARIES
from .plans import DEFAULT_TC, MatchPlan, plan_from_args


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "match",
        help=SUMMARIES["match"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_seat_engine(parser, default=DEFAULT_ENGINE)
    parser.add_argument(
        "--team",
        action="append",
        default=[],
        metavar="TEAM=SPEC",
        help="one native engine (SPEC as for --engine, no uci:/xboard:/tcs:) or a team "
        "engine (team-uci:CMD) plays both seats of team 1 (A-white + B-black) or 2 "
        "(A-black + B-white) (repeatable)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="SEAT.NAME=VALUE",
        help="an engine option for the engine at SEAT in the first game (it keeps it as "
        "seats rotate): setoption for native and UCI engines, option NAME=VALUE for xboard "
        "(Hash and Threads as memory/cores where offered); repeatable",
    )
    add_tc(parser, default=DEFAULT_TC)
    add_rule(parser)
    add_engines_file(parser)
    parser.add_argument("--games", default="1", metavar="N", help="matches to play (default 1)")
    add_out(
        parser,
        help="BPGN file (default games/bughouse-YYYYmmdd-HHMMSS.bpgn); an existing file is "
        "appended to, never replaced; it is locked while the match runs (a second "
        "writer is refused); only a regular file (or a symlink to one) is accepted",
    )
    parser.add_argument("--seed", metavar="N", help="seed for the built-in engines")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="write each engine's protocol log next to the BPGN file",
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of chess glyphs")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, env: Environment) -> int:
    plan = plan_from_args(args, today=datetime.datetime.now())
    make_folder(plan.out)
    options = RenderOptions(
        unicode=env.unicode and not args.ascii, color=env.color and not args.no_color
    )
    display = Display(env.stdout, live=env.live, options=options)
    become_subreaper()
    try:
        if plan.teams:
            trio.run(check_team_engines, plan)
        # Opened and locked before the match's engines start; held for every game.
        with BpgnFile.open(plan.out) as games_file:
            return trio.run(play_matches, plan, display, games_file, env)
    finally:
        display.close()  # hands on any move line still held, however it ended
        kill_orphans(keep=live_engine_pids())


#: Seconds a team engine gets for its handshake when it is checked before the match.
TEAM_CHECK_TIMEOUT = 10.0


async def check_team_engines(plan: MatchPlan) -> None:
    """Starts each ``--team`` engine once, before anything is played or written.

    Raises:
        ConfigError: an engine that did not announce ``feature team`` (it
            cannot hold two seats). Other start failures are left to the match,
            which scores them as a player that failed to start.
    """
    for team, spec in plan.teams.items():
        player = create_team_player(team.seats, spec, handshake_timeout=TEAM_CHECK_TIMEOUT)
        send, receive = trio.open_memory_channel[Any](math.inf)
        refusal: str | None = None
        # Raised outside the nursery, so it is not wrapped in an exception group.
        async with trio.open_nursery() as nursery:
            try:
                await player.start(nursery, send)
            except EngineFailed as exc:
                if "feature team" in str(exc):
                    refusal = (
                        f"--team {team.value}={spec.name}: {exc}; give it one seat with --engine"
                    )
            else:
                await player.aclose()
            finally:
                send.close()
                receive.close()
                nursery.cancel_scope.cancel()
        if refusal is not None:
            raise ConfigError(refusal)


# -- playing -------------------------------------------------------------------------


async def play_matches(
    plan: MatchPlan,
    display: Display,
    games_file: BpgnFile | None = None,
    env: Environment | None = None,
) -> int:
    """Plays ``plan.games`` matches; returns the exit status (0, or 128+N on signal N).

    The games go to ``games_file`` (opened from ``plan.out`` when not given).
    Memory stays flat in ``plan.games``: a finished game is on disk, and only
    its ``GameSummary`` (a few names and numbers) is kept for the table.
    """
    if games_file is None:
        with BpgnFile.open(plan.out) as opened:
            return await play_matches(plan, display, opened, env)
    summaries: list[GameSummary] = []
    writers: list[GameWriter] = []  # the current game's writer only
    failed: str | None = None
    async with stop_on_signals() as stop:
        with stop.scope:
            async with contextlib.AsyncExitStack() as stack:
                # Several games: the engines stay alive from one to the next (a
                # crashed one is restarted). --debug keeps one log per game, so
                # it starts fresh engines each game.
                keeper = (
                    await stack.enter_async_context(EngineKeeper.open())
                    if plan.games > 1 and not plan.debug
                    else None
                )
                for index in range(plan.games):
                    summary = await play_one(
                        plan,
                        index,
                        display,
                        writers,
                        keeper,
                        stop_reason=stop.reason,
                        games_file=games_file,
                    )
                    summaries.append(summary)
                    # Engines' escapees (re-parented to us) go with their game;
                    # the kept engines are live, so they are spared.
                    kill_orphans(keep=live_engine_pids())
                    if summary.write_error is not None:
                        failed = summary.write_error
                        break
                    if plan.games > 1:
                        display.progress = score_text(summaries)
                        display.line(progress_line(summary, summaries, plan.games))
    interrupted = stop.signal is not None
    display.close()
    if failed is not None:
        (env or Environment.detect("match")).error(failed)
        return FAILED
    if interrupted and len(summaries) < plan.games:
        # Ctrl+C can land while a game that has just ended is being closed:
        # say what the file really holds.
        result = writers[-1].final_result if writers else None
        display.line(
            f"interrupted ({stop.name}): the game so far is in {plan.out}"
            f" with result {result or '*'}"
        )
        assert stop.signal is not None
        return exit_status(stop.signal)
    if plan.games > 1:
        display.line(summary_table(summaries))
    display.line(f"written to {plan.out}")
    return OK


async def play_one(
    plan: MatchPlan,
    index: int,
    display: Display,
    writers: list[GameWriter],
    keeper: EngineKeeper | None = None,
    *,
    stop_reason: Callable[[], str] | None = None,
    games_file: BpgnFile | None = None,
) -> GameSummary:
    """Game ``index`` of the match, written and shown as it is played: on the
    keeper's engines (started for the first game, then kept), or with none on
    engines started for this game alone (``--debug``: each with its log)."""
    seating = rotate(plan.engines, index)
    teams = {rotated_team(team, index): spec for team, spec in plan.teams.items()}
    logs = DebugLogs(plan.out, index + 1) if plan.debug and keeper is None else None
    out = games_file if games_file is not None else plan.out
    writer = GameWriter(out, game_number=index + 1, games=plan.games)
    writers[:] = [writer]  # the current game's only: memory stays flat in --games
    display.begin(index + 1, plan.games, plan.out)

    def observe(event: MatchEvent) -> None:
        writer.observe(event)
        display.observe(event)

    try:
        async with display.kept_current():
            record, _ = await play_game(
                entrants({seat: seating[seat] for seat in SEATS}, teams=teams),
                plan.rules,
                game_id=str(index + 1),
                keeper=keeper,
                seed=game_seed(plan.seed, index),
                observer=observe,
                stop_reason=stop_reason,
                logs=logs,
            )
    finally:
        display.end_live()
        if logs is not None:
            logs.close()
    return game_summary(
        record,
        index,
        side_one_team=rotated_seat(Seat.A_WHITE, index).team,
        team_seats=frozenset(seat for team in teams for seat in team.seats),
        write_error=writer.error,
    )
