"""``bughouse play``: you play one seat, engines play the other three.

The screen shows both boards (yours on the left, your team at the bottom),
both pockets, the four clocks, the last move on each board, check and
"waiting for a piece" marks and your partner's messages. Type moves in SAN
(Nf3, N@f7, @e4, P@e4, exd5, O-O, e8=Q) or UCI (g1f3, N@f7, e7e8q); a move
typed before your turn is a premove. Partner signals: sit, go, fast, slow,
x, dead, ++n, -q, +trades ...; tell TEXT. Also: moves [SQUARE], resign,
draw, flip, help, quit. The game is written as BPGN as it is played.
Ctrl+C (or SIGTERM, SIGHUP) aborts the game: it is written with result ``*``
and the reason, every engine is closed, and the exit status is 130 (143 for
SIGTERM, 129 for SIGHUP).

``--server URL`` (``http://HOST:PORT`` of ``bughouse server``, or
``tcp://HOST:PORT``, its line port) plays in that server's lobby instead, as
the guest ``--name``: a prompt lists the tables (``tables``), creates one
(``create 180+0``), sits (``sit t1 A-white``), starts (``start t1``) or
queues (``queue 180+0 [partner NAME]``); each game is played on the screen
above, then the prompt comes back. ``quit`` leaves (exit 0); a name the
server refuses exits 3.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import getpass
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import trio

from ..bpgn.file import BpgnFile, check_output_path
from ..config.engines_file import known_engines
from ..config.options import (
    add_engines_file,
    add_out,
    add_rule,
    add_seat_engine,
    add_tc,
    house_rules,
    out_text,
)
from ..config.specs import EngineSpec, seat_assignment, with_seat_options
from ..config.specs import engine_spec as read_engine_spec
from ..core.board import STARTING_FEN, BughouseBoard
from ..core.model import SEATS, Seat
from ..core.rules import HouseRules
from ..environment import Environment, OutputGone
from ..errors import ConfigError, PositionError, UsageError
from ..exits import FAILED, OK
from ..net.tls import add_client_tls, client_tls
from ..players.console import ConsolePlayer, PipeTerminal, Terminal, TtyTerminal
from ..players.debug_logs import DebugLogs
from ..players.factory import check_command
from ..players.process import live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..table.arbiter import MatchRecord
from ..table.games import play_game
from ..table.keeper import entrants
from ..table.recording import GameWriter, default_out, make_folder
from ..table.stopping import Stop, exit_status, stop_on_signals
from ..ui.console_session import describe_outcome
from ..ui.safe_text import printable
from . import SUMMARIES

DEFAULT_ENGINE = "searcher"
DEFAULT_TC = "180+0"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "play",
        help=SUMMARIES["play"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--seat",
        default="A-white",
        help="your seat: A-white, A-black, B-white, B-black (or WA, BA, WB, BB); default A-white",
    )
    add_seat_engine(parser, default=DEFAULT_ENGINE, note="; any seat but yours")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="SEAT.NAME=VALUE",
        help="an engine option for the engine at SEAT (for example BA.Hash=64); repeatable",
    )
    add_engines_file(parser)
    add_tc(parser, default=DEFAULT_TC, untimed=False)
    add_rule(parser)
    add_out(
        parser,
        help="BPGN file (default games/bughouse-YYYYmmdd-HHMMSS.bpgn); an existing file is "
        "appended to, never replaced, and locked while the game runs",
    )
    parser.add_argument("--fen-a", metavar="FEN", help="start board A here ([pocket] allowed)")
    parser.add_argument("--fen-b", metavar="FEN", help="start board B here")
    parser.add_argument("--name", help="your name in the game file (default: your login)")
    parser.add_argument(
        "--connect",
        metavar="HOST:PORT",
        help="sit at a remote 'bughouse serve' table instead (with --seat and --token)",
    )
    parser.add_argument("--token", help="with --connect: the seat's token, printed by serve")
    add_client_tls(parser)
    parser.add_argument(
        "--server",
        metavar="URL",
        help="join the lobby of 'bughouse server' (http://HOST:PORT or tcp://HOST:PORT): "
        "list its tables, sit or queue, and play there",
    )
    parser.add_argument(
        "--debug", action="store_true", help="write each engine's protocol log beside the file"
    )
    parser.add_argument("--ascii", action="store_true", help="ASCII pieces instead of Unicode")
    parser.add_argument("--no-color", action="store_true", help="no colours")
    parser.add_argument(
        "--bell",
        action="store_true",
        help="ring the terminal bell on your turn, on a partner message and under ten seconds",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, env: Environment) -> int:
    if args.server is not None:
        return _run_lobby(args, env)
    if args.connect is not None or args.token is not None:
        return _run_connected(args, env)
    seat = _seat(args.seat)
    rules = house_rules(args.rule, args.tc, default_tc=DEFAULT_TC, untimed=False)
    engines = _engines(seat, args.engine, known_engines(args.engines_file))
    engines, _ = with_seat_options(engines, args.option)
    fens = {
        "fen_a": _fen(args.fen_a, "--fen-a"),
        "fen_b": _fen(args.fen_b, "--fen-b"),
    }
    out = _out_path(out_text(args))
    name = args.name or _login()
    style = env.style(ascii_only=args.ascii, no_color=args.no_color)
    become_subreaper()
    try:
        # Opened and locked before the engines start; an existing file is appended to.
        with BpgnFile.open(out) as games_file:
            writer = GameWriter(games_file, game_number=1, games=1)
            # A dumb terminal cannot address the cursor: it gets lines.
            terminal_kept = env.interactive
            if terminal_kept:
                with TtyTerminal(style) as terminal:
                    record, stop = _play(
                        seat,
                        name,
                        engines,
                        rules,
                        writer,
                        terminal,
                        fens,
                        args.debug,
                        bell=args.bell,
                    )
            else:
                pipe = PipeTerminal(style, env.stdout, env.stdin)
                record, stop = _play(seat, name, engines, rules, writer, pipe, fens, args.debug)
    except KeyboardInterrupt:
        _say(env, f"Game aborted (Ctrl+C); the game so far is in {out.resolve()}")
        raise
    finally:
        kill_orphans(keep=live_engine_pids())
    finished = record is not None and not record.outcome.aborted
    if stop.signal is not None and not finished:
        _say(env, f"Game aborted ({stop.name}); the game so far is in {out.resolve()}")
        return exit_status(stop.signal)
    assert record is not None
    if writer.error is not None:
        env.error(writer.error)
        return FAILED
    if not terminal_kept:
        # On a terminal the final screen said all this already.
        _say(env, printable(describe_outcome(record.outcome, seat), 2000))
        _say(env, f"Game written to {out.resolve()}")
    return OK


def _server_only(args: argparse.Namespace, what: str) -> None:
    """Refuses the options that are the server's choice."""
    local = {
        "--engine": args.engine,
        "--tc": args.tc,
        "--rule": args.rule,
        "--out": args.out,
        "--fen-a": args.fen_a,
        "--fen-b": args.fen_b,
        "--engines-file": args.engines_file,
    }
    for option, value in local.items():
        if value:
            raise UsageError(f"{option} is the server's choice; it cannot go with {what}")


def _run_lobby(args: argparse.Namespace, env: Environment) -> int:
    """``--server URL``: the console in a server's lobby, game after game."""
    from ..clients.console_lobby import play_in_lobby
    from ..clients.link import ConnectRefused
    from ..clients.lobby_link import find_line_port, open_lobby, parse_server_url
    from ..exits import REFUSED
    from ..protocol.lobby_lines import Hello

    for option, value in (("--connect", args.connect), ("--token", args.token)):
        if value is not None:
            raise UsageError(f"{option} is for a seat of 'bughouse serve'; not with --server")
    if args.seat != "A-white":
        raise UsageError("--seat is chosen in the lobby (sit TABLE SEAT); not with --server")
    if args.debug or args.option:
        option = "--debug" if args.debug else "--option"
        raise UsageError(f"{option} is for the engines of a local game; not with --server")
    _server_only(args, "--server")
    parse_server_url(args.server)
    tls = client_tls(args)
    name = args.name or _login()
    if not 0 < len(name) <= 40 or any(c.isspace() or not c.isprintable() for c in name):
        raise UsageError("--name must be one printable word of at most 40 characters")
    style = env.style(ascii_only=args.ascii, no_color=args.no_color)

    async def main() -> int:
        try:
            where = await find_line_port(args.server, tls)
            hello = Hello("guest", name, ping=True, human=True)
            link, taken = await open_lobby(where, hello, tls)
        except ConnectRefused as exc:
            env.error(str(exc))
            return REFUSED
        return await play_in_lobby(
            link,
            taken,
            interactive=env.interactive,
            style=style,
            out=env.stdout,
            stdin=env.stdin,
            bell=args.bell,
        )

    return trio.run(main)


def _run_connected(args: argparse.Namespace, env: Environment) -> int:
    """``--connect``: the console at a seat of a remote table; the server keeps the record."""
    from ..clients.bridge import bridge_player, check_credentials
    from ..clients.link import parse_address

    if args.connect is None or args.token is None:
        raise UsageError("--connect HOST:PORT and --token TOKEN go together")
    tls = client_tls(args)
    host, port = parse_address(args.connect)
    seat = _seat(args.seat)
    check_credentials(args.seat, args.token)
    _server_only(args, "--connect")
    name = args.name or _login()
    style = env.style(ascii_only=args.ascii, no_color=args.no_color)

    def connected(terminal: Terminal) -> int:
        return trio.run(
            partial(
                bridge_player,
                host,
                port,
                args.seat,
                args.token,
                lambda: ConsolePlayer(seat, terminal, name=name, bell=args.bell),
                True,
                tls=tls,
            )
        )

    if env.interactive:
        with TtyTerminal(style) as terminal:
            status = connected(terminal)
    else:
        status = connected(PipeTerminal(style, env.stdout, env.stdin))
    return status


def _say(env: Environment, text: str) -> None:
    """Prints a closing line; an output that is gone (a terminal that hung up,
    SIGHUP) gets nothing, quietly: ``cli.main`` sees to the rest."""
    with contextlib.suppress(OutputGone):
        print(text, file=env.stdout, flush=True)


def _play(
    seat: Seat,
    name: str,
    engines: dict[Seat, EngineSpec],
    rules: HouseRules,
    writer: GameWriter,
    terminal: Terminal,
    fens: dict[str, str],
    debug: bool,
    *,
    bell: bool = False,
) -> tuple[MatchRecord | None, Stop]:
    """Plays the game; the record is None when a signal (``table.stopping``) stopped it."""
    path = writer.path
    assert path is not None, "play writes its game to a file"
    logs = DebugLogs(path, 1) if debug else None

    async def main() -> tuple[MatchRecord | None, Stop]:
        console = ConsolePlayer(seat, terminal, name=name, keep_final_screen=True, bell=bell)
        record = None
        async with stop_on_signals() as stop:
            with stop.scope:
                record, _ = await play_game(
                    entrants(engines),
                    rules,
                    game_id="1",
                    others=[console],
                    fen_a=fens["fen_a"],
                    fen_b=fens["fen_b"],
                    human_seats=(seat,),
                    observer=writer.observe,
                    stop_reason=stop.reason,
                    logs=logs,
                )
                # A finished game's screen stays until a key is pressed.
                await console.hold_final_screen(f"Game written to {path.resolve()}")
        return record, stop

    try:
        return trio.run(main)
    except BaseExceptionGroup as group:
        # Ctrl+C reaches us wrapped by the arbiter's nursery: unwrap it, so
        # the CLI exits 130 instead of printing a traceback.
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        raise
    finally:
        if logs is not None:
            logs.close()


# -- options ---------------------------------------------------------------------------


def _seat(text: str) -> Seat:
    try:
        return Seat.parse(text)
    except ValueError as exc:
        raise UsageError(f"--seat: {exc}") from None


def _fen(text: str | None, option: str) -> str:
    if text is None:
        return STARTING_FEN
    try:
        return BughouseBoard(text).fen()
    except PositionError as exc:
        raise PositionError(f"{option}: {exc}") from None


def _engines(
    seat: Seat, assignments: list[str], known: Mapping[str, EngineSpec]
) -> dict[Seat, EngineSpec]:
    chosen: dict[Seat, EngineSpec] = {}
    for text in assignments:
        other, spec = seat_assignment(text, known)
        if other is seat:
            raise ConfigError(f"--engine {text}: {seat} is your seat (choose another with --seat)")
        if other in chosen:
            raise ConfigError(f"--engine {text}: seat {other} is given an engine twice")
        chosen[other] = spec
    engines = {
        other: chosen.get(other) or read_engine_spec(DEFAULT_ENGINE, known)
        for other in SEATS
        if other is not seat
    }
    for spec in engines.values():
        check_command(spec)
    return engines


def _out_path(text: str | None) -> Path:
    if text is None:
        out = default_out(dt.datetime.now())
        if out.parent.exists() and not out.parent.is_dir():
            raise UsageError(f"{out.parent} is a file: give --out FILE")
        make_folder(out)
        return out
    path = Path(text)
    check_output_path(path)
    return path


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "you"
