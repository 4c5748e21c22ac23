"""The UCI adapter: Fairy-Stockfish (``UCI_Variant bughouse``) and alike.

A search is a small state machine, ``idle -> searching -> stopping -> idle``,
so a second ``go`` is never sent while one runs (that hangs Fairy-Stockfish).
Traps handled (each seen in real runs of Fairy-Stockfish 11.1):

- Every ``go`` is preceded by the position. While the board's record is plain
  chess (no drop, no piece in a pocket: the opening of a book, the first moves
  of any game) it goes as moves, ``position startpos moves e2e4 ...`` (or
  ``position fen <start> moves ...`` from a set-up start), which every UCI
  engine reads and which gives it the game's history; once a pocket holds a
  piece it goes as ``position fen <FEN with [pocket] and ~>``, because a moves
  list cannot say which pieces arrived from the partner board (and illegal
  moves in one are dropped silently).
- ``bestmove (none)`` means no move now: we answer "wait" and search again
  on the next change to our board (a piece arriving).
- A pocket change during our search: ``stop``, discard the next ``bestmove``
  (whether it was already on its way or not: exactly one comes per ``go``),
  then ``position`` + ``go`` again.
- Moves are checked on our own board; ``info`` floods are only remembered.

A spec's limits (``SearchLimits``) go into every ``go`` as ``movetime``,
``depth`` and ``nodes``: after the clock words in timed play (UCI: the engine
stops at whichever ends first; Fairy-Stockfish, like Stockfish, stops
budgeting from the clock once a limit is given, while the arbiter's clock
runs as ever), alone in untimed play (``go movetime 1000`` when none is given).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import ClassVar

import chess

from ..config.specs import NO_LIMITS, SearchLimits
from ..core.game import PlayedMove
from ..core.model import Seat
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..protocol.flood import Keep, keep_lines
from .common import (
    STANDARD_START,
    EngineAdapter,
    EngineInfoLine,
    EngineMove,
    EngineWait,
    clip,
    move_text,
)
from .uci_talk import UciTalk

#: Consecutive rejected moves in one turn after which we wait for a change.
MAX_REJECTED = 2


class Search(enum.Enum):
    IDLE = "idle"
    SEARCHING = "searching"
    STOPPING = "stopping"


class UciAdapter(EngineAdapter, UciTalk):
    """One UCI engine at one seat."""

    #: The lines ``receive`` acts on, read even from a flood (``protocol.flood``).
    KEEP: ClassVar[Keep] = keep_lines(
        ("bestmove", "readyok", "uciok", "id", "option"), paired="info"
    )

    def __init__(
        self,
        seat: Seat,
        *,
        rules: HouseRules | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
    ) -> None:
        super().__init__(seat, rules=rules, options=options, init=init, limits=limits)
        self.start_talk()
        self.search = Search.IDLE
        self.restart = False
        self.waiting = False

    def send(self, *lines: str) -> None:
        super().send(*lines)
        self.count_sent(lines)

    # -- handshake -----------------------------------------------------------------

    def begin(self) -> None:
        self.send("uci")

    def _uciok(self) -> None:
        variant = self.engine_options.get("UCI_Variant")
        if variant is None:
            raise EngineFailed("engine has no UCI_Variant option, so it cannot play bughouse")
        if "bughouse" not in variant.get("var", []):
            raise EngineFailed("engine's UCI_Variant does not offer bughouse")
        self.handshake_done = True
        self.check_declared(self.options)
        self.send("setoption name UCI_Variant value bughouse")
        for name, value in self.options.items():
            self.send(f"setoption name {name} value {value}")
        self.send(*self.init)
        self.send("isready")

    # -- arbiter notifications ------------------------------------------------------

    def new_game(
        self,
        rules: HouseRules,
        fen: str,
        clocks: Mapping[Seat, float],
        opening: Sequence[PlayedMove] = (),
        now: str | None = None,
    ) -> None:
        """A new game from ``fen`` and the ``opening``'s moves (``start_board``)."""
        self.start_board(rules, fen, clocks, opening, now)
        self.restart = self.waiting = False
        self.rejected = 0
        if self.search is Search.SEARCHING:
            self._stop()
            self.restart = False
        self.send("ucinewgame", "isready")

    def your_turn(self, token: int, fen: str, clocks: Mapping[Seat, float]) -> None:
        self.clocks = dict(clocks)
        if self.board.fen() != fen:
            self.note("position out of step at our turn, re-reading it")
            self.reset_board(fen)
            self.restart = True
        same_turn = self.open_turn(token)
        if not self.my_turn or self.answered:
            self.note("your_turn for a position where we are not to move")
            return
        if self.search is Search.SEARCHING and self.restart:
            self._stop()
        elif self.search is Search.STOPPING:
            # A stopped search (from the last game, or this turn's old position)
            # has not answered yet: search once its bestmove is in.
            self.restart = True
        elif self.search is Search.IDLE and not (same_turn and self.waiting):
            self._go()

    def moved(self, played: PlayedMove, fen: str, clocks: Mapping[Seat, float]) -> None:
        before = self.board.fen()
        self.follow(played, fen, clocks)
        if played.board is self.seat.board:
            self.waiting = False
            self.rejected = 0
            if played.seat is self.seat:
                self.token = None
            return
        if self.board.fen() == before or not self.my_turn or self.token is None or self.answered:
            return
        # Our board changed (a piece arrived) while it is our turn.
        self.waiting = False
        self.rejected = 0
        if self.search is Search.SEARCHING:
            self._stop()
        elif self.search is Search.STOPPING:
            self.restart = True
        else:
            self._go()

    def partner_says(self, text: str) -> None:
        self.note(f"partner message not passed on (UCI has no channel): {text}")

    def game_over(self) -> None:
        if self.over:
            return
        self.over = True
        self.restart = False
        if self.search is Search.SEARCHING:
            self._stop()

    def quit(self) -> None:
        if self.search is Search.SEARCHING:
            self.send("stop")
        self.send("quit")

    # -- engine output ------------------------------------------------------------------

    def receive(self, line: str) -> None:
        line = clip(line).strip()
        head, _, rest = line.partition(" ")
        if self.heard(head, rest):
            return
        if head == "bestmove":
            words = rest.split()
            self._bestmove(words[0] if words else "(none)")
        elif head == "id":
            key, _, value = rest.partition(" ")
            if key == "name":
                self.name = value.strip()
        elif head == "uciok" and not self.handshake_done:
            self._uciok()

    def _bestmove(self, text: str) -> None:
        state = self.search
        self.search = Search.IDLE
        if state is Search.IDLE:
            self.note(f"unexpected bestmove {text} ignored")
            return
        if state is Search.STOPPING:
            self.note(f"discarded bestmove {text} (search was stopped)")
            if self.restart and self.my_turn:
                self._go()
            self.restart = False
            return
        if self.token is None or not self.my_turn:
            self.note(f"bestmove {text} after our turn ended ignored")
            return
        if text in ("(none)", "0000", "none"):
            self.waiting = True
            self.emit(EngineWait(self.token, "engine has no move"))
            return
        move = self.check_move(text)
        if move is None:
            self.rejected += 1
            if self.rejected >= MAX_REJECTED:
                self.waiting = True
                self.emit(EngineWait(self.token, f"engine's move {text} rejected"))
            else:
                self._go()
            return
        self.rejected = 0
        if info := self.take_info():
            self.emit(EngineInfoLine(info))
        self.emit(EngineMove(self.token, move_text(move)))

    # -- searching ------------------------------------------------------------------------

    def position(self) -> str:
        """The ``position`` line for the board: its moves from the start while
        they are plain chess (see the module docstring), else its FEN."""
        board = self.board
        stack = board.move_stack
        if any(board.pockets[c] for c in chess.COLORS) or any(m.drop for m in stack):
            return f"position fen {board.fen()}"
        start = "startpos" if self.start_fen == STANDARD_START else f"fen {self.start_fen}"
        if not stack:
            return f"position {start}"
        return f"position {start} moves {' '.join(move_text(m) for m in stack)}"

    def _stop(self) -> None:
        self.send("stop")
        self.search = Search.STOPPING
        self.restart = not self.over

    def _go(self) -> None:
        if self.over or not self.my_turn or self.search is not Search.IDLE:
            return
        white, black = (
            (self.own_ms(), self.opponent_ms())
            if self.seat.color
            else (self.opponent_ms(), self.own_ms())
        )
        inc = round(self.rules.increment * 1000)
        self.send(self.position())
        words = ["go"]
        if self.rules.clock:
            words.append(f"wtime {white} btime {black} winc {inc} binc {inc}")
        limits = self.limits.for_play(self.rules.clock)
        for word, value in (
            ("movetime", limits.movetime),
            ("depth", limits.depth),
            ("nodes", limits.nodes),
        ):
            if value is not None:
                words.append(f"{word} {value}")
        self.send(" ".join(words))
        self.search = Search.SEARCHING
        self.waiting = False
        self.take_info()  # the last search's
