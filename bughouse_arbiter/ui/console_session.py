"""The console seat's state: what the person sees and what their input does.

Pure: the trio player feeds it the arbiter's notifications and the person's
lines, each with ``now`` (seconds on the player's clock), and sends on the
``Outgoing`` values it returns. It validates moves on its copy of the boards
before they leave (an illegal move from the keyboard is refused here, with a
message, and never reaches the arbiter), keeps one premove, asks before a draw
resigning or leaving, and ticks the four clocks between snapshots.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import chess

from ..core.board import BoardStatus, BughouseBoard
from ..core.game import BoardResult, PlayedMove
from ..core.model import BoardId, Outcome, Seat
from ..core.rules import HouseRules, draw_agreement
from ..errors import MoveError
from .console_input import (
    Command,
    EmptyCommand,
    InputError,
    MoveCommand,
    SignalCommand,
    SimpleCommand,
    TellCommand,
    looks_like_move,
    parse_command,
    signal_meaning,
)
from .safe_text import printable
from .table_view import TENTHS_BELOW as TENTHS_BELOW
from .table_view import display_san as display_san
from .table_view import format_clock as format_clock

# -- what the session asks the player to send -------------------------------------


@attrs.frozen
class SendMove:
    """Play ``uci`` for the open turn ``token``."""

    uci: str
    token: int


@attrs.frozen
class SendTell:
    text: str


@attrs.frozen
class SendResign:
    pass


@attrs.frozen
class SendDraw:
    pass


@attrs.frozen
class SendLeave:
    reason: str


Outgoing = SendMove | SendTell | SendResign | SendDraw | SendLeave


@attrs.frozen
class LogLine:
    """One line of the message area; ``style`` is ``info``, ``partner``,
    ``you``, ``error`` or ``result``."""

    text: str
    style: str = "info"


PIECE_NAMES = {
    chess.PAWN: "pawn",
    chess.KNIGHT: "knight",
    chess.BISHOP: "bishop",
    chess.ROOK: "rook",
    chess.QUEEN: "queen",
}
LOG_KEEP = 50
TICK_MARGIN = 0.001


class ConsoleSession:
    """One person at one seat, between the arbiter and the screen."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.names: dict[Seat, str] = {s: str(s) for s in Seat}
        self.rules = HouseRules()
        self.boards: dict[BoardId, BughouseBoard] = {
            b: BughouseBoard(rules=self.rules) for b in BoardId
        }
        #: The FENs the boards were last set from (the screen caches by them).
        self.fens: dict[BoardId, str] = {b: self.boards[b].fen() for b in BoardId}
        self.clocks: dict[Seat, float] = dict.fromkeys(Seat, self.rules.time)
        self.clock_time = 0.0
        self.started = False
        self.flipped = False
        self.log: list[LogLine] = []
        #: How many lines were ever logged (``log`` keeps the last LOG_KEEP).
        self.logged = 0
        self.feedback = LogLine("type a move (e4, Nf3, N@f7) or help", "info")
        self.game_id = ""
        #: Seats held by other people (they must agree to a draw too).
        self.other_people: frozenset[Seat] = frozenset()
        #: The help page is shown over the boards until the next line is typed.
        self.help_open = False
        self._forget_game()

    def _forget_game(self) -> None:
        """What one game leaves behind, as before any game (a new one starts)."""
        self.last_moves: dict[BoardId, PlayedMove] = {}
        self.token: int | None = None
        self.premove: str | None = None
        self.confirming: str | None = None
        self.hints: set[chess.Square] = set()
        self.hint_from: chess.Square | None = None
        self.outcome: Outcome | None = None
        self.board_results: dict[BoardId, BoardResult] = {}
        #: The partner's latest request (signal or told text), until it changes.
        self.partner_request: str | None = None
        self.full_redraw = True

    # -- looking ------------------------------------------------------------------

    @property
    def board(self) -> BughouseBoard:
        """The person's own board."""
        return self.boards[self.seat.board]

    @property
    def my_turn(self) -> bool:
        return self.outcome is None and self.token is not None

    def is_live(self, board: BoardId) -> bool:
        return self.outcome is None and board not in self.board_results

    def is_running(self, seat: Seat) -> bool:
        """True while ``seat``'s clock runs (its turn, its board in play)."""
        return (
            self.started and self.is_live(seat.board) and self.boards[seat.board].turn == seat.color
        )

    def clock(self, seat: Seat, now: float) -> float:
        """``seat``'s remaining seconds at ``now``, ticking from the last snapshot."""
        left = self.clocks[seat]
        if self.is_running(seat):
            left -= now - self.clock_time
        return max(0.0, left)

    def next_tick(self, now: float) -> float | None:
        """When a running clock's display next changes (None if none runs)."""
        ticks = []
        for seat in Seat:
            if not self.is_running(seat):
                continue
            left = self.clock(seat, now)
            step = 0.1 if left < TENTHS_BELOW + 1 else 1.0
            # The display changes just after ``left`` crosses the next multiple
            # of step (it truncates): wake a millisecond past that instant.
            fraction = left % step
            ticks.append(now + (fraction if fraction > 1e-6 else step) + TICK_MARGIN)
        return min(ticks) if ticks else None

    def status(self, board: BoardId) -> BoardStatus:
        return self.boards[board].status_of_side_to_move()

    def status_text(self, board: BoardId) -> str:
        """``check``, ``waiting for a piece``, ``no move: waiting`` or ``""``."""
        if board in self.board_results:
            return "over: " + self.board_results[board].reason
        if self.outcome is not None:
            return ""
        position = self.boards[board]
        status = position.status_of_side_to_move()
        if status is BoardStatus.MUST_WAIT:
            return "check: waiting for a piece"
        if status is BoardStatus.STALEMATE_WAIT:
            return "no legal move: waiting for a piece"
        if status is BoardStatus.CHECKMATE:
            return "checkmate"
        return "check" if position.is_check() else ""

    def bottom_color(self, board: BoardId) -> chess.Color:
        """The colour drawn at the bottom of ``board``: the person's team sits
        at the bottom of both boards unless flipped."""
        mine = self.seat.color if board is self.seat.board else not self.seat.color
        return mine != self.flipped

    # -- the arbiter's notifications -------------------------------------------------

    def start(
        self,
        *,
        game_id: str,
        names: Mapping[Seat, str],
        rules: HouseRules,
        fens: Mapping[BoardId, str],
        clocks: Mapping[Seat, float],
        now: float,
        human_seats: frozenset[Seat] = frozenset(),
    ) -> None:
        """A match begins (another one after the last, in a ``serve`` run)."""
        self._forget_game()
        self.other_people = human_seats - {self.seat}
        self.game_id = game_id
        self.names = {seat: printable(name, 60) for seat, name in names.items()}
        self.rules = rules
        self._snapshot(fens, clocks, now)
        self.started = True
        partner = self.seat.partner
        self._log(
            f"You play {self.seat} (team {self.seat.team.value}) with "
            f"{self.names.get(partner, partner.value)} at {partner}. Type help for commands.",
        )
        self._log(
            "Tell your partner sit (wait for a piece) or go (move now) by typing the word; "
            "help lists every signal.",
        )

    def your_turn(
        self,
        token: int,
        fens: Mapping[BoardId, str],
        clocks: Mapping[Seat, float],
        now: float,
    ) -> list[Outgoing]:
        """It is the person's turn; plays the premove if one is queued and legal."""
        self._snapshot(fens, clocks, now)
        self.token = token
        if self.premove is None:
            return []
        text, self.premove = self.premove, None
        try:
            move = self.board.parse_move(text)
        except MoveError as exc:
            self._say(f"premove {text} dropped: {_short(exc, self.board)}", "error")
            return []
        self._say(f"premove {text} played", "info")
        return [self._send(move)]

    def moved(
        self,
        played: PlayedMove,
        fens: Mapping[BoardId, str],
        clocks: Mapping[Seat, float],
        now: float,
    ) -> None:
        """A move was made on either board."""
        self._snapshot(fens, clocks, now)
        self.last_moves[played.board] = played
        if played.board is self.seat.board:
            self.hints, self.hint_from = set(), None
        if played.seat is self.seat:
            self.token = None
        if played.passed is not None and played.passed.color == self.seat.color:
            if played.seat is self.seat.partner:
                self._log(f"partner passes you a {PIECE_NAMES[played.passed.piece_type]}", "info")
        elif played.passed is not None and played.seat is self.seat:
            name = PIECE_NAMES[played.passed.piece_type]
            self._log(f"you pass your partner a {name} ({display_san(played.san)})", "you")

    def note(self, text: str, style: str = "info") -> None:
        """Shows ``text`` in the feedback line (e.g. about the terminal)."""
        self._say(text, style)

    def note_log(self, text: str, style: str = "info") -> None:
        """Adds ``text`` to the message area."""
        self._log(text, style)

    def move_refused(self, move: str, reason: str) -> None:
        """The arbiter refused the person's move (a new turn follows)."""
        self._say(f"{move} refused: {_without_fen(reason)}", "error")

    def board_ended(self, result: BoardResult) -> None:
        """One board is over and the other plays on (``board_end=continue``)."""
        self.board_results[result.board] = result
        if result.board is self.seat.board:
            self.token = None
            self.premove = None
        self._log(f"board {result.board.value} is over: {result.reason}", "result")

    def partner_says(self, text: str, now: float) -> None:
        partner = self.seat.partner
        said = _with_meaning(text)
        self._log(f"{self.names.get(partner, partner.value)} ({partner}): {said}", "partner")
        # ``x`` cancels the partner's last request.
        self.partner_request = None if text.strip().lower() == "x" else text

    def partner_request_text(self) -> str:
        """``++n (I want a knight: very good)``, or the told text; "" without one."""
        if self.partner_request is None:
            return ""
        return _with_meaning(self.partner_request)

    def draw_offered(self, by: Seat) -> None:
        self._log(f"{by} offers a draw: type draw to agree", "partner")

    def game_over(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.token = None
        self.premove = None
        self.confirming = None
        self.hints, self.hint_from = set(), None
        # The state line shows the result (and its reason) from now on.
        self.feedback = LogLine("", "info")

    def result_line(self) -> str:
        """``You win: B-Black checkmated (1-0)`` from the person's side."""
        return "" if self.outcome is None else describe_outcome(self.outcome, self.seat)

    # -- the person's input ------------------------------------------------------

    def on_line(self, line: str) -> list[Outgoing]:
        """One line the person typed; returns what to send."""
        if self.help_open:
            self.help_open = False
            if not line.strip():
                return []
        try:
            command = parse_command(line)
        except InputError as exc:
            self._say(str(exc), "error")
            self.confirming = None
            return []
        if self.confirming is not None:
            what, self.confirming = self.confirming, None
            if command == SimpleCommand("yes"):
                return self._confirmed(what)
            self._say(f"{what} cancelled", "info")
            if command in (SimpleCommand("no"), EmptyCommand()):
                return []
        return self._command(command)

    def _command(self, command: Command) -> list[Outgoing]:
        if isinstance(command, EmptyCommand):
            return []
        if isinstance(command, SimpleCommand):
            return self._simple(command.name)
        if self.outcome is not None:
            self._say("the game is over", "error")
            return []
        if isinstance(command, MoveCommand):
            return self._move(command.text)
        if isinstance(command, (SignalCommand, TellCommand)):
            self._log(f"you to partner: {_with_meaning(command.text)}", "you")
            self.feedback = LogLine(f"told your partner: {command.text}", "info")
            return [SendTell(command.text)]
        self._moves(command.square)
        return []

    def _simple(self, name: str) -> list[Outgoing]:
        if name == "flip":
            self.flipped = not self.flipped
            self._say("boards flipped", "info")
            return []
        if name == "redraw":
            self.full_redraw = True
            return []
        if name == "help":
            self.help_open = True
            self._say("help is shown over the boards: Enter closes it", "info")
            return []
        if self.outcome is not None:
            self._say("the game is over", "error")
            return []
        if name == "cancel":
            if self.premove is None:
                self._say("no premove to cancel", "info")
            else:
                self._say(f"premove {self.premove} cancelled", "info")
                self.premove = None
            return []
        if name == "resign":
            self.confirming = "resign"
            self._say("resign? your team loses the game: y/n", "ask")
            return []
        if name == "draw":
            self.confirming = "draw"
            people = self.other_people | {self.seat}
            others = draw_agreement(self.rules, people) - {self.seat}
            engines = others - self.other_people
            if engines:
                question = (
                    "offer a draw? the other team's engines must accept"
                    + (" and every person agree" if self.other_people else "")
                    + ": y/n"
                )
            elif self.other_people:
                question = "offer a draw? every person at the table must agree: y/n"
            else:
                question = "draw? no other person is at the table: your word alone draws: y/n"
            self._say(question, "ask")
            return []
        if name == "quit":
            self.confirming = "quit"
            self._say("quit? leaving loses the game for your team: y/n", "ask")
            return []
        self._say(f"{name}: nothing to answer", "error")
        return []

    def _confirmed(self, what: str) -> list[Outgoing]:
        if self.outcome is not None:
            self._say("the game is over", "error")
            return []
        if what == "draw":
            self._say("you agree to a draw", "you")
            return [SendDraw()]
        if what == "resign":
            self._say("you resign", "you")
            return [SendResign()]
        self._say("you leave the table", "you")
        return [SendLeave("quit at the console")]

    def _move(self, text: str) -> list[Outgoing]:
        board = self.board
        if not self.my_turn:
            if not looks_like_move(text):
                self._say(f"{text}: not a move or command (type help)", "error")
                return []
            self.premove = text
            self._say(
                f"premove {text} queued: played when your turn comes (cancel drops it)", "info"
            )
            return []
        try:
            move = board.parse_move(text)
        except MoveError as exc:
            message = _short(exc, board)
            status = board.status_of_side_to_move()
            if status.waiting:
                message += " (you have no legal move: wait for a piece)"
            self._say(message, "error")
            return []
        self._say(f"you play {display_san(board.san(move))}", "you")
        return [self._send(move)]

    def _send(self, move: chess.Move) -> SendMove:
        assert self.token is not None
        token, self.token = self.token, None
        return SendMove(move.uci(), token)

    def _moves(self, square: chess.Square | None) -> None:
        board = self.board
        if board.turn != self.seat.color:
            board = board.copy(stack=False)
            board.turn = self.seat.color
            board.ep_square = None
            note = " (if it were your turn now)"
        else:
            note = ""
        legal = list(board.legal_moves)
        if square is None:
            self.hints, self.hint_from = set(), None
            moves = sorted({board.san(m) for m in legal if m.drop is None})
            drops: dict[str, list[str]] = {}
            for move in legal:
                if move.drop is not None:
                    letter = chess.piece_symbol(move.drop).upper()
                    drops.setdefault(letter, []).append(chess.square_name(move.to_square))
            text = " ".join(moves) or "no board moves"
            if drops:
                strongest_first = sorted(drops, key="QRBNP".index)
                text += "; drops: " + " ".join(
                    _drop_text(letter, drops[letter]) for letter in strongest_first
                )
            self._log(f"legal{note}: {text}", "info")
            self._say(f"{len(legal)} legal moves and drops{note}", "info")
            return
        name = chess.square_name(square)
        chosen = [m for m in legal if m.from_square == square and m.drop is None]
        chosen += [m for m in legal if m.drop is not None and m.to_square == square]
        self.hint_from = square
        self.hints = {m.to_square for m in chosen}
        if not chosen:
            piece = board.piece_at(square)
            why = "empty square, no drop fits" if piece is None else "no legal move from there"
            self._say(f"{name}: {why}{note}", "info")
            return
        listed = " ".join(display_san(board.san(m)) for m in chosen)
        self._say(f"{name}: {listed}{note}", "info")

    # -- helpers ---------------------------------------------------------------

    def _snapshot(
        self, fens: Mapping[BoardId, str], clocks: Mapping[Seat, float], now: float
    ) -> None:
        for board_id, fen in fens.items():
            if self.fens.get(board_id) != fen or self.boards[board_id].rules != self.rules:
                self.boards[board_id] = BughouseBoard(fen, rules=self.rules)
                self.fens[board_id] = fen
        self.clocks.update(clocks)
        self.clock_time = now

    def _say(self, text: str, style: str) -> None:
        self.feedback = LogLine(printable(text), style)

    def _log(self, text: str, style: str = "info") -> None:
        self.log.append(LogLine(printable(text), style))
        self.logged += 1
        del self.log[:-LOG_KEEP]


#: Up to this many drop squares are listed; more are counted (``moves SQUARE`` shows one).
DROP_SQUARES_LISTED = 8


def _drop_text(letter: str, squares: list[str]) -> str:
    """``N@ c3 d2`` (the squares, when few: in check, the interpositions) or ``N@ (40 squares)``."""
    if len(squares) <= DROP_SQUARES_LISTED:
        return f"{letter}@ " + " ".join(sorted(squares))
    return f"{letter}@ ({len(squares)} squares)"


def describe_outcome(outcome: Outcome, seat: Seat) -> str:
    """How the match ended, said to the person at ``seat``:
    ``You win: B-Black checkmated (1-0)``."""
    if outcome.aborted:
        head = "Game aborted"
    elif outcome.winner is None:
        head = "Draw"
    elif outcome.winner is seat.team:
        head = "You win"
    else:
        head = "You lose"
    reason = outcome.reason
    if reason.lower().startswith("draw: "):
        reason = reason[len("draw: ") :]
    return f"{head}: {reason} ({outcome.result.value})"


def _short(exc: MoveError, board: BughouseBoard) -> str:
    """A MoveError's message without the FEN (the screen shows the board)."""
    return str(exc).replace(f" in {board.fen()}", "")


def _without_fen(text: str) -> str:
    """``e2e5: illegal move in rnbqk.../8 w KQkq - 0 1`` -> ``e2e5: illegal move``."""
    head, sep, _ = text.partition(" in ")
    return head if sep else text


def _with_meaning(text: str) -> str:
    """``++n (I want a knight: very good)`` for signals; other text as it is."""
    meaning = signal_meaning(text)
    return f"{text} ({meaning})" if meaning else text
