"""``bughouse match``: four engines, two boards, a live display, a BPGN file.

With no options it plays one match between the project's own searching
engines at 60+0, shows the table live on a terminal (redrawn four times a
second; one line per move when the output is not a terminal) and writes the
game, move by move, to ``games/bughouse-YYYYmmdd-HHMMSS.bpgn`` under the
current folder. ``--games N`` plays N matches with the seats rotated between games
(partners stay partners), the engines kept alive from one game to the next
(restarted after a crash), and ends with a summary table. ``--team 1=SPEC``
seats one native engine at both seats of team 1 (A-White + B-Black; team 2 is
A-Black + B-White); with ``--games`` it follows its team's seats as they
rotate. Ctrl+C (or SIGTERM, SIGHUP) stops the match, writes it with result
``*`` and the reason, closes every engine and exits with status 130 (143
for SIGTERM, 129 for SIGHUP).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import math
import os
import textwrap
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

import attrs
import trio

from ..bpgn import BpgnFile, BpgnRecorder, GameHeader, SearchInfo
from ..bpgn.file import check_output_path
from ..config.engines_file import known_engines
from ..config.options import (
    TABLE_TC,
    add_engines_file,
    add_out,
    add_rule,
    add_seat_engine,
    add_tc,
    house_rules,
    out_text,
)
from ..config.specs import (
    DEFAULT_ENGINE,
    EngineSpec,
    rotate,
    rotated_seat,
    rotated_team,
    seat_engines,
    seeded,
    team_engines,
    with_seat_options,
)
from ..core.clock import Clocks
from ..core.game import BughouseGame, PlayedMove
from ..core.model import SEATS, Result, Seat, Team
from ..core.rules import HouseRules
from ..environment import Environment, OutputGone
from ..errors import ConfigError, EngineFailed
from ..exits import FAILED, OK
from ..players.base import Player
from ..players.capped_log import CappedLog
from ..players.factory import check_command, create_player, create_team_player
from ..players.process import ProtocolLog, live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..protocol.limits import DEPTH_LIMIT, MATE_LIMIT, SCORE_CP_LIMIT, bounded_int
from ..table.arbiter import (
    DrawOffered,
    InfoReported,
    MatchEnded,
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
    MoveRefused,
    PartnerTold,
    run_match,
)
from ..table.stopping import exit_status, stop_on_signals
from ..tournament.jobs import Entrant
from ..tournament.keeper import EngineKeeper
from ..ui.render import RenderOptions, move_line, render_table
from ..ui.safe_text import printable, printable_lines
from . import SUMMARIES

DEFAULT_TC = TABLE_TC
#: Live display refreshes per second (at least one, as promised).
REFRESH_HZ = 4
#: Characters of unflushed display text held before they are handed to the
#: output stream all the same (as its buffer would, were it buffered).
HELD_CHARS = 8192


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
        help="one native engine (SPEC as for --engine, no uci:/xboard:) plays both seats "
        "of team 1 (A-white + B-black) or 2 (A-black + B-white) (repeatable)",
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


@attrs.frozen(kw_only=True)
class MatchPlan:
    """Everything ``bughouse match`` was asked to do, checked."""

    engines: Mapping[Seat, EngineSpec]
    rules: HouseRules
    #: Game-0 teams held by one engine process (their seats are in ``engines`` too).
    teams: Mapping[Team, EngineSpec] = attrs.field(factory=dict)
    games: int = 1
    out: Path
    seed: int | None = None
    debug: bool = False


def plan_from_args(args: argparse.Namespace, *, today: datetime.datetime) -> MatchPlan:
    """Reads and checks the options; raises ConfigError (or RuleError) on bad input."""
    rules = house_rules(args.rule, args.tc, default_tc=DEFAULT_TC)
    games = _positive_int(args.games, "--games")
    seed = _int(args.seed, "--seed") if args.seed is not None else None
    known = known_engines(getattr(args, "engines_file", None))
    teams = team_engines(getattr(args, "team", []), known=known)
    engines = seat_engines(args.engine, known=known, teams=teams)
    engines, teams = with_seat_options(engines, getattr(args, "option", []), teams=teams)
    for spec in engines.values():
        check_command(spec)
    given = out_text(args)
    out = Path(given) if given else default_out(today)
    # The default folder (games/) is made when the match starts.
    if given or out.parent.exists():
        check_output_path(out)
    return MatchPlan(
        engines=engines,
        teams=teams,
        rules=rules,
        games=games,
        out=out,
        seed=seed,
        debug=args.debug,
    )


def _int(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a whole number, not {text!r}") from None


def _positive_int(text: str, option: str) -> int:
    value = _int(text, option)
    if value < 1:
        raise ConfigError(f"{option} must be at least 1, not {value}")
    return value


#: Where games go without ``--out`` (git-ignored in the project's own tree).
GAMES_FOLDER = Path("games")


def default_out(today: datetime.datetime) -> Path:
    """``games/bughouse-YYYYmmdd-HHMMSS.bpgn``."""
    return GAMES_FOLDER / f"bughouse-{today:%Y%m%d-%H%M%S}.bpgn"


def make_folder(out: Path) -> None:
    """Creates ``out``'s folder if it is missing (the default ``games/``)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make the folder {str(out.parent)!r}: {exc.strerror}") from None


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


@attrs.frozen(kw_only=True)
class GameSummary:
    number: int
    names: Mapping[Seat, str]
    result: Result
    reason: str
    plies: int
    seconds: float
    side_one_team: Team  # the team the game-1 A-White + B-Black side played as
    #: Seats held by a team-mode engine (one process for both seats of its team).
    team_seats: frozenset[Seat] = frozenset()
    write_error: str | None = None


def game_summary(
    record: MatchRecord,
    index: int,
    *,
    side_one_team: Team,
    team_seats: frozenset[Seat] = frozenset(),
    write_error: str | None = None,
) -> GameSummary:
    """The summary row of game ``index`` (from 0), from what ``run_match`` returned.

    ``side_one_team``: the team that the side seated at A-White + B-Black in
    the first game plays as in this one (``rotated_seat(Seat.A_WHITE,
    index).team`` when seats rotate).
    """
    started, ended = record.started, record.ended
    return GameSummary(
        number=index + 1,
        names=dict(record.names),
        result=record.outcome.result,
        reason=record.outcome.reason,
        plies=record.game.plies,
        seconds=(ended - started) if started is not None and ended is not None else 0.0,
        side_one_team=side_one_team,
        team_seats=team_seats,
        write_error=write_error,
    )


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


def _entrants(
    seating: Mapping[Seat, EngineSpec], teams: Mapping[Team, EngineSpec]
) -> list[Entrant]:
    entrants = [
        Entrant(seats=team.seats, spec=spec, participant=f"team {team.value}", engine=spec.name)
        for team, spec in teams.items()
    ]
    entrants += [
        Entrant(
            seats=(seat,),
            spec=seating[seat],
            participant=f"team {seat.team.value}",
            engine=seating[seat].name,
        )
        for seat in SEATS
        if seat.team not in teams
    ]
    return entrants


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
    players = [] if keeper is not None else _fresh_players(plan, index, seating, teams, logs)
    out = games_file if games_file is not None else plan.out
    writer = GameWriter(out, game_number=index + 1, games=plan.games)
    writers[:] = [writer]  # the current game's only: memory stays flat in --games
    display.begin(index + 1, plan.games, plan.out)

    def observe(event: MatchEvent) -> None:
        writer.observe(event)
        display.observe(event)

    try:
        async with display.kept_current():
            if keeper is None:
                record = await run_match(
                    players,
                    plan.rules,
                    game_id=str(index + 1),
                    observer=observe,
                    stop_reason=stop_reason,
                )
            else:
                record, _ = await keeper.play(
                    _entrants(seating, teams),
                    plan.rules,
                    game_id=str(index + 1),
                    observer=observe,
                    seed=plan.seed,
                    stop_reason=stop_reason,
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


def _fresh_players(
    plan: MatchPlan,
    index: int,
    seating: Mapping[Seat, EngineSpec],
    teams: Mapping[Team, EngineSpec],
    logs: DebugLogs | None,
) -> list[Player]:
    """New, unstarted players for game ``index``: the teams' engines, then one per other seat."""
    players: list[Player] = []
    for team, spec in teams.items():
        log = logs.for_seats(team.seats) if logs else None
        players.append(
            create_team_player(team.seats, seeded(spec, plan.seed, index, team.seats[0]), log=log)
        )
    for seat in SEATS:
        if seat.team not in teams:
            log = logs.for_seat(seat) if logs else None
            players.append(
                create_player(seat, seeded(seating[seat], plan.seed, index, seat), log=log)
            )
    return players


# -- the BPGN file -----------------------------------------------------------------


class GameWriter:
    """Writes one game to the BPGN file as it is played (observer of the arbiter).

    ``out`` is the match's open ``BpgnFile`` (shared by its games), or a path
    to open for this one game (closed when the game ends).
    """

    def __init__(self, out: BpgnFile | Path, *, game_number: int, games: int) -> None:
        self.path = out.path if isinstance(out, BpgnFile) else out
        self._file = out if isinstance(out, BpgnFile) else None
        self._owns_file = not isinstance(out, BpgnFile)
        self.round = str(game_number) if games > 1 else "-"
        self.recorder: BpgnRecorder | None = None
        self.pending_info: dict[Seat, SearchInfo] = {}
        #: Why the file could not be written, if it could not.
        self.error: str | None = None
        #: The result written when the game ended (``*`` if it was aborted).
        self.final_result: str | None = None

    def observe(self, event: MatchEvent) -> None:
        """Writes what ``event`` added; after a failed write, writes nothing more."""
        if self.error is not None:
            return
        try:
            self._observe(event)
        except OSError as exc:
            self.error = f"cannot write {self.path}: {exc.strerror or exc}"
            self._close()
        except ConfigError as exc:
            self.error = str(exc)

    def _observe(self, event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):  # first: the event of every move
            if self.recorder is not None:
                seat = event.played.seat
                infos = (
                    {event.played.ply: self.pending_info.pop(seat)}
                    if seat in self.pending_info
                    else None
                )
                self._out().append(self.recorder.update(infos))
        elif isinstance(event, MatchStarted):
            self._open(event.game, event.names)
        elif isinstance(event, InfoReported):
            info = parse_info(event.text)
            if info is not None:
                self.pending_info[event.seat] = info
        elif isinstance(event, PartnerTold | DrawOffered) and self.recorder is not None:
            self._out().append(self.recorder.update())
        elif isinstance(event, MatchEnded):
            if self.recorder is None:
                self._open(event.game, event.names)
            assert self.recorder is not None
            self._out().end_game(self.recorder.outcome_slot(), self.recorder.closing_text())
            self.final_result = event.outcome.result.value
            self.recorder = None  # the game is on disk: nothing of it is kept here
            self._close()

    def _out(self) -> BpgnFile:
        if self._file is None:
            self._file = BpgnFile.open(self.path)
        return self._file

    def _close(self) -> None:
        if self._owns_file and self._file is not None:
            self._file.close()
            self._file = None

    def _open(self, game: BughouseGame, names: Mapping[Seat, str]) -> None:
        now = datetime.datetime.now(datetime.UTC)
        header = GameHeader(
            players=dict(names),
            date=f"{now:%Y.%m.%d}",
            time=f"{now:%H:%M:%S}",
            round=self.round,
        )
        self.recorder = BpgnRecorder(game, header)
        start = self.recorder.streamed_header()
        self._out().start_game(start.text, slot=start.slot)


def parse_info(text: str) -> SearchInfo | None:
    """Reads ``depth``, ``score cp`` and ``score mate`` from UCI-style info tokens.

    Numbers are read into bounded values (``protocol.limits``): one that is not
    a plain integer, or is out of range, counts as absent.
    """
    words = text.split()
    depth = cp = mate = None
    for i, word in enumerate(words[:-1]):
        value = words[i + 1]
        if word == "depth":
            depth = bounded_int(value, DEPTH_LIMIT)
        elif word == "cp" and i and words[i - 1] == "score":
            cp = bounded_int(value, SCORE_CP_LIMIT)
        elif word == "mate" and i and words[i - 1] == "score":
            mate = bounded_int(value, MATE_LIMIT)
    if depth is None and cp is None and mate is None:
        return None
    return SearchInfo(score_cp=cp, mate=mate, depth=depth)


class DebugLogs:
    """One protocol log per engine process, ``<out>.g<N>.<seat>.log`` (a team-mode
    engine's is ``<out>.g<N>.<seat>+<seat>.log``): milliseconds since the
    engines were started, then each line in (``>``) or out (``<``). Each log
    is capped in size and rate (``CappedLog``), with a note of what it dropped."""

    def __init__(self, out: Path, game_number: int) -> None:
        self.files: dict[tuple[Seat, ...], TextIO] = {}
        self.logs: list[CappedLog] = []
        self.out = out
        self.game_number = game_number
        self.start = trio.current_time()

    def path(self, seats: Seat | tuple[Seat, ...]) -> Path:
        seats = (seats,) if isinstance(seats, Seat) else seats
        slug = "+".join(seat.slug for seat in seats)
        return self.out.with_name(f"{self.out.stem}.g{self.game_number}.{slug}.log")

    def for_seat(self, seat: Seat) -> ProtocolLog:
        return self.for_seats((seat,))

    def for_seats(self, seats: tuple[Seat, ...]) -> ProtocolLog:
        """The log of the one process holding ``seats``."""
        handle = self.path(seats).open("w", encoding="utf-8")
        self.files[seats] = handle
        log = CappedLog(handle, start=self.start)
        self.logs.append(log)
        return log

    def close(self) -> None:
        for log in self.logs:
            log.close()
        for handle in self.files.values():
            handle.close()


# -- what the person sees -------------------------------------------------------


class Display:
    """The live table on a terminal, or one line per move elsewhere."""

    def __init__(self, out: TextIO, *, live: bool, options: RenderOptions) -> None:
        self.out = out
        self.live = live
        self.options = options
        self.game: BughouseGame | None = None
        self.names: Mapping[Seat, str] = {}
        self.clocks: Clocks | None = None
        self.footer = ""
        self.message = ""
        self.cursor_hidden = False
        self.ended_at = 0.0
        self.broken = False
        #: The running score of a multi-game run, shown under the live table.
        self.progress = ""
        #: Lines were written but not flushed yet (no terminal: see ``keep_flushed``).
        self.unflushed = False
        #: Text written with flush=False and moves played, not handed on yet.
        self._held: list[str | _HeldMove] = []
        self._held_chars = 0

    def begin(self, number: int, games: int, path: Path) -> None:
        self.game = None
        self.clocks = None
        which = f"game {number}/{games}" if games > 1 else "match"
        self.footer = f"{which} · writing {printable(str(path))} · Ctrl+C stops"
        if not self.live:
            self.line(f"{which}: starting engines")

    def observe(self, event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):  # first: the event of every move
            self.clocks = event.clocks
            if not (self.live or self.broken) and self.game is not None:
                # Written out soon, by ``keep_flushed``; made into text only then,
                # with the other lines held (one line at a time costs more).
                self._held.append((self.game, event.played, self.names, event.used))
                self._held_chars += MOVE_LINE_CHARS
                self.unflushed = True
                if self._held_chars >= HELD_CHARS:
                    self.write("", flush=False)
        elif isinstance(event, MatchStarted):
            self.game, self.names = event.game, event.names
            self.clocks = self._turns_started(event.clocks, event.now)
            if not self.live:
                seats = ", ".join(f"{seat} {event.names[seat]}" for seat in SEATS)
                rules = event.game.rules
                timing = f"time {rules.time:g}+{rules.increment:g}" if rules.clock else "untimed"
                self.line(f"start: {seats}; {timing}")
        elif isinstance(event, PartnerTold):
            text = f"{event.message.seat} to partner: {printable(event.message.text, 200)}"
            self.message = text
            if not self.live:
                self.line(f"  {text}")
        elif isinstance(event, MoveRefused):
            refused = printable(event.text, 40)
            self.message = printable(f"{event.seat}: move {refused!r} refused ({event.reason})")
            if not self.live:
                self.line(f"  {self.message}")
        elif isinstance(event, MatchEnded):
            self.game, self.names, self.clocks = event.game, event.names, event.clocks
            self.ended_at = event.now
            if not self.live:
                self.line(f"result: {event.outcome}")

    def _turns_started(self, clocks: Clocks, now: float) -> Clocks:
        """``clocks`` with the clock of every seat to move running.

        The start's clocks are taken before the first turns open; counting
        those from the start keeps both boards' clocks (and markers) moving.
        """
        if self.game is None:
            return clocks
        return clocks.start_all(
            (seat for seat in self.game.seats_to_move() if not clocks.is_running(seat)), now
        )

    @contextlib.asynccontextmanager
    async def kept_current(self) -> AsyncIterator[None]:
        """Keeps the output current while the block runs (a game): the live
        table redrawn (``refresh``), or else the held move lines flushed
        (``keep_flushed``)."""
        async with trio.open_nursery() as nursery:
            scope = trio.CancelScope()
            nursery.start_soon(self.refresh if self.live else self.keep_flushed, scope)
            try:
                yield
            finally:
                scope.cancel()

    async def refresh(self, scope: trio.CancelScope) -> None:
        """Redraws the table ``REFRESH_HZ`` times a second until ``scope`` is cancelled."""
        with scope:
            self.write("\x1b[?25l\x1b[H\x1b[2J")
            self.cursor_hidden = True
            while True:
                self.draw(trio.current_time())
                await trio.sleep(1 / REFRESH_HZ)

    async def keep_flushed(self, scope: trio.CancelScope) -> None:
        """Without a terminal: flushes the move lines ``REFRESH_HZ`` times a second.

        One flush per move would cost a system call a move; this way a
        ``| tee`` still sees the game go on.
        """
        with scope:
            while True:
                await trio.sleep(1 / REFRESH_HZ)
                if self.unflushed:
                    self.write("")

    def draw(self, now: float, *, final: bool = False) -> None:
        if self.game is None or self.clocks is None:
            text = "starting engines..."
        else:
            text = render_table(
                self.game,
                self.clocks.snapshot(now),
                names=self.names,
                running=self.clocks.running.keys(),
                options=self.options,
                footer=self.message,
            )
        footer = f"{self.footer} · {self.progress}" if self.progress else self.footer
        lines = [*text.split("\n"), "", footer]
        if final:
            self.write("\x1b[H" + "\n".join(f"{ln}\x1b[K" for ln in lines[:-1]) + "\x1b[J\n")
        else:
            self.write("\x1b[H" + "\n".join(f"{ln}\x1b[K" for ln in lines) + "\x1b[J")

    def end_live(self) -> None:
        """Draws the final table once more, leaving the cursor below it."""
        if self.live:
            self.draw(self.ended_at, final=True)

    def line(self, text: str, *, flush: bool = True) -> None:
        """One line of plain text; control characters in it are shown escaped."""
        self.write(printable_lines(text, limit=2000) + "\n", flush=flush)

    def write(self, text: str, *, flush: bool = True) -> None:
        """Writes and flushes; once the output is gone (``| head``), writes nothing more.

        Text written with ``flush=False`` is held here until the next flushed
        write (``keep_flushed``'s, or a line that must show at once), or until
        ``HELD_CHARS`` are held: so it costs no system call even when the output
        stream writes through (``PYTHONUNBUFFERED``). The match goes on and its
        file is still written.
        """
        if self.broken:
            return
        if not flush:
            self._held.append(text)
            self._held_chars += len(text)
            self.unflushed = True
            if self._held_chars < HELD_CHARS:
                return
        if self._held:
            if flush:
                self._held.append(text)
            text = "".join(
                item if isinstance(item, str) else _held_move_line(*item) for item in self._held
            )
            self._held.clear()
            self._held_chars = 0
        try:
            self.out.write(text)
            self.unflushed = not flush
            if flush:
                self.out.flush()
        except (OSError, ValueError, OutputGone):
            self.broken = True
            _silence(self.out)

    def close(self) -> None:
        if self.cursor_hidden:
            self.write("\x1b[?25h")
            self.cursor_hidden = False
        if self._held:
            self.write("")


#: A move the display holds: its game, the move, the seats' names and the time it used.
_HeldMove = tuple[BughouseGame, PlayedMove, Mapping[Seat, str], float]

#: About the length of a move's line, counted towards ``HELD_CHARS``.
MOVE_LINE_CHARS = 80


def _held_move_line(
    game: BughouseGame, played: PlayedMove, names: Mapping[Seat, str], used: float
) -> str:
    # Printable as it is: move_line escapes the name, the rest is the board's and ours.
    return move_line(game, played, names=names, used=used) + "\n"


def _silence(out: TextIO) -> None:
    # Point the descriptor at /dev/null so the interpreter's final flush
    # does not complain about the closed pipe either.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


# -- reports -------------------------------------------------------------------


def _side_points(summary: GameSummary) -> tuple[float, float]:
    winner = summary.result.winner
    if summary.result is Result.UNFINISHED:
        return 0.0, 0.0
    if winner is None:
        return 0.5, 0.5
    return (1.0, 0.0) if winner is summary.side_one_team else (0.0, 1.0)


def _seat_name(summary: GameSummary, seat: Seat) -> str:
    """The seat's engine name, marked ``(team)`` when one process holds its team."""
    name = summary.names.get(seat, "?")
    return f"{name} (team)" if seat in summary.team_seats else name


def _sides(summary: GameSummary) -> tuple[str, str]:
    one = summary.side_one_team

    def side(team: Team) -> str:
        if all(s in summary.team_seats for s in team.seats):
            return _seat_name(summary, team.seats[0])
        return "+".join(summary.names.get(s, "?") for s in team.seats)

    first, second = side(one), side(one.other)
    if first == second:
        return f"side 1 ({first})", f"side 2 ({second})"
    return first, second


def score_text(done: list[GameSummary]) -> str:
    """``score S+S 2.5 - 0.5 R+R`` for the games so far."""
    one = sum(_side_points(s)[0] for s in done)
    two = sum(_side_points(s)[1] for s in done)
    side_one, side_two = _sides(done[0])
    return f"score {side_one} {one:g} - {two:g} {side_two}"


def progress_line(summary: GameSummary, done: list[GameSummary], games: int) -> str:
    """``game 3/10: 1-0 A-Black checkmated (42 plies, 12.5 s) · score ...``"""
    return (
        f"game {summary.number}/{games}: {summary.result.value} {summary.reason} "
        f"({summary.plies} plies, {summary.seconds:.1f} s) · {score_text(done)}"
    )


def summary_table(summaries: list[GameSummary]) -> str:
    """One row per game (who sat where, result, plies, reason), then the score.

    Engines are shown by a short tag (``S``, ``R``...) explained on the first
    line, so the rows fit 80 columns. An engine holding both seats of its team
    (``--team``) is named ``NAME (team)``.
    """
    tags = _engine_tags(summaries)
    legend = ", ".join(f"{tag} = {name}" for name, tag in tags.items())
    width = max(2, *(len(tag) for tag in tags.values()))
    seats = "".join(f"{seat.bpgn:<{width + 1}}" for seat in SEATS)
    side_one, side_two = _sides(summaries[0])
    named = not side_one.startswith("side 1")
    labels = (side_one, side_two) if named else ("side 1", "side 2")
    won = max(6, *(len(label) for label in labels))
    head = f"{'game':>4}  {seats} result   {'won by':<{won}} plies  "
    rows = [f"engines: {legend}", head + "reason"]
    room = max(20, 80 - len(head))
    for s in summaries:
        sat = "".join(f"{tags[_seat_name(s, seat)]:<{width + 1}}" for seat in SEATS)
        points = _side_points(s)
        if s.result is Result.UNFINISHED:
            winner = "-"
        elif points[0] == points[1]:
            winner = "draw"
        else:
            winner = labels[0] if points[0] > points[1] else labels[1]
        start = f"{s.number:>4}  {sat} {s.result.value:<8} {winner:<{won}} {s.plies:>5}  "
        # The whole reason, wrapped under its column when long.
        pieces = textwrap.wrap(s.reason, room) or [""]
        rows.append(start + pieces[0])
        rows.extend(" " * len(start) + piece for piece in pieces[1:])
    one = sum(_side_points(s)[0] for s in summaries)
    two = sum(_side_points(s)[1] for s in summaries)
    rows.append(
        f"score: {side_one} {one:g} - {two:g} {side_two} "
        "(sides as seated in game 1: A-White+B-Black against A-Black+B-White)"
    )
    return "\n".join(rows)


def _engine_tags(summaries: list[GameSummary]) -> dict[str, str]:
    tags: dict[str, str] = {}
    for s in summaries:
        for seat in SEATS:
            name = _seat_name(s, seat)
            if name in tags:
                continue
            tag = (name[:1] or "?").upper()
            if tag in tags.values():
                tag = f"{tag}{len(tags) + 1}"
            tags[name] = tag
    return tags
