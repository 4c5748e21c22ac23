"""Property tests: no piece is ever created or lost on the two linked boards.

Pieces on both boards plus all four pockets always add up to two starting
sets per colour, a promoted piece counting as the pawn it was.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

import chess
import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import house_rules, play_randomly, played_games

from bughouse_arbiter.core.board import BoardStatus, BughouseBoard
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat

TWO_SETS = Counter(
    {
        (color, piece_type): 2 * count
        for color in chess.COLORS
        for piece_type, count in (
            (chess.PAWN, 8),
            (chess.KNIGHT, 2),
            (chess.BISHOP, 2),
            (chess.ROOK, 2),
            (chess.QUEEN, 1),
            (chess.KING, 1),
        )
    }
)

# board_end=continue takes captures out of play once the other board is over.
PASSING_RULES = house_rules().map(lambda rules: dataclasses.replace(rules, board_end="match"))


def material(board: BughouseBoard) -> Counter[tuple[chess.Color, chess.PieceType]]:
    counts: Counter[tuple[chess.Color, chess.PieceType]] = Counter()
    for square, piece in board.piece_map().items():
        kind = chess.PAWN if board.promoted & chess.BB_SQUARES[square] else piece.piece_type
        counts[piece.color, kind] += 1
    for color in chess.COLORS:
        for piece_type in chess.PIECE_TYPES:
            counts[color, piece_type] += board.pockets[color].count(piece_type)
    return counts


def table_material(game: BughouseGame) -> Counter[tuple[chess.Color, chess.PieceType]]:
    return material(game.board(BoardId.A)) + material(game.board(BoardId.B))


@settings(max_examples=40, deadline=None)
@given(played_games(min_plies=60, max_plies=300))
def test_pieces_are_conserved_under_the_default_rules(game: BughouseGame) -> None:
    assert table_material(game) == TWO_SETS


@settings(max_examples=25, deadline=None)
@given(played_games(rules=PASSING_RULES, min_plies=40, max_plies=200))
def test_pieces_are_conserved_under_any_house_rules_that_pass_pieces(game: BughouseGame) -> None:
    assert table_material(game) == TWO_SETS


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=40, max_size=150))
def test_conservation_holds_after_every_single_move(choices: list[int]) -> None:
    game = BughouseGame()
    for choice in choices:
        before = len(game.moves)
        play_randomly(game, [choice])
        if len(game.moves) == before:
            break
        assert table_material(game) == TWO_SETS


@settings(max_examples=25, deadline=None)
@given(played_games(min_plies=40, max_plies=200))
def test_the_record_agrees_with_the_boards(game: BughouseGame) -> None:
    assert [m.ply for m in game.moves] == list(range(1, len(game.moves) + 1))
    for board_id in BoardId:
        on_board = [m for m in game.moves if m.board is board_id]
        assert [m.move for m in on_board] == game.board(board_id).move_stack
        for played in on_board:
            assert played.seat.board is board_id
        for earlier, later in itertools.pairwise(on_board):
            assert earlier.seat.color != later.seat.color
    for played in game.moves:
        if played.passed is not None:
            # A capture hands the opponent's piece to the capturer's partner.
            assert played.passed.color != played.seat.color
            assert played.passed.piece_type != chess.KING


@settings(max_examples=25, deadline=None)
@given(played_games(rules=PASSING_RULES, min_plies=40, max_plies=200))
def test_a_running_match_has_no_decided_board(game: BughouseGame) -> None:
    if game.is_over:
        return
    statuses = [game.status(b) for b in BoardId]
    assert BoardStatus.CHECKMATE not in statuses
    assert BoardStatus.STALEMATE_DRAW not in statuses
    assert not all(status.waiting for status in statuses)
    if game.rules.max_plies:
        assert game.plies < game.rules.max_plies
    for seat in game.seats_to_move():
        assert game.is_to_move(seat)
        assert game.to_move(seat.board) is seat
    assert all(isinstance(s, Seat) for s in game.seats_to_move())
