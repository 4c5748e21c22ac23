"""The searcher's own bughouse board: captures leave the board for the partner.

python-chess's ``CrazyhouseBoard`` puts a captured piece into the capturer's
pocket; in bughouse it goes to the capturer's partner on the other board. This
board keeps, for the search, a count of what each side has passed so far
(``passed[color][piece_type]``), so the evaluation can price what a capture
hands to the other board. It also judges the end of a line the way the
arbiter does: a check that a dropped piece could block is not mate, and a side
without a legal move waits.

House rules (the ``rules`` line, protocol.md §5.5) that change which moves are
legal or what ends a line live in ``BugRules``, shared by every copy of a board:
``drop_check`` (no drop may check, or mate), ``dropped_pawn_double_step=off``
(the board tracks its dropped second-rank pawns, ``no_double``),
``wait_for_block`` and whether pieces can still arrive (under
``board_end=continue`` nothing comes once the other board is over, so a check a
drop could block is mate).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

import chess
import chess.variant

PIECE_LETTERS = "pnbrq"
DROPPABLE = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)
_SECOND_RANK = {chess.WHITE: chess.BB_RANK_2, chess.BLACK: chess.BB_RANK_7}


@dataclass
class BugRules:
    """The house rules the board's moves and ends follow (protocol.md §5.5)."""

    drop_check: str = "allowed"  # "allowed", "no-check" or "no-mate"
    double_step: bool = True  # may a pawn dropped on its 2nd rank double-step?
    wait_for_block: bool = True
    # False once no piece can arrive any more (board_end=continue, other board over).
    arrivals: bool = True

    @classmethod
    def from_pairs(cls, pairs: dict[str, str]) -> BugRules:
        """Reads the ``name=value`` pairs of a ``rules`` line (unknown names ignored)."""
        return cls(
            drop_check=pairs.get("drop_check", "allowed").lower(),
            double_step=pairs.get("dropped_pawn_double_step", "on").lower() != "off",
            wait_for_block=pairs.get("wait_for_block", "on").lower() != "off",
        )

    @property
    def restricts_drops(self) -> bool:
        return self.drop_check in ("no-check", "no-mate")


DEFAULT_RULES = BugRules()


class Situation(enum.Enum):
    """What the side to move faces (no legal move ends nothing in bughouse but mate)."""

    PLAYING = "playing"
    MATED = "mated"
    # In check, no legal move, but a dropped piece could block: wait for one.
    MUST_WAIT = "must_wait"
    # No legal move and not in check: wait too (no stalemate in bughouse).
    STUCK = "stuck"


class BugBoard(chess.variant.CrazyhouseBoard):
    """A crazyhouse board whose captures are passed on, not pocketed."""

    def __init__(
        self,
        fen: str | None = chess.variant.CrazyhouseBoard.starting_fen,
        chess960: bool = False,
    ) -> None:
        self.passed = [[0] * 7, [0] * 7]
        self._captured: list[tuple[chess.Color, chess.PieceType] | None] = []
        self.rules = DEFAULT_RULES
        # Pawns dropped on their own 2nd rank that have not moved (only kept
        # under dropped_pawn_double_step=off: they may not double-step).
        self.no_double: chess.Bitboard = chess.BB_EMPTY
        self._no_double_stack: list[chess.Bitboard] = []
        self._judging = False
        super().__init__(fen, chess960=chess960)

    def push(self, move: chess.Move) -> None:
        self._captured.append(None)
        if self.rules.double_step:
            super().push(move)
            return
        self._no_double_stack.append(self.no_double)
        mover = self.turn
        super().push(move)
        kept = self.no_double & self.pawns
        kept &= ~chess.BB_SQUARES[move.from_square] & ~chess.BB_SQUARES[move.to_square]
        if move.drop == chess.PAWN and chess.BB_SQUARES[move.to_square] & _SECOND_RANK[mover]:
            kept |= chess.BB_SQUARES[move.to_square]
        self.no_double = kept

    def _push_capture(
        self,
        move: chess.Move,
        capture_square: chess.Square,
        piece_type: chess.PieceType,
        was_promoted: bool,
    ) -> None:
        passed_type = chess.PAWN if was_promoted else piece_type
        # self.turn is still the capturer here.
        self.passed[self.turn][passed_type] += 1
        self._captured[-1] = (self.turn, passed_type)

    def pop(self) -> chess.Move:
        captured = self._captured.pop()
        if captured is not None:
            self.passed[captured[0]][captured[1]] -= 1
        if self._no_double_stack:
            self.no_double = self._no_double_stack.pop()
        return super().pop()

    def clear_stack(self) -> None:
        super().clear_stack()
        self._captured.clear()
        self._no_double_stack.clear()
        self.passed = [[0] * 7, [0] * 7]

    def copy(self, *, stack: bool | int = True) -> BugBoard:  # type: ignore[override]
        board = super().copy(stack=False)
        board.passed = [[0] * 7, [0] * 7]
        board._captured = []
        board.rules = self.rules
        board.no_double = self.no_double
        board._no_double_stack = []
        return board

    # -- house rules on legality -------------------------------------------------

    def generate_pseudo_legal_moves(
        self, from_mask: chess.Bitboard = chess.BB_ALL, to_mask: chess.Bitboard = chess.BB_ALL
    ) -> Iterator[chess.Move]:
        moves = super().generate_pseudo_legal_moves(from_mask, to_mask)
        if not self.no_double:
            return moves
        return self._without_double_steps(moves)

    def _without_double_steps(self, moves: Iterator[chess.Move]) -> Iterator[chess.Move]:
        for move in moves:
            if (
                chess.BB_SQUARES[move.from_square] & self.no_double
                and abs(move.to_square - move.from_square) == 16
            ):
                continue
            yield move

    def generate_legal_drops(self, to_mask: chess.Bitboard = chess.BB_ALL) -> Iterator[chess.Move]:
        drops = super().generate_legal_drops(to_mask)
        if not self.rules.restricts_drops or self._judging:
            return drops
        return (move for move in drops if self.drop_allowed(move))

    def is_legal(self, move: chess.Move) -> bool:
        if move.drop and self.rules.restricts_drops and not self._judging:
            return super().is_legal(move) and self.drop_allowed(move)
        return super().is_legal(move)

    def drop_allowed(self, move: chess.Move) -> bool:
        """False if the ``drop_check`` rule forbids this (otherwise legal) drop."""
        if self.rules.drop_check == "allowed" or not self.gives_check(move):
            return True
        if self.rules.drop_check == "no-check":
            return False
        # no-mate: judge the reply as the arbiter does, with the rule off for it.
        self._judging = True
        self._captured.append(None)
        chess.variant.CrazyhouseBoard.push(self, move)
        try:
            return not self.is_mate_now()
        finally:
            chess.variant.CrazyhouseBoard.pop(self)
            self._captured.pop()
            self._judging = False

    def key(self) -> tuple[object, ...]:
        """A cheap transposition key: pieces, side to move, rights and pockets."""
        return (
            self.pawns,
            self.knights,
            self.bishops,
            self.rooks,
            self.queens,
            self.kings,
            self.occupied_co[chess.WHITE],
            self.promoted,
            self.turn,
            self.castling_rights,
            self.ep_square,
            tuple(self.pockets[chess.WHITE]._pieces),
            tuple(self.pockets[chess.BLACK]._pieces),
            self.no_double,
        )

    def situation(self) -> Situation:
        """Judges the side to move as the arbiter does (wait-for-block rule)."""
        if any(self.generate_legal_moves()):
            return Situation.PLAYING
        return self.situation_without_moves()

    def situation_without_moves(self) -> Situation:
        """The situation when it is already known that no legal move exists."""
        if not self.is_check():
            return Situation.STUCK
        return Situation.MUST_WAIT if self.waits_for_block() else Situation.MATED

    def waits_for_block(self) -> bool:
        """True if a check without legal reply is not mate under the rules in force."""
        rules = self.rules
        return rules.wait_for_block and rules.arrivals and self.drop_could_block()

    def drop_could_block(self) -> bool:
        """True if a dropped piece could block the check: one sliding checker at a
        distance, and (under a ``drop_check`` rule) a drop between that the rule allows."""
        king = self.king(self.turn)
        if king is None:
            return False
        checkers = self.attackers_mask(not self.turn, king)
        if chess.popcount(checkers) != 1:
            return False
        if not chess.between(king, chess.msb(checkers)) & ~self.occupied:
            return False
        if not self.rules.restricts_drops:
            return True
        pocket = self.pockets[self.turn]
        saved = pocket.copy()
        for piece_type in DROPPABLE:
            pocket.add(piece_type)
        try:
            return any(self.generate_legal_drops())
        finally:
            self.pockets[self.turn] = saved

    def is_mate_now(self) -> bool:
        """True if the side to move is checkmated under the rules in force."""
        if not self.is_check() or any(self.generate_legal_moves()):
            return False
        return not self.waits_for_block()


def mating_move(board: BugBoard, only_drop: chess.PieceType | None = None) -> chess.Move | None:
    """A move that mates at once (drops of ``only_drop`` alone if given), or None."""
    if only_drop is None:
        moves = list(board.generate_legal_moves())
    else:
        moves = list(board.generate_legal_drops())
        moves = [m for m in moves if m.drop == only_drop]
    for move in moves:
        if not board.gives_check(move):
            continue
        board.push(move)
        try:
            if board.is_mate_now():
                return move
        finally:
            board.pop()
    return None


def with_piece(board: BugBoard, color: chess.Color, piece_type: chess.PieceType) -> BugBoard:
    """A copy of the board, ``color`` to move, with one more ``piece_type`` in hand.

    Used to ask "what if this side got that piece": the side not to move is
    given the move (and the en-passant square is dropped) when needed.
    """
    copy = board.copy(stack=False)
    if copy.turn != color:
        copy.turn = color
        copy.ep_square = None
    copy.pockets[color].add(piece_type)
    return copy


def can_be_given_move(board: BugBoard, color: chess.Color) -> bool:
    """False when handing ``color`` the move would let it take the enemy king."""
    if board.turn == color:
        return True
    king = board.king(not color)
    return king is not None and not board.is_attacked_by(color, king)


def mates_with(board: BugBoard, color: chess.Color) -> frozenset[chess.PieceType]:
    """The piece types that would give ``color`` a mate by dropping them now."""
    if not can_be_given_move(board, color):
        return frozenset()
    found = set()
    for piece_type in DROPPABLE:
        trial = with_piece(board, color, piece_type)
        if mating_move(trial, only_drop=piece_type) is not None:
            found.add(piece_type)
    return frozenset(found)


def has_mate_in_one(board: BugBoard, color: chess.Color) -> bool:
    """True if ``color``, given the move, could mate at once with what it holds."""
    if not can_be_given_move(board, color):
        return False
    trial = board.copy(stack=False)
    if trial.turn != color:
        trial.turn = color
        trial.ep_square = None
    return mating_move(trial) is not None


def parse_move(board: BugBoard, text: str) -> chess.Move:
    """Reads a UCI move (drops in either case); raises ValueError if not legal."""
    if len(text) >= 4 and text[1] == "@":
        text = text[0].upper() + text[1:]
    move = chess.Move.from_uci(text)
    if not board.is_legal(move):
        raise ValueError(f"illegal move {text} in {board.fen()}")
    return move


def piece_of_letter(letter: str) -> chess.Piece:
    """A FEN piece letter (case gives the colour) as a piece; ValueError if unknown."""
    if len(letter) != 1 or letter.lower() not in PIECE_LETTERS + "k":
        raise ValueError(f"not a piece letter: {letter!r}")
    return chess.Piece.from_symbol(letter)
