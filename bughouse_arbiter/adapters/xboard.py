"""The xboard (CECP v2) adapter: Sjeng, Sunsetter, Fairy-Stockfish in xboard mode.

It drives the engine the way a chess server (FICS, through xboard's Zippy
mode) does, because that is what xboard bughouse engines were written for:
``new``, ``variant bughouse``, the moves as they happen, ``holding [W] [B]``
after every change, ``time``/``otim`` for the engine's own colour. Between
its turns the engine sits in ``force`` mode and only ``go`` makes it think, so
every move it prints belongs to a known turn token.

Traps handled (each seen in real runs of Sjeng 11.2, Sunsetter 9 and
Fairy-Stockfish 11.1):

- **No ``setboard`` from the standard start.** Sunsetter's ``setboard``
  switches it to crazyhouse (it then ignores ``holding``, keeps captures and
  drops pieces it does not have) and makes it play the side *not* to move.
  Games from the standard start (a book opening's moves included: they are
  replayed after ``new``) and every re-sync replay the board's moves in
  ``force`` mode instead. Only a game set up from another position uses
  ``setboard`` (the engine must have announced ``setboard=1``), and the first
  time, a probe checks that the engine still plays bughouse after it: the
  probe position is set up, a knight is announced by ``holding`` only, and the
  engine must answer the knight-drop mate (``verify_setboard``).
- **The engine's idea of its colour.** After ``new`` an engine plays Black;
  ``go`` makes it play the side to move; the protocol-1 ``white``/``black``
  commands make it play the side *not* to move. Sunsetter books ``time`` and
  ``otim`` by that colour, and Sjeng gives the opponent of that colour fake
  pocket pieces when it reads ``holding``. So the adapter keeps track of the
  colour the engine believes it plays: a re-sync sends ``black``/``white``
  at a point of the replay where that command is true (so ``time``/``otim``
  before ``go`` land on its own colour), and a ``holding`` for an engine that
  believes the wrong colour waits until its ``go``. The one moment no command
  is true is a White engine's first move after ``new``, when both clocks are
  still full.
- ``holding [W] [B]`` after every move on its board (Sjeng forgets pockets
  otherwise), and ``holding [W] [B] <C><P>`` exactly once per passed piece.
- ``1-0 {..}`` / ``0-1 {..}`` / ``1/2-1/2 {..}`` while thinking mean the engine
  will not move: we answer "wait" and re-sync when a piece of its own arrives
  (Sjeng never moves again after a claim until ``new``). Fairy-Stockfish keeps
  searching after its claim and hears the ``holding``: it is left to move.
- Sjeng cannot hear ``holding`` during its own search: it reads a pocket
  change that came mid-think right after its move, as on a chess server
  (Fairy-Stockfish and Sunsetter read it mid-search). It is not interrupted
  and restarted for it: a restart after ``new`` makes it sit when it thinks
  it is lost, until its partner says "go".
- A re-sync interrupts any search with ``?`` and, for an engine with
  ``ping=1``, puts a ``ping`` barrier behind it: moves printed before the
  ``pong`` are discarded.
- Moves are checked on our own board first; a rejected move leads to a
  re-sync, never to an illegal move at the table.
- Never ``stop`` (Sjeng reads any line starting ``st`` as ``st N``).

A spec's limits (``SearchLimits``) are sent before every ``go``: ``sd D`` for
depth (``new`` clears it), ``st S`` for movetime (whole seconds, rounded up;
CECP's ``st`` is a time control of its own, so the engine stops budgeting from
``time``/``otim``), and for nodes ``nps N`` with ``st 1`` (N nodes a move)
where the engine announced ``nps=1``; without it the nodes limit is only noted.
An engine that refuses one of them (Sunsetter answers ``st`` with "Illegal
move") is not sent it again and is not re-synced for it.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import ClassVar

import chess

from ..config.specs import NO_LIMITS, SearchLimits
from ..core.board import BughouseBoard
from ..core.game import PlayedMove
from ..core.model import Seat
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..protocol.flood import Keep, keep_lines
from ..protocol.limits import MAX_ANNOUNCED
from ..protocol.signals import codes_of
from .common import (
    STANDARD_START,
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
from .declared import Declared, refuse_option, xboard_declared

CLAIM_PREFIXES = ("1-0", "0-1", "1/2-1/2")
#: The commands that carry a spec's limits (see the module docstring).
LIMIT_WORDS = ("sd", "st", "nps")
#: Consecutive rejected moves in one turn after which we stop asking until
#: something changes on the board (an engine that is stuck on a bad idea).
MAX_REJECTED = 3
#: The set-up probe: White to move, a knight announced by ``holding`` only;
#: ``N@f7`` mates at once. An engine that still plays bughouse after
#: ``setboard`` finds it; one that switched to crazyhouse has no knight.
PROBE_FEN = "6rk/6pp/8/8/8/8/6PP/6K1 w - - 0 1"
PROBE_MOVE = "N@f7"
#: Untimed play (``clock=off``): the notional clock, in centiseconds, sent as
#: both ``time`` and ``otim``, so that an engine budgets about a second a move.
#: (Not ``st``: Sunsetter answers it "Illegal move".)
UNTIMED_CLOCK_CS = 3000


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

    #: The lines ``receive`` acts on, read even from a flood (``protocol.flood``).
    KEEP: ClassVar[Keep] = keep_lines(
        ("feature", "pong", "move", "tellics", "resign", "offer", "Illegal", "Error",
         *CLAIM_PREFIXES),
        prefix="Sjeng:",
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
        self.features: dict[str, str] = {}
        #: The ``feature option="..."`` strings the engine offered, in order.
        self.offered_options: list[str] = []
        self.thinking = False
        self.claimed = False
        self.needs_sync = False
        self.gave_up = False
        #: Re-syncs done this game (after a refused move, a claim, a lost step).
        self.resyncs = 0
        #: Whether the engine still plays bughouse after ``setboard``: None
        #: until the probe has answered (only games set up from another
        #: position need it).
        self.setboard_keeps_bughouse: bool | None = None
        #: The probe is out and its answer not in yet.
        self.probing = False
        self._ping = 0
        self._barrier: int | None = None
        self._pong = 0  # the highest ``pong`` number received
        # The colour the engine believes it plays (CECP: Black after "new").
        self._believes: chess.Color = chess.BLACK
        # A pocket change the engine has not been told (it believed the wrong colour).
        self._holding_due = False
        #: Limit commands the engine refused (``Illegal move``/``Error``): not sent again.
        self.refused_limits: set[str] = set()
        self._nodes_noted = False

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
        declared = self.declared_options
        for key, value in self.options.items():
            refuse_option(self._declared_as(key), value, declared)
        for key, value in self.options.items():
            self.send(self.option_line(key, value))
        self.send(*self.init)

    @property
    def uses_usermove(self) -> bool:
        return self.features.get("usermove") == "1"

    @property
    def has_ping(self) -> bool:
        return self.features.get("ping") == "1"

    @property
    def has_setboard(self) -> bool:
        return self.features.get("setboard") == "1"

    @property
    def sends_colours(self) -> bool:
        return self.features.get("colors", "1") != "0"

    @property
    def moves_on_after_claim(self) -> bool:
        # Fairy-Stockfish claims a blockable check as mate but keeps searching
        # and hears "holding"; Sjeng (like an engine that keeps to the letter
        # of CECP) never moves again after a claim until "new".
        return "fairy-stockfish" in self.name.lower()

    @property
    def pockets_in_setboard(self) -> bool:
        # Sjeng reads every letter of a setboard FEN as a piece.
        return "sjeng" not in self.name.lower()

    @property
    def set_up(self) -> bool:
        """This game started from a position other than the standard start."""
        return self.start_fen != STANDARD_START

    def option_line(self, name: str, value: str | None) -> str:
        """How option ``name`` is set: ``option NAME=VALUE`` (``option NAME`` for a
        button); ``Hash`` and ``Threads`` become the protocol's own ``memory N`` and
        ``cores N`` where the engine announced ``memory=1`` / ``smp=1``."""
        if value is not None and name.lower() == "hash" and self.features.get("memory") == "1":
            return f"memory {value}"
        if (
            value is not None
            and name.lower() in ("threads", "cores")
            and self.features.get("smp") == "1"
        ):
            return f"cores {value}"
        return f"option {name}" if value is None else f"option {name}={value}"

    def _declared_as(self, name: str) -> str:
        """The declared name ``name`` is set through: ``Hash`` and ``Threads``
        (``cores``) in any letter case where ``memory``/``smp`` carry them."""
        folded = name.lower()
        if folded == "hash" and self.features.get("memory") == "1":
            return "Hash"
        if folded in ("threads", "cores") and self.features.get("smp") == "1":
            return "Threads"
        return name

    @property
    def declared_options(self) -> dict[str, Declared]:
        """The options the engine offers, by name, and ``Hash`` / ``Threads``
        (a whole number from 1) where ``memory=1`` / ``smp=1`` carry them."""
        declared = dict(map(xboard_declared, self.offered_options))
        for feature, name in (("memory", "Hash"), ("smp", "Threads")):
            if self.features.get(feature) == "1":
                declared.setdefault(name, Declared("spin", min=1))
        return declared

    def set_option(self, name: str, value: str | None) -> None:
        """Sets an option between games (see ``option_line``), then a ``ping``
        barrier if the engine has ``ping``: ``option_done`` tells when it answered."""
        self.send(self.option_line(name, value))
        self._barrier_ping()

    @property
    def option_done(self) -> bool:
        return self._barrier is None

    # -- arbiter notifications ------------------------------------------------------

    def new_game(
        self,
        rules: HouseRules,
        fen: str,
        clocks: Mapping[Seat, float],
        opening: Sequence[PlayedMove] = (),
        now: str | None = None,
    ) -> None:
        """A new game from ``fen`` and the ``opening``'s moves (``start_board``):
        the engine gets them replayed after ``new``, as any re-sync does."""
        self.start_board(rules, fen, clocks, opening, now)
        self.thinking = self.claimed = self.needs_sync = self.gave_up = False
        self.rejected = 0
        self.resyncs = 0
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
        if self.probing:
            return  # the game is set up once the probe has answered; then we go
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
        if self.probing:
            return
        if played.board is self.seat.board:
            self.claimed = self.gave_up = False
            self.rejected = 0
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
        stuck = self.gave_up or (self.claimed and not self.moves_on_after_claim)
        due = was_my_turn and self.my_turn and not self.answered
        if due and ((gained and stuck) or self.needs_sync):
            # The engine said it will not move (Sjeng never moves again after
            # a claim): a piece of its own arrived, so start it afresh on the
            # new position (what it says before the pong is discarded).
            self.claimed = self.gave_up = False
            self.rejected = 0
            self._sync()
            self._go()

    def partner_says(self, text: str) -> None:
        text = " ".join(text.split())
        if not text:
            return
        # Sjeng reads one signal a line (``++n sit`` is only ``++n`` to it): a
        # message of several signals goes as one ptell each; any other text whole.
        codes = codes_of(text)
        for line in codes if codes is not None and len(codes) > 1 else [text]:
            self.send(f"ptell {line}")

    def draw_offered(self) -> None:
        # CECP: ``draw`` offers the engine a draw, which it accepts with
        # ``offer draw``; an engine with ``feature draw=0`` (Sjeng) is not told.
        if not self.over and self.features.get("draw", "1") != "0":
            self.send("draw")

    def game_over(self) -> None:
        if self.over:
            return
        self.over = True
        if self.thinking or self.probing:
            self.send("?")
            self.thinking = False
        self.send("force")

    def quit(self) -> None:
        if self.thinking or self.probing:
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
            answer = rest.strip()
            if answer.isascii() and answer.isdigit() and len(answer) <= 9:
                self._pong = max(self._pong, int(answer))
            if self._barrier is not None and answer == str(self._barrier):
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
        elif (line.startswith("Illegal move") or head == "Error") and self._limit_refused(line):
            return
        elif line.startswith("Illegal move"):
            self._illegal_reported(line)
        elif head == "Error":
            self.note(f"engine: {line}")

    def _feature(self, text: str) -> None:
        features = parse_features(text)
        for key, value in features.items():
            if key == "done" or (key not in self.features and len(self.features) >= MAX_ANNOUNCED):
                continue
            if key == "option" and len(self.offered_options) < MAX_ANNOUNCED:
                self.offered_options.append(value)
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
        if self.probing:
            self.probe_answered(text)
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
            # Every one is passed on: the seat caps them (``limits.TellQuota``).
            self.emit(EngineTell(rest.strip()))
        elif word == "resign":
            self.emit(EngineResign())

    def _claim(self, line: str) -> None:
        if self.probing and self._barrier is None:
            self.probe_answered(line)
            return
        if not self.thinking or self.token is None or self._barrier is not None:
            self.note(f"engine claim ignored: {line}")
            return
        # Sjeng never moves again after a claim; Fairy-Stockfish may carry on,
        # so a move that still comes is taken.
        self.claimed = True
        self.emit(EngineWait(self.token, f"engine claims {line}; only the arbiter judges"))

    def _limit_refused(self, line: str) -> bool:
        """True if ``line`` refuses one of our limit commands (remembered, noted)."""
        if not self.limits:
            return False
        words = set(line.replace(":", " ").replace("(", " ").replace(")", " ").split())
        refused = [word for word in LIMIT_WORDS if word in words]
        if not refused:
            return False
        self.refused_limits.update(refused)
        self.note(f"engine refused {', '.join(refused)} (not sent again): {line}")
        return True

    def _limit_lines(self) -> list[str]:
        """``sd``/``st``/``nps`` for the spec's limits, less those the engine refused."""
        limits = self.limits
        lines: list[str] = []
        if limits.depth is not None:
            lines.append(f"sd {limits.depth}")
        if limits.nodes is not None and self.features.get("nps") == "1":
            lines += [f"nps {limits.nodes}", "st 1"]
        else:
            if limits.nodes is not None and not self._nodes_noted:
                self._nodes_noted = True
                self.note("engine has no 'feature nps=1': its nodes limit cannot be sent")
            if limits.movetime is not None:
                lines.append(f"st {-(-limits.movetime // 1000)}")
        return [line for line in lines if line.split()[0] not in self.refused_limits]

    def _illegal_reported(self, line: str) -> None:
        self.note(f"engine: {line}")
        if self._barrier is not None or self.probing:
            return
        self.needs_sync = True
        if self.thinking and self.my_turn:
            self._sync()
            self._go()

    # -- the set-up probe -------------------------------------------------------------

    def probe_answered(self, answer: str | None) -> None:
        """The probe's answer (a move, a claim, or None: no answer in time)."""
        if not self.probing:
            return
        self.probing = False
        self.setboard_keeps_bughouse = answer is not None and answer.strip() == PROBE_MOVE
        if self.setboard_keeps_bughouse:
            self.note(f"setboard probe: answered {answer}; it still plays bughouse")
        else:
            self.note(f"setboard probe: answered {answer!r}, not {PROBE_MOVE}")
        # No "?": it has moved already, and Sunsetter would move again.
        self.send("force")
        if self.over:
            return
        self._sync(first=True)
        if self.my_turn and self.token is not None and not self.answered:
            self._go()

    def _start_probe(self) -> None:
        self.probing = True
        self.note("setboard probe: does the engine still play bughouse after setboard?")
        self._reset_engine()
        # White to move, and the engine plays White: "black" then setboard
        # (Sjeng pads the opponent's pocket by the colour it plays).
        if self.sends_colours:
            self.send("black")
        self.send(f"setboard {PROBE_FEN}", "holding [N] []")
        self._barrier_ping()
        self.send("time 300", "otim 300", "go")
        self._believes = chess.WHITE

    # -- sequences ----------------------------------------------------------------------

    def _holding(self, suffix: str = "") -> None:
        if self._believes != self.seat.color and self.sends_colours and not self.set_up:
            # Sjeng would give the fake pieces of its pessimism to itself:
            # the pockets are sent once it knows its colour (at its "go").
            self._holding_due = True
            return
        white = pocket_letters(self.board, True)
        black = pocket_letters(self.board, False)
        line = f"holding [{white}] [{black}]"
        self.send(f"{line} {suffix}" if suffix else line)
        self._holding_due = False

    def _level(self) -> str:
        if not self.rules.clock:
            return f"level 0 0:{UNTIMED_CLOCK_CS // 100:02d} 0"
        base = max(1, round(self.rules.time))
        return f"level 0 {base // 60}:{base % 60:02d} {round(self.rules.increment)}"

    def _reset_engine(self) -> None:
        if self.thinking:
            self.send("?")
            self.thinking = False
        self.send("new", "variant bughouse", "easy", self._level(), "force")
        self._believes = chess.BLACK
        self._holding_due = False

    def _set_colour(self, to_move: chess.Color) -> None:
        """The protocol-1 colour command that is true with ``to_move`` to move."""
        if self.sends_colours:
            # "black" = Black to move, engine plays White; "white" the reverse.
            self.send("black" if to_move == chess.BLACK else "white")
        self._believes = not to_move

    def ping(self) -> int | None:
        """``ping N`` (a barrier too), if the engine has the ``ping`` feature:
        ``pinged(N)`` tells when its ``pong`` came. None without the feature."""
        if not self.has_ping:
            return None
        self._barrier_ping()
        return self._ping

    def pinged(self, ticket: int) -> bool:
        return self._pong >= ticket

    def _barrier_ping(self) -> None:
        if self.has_ping:
            self._ping += 1
            self._barrier = self._ping
            self.send(f"ping {self._ping}")

    def _sync(self, *, first: bool = False) -> None:
        """Sets the engine's game from our board, in force mode.

        ``new``, ``variant bughouse``, then the board's moves replayed (from
        ``setboard`` only for a game set up from another position), the
        colour command where it is true, and the pockets.
        """
        if self.over:
            return
        if self.set_up and self.setboard_keeps_bughouse is None and self.has_setboard:
            self._start_probe()  # the game is set up once it has answered
            return
        if not first:
            self.resyncs += 1
            self.note("re-syncing the engine")
        self._reset_engine()
        moves = list(self.board.move_stack)
        start = BughouseBoard(self.start_fen, rules=self.rules)
        if self.set_up:
            self._set_up(start)
        drops = _dropped(start, moves)
        if any(drops[chess.WHITE]) or any(drops[chess.BLACK]):
            # Drops in the replay need their pieces announced first.
            white = pocket_letters(self.board, chess.WHITE, drops[chess.WHITE])
            black = pocket_letters(self.board, chess.BLACK, drops[chess.BLACK])
            self.send(f"holding [{white}] [{black}]")
        prefix = "usermove " if self.uses_usermove else ""
        mine = self.seat.color
        to_move = start.turn
        for move in moves:
            if self._believes != mine and to_move != mine:
                self._set_colour(to_move)
            self.send(f"{prefix}{move_text(move)}")
            to_move = not to_move
        if self._believes != mine and to_move != mine:
            self._set_colour(to_move)
        if moves or self.set_up or any(self.board.pockets[c] for c in chess.COLORS):
            self._holding()
        self._barrier_ping()
        self.needs_sync = False

    def _set_up(self, start: BughouseBoard) -> None:
        if not self.has_setboard:
            raise EngineFailed(
                "this game starts from a set-up position and the engine has no 'feature setboard=1'"
            )
        if self.setboard_keeps_bughouse is False:
            raise EngineFailed(
                "this game starts from a set-up position and the engine leaves bughouse "
                "after setboard (it did not use a piece announced by holding)"
            )
        # Sjeng pads the pockets by the colour it plays when it reads them:
        # "black" (engine plays White) or "white" first; setboard then sets
        # the side to move and keeps that colour for Sjeng.
        if self.sends_colours:
            self.send("black" if self.seat.color else "white")
        fen = start.fen() if self.pockets_in_setboard else plain_fen(start)
        self.send(f"setboard {fen}")
        # Sunsetter plays the side not to move after setboard.
        self._believes = not start.turn

    def _go(self) -> None:
        if self.over or not self.my_turn or self.thinking or self.probing:
            return
        # The engine books time/otim by the colour it believes it plays. That
        # is its own colour here, except at a White engine's first move after
        # "new" (no colour command is true then), when both clocks are full.
        own, opponent = max(1, self.own_ms() // 10), max(1, self.opponent_ms() // 10)
        if not self.rules.clock:
            own = opponent = UNTIMED_CLOCK_CS
        self.send(*self._limit_lines())
        self.send(f"time {own}", f"otim {opponent}")
        self.send("go")
        self._believes = self.seat.color
        if self._holding_due:
            # Held back while it believed the wrong colour (Sjeng's fake pieces).
            self._holding()
        self.thinking = True


def _dropped(start: chess.Board, moves: Sequence[chess.Move]) -> dict[chess.Color, list[int]]:
    """The piece types each colour drops in ``moves`` (played from ``start``)."""
    drops: dict[chess.Color, list[int]] = {chess.WHITE: [], chess.BLACK: []}
    mover = start.turn
    for move in moves:
        if move.drop is not None:
            drops[mover].append(move.drop)
        mover = not mover
    return drops
