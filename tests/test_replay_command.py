"""``bughouse replay``: --check reports and exit codes, stepping from stdin."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from bughouse_arbiter import BughouseGame, HouseRules, Seat
from bughouse_arbiter.bpgn import BpgnRecorder, GameHeader, SearchInfo
from bughouse_arbiter.cli import main

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "arbiter_game.bpgn"
TAGS = '[Event "t"]\n[WhiteA "wa"]\n[BlackA "ba"]\n[WhiteB "wb"]\n[BlackB "bb"]\n'
GOOD = TAGS + '[Result "1-0"]\n1A. e4 {179} 1a. e5 {178}\n{ba resigns} 1-0\n'
BAD = TAGS + '[Result "*"]\n1A. e4 1a. e5 2A. P@e3 *\n'


def test_the_writer_still_writes_the_golden_file() -> None:
    game = BughouseGame(HouseRules().with_rule("profile", "club"))
    header = GameHeader(
        players={
            Seat.A_WHITE: "sjeng",
            Seat.A_BLACK: "fairy",
            Seat.B_WHITE: "random",
            Seat.B_BLACK: "searcher",
        },
        engines={Seat.A_WHITE: "Sjeng 11.2", Seat.A_BLACK: "Fairy-Stockfish 14"},
        event="golden",
        site="bughouse-arbiter",
        date="2026.11.29",
        time="13:00:00",
        round="1",
    )
    recorder = BpgnRecorder(game, header)
    script = [
        (Seat.A_WHITE, "e4"),
        (Seat.B_WHITE, "d4"),
        (Seat.A_BLACK, "d5"),
        (Seat.B_BLACK, "e5"),
        (Seat.A_WHITE, "exd5"),
        (Seat.B_WHITE, "dxe5"),
        (Seat.B_BLACK, "P@e4"),
        (Seat.A_BLACK, "Qxd5"),
        (Seat.A_WHITE, "Nc3"),
        (Seat.A_BLACK, "P@e2"),
    ]
    clock = dict.fromkeys(Seat, 180.0)
    at = 0.0
    for i, (seat, move) in enumerate(script):
        at = round(at + 1.234 * (i % 3 + 1), 3)
        clock[seat] = round(clock[seat] - 1.111 * (i % 4 + 1), 3)
        played = game.push(seat, move, at=at, clock=clock[seat])
        if i == 3:
            game.tell(Seat.B_BLACK, "pawn coming {for you}", at=at + 0.5)
        info = {played.ply: SearchInfo(score_cp=20 * i - 50, depth=8 + i)} if seat.color else None
        recorder.update(info)
    game.resign(Seat.A_WHITE)
    assert recorder.final_text() == GOLDEN.read_text()


def test_check_passes_our_golden_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--check", str(GOLDEN)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        f"{GOLDEN} game 1 (line 1) sjeng & searcher vs fairy & random: ok: 10/10 moves "
        "replayed; recorded 0-1, re-judged 0-1 ([Result] from team 1 (WhiteA + BlackB), "
        "as the standard says)"
    )
    assert out[1:3] == ["  re-judged: A-White resigned", "  the file says: A-White resigned"]
    assert out[-1] == "checked 1 game(s) in 1 file(s): 1 passed, 0 failed; 10 moves replayed"


def test_check_fails_with_the_first_bad_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.bpgn", tmp_path / "bad.bpgn"
    good.write_text(GOOD)
    bad.write_text(GOOD + "\n" + BAD)
    assert main(["replay", "--check", str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad} game 2 (line 10) wa & bb vs ba & wb: FAIL: 2/3 moves replayed" in out
    assert (
        "  first move that cannot be played: 2A. P@e3 (line 16, column 15): "
        "P@e3: no pawn in the pocket"
    ) in out
    assert out.endswith("checked 3 game(s) in 2 file(s): 2 passed, 1 failed; 6 moves replayed\n")


def test_strict_check_fails_games_with_reading_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.bpgn"
    path.write_text(TAGS + '[Result "*"]\n1A. e4 {179}\n')
    assert main(["replay", "--check", str(path)]) == 0
    assert main(["replay", "--check", "--strict", str(path)]) == 1
    out = capsys.readouterr().out
    assert "reading: " in out and "game ends without a result token (truncated?)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["replay", "--check", "/nonexistent.bpgn"], "/nonexistent.bpgn: no such file"),
        (["replay", "/nonexistent.bpgn"], "/nonexistent.bpgn: no such file"),
        (["replay", "--game", "2", str(GOLDEN)], f"--game 2: {GOLDEN} holds games 1 to 1"),
        (["replay", "--game", "0", str(GOLDEN)], f"--game 0: {GOLDEN} holds games 1 to 1"),
        (["replay", str(GOLDEN), str(GOLDEN)], "stepping through a game takes one FILE"),
        (["replay", "--check", "--rule", "nonsense", str(GOLDEN)], "is not NAME=VALUE"),
        (["replay", str(DATA)], "is a folder"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("bughouse replay: error: ")


def _step(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], keys: str) -> str:
    monkeypatch.setattr(sys, "stdin", io.StringIO(keys))
    assert main(["replay", str(GOLDEN)]) == 0
    return capsys.readouterr().out


def test_stepping_shows_boards_pockets_clocks_and_messages(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _step(monkeypatch, capsys, "g 5\n")
    frame = out.split("[start · ply 0/10] > ", 1)[1].split("[2A. exd5 · ply 5/10]")[0]
    lines = frame.splitlines()
    assert lines[0] == "after 2A. exd5 (ply 5) at 11.106 s"

    def seat_line(text: str) -> str:
        (line,) = [line for line in lines if text in line]
        return line

    # Clocks at that moment: the movers' recorded clocks, and the clocks that
    # run (A-Black since 11.106, B-White since 8.638) counted down; drawn as
    # the play screen draws them (whole seconds from 20 s up).
    line = seat_line("A-Black fairy")
    a_black, b_white = line[:40].rstrip(), line[40:]  # one 40-column panel per board
    assert a_black.startswith(" > A-Black") and a_black.endswith(" 2:56")  # 176.667 s
    assert b_white.startswith(" > B-White") and b_white.endswith(" 2:55")
    # B-White: 177.778 - (11.106 - 8.638) = 175.310 s
    assert seat_line("A-White sjeng")[:40].rstrip().endswith(" 2:57")
    assert seat_line("B-Black searcher").endswith(" 2:55")
    top, bottom = [line.rstrip() for line in lines if "hand:" in line]
    assert top.endswith("hand: -") and bottom.endswith("hand: ♟")  # B-Black's pawn
    # Each board's last move under it, numbered as in the file.
    assert lines[15].split() == ["last", "2A.", "exd5", "last", "1b.", "e5"]
    assert "  BB to partner (9.1 s): pawn coming {for you}" in lines


def test_ascii_draws_letters_and_a_pipe_gets_no_colour(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("g 5\n"))
    assert main(["replay", str(GOLDEN), "--ascii"]) == 0
    out = capsys.readouterr().out
    frame = out.split("[start · ply 0/10] > ", 1)[1].split("[2A. exd5 · ply 5/10]")[0]
    lines = frame.splitlines()
    assert lines[4] == " 8  r  n  b  q  k  b  n  r               1  R  N  B  K  Q  B  N  R"
    assert lines[13].endswith("hand: p")
    assert "\x1b" not in out
    assert not any(glyph in out for glyph in "♙♟♘♞")


def test_stepping_keys_and_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = "\nn\nb\ne\nn\nwhat\ng x\n99\ns\n-3\n3\n2A\ng 1b.\n7a\nq\nignored\n"
    out = _step(monkeypatch, capsys, keys)
    prompts = [line.split("/")[0].split("ply ")[1] for line in out.split("\n[")[1:]]
    assert prompts == [
        "0",
        "1",
        "2",
        "1",
        "10",
        "10",
        "10",
        "10",
        "10",
        "0",
        "0",
        "3",
        "5",
        "4",
        "4",
    ]
    assert "already at the end (plies 0 to 10)" in out
    assert "unknown command 'what'" in out
    assert "unknown command 'x'" in out
    assert "no move 99: plies go from 0 to 10 (or type a move such as 2A)" in out
    assert "no move -3: plies go from 0 to 10" in out
    assert "after 1a. d5 (ply 3)" in out
    assert "[2A. exd5 · ply 5/10] > " in out  # the move number, not only the ply
    assert "no move 7a. in this game" in out


def test_stepping_ends_cleanly_at_end_of_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _step(monkeypatch, capsys, "")
    assert "start position" in out
    assert out.endswith("[start · ply 0/10] > \n")


def test_stepping_through_a_game_whose_start_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad_fen.bpgn"
    path.write_text(TAGS + '[SetUp "1"]\n[FEN "not a fen | x"]\n[Result "*"]\n1A. e4 *\n')
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bughouse replay: error: {path} game 1: stopped at start position")
    assert main(["replay", "--check", str(path)]) == 1


def test_the_last_frame_says_how_the_game_ended(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _step(monkeypatch, capsys, "e\n")
    assert out.endswith("result: 0-1 (A-White resigned)\n[3a. P@e2 · ply 10/10] > \n")


@pytest.mark.slow
def test_stepping_in_a_terminal_stays_put_on_a_bad_number(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "bughouse_arbiter", "replay", str(GOLDEN)],
        env={**os.environ, "TERM": "xterm", "LANG": "C.UTF-8"},
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=30,
        cwd=str(tmp_path),
    )
    try:
        child.expect_exact("[start · ply 0/10] > ")
        child.sendline("e")
        child.expect_exact("[3a. P@e2 · ply 10/10] > ")
        child.sendline("99")
        child.expect_exact("no move 99: plies go from 0 to 10")
        child.expect_exact("[3a. P@e2 · ply 10/10] > ")  # still at the end, no jump
        child.sendline("2A.")
        child.expect_exact("after 2A. exd5 (ply 5)")
        child.expect_exact("[2A. exd5 · ply 5/10] > ")
        child.sendline("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
