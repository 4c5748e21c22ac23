"""``bughouse connect HOST:PORT --seat SEAT --token TOKEN -- SPEC``: an engine at a remote table;
``bughouse connect --server URL --bot NAME [--tc TC ...] [--games N] -- SPEC``: a bot in a lobby.

``--tls`` (and ``--cafile FILE`` for a certificate this machine does not
trust, such as a self-signed one) dials a server that speaks TLS
(``serve --certfile --keyfile``); the certificate must name HOST.

Runs the engine named by SPEC (as for ``match --engine``) on this machine and
bridges it to a seat of ``bughouse serve``. A native engine is joined line
for line (a pump: the server's lines go to its input, its output goes to the
server): the protocol runs end to end between the server and the engine, and
this side only answers the server's ``ping`` (protocol.md §12). A ``uci:``
or ``xboard:`` engine runs here under its adapter player, driven by the
server's lines (``server.driver.PlayerDriver``), so the translation happens
on the engine's side. ``--seat`` is the seat the token was printed for: as
the server rotates the seats between games, each game's ``newgame`` tells
the engine (or moves the adapter to) its seat of that game. It exits when
the server or the engine ends the session: 0 after the server's ``quit``, 1
if the connection dropped or the engine failed, 3 for a refused seat (2 for
bad options, as every command). It does not reconnect by itself: run it
again with the same token within the table's ``reconnect_grace`` and the
server tells the new engine the whole game.

With ``--server URL`` (``http://HOST:PORT``, the web address of ``bughouse
server``, or ``tcp://HOST:PORT``, its line port) the engine joins the
server's lobby as the bot NAME, for the time controls ``--tc`` names (180+0
if none): tables and queues that take bots seat it, game after game, on the
same engine process (protocol.md §12.7). ``--games N`` ends it after N games
(exit 0); the first Ctrl+C ends it after the game being played, a second one
at once. ``--debug FILE`` writes the engine's protocol log there. A name the
server refuses exits 3.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import ssl
from functools import partial
from typing import Any, TextIO

import trio

from ..clients import bot
from ..clients.bridge import bridge_player, check_credentials, say
from ..clients.link import ClientLink, ConnectRefused, open_seat, parse_address
from ..clients.lobby_link import find_line_port, open_lobby, parse_server_url
from ..config.engines_file import known_engines
from ..config.options import add_engines_file
from ..config.specs import TEAM_ONLY, EngineSpec, engine_spec
from ..core.model import Seat
from ..environment import Environment
from ..errors import ConfigError, EngineFailed, UsageError
from ..exits import FAILED, OK, REFUSED
from ..net.tls import add_client_tls, client_tls
from ..players.factory import check_command, create_player
from ..players.process import EngineProcess, ProtocolLog
from ..protocol import RawLine
from ..protocol.lobby_lines import MAX_TCS, MAX_WORD, Hello
from . import SUMMARIES

#: The time control a bot plays when no --tc is given (the lobby's default table).
DEFAULT_BOT_TC = "180+0"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "connect",
        help=SUMMARIES["connect"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "address", metavar="HOST:PORT", nargs="?", help="where 'bughouse serve' listens"
    )
    parser.add_argument("--seat", help="the seat to take (A-white ... B-black)")
    parser.add_argument(
        "--token",
        help="the seat's token, printed by serve; with --bot, the bot account's token "
        "(printed by 'bughouse server admin add-bot')",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="join the lobby of 'bughouse server' instead: http://HOST:PORT or tcp://HOST:PORT",
    )
    parser.add_argument("--bot", metavar="NAME", help="with --server: the bot's name")
    parser.add_argument(
        "--tc",
        action="append",
        default=[],
        metavar="TC",
        help="with --server: a time control the bot plays, BASE+INC in seconds (repeatable, "
        f"or comma-separated; default {DEFAULT_BOT_TC})",
    )
    parser.add_argument(
        "--games", type=int, metavar="N", help="with --server: stop after N games"
    )
    parser.add_argument(
        "--debug", metavar="FILE", help="with --server: write the engine's protocol log to FILE"
    )
    add_client_tls(parser)
    add_engines_file(parser)
    parser.add_argument(
        "spec", nargs="*", metavar="-- SPEC", help="the engine, as for match --engine"
    )
    parser.set_defaults(run=run)


def spec_from_args(args: argparse.Namespace) -> EngineSpec:
    words = list(getattr(args, "tail", None) or args.spec)
    if not words:
        raise UsageError("name the engine after '--', e.g. -- searcher")
    text = words[0] if len(words) == 1 else shlex.join(words)
    spec = engine_spec(text, known_engines(args.engines_file))
    if spec.protocol in TEAM_ONLY:
        raise ConfigError(
            f"engine {spec.name!r} speaks {spec.protocol}: it holds both seats of a team, "
            "and a connection takes one seat (seat it with match or tournament --team)"
        )
    check_command(spec)
    return spec


def run(args: argparse.Namespace, env: Environment) -> int:
    if args.server is not None or args.bot is not None:
        return run_bot(args)
    for option, value in (("--tc", args.tc), ("--games", args.games), ("--debug", args.debug)):
        if value:
            raise UsageError(f"{option} goes with --server URL --bot NAME")
    if args.address is None or args.seat is None or args.token is None:
        raise UsageError("give HOST:PORT --seat SEAT --token TOKEN, or --server URL --bot NAME")
    host, port = parse_address(args.address)
    check_credentials(args.seat, args.token)
    tls = client_tls(args)
    spec = spec_from_args(args)
    if spec.protocol == "native":
        return trio.run(partial(bridge_native, host, port, args.seat, args.token, spec, tls=tls))
    try:
        seat = Seat.parse(args.seat)
    except ValueError as exc:
        raise UsageError(f"--seat: {exc}") from None
    return trio.run(
        partial(
            bridge_player,
            host,
            port,
            args.seat,
            args.token,
            lambda: create_player(seat, spec),
            tls=tls,
        )
    )


async def bridge_native(
    host: str,
    port: int,
    seat: str,
    token: str,
    spec: EngineSpec,
    *,
    tls: ssl.SSLContext | None = None,
) -> int:
    """Joins the engine's pipes to the seat until either side ends (over TLS with ``tls``)."""
    try:
        link = await open_seat(host, port, seat, token, tls=tls)
    except ConnectRefused as exc:
        say(f"error: {exc}")
        return REFUSED
    say(f"connected to {host}:{port} as {seat}; starting {spec.name}")
    send, receive = trio.open_memory_channel[list[str]](1000)
    engine = EngineProcess(spec.command, cwd=spec.cwd, label=spec.name)

    def on_lines(lines: list[RawLine], _at: float) -> None:
        # A server that does not read loses lines rather than growing this queue without bound.
        with contextlib.suppress(trio.WouldBlock):
            send.send_nowait([line.text for line in lines])

    status = OK
    async with trio.open_nursery() as nursery:
        try:
            await engine.start(nursery, on_lines=on_lines)
        except EngineFailed as exc:
            say(f"error: {exc}")
            await link.aclose()
            return FAILED

        async def engine_to_server() -> None:
            nonlocal status
            async with receive:
                async for lines in receive:
                    try:
                        await link.send_many(lines)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        status = FAILED
                        break
            nursery.cancel_scope.cancel()

        async def server_to_engine(link: ClientLink) -> None:
            nonlocal status
            quit_seen = False
            while (line := await link.receive()) is not None:
                engine.send(line.text)
                quit_seen = quit_seen or line.text.strip() == "quit"
            if not quit_seen:
                say("the server closed the connection")
                status = FAILED
            await engine.aclose(None if quit_seen else "quit")
            nursery.cancel_scope.cancel()

        async def engine_end() -> None:
            nonlocal status
            await engine.wait_eof()
            with trio.move_on_after(1):
                await engine.wait()
            if engine.returncode not in (0, None):
                say(f"the engine {engine.exit_description()}")
                status = FAILED
            send.close()

        nursery.start_soon(engine_to_server)
        nursery.start_soon(server_to_engine, link)
        nursery.start_soon(engine_end)
    with trio.CancelScope(shield=True):
        await engine.aclose(None)
        await link.aclose()
    return status


# -- a bot in the lobby ------------------------------------------------------------------


def bot_hello(args: argparse.Namespace) -> Hello:
    """The hello line ``--bot NAME --tc ...`` asks for; UsageError for bad options."""
    if args.server is None or args.bot is None:
        raise UsageError("--server URL and --bot NAME go together")
    seat_options = (("HOST:PORT", args.address), ("--seat", args.seat))
    for option, value in seat_options:
        if value is not None:
            raise UsageError(f"{option} is for a seat of 'bughouse serve'; not with --server")
    name = args.bot
    if not 0 < len(name) <= MAX_WORD or any(c.isspace() or not c.isprintable() for c in name):
        raise UsageError(f"--bot must be one printable word of at most {MAX_WORD} characters")
    tcs = [tc.strip() for text in args.tc or [DEFAULT_BOT_TC] for tc in text.split(",")]
    for tc in tcs:
        if not tc or len(tc) > MAX_WORD or any(c.isspace() or not c.isprintable() for c in tc):
            raise UsageError(f"--tc {tc!r}: a time control is one word, e.g. 3+0")
    if len(tcs) > MAX_TCS:
        raise UsageError(f"--tc: at most {MAX_TCS} time controls")
    if args.games is not None and args.games < 1:
        raise UsageError("--games must be at least 1")
    token = args.token
    if token is not None and (
        not 0 < len(token) <= MAX_WORD or any(c.isspace() or not c.isprintable() for c in token)
    ):
        raise UsageError("--token: a bot's token is one printable word")
    return Hello("bot", name, tuple(dict.fromkeys(tcs)), ping=True, token=token)


def run_bot(args: argparse.Namespace) -> int:
    hello = bot_hello(args)
    parse_server_url(args.server)  # a bad URL is a usage error before anything starts
    tls = client_tls(args)
    spec = spec_from_args(args)
    debug = None
    if args.debug is not None:
        try:
            debug = open(args.debug, "a", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise UsageError(f"--debug {args.debug}: {exc.strerror or exc}") from None
    try:
        return trio.run(partial(lobby_bot, args.server, hello, spec, args.games, debug, tls=tls))
    finally:
        if debug is not None:
            debug.close()


async def lobby_bot(
    url: str,
    hello: Hello,
    spec: EngineSpec,
    games: int | None,
    debug: TextIO | None,
    *,
    tls: ssl.SSLContext | None = None,
) -> int:
    """Joins the lobby as ``hello`` says and plays the games it is seated for."""
    try:
        where = await find_line_port(url, tls)
        link, name = await open_lobby(where, hello, tls)
    except ConnectRefused as exc:
        say(f"error: {exc}")
        return REFUSED
    log = ProtocolLog(debug) if debug is not None else None
    say(f"in the lobby of {where} as the bot {name}; starting {spec.name}")
    if spec.protocol == "native":
        engine = EngineProcess(spec.command, cwd=spec.cwd, label=spec.name, log=log)
        return await bot.run_bot(
            link, games, lambda lines: bot.pump_native(lines, engine, say), say
        )
    # The seat is each game's (its newgame moves the adapter there).
    player = create_player(Seat.parse("A-white"), spec, log=log)
    return await bot.run_bot(
        link, games, lambda lines: bot.drive_player(lines, player, say), say
    )
