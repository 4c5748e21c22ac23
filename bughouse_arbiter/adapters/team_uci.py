"""The team-UCI adapter: one engine plays both seats of a team (hivemind's dialect).

The dialect, as hivemind's ``interface/uci.cc`` reads and writes it:

- handshake ``uci`` -> ``id ...``, ``option ...`` (``Team``, ``Mode`` among
  them), ``uciok``; then ``isready`` -> ``readyok``. No ``UCI_Variant``: it
  plays bughouse only.
- ``setoption name Team value white|black``: the team it plays. ``white`` is
  White on board A and Black on board B (our team 1), ``black`` the other.
- ``setoption name Mode value sit|go``: ``sit`` says the team is up on time,
  so it may wait on a board where it is on move (``pass`` on both boards);
  ``go`` forbids that. The engine never sees a clock, so the harness says it.
- ``position startpos|fen <A>|<B> [moves 1e2e4 2d7d5 ...]``: both boards, the
  moves of both in the order they were made, each prefixed by its board
  (``1`` is A); a captured piece goes to the partner's pocket as it replays.
  A move it cannot read ends the list there (a line on its stderr).
- ``go movetime MS`` or ``go nodes N`` (no clock words; one second without
  either); ``stop``; every ``go`` is answered by exactly one ``bestmove``, also
  when stopped (``position`` and ``setoption`` stop a running search too).
- ``bestmove (mA,mB)`` [``ponder (..)``], each ``pass`` or a UCI move
  (``P@e4`` a drop); ``bestmove (none)`` when the team has no action.

What the harness does: it asks (``position`` + ``go``) whenever one of the
team's seats has an open turn and the position differs from the one last
answered, and no move of ours is still on its way to the arbiter. A change
on either board during a search stops it; its ``bestmove`` is discarded and
the new position searched. Each board's answer goes to its seat: a move (checked
on our mirror of that board), or ``pass``, which is a wait while that seat
is on move. It picks the search time from the clock of the seat on move (the
spec's ``movetime``/``nodes`` replace that), and ``Mode sit`` when, on each
board where the team is on move, its clock is ahead of the opponent's there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

import attrs

from ..config.specs import NO_LIMITS, SearchLimits
from ..core.board import BughouseBoard
from ..core.game import PlayedMove
from ..core.model import BoardId, Seat, Team
from ..core.rules import HouseRules
from ..errors import EngineFailed, MoveError, PositionError
from ..protocol.flood import Keep, keep_lines
from ..protocol.limits import INFO_LIMIT, NAME_LIMIT, engine_text
from .common import (
    NOTE_LIMIT,
    STANDARD_START,
    EngineEvent,
    EngineNote,
    clip,
    move_text,
)
from .uci_talk import UciTalk

#: Consecutive rejected answers after which a seat waits for the next change.
MAX_REJECTED = 2
#: The fewest ms a search is given from the clock.
MIN_MOVETIME = 50
#: Of the seat's remaining time, the share one search may take (1/30) ...
TIME_SHARE = 30
#: ... plus this share of the increment.
INCREMENT_SHARE = 0.8


#: The options the harness sets itself (lower case), never a spec's.
OWN_OPTIONS = ("team", "mode")


@attrs.frozen
class SeatMove:
    """A checked, legal move for ``seat``'s turn ``token`` (UCI, upper-case drop letter)."""

    seat: Seat
    token: int
    move: str


@attrs.frozen
class SeatInfo:
    """The search info kept with ``seat``'s move (score, depth, pv), cleaned and cut."""

    seat: Seat
    text: str


@attrs.frozen
class SeatWait:
    """``seat`` does not move on turn ``token`` for now (``pass``, or no move)."""

    seat: Seat
    token: int
    reason: str


TeamEvent = SeatMove | SeatWait | SeatInfo | EngineEvent


def team_value(team: Team) -> str:
    """The ``Team`` option's value for ``team``: ``white`` plays White on board A."""
    return "white" if team is Team.ONE else "black"


def think_ms(clock: float, increment: float) -> int:
    """Milliseconds a search may take with ``clock`` seconds left and ``increment``."""
    ms = clock * 1000 / TIME_SHARE + increment * 1000 * INCREMENT_SHARE
    return max(MIN_MOVETIME, round(min(ms, clock * 1000 / 3)))


class TeamUciAdapter(UciTalk):
    """One team-UCI engine at both seats of the team of ``seat``."""

    #: The lines ``receive`` acts on, read even from a flood (``protocol.flood``).
    KEEP: ClassVar[Keep] = keep_lines(
        ("bestmove", "readyok", "uciok", "id", "option"), paired="info"
    )

    def __init__(
        self,
        seat: Seat,
        *,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
    ) -> None:
        self.team = seat.team
        self.seat = seat
        self.options = dict(options or {})
        self.init = list(init)
        self.limits = limits
        self.name = ""
        self.start_talk()
        self.handshake_done = False
        self.rules = HouseRules()
        self.boards = {b: BughouseBoard() for b in BoardId}
        self.start_fens = {b: STANDARD_START for b in BoardId}
        #: Both boards' moves since ``start_fens``, board-prefixed (``1e2e4``).
        self.moves: list[str] = []
        #: Grows with every change to either board (a move, a re-read position).
        self.version = 0
        self.clocks: dict[Seat, float] = {}
        self.tokens: dict[Seat, int] = {}
        #: Seats whose move is on its way to the arbiter (not yet told back).
        self.pending: set[Seat] = set()
        self.rejected = 0
        self.over = True
        self._mode = ""
        #: ``go``s not yet answered, and the version the newest one searched.
        self._outstanding = 0
        self._stopped = False
        self._searched: int | None = None
        self._answered: int | None = None
        self._lines: list[str] = []
        self._events: list[TeamEvent] = []

    # -- output ------------------------------------------------------------------------

    def take(self) -> tuple[list[str], list[TeamEvent]]:
        """Lines for the engine and events for the arbiter, since the last call."""
        lines, events = self._lines, self._events
        self._lines, self._events = [], []
        return lines, events

    def send(self, *lines: str) -> None:
        self._lines.extend(lines)
        self.count_sent(lines)

    def note(self, text: str) -> None:
        self._events.append(EngineNote(engine_text(text, NOTE_LIMIT)))

    # -- handshake and liveness --------------------------------------------------------------

    def begin(self) -> None:
        self.send("uci")

    def _uciok(self) -> None:
        self.handshake_done = True
        for name in self.options:
            if name.lower() in OWN_OPTIONS:
                raise EngineFailed(
                    f"option {name!r} is the arbiter's to set: it says the team's seats "
                    "(Team) and whether it is up on time (Mode), game by game"
                )
        self.check_declared(self.options)
        for name, value in self.options.items():
            self.send(f"setoption name {name} value {value}")
        self.send(*self.init)
        self.send("isready")

    # -- the arbiter's notifications --------------------------------------------------------

    def seat_on(self, board: BoardId) -> Seat:
        """The team's seat on ``board``."""
        return next(s for s in self.team.seats if s.board is board)

    def new_game(
        self,
        rules: HouseRules,
        start_fens: Mapping[BoardId, str],
        clocks: Mapping[Seat, float],
        opening: Sequence[PlayedMove] = (),
        now: Mapping[BoardId, str] | None = None,
    ) -> None:
        """A new game from ``start_fens`` and the ``opening``'s moves."""
        self.rules = rules
        self.team = self.seat.team
        self.clocks = dict(clocks)
        self.tokens.clear()
        self.pending.clear()
        self.rejected = 0
        self.over = False
        self._answered = None
        self._rebase(start_fens)
        for played in opening:
            self._follow(played)
        if now is not None and any(self.boards[b].fen() != now[b] for b in BoardId):
            self.note("the opening's moves do not lead to the table's position; it is set up")
            self._rebase(now)
        if self._outstanding and not self._stopped:
            self._stop()
        self._mode = "go"
        self.send(
            "ucinewgame",
            f"setoption name Team value {team_value(self.team)}",
            "setoption name Mode value go",
            "isready",
        )

    def your_turn(
        self, seat: Seat, token: int, fens: Mapping[BoardId, str], clocks: Mapping[Seat, float]
    ) -> None:
        self.clocks = dict(clocks)
        self._check_step(fens)
        if self.tokens.get(seat) != token:
            self.pending.discard(seat)
            self.rejected = 0
        self.tokens[seat] = token
        self._ask()

    def moved(
        self, played: PlayedMove, fens: Mapping[BoardId, str], clocks: Mapping[Seat, float]
    ) -> None:
        self.clocks = dict(clocks)
        if played.seat in self.team.seats:
            self.pending.discard(played.seat)
            self.tokens.pop(played.seat, None)
        self._follow(played)
        self._check_step(fens)
        self.rejected = 0
        if self._outstanding and not self._stopped:
            self._stop()
        self._ask()

    def partner_says(self, text: str) -> None:
        self.note(f"partner message not passed on (one engine holds both seats): {text}")

    def game_over(self) -> None:
        if self.over:
            return
        self.over = True
        self.tokens.clear()
        if self._outstanding and not self._stopped:
            self._stop()

    def quit(self) -> None:
        if self._outstanding and not self._stopped:
            self.send("stop")
        self.send("quit")

    # -- engine output ----------------------------------------------------------------------

    def receive(self, line: str) -> None:
        line = clip(line).strip()
        head, _, rest = line.partition(" ")
        if self.heard(head, rest):
            return
        if head == "bestmove":
            self._bestmove(rest.split(" ponder ", 1)[0].strip())
        elif head == "id":
            key, _, value = rest.partition(" ")
            if key == "name":
                self.name = engine_text(value.strip(), NAME_LIMIT)
        elif head == "uciok" and not self.handshake_done:
            self._uciok()

    def _bestmove(self, text: str) -> None:
        if self._outstanding == 0:
            self.note(f"unexpected bestmove {text} ignored")
            return
        self._outstanding -= 1
        if self._outstanding or self._stopped or self._searched != self.version or self.over:
            self.note(f"discarded bestmove {text} (the position changed)")
            if not self._outstanding:
                self._stopped = False
                self._ask()
            return
        self._answered = self.version
        answers = _joint_answer(text)
        if answers is None:
            self.note(f"bestmove {text!r} is not (MOVE|pass,MOVE|pass)")
            self._wait_all(f"unreadable answer {text}")
            return
        if not any(answers):
            self._wait_all("engine has no action")
            return
        rejected = False
        info = self.take_info()
        for board, answer in zip(BoardId, answers, strict=True):
            seat = self.seat_on(board)
            token = self.tokens.get(seat)
            if token is None or seat in self.pending:
                if answer not in ("", "pass"):
                    self.note(f"move {answer} on board {board.name} out of turn ignored")
                continue
            if answer == "pass":
                self._events.append(SeatWait(seat, token, "passes"))
                continue
            try:
                move = self.boards[board].parse_move(answer)
            except MoveError as exc:
                self.note(f"engine move {answer} on board {board.name} rejected: {exc}")
                rejected = True
                continue
            if info:
                self._events.append(SeatInfo(seat, engine_text(info, INFO_LIMIT)))
                info = ""
            self.pending.add(seat)
            self._events.append(SeatMove(seat, token, move_text(move)))
        if rejected:
            self.rejected += 1
            if self.rejected < MAX_REJECTED:
                self._answered = None
                self._ask()

    def _wait_all(self, reason: str) -> None:
        for seat, token in self.tokens.items():
            if seat not in self.pending:
                self._events.append(SeatWait(seat, token, reason))

    # -- positions and searches -------------------------------------------------------------

    def _rebase(self, fens: Mapping[BoardId, str]) -> None:
        try:
            boards = {b: BughouseBoard(fens[b], rules=self.rules) for b in BoardId}
        except PositionError as exc:
            self.note(f"unreadable position from the arbiter: {exc}")
            return
        self.boards = boards
        self.start_fens = {b: boards[b].fen() for b in BoardId}
        self.moves = []
        self.version += 1

    def _follow(self, played: PlayedMove) -> None:
        board = self.boards[played.board]
        if board.is_legal(played.move):
            kept = board.is_capture(played.move) and played.passed is None
            board.push(played.move)
            number = "1" if played.board is BoardId.A else "2"
            self.moves.append(number + move_text(played.move))
            if played.passed is not None:
                self.boards[played.board.other].receive(played.passed)
            if kept:
                # The other board is over, so the capture passed nothing; the engine
                # would put it in the partner's pocket: from here on, the FENs.
                self._rebase({b: self.boards[b].fen() for b in BoardId})
        self.version += 1

    def _check_step(self, fens: Mapping[BoardId, str]) -> None:
        if any(self.boards[b].fen() != fens[b] for b in BoardId):
            self.note("position out of step, re-reading both boards")
            self._rebase(fens)

    def position(self) -> str:
        """The ``position`` line: both starts (``startpos`` if standard) and the moves."""
        if all(fen == STANDARD_START for fen in self.start_fens.values()):
            start = "startpos"
        else:
            start = f"fen {self.start_fens[BoardId.A]}|{self.start_fens[BoardId.B]}"
        return f"position {start}" + (f" moves {' '.join(self.moves)}" if self.moves else "")

    def on_move(self) -> list[Seat]:
        """The team's seats on move now (open turns whose move is not on its way)."""
        return [s for s in self.team.seats if s in self.tokens and s not in self.pending]

    def _ask(self) -> None:
        seats = self.on_move()
        if self.over or self._outstanding or self.pending or not seats:
            return
        if self._answered == self.version:
            return
        mode = "sit" if self._up_on_time(seats) else "go"
        if mode != self._mode:
            self._mode = mode
            self.send(f"setoption name Mode value {mode}")
        self.send(self.position(), self._go_line(seats))
        self._outstanding += 1
        self._searched = self.version
        self.take_info()  # the last search's

    def _up_on_time(self, seats: Sequence[Seat]) -> bool:
        if not self.rules.clock:
            return False
        return all(self.clocks.get(s, 0.0) > self.clocks.get(s.opponent, 0.0) for s in seats)

    def _go_line(self, seats: Sequence[Seat]) -> str:
        limits = self.limits.for_play(self.rules.clock)
        if limits.nodes is not None:
            return f"go nodes {limits.nodes}"
        if limits.movetime is not None:
            return f"go movetime {limits.movetime}"
        clock = min(self.clocks.get(s, self.rules.time) for s in seats)
        return f"go movetime {think_ms(clock, self.rules.increment)}"

    def _stop(self) -> None:
        self.send("stop")
        self._stopped = True


def _joint_answer(text: str) -> tuple[str, str] | None:
    """``(e2e4,pass)`` -> ("e2e4", "pass"); ``(none)`` -> ("", ""); None if unreadable."""
    text = text.strip()
    if text in ("(none)", "none", "0000"):
        return ("", "")
    if not (text.startswith("(") and text.endswith(")")):
        return None
    parts = [p.strip() for p in text[1:-1].split(",")]
    if len(parts) != 2 or not all(parts):
        return None
    return (parts[0], parts[1])
