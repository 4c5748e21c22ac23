"""The searcher's own bughouse board: captures leave the board for the partner.

python-chess's ``CrazyhouseBoard`` puts a captured piece into the capturer's
pocket; in bughouse it goes to the capturer's partner on the other board. This
board keeps, for the search, a count of what each side has passed so far
(``passed[color][piece_type]``), so the evaluation can price what a capture
hands to the other board. It also judges the end of a line the way the
arbiter does: a check that a dropped piece could block is not mate, and a side
without a legal move waits.
"""

from __future__ import annotations

import enum

import chess
import chess.variant

PIECE_LETTERS = "pnbrq"
DROPPABLE = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


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
        super().__init__(fen, chess960=chess960)

    def push(self, move: chess.Move) -> None:
        self._captured.append(None)
        super().push(move)

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
        return super().pop()

    def clear_stack(self) -> None:
        super().clear_stack()
        self._captured.clear()
        self.passed = [[0] * 7, [0] * 7]

    def copy(self, *, stack: bool | int = True) -> BugBoard:  # type: ignore[override]
        board = super().copy(stack=False)
        board.passed = [[0] * 7, [0] * 7]
        board._captured = []
        return board

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
        return Situation.MUST_WAIT if self.drop_could_block() else Situation.MATED

    def drop_could_block(self) -> bool:
        """True if one sliding checker stands at a distance (a drop could block it)."""
        king = self.king(self.turn)
        if king is None:
            return False
        checkers = self.attackers_mask(not self.turn, king)
        if chess.popcount(checkers) != 1:
            return False
        return bool(chess.between(king, chess.msb(checkers)))

    def is_mate_now(self) -> bool:
        """True if the side to move is checkmated under the wait-for-block rule."""
        if not self.is_check() or any(self.generate_legal_moves()):
            return False
        return not self.drop_could_block()


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
