"""What every engine adapter shares: its outputs and a mirror of its board.

An adapter keeps its own ``BughouseBoard`` for the seat's board, fed with the
same moves and arrivals as the arbiter's, so that every move the engine
produces is checked with the arbiter's own rules before it leaves the adapter.

How an engine's search info reaches the BPGN: the UCI adapter keeps the
last scored ``info`` line of a search and emits its text, just before the
move, as an ``EngineInfoLine`` (here); ``players/external.py`` passes it on
as an ``InfoAction`` (``players/base.py``), which is also what a native
engine's ``Info`` message (``protocol/messages.py``) becomes in
``players/native.py``; the arbiter tells its observers ``InfoReported``
(``table/match_events.py``); the game's writer (``GameWriter``) reads the
score, mate and depth out of the text with ``parse_info`` into a
``SearchInfo`` (``bpgn/write.py``), held for the seat until its move, and
``BpgnRecorder.update`` writes it after that move as ``[%eval +0.35,12]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import chess

from ..config.specs import NO_LIMITS, SearchLimits
from ..core.board import STARTING_FEN, BughouseBoard
from ..core.game import PlayedMove
from ..core.model import Seat
from ..core.rules import HouseRules
from ..errors import MoveError, PositionError
from ..protocol.limits import INFO_LIMIT, NAME_LIMIT, TELL_LIMIT, TEXT_LIMIT, engine_text

# -- what an adapter tells the arbiter ------------------------------------------


@attrs.frozen
class EngineMove:
    """A checked, legal move for turn ``token``, in UCI with an upper-case drop letter."""

    token: int
    move: str


@attrs.frozen
class EngineWait:
    """The engine will not move for now (no move, sitting, or a false claim)."""

    token: int
    reason: str


@attrs.frozen
class EngineResign:
    pass


@attrs.frozen
class EngineDrawOffer:
    pass


@attrs.frozen
class EngineTell:
    """A message for the partner."""

    text: str


@attrs.frozen
class EngineInfoLine:
    """The text of the engine's search info kept with its move (score, depth, pv)."""

    text: str


@attrs.frozen
class EngineNote:
    """Something for the debug log: a rejected move, a claim, a re-sync."""

    text: str


EngineEvent = (
    EngineMove
    | EngineWait
    | EngineResign
    | EngineDrawOffer
    | EngineTell
    | EngineInfoLine
    | EngineNote
)

#: Characters of a note for the debug log (it may quote an engine line).
NOTE_LIMIT = 1000
POCKET_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
MAX_LINE = 4096
#: The standard start as our board writes it.
STANDARD_START = BughouseBoard(STARTING_FEN).fen()


def pocket_letters(
    board: chess.variant.CrazyhouseBoard, color: chess.Color, extra: Sequence[int] = ()
) -> str:
    """A pocket, plus the piece types in ``extra``, as upper-case letters in the
    order P N B R Q (the FICS order)."""
    pocket = board.pockets[color]
    return "".join(
        chess.piece_symbol(p).upper() * (pocket.count(p) + extra.count(p)) for p in POCKET_ORDER
    )


def plain_fen(board: chess.Board) -> str:
    """The FEN without pockets and ``~`` marks (what Sjeng's ``setboard`` reads)."""
    placement, rest = board.fen(promoted=False).split(" ", 1)
    return f"{placement.split('[', 1)[0]} {rest}"


def move_text(move: chess.Move) -> str:
    """UCI with an upper-case drop letter: ``e2e4``, ``N@f3``, ``e7e8q``."""
    return move.uci()


class EngineAdapter:
    """Bookkeeping shared by the UCI and xboard adapters."""

    def __init__(
        self,
        seat: Seat,
        *,
        rules: HouseRules | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
    ) -> None:
        self.seat = seat
        self.rules = rules if rules is not None else HouseRules()
        #: Engine options to set, and raw lines to send, after the handshake.
        self.options = dict(options or {})
        self.init = list(init)
        #: The spec's bounds on every move (``SearchLimits.for_play`` says which apply).
        self.limits = limits
        self._name = ""
        self.handshake_done = False
        #: Illegal moves the engine proposed on the open turn.
        self.rejected = 0
        self.board = BughouseBoard(rules=self.rules)
        #: Where the board's move stack starts: the game's start, or the
        #: position the board was last rebuilt from (``reset_board``).
        self.start_fen = STANDARD_START
        self.clocks: dict[Seat, float] = {s: self.rules.time for s in Seat}
        self.token: int | None = None
        #: A move for the open turn is on its way to the arbiter.
        self.answered = False
        self.over = False
        self._lines: list[str] = []
        self._events: list[EngineEvent] = []

    @property
    def name(self) -> str:
        """The engine's own name, once it has said it (cleaned and cut, ``limits``)."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = engine_text(value, NAME_LIMIT)

    # -- output --------------------------------------------------------------------

    def take(self) -> tuple[list[str], list[EngineEvent]]:
        """Lines to send to the engine and events for the arbiter, since the last call."""
        lines, events = self._lines, self._events
        self._lines, self._events = [], []
        return lines, events

    def send(self, *lines: str) -> None:
        self._lines.extend(lines)

    def emit(self, event: EngineEvent) -> None:
        """Queues ``event`` for the arbiter, its engine text cleaned and cut (``limits``)."""
        if isinstance(event, EngineMove):
            self.answered = True
        elif isinstance(event, EngineWait):
            event = EngineWait(event.token, engine_text(event.reason, TEXT_LIMIT))
        elif isinstance(event, EngineTell):
            text = engine_text(event.text, TELL_LIMIT)
            if not text:
                return
            event = EngineTell(text)
        elif isinstance(event, EngineInfoLine):
            event = EngineInfoLine(engine_text(event.text, INFO_LIMIT))
        self._events.append(event)

    def note(self, text: str) -> None:
        self._events.append(EngineNote(engine_text(text, NOTE_LIMIT)))

    def draw_offered(self) -> None:
        """Another seat offered a draw. The default tells the engine nothing (UCI
        has no way to, so a UCI engine never agrees); xboard sends ``draw``."""

    # -- the mirror board -----------------------------------------------------------

    @property
    def my_turn(self) -> bool:
        return not self.over and self.board.turn == self.seat.color

    def start_board(
        self,
        rules: HouseRules,
        fen: str,
        clocks: Mapping[Seat, float],
        opening: Sequence[PlayedMove] = (),
        now: str | None = None,
    ) -> None:
        """A new game from ``fen``, then the ``opening``'s moves (both boards: ours
        are played, the other's passed pieces arrive), so the engine can be told
        them as moves. ``now``: the table's position for this board; if the
        moves do not lead there, the board is rebuilt from it (set up)."""
        self.rules = rules
        self.board = BughouseBoard(fen, rules=rules)
        self.start_fen = self.board.fen()
        for played in opening:
            if played.board is self.seat.board:
                self.board.push(played.move)
            elif played.passed is not None:
                self.board.receive(played.passed)
        if now is not None and self.board.fen() != now:
            self.note(f"the opening's moves do not lead to {now}; it is set up instead")
            self.reset_board(now)
        self.clocks = dict(clocks)
        self.token = None
        self.answered = False
        self.over = False

    def open_turn(self, token: int) -> bool:
        """Records the turn's token; True if it is the turn already open."""
        same = self.token == token
        if not same:
            self.answered = False
        self.token = token
        return same

    def follow(self, played: PlayedMove, fen: str, clocks: Mapping[Seat, float]) -> bool:
        """Applies ``played`` to the mirror; returns False if the mirror had to be
        rebuilt from ``fen`` (the engine then needs a full re-sync)."""
        self.clocks = dict(clocks)
        in_step = True
        if played.seat is self.seat:
            self.answered = False
        if played.board is self.seat.board:
            if self.board.is_legal(played.move):
                self.board.push(played.move)
            else:
                in_step = False
        elif played.passed is not None:
            self.board.receive(played.passed)
        if self.board.fen() != fen:
            in_step = False
        if not in_step:
            self.note(f"position out of step, re-reading {fen}")
            self.reset_board(fen)
        return in_step

    def reset_board(self, fen: str) -> None:
        """Rebuilds the board from ``fen``: the moves that led there are gone."""
        try:
            self.board = BughouseBoard(fen, rules=self.rules)
        except PositionError as exc:
            self.note(f"unreadable position from the arbiter: {exc}")
        else:
            self.start_fen = self.board.fen()

    def check_move(self, text: str) -> chess.Move | None:
        """The engine's move if it is legal for this seat now; notes why not otherwise."""
        if not self.my_turn:
            self.note(f"move {text!r} out of turn ignored")
            return None
        try:
            return self.board.parse_move(text)
        except MoveError as exc:
            self.note(f"engine move rejected: {exc}")
            return None

    # -- clocks -------------------------------------------------------------------

    def own_ms(self) -> int:
        return max(1, round(self.clocks[self.seat] * 1000))

    def opponent_ms(self) -> int:
        return max(1, round(self.clocks[self.seat.opponent] * 1000))


def clip(line: str) -> str:
    """Caps a line from an engine before it is parsed or logged."""
    return line if len(line) <= MAX_LINE else line[:MAX_LINE]
