"""A bughouse evaluation, in centipawns for the side to move.

Terms: material on the board and in both pockets (pieces in hand are worth a
little more: they can go anywhere), what the captures made so far in the
search have handed to the other board (``Stakes``), king safety against drops,
and piece placement.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import chess

from .position import BugBoard

# Board values: bughouse players rate minor pieces and pawns higher against
# rooks and queens than in chess, because everything can be dropped back.
VALUE = (0, 100, 300, 310, 440, 820, 0)
# In hand a piece can land anywhere, with check: a small premium.
POCKET_VALUE = (0, 125, 330, 325, 450, 840, 0)
# Share of a piece's value that a capture adds for the capturer's team on the
# other board (the partner drops it there).
GIFT_SHARE = 0.4

MATE = 30000
MATE_BOUND = MATE - 500
# Scores for a side that cannot move and must wait for a piece: bad, but not lost.
MUST_WAIT_SCORE = -700
STUCK_SCORE = -250

_CENTER = (
    (0, 1, 2, 3, 3, 2, 1, 0),
    (1, 2, 3, 4, 4, 3, 2, 1),
    (2, 3, 5, 6, 6, 5, 3, 2),
    (3, 4, 6, 7, 7, 6, 4, 3),
    (3, 4, 6, 7, 7, 6, 4, 3),
    (2, 3, 5, 6, 6, 5, 3, 2),
    (1, 2, 3, 4, 4, 3, 2, 1),
    (0, 1, 2, 3, 3, 2, 1, 0),
)


def _table(fn: object) -> tuple[int, ...]:
    assert callable(fn)
    return tuple(int(fn(chess.square_rank(sq), chess.square_file(sq))) for sq in chess.SQUARES)


# Placement tables from White's side (rank 0 = White's back rank); Black mirrors.
_PLACEMENT: dict[chess.PieceType, tuple[int, ...]] = {
    chess.PAWN: _table(lambda r, f: (0, 0, 4, 10, 22, 40, 70, 0)[r] + (6 if 2 <= f <= 5 else 0)),
    chess.KNIGHT: _table(lambda r, f: 4 * _CENTER[r][f] - 14),
    chess.BISHOP: _table(lambda r, f: 2 * _CENTER[r][f] - 6),
    chess.ROOK: _table(lambda r, f: 6 if r == 6 else 0),
    chess.QUEEN: _table(lambda r, f: _CENTER[r][f] - 3),
    # Kings stay home in bughouse: every open square near them invites a drop.
    chess.KING: _table(lambda r, f: (12 if f in (1, 2, 6) else 0) if r == 0 else -18 * r),
}

# Weight of one drop-check square per piece type the enemy could drop.
_CHECK_SQUARE_WEIGHT = (0, 6, 12, 6, 7, 9, 0)
# How much a piece type the enemy does not hold yet still counts (it may arrive).
_NOT_HELD_FACTOR = 0.3


@dataclass
class Stakes:
    """What passing a piece to the other board is worth, per colour and piece type.

    ``gift[color][piece_type]`` is the value, for ``color``'s team, of
    ``color`` capturing a piece of that type on this board (so that it goes
    to ``color``'s partner). It starts at a share of the piece's value and is
    raised by what the other board needs (a piece that mates there) and by
    the partner's requests (``++n``, ``--q``).
    """

    gift: list[list[float]] = field(
        default_factory=lambda: [[GIFT_SHARE * v for v in VALUE] for _ in range(2)]
    )

    def raise_gift(self, color: chess.Color, piece_type: chess.PieceType, value: float) -> None:
        """Makes passing ``piece_type`` worth at least ``value`` to ``color``'s team."""
        self.gift[color][piece_type] = max(self.gift[color][piece_type], value)


NEUTRAL_STAKES = Stakes()


def _layers(table: tuple[int, ...], color: chess.Color) -> tuple[tuple[int, int], ...]:
    """A placement table as (mask, bonus) layers: one popcount per distinct bonus."""
    flip = 0 if color == chess.WHITE else 56
    masks: dict[int, int] = {}
    for square in chess.SQUARES:
        bonus = table[square ^ flip]
        if bonus:
            masks[bonus] = masks.get(bonus, 0) | chess.BB_SQUARES[square]
    return tuple((mask, bonus) for bonus, mask in masks.items())


_LAYERS = {
    color: {piece_type: _layers(table, color) for piece_type, table in _PLACEMENT.items()}
    for color in chess.COLORS
}


def material(board: BugBoard, color: chess.Color) -> int:
    """Board and pocket material of ``color``."""
    mask = board.occupied_co[color]
    counts = board.pockets[color]._pieces
    popcount = chess.popcount
    return (
        popcount(board.pawns & mask) * VALUE[1]
        + popcount(board.knights & mask) * VALUE[2]
        + popcount(board.bishops & mask) * VALUE[3]
        + popcount(board.rooks & mask) * VALUE[4]
        + popcount(board.queens & mask) * VALUE[5]
        + counts[1] * POCKET_VALUE[1]
        + counts[2] * POCKET_VALUE[2]
        + counts[3] * POCKET_VALUE[3]
        + counts[4] * POCKET_VALUE[4]
        + counts[5] * POCKET_VALUE[5]
    )


def placement(board: BugBoard, color: chess.Color) -> int:
    """Piece-square bonus of ``color``."""
    mask = board.occupied_co[color]
    popcount = chess.popcount
    layers = _LAYERS[color]
    total = 0
    for piece_type, pieces in (
        (chess.PAWN, board.pawns),
        (chess.KNIGHT, board.knights),
        (chess.BISHOP, board.bishops),
        (chess.ROOK, board.rooks),
        (chess.QUEEN, board.queens),
        (chess.KING, board.kings),
    ):
        own = pieces & mask
        if own:
            for layer, bonus in layers[piece_type]:
                if own & layer:
                    total += popcount(own & layer) * bonus
    return total


def king_danger(board: BugBoard, color: chess.Color) -> int:
    """How exposed ``color``'s king is to drops, weighted by what the enemy holds."""
    king = board.king(color)
    if king is None:
        return 0
    enemy = not color
    occupied = board.occupied
    empty = ~occupied & chess.BB_ALL
    held = board.pockets[enemy]._pieces
    pressure = [1.0 + 0.5 * min(n - 1, 2) if n else _NOT_HELD_FACTOR for n in held]

    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied] & empty
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    ) & empty
    knight = chess.BB_KNIGHT_ATTACKS[king] & empty
    pawn = chess.BB_PAWN_ATTACKS[color][king] & empty & ~chess.BB_BACKRANKS
    around = chess.BB_KING_ATTACKS[king]
    # Own pieces that guard the squares next to the king make contact drops fail.
    guarded = chess.popcount(around & board.occupied_co[color])

    danger = (
        chess.popcount(knight) * _CHECK_SQUARE_WEIGHT[chess.KNIGHT] * pressure[chess.KNIGHT]
        + chess.popcount(pawn) * _CHECK_SQUARE_WEIGHT[chess.PAWN] * pressure[chess.PAWN]
        + chess.popcount(diagonal) * _CHECK_SQUARE_WEIGHT[chess.BISHOP] * pressure[chess.BISHOP]
        + chess.popcount(straight) * _CHECK_SQUARE_WEIGHT[chess.ROOK] * pressure[chess.ROOK]
        + chess.popcount((diagonal | straight) & around)
        * _CHECK_SQUARE_WEIGHT[chess.QUEEN]
        * pressure[chess.QUEEN]
    )
    # Enemy pieces already close to the king multiply the danger.
    near = chess.BB_KING_ATTACKS[king] | chess.BB_KNIGHT_ATTACKS[king]
    attackers = chess.popcount(near & board.occupied_co[enemy] & ~board.pawns)
    danger *= 1.0 + 0.25 * attackers
    danger -= 8 * guarded
    if danger <= 0:
        return 0
    # Small exposure is harmless; a wide-open king with pieces in the enemy's hand is lost.
    return int(danger + danger * danger / 250)


def passing(board: BugBoard, color: chess.Color, stakes: Stakes) -> float:
    """Value for ``color``'s team of what ``color`` has passed in this search line."""
    counts = board.passed[color]
    gift = stakes.gift[color]
    return sum(counts[pt] * gift[pt] for pt in (1, 2, 3, 4, 5) if counts[pt])


def evaluate(board: BugBoard, stakes: Stakes = NEUTRAL_STAKES) -> int:
    """The position's value for the side to move, in centipawns."""
    us = board.turn
    them = not us
    score = (
        material(board, us)
        - material(board, them)
        + placement(board, us)
        - placement(board, them)
        - king_danger(board, us)
        + king_danger(board, them)
        + passing(board, us, stakes)
        - passing(board, them, stakes)
    )
    return int(score) + 10  # the move is worth a little
