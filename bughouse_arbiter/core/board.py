"""One bughouse board: crazyhouse move generation, captures passed to the partner.

``BughouseBoard`` is python-chess's ``CrazyhouseBoard`` with the overrides
bughouse needs: a capture goes to no pocket on this board (the
match hands ``last_passed`` to the partner board), game end follows docs/rules.md
(the wait-for-block mate rule, no stalemate, no material ends, repetition
only under the house rule),
pockets never hold a king, and piece counts above the chess maximum are valid.
House rules that need state a FEN cannot carry (a dropped pawn's double step,
a dropped rook's castling, which drops may check) live here too.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from typing import ClassVar

import chess
import chess.variant

from ..errors import MoveError, PositionError
from .rules import HouseRules

STARTING_FEN = chess.variant.CrazyhouseBoard.starting_fen
POCKET_LETTERS = frozenset("PNBRQpnbrq")

_DEFAULT_RULES = HouseRules()
_TOO_MANY = (
    chess.STATUS_TOO_MANY_WHITE_PAWNS
    | chess.STATUS_TOO_MANY_BLACK_PAWNS
    | chess.STATUS_TOO_MANY_WHITE_PIECES
    | chess.STATUS_TOO_MANY_BLACK_PIECES
)
_CORNERS_OF = {chess.WHITE: chess.BB_A1 | chess.BB_H1, chess.BLACK: chess.BB_A8 | chess.BB_H8}
_KING_HOME = {chess.WHITE: chess.E1, chess.BLACK: chess.E8}
_SECOND_RANK = {chess.WHITE: chess.BB_RANK_2, chess.BLACK: chess.BB_RANK_7}
_ALL_DROPPABLE = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
_UCI_ANY_CASE = re.compile(r"^[a-hA-H][1-8][a-hA-H][1-8][qrbnQRBN]?$")
_STATUS_PROBLEMS = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "white has no king"),
    (chess.STATUS_NO_BLACK_KING, "black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on rank 1 or 8"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the king is attacked by more than two pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "a castling right has no king or rook at home"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en passant square has no pawn that just double-stepped"),
)


class BoardStatus(enum.Enum):
    """The side to move's situation on one board (docs/rules.md, "Game end")."""

    OK = "ok"
    CHECKMATE = "checkmate"
    MUST_WAIT = "must_wait"
    STALEMATE_WAIT = "stalemate_wait"
    STALEMATE_DRAW = "stalemate_draw"

    @property
    def waiting(self) -> bool:
        """True when the side to move has no move now but the game goes on."""
        return self in (BoardStatus.MUST_WAIT, BoardStatus.STALEMATE_WAIT)


class BughouseBoard(chess.variant.CrazyhouseBoard):
    """A crazyhouse board whose captures leave the board for the partner.

    After ``push``, ``last_passed`` is the piece the move captured (a promoted
    piece as a pawn, colour kept) or None; the match adds it to the partner
    board with ``receive``. Pieces that arrive that way are outside the move
    stack: never ``pop`` a move made before an arrival. Set ``rules`` before
    the first move.
    """

    aliases: ClassVar[list[str]] = ["Bughouse"]
    uci_variant = "bughouse"
    xboard_variant = "bughouse"

    def __init__(
        self,
        fen: str | None = STARTING_FEN,
        *,
        rules: HouseRules = _DEFAULT_RULES,
        chess960: bool = False,
    ) -> None:
        self._rules = rules
        self._set_flags(rules)
        self.last_passed: chess.Piece | None = None
        # last_passed before each move on the stack, so that a pop (python-chess's
        # san() and the no-mate drop test push and pop) gives back the capture of
        # the move that is then last.
        self._passed_stack: list[chess.Piece | None] = []
        # Pawns dropped on their own 2nd rank that have not moved; tracked only
        # when such pawns may not double-step.
        self.dropped_pawns: chess.Bitboard = chess.BB_EMPTY
        # Colours whose king has moved (bit 1 = white, bit 2 = black); tracked
        # only when a dropped corner rook may castle.
        self.kings_moved = 0
        # (dropped_pawns, kings_moved) before each move; kept only while a
        # rule needs that history, so the default rules add nothing per move.
        self._bughouse_stack: list[tuple[chess.Bitboard, int]] = []
        self._judging_drop = False
        # Transposition keys seen after each move; kept only under repetition=threefold,
        # because python-chess's own replay would lose pieces that arrived between moves.
        self._seen: dict[object, int] = {}
        super().__init__(fen, chess960=chess960)

    @property
    def rules(self) -> HouseRules:
        """The house rules this board is judged by."""
        return self._rules

    @rules.setter
    def rules(self, rules: HouseRules) -> None:
        self._rules = rules
        self._set_flags(rules)

    def _set_flags(self, rules: HouseRules) -> None:
        # Read on every push, pop and drop generation: plain booleans keep the
        # default rules as cheap as CrazyhouseBoard. (Few attributes on
        # purpose: past 30, CPython stops sharing instance-dict keys and every
        # attribute read of python-chess gets slower.)
        self._tracks_history = (
            not rules.dropped_pawn_double_step
            or rules.dropped_rook_castles
            or rules.repetition == "threefold"
        )
        self._filter_drops = rules.drop_check != "allowed"

    # -- FEN ---------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Reads a FEN with ``[pocket]`` (or a 9th pocket rank) and ``~`` marks."""
        parts = fen.split(None, 1)
        if not parts:
            raise PositionError("empty FEN")
        position = parts[0]
        pocket = ""
        if "[" in position:
            if not position.endswith("]") or position.count("[") != 1:
                raise PositionError(f"pocket must be written [..] at the end of the board: {fen!r}")
            pocket = position[position.index("[") + 1 : -1]
        elif position.count("/") == 8:
            pocket = position.rsplit("/", 1)[1]
        bad = sorted({c for c in pocket if c not in POCKET_LETTERS})
        if bad:
            what = "a king" if set(bad) <= {"K", "k"} else f"{''.join(bad)!r}"
            raise PositionError(f"a pocket cannot hold {what}: {fen!r}")
        _check_rows(position.split("[", 1)[0].split("/")[:8], fen)
        if len(parts) == 1:
            fen = f"{fen} w - - 0 1"
        try:
            super().set_fen(fen)
        except ValueError as exc:
            why = re.sub(r":\s*'.*'$", "", str(exc))
            raise PositionError(f"bad FEN {fen!r}: {why}") from None
        self._restart_tracking()

    def reset(self) -> None:
        super().reset()
        self._restart_tracking()

    def clear(self) -> None:
        super().clear()
        self._restart_tracking()

    def _restart_tracking(self) -> None:
        """Forgets the history a FEN cannot carry: the position is a new start."""
        self.last_passed = None
        self._passed_stack = []
        self.dropped_pawns = chess.BB_EMPTY
        self.kings_moved = self._kings_moved_from_rights()
        self._bughouse_stack = []
        self._seen = {}
        if self._rules.repetition == "threefold":
            self._seen[self._transposition_key()] = 1

    def _kings_moved_from_rights(self) -> int:
        # A FEN cannot say whether a king has moved; a king at home with a
        # castling right on its side is taken as unmoved.
        moved = 0
        rights = self.clean_castling_rights()
        for color, bit in ((chess.WHITE, 1), (chess.BLACK, 2)):
            home = self.king(color) == _KING_HOME[color]
            if not (home and rights & _CORNERS_OF[color]):
                moved |= bit
        return moved

    def check_valid(self) -> None:
        """Raises PositionError naming what makes this position impossible to play
        (a missing or extra king, a pawn on rank 1 or 8, the side not to move in
        check, castling rights or an en passant square the board contradicts).

        Piece counts above the chess maximum are fine: pieces arrive from the
        partner board.
        """
        status = self.status()
        for flag, what in _STATUS_PROBLEMS:
            if status & flag:
                raise PositionError(what)

    # -- moves ---------------------------------------------------------------

    def push(self, move: chess.Move) -> None:
        self._passed_stack.append(self.last_passed)
        self.last_passed = None
        if not self._tracks_history:
            super().push(move)
            return
        self._bughouse_stack.append((self.dropped_pawns, self.kings_moved))
        mover = self.turn
        king_before = self.king(mover)
        super().push(move)
        rules = self._rules
        if not rules.dropped_pawn_double_step:
            self._track_dropped_pawns(move, mover)
        if rules.dropped_rook_castles:
            self._track_castling(move, mover, king_before)
        if rules.repetition == "threefold":
            key = self._transposition_key()
            self._seen[key] = self._seen.get(key, 0) + 1

    def _track_dropped_pawns(self, move: chess.Move, mover: chess.Color) -> None:
        dropped = self.dropped_pawns & self.pawns
        dropped &= ~chess.BB_SQUARES[move.from_square] & ~chess.BB_SQUARES[move.to_square]
        if move.drop == chess.PAWN and chess.BB_SQUARES[move.to_square] & _SECOND_RANK[mover]:
            dropped |= chess.BB_SQUARES[move.to_square]
        self.dropped_pawns = dropped

    def _track_castling(
        self, move: chess.Move, mover: chess.Color, king_before: chess.Square | None
    ) -> None:
        bit = 1 if mover else 2
        if self.king(mover) != king_before:
            self.kings_moved |= bit
        elif (
            move.drop == chess.ROOK
            and not self.kings_moved & bit
            and chess.BB_SQUARES[move.to_square] & _CORNERS_OF[mover]
        ):
            # Possible only because clean_castling_rights() trusts the field
            # once the move stack is non-empty.
            self.castling_rights |= chess.BB_SQUARES[move.to_square]

    def _push_capture(
        self,
        move: chess.Move,
        capture_square: chess.Square,
        piece_type: chess.PieceType,
        was_promoted: bool,
    ) -> None:
        # self.turn is still the capturer here; the captured piece keeps its colour.
        self.last_passed = chess.Piece(chess.PAWN if was_promoted else piece_type, not self.turn)

    def pop(self) -> chess.Move:
        """Takes back the last move; ``last_passed`` is again what the move before it captured."""
        if not self._tracks_history:
            move = super().pop()
            self.last_passed = self._passed_stack.pop()
            return move
        if self._rules.repetition == "threefold":
            self._seen[self._transposition_key()] -= 1
        move = super().pop()
        self.last_passed = self._passed_stack.pop()
        self.dropped_pawns, self.kings_moved = self._bughouse_stack.pop()
        return move

    def clear_stack(self) -> None:
        super().clear_stack()
        self._bughouse_stack.clear()
        self._passed_stack.clear()

    def receive(self, piece: chess.Piece) -> None:
        """Adds a piece passed from the partner board to ``piece.color``'s pocket."""
        if piece.piece_type == chess.KING:
            raise PositionError("a king cannot be passed")
        self.pockets[piece.color].add(piece.piece_type)

    def generate_pseudo_legal_moves(
        self, from_mask: chess.Bitboard = chess.BB_ALL, to_mask: chess.Bitboard = chess.BB_ALL
    ) -> Iterator[chess.Move]:
        moves = super().generate_pseudo_legal_moves(from_mask, to_mask)
        if not self.dropped_pawns:
            return moves
        return self._without_dropped_double_steps(moves)

    def _without_dropped_double_steps(self, moves: Iterator[chess.Move]) -> Iterator[chess.Move]:
        for move in moves:
            if (
                chess.BB_SQUARES[move.from_square] & self.dropped_pawns
                and abs(move.to_square - move.from_square) == 16
            ):
                continue
            yield move

    def generate_legal_moves(
        self, from_mask: chess.Bitboard = chess.BB_ALL, to_mask: chess.Bitboard = chess.BB_ALL
    ) -> Iterator[chess.Move]:
        # SAN asks this for every piece move: "which other pieces of this type
        # could go to this square too?". Mostly none of them even attacks it,
        # which one attackers_mask tells, without generating moves. Exact: a
        # knight's, bishop's, rook's or queen's move goes only to a square it
        # attacks and does not hold a piece of its own side; pawns, kings
        # (castling) and drops (``from_mask & to_mask``) are left to the full
        # generation.
        if to_mask and not to_mask & (to_mask - 1) and not from_mask & to_mask:
            own = self.occupied_co[self.turn]
            pieces = from_mask & own
            target = to_mask.bit_length() - 1
            if not pieces & (self.pawns | self.kings) and (
                to_mask & own or not self.attackers_mask(self.turn, target) & pieces
            ):
                return iter(())
        return super().generate_legal_moves(from_mask, to_mask)

    def generate_legal_drops(self, to_mask: chess.Bitboard = chess.BB_ALL) -> Iterator[chess.Move]:
        # python-chess chains the drops after the other moves but works out
        # their squares when the chain is made: here only when they are
        # reached (``any(legal_moves)``, ``parse_san`` rarely get there).
        if not to_mask:
            return iter(())
        return self._legal_drops(to_mask, self._filter_drops and not self._judging_drop)

    def _legal_drops(self, to_mask: chess.Bitboard, filtered: bool) -> Iterator[chess.Move]:
        drops = super().generate_legal_drops(to_mask)
        if filtered:
            drops = (move for move in drops if self._drop_check_allowed(move))
        yield from drops

    def is_legal(self, move: chess.Move) -> bool:
        if move.drop and self._filter_drops and not self._judging_drop:
            return super().is_legal(move) and self._drop_check_allowed(move)
        return super().is_legal(move)

    def _drop_check_allowed(self, move: chess.Move) -> bool:
        if self.rules.drop_check == "no-check":
            return not self.gives_check(move)
        # no-mate: judge the reply without the rule, so the test cannot recurse.
        self._judging_drop = True
        self.push(move)
        try:
            return not self.is_checkmate()
        finally:
            self.pop()
            self._judging_drop = False

    # -- game end ------------------------------------------------------------

    def could_block_by_drop(self) -> bool:
        """True if a piece dropped from a full pocket would be a legal move.

        This is docs/rules.md's test for "a check that a dropped piece could block":
        exactly one sliding checker with an empty square between it and the king
        (and, under a ``drop_check`` restriction, a drop there that the rule
        allows). Whether a blocking piece could ever arrive is not asked, as
        no bughouse server or rule text asks it either.
        """
        king = self.king(self.turn)
        if king is None:
            return False
        checkers = self.attackers_mask(not self.turn, king)
        if chess.popcount(checkers) != 1:
            return False
        if not chess.between(king, chess.msb(checkers)) & ~self.occupied:
            return False
        if self.rules.drop_check == "allowed":
            return True
        return self._full_pocket_has_drop()

    def _full_pocket_has_drop(self) -> bool:
        pocket = self.pockets[self.turn]
        saved = pocket.copy()
        for piece_type in _ALL_DROPPABLE:
            pocket.add(piece_type)
        try:
            return any(self.generate_legal_drops())
        finally:
            self.pockets[self.turn] = saved

    def is_checkmate(self) -> bool:
        """Mate as docs/rules.md judges it: no legal move, and (under
        ``wait_for_block``) no drop could ever interpose."""
        if not self.is_check() or any(self.generate_legal_moves()):
            return False
        return not (self.rules.wait_for_block and self.could_block_by_drop())

    def status_of_side_to_move(self) -> BoardStatus:
        """``ok``, ``checkmate``, ``must_wait``, ``stalemate_wait`` or ``stalemate_draw``."""
        if self._surely_can_move() or any(self.generate_legal_moves()):
            return BoardStatus.OK
        if self.is_check():
            if self.rules.wait_for_block and self.could_block_by_drop():
                return BoardStatus.MUST_WAIT
            return BoardStatus.CHECKMATE
        if self.rules.stalemate == "draw":
            return BoardStatus.STALEMATE_DRAW
        return BoardStatus.STALEMATE_WAIT

    def _surely_can_move(self) -> bool:
        """A cheap sufficient test for "the side to move has a legal move".

        In check: True when the king has a step to a square no enemy piece
        attacks (with the king gone from its square, so a slider's line runs
        on through it). Not in check: True when it either has a pawn off its
        king's rank and diagonals (so pinned, if at all, along the file) with
        an empty square ahead, or holds a piece it can drop (no drop rule
        filtering drops; a pawn needs an empty square on ranks 2 to 7), or
        has a piece other than its king, not pinned, with a knight's or
        slider's move to a square it does not occupy, or a pawn step to an
        empty square: all legal when not in check. False means "not known":
        the caller generates the moves. True after most moves, at a fraction
        of the cost of generating them.
        """
        turn = self.turn
        own = self.occupied_co[turn]
        kings = self.kings & own & ~self.promoted  # as ``king()``, inline
        if not kings:
            return False
        king = kings.bit_length() - 1  # chess.msb, inline
        if self.attackers_mask(not turn, king):
            without_king = self.occupied & ~kings
            steps = chess.BB_KING_ATTACKS[king] & ~own
            return any(
                not self.attackers_mask(not turn, square, without_king)
                for square in chess.scan_forward(steps)
            )
        empty = ~self.occupied & chess.BB_ALL
        pawns = self.pawns & own & ~_RANK_AND_DIAGONALS[king]
        if (pawns << 8 if turn else pawns >> 8) & empty:
            return True
        if not self._filter_drops and empty:
            pocket = self.pockets[turn]
            held = len(pocket)
            if held and (
                held > pocket.count(chess.PAWN) or empty & ~(chess.BB_RANK_1 | chess.BB_RANK_8)
            ):
                return True
        free = own & ~self.kings & ~self._slider_blockers(king)
        if not free:
            return False
        pawns = self.pawns & free
        if (pawns << 8 if turn else pawns >> 8) & empty:
            return True
        target = ~own & chess.BB_ALL
        pieces = (self.knights | self.bishops | self.rooks | self.queens) & free
        return any(self.attacks_mask(square) & target for square in chess.scan_forward(pieces))

    def outcome(self, *, claim_draw: bool = False) -> chess.Outcome | None:
        """Only checkmate ends a single bughouse board; the match judges the rest."""
        if self.is_checkmate():
            return chess.Outcome(chess.Termination.CHECKMATE, not self.turn)
        return None

    def has_insufficient_material(self, color: chess.Color) -> bool:
        return False

    def status(self) -> chess.Status:
        # Pieces arrive from the partner board, so a side may hold more than 16.
        return chess.Board.status(self) & ~_TOO_MANY

    def is_repetition(self, count: int = 3) -> bool:
        """The current position (pieces, side to move, castling, en passant and
        both pockets) was reached ``count`` times on this board.

        Counted only under ``repetition=threefold``; otherwise always False.
        """
        return self._seen.get(self._transposition_key(), 0) >= count

    def parse_san(self, san: str) -> chess.Move:
        """python-chess's ``parse_san`` (the same grammar, moves and errors),
        with a short path for the usual move.

        python-chess generates the legal moves that could match; here the
        pieces that could make the move are found from the target square's
        attack tables and each is checked with python-chess's own tests (its
        evasion rules in check, its pin test). Anything else (castling,
        drops, en passant, a fully specified origin, a king that could
        castle, no single legal candidate: an error to report) goes to
        python-chess.
        """
        match = _SAN.match(san)
        if match is not None:
            move = self._plain_san(*match.groups())
            if move is not None:
                return move
        return super().parse_san(san)

    def _plain_san(
        self,
        piece: str | None,
        file: str | None,
        rank: str | None,
        target: str,
        promotion_text: str | None,
    ) -> chess.Move | None:
        """The one legal move a plain SAN names, or None: not known here."""
        turn = self.turn
        own = self.occupied_co[turn]
        to_square = _SQUARE_OF[target]
        to_bb = chess.BB_SQUARES[to_square]
        kings = self.kings & own
        if to_bb & own or not kings or kings & (kings - 1):
            return None
        king = kings.bit_length() - 1
        checkers = self.attackers_mask(not turn, king)
        occupied = self.occupied
        from_mask = chess.BB_ALL
        if file is not None:
            from_mask = chess.BB_FILES[ord(file) - 97]
        if rank is not None:
            from_mask &= chess.BB_RANKS[ord(rank) - 49]
        promotion: chess.PieceType | None = None
        if piece is not None:
            if promotion_text is not None:
                return None
            piece_type = _PIECE_OF[piece]
            if piece_type == chess.KNIGHT:
                sources = chess.BB_KNIGHT_ATTACKS[to_square]
            elif piece_type == chess.KING:
                if self.castling_rights & _BACKRANK[turn]:
                    return None  # "Kg1" may name a castling move
                sources = chess.BB_KING_ATTACKS[to_square]
            else:
                sources = 0
                if piece_type != chess.ROOK:  # bishop or queen
                    sources = chess.BB_DIAG_ATTACKS[to_square][
                        chess.BB_DIAG_MASKS[to_square] & occupied
                    ]
                if piece_type != chess.BISHOP:  # rook or queen
                    sources |= (
                        chess.BB_RANK_ATTACKS[to_square][chess.BB_RANK_MASKS[to_square] & occupied]
                        | chess.BB_FILE_ATTACKS[to_square][
                            chess.BB_FILE_MASKS[to_square] & occupied
                        ]
                    )
            candidates = sources & from_mask & self.pieces_mask(piece_type, turn)
        else:
            if file is not None and rank is not None:
                return None  # python-chess reads a full origin as any piece's move
            if promotion_text is not None:
                promotion = _PROMOTION_OF.get(promotion_text[-1])
                if promotion is None:
                    return None
            if bool(to_bb & chess.BB_BACKRANKS) != (promotion is not None):
                return None
            if to_square == self.ep_square:
                return None
            if file is None:
                from_mask &= chess.BB_FILES[to_square & 7]
            pawns = self.pawns & own & from_mask
            if to_bb & occupied:
                candidates = pawns & chess.BB_PAWN_ATTACKS[not turn][to_square]
            else:
                step = to_square - 8 if turn else to_square + 8
                if not 0 <= step < 64:
                    return None
                step_bb = chess.BB_SQUARES[step]
                if step_bb & occupied:
                    candidates = pawns & step_bb
                elif to_bb & _DOUBLE_STEP_TO[turn]:
                    candidates = pawns & chess.BB_SQUARES[step - 8 if turn else step + 8]
                    if candidates & self.dropped_pawns:
                        return None
                else:
                    return None
        # In check, as python-chess's evasions: the king steps off the
        # checking lines, another piece captures or blocks a lone checker.
        behind_king = 0
        evasions = chess.BB_ALL
        if checkers:
            sliders = checkers & (self.bishops | self.rooks | self.queens)
            while sliders:
                checker = sliders & -sliders
                sliders ^= checker
                behind_king |= chess.ray(king, checker.bit_length() - 1) & ~checker
            if checkers & (checkers - 1):
                evasions = 0
            else:
                evasions = chess.between(king, checkers.bit_length() - 1) | checkers
        found = None
        # Only a piece on a line through the king can be pinned: the pins
        # are worked out when a candidate stands on one.
        blockers = self._slider_blockers(king) if candidates & _LINES[king] else 0
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            from_square = low.bit_length() - 1
            move = chess.Move(from_square, to_square, promotion)
            if from_square == king:
                if to_bb & behind_king or self.is_attacked_by(not turn, to_square):
                    continue
            elif not to_bb & evasions:
                continue
            elif blockers & low and not chess.ray(from_square, to_square) & kings:
                continue  # pinned, and the move leaves the pin's line
            if found is not None:
                return None  # ambiguous: python-chess says so
            found = move
        return found

    def parse_move(self, text: str) -> chess.Move:
        """A legal move from UCI (``g1f3``, ``N@f7``, ``n@f7``, ``e7e8q``) or SAN
        (``Nf3``, ``N@f7``, ``@e4``, ``P@e4``, ``exd5``, ``O-O``, ``e8=Q``).

        Raises MoveError saying whether the text is unreadable, ambiguous or illegal.
        """
        token = text.strip()
        if not token:
            raise MoveError("empty move")
        # "E2E4" is UCI in capitals, but "B8d7" is SAN (a bishop from rank 8).
        folded = _UCI_ANY_CASE.match(token) and (token.isupper() or token[0].islower())
        uci = token.lower() if folded else token
        if "@" in token and len(token) >= 3:
            head, _, square = token.rstrip("+#!?").partition("@")
            uci = f"{(head or 'P').upper()}@{square.lower()}"
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            move = None
        if move is not None and move:
            if self.is_legal(move):
                return move
            if move.drop is None and move.promotion is None:
                piece = self.piece_at(move.from_square)
                # A pawn reaching the last rank in UCI without a piece letter.
                if (
                    piece
                    and piece.piece_type == chess.PAWN
                    and piece.color == self.turn
                    and chess.square_rank(move.to_square) == (7 if self.turn else 0)
                ):
                    raise MoveError(f"{token}: a promotion needs a piece letter (e.g. {token}q)")
            if move.drop is not None and not self.pockets[self.turn].count(move.drop):
                name = chess.piece_name(move.drop)
                raise MoveError(f"{token}: no {name} in the pocket")
            raise MoveError(f"{token}: illegal move in {self.fen()}")
        try:
            san_move = self.parse_san(token)
        except chess.AmbiguousMoveError:
            raise MoveError(f"{token}: ambiguous move") from None
        except chess.IllegalMoveError:
            raise MoveError(f"{token}: illegal move in {self.fen()}") from None
        except chess.InvalidMoveError:
            raise MoveError(f"{token}: not a move (write SAN like Nf3 or UCI like g1f3)") from None
        if not san_move:
            raise MoveError(f"{token}: a null move is not a move in bughouse")
        return san_move

    # -- copies ----------------------------------------------------------------

    def copy(self, *, stack: bool | int = True) -> BughouseBoard:
        board = super().copy(stack=stack)
        board.rules = self.rules
        board.last_passed = self.last_passed
        board.dropped_pawns = self.dropped_pawns
        board.kings_moved = self.kings_moved
        board._judging_drop = False
        board._seen = dict(self._seen)
        if stack:
            depth = len(self.move_stack) if stack is True else stack
            board._bughouse_stack = self._bughouse_stack[-depth:] if depth else []
            board._passed_stack = self._passed_stack[-depth:] if depth else []
        else:
            board._bughouse_stack = []
            board._passed_stack = []
        return board

    def root(self) -> BughouseBoard:
        if not self.move_stack:
            return self.copy(stack=False)
        board = super().root()
        board.rules = self.rules
        board._restart_tracking()
        if self._bughouse_stack:
            board.dropped_pawns, board.kings_moved = self._bughouse_stack[0]
        return board

    def mirror(self) -> BughouseBoard:
        board = super().mirror()
        board.dropped_pawns = chess.flip_vertical(self.dropped_pawns)
        board.kings_moved = ((self.kings_moved & 1) << 1) | ((self.kings_moved & 2) >> 1)
        board._seen = {}
        if self._rules.repetition == "threefold":
            board._seen[board._transposition_key()] = 1
        return board

    def fen(
        self,
        *,
        shredder: bool = False,
        en_passant: chess.EnPassantSpec = "legal",
        promoted: bool | None = None,
    ) -> str:
        """python-chess's crazyhouse FEN, written here directly with the default
        options (the arbiter makes one for every turn it opens)."""
        if shredder or en_passant != "legal" or promoted is not None:
            return super().fen(shredder=shredder, en_passant=en_passant, promoted=promoted)
        castling = self._castling_xfen() if self.castling_rights else "-"
        ep_square = self.ep_square
        if ep_square is None or not self.has_legal_en_passant():
            ep = "-"
        else:
            ep = chess.SQUARE_NAMES[ep_square]
        pockets = self.pocket_string(chess.WHITE) + self.pocket_string(chess.BLACK)
        turn = "w" if self.turn else "b"
        return (
            f"{self.board_fen()}[{pockets}] {turn} {castling} {ep} "
            f"{self.halfmove_clock} {self.fullmove_number}"
        )

    def _castling_xfen(self) -> str:
        """``castling_xfen()``, remembered for the few (rights, kings, back-rank
        rooks) a game goes through: while no king or rook has moved, every FEN
        of the game has castling rights, and python-chess's text costs a third
        of the FEN."""
        rights = self.clean_castling_rights()
        rooks = self.rooks
        key = (
            rights,
            self.king(chess.WHITE),
            self.king(chess.BLACK),
            rooks & self.occupied_co[chess.WHITE] & chess.BB_RANK_1,
            rooks & self.occupied_co[chess.BLACK] & chess.BB_RANK_8,
        )
        text = _CASTLING_TEXTS.get(key)
        if text is None:
            if len(_CASTLING_TEXTS) >= _CASTLING_TEXTS_KEPT:
                _CASTLING_TEXTS.clear()
            text = _CASTLING_TEXTS[key] = self.castling_xfen()
        return text

    def board_fen(self, *, promoted: bool | None = None) -> str:
        """The FEN's board part, ``~`` after promoted pieces unless ``promoted=False``.

        The same text as python-chess's, a fifth of the time (the arbiter
        makes a FEN for every turn it opens): each rank's text is looked up
        by the rank's byte of every bitboard, and made only the first time.
        """
        marks = self.promoted & self.occupied if promoted is None or promoted else 0
        ranks = zip(
            self.pawns.to_bytes(8, "little"),
            self.knights.to_bytes(8, "little"),
            self.bishops.to_bytes(8, "little"),
            self.rooks.to_bytes(8, "little"),
            self.queens.to_bytes(8, "little"),
            self.kings.to_bytes(8, "little"),
            self.occupied_co[chess.WHITE].to_bytes(8, "little"),
            marks.to_bytes(8, "little"),
            strict=True,  # eight bytes each, always
        )
        known = _RANK_TEXTS
        texts = []
        for rank in ranks:  # the first rank first
            text = known.get(rank)
            if text is None:
                if len(known) >= _RANK_TEXTS_KEPT:
                    known.clear()
                text = known[rank] = _rank_text(rank)
            texts.append(text)
        texts.reverse()
        return "/".join(texts)

    def pocket_string(self, color: chess.Color) -> str:
        """That colour's pocket as FEN letters (upper case for white), Q first."""
        pocket = self.pockets[color]
        counts: list[int] | None = getattr(pocket, "_pieces", None)
        if type(counts) is not list or len(counts) != 7:  # not python-chess 1.x's layout
            text = str(pocket)
            return text.upper() if color else text
        # str(pocket) with one generator step and two calls per piece type is
        # ~30 calls a FEN; the counts are read directly (K, Q, R, B, N, P).
        letters = _POCKET_LETTERS[color]
        return (
            letters[0] * counts[6]
            + letters[1] * counts[5]
            + letters[2] * counts[4]
            + letters[3] * counts[3]
            + letters[4] * counts[2]
            + letters[5] * counts[1]
        )


#: python-chess's SAN grammar, so that the short path reads exactly what it reads.
_SAN = chess.SAN_REGEX
_SQUARE_OF = {name: square for square, name in enumerate(chess.SQUARE_NAMES)}
_PIECE_OF = {
    "N": chess.KNIGHT,
    "B": chess.BISHOP,
    "R": chess.ROOK,
    "Q": chess.QUEEN,
    "K": chess.KING,
}
_PROMOTION_OF = {letter: chess.PIECE_SYMBOLS.index(letter.lower()) for letter in "nbrqNBRQ"}
_BACKRANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}
#: Per square: its rank and diagonals, and all four lines through it (the square excluded).
_RANK_AND_DIAGONALS = [
    chess.BB_RANK_ATTACKS[square][0] | chess.BB_DIAG_ATTACKS[square][0] for square in chess.SQUARES
]
_LINES = [
    _RANK_AND_DIAGONALS[square] | chess.BB_FILE_ATTACKS[square][0] for square in chess.SQUARES
]
#: Where a pawn's double step lands, by colour.
_DOUBLE_STEP_TO = {chess.WHITE: chess.BB_RANK_4, chess.BLACK: chess.BB_RANK_5}
_SYMBOLS = {
    color: {piece_type: chess.Piece(piece_type, color).symbol() for piece_type in chess.PIECE_TYPES}
    for color in chess.COLORS
}
#: ``_castling_xfen``'s texts by what decides them (cleared when this many).
_CASTLING_TEXTS: dict[tuple[int, int | None, int | None, int, int], str] = {}
_CASTLING_TEXTS_KEPT = 4096
#: Pocket letters per colour in FEN order (king first, as python-chess writes them).
_POCKET_LETTERS = ("kqrbnp", "KQRBNP")  # indexed by colour: black False, white True
#: ``board_fen``'s rank texts by the rank's byte of each bitboard (``_rank_text``),
#: cleared when this many (about 3 MB; a game of 2,000 plies meets some 600).
_RANK_TEXTS: dict[tuple[int, ...], str] = {}
_RANK_TEXTS_KEPT = 16384


def _rank_text(rank: tuple[int, ...]) -> str:
    """One rank of a FEN's board part, from the rank's byte (file a in the lowest
    bit) of the pawns, knights, bishops, rooks, queens, kings, white pieces and
    promoted pieces to mark with ``~``."""
    pawns, knights, bishops, rooks, queens, kings, white, marked = rank
    text = ""
    empty = 0
    for bit in _FILE_BITS:  # a new rank is met every few FENs: plain tests, no calls
        if pawns & bit:
            piece_type = chess.PAWN
        elif knights & bit:
            piece_type = chess.KNIGHT
        elif bishops & bit:
            piece_type = chess.BISHOP
        elif rooks & bit:
            piece_type = chess.ROOK
        elif queens & bit:
            piece_type = chess.QUEEN
        elif kings & bit:
            piece_type = chess.KING
        else:
            empty += 1
            continue
        if empty:
            text += _DIGITS[empty]
            empty = 0
        text += _SYMBOLS[bool(white & bit)][piece_type]
        if marked & bit:
            text += "~"
    return text + _DIGITS[empty] if empty else text


#: ``_rank_text``'s files a to h, as bits of a rank's byte; runs of empty squares.
_FILE_BITS = tuple(1 << file for file in range(8))
_DIGITS = tuple(str(count) for count in range(9))


def _check_rows(rows: list[str], fen: str) -> None:
    """Names the first rank of a FEN's board part that does not hold 8 squares."""
    if len(rows) != 8:
        raise PositionError(f"a board needs 8 ranks separated by '/', not {len(rows)}: {fen!r}")
    for index, row in enumerate(rows):
        width = 0
        for char in row:
            if char.isdigit():
                width += int(char)
            elif char != "~":
                width += 1
        if width != 8:
            rank = 8 - index
            raise PositionError(f"rank {rank} ({row!r}) holds {width} squares, not 8: {fen!r}")
