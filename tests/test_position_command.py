"""``bughouse position``: in-process through ``cli.main`` and once as a real process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cli_checks import run_bughouse

from bughouse_arbiter.cli import main
from bughouse_arbiter.core.board import STARTING_FEN

QUEEN_MATES = "7k/8/6K1/8/8/8/8/8[Q] w - - 0 1"
WHITE_WAITS = "7k/8/8/8/8/8/6PP/r6K[] w - - 0 1"
WHITE_STALEMATED = "7k/8/8/8/8/8/5q2/7K[] w - - 0 1"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["position", *argv, "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    result: dict[str, Any] = json.loads(lines[0])
    return result


def run_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["position", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bughouse position: error: ")
    return lines[0]


def test_starting_position(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, STARTING_FEN)
    assert out["status"] == "ok" and out["in_check"] is False
    assert len(out["legal_moves"]) == 20
    assert out["legal_moves"] == sorted(out["legal_moves"])
    assert out["passed"] == []
    assert "match" not in out


def test_moves_are_applied_and_captures_listed_as_passed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run_json(capsys, STARTING_FEN, "--moves", "e2e4", "d7d5", "e4d5", "d8d5", "Nc3")
    assert out["passed"] == ["p", "P"]
    assert "Q@a1" not in out["legal_moves"]  # the captured pawns left this board
    assert "d5a5" in out["legal_moves"]


def test_a_captured_promoted_piece_is_passed_as_a_pawn(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(capsys, "3Q~k3/8/8/8/8/8/8/4K3[] b - - 0 1", "--moves", "e8d8")
    assert out["passed"] == ["P"]


def test_plus_tokens_put_pieces_in_the_pocket_of_their_colour(
    capsys: pytest.CaptureFixture[str],
) -> None:
    waiting = run_json(capsys, WHITE_WAITS)
    assert waiting == {"status": "must_wait", "in_check": True, "legal_moves": [], "passed": []}
    armed = run_json(capsys, WHITE_WAITS, "--moves", "+n", "+N")
    assert armed["status"] == "ok"
    assert armed["legal_moves"] == ["N@b1", "N@c1", "N@d1", "N@e1", "N@f1", "N@g1"]
    after = run_json(capsys, WHITE_WAITS, "--moves", "+N", "N@d1", "+b", "B@a2")
    assert after["status"] == "ok" and after["in_check"] is False


def test_statuses_for_mate_and_stalemate_and_the_rules_that_change_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_json(capsys, "7k/8/8/8/8/8/6q1/6rK[] w - - 0 1")["status"] == "checkmate"
    assert run_json(capsys, WHITE_WAITS, "--rule", "wait_for_block=off")["status"] == "checkmate"
    assert run_json(capsys, WHITE_STALEMATED)["status"] == "stalemate_wait"
    drawn = run_json(capsys, WHITE_STALEMATED, "--rule", "stalemate=draw")
    assert drawn["status"] == "stalemate_draw" and drawn["in_check"] is False


def test_rules_that_need_history_apply_to_the_moves(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "4k3/8/8/8/4p3/8/8/4K3[P] w - - 0 1"
    on = run_json(capsys, fen, "--moves", "P@d2", "e8d8")
    assert "d2d4" in on["legal_moves"]
    off = run_json(capsys, fen, "--moves", "P@d2", "e8d8", "--rule", "dropped_pawn_double_step=off")
    assert "d2d4" not in off["legal_moves"] and "d2d3" in off["legal_moves"]
    castle = run_json(
        capsys,
        "4k3/8/8/8/8/8/8/R3K3[R] w Q - 0 1",
        "--moves",
        "R@h1",
        "e8d8",
        "--rule",
        "dropped_rook_castles=on",
    )
    assert "e1g1" in castle["legal_moves"]
    no_check = run_json(capsys, QUEEN_MATES, "--rule", "drop_check=no-check")
    assert "Q@g7" not in no_check["legal_moves"] and "Q@b1" in no_check["legal_moves"]


def test_board_b_adds_the_match_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    running = run_json(capsys, STARTING_FEN, "--board-b", STARTING_FEN)
    assert running["match"] == {"over": False, "result": None, "termination": None, "board": None}
    mated = run_json(capsys, QUEEN_MATES, "--moves", "Q@g7", "--board-b", STARTING_FEN)
    assert mated["status"] == "checkmate"
    assert mated["match"] == {
        "over": True,
        "result": "1-0",
        "termination": "checkmate",
        "board": "A",
    }
    deadlock = run_json(capsys, WHITE_WAITS, "--board-b", WHITE_WAITS)
    assert deadlock["match"] == {
        "over": True,
        "result": "1/2-1/2",
        "termination": "deadlock",
        "board": None,
    }
    capped = run_json(
        capsys,
        STARTING_FEN,
        "--moves",
        "Nf3",
        "Nf6",
        "--board-b",
        STARTING_FEN,
        "--rule",
        "max_plies=2",
    )
    assert capped["match"]["termination"] == "max_plies"


def test_without_board_b_a_waiting_position_is_not_a_deadlock(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run_json(capsys, WHITE_WAITS, "--moves", "+Q", "Q@d1", "h8g8")
    assert out["status"] == "ok"


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", WHITE_WAITS, "--moves", "+N", "--board-b", STARTING_FEN]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "fen: 7k/8/8/8/8/8/6PP/r6K[N] w - - 0 1",
        "to move: white",
        "status: ok (in check)",
        "legal moves (6): N@b1 N@c1 N@d1 N@e1 N@f1 N@g1",
        "match: in play",
    ]
    assert main(["position", STARTING_FEN, "--moves", "e4", "d5", "exd5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "passed to the partner board: p"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["not a fen"], "FEN: a board needs 8 ranks separated by '/', not 1: 'not a fen'"),
        (["8/8/8/8/8/8/8/8[] w - - 0 1"], "the board is empty"),
        (["4k3/8/8/8/8/8/8/4K3[K] w - - 0 1"], "a pocket cannot hold a king"),
        (["4k3/8/8/8/8/8/8/4K3 w - - 0 1", "--board-b", "4k3/8/8/8/8/8/8/4K4"], "--board-b: "),
        ([STARTING_FEN, "--moves", "e2e4", "e2e4"], "--moves token 2 ('e2e4'): e2e4: illegal"),
        ([STARTING_FEN, "--moves", "Zz9"], "--moves token 1 ('Zz9'): Zz9: not a move"),
        ([STARTING_FEN, "--moves", "N@e4"], "no knight in the pocket"),
        ([STARTING_FEN, "--moves", "+K"], "--moves token 1 ('+K'): +X takes one piece letter"),
        ([STARTING_FEN, "--moves", "+"], "+X takes one piece letter"),
        ([STARTING_FEN, "--moves", "+QQ"], "+X takes one piece letter"),
        ([STARTING_FEN, "--rule", "stalemate=lose"], "rule stalemate takes one of wait, draw"),
        ([STARTING_FEN, "--rule", "nonsense"], "is not NAME=VALUE"),
        ([STARTING_FEN, "--rule", "speed=fast"], "unknown rule 'speed'"),
        ([QUEEN_MATES, "--moves", "Q@g7", "h8g8"], "the match is already over"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in run_error(capsys, *argv)


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["position"])
    assert exited.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_a_real_process() -> None:
    completed = run_bughouse(
        "position",
            WHITE_WAITS,
            "--json",
            "--moves",
            "+N",
            "N@g1",
            "h8g8",
        "--board-b",
        STARTING_FEN,
    )
    assert completed.returncode == 0, completed.stderr
    out = json.loads(completed.stdout)
    assert out["status"] == "ok" and out["match"]["over"] is False
    failed = run_bughouse("position", "rnbqkbnr/8")
    assert failed.returncode == 2
    assert failed.stdout == ""
    assert failed.stderr.startswith("bughouse position: error: FEN: ")
    assert "Traceback" not in failed.stderr
