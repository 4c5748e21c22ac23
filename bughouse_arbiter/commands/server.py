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

Accounts, bot accounts, every finished game and the ratings are kept in
the database ``--db PATH`` (SQLite; made if missing): a finished game and
its rating changes are on disk before its result is told, and games a
killed server was playing are recorded as aborted when it starts again.
Its pages: /register, /login, /leaderboard, /player/NAME, /games,
/game/ID. ``bughouse server admin add-bot NAME`` prints a bot's token;
``export`` and ``backup`` work beside a running server (docs/accounts.md).

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
    from ..net.limits import LIMIT_NAMES, Limits

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
    from . import server_admin

    server_admin.add_db_option(parser)
    parser.set_defaults(run=run)
    # bughouse server admin add-bot|revoke-bot, export, backup (the database's commands).
    server_admin.register(parser.add_subparsers(dest="server_command", metavar="COMMAND"))


def run(args: argparse.Namespace, env: Any) -> int:
    import shutil

    import trio

    from ..config.engines_file import known_engines
    from ..config.options import out_text, port_number
    from ..config.specs import engine_spec
    from ..errors import UsageError
    from ..net.limits import limits_from_texts
    from ..players.process import live_engine_pids
    from ..players.reaper import become_subreaper, kill_orphans

    port = port_number("--port", args.port)
    line_port = port_number("--line-port", args.line_port)
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
    store, aborted, held = _open_store(args, env)
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
                store=store,
                aborted=aborted,
            )
        )
    finally:
        store.close()
        held.close()
        kill_orphans(keep=live_engine_pids())


def _open_store(args: argparse.Namespace, env: Any) -> tuple[Any, int, Any]:
    """The server's database (``--db``), its games left in progress by a server that
    died recorded as aborted, before anyone is seated (how many: the second value), and
    the lock file held while this server uses it."""
    import sqlite3

    from ..errors import UsageError
    from ..storage import SqliteStore, StoreError
    from ..storage.archive import hold_database
    from .server_admin import db_path

    path = db_path(args, env)
    try:
        held = hold_database(path)  # open as long as the process lives
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    try:
        store = SqliteStore.open(path)
    except StoreError as exc:  # locked by another process, read-only: one line, exit 2
        held.close()
        raise UsageError(str(exc)) from None
    except BaseException:
        held.close()
        raise
    try:
        return store, store.abort_interrupted(), held
    except sqlite3.Error as exc:
        store.close()
        held.close()
        raise UsageError(f"cannot use the database {str(path)!r}: {exc}") from None
    except BaseException:
        store.close()
        held.close()
        raise


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
    store: Any = None,
    aborted: int = 0,
) -> int:
    """Runs the hall, the line lobby and the web app until a signal stops them;
    ``store`` is the database (``storage.SqliteStore``) for accounts and the archive."""
    import trio

    from ..exits import FAILED, OK
    from ..hall.events import EventHall
    from ..hall.runtime import Hall
    from ..hall.web.app import LobbyWeb
    from ..hall.web.events import event_routes
    from ..net.asgi_host import serve_asgi
    from ..net.collector import collecting
    from ..net.tcp import ServeError
    from ..net.tls import server_context
    from ..serve.live_page import web_bounds
    from ..table.stopping import exit_status, stop_on_signals

    hall = Hall(out, computer=computer, log=log_line, limits=limits)
    events = EventHall(hall, out)
    site = _storage(hall, store, tls=certfile is not None)
    status = OK
    context = None if certfile is None or keyfile is None else server_context(certfile, keyfile)
    async with stop_on_signals() as stop:
        with stop.scope:
            async with trio.open_nursery() as nursery:
                await nursery.start(hall.run)
                await nursery.start(events.run)
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
                        routes=event_routes(events, tls=context is not None),
                        site=site,
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
                            on_stop=functools.partial(_stop_web, web, events),
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
                print(f"events: {scheme}://{shown}:{bound_web}/events", flush=True)
                print(f"games: {out}/", flush=True)
                if store is not None:
                    note = f" ({aborted} unfinished game(s) recorded as aborted)" if aborted else ""
                    print(f"database: {store.path}{note}", flush=True)
                if host not in ("127.0.0.1", "::1", "localhost") and context is None:
                    log_line(f"{host} is reachable from other machines and nothing is encrypted")
                if site is not None:
                    nursery.start_soon(site.start)
                await nursery.start(collecting)  # start-up is over: see server.collector
    if site is not None:
        site.close()
    if stop.signal is not None:
        print(f"stopped ({stop.name}): the games so far are in {out}/", flush=True)
        status = exit_status(stop.signal)
    return status


async def _stop_web(web: Any, events: Any) -> None:
    """Closes the event pages' sockets, then the lobby's and the tables' pages."""
    await events.close()
    await web.close()


def _storage(hall: Any, store: Any, *, tls: bool) -> Any:
    """Puts the database under ``hall`` (its archive, accounts and bot tokens) and gives
    the web side's accounts and archive pages (None without a database)."""
    if store is None:
        return None
    from pathlib import Path

    from ..hall.web.accounts import key_for
    from ..hall.web.site import Site
    from ..storage.aio import AsyncStore
    from ..storage.archive import StoreArchive

    db = AsyncStore(store)
    hall.archive = StoreArchive(
        db, rerated=lambda changes: hall.rerate({c.name: c.after.rating for c in changes})
    )
    site = Site(db, secret=key_for(Path(store.path)), tls=tls)
    hall.accounts = site.accounts
    return site


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

    from ..net.tcp import open_listeners

    listeners = await open_listeners(host, port)
    bound = listeners[0].socket.getsockname()[1]

    async def refuse(stream: trio.SocketStream) -> None:
        with trio.move_on_after(2):
            await stream.send_all(b"hello refused the line lobby is not in this build\n")
        await stream.aclose()

    task_status.started(bound)
    await trio.serve_listeners(refuse, listeners)
