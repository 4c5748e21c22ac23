"""The cheap "surely has a move" test never claims a move that does not exist,
and the board's status is the same as from generating every move."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import bughouse_fens

from bughouse_arbiter.core.board import BoardStatus, BughouseBoard
from bughouse_arbiter.core.rules import HouseRules


def _slow_status(board: BughouseBoard) -> BoardStatus:
    if any(board.generate_legal_moves()):
        return BoardStatus.OK
    if board.is_check():
        if board.rules.wait_for_block and board.could_block_by_drop():
            return BoardStatus.MUST_WAIT
        return BoardStatus.CHECKMATE
    return (
        BoardStatus.STALEMATE_DRAW
        if board.rules.stalemate == "draw"
        else BoardStatus.STALEMATE_WAIT
    )


def _check(board: BughouseBoard) -> None:
    if board._surely_can_move():
        assert any(board.generate_legal_moves()), board.fen()
    assert board.status_of_side_to_move() is _slow_status(board), board.fen()


@settings(max_examples=150, deadline=None)
@given(
    fen=bughouse_fens(),
    empty_pockets=st.booleans(),
    drop_check=st.sampled_from(["allowed", "no-check"]),
)
def test_random_positions_agree_with_full_move_generation(
    fen: str, empty_pockets: bool, drop_check: str
) -> None:
    if empty_pockets:
        fen = fen.split("[", 1)[0] + "[]" + fen.split("]", 1)[1]
    _check(BughouseBoard(fen, rules=HouseRules(drop_check=drop_check)))


@pytest.mark.parametrize(
    "fen",
    [
        "7k/8/8/8/8/8/8/K7[] w - - 0 1",  # a king alone: only king moves
        "k7/8/8/8/8/8/1q6/K7[] w - - 0 1",  # in check, no pocket
        "k7/8/8/8/8/8/2q5/K7[] w - - 0 1",  # stalemated king
        "k7/8/8/8/8/8/2q5/K7[P] w - - 0 1",  # stalemated king, a pawn to drop
        "k6r/8/8/8/8/8/7q/K6R[] w - - 0 1",  # the rook pinned: only the king
        "k7/8/8/8/8/p7/P7/K6q[] w - - 0 1",  # blocked pawn, pinned nothing, king stuck
        "1k6/8/8/8/8/8/r7/K7[] w - - 0 1",  # in check by a rook, one escape
        "8/8/8/8/8/k7/p7/K7[] w - - 0 1",  # White stalemated by a pawn
    ],
)
def test_corner_positions(fen: str) -> None:
    _check(BughouseBoard(fen))
    _check(BughouseBoard(fen, rules=HouseRules(stalemate="draw")))
