"""Start positions and move spellings of BPGN dialects, read onto BughouseBoard."""

from __future__ import annotations

import chess
import pytest

from bughouse_arbiter.bpgn.positions import parse_san, read_move, start_fens
from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.core.board import STARTING_FEN, BughouseBoard
from bughouse_arbiter.errors import MoveError

PLAIN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
HOLDINGS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1"


def _game(fen: str | None) -> BpgnGame:
    tag = f'[FEN "{fen}"]\n' if fen is not None else ""
    (game,) = read_games('[Event "t"]\n' + tag + "*\n")
    return game


def test_no_fen_tag_is_the_standard_start_on_both_boards() -> None:
    assert start_fens(_game(None)) == (STARTING_FEN, STARTING_FEN)
    assert start_fens(_game("")) == (STARTING_FEN, STARTING_FEN)


@pytest.mark.parametrize(
    "spelling",
    [
        HOLDINGS,  # [holdings]
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Nn w KQkq - 0 1",  # BFEN /holdings
    ],
)
def test_both_holdings_spellings_give_the_same_pockets(spelling: str) -> None:
    a, b = start_fens(_game(f"{spelling} | {PLAIN}"))
    assert a == BughouseBoard(HOLDINGS).fen()
    assert "[Nn]" in a
    assert b == BughouseBoard(PLAIN).fen()


def test_a_long_fen_is_read_as_a_short_one() -> None:
    padded = HOLDINGS.replace(" w ", " " * 200 + "w ")
    assert len(padded) > 200
    assert start_fens(_game(f"{padded}|{PLAIN}"))[0] == BughouseBoard(HOLDINGS).fen()


@pytest.mark.parametrize("fen", [PLAIN, f"{PLAIN} | {PLAIN} | {PLAIN}"])
def test_a_fen_tag_needs_exactly_two_positions(fen: str) -> None:
    with pytest.raises(ValueError, match=r"\[FEN\] should hold two positions separated by '\|'"):
        start_fens(_game(fen))


def test_an_empty_half_of_the_fen_tag_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^empty FEN$"):
        start_fens(_game(f"{PLAIN} |  "))


def test_san_comes_first_a_bishop_from_rank_eight_is_not_uci() -> None:
    # "B8d7" read as UCI would be b8d7 (an empty square); as SAN it is the c8 bishop.
    board = BughouseBoard("2B1k3/8/4B3/8/8/8/8/4K3 w - - 0 1")
    assert read_move(board, "B8d7") == (chess.Move.from_uci("c8d7"), True)


@pytest.mark.parametrize(("token", "uci"), [("g1f3", "g1f3"), ("G1F3", "g1f3")])
def test_uci_is_read_and_flagged_for_writing_again_in_san(token: str, uci: str) -> None:
    board = BughouseBoard()
    assert read_move(board, token) == (chess.Move.from_uci(uci), False)
    assert parse_san(board, token) == chess.Move.from_uci(uci)


@pytest.mark.parametrize(("token", "uci"), [("Nf3", "g1f3"), ("e4", "e2e4"), ("Ng1f3", "g1f3")])
def test_san_is_plain(token: str, uci: str) -> None:
    assert read_move(BughouseBoard(), token) == (chess.Move.from_uci(uci), True)


def test_a_drop_written_as_in_uci_and_san_is_plain() -> None:
    board = BughouseBoard("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1")
    assert read_move(board, "N@f3") == (chess.Move.from_uci("N@f3"), True)


def test_a_null_move_is_no_move() -> None:
    with pytest.raises(MoveError):
        read_move(BughouseBoard(), "--")


@pytest.mark.parametrize(
    ("fen", "token", "uci"),
    [
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "xd5", "e4d5"),
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "xd5+", "e4d5"),
        ("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "xd8=Q", "e7d8q"),
        ("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "xd8N", "e7d8n"),
        ("4k3/8/8/8/8/8/4p3/3RK3 b - - 0 1", "xd1=q", "e2d1q"),
    ],
)
def test_a_pawn_capture_without_its_file_letter_finds_the_one_pawn(
    fen: str, token: str, uci: str
) -> None:
    assert read_move(BughouseBoard(fen), token) == (chess.Move.from_uci(uci), False)


@pytest.mark.parametrize(
    ("fen", "token"),
    [
        ("4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1", "xd5"),  # two pawns can take
        ("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1", "xd5"),  # only the queen can take
        ("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", "xd5"),  # nothing to take
        ("3rk3/4P3/8/8/8/8/8/4K3 w - - 0 1", "xd8"),  # the promotion not written
    ],
)
def test_a_pawn_capture_without_its_file_letter_that_no_single_pawn_makes_is_refused(
    fen: str, token: str
) -> None:
    with pytest.raises(MoveError):
        read_move(BughouseBoard(fen), token)


def test_the_capturing_pawn_is_found_among_other_captures_of_the_square() -> None:
    # A knight and a pawn both take on d5, and a pawn could push to d5's file:
    # only the pawn capture is read.
    board = BughouseBoard("4k3/8/8/3p4/4P3/2N5/8/4K3 w - - 0 1")
    assert read_move(board, "xd5") == (chess.Move.from_uci("e4d5"), False)
