"""engines/random_mover.py and engines/faulty.py, driven line by line as protocol.md says.

These tests talk to the engine programs directly over pipes (pexpect), so
they check the engines against the document, not against our player.
``BughouseGame`` serves as the rules oracle.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.variant
import pytest

pytest.importorskip("pexpect")

import pexpect
from pexpect.popen_spawn import PopenSpawn

from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import SEATS, BoardId, Seat
from bughouse_arbiter.errors import MoveError

ENGINES = Path(__file__).resolve().parent.parent / "engines"
TIMEOUT = 20
START = chess.STARTING_FEN.replace(" w ", "[] w ", 1)
NO_MOVE = "k7/8/8/8/8/1q6/8/K7[] w - - 0 1"  # White to move: not in check, nothing legal
CLOCK = "clock 60000 60000 60000 60000"


def spawn(script: str, *args: str) -> PopenSpawn:
    child = PopenSpawn(
        [sys.executable, str(ENGINES / script), *args],
        timeout=TIMEOUT,
        encoding="utf-8",
        codec_errors="replace",
        maxread=65536,
    )
    return child


@pytest.fixture
def engines() -> Iterator[list[PopenSpawn]]:
    started: list[PopenSpawn] = []
    yield started
    for child in started:
        if child.proc.poll() is None:
            child.kill(signal.SIGKILL)
        child.proc.wait(timeout=TIMEOUT)


def start(engines: list[PopenSpawn], script: str, *args: str) -> PopenSpawn:
    child = spawn(script, *args)
    engines.append(child)
    child.sendline("bug 1")
    child.expect_exact("bugok")
    return child


def read_line(child: PopenSpawn) -> str:
    child.expect("\r?\n")
    return str(child.before).strip()


def answer(child: PopenSpawn) -> list[str]:
    """Reads lines up to the first ``bestmove`` or ``wait``; returns its words."""
    while True:
        words = read_line(child).split()
        if words[:1] in (["bestmove"], ["wait"]):
            return words


def newgame(child: PopenSpawn, *seats: str, rules: str = "") -> None:
    seat_part = " ".join(f"seat {s}" for s in seats)
    child.sendline(f"newgame id t {seat_part} time 60000 inc 0")
    for seat in SEATS:
        child.sendline(f"player {seat.slug} engine x")
    child.sendline(f"rules time=60 {rules}".strip())


def state(child: PopenSpawn, version: int, fen_a: str = START, fen_b: str = START) -> None:
    child.sendline(f"state v {version} a {fen_a} b {fen_b} {CLOCK}")


# -- random mover -------------------------------------------------------------------------


@pytest.mark.slow
def test_handshake_announces_everything_then_bugok() -> None:
    child = spawn("random_mover.py")
    child.sendline("bug 1")
    child.expect_exact("bugok")
    lines = str(child.before).strip().splitlines()
    assert [line.strip() for line in lines] == [
        "id name RandomMover 1.0",
        "id author The bughouse-arbiter authors",
        "option name Seed type spin default 0 min 0 max 2147483647",
        "option name Delay type spin default 0 min 0 max 600000",
        "feature team",
    ]
    child.sendline("quit")
    assert child.proc.wait(timeout=TIMEOUT) == 0


@pytest.mark.slow
def test_end_of_input_means_quit() -> None:
    child = spawn("random_mover.py")
    child.sendeof()
    assert child.proc.wait(timeout=TIMEOUT) == 0


@pytest.mark.slow
def test_four_random_movers_play_legal_bughouse(engines: list[PopenSpawn]) -> None:
    """Four processes, one per seat; every answer is checked by the rules core."""
    players = {
        seat: start(engines, "random_mover.py", "--seed", str(i + 11))
        for i, seat in enumerate(SEATS)
    }
    for seat, child in players.items():
        newgame(child, seat.slug)
    game = BughouseGame()
    turn = 0
    waits = drops = 0
    for ply in range(120):
        board = BoardId.A if ply % 2 == 0 else BoardId.B
        if not game.is_live(board):
            break
        seat = game.to_move(board)
        child = players[seat]
        turn += 1
        state(child, game.plies, game.fen(BoardId.A), game.fen(BoardId.B))
        child.sendline(f"go v {game.plies} turn {turn} board {board.value.lower()}")
        words = answer(child)
        if words[0] == "wait":
            assert words[1:3] == ["turn", str(turn)]
            assert not list(game.board(board).legal_moves)
            waits += 1
            continue
        assert words[2:4] == ["turn", str(turn)]
        played = game.push(seat, words[1])  # raises MoveError if illegal
        drops += "@" in words[1]
        passed = f" pass {played.passed.symbol()}" if played.passed else ""
        for other in players.values():
            where = f"board {board.value.lower()} move {played.uci}{passed}"
            other.sendline(f"event v {game.plies} {where} {CLOCK}")
        if game.is_over:
            break
    assert game.plies >= 20
    print(f"plies {game.plies}, drops {drops}, waits {waits}")
    assert drops > 0  # the pockets filled from the partner board were used


@pytest.mark.slow
def test_wait_then_the_right_piece_brings_a_drop(engines: list[PopenSpawn]) -> None:
    child = start(engines, "random_mover.py", "--seed", "1")
    newgame(child, "a-white")
    state(child, 9, fen_a=NO_MOVE)
    child.sendline("go v 9 turn 4 board a")
    assert answer(child) == ["wait", "turn", "4", "reason", "no", "legal", "move"]
    # A black piece goes to board A's black pocket: nothing changes for White.
    child.sendline(f"event v 10 board b move e4d5 pass p {CLOCK}")
    child.sendline("isready")
    child.expect_exact("readyok")
    assert "bestmove" not in str(child.before)
    child.sendline(f"event v 11 board b move c6d4 pass N {CLOCK}")
    words = answer(child)
    assert words[0] == "bestmove" and words[2:] == ["turn", "4"]
    assert words[1].startswith("N@")
    board = chess.variant.CrazyhouseBoard(NO_MOVE.replace("[]", "[N]"))
    assert chess.Move.from_uci(words[1]) in board.legal_moves


@pytest.mark.slow
def test_team_mode_names_the_board(engines: list[PopenSpawn]) -> None:
    child = start(engines, "random_mover.py")
    newgame(child, "a-black", "b-white")
    state(child, 0)
    child.sendline("go v 0 turn 1 board b")
    words = answer(child)
    assert words[0] == "bestmove" and words[2:] == ["turn", "1", "board", "b"]


@pytest.mark.slow
def test_isready_is_answered_while_thinking(engines: list[PopenSpawn]) -> None:
    child = start(engines, "random_mover.py")
    child.sendline("setoption name Delay value 800")
    newgame(child, "a-white")
    state(child, 0)
    child.sendline("go v 0 turn 1 board a")
    child.sendline("isready")
    child.expect_exact("readyok")
    assert "bestmove" not in str(child.before)
    assert answer(child)[0] == "bestmove"


@pytest.mark.slow
def test_the_seed_option_makes_games_repeatable(engines: list[PopenSpawn]) -> None:
    def first_moves() -> list[str]:
        child = start(engines, "random_mover.py")
        child.sendline("setoption name Seed value 99")
        newgame(child, "a-white")
        moves = []
        for turn in range(1, 6):
            state(child, 0)
            child.sendline(f"go v 0 turn {turn} board a")
            moves.append(answer(child)[1])
        return moves

    assert first_moves() == first_moves()


@pytest.mark.slow
def test_unknown_and_bad_input_is_ignored(engines: list[PopenSpawn]) -> None:
    child = start(engines, "random_mover.py")
    for line in ("hello", "setoption name Seed value x", "   ", "go", "\x00\x01", "state v"):
        child.sendline(line)
    child.sendline("isready")
    child.expect_exact("readyok")
    assert "error cannot read 'go'" in str(child.before)
    assert child.proc.poll() is None


# -- fault engines --------------------------------------------------------------------------


def play_one_turn(child: PopenSpawn, turn: int = 1) -> None:
    state(child, 0)
    child.sendline(f"go v 0 turn {turn} board a")


@pytest.mark.slow
def test_faulty_needs_a_mode() -> None:
    child = spawn("faulty.py")
    child.expect(pexpect.EOF)
    assert child.proc.wait(timeout=TIMEOUT) == 2
    assert "a mode is needed" in str(child.before)


@pytest.mark.slow
def test_faulty_crash_exits_with_status_3(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "crash")
    newgame(child, "a-white")
    play_one_turn(child, 1)
    assert answer(child)[0] == "bestmove"
    play_one_turn(child, 2)
    child.expect(pexpect.EOF)
    assert child.proc.wait(timeout=TIMEOUT) == 3


@pytest.mark.slow
def test_faulty_hang_never_answers_go_but_answers_isready(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "hang", "--after", "0")
    newgame(child, "a-white")
    play_one_turn(child)
    child.sendline("isready")
    child.expect_exact("readyok")
    with pytest.raises(pexpect.TIMEOUT):
        child.expect_exact("bestmove", timeout=1)


@pytest.mark.slow
def test_faulty_illegal_answers_an_illegal_move(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "illegal", "--after", "0")
    newgame(child, "a-white")
    play_one_turn(child)
    words = answer(child)
    assert words[0] == "bestmove"
    with pytest.raises(MoveError):
        BughouseGame().push(Seat.A_WHITE, words[1])


@pytest.mark.slow
def test_faulty_stale_answers_an_old_token_first(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "stale")
    newgame(child, "a-white")
    play_one_turn(child, 8)
    assert answer(child)[2:] == ["turn", "7"]
    assert answer(child)[:3] == ["wait", "turn", "1008"]
    assert answer(child)[2:] == ["turn", "8"]


@pytest.mark.slow
def test_faulty_garbage_writes_junk_then_plays(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "garbage")
    newgame(child, "a-white")
    play_one_turn(child, 5)
    child.expect(r"bestmove \S+ turn 5\r?\n")
    junk = str(child.before)
    assert "\ufffd" in junk
    assert "x" * 20000 in junk
    assert "turn banana" in junk


@pytest.mark.slow
def test_faulty_flood_writes_megabytes_then_plays(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "flood", "--after", "0", "--flood-mb", "2")
    newgame(child, "a-white")
    play_one_turn(child, 1)
    child.expect(r"bestmove \S+ turn 1\r?\n", timeout=60)
    assert len(str(child.before)) > 2_000_000


@pytest.mark.slow
def test_faulty_slow_start_is_late_with_bugok() -> None:
    child = spawn("faulty.py", "slow-start", "--delay", "1")
    began = time.monotonic()
    child.sendline("bug 1")
    with pytest.raises(pexpect.TIMEOUT):
        child.expect_exact("bugok", timeout=0.5)
    child.expect_exact("bugok")
    assert time.monotonic() - began >= 1
    child.sendline("quit")
    assert child.proc.wait(timeout=TIMEOUT) == 0


@pytest.mark.slow
def test_faulty_ignore_quit_survives_quit_and_sigterm(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "ignore-quit")
    child.sendline("quit")
    child.sendeof()
    time.sleep(0.5)
    child.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    assert child.proc.poll() is None
    os.kill(child.proc.pid, signal.SIGKILL)
    assert child.proc.wait(timeout=TIMEOUT) == -signal.SIGKILL


@pytest.mark.slow
def test_faulty_close_pipe_closes_output_and_stays(engines: list[PopenSpawn]) -> None:
    child = start(engines, "faulty.py", "close-pipe", "--after", "0")
    newgame(child, "a-white")
    play_one_turn(child)
    child.expect(pexpect.EOF)
    time.sleep(0.2)
    assert child.proc.poll() is None
