"""Real Sjeng and Fairy-Stockfish at our table, through the adapters.

Skipped when the Debian engines are missing, unless BUGHOUSE_REQUIRE_ENGINES=1
(CI), where a missing engine fails. Every match must end by itself (a
``fail_after`` guard catches one that gets stuck), no illegal move may reach
the table, and every BPGN written must replay to its recorded result.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
import trio
from cli_checks import run_bughouse

from bughouse_arbiter.adapters.xboard import XboardAdapter
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.bpgn.write import GameHeader, format_game
from bughouse_arbiter.config.engines_file import builtin_external_engines
from bughouse_arbiter.config.specs import EngineSpec, engine_spec
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.model import SEATS, BoardId, Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed
from bughouse_arbiter.players.base import Action, MatchInfo, MoveAction, TableState
from bughouse_arbiter.players.factory import create_player
from bughouse_arbiter.players.uci import UciPlayer
from bughouse_arbiter.players.xboard import XboardPlayer
from bughouse_arbiter.protocol.signals import SIGNALS
from bughouse_arbiter.table.arbiter import (
    MatchEvent,
    MatchRecord,
    MoveRefused,
    PlayerWaits,
    run_match,
)


def _engine_path(program: str) -> str | None:
    found = shutil.which(program)
    if found:
        return found
    games = Path("/usr/games") / program
    return str(games) if games.is_file() else None


def require(*programs: str) -> None:
    missing = [p for p in programs if _engine_path(p) is None]
    if not missing:
        return
    message = f"engine(s) not installed: {', '.join(missing)}"
    if os.environ.get("BUGHOUSE_REQUIRE_ENGINES") == "1":
        pytest.fail(message)
    pytest.skip(message)


BAD_ENDS = {Termination.ILLEGAL_MOVE, Termination.LEFT, Termination.ABORTED}


async def play(
    seating: Mapping[Seat, EngineSpec], seconds: float, *, guard: float
) -> tuple[MatchRecord, list[MatchEvent]]:
    events: list[MatchEvent] = []
    players = [create_player(seat, spec) for seat, spec in seating.items()]
    with trio.fail_after(guard):
        record = await run_match(players, HouseRules(time=seconds), observer=events.append)
    return record, events


def check_match(record: MatchRecord, events: list[MatchEvent]) -> None:
    outcome = record.game.outcome
    assert outcome is not None
    assert outcome.termination not in BAD_ENDS, outcome.reason
    assert not [e for e in events if isinstance(e, MoveRefused)]
    assert record.game.plies >= 10
    text = format_game(record.game, GameHeader(players=dict(record.names)))
    [report] = [replay_game(game) for game in read_games(text)]
    assert report.ok, report.verdict
    assert report.rejudged == outcome.result.value


@pytest.mark.slow
async def test_sjeng_pair_against_fairy_stockfish_pair() -> None:
    require("sjeng", "fairy-stockfish")
    known = builtin_external_engines()
    seating = {
        Seat.A_WHITE: known["sjeng"],
        Seat.B_BLACK: known["sjeng"],
        Seat.A_BLACK: known["fairy-stockfish"],
        Seat.B_WHITE: known["fairy-stockfish"],
    }
    record, events = await play(seating, 15.0, guard=120)
    check_match(record, events)
    assert "Sjeng" in record.names[Seat.A_WHITE] or record.names[Seat.A_WHITE] == "sjeng"


@pytest.mark.slow
async def test_fairy_stockfish_in_xboard_mode_beside_sjeng_and_uci() -> None:
    require("sjeng", "fairy-stockfish")
    known = builtin_external_engines()
    seating = {
        Seat.A_WHITE: known["fairy-stockfish-xboard"],
        Seat.A_BLACK: known["sjeng"],
        Seat.B_WHITE: known["fairy-stockfish"],
        Seat.B_BLACK: known["fairy-stockfish-xboard"],
    }
    record, events = await play(seating, 6.0, guard=90)
    check_match(record, events)


@pytest.mark.slow
async def test_a_table_mixing_native_uci_and_xboard_seats() -> None:
    require("sjeng", "fairy-stockfish")
    known = builtin_external_engines()
    seating = {
        Seat.A_WHITE: engine_spec("searcher"),
        Seat.A_BLACK: known["fairy-stockfish"],
        Seat.B_WHITE: known["sjeng"],
        Seat.B_BLACK: engine_spec("random"),
    }
    record, events = await play(seating, 6.0, guard=90)
    check_match(record, events)
    waits = [e for e in events if isinstance(e, PlayerWaits)]
    assert all(e.reason for e in waits)


@pytest.mark.slow
async def test_a_program_that_is_not_a_uci_engine_fails_its_handshake() -> None:
    player = UciPlayer(Seat.A_WHITE, ["/bin/cat"], handshake_timeout=1.0)
    send, _receive = trio.open_memory_channel[object](10)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            with pytest.raises(EngineFailed, match="no uciok"):
                await player.start(nursery, send)  # type: ignore[arg-type]
            await player.aclose()


@pytest.mark.slow
async def test_an_xboard_engine_that_exits_at_once_fails_its_handshake() -> None:
    player = XboardPlayer(Seat.A_WHITE, ["/bin/true"])
    send, _receive = trio.open_memory_channel[object](10)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            with pytest.raises(EngineFailed, match="during the handshake"):
                await player.start(nursery, send)  # type: ignore[arg-type]
            await player.aclose()


@pytest.mark.slow
async def test_a_missing_program_fails_to_start() -> None:
    player = XboardPlayer(Seat.A_WHITE, ["/nonexistent/sjeng"])
    send, _receive = trio.open_memory_channel[object](10)
    async with trio.open_nursery() as nursery:
        with pytest.raises(EngineFailed, match="cannot run"):
            await player.start(nursery, send)  # type: ignore[arg-type]
        await player.aclose()


@pytest.mark.slow
def test_bughouse_match_seats_named_engines_and_its_bpgn_replays(tmp_path: Path) -> None:
    """The command line end to end: an engines file name, the built-in names,
    a native engine, then ``bughouse replay --check`` on what was written."""
    require("sjeng", "fairy-stockfish")

    engines = tmp_path / "engines.toml"
    engines.write_text(
        "[engines.my-fsf]\n"
        "protocol = 'uci'\n"
        f"command = [{_engine_path('fairy-stockfish')!r}]\n"
        "options = { Threads = 1, Hash = 8 }\n"
    )
    out = tmp_path / "games.bpgn"
    match = [
        "match",
        "--engines-file", str(engines),
        "--engine", "A-white=sjeng",
        "--engine", "A-black=my-fsf",
        "--engine", "B-white=fairy-stockfish-xboard",
        "--engine", "B-black=random",
        "--tc", "5+0", "--out", str(out),
    ]  # fmt: skip
    done = run_bughouse(*match)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert '[WhiteA "Sjeng 11.2"]' in text
    assert '[BlackA "Fairy-Stockfish 11.1 LB 64"]' in text
    replayed = run_bughouse("replay", "--check", str(out), timeout=60)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    [game] = read_games(text)
    assert len(game.moves) >= 10


@pytest.mark.slow
async def test_an_xboard_engine_that_ignores_quit_is_killed(tmp_path: Path) -> None:
    import sys

    script = tmp_path / "deaf.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('protover'):\n"
        "        print('feature ping=1 setboard=1 variants=\"bughouse\" done=1', flush=True)\n"
        "import time\n"
        "time.sleep(60)\n"
    )
    player = XboardPlayer(Seat.B_BLACK, [sys.executable, str(script)])
    send, _receive = trio.open_memory_channel[object](10)
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            await player.start(nursery, send)  # type: ignore[arg-type]
            assert player.adapter.handshake_done
            await player.aclose()
            await player.aclose()  # twice is harmless
    code = player.engine.returncode
    assert code is not None and code < 0  # it had to be signalled


def _one_game(fen_a: str | None = None, version: int = 0) -> tuple[MatchInfo, TableState]:
    """A one-second game from the start, and a table state with board A at ``fen_a``."""
    state = TableState(
        version=version,
        fens={BoardId.A: fen_a or STARTING_FEN, BoardId.B: STARTING_FEN},
        clocks=dict.fromkeys(SEATS, 1.0),
    )
    info = MatchInfo(
        game_id="1",
        names={seat: seat.slug for seat in SEATS},
        rules=HouseRules(time=1.0),
        start_fens=dict.fromkeys(BoardId, STARTING_FEN),
    )
    return info, state


@pytest.mark.slow
async def test_an_external_engines_move_carries_the_time_its_line_was_read() -> None:
    require("fairy-stockfish")
    spec = builtin_external_engines()["fairy-stockfish"]
    player = create_player(Seat.A_WHITE, spec)
    send, receive = trio.open_memory_channel[Action](100)
    info, state = _one_game()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await player.start(nursery, send)
            await player.new_game(info, state)
            asked = trio.current_time()
            await player.your_turn(Seat.A_WHITE, 1, state)
            while not isinstance(action := await receive.receive(), MoveAction):
                pass
            assert action.arrived_at is not None
            assert asked < action.arrived_at <= trio.current_time()
            await player.aclose()


@pytest.mark.slow
async def test_an_external_engine_answering_after_the_table_is_gone_is_no_error() -> None:
    # The table stops taking actions (its channel closed) while the engine still
    # talks: its info lines and move are dropped, and nothing is raised.
    require("fairy-stockfish")
    lines: list[str] = []
    player = create_player(
        Seat.A_WHITE, builtin_external_engines()["fairy-stockfish"], log=lines.append
    )
    send, receive = trio.open_memory_channel[Action](100)
    info, state = _one_game()
    _, later = _one_game("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2", 1)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await player.start(nursery, send)
            await player.new_game(info, state)
            receive.close()
            # Two positions, so the engine answers twice whenever its first
            # answer is read (the same one again might be answered once).
            for token, turn in enumerate((state, later), start=1):
                await player.your_turn(Seat.A_WHITE, token, turn)
                while sum(" > bestmove" in line for line in lines) < token:
                    await trio.sleep(0.01)
            await player.aclose()


@pytest.mark.slow
async def test_sjeng_understands_every_signal_the_table_sends_it() -> None:
    """Each signal of ``protocol.signals``, as the xboard adapter passes it on
    (one ``ptell`` a signal), is answered by Sjeng as understood, never with
    its "Sorry, but I don't understand that command"."""
    require("sjeng")
    sjeng = _engine_path("sjeng")
    assert sjeng is not None
    adapter = XboardAdapter(Seat.A_WHITE)
    lines = ["xboard", "protover 2", "new", "variant bughouse", "easy", "force", "partner bob"]
    for code in [*(s.code for s in SIGNALS), "++n sit", "x"]:
        adapter.partner_says(code)
        lines += adapter.take()[0]
    heard: list[str] = []
    with trio.fail_after(30):
        process = await trio.lowlevel.open_process(
            [sjeng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/tmp"
        )
        try:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send_all("".join(f"{line}\n" for line in lines).encode())
            pending = b""
            # The last "x" is the second reset: Sjeng has answered everything before it.
            while sum("reverting to STANDARD" in line for line in heard) < 2:
                chunk = await process.stdout.receive_some(65536)
                assert chunk, f"Sjeng ended early: {heard[-5:]}"
                pending += chunk
                *done, pending = pending.split(b"\n")
                heard += [raw.decode(errors="replace") for raw in done]
        finally:
            process.kill()
            await process.wait()
    told = [line.split("ptell ", 1)[1] for line in heard if line.startswith("tellics ptell ")]
    assert not [line for line in told if "don't understand" in line], told
    assert sum("trading is" in line for line in told) == 6  # +trades ... ---trades
    assert sum(line.startswith("Ok, Queen") for line in told) == 6  # +q ... ---q
    # "++n sit" reaches it as two signals, and it takes both.
    assert told.count("Ok, I sit next move. Tell me when to go.") == 2
