"""The xboard (CECP v2) adapter: Sjeng, and Fairy-Stockfish in xboard mode.

The engine sits in ``force`` mode except while it thinks on our turn
(``time``, ``otim``, ``go``), so it only ever moves when we asked and the
answer belongs to a known turn token. Traps handled (each seen in real runs of
Sjeng 11.2 and Fairy-Stockfish 11.1):

- ``holding [W] [B]`` after every move on its board (Sjeng forgets pockets
  otherwise), and ``holding [W] [B] <C><P>`` exactly once per passed piece.
- The colour command comes before ``holding`` (Sjeng pads the opponent's
  pocket with fake pieces based on its colour at that moment); ``setboard``
  gets a FEN without pockets for Sjeng, with pockets for others.
- ``1-0 {..}`` / ``0-1 {..}`` / ``1/2-1/2 {..}`` while thinking mean the engine
  will not move: we answer "wait" and re-sync (``new`` ... ``go``) when a
  piece of its own arrives.
- Sjeng cannot hear ``holding`` during its own search: when a piece of its
  own arrives then, it is interrupted (``?``) and re-synced, so the new piece
  counts for this move (Fairy-Stockfish restarts its search by itself).
- A re-sync interrupts any search with ``?`` and puts a ``ping`` barrier
  behind it: moves printed before the ``pong`` are discarded.
- Moves are checked on our own board first; a rejected move leads to a
  re-sync, never to an illegal move at the table.
- Never ``stop`` (Sjeng reads any line starting ``st`` as ``st N``).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

from ..core.game import PlayedMove
from ..core.model import Seat
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..protocol.limits import MAX_ANNOUNCED
from .common import (
    EngineAdapter,
    EngineDrawOffer,
    EngineMove,
    EngineResign,
    EngineTell,
    EngineWait,
    clip,
    move_text,
    plain_fen,
    pocket_letters,
)

CLAIM_PREFIXES = ("1-0", "0-1", "1/2-1/2")
#: Partner messages passed on per move of the engine's board; two chatty
#: engines (Sjeng answers "Ok, ..." to its partner's words) cannot flood the table.
MAX_TELLS_PER_MOVE = 8
#: Consecutive rejected moves in one turn after which we stop asking until
#: something changes on the board (an engine that is stuck on a bad idea).
MAX_REJECTED = 3


def parse_features(text: str) -> dict[str, str]:
    """``feature a=1 b="x y"`` -> {"a": "1", "b": "x y"} (bad pieces are skipped)."""
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    features: dict[str, str] = {}
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key:
            features[key] = value
    return features


class XboardAdapter(EngineAdapter):
    """One xboard engine at one seat."""

    def __init__(
        self,
        seat: Seat,
        *,
        rules: HouseRules | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
    ) -> None:
        super().__init__(seat, rules=rules, options=options, init=init)
        self.features: dict[str, str] = {}
        self.thinking = False
        self.claimed = False
        self.needs_sync = False
        self.gave_up = False
        self.tells = 0
        self._ping = 0
        self._barrier: int | None = None

    # -- handshake -----------------------------------------------------------------

    def begin(self) -> None:
        self.send("xboard", "protover 2")

    def handshake_timeout(self) -> None:
        """No ``feature done=1`` in time: treat it as a protocol-1 engine."""
        if not self.handshake_done:
            self.note("no 'feature done=1': assuming a protocol 1 engine")
            self._finish_handshake()

    def _finish_handshake(self) -> None:
        self.handshake_done = True
        variants = self.features.get("variants")
        if variants is not None and "bughouse" not in variants.split(","):
            raise EngineFailed(f"engine does not play bughouse (variants: {variants})")
        self.send(*(f"option {key}={value}" for key, value in self.options.items()))
        self.send(*self.init)

    @property
    def uses_usermove(self) -> bool:
        return self.features.get("usermove") == "1"

    @property
    def has_ping(self) -> bool:
        return self.features.get("ping") == "1"

    @property
    def sends_colours(self) -> bool:
        return self.features.get("colors", "1") != "0"

    @property
    def hears_holding_while_thinking(self) -> bool:
        # Sjeng reads nothing but "?" during its own bughouse search, so a piece
        # that arrives then would only be seen after its move.
        return "sjeng" not in self.name.lower()

    @property
    def pockets_in_setboard(self) -> bool:
        # Sjeng reads every letter of a setboard FEN as a piece.
        return "sjeng" not in self.name.lower()

    # -- arbiter notifications ------------------------------------------------------

    def new_game(self, rules: HouseRules, fen: str, clocks: Mapping[Seat, float]) -> None:
        self.start_board(rules, fen, clocks)
        self.thinking = self.claimed = self.needs_sync = self.gave_up = False
        self.rejected = 0
        self._sync(first=True)

    def your_turn(self, token: int, fen: str, clocks: Mapping[Seat, float]) -> None:
        self.clocks = dict(clocks)
        if self.board.fen() != fen:
            self.note("position out of step at our turn, re-syncing")
            self.reset_board(fen)
            self.needs_sync = True
        same_turn = self.open_turn(token)
        if not self.my_turn or self.answered:
            self.note("your_turn for a position where we are not to move")
            return
        if self.needs_sync:
            self._sync()
            self._go()
        elif not self.thinking and not (same_turn and (self.claimed or self.gave_up)):
            self._go()

    def moved(self, played: PlayedMove, fen: str, clocks: Mapping[Seat, float]) -> None:
        was_my_turn = self.my_turn
        in_step = self.follow(played, fen, clocks)
        if not in_step:
            self.needs_sync = True
        if played.board is self.seat.board:
            self.claimed = self.gave_up = False
            self.rejected = 0
            self.tells = 0
            if played.seat is self.seat:
                self.token = None
            elif in_step:
                prefix = "usermove " if self.uses_usermove else ""
                self.send(f"{prefix}{move_text(played.move)}")
            if not self.needs_sync:
                self._holding()
            return
        if played.passed is None:
            return
        if not self.needs_sync:
            piece = played.passed
            self._holding(f"{'W' if piece.color else 'B'}{piece.symbol().upper()}")
        gained = played.passed.color == self.seat.color
        stuck = self.claimed or self.gave_up
        deaf = self.thinking and not self.hears_holding_while_thinking
        due = was_my_turn and self.my_turn and not self.answered
        if due and ((gained and (stuck or deaf)) or self.needs_sync):
            # The engine said it will not move, or cannot hear the new pocket
            # until it has moved: a piece of its own arrived, so start it afresh
            # on the new position (what it says before the pong is discarded).
            self.claimed = self.gave_up = False
            self.rejected = 0
            self._sync()
            self._go()

    def partner_says(self, text: str) -> None:
        text = " ".join(text.split())
        if text:
            self.send(f"ptell {text}")

    def game_over(self) -> None:
        if self.over:
            return
        self.over = True
        if self.thinking:
            self.send("?")
            self.thinking = False
        self.send("force")

    def quit(self) -> None:
        if self.thinking:
            self.send("?")
        self.send("quit")

    # -- engine output ------------------------------------------------------------------

    def receive(self, line: str) -> None:
        line = clip(line).strip()
        if not line:
            return
        # Sjeng's prompt has no newline, so it may lead the next real line.
        while line.startswith("Sjeng:"):
            line = line[len("Sjeng:") :].strip()
        head, _, rest = line.partition(" ")
        if head == "feature":
            self._feature(rest)
        elif head == "pong":
            if self._barrier is not None and rest.strip() == str(self._barrier):
                self._barrier = None
        elif head == "move":
            self._engine_move(rest.strip())
        elif head == "tellics":
            self._tellics(rest.strip())
        elif head == "resign":
            self.emit(EngineResign())
        elif line == "offer draw":
            self.emit(EngineDrawOffer())
        elif line.startswith(CLAIM_PREFIXES) and "{" in line:
            self._claim(line)
        elif line.startswith("Illegal move"):
            self._illegal_reported(line)
        elif head == "Error":
            self.note(f"engine: {line}")

    def _feature(self, text: str) -> None:
        features = parse_features(text)
        for key, value in features.items():
            if key == "done" or (key not in self.features and len(self.features) >= MAX_ANNOUNCED):
                continue
            self.features[key] = value
            self.send(f"accepted {key}")
        if "myname" in features:
            self.name = features["myname"]
        if features.get("done") == "1" and not self.handshake_done:
            self._finish_handshake()

    def _engine_move(self, text: str) -> None:
        if self._barrier is not None:
            self.note(f"discarded {text} (from before a re-sync)")
            return
        if not self.thinking or self.token is None:
            self.note(f"unexpected move {text} discarded")
            return
        self.thinking = False
        move = self.check_move(text)
        if move is None:
            self.rejected += 1
            self._sync()
            if self.rejected >= MAX_REJECTED:
                self.gave_up = True
                self.emit(EngineWait(self.token, f"engine's moves rejected ({text})"))
            else:
                self._go()
            return
        self.rejected = 0
        self.claimed = False
        self.send("force")
        self.emit(EngineMove(self.token, move_text(move)))

    def _tellics(self, text: str) -> None:
        word, _, rest = text.partition(" ")
        if word == "ptell" and rest.strip():
            self.tells += 1
            if self.tells <= MAX_TELLS_PER_MOVE:
                self.emit(EngineTell(rest.strip()))
            elif self.tells == MAX_TELLS_PER_MOVE + 1:  # noted once, not once per line
                self.note(f"partner messages dropped (more than {MAX_TELLS_PER_MOVE} this move)")
        elif word == "resign":
            self.emit(EngineResign())

    def _claim(self, line: str) -> None:
        if not self.thinking or self.token is None or self._barrier is not None:
            self.note(f"engine claim ignored: {line}")
            return
        # Sjeng never moves again after a claim; Fairy-Stockfish may carry on,
        # so a move that still comes is taken.
        self.claimed = True
        self.emit(EngineWait(self.token, f"engine claims {line}; only the arbiter judges"))

    def _illegal_reported(self, line: str) -> None:
        self.note(f"engine: {line}")
        if self._barrier is not None:
            return
        self.needs_sync = True
        if self.thinking and self.my_turn:
            self._sync()
            self._go()

    # -- sequences ----------------------------------------------------------------------

    def _holding(self, suffix: str = "") -> None:
        white = pocket_letters(self.board, True)
        black = pocket_letters(self.board, False)
        line = f"holding [{white}] [{black}]"
        self.send(f"{line} {suffix}" if suffix else line)

    def _level(self) -> str:
        base = max(1, round(self.rules.time))
        return f"level 0 {base // 60}:{base % 60:02d} {round(self.rules.increment)}"

    def _sync(self, *, first: bool = False) -> None:
        """Sets the engine's game from our board: ``new`` ... ``setboard``, in force mode."""
        if self.thinking:
            self.send("?")
            self.thinking = False
        if not first:
            self.note("re-syncing the engine")
        self.send("new", "variant bughouse", "easy", self._level(), "force")
        if self.sends_colours:
            # Protocol-1 meaning: "black" = Black to move, engine plays White.
            self.send("black" if self.seat.color else "white")
        self._holding()
        fen = self.board.fen() if self.pockets_in_setboard else plain_fen(self.board)
        self.send(f"setboard {fen}")
        if self.has_ping:
            self._ping += 1
            self._barrier = self._ping
            self.send(f"ping {self._ping}")
        self.needs_sync = False

    def _go(self) -> None:
        if self.over or not self.my_turn or self.thinking:
            return
        self.send(f"time {max(1, self.own_ms() // 10)}", f"otim {max(1, self.opponent_ms() // 10)}")
        self.send("go")
        self.thinking = True
