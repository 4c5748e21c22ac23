"""``BughouseBoard.parse_san``'s short path reads exactly what python-chess's
``parse_san`` reads: the same move for every text it accepts, the same error
class for every text it refuses, in positions from random play under any
house rules (pins, checks, promotions, dropped pawns, castling rights)."""

from __future__ import annotations

import chess
import chess.variant
import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import crazyhouse_walk, house_rules, played_games

from bughouse_arbiter.core.board import BughouseBoard
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId


def _python_chess(board: BughouseBoard, san: str) -> chess.Move | type[Exception]:
    try:
        return chess.variant.CrazyhouseBoard.parse_san(board, san)
    except ValueError as exc:
        return type(exc)


def _ours(board: BughouseBoard, san: str) -> chess.Move | type[Exception]:
    try:
        return board.parse_san(san)
    except ValueError as exc:
        return type(exc)


def _texts(board: BughouseBoard) -> set[str]:
    """Every legal move's SAN, LAN and UCI, bare and decorated, and every
    piece letter (or none) to every square, with and without a file, a rank,
    a capture mark or a promotion."""
    texts: set[str] = set()
    for move in board.legal_moves:
        san = board.san(move)
        bare = san.rstrip("+#")
        texts.update({san, bare, bare.replace("x", ""), board.lan(move), move.uci()})
        texts.add(bare + "+")
    for square in chess.SQUARE_NAMES:
        file = square[0]
        for piece in ("", "N", "B", "R", "Q", "K"):
            texts.update({piece + square, piece + "x" + square})
            for origin in ("a", "d", "h", "1", "2", "7", file):
                texts.add(piece + origin + square)
        if square[1] in "18":
            for letter in "QNKq":
                texts.update({square + "=" + letter, square + letter})
                for origin in "abcdefgh":
                    texts.add(f"{origin}x{square}={letter}")
    return texts


def _check(board: BughouseBoard) -> None:
    for text in sorted(_texts(board)):
        assert _ours(board, text) == _python_chess(board, text), (board.fen(), text)


@settings(max_examples=40, deadline=None)
@given(
    game=played_games(rules=house_rules(), max_plies=160),
    board_id=st.sampled_from(list(BoardId)),
)
def test_random_positions_read_every_text_as_python_chess_does(
    game: BughouseGame, board_id: BoardId
) -> None:
    _check(game.board(board_id))


@pytest.mark.parametrize(
    "fen",
    [
        "r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1",  # Kg1 and Kc1 are castling to python-chess
        "4k3/8/8/8/8/8/4r3/R3K2R[] w KQ - 0 1",  # in check, castling rights
        "4k3/8/8/8/8/8/4r3/R3K2R[] w - - 0 1",  # in check: capture, block, step aside
        "4k3/4r3/8/8/1b6/8/5N2/4K3[] w - - 0 1",  # double check: only the king
        "k7/8/8/8/8/8/8/r3K2R[] w - - 0 1",  # the king may not step back along the line
        "k7/8/8/8/8/8/2N5/r3K3[] w - - 0 1",  # a knight blocks, but not from a pin
        "k6b/8/8/8/8/2r5/3N4/4K3[] w - - 0 1",  # the d2 knight is pinned while in check
        "4k3/8/8/8/8/5n2/8/4K2R[] w - - 0 1",  # a knight's check: capture it or move the king
        "4k3/8/8/8/8/8/3p4/4K3[] w - - 0 1",  # a pawn's check
        "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2",  # en passant
        "4k3/8/8/8/8/2N1N3/8/4K3[] w - - 0 1",  # two knights reach d5, c4...
        "4k3/4r3/8/8/8/2N1N3/8/4K3[] w - - 0 1",  # ...but the e3 knight is pinned
        "4k3/1P6/8/8/8/8/8/4K3[] w - - 0 1",  # promotions
        "2r1k3/1P6/8/8/8/8/8/4K3[] w - - 0 1",  # promotion with a capture
        "4k3/8/8/8/8/8/1p6/2R1K3[] b - - 0 1",  # black promotes
        "k7/8/8/8/8/8/8/7K[] w - - 0 1",  # kings only
        "4k3/8/8/8/8/8/8/8[Q] w - - 0 1",  # no white king
        "7k/8/8/8/8/8/8/R6r[] w - - 0 1",  # no white king, a rook: every pseudo-legal move
        "4K3/8/8/8/8/8/8/K6k[] w - - 0 1",  # two white kings
        # double check by two sliders: the king may step back along neither line
        # (Kf3, Ke3), and no other piece may move (Na1)
        "4r2k/1b6/8/8/4K3/8/2N5/8[] w - - 0 1",
        "4k3/8/8/8/1N3N2/8/5N2/4K3[] w - - 0 1",  # three knights reach d3: ambiguous...
        "4k3/8/8/b7/1N3N2/8/5N2/4K3[] w - - 0 1",  # ...and still with the middle one pinned
    ],
)
def test_corner_positions(fen: str) -> None:
    _check(BughouseBoard(fen))


def test_a_dropped_pawn_that_may_not_double_step_is_read_as_python_chess_reads_it() -> None:
    from bughouse_arbiter.core.rules import HouseRules

    board = BughouseBoard(
        "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", rules=HouseRules(dropped_pawn_double_step=False)
    )
    board.push(chess.Move.from_uci("P@d2"))
    board.push(chess.Move.from_uci("e8d8"))
    assert board.dropped_pawns
    _check(board)
    with pytest.raises(chess.IllegalMoveError):
        board.parse_san("d4")
    assert board.parse_san("d3") == chess.Move.from_uci("d2d3")


def _read_by_the_short_path(board: BughouseBoard, move: chess.Move) -> bool:
    """Whether ``parse_san``'s docstring promises the short path for this legal
    move's SAN: not castling, a drop, en passant, nor a king's move while its
    side may still castle ("Kg1" may name castling)."""
    if move.drop or board.is_castling(move) or board.is_en_passant(move):
        return False
    backrank = chess.BB_RANK_1 if board.turn else chess.BB_RANK_8
    return not (board.king(board.turn) == move.from_square and board.castling_rights & backrank)


#: Positions the walks seldom reach, for the short path's own reading.
_SHORT_PATH_CORNERS = [
    "4k3/8/8/8/8/8/8/K6R[] w - - 0 1",  # the king on a1 (square 0)
    "4k3/8/8/8/8/8/8/1K5R[] w - - 0 1",  # Ka1: the king's move to square 0
    "4k3/8/8/8/3K4/8/8/b6R[] w - - 0 1",  # in check from a1: Rxa1
    "4k3/8/8/8/3K4/8/4N3/b7[] w - - 0 1",  # in check from a1: Nc3 blocks
    "k7/8/8/8/8/8/8/r3K3[] w - - 0 1",  # in check along the rank: the king steps off it
]


@pytest.mark.parametrize("seed", range(6))
def test_the_short_path_reads_every_plain_move_itself(seed: int) -> None:
    """The short path is the usual move's whole reading (python-chess's move
    generation is the slow fallback): every legal move it promises to read, in
    its SAN, bare, without the capture mark, with a check mark and (a piece's)
    in long notation, is the move the short path gives, not None."""
    read = 0
    for fen in [*_SHORT_PATH_CORNERS, *crazyhouse_walk(seed)[::3]]:
        board = BughouseBoard(fen)
        for move in board.legal_moves:
            if not _read_by_the_short_path(board, move):
                continue
            san = board.san(move)
            bare = san.rstrip("+#")
            texts = {san, bare, bare.replace("x", ""), bare + "+"}
            if board.piece_type_at(move.from_square) != chess.PAWN:
                texts.add(board.lan(move))
            for text in texts:
                match = chess.SAN_REGEX.match(text)
                assert match is not None, text
                assert board._plain_san(*match.groups()) == move, (fen, text)
                read += 1
    assert read > 500


@pytest.mark.parametrize("seed", range(6, 10))
def test_walked_positions_read_every_text_as_python_chess_does(seed: int) -> None:
    """As the property test, on the positions of seeded crazyhouse games
    (checks favoured): the same every run, quick enough for mutation testing."""
    for fen in crazyhouse_walk(seed, checks=0.5)[::8]:
        _check(BughouseBoard(fen))
