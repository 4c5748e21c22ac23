"""The cheap "surely has a move" test never claims a move that does not exist,
the board's status is the same as from generating every move, and the
status a game keeps for each board is the one judged afresh."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import bughouse_fens, crazyhouse_walk, house_rules

from bughouse_arbiter.core.board import BoardStatus, BughouseBoard
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
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


@pytest.mark.parametrize("seed", range(4))
def test_walked_positions_agree_with_full_move_generation(seed: int) -> None:
    """As the property test, on the positions of seeded crazyhouse games with
    checks favoured (mates and stalemates among them): the same every run."""
    for fen in crazyhouse_walk(seed, checks=0.5)[::2]:
        for drop_check in ("allowed", "no-check"):
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
        "7k/8/8/8/3b4/8/1P1n4/K1n5[] w - - 0 1",  # the only pawn step, pinned on a diagonal
        "1r5k/8/8/8/8/8/1P6/1K6[] w - - 0 1",  # a pawn pinned on its file still steps
        "7k/8/8/8/8/7p/2q4P/K7[] w - - 0 1",  # stalemated, a blocked pawn off the king's lines
        "k7/2Q4p/7P/8/8/8/8/7K[] b - - 0 1",  # ... for black
        "k7/8/8/8/8/1p6/1P1n4/K7[] w - - 0 1",  # stalemated, a blocked pawn on the king's diagonal
        "k7/1p1N4/1P6/8/8/8/8/7K[] b - - 0 1",  # ... for black
        "7k/8/8/8/8/p1p5/P1P5/KB6[] w - - 0 1",  # a free bishop that attacks only its own pawns
        # a pawn in hand, but ranks 2 to 7 are full: the only empty squares are on ranks 1 and 8
        "4k3/pppppppp/pppppppp/pppppppp/pppppppp/pppppppp/prpppppp/K7[P] w - - 0 1",
        "4k3/8/8/8/8/8/8/8[] w - - 0 1",  # no white piece at all
        # In check, judged by the king's steps:
        "k7/8/8/8/8/pp6/8/1K5r[] w - - 0 1",  # a1 looks free, but the rook sees through b1
        "8/8/8/8/8/1k6/8/K6r[] w - - 0 1",  # the enemy king guards the only steps
        "k7/8/8/8/8/pp6/8/1K5r[Q] w - - 0 1",  # the same, a queen to drop between
        "k7/8/8/8/8/1p6/8/1K5r[] w - - 0 1",  # one step left: b2
        "k7/8/8/8/8/1n6/8/K7[] w - - 0 1",  # a knight's check: the king steps aside
        "k7/8/8/8/8/1n6/8/K1r5[] w - - 0 1",  # a double check: a2 is left
        "k7/8/8/8/8/1n6/8/K1q5[] w - - 0 1",  # the queen also guards a2: b2 is left
        "k7/8/8/8/8/1p6/2n5/K1q5[Q] w - - 0 1",  # knight and queen, every step guarded: mate
        "6rk/5Npp/8/8/8/8/8/K7[] b - - 0 1",  # smothered: the king has no step at all
    ],
)
def test_corner_positions(fen: str) -> None:
    _check(BughouseBoard(fen))
    _check(BughouseBoard(fen, rules=HouseRules(stalemate="draw")))


@pytest.mark.parametrize(
    "fen",
    [
        "4k3/8/8/8/8/8/1P6/4K3[] w - - 0 1",  # a pawn off the king's lines steps
        "4k3/1p6/8/8/8/8/8/4K3[] b - - 0 1",
        "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1",  # a piece to drop
        "4k3/8/8/8/8/8/8/4K3[n] b - - 0 1",
        "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1",  # a pawn to drop, ranks 2 to 7 empty
        "4k3/8/8/8/8/8/3P4/4K3[] w - - 0 1",  # a pawn on the king's diagonal, not pinned
        "4k3/3p4/8/8/8/8/8/4K3[] b - - 0 1",
        "4k3/8/8/8/8/8/8/1N2K3[] w - - 0 1",  # a knight
        "4k3/8/8/8/8/8/8/1B2K3[] w - - 0 1",  # a bishop
        "4k3/8/8/8/8/8/8/1R2K3[] w - - 0 1",  # a rook
        "4k3/8/8/8/8/8/8/1Q2K3[] w - - 0 1",  # a queen
        "1q2k3/8/8/8/8/8/8/4K3[] b - - 0 1",
        "k7/8/8/8/8/8/8/K6r[] w - - 0 1",  # in check: the king steps off the rank
        "7K/8/8/8/8/8/8/k6R[] b - - 0 1",  # black in check steps off the rank
        "k7/8/8/8/8/1n6/8/K7[] w - - 0 1",  # a knight's check: a step aside
    ],
)
def test_the_cheap_test_knows_the_moves_its_docstring_lists(fen: str) -> None:
    """In check, a king's step no enemy piece attacks; not in check, a pawn
    step off the king's lines, a droppable piece, a free pawn's step or a free
    piece's move: each is enough for the cheap test alone, which answers True
    without generating moves (the judge's hot path)."""
    board = BughouseBoard(fen)
    assert board._surely_can_move(), fen
    assert board.status_of_side_to_move() is BoardStatus.OK


def test_a_side_whose_only_moves_are_checking_drops_is_stalemated_under_no_check() -> None:
    # Ranks 1 to 7 full (the white king boxed in on a1), the only empty
    # squares on rank 8 beside the black king: every queen drop checks.
    fen = "4k3/pppppppp/pppppppp/pppppppp/pppppppp/pppppppp/prpppppp/Kbbbbbbb[Q] w - - 0 1"
    board = BughouseBoard(fen, rules=HouseRules(drop_check="no-check"))
    _check(board)
    assert board.status_of_side_to_move() is BoardStatus.STALEMATE_WAIT
    allowed = BughouseBoard(fen)
    _check(allowed)
    assert allowed.status_of_side_to_move() is BoardStatus.OK


@settings(max_examples=30, deadline=None)
@given(rules=house_rules(), choices=st.lists(st.integers(0, 10**6), min_size=60, max_size=150))
def test_a_game_keeps_each_boards_status_as_judged_afresh(
    rules: HouseRules, choices: list[int]
) -> None:
    """``BughouseGame.status`` remembers a board's status until the board
    changes (an arrival keeps an OK): after every move, under any house rules,
    it is what judging both boards from scratch gives."""
    game = BughouseGame(dataclasses.replace(rules, max_plies=0, stalling=0))
    for choice in choices:
        live = [b for b in BoardId if game.is_live(b) and any(game.board(b).legal_moves)]
        if game.is_over or not live:
            break
        board_id = live[choice % len(live)]
        board = game.board(board_id)
        legal = sorted(board.legal_moves, key=lambda move: move.uci())
        checks = [move for move in legal if board.gives_check(move)]
        if checks and choice % 3:  # checks mostly: mates, waits and arrivals that end them
            legal = checks
        game.push(Seat.of(board_id, board.turn), legal[(choice // 2) % len(legal)])
        for each in BoardId:
            fresh = game.board(each).copy(stack=False).status_of_side_to_move()
            assert game.status(each) is fresh, (each, game.fen(each))
