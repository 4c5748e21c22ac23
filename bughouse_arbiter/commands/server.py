"""``bughouse server``: one process hosting any number of tables, a lobby and its page.

``bughouse server --port 8080 --line-port 7790`` serves the lobby page on
the web port (``/``): every table with its seats, time control, house rules
and watchers; new tables; sit, stand, start; quick pairing ("play now",
alone or with a partner); watching any table (``/table/ID``), table chat,
partner messages and rematches. Engines and bots join over the line port
(protocol.md §12). Every table plays its games with its own arbiter, the
table code ``match`` and ``serve`` use, in a task of its own: whatever goes
wrong at one table (an engine crash, a hostile client, a bug) is logged
with the table's id and ends that table only. Computers (``--computer
SPEC``, the built-in searcher by default) fill seats where a table or a
queue entry allows them. Every game is appended to ``--out DIR/ID.bpgn``
(one file per table). It binds to 127.0.0.1 unless ``--host`` says
otherwise; ``--port 0`` and ``--line-port 0`` pick free ports, and the
ports are printed on start. Ctrl+C, SIGTERM or SIGHUP stop it.

``bughouse serve`` stays the quick one-table server. See docs/server.md.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import importlib
import re
import sys
from pathlib import Path
from typing import Any

from . import SUMMARIES

DEFAULT_PORT = 8080
DEFAULT_LINE_PORT = 7790
_HOST_NAME = re.compile(
    r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\.?|\[?[0-9A-Fa-f:.]{2,45}\]?"
)


def register(subparsers: Any) -> None:
    from ..server.limits import LIMIT_NAMES, Limits

    parser: argparse.ArgumentParser = subparsers.add_parser(
        "server",
        help=SUMMARIES["server"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        default=str(DEFAULT_PORT),
        help=f"web port: the lobby page and its sockets (default {DEFAULT_PORT}; 0 = any free)",
    )
    parser.add_argument(
        "--line-port",
        default=str(DEFAULT_LINE_PORT),
        help=f"TCP port for engines and bots (default {DEFAULT_LINE_PORT}; 0 = any free)",
    )
    parser.add_argument("--certfile", metavar="FILE", help="TLS certificate (PEM), with --keyfile")
    parser.add_argument("--keyfile", metavar="FILE", help="TLS private key (PEM), with --certfile")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="folder for the games, one BPGN file per table (default games/server-YYYYmmdd-HHMMSS)",
    )
    parser.add_argument(
        "--computer",
        default="searcher",
        metavar="SPEC",
        help="the engine that fills seats where computers are allowed (default searcher)",
    )
    parser.add_argument("--engines-file", metavar="FILE", help="named engines, for --computer")
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the pages may also be reached by, e.g. a reverse proxy's (repeatable)",
    )
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


def _port(option: str, text: str) -> int:
    from ..errors import UsageError

    try:
        port = int(text)
    except ValueError:
        raise UsageError(f"{option} takes a number, not {text!r}") from None
    if not 0 <= port < 65536:
        raise UsageError(f"{option} {port} is out of range")
    return port


def run(args: argparse.Namespace, env: Any) -> int:
    import shutil

    import trio

    from ..config.engines_file import known_engines
    from ..config.options import out_text
    from ..config.specs import engine_spec
    from ..errors import UsageError
    from ..players.process import live_engine_pids
    from ..players.reaper import become_subreaper, kill_orphans
    from ..server.limits import limits_from_texts

    port = _port("--port", args.port)
    line_port = _port("--line-port", args.line_port)
    if (args.certfile is None) != (args.keyfile is None):
        raise UsageError("--certfile and --keyfile go together")
    for name in args.allow_origin:
        if not _HOST_NAME.fullmatch(name):
            raise UsageError(
                f"--allow-origin {name!r}: give a host name, such as bughouse.example.org"
            )
    for path in (args.certfile, args.keyfile):
        if path is not None and not Path(path).is_file():
            raise UsageError(f"no such file: {path}")
    limits = limits_from_texts(args.limit)
    computer = engine_spec(args.computer, known_engines(args.engines_file))
    program = computer.command[0]
    if shutil.which(program) is None and not Path(program).is_file():
        raise UsageError(f"--computer {args.computer!r}: no program {program!r} to run")
    text = out_text(args)
    out = Path(text) if text else Path("games") / f"server-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make the folder {str(out)!r}: {exc.strerror}") from None
    become_subreaper()
    try:
        return trio.run(
            functools.partial(
                serve,
                host=args.host,
                port=port,
                line_port=line_port,
                out=out,
                computer=computer,
                limits=limits,
                allow_origin=tuple(args.allow_origin),
                certfile=args.certfile,
                keyfile=args.keyfile,
                env=env,
            )
        )
    finally:
        kill_orphans(keep=live_engine_pids())


def log_line(text: str) -> None:
    print(f"server: {text}", file=sys.stderr, flush=True)


async def serve(
    *,
    host: str,
    port: int,
    line_port: int,
    out: Path,
    computer: Any,
    limits: Any,
    allow_origin: tuple[str, ...],
    certfile: str | None,
    keyfile: str | None,
    env: Any,
) -> int:
    """Runs the hall, the line lobby and the web app until a signal stops them."""
    import trio

    from ..exits import FAILED, OK
    from ..hall.app import LobbyWeb
    from ..hall.runtime import Hall
    from ..server.listener import ServeError
    from ..server.tls import server_context
    from ..table.stopping import exit_status, stop_on_signals
    from ..web.asgi_host import serve_asgi
    from ..web.live_server import web_bounds

    hall = Hall(out, computer=computer, log=log_line, limits=limits)
    status = OK
    context = None if certfile is None or keyfile is None else server_context(certfile, keyfile)
    async with stop_on_signals() as stop:
        with stop.scope:
            async with trio.open_nursery() as nursery:
                await nursery.start(hall.run)
                try:
                    bound_line = await nursery.start(
                        functools.partial(
                            _line_lobby,
                            hall,
                            host=host,
                            port=line_port,
                            limits=limits,
                            ssl_context=context,
                        )
                    )
                    web = LobbyWeb(
                        hall,
                        line_port=bound_line,
                        tls=context is not None,
                        hosts=(host,),
                        allow_origin=allow_origin,
                        limits=limits,
                    )
                    bound_web = await nursery.start(
                        functools.partial(
                            serve_asgi,
                            web.app(),
                            host=host,
                            port=port,
                            certfile=certfile,
                            keyfile=keyfile,
                            bounds=web_bounds(limits),
                            on_stop=web.close,
                        )
                    )
                except ServeError as exc:
                    env.error(str(exc))
                    nursery.cancel_scope.cancel()
                    return FAILED
                scheme = "https" if context is not None else "http"
                shown = f"[{host}]" if ":" in host else host
                print(f"lobby: {scheme}://{shown}:{bound_web}/", flush=True)
                print(f"line port: {shown}:{bound_line}", flush=True)
                print(f"games: {out}/", flush=True)
                if host not in ("127.0.0.1", "::1", "localhost") and context is None:
                    log_line(f"{host} is reachable from other machines and nothing is encrypted")
    if stop.signal is not None:
        print(f"stopped ({stop.name}): the games so far are in {out}/", flush=True)
        status = exit_status(stop.signal)
    return status


async def _line_lobby(
    hall: Any, *, host: str, port: int, limits: Any, ssl_context: Any, task_status: Any
) -> None:
    """The line lobby (``hall.line_lobby``) on ``port``; started with the bound port."""
    try:
        module = importlib.import_module("..hall.line_lobby", __package__)
    except ImportError:
        module = None
    serve_lines = getattr(module, "serve_line_lobby", None)
    if serve_lines is not None:
        await serve_lines(
            hall,
            host=host,
            port=port,
            limits=limits,
            ssl_context=ssl_context,
            task_status=task_status,
        )
        return
    import trio

    from ..server.listener import open_listeners

    listeners = await open_listeners(host, port)
    bound = listeners[0].socket.getsockname()[1]

    async def refuse(stream: trio.SocketStream) -> None:
        with trio.move_on_after(2):
            await stream.send_all(b"hello refused the line lobby is not in this build\n")
        await stream.aclose()

    task_status.started(bound)
    await trio.serve_listeners(refuse, listeners)
