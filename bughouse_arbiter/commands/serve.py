"""``bughouse serve``: the table as a server; engines and people join over the network.

``bughouse serve --remote B-white --engine A-white=searcher ...`` seats the
``--remote`` seats for network players and fills the others as ``match``
does. On start it prints, per remote seat, a one-time secret token and the
exact command to join with, then plays ``--games`` games and writes them to
``--out``. It binds to 127.0.0.1 unless ``--host`` says otherwise;
``--port 0`` picks a free port and prints it. With ``--games N`` the seats
rotate between games exactly as in ``match`` (partners stay partners; over
four games every player sits at every seat and each team plays both sides),
and the run ends with ``match``'s summary table and score. A remote player
keeps its connection: the player who joined seat S (its token's seat) is told
its seat of each game by that game's ``newgame``, and comes back after a
drop with the same ``--seat S`` and token (or with the seat it plays now).
The ``--engine`` seats' engines are an ``EngineKeeper``'s, kept alive from
game to game as ``match`` keeps them. ``--fixed-seats`` keeps every player
at its seat for the whole run instead (e.g. a person who is to play A-White
in every game). A draw needs both teams (house rule ``draw=both-teams``:
every person, and the engines of a team without one, must agree) unless
``--rule draw=humans`` says otherwise. ``--certfile FILE --keyfile FILE``
(PEM) turn TLS on for both ports: clients join with ``--tls`` (and
``--cafile FILE`` for a certificate this machine does not trust), the live
page is https. Ctrl+C, SIGTERM or SIGHUP stop it as they stop ``match``.

The table seam (for other front ends, e.g. ``--web``)
------------------------------------------------------

Everything network-facing reaches the table through one object,
``bughouse_arbiter.serve.seam.LiveTable``, whose full contract is in that
module's docstring. In short:

- ``table.remote_seats`` and ``table.tokens`` (secret per remote seat),
  ``table.rules``, ``table.names()``;
- ``table.observe(callback)``: every arbiter ``MatchEvent`` of every game,
  synchronously (copy into your own queue before doing I/O); returns an
  unsubscribe function;
- ``table.authenticate(seat_text, token) -> Seat`` (the token's seat) or
  ``AuthRefused(reason)``;
- ``table.seat_of(seat)``: where the player of a remote seat sits in the game
  being played (``serve`` sets it before each game, as seats rotate);
- ``await table.attach(seat, link)``: a ``SeatLink`` (``peer``, ``send(line)``
  never blocking, ``await receive() -> RawLine | None``, ``aclose()``)
  carries that seat's protocol.md lines exactly as a pipe would, until the
  link ends; a dropped seat may re-attach within ``reconnect_grace``;
- ``table.log(text)``.

A link may also have a ``lag`` attribute (the last measured round-trip in
seconds, a float, or None): the seat then records it with each move as
``[%lag ms]`` (the TCP link measures it with ``ping``/``pong``, protocol.md
§12). A front end that wants to drive a Python ``Player`` from the seat's
lines (as ``bughouse connect`` does for UCI engines and the console) can use
``server.driver.PlayerDriver``.

A front end is an object with ``async def serve(self, table, *,
task_status)``; it calls ``task_status.started()`` once it accepts
connections. ``serve`` builds the list in ``front_ends(plan)``: the TCP
listener always, and with ``--web`` the live page
(``bughouse_arbiter.serve.live_page.WebFrontEnd``, on its own port), whose
``flush`` is awaited after the last game so every page gets the result.
The front ends run in a nursery next to the games and are cancelled when
the last game ends; a front end that raises ends the
server (a bug), so catch per-connection errors inside.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import ipaddress
import re
import sys
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import attrs
import trio

from ..config.options import (
    TABLE_TC,
    add_engines_file,
    add_out,
    add_rule,
    add_seat_engine,
    add_tc,
    house_rules,
    port_number,
)
from ..config.specs import DEFAULT_ENGINE, builtin_engine, game_seed, rotated_seat
from ..core.model import SEATS, Seat
from ..core.rules import DrawRule
from ..environment import Environment
from ..errors import ConfigError, UsageError
from ..exits import FAILED, OK
from ..net.limits import LIMIT_NAMES, Limits, limits_from_texts
from ..net.tcp import ServeError
from ..net.tls import server_context
from ..players.base import Player
from ..players.process import EngineProcess, live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..serve.listener import TcpFrontEnd
from ..serve.live_page import WebFrontEnd
from ..serve.remote import RemoteEnginePlayer, RemoteSeat, names_now, taken_over
from ..serve.seam import FrontEnd, LiveTable
from ..table.arbiter import (
    MatchEnded,
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
)
from ..table.games import play_game
from ..table.keeper import EngineKeeper, entrants
from ..table.match_events import SeatTakenOver
from ..table.recording import GameWriter
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
from .plans import MatchPlan
from .plans import plan_from_args as match_plan_from_args

DEFAULT_PORT = 7790
#: The live page's port with a bare ``--web``.
DEFAULT_WEB_PORT = 7791
#: A name ``--allow-origin`` takes: a DNS name or an address (IPv6 in brackets or not).
_HOST_NAME = re.compile(
    r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\.?|\[?[0-9A-Fa-f:.]{2,45}\]?"
)
#: The engine that takes a seat under ``leaver=computer``.
REPLACEMENT = "searcher"
#: Who must agree to a draw at a served table, unless ``--rule draw=...`` says:
#: strangers may join, and one person alone must not draw against engines.
SERVE_DRAW: DrawRule = "both-teams"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help=SUMMARIES["serve"],
        description=__doc__.split("\n\nThe table seam")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", default=str(DEFAULT_PORT), help=f"TCP port (default {DEFAULT_PORT}; 0 = any free)"
    )
    parser.add_argument(
        "--remote",
        action="append",
        default=[],
        metavar="SEAT",
        help="a seat that waits for a network player (repeatable; its seat in the first game)",
    )
    add_seat_engine(parser, default=DEFAULT_ENGINE, note="; SEAT is its seat in the first game")
    add_tc(parser, default=TABLE_TC)
    add_rule(
        parser,
        note="; a served table also takes reconnect_grace=60 or leaver=computer, and "
        "plays draw=both-teams unless a draw rule is given",
    )
    add_engines_file(parser)
    parser.add_argument(
        "--games",
        default="1",
        metavar="N",
        help="games to play (default 1); seats rotate between games as in match",
    )
    parser.add_argument(
        "--fixed-seats",
        action="store_true",
        help="keep every player at its seat for the whole run (no rotation)",
    )
    add_out(
        parser,
        help="BPGN file to append the games to (default games/bughouse-YYYYmmdd-HHMMSS.bpgn), "
        "locked while the table runs",
    )
    parser.add_argument("--seed", metavar="N", help="seed for the built-in engines")
    parser.add_argument(
        "--web",
        nargs="?",
        const=str(DEFAULT_WEB_PORT),
        metavar="PORT",
        help=f"also serve the live page on this port (default {DEFAULT_WEB_PORT}; 0 = any free)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the live page may also be reached by, e.g. a reverse proxy's "
        "(repeatable; else only this server's own address and localhost)",
    )
    parser.add_argument(
        "--certfile",
        metavar="FILE",
        help="speak TLS on both ports with this certificate (chain), PEM; with --keyfile",
    )
    parser.add_argument("--keyfile", metavar="FILE", help="the certificate's private key, PEM")
    base = Limits()
    limits = "; ".join(
        f"{name}={getattr(base, field):g}: {what}" for name, (field, what) in LIMIT_NAMES.items()
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"a connection limit (repeatable; the defaults shown): {limits}",
    )
    parser.set_defaults(run=run)


@attrs.frozen(kw_only=True)
class ServePlan:
    match: MatchPlan
    remote: tuple[Seat, ...]
    host: str
    port: int
    #: The live page's port (``--web``), or None for no page.
    web_port: int | None = None
    #: Seats rotate between games as in ``match`` (False: ``--fixed-seats``).
    rotate: bool = True
    limits: Limits = attrs.field(factory=Limits)
    #: More names the live page answers to (``--allow-origin``).
    allow_origin: tuple[str, ...] = ()
    #: TLS on both ports (``--certfile``, ``--keyfile``), or None: plain.
    certfile: str | None = None
    keyfile: str | None = None

    def seat_in_game(self, seat: Seat, index: int) -> Seat:
        """Where the player of ``seat`` (its seat in the first game) sits in game ``index``."""
        return rotated_seat(seat, index) if self.rotate else seat


def plan_from_args(args: argparse.Namespace, *, today: datetime.datetime) -> ServePlan:
    remote: list[Seat] = []
    for text in args.remote:
        try:
            seat = Seat.parse(text)
        except ValueError as exc:
            raise UsageError(f"--remote: {exc}") from None
        if seat in remote:
            raise UsageError(f"--remote {text}: seat {seat} is named twice")
        remote.append(seat)
    if not remote and args.web is None:
        raise UsageError(
            "name at least one --remote seat, or --web to show the table "
            "(else use 'bughouse match')"
        )
    for text in args.engine:
        name = text.partition("=")[0]
        try:
            seat = Seat.parse(name)
        except ValueError:
            continue  # match's own check says what is wrong
        if seat in remote:
            raise UsageError(f"seat {seat} is both --remote and --engine")
    port = port_number("--port", args.port)
    web_port = None if args.web is None else port_number("--web", args.web)
    limits = limits_from_texts(args.limit)
    allow = tuple(args.allow_origin)
    if allow and web_port is None:
        raise UsageError("--allow-origin is for the live page: give --web too")
    for name in allow:
        if not _HOST_NAME.fullmatch(name):
            raise UsageError(
                f"--allow-origin {name!r}: give a host name, such as bughouse.example.org"
            )
    certfile, keyfile = args.certfile, args.keyfile
    if (certfile is None) != (keyfile is None):
        raise UsageError("--certfile and --keyfile go together")
    if certfile is not None and keyfile is not None:
        server_context(certfile, keyfile)  # a bad file is one line now, not a failed start
    match_args = argparse.Namespace(
        rule=args.rule,
        tc=args.tc,
        games=args.games,
        seed=args.seed,
        engines_file=args.engines_file,
        team=[],
        engine=args.engine,
        out=args.out,
        debug=False,
    )
    plan = match_plan_from_args(match_args, today=today)
    rules = house_rules(args.rule, args.tc, default_tc=TABLE_TC, table=[("draw", SERVE_DRAW)])
    plan = attrs.evolve(plan, rules=rules)
    return ServePlan(
        match=plan,
        remote=tuple(s for s in SEATS if s in remote),
        host=args.host,
        port=port,
        web_port=web_port,
        rotate=not args.fixed_seats,
        limits=limits,
        allow_origin=allow,
        certfile=certfile,
        keyfile=keyfile,
    )


def run(args: argparse.Namespace, env: Environment) -> int:
    plan = plan_from_args(args, today=datetime.datetime.now())
    options = RenderOptions(unicode=env.unicode, color=False)
    display = Display(env.stdout, live=False, options=options)
    become_subreaper()
    try:
        return trio.run(functools.partial(serve, plan, display, env=env))
    finally:
        kill_orphans(keep=live_engine_pids())


def log_line(text: str) -> None:
    print(f"serve: {text}", file=sys.stderr, flush=True)


def front_ends(plan: ServePlan) -> list[FrontEnd]:
    """The ways in: the TCP listener, and the live page with ``--web``."""
    tls = None
    if plan.certfile is not None and plan.keyfile is not None:
        tls = server_context(plan.certfile, plan.keyfile)
    ends: list[FrontEnd] = [TcpFrontEnd(plan.host, plan.port, plan.limits, tls=tls)]
    if plan.web_port is not None:
        web = WebFrontEnd(
            plan.host,
            plan.web_port,
            plan.limits,
            allow_origin=plan.allow_origin,
            certfile=plan.certfile,
            keyfile=plan.keyfile,
        )
        ends.append(web)
    return ends


async def serve(
    plan: ServePlan,
    display: Display,
    *,
    log: Callable[[str], None] = log_line,
    env: Environment | None = None,
) -> int:
    """Listens, prints the tokens, plays the games; returns the exit status."""
    rules = plan.match.rules
    status = OK
    async with stop_on_signals() as stop, trio.open_nursery() as home:
        remotes = {
            seat: RemoteSeat(
                seat,
                grace=rules.reconnect_grace,
                leaver=rules.leaver,
                replacement=_replacement,
                log=log,
            )
            for seat in plan.remote
        }
        remote_players = {
            seat: RemoteEnginePlayer(remote, home) for seat, remote in remotes.items()
        }
        names: dict[Seat, str] = {}
        table = LiveTable(rules, remotes, names=lambda: dict(names), log=log)
        for remote in remotes.values():
            remote.on_replaced = partial(_taken_over, table, names, remote.seat)
        ends = front_ends(plan)
        failed: list[str] = []

        def stop_reason() -> str:
            # A front end that fails (a bug) cancels the games: say so, not "interrupted by".
            if stop.signal is None and failed:
                return f"the server failed ({failed[0]}); the game was stopped"
            return stop.reason()

        try:
            for end in ends:
                await home.start(_front_end, end, table, failed)
        except ServeError as exc:
            (env or Environment.detect("serve")).error(str(exc))
            home.cancel_scope.cancel()
            return FAILED
        # The move lines are held between flushes (see ``Display.write``).
        home.start_soon(display.keep_flushed, trio.CancelScope())
        # Several games: the local engines stay alive from one to the next, as in
        # ``match`` (a crashed or hung one is restarted); closed when the run ends.
        keeper = None
        if plan.match.games > 1 and len(plan.remote) < len(SEATS) and not plan.match.debug:
            keeper = EngineKeeper()
            await home.start(keeper.serve)
        tcp = next(e for e in ends if isinstance(e, TcpFrontEnd))
        address = f"{plan.host}:{tcp.port}"
        secure = tcp.tls is not None
        display.line(f"listening on {address}{' (TLS)' if secure else ''}")
        if not _loopback(plan.host) and not secure:
            log(
                f"{plan.host} is reachable from other machines and nothing is encrypted "
                "(--certfile and --keyfile turn TLS on)"
            )
        web = next((e for e in ends if isinstance(e, WebFrontEnd)), None)
        scheme = "https" if secure else "http"
        page = None if web is None else f"{scheme}://{_url_host(plan.host)}:{web.port}/"
        dial = f"{address} --tls" if secure else address
        if page is not None:
            display.line(f"live page: {page}")
        for seat in plan.remote:
            token = table.tokens[seat]
            display.line(f"seat {seat}: token {token}")
            display.line(
                f"  join: bughouse connect {dial} --seat {seat.slug} --token={token} -- SPEC"
            )
            display.line(
                f"  or:   bughouse play --connect {dial} --seat {seat.slug} --token={token}"
            )
            if page is not None:
                display.line(f"  or:   open {page}#seat={seat.slug}&token={token}")
        if plan.match.games > 1:
            display.line(
                "seats rotate between games, as in match (the player who joins a seat "
                "is told its seat in each game)"
                if plan.rotate
                else "seats are fixed for the whole run (--fixed-seats)"
            )

        summaries: list[GameSummary] = []
        with stop.scope:
            for index in range(plan.match.games):
                lost = [s for s, r in remotes.items() if r.lost and r.replaced_by is None]
                if lost:
                    display.line(f"stopping: seat {lost[0]} has left for good")
                    status = FAILED
                    break
                for seat, remote in remotes.items():
                    if not remote.connected and remote.replaced_by is None:
                        display.line(f"waiting for seat {seat}...")
                        await remote.wait_ready()
                record = await _play_one(
                    plan, index, display, remote_players, table, names, stop_reason, keeper
                )
                kill_orphans(keep=live_engine_pids())
                if plan.match.games > 1:
                    summaries.append(
                        game_summary(
                            record,
                            index,
                            side_one_team=plan.seat_in_game(Seat.A_WHITE, index).team,
                        )
                    )
                    display.progress = score_text(summaries)
                    display.line(progress_line(summaries[-1], summaries, plan.match.games))
        if stop.signal is not None:
            display.line(f"interrupted ({stop.name}): the games so far are in {plan.match.out}")
            status = exit_status(stop.signal)
        elif summaries:
            display.line(summary_table(summaries))
        with trio.CancelScope(shield=True):
            for player in remote_players.values():
                await player.shutdown()
            if web is not None:
                await web.flush()
        home.cancel_scope.cancel()
    if status == OK:
        display.line(f"written to {plan.match.out}")
    return status


def _taken_over(table: LiveTable, names: dict[Seat, str], joined: Seat, engine: str) -> None:
    """Tells the front ends that ``engine`` took the seat of ``joined``'s player."""
    seat = table.seat_of(joined)
    names[seat] = taken_over(names.get(seat, seat.value), engine)
    table.emit(SeatTakenOver(seat=seat, names=dict(names), now=trio.current_time()))


async def _front_end(
    end: FrontEnd,
    table: LiveTable,
    failed: list[str],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Runs a front end; a failure is noted in ``failed`` (for the game's record) and raised."""
    try:
        await end.serve(table, task_status=task_status)
    except Exception as exc:
        failed.append(f"{type(exc).__name__}: {exc}"[:200])
        raise


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _replacement() -> EngineProcess:
    spec = builtin_engine(REPLACEMENT)
    return EngineProcess(spec.command, cwd=spec.cwd, label=REPLACEMENT)


async def _play_one(
    plan: ServePlan,
    index: int,
    display: Display,
    remote_players: Mapping[Seat, RemoteEnginePlayer],
    table: LiveTable,
    names: dict[Seat, str],
    stop_reason: Callable[[], str],
    keeper: EngineKeeper | None = None,
) -> MatchRecord:
    """Plays game ``index`` with every player at its seat of that game (the local
    engines ``keeper``'s, if given, kept from the last game)."""
    match = plan.match
    seating = {seat: plan.seat_in_game(seat, index) for seat in SEATS}
    players: list[Player] = []
    for joined, player in remote_players.items():
        player.reseat((seating[joined],))
        players.append(player)
    table.seat_players({joined: seating[joined] for joined in remote_players})
    local = [seat for seat in SEATS if seat not in remote_players]
    # The remote players by the seat they hold in this game.
    playing = {player.seat: player for player in remote_players.values()}
    writer = GameWriter(match.out, game_number=index + 1, games=match.games)
    display.begin(index + 1, match.games, match.out)
    moved = [f"{joined.bpgn}'s player at {seat.bpgn}" for joined, seat in table.seating.items()]
    if any(joined is not seat for joined, seat in table.seating.items()):
        display.line(f"seats: {', '.join(moved)}")

    def observe(event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):
            seat = event.played.seat
            player = playing.get(seat)
            if player is not None:
                lag = player.move_lag.pop(seat, None)
                if lag is not None:
                    writer.add_lag(seat, round(lag * 1000))
        if isinstance(event, MatchEnded):
            writer.rename(
                {
                    seat: f"{writer.players.get(seat, player.name)} / {player.remote.replaced_by}"
                    for seat, player in playing.items()
                    if player.remote.replaced_by is not None
                }
            )
        writer.observe(event)
        display.observe(event)
        if isinstance(event, MatchStarted | MatchEnded):
            event = attrs.evolve(event, names=names_now(event.names, playing))
            names.update(event.names)
        table.emit(event)

    humans = [seat for seat, player in playing.items() if player.remote.human]
    record, _ = await play_game(
        entrants({seating[seat]: match.engines[seat] for seat in local}),
        match.rules,
        game_id=str(index + 1),
        keeper=keeper,
        seed=game_seed(match.seed, index),
        others=players,
        human_seats=humans,
        observer=observe,
        stop_reason=stop_reason,
    )
    if writer.error is not None:
        raise ConfigError(writer.error)
    return record
