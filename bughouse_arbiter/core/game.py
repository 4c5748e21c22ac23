"""A bughouse match: two linked boards, an append-only record, and its outcome.

``BughouseGame`` is the rules of docs/rules.md for a whole table and nothing else:
it reads no clock (time stamps come in as arguments), starts nothing, and
knows nothing of players. The arbiter, the console, the BPGN replay and the
``position`` command all judge with this one class.

Its values are frozen dataclasses rather than attrs classes, as in the rest of
``core``'s judging path (model, rules): ``bughouse position`` imports this
path and nothing else, and importing attrs would cost it a fifth of its
start-up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

import chess

from ..errors import MoveError, NotYourTurnError
from .board import STARTING_FEN, BoardStatus, BughouseBoard
from .model import BOARDS, BoardId, Outcome, Result, Seat, Team, Termination
from .rules import HouseRules


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class PlayedMove:
    """One move in the record.

    ``ply`` counts moves over both boards from 1; ``number`` is the move's
    number on its own board (its full-move counter when the move was made:
    White's and Black's seventh moves are both 7). ``passed`` is the piece the
    move sent to the partner board (None if it captured nothing, or if that
    board was already over). ``at`` is seconds since the match started and
    ``clock`` the mover's remaining seconds after the move, as the caller
    measured them (None when untimed, e.g. the ``position`` command).
    """

    ply: int
    board: BoardId
    seat: Seat
    move: chess.Move
    san: str
    number: int = 1
    passed: chess.Piece | None = None
    at: float | None = None
    clock: float | None = None

    @property
    def uci(self) -> str:
        return self.move.uci()


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class PartnerMessage:
    """A message from ``seat`` to its partner, ``at`` seconds into the match."""

    seat: Seat
    text: str
    at: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class DrawOffer:
    """``seat`` offered (or accepted: the same) a draw, ``at`` seconds into the match."""

    seat: Seat
    at: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class BoardResult:
    """How one board ended (only kept apart under ``board_end=continue``)."""

    board: BoardId
    winner: Team | None
    termination: Termination
    reason: str
    seat: Seat | None = None


_OK = BoardStatus.OK


class BughouseGame:
    """Two boards, four seats, one outcome.

    Example::

        game = BughouseGame()
        game.push(Seat.A_WHITE, "e4")
        game.push(Seat.B_WHITE, "d2d4")
        game.status(BoardId.A)   # BoardStatus.OK
    """

    def __init__(
        self,
        rules: HouseRules | None = None,
        *,
        fen_a: str = STARTING_FEN,
        fen_b: str = STARTING_FEN,
    ) -> None:
        self.rules = rules if rules is not None else HouseRules()
        self.boards: dict[BoardId, BughouseBoard] = {
            BoardId.A: BughouseBoard(fen_a, rules=self.rules),
            BoardId.B: BughouseBoard(fen_b, rules=self.rules),
        }
        # The standard start is its own FEN (python-chess's writer takes
        # ~30 us a board while castling rights remain).
        self.start_fens = {
            board_id: STARTING_FEN if fen == STARTING_FEN else self.boards[board_id].fen()
            for board_id, fen in ((BoardId.A, fen_a), (BoardId.B, fen_b))
        }
        self.moves: list[PlayedMove] = []
        #: How many of the first moves come from an opening book (``play_opening``;
        #: a replay sets it before its moves): the ply cap and the stalling
        #: rule count only the moves after them.
        self.opening_plies = 0
        #: Moves dropped from ``moves`` by ``forget_moves`` (still counted as plies).
        self.forgotten = 0
        self.messages: list[PartnerMessage] = []
        #: Each seat's first draw offer or acceptance, in order.
        self.draw_offers: list[DrawOffer] = []
        self.board_results: dict[BoardId, BoardResult] = {}
        self.outcome: Outcome | None = None
        # Untimed play (clock=off): per seat to move that could move, how many
        # moves its partner has made meanwhile (the stalling rule).
        self._stalls: dict[Seat, int] = {}
        # The status judged on each board since it last changed: a move
        # forgets its board's; an arrival forgets the other board's only when
        # that side could not move (a piece in a pocket adds drops and takes
        # no move away, so OK stays OK). Each move judges one board, not two.
        # The boards change only through this class (push, receive).
        self._statuses: dict[BoardId, BoardStatus] = {}
        self.judge()

    # -- looking -----------------------------------------------------------------

    def board(self, board: BoardId) -> BughouseBoard:
        return self.boards[board]

    def to_move(self, board: BoardId) -> Seat:
        """The seat whose turn it is on ``board``."""
        return Seat.of(board, self.boards[board].turn)

    def is_to_move(self, seat: Seat) -> bool:
        return self.boards[seat.board].turn == seat.color and self.is_live(seat.board)

    def is_live(self, board: BoardId) -> bool:
        """True while moves may still be made on ``board``."""
        return self.outcome is None and board not in self.board_results

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def status(self, board: BoardId) -> BoardStatus:
        """The side to move's status on ``board``."""
        status = self._statuses.get(board)
        if status is None:
            status = self.boards[board].status_of_side_to_move()
            self._statuses[board] = status
        return status

    def _arrived(self, board: BoardId, piece: chess.Piece) -> None:
        self.boards[board].receive(piece)
        if self._statuses.get(board) is not _OK:
            self._statuses.pop(board, None)

    def seats_to_move(self) -> list[Seat]:
        """Seats whose turn it is on a board still in play."""
        return [self.to_move(b) for b in BOARDS if self.is_live(b)]

    def fen(self, board: BoardId) -> str:
        return self.boards[board].fen()

    @property
    def plies(self) -> int:
        return self.forgotten + len(self.moves)

    @property
    def counted_plies(self) -> int:
        """Plies after the opening's (what ``max_plies`` caps)."""
        return max(0, self.plies - self.opening_plies)

    def forget_moves(self) -> None:
        """Drops the record of the moves played so far; they still count as plies
        (``max_plies``). For a replay of a long game, which needs no record."""
        self.forgotten += len(self.moves)
        self.moves.clear()

    # -- playing -----------------------------------------------------------------

    def parse_move(self, seat: Seat, text: str) -> chess.Move:
        """Reads UCI or SAN for ``seat``'s board (see ``BughouseBoard.parse_move``)."""
        return self.boards[seat.board].parse_move(text)

    def push(
        self,
        seat: Seat,
        move: chess.Move | str,
        *,
        at: float | None = None,
        clock: float | None = None,
        san: str | None = None,
    ) -> PlayedMove:
        """Plays ``move`` for ``seat``, passes any capture, and re-judges the match.

        Raises NotYourTurnError when ``seat`` is not to move (or the match or
        its board is over) and MoveError when the move is illegal; the game is
        unchanged then. What an illegal move costs is the caller's decision
        (``illegal_move`` house rule, see ``illegal``).

        ``san``: the move as the caller read it, when ``move`` is what the
        board's own parser (``parse_san``, ``parse_move``) just returned for
        this position (a BPGN replay): it is then recorded as is, and neither
        checked nor written again.
        """
        if self.outcome is not None:
            raise NotYourTurnError(f"the match is over ({self.outcome.reason})")
        board_id = seat.board
        if board_id in self.board_results:
            raise NotYourTurnError(f"board {board_id.value} is over")
        board = self.boards[board_id]
        if board.turn != seat.color:
            raise NotYourTurnError(f"{seat} is not to move on board {board_id.value}")
        if isinstance(move, str):
            move = board.parse_move(move)
        elif san is None and (not move or not board.is_legal(move)):
            raise MoveError(f"{move.uci()}: illegal move in {board.fen()}")
        number = board.fullmove_number
        rules = self.rules
        in_book = self.plies < self.opening_plies
        watched = (
            None if rules.clock or not rules.stalling or in_book else self._stall_watch(seat)
        )
        if san is None:
            san = board.san_and_push(move)
        else:
            board.push(move)
        self._statuses.pop(board_id, None)
        passed = board.last_passed
        if passed is not None:
            other = board_id.other
            if other in self.board_results:
                passed = None
            else:
                self._arrived(other, passed)
        played = PlayedMove(
            ply=self.forgotten + len(self.moves) + 1,
            board=board_id,
            seat=seat,
            move=move,
            san=san,
            number=number,
            passed=passed,
            at=at,
            clock=clock,
        )
        self.moves.append(played)
        if self.outcome is None:
            self._judge(board_id)
        if self._stalls:
            self._stalls.pop(seat, None)
        if watched is not None:
            self._count_stall(watched)
        return played

    def play_opening(self, moves: Iterable[tuple[Seat, str]]) -> None:
        """Plays a book's moves (UCI or SAN, in the order given) before the match
        begins: stamped at second 0, without a clock, counted neither by the
        ply cap nor by the stalling rule. Raises MoveError or NotYourTurnError
        as ``push`` does, and ValueError if the match ends within them (the
        game is unusable then)."""
        book = list(moves)
        self.opening_plies = self.plies + len(book)
        for seat, text in book:
            self.push(seat, text, at=0.0)
            if self.outcome is not None or self.board_results:
                raise ValueError(f"the opening ends the game at ply {self.plies}")

    def _stall_watch(self, mover: Seat) -> Seat | None:
        """``mover``'s partner if it is to move and could move (``push`` asks only
        under the stalling rule: clock off, ``stalling`` above 0)."""
        partner = mover.partner
        if not self.is_to_move(partner) or self.status(partner.board) is not BoardStatus.OK:
            return None
        return partner

    def _count_stall(self, seat: Seat) -> None:
        """``seat``'s partner moved while ``seat`` could move: the stalling rule."""
        if not self.is_to_move(seat):
            return
        count = self._stalls.get(seat, 0) + 1
        self._stalls[seat] = count
        if count >= self.rules.stalling:
            self._end_board(
                seat.board,
                seat.team.other,
                Termination.STALLING,
                f"{seat} stalled: its partner made {count} moves while it could move",
                seat,
            )

    def receive(self, board: BoardId, piece: chess.Piece) -> Outcome | None:
        """Puts ``piece`` into a pocket on ``board`` from outside the record
        (a set-up position, the ``position`` command's ``+X``) and re-judges."""
        self._arrived(board, piece)
        self.judge(board)
        return self.outcome

    def tell(self, seat: Seat, text: str, *, at: float | None = None) -> PartnerMessage:
        """Records a message from ``seat`` to its partner."""
        message = PartnerMessage(seat=seat, text=text, at=at)
        self.messages.append(message)
        return message

    def offer_draw(self, seat: Seat, *, at: float | None = None) -> DrawOffer:
        """Records that ``seat`` offers or accepts a draw (the record keeps it, so a
        replay can see who agreed)."""
        offer = DrawOffer(seat=seat, at=at)
        self.draw_offers.append(offer)
        return offer

    # -- ends that come from outside the boards ---------------------------------

    def resign(self, seat: Seat) -> Outcome | None:
        """``seat`` resigns: its team loses (its board, under ``board_end=continue``)."""
        return self._end_board(
            seat.board, seat.team.other, Termination.RESIGNATION, f"{seat} resigned", seat
        )

    def flag(self, seats: Iterable[Seat]) -> Outcome | None:
        """The clocks of ``seats`` ran out at the same instant.

        One team flagged: that team loses. Both teams flagged: a draw.
        """
        flagged = sorted(set(seats), key=lambda s: list(Seat).index(s))
        if not flagged:
            raise ValueError("flag() needs at least one seat")
        if self.rules.board_end == "continue":
            for seat in flagged:
                self._end_board(
                    seat.board, seat.team.other, Termination.FLAG, f"{seat} lost on time", seat
                )
            return self.outcome
        teams = {seat.team for seat in flagged}
        names = " and ".join(str(s) for s in flagged)
        if len(teams) == 2:
            return self._finish(
                Outcome(
                    termination=Termination.FLAG,
                    winner=None,
                    reason=f"draw: {names} ran out of time at the same instant",
                    board=flagged[0].board,
                    seat=flagged[0],
                )
            )
        seat = flagged[0]
        if len(flagged) == 1:
            reason = f"{seat} lost on time"
        else:
            reason = f"{names} lost on time at the same instant"
        return self._finish(
            Outcome(
                termination=Termination.FLAG,
                winner=seat.team.other,
                reason=reason,
                board=seat.board,
                seat=seat,
            )
        )

    def illegal(self, seat: Seat, move_text: str, why: str = "") -> Outcome | None:
        """``seat`` played an illegal move (``illegal_move=lose``): its team loses
        (its board, under ``board_end=continue``)."""
        detail = f": {why}" if why else ""
        return self._end_board(
            seat.board,
            seat.team.other,
            Termination.ILLEGAL_MOVE,
            f"{seat} played an illegal move {move_text!r}{detail}",
            seat,
        )

    def leave(self, seat: Seat, why: str = "") -> Outcome | None:
        """``seat`` left the table (quit, crashed, closed its pipe): its team loses
        (its board, under ``board_end=continue``)."""
        detail = f": {why}" if why else ""
        return self._end_board(
            seat.board, seat.team.other, Termination.LEFT, f"{seat} left{detail}", seat
        )

    def agree_draw(self) -> Outcome | None:
        """Everyone who must agree agreed to a draw."""
        return self._finish(
            Outcome(termination=Termination.AGREEMENT, winner=None, reason="draw by agreement")
        )

    def abort(self, why: str = "aborted") -> Outcome | None:
        """Stops the match without a result (``*``), e.g. on Ctrl+C."""
        return self._finish(
            Outcome(termination=Termination.ABORTED, winner=None, reason=why, aborted=True)
        )

    # -- judging -----------------------------------------------------------------

    def judge(self, moved_on: BoardId = BoardId.A) -> Outcome | None:
        """Re-judges both boards (done after every move); returns the outcome so far."""
        if self.outcome is None:
            self._judge(moved_on)
        return self.outcome

    def _judge(self, moved_on: BoardId) -> None:
        other = moved_on.other
        rules = self.rules
        if (
            not self.board_results
            and rules.repetition != "threefold"
            and not (rules.max_plies and self.counted_plies >= rules.max_plies)
        ):
            known = self._statuses
            if (known.get(moved_on) or self.status(moved_on)) is _OK and (
                known.get(other) or self.status(other)
            ) is _OK:
                return  # the usual move: both sides to move can move, nothing ends
        # The board just moved on first: its mate decides before anything else,
        # and mate on either board beats the deadlock draw.
        order = (moved_on, other)
        statuses: dict[BoardId, BoardStatus] = {}
        for board_id in order:
            if not self.is_live(board_id):
                continue
            status = self.status(board_id)
            statuses[board_id] = status
            if status is BoardStatus.CHECKMATE:
                mated = self.to_move(board_id)
                self._end_board(
                    board_id, mated.team.other, Termination.CHECKMATE, f"{mated} checkmated", mated
                )
        if self.outcome is not None:
            return
        for board_id, status in statuses.items():
            if not self.is_live(board_id):
                continue
            if status is BoardStatus.STALEMATE_DRAW:
                stuck = self.to_move(board_id)
                self._end_board(
                    board_id,
                    None,
                    Termination.STALEMATE,
                    f"draw: {stuck} has no legal move (stalemate=draw)",
                    stuck,
                )
        if (
            self.rules.repetition == "threefold"
            and self.is_live(moved_on)
            and self.boards[moved_on].is_repetition(3)
        ):
            self._end_board(
                moved_on,
                None,
                Termination.REPETITION,
                f"draw: threefold repetition on board {moved_on.value}",
                None,
            )
        if self.outcome is not None:
            return
        live = [b for b in BOARDS if self.is_live(b)]
        for board_id in live:
            if board_id not in statuses:
                statuses[board_id] = self.status(board_id)
        if live and all(statuses[b].waiting for b in live):
            if len(live) == 2:
                self._finish(
                    Outcome(
                        termination=Termination.DEADLOCK,
                        winner=None,
                        reason="draw: nobody to move can ever move again",
                    )
                )
                return
            # board_end=continue with the other board over: no piece can ever
            # arrive, so a player waiting for a block is mated and a player
            # with no move at all is stalemated.
            board_id = live[0]
            stuck = self.to_move(board_id)
            if statuses[board_id] is BoardStatus.MUST_WAIT:
                self._end_board(
                    board_id,
                    stuck.team.other,
                    Termination.CHECKMATE,
                    f"{stuck} checkmated (no piece can arrive any more)",
                    stuck,
                )
            else:
                self._end_board(
                    board_id,
                    None,
                    Termination.DEADLOCK,
                    f"draw: {stuck} can never move again",
                    stuck,
                )
            return
        if self.rules.max_plies and self.counted_plies >= self.rules.max_plies:
            after = f" after the opening's {self.opening_plies}" if self.opening_plies else ""
            reason = (
                f"draw: {self.counted_plies} plies played on the two boards{after} "
                f"(max_plies={self.rules.max_plies})"
            )
            if self.board_results:
                # board_end=continue with one board decided: the other is drawn
                # and the boards are summed as usual.
                for board_id in live:
                    self._end_board(board_id, None, Termination.MAX_PLIES, reason, None)
                return
            self._finish(Outcome(termination=Termination.MAX_PLIES, winner=None, reason=reason))

    def _end_board(
        self,
        board: BoardId,
        winner: Team | None,
        termination: Termination,
        reason: str,
        seat: Seat | None,
    ) -> Outcome | None:
        if self.outcome is not None:
            return self.outcome
        if self.rules.board_end != "continue":
            return self._finish(
                Outcome(
                    termination=termination, winner=winner, reason=reason, board=board, seat=seat
                )
            )
        if board in self.board_results:
            return None
        self.board_results[board] = BoardResult(
            board=board, winner=winner, termination=termination, reason=reason, seat=seat
        )
        if len(self.board_results) < 2:
            return None
        return self._finish(self._summed_outcome())

    def _summed_outcome(self) -> Outcome:
        score = {Team.ONE: 0.0, Team.TWO: 0.0}
        parts = []
        for board_id in BoardId:
            result = self.board_results[board_id]
            if result.winner is None:
                score[Team.ONE] += 0.5
                score[Team.TWO] += 0.5
            else:
                score[result.winner] += 1.0
            parts.append(f"board {board_id.value}: {result.reason}")
        if score[Team.ONE] > score[Team.TWO]:
            winner: Team | None = Team.ONE
        elif score[Team.TWO] > score[Team.ONE]:
            winner = Team.TWO
        else:
            winner = None
        total = f"{score[Team.ONE]:g}-{score[Team.TWO]:g}"
        return Outcome(
            termination=Termination.BOARDS_SUMMED,
            winner=winner,
            reason=f"boards summed {total} ({'; '.join(parts)})",
        )

    def _finish(self, outcome: Outcome) -> Outcome:
        if self.outcome is None:
            self.outcome = outcome
        return self.outcome

    # -- convenience -------------------------------------------------------------

    @property
    def result(self) -> Result:
        """``*`` while the match is running."""
        return self.outcome.result if self.outcome else Result.UNFINISHED

    def replay(self, moves: Sequence[tuple[Seat, str]]) -> None:
        """Plays ``(seat, move)`` pairs in order; stops at the end of the match."""
        for seat, text in moves:
            if self.outcome is not None:
                break
            self.push(seat, text)
