"""``bughouse connect HOST:PORT --seat SEAT --token TOKEN -- SPEC``: an engine at a remote table.

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
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import ssl
from functools import partial
from typing import Any

import trio

from ..config.engines_file import known_engines
from ..config.options import add_engines_file
from ..config.specs import EngineSpec, engine_spec
from ..core.model import Seat
from ..environment import Environment
from ..errors import EngineFailed, UsageError
from ..exits import FAILED, OK, REFUSED
from ..players.factory import check_command, create_player
from ..players.process import EngineProcess
from ..protocol import RawLine
from ..server.bridge import bridge_player, check_credentials, say
from ..server.client import ClientLink, ConnectRefused, open_seat, parse_address
from ..server.tls import add_client_tls, client_tls
from . import SUMMARIES


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "connect",
        help=SUMMARIES["connect"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("address", metavar="HOST:PORT", help="where 'bughouse serve' listens")
    parser.add_argument("--seat", required=True, help="the seat to take (A-white ... B-black)")
    parser.add_argument("--token", required=True, help="the seat's token, printed by serve")
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
    check_command(spec)
    return spec


def run(args: argparse.Namespace, env: Environment) -> int:
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
