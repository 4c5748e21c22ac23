"""tinyChessServer's CECP dialect: LazyBug, TandemTurtle, BughouseAlphaZero.

tinyChessServer (the Node.js server of a 2019 bughouse course) drives its
engines with a CECP of its own, and the engines written for it know no
other. This adapter says to the engine exactly what that server says, in its
order:

- handshake ``xboard``, ``protover 4``; the engine's first ``feature`` line
  (``otherboard=1``, ``myname="X"``; commas between the pairs are common) is
  answered with one bare ``accepted``; later ``feature`` lines are ignored;
- per game ``new``, ``variant bughouse``, ``partner P`` (P the partner's
  place: 0 A-White, 1 B-Black, 2 A-Black, 3 B-White), ``time T``, ``otim T``
  (centiseconds, once: never again, the engine runs its own clock), then
  ``go`` for White or ``playother`` for Black, and nothing else: the engine
  finds its turns from the moves;
- the opponent's moves as ``move <uci>``, the other board's as
  ``pmove <uci>`` (only to an engine with ``otherboard=1``), drops as
  ``P@e4``; after every move the pockets that changed, board A first:
  ``holding [wp] [bp]`` for the engine's board, ``pholding`` for the other,
  lower case, queens first (``[qnpp]``);
- partner talk as ``ptell X``; the result as ``1-0 {white mated.}`` /
  ``0-1 {white ran out of time.}`` / ``... {reason}`` on the deciding board
  and ``... {The other board finished}`` on the other (each engine hears both,
  the other board's with a ``p`` in front); ``quit`` at the end.

The engine answers ``move <uci>``, ``tellics ptell X`` (or ``ptell X``) for
its partner, and may say ``resign``. What it prints besides is ignored.

Traps handled, each seen in these engines:

- Nothing it does not expect: no ``time`` after ``go``, no empty line (either
  kills LazyBug's reading thread while the process lives on, silent), no
  ``ping``, ``force``, ``setboard``, ``level`` or ``?``. A game set up from
  another position, or begun with book moves, cannot be given to it: it is
  refused (``EngineFailed``).
- No line but a real move contains the word "move" (TandemTurtle takes any
  such line for a move): partner talk and result reasons have it written
  ``mv``, and a move the engine makes out of turn or after the game is
  ignored without a word (tinyChessServer's ``Error (not on the move)``
  desynced TandemTurtle). An engine move that is not legal is answered
  ``Illegal move: X`` as the server does (TandemTurtle skips lines with
  "Illegal"); after ``MAX_REJECTED`` of them the seat waits.
- A move printed before its turn is open here (the engine moves on its own
  after ``go`` or the opponent's move) is held and given at the turn.
- LazyBug's MCTS says ``tellics ptell sitting (...)`` about once a second
  while it sits: the same message again before a move on its board is passed
  on once only, so the seat's per-game cap on partner messages is not spent.
- It ignores result lines and may move after a time forfeit: everything it
  says after the game is over is dropped until the next ``new``.
- BughouseAlphaZero learns its seat only from ``partner P``: it is sent every
  game, from the seat held in that game.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

import chess

from ..config.specs import NO_LIMITS, SearchLimits
from ..core.game import PlayedMove
from ..core.model import BOARDS, BoardId, Outcome, Seat, Termination
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..protocol.flood import Keep, keep_lines
from .common import (
    STANDARD_START,
    EngineAdapter,
    EngineMove,
    EngineResign,
    EngineTell,
    EngineWait,
    clip,
    move_text,
)

#: tinyChessServer's places: 0 A-White, 1 B-Black, 2 A-Black, 3 B-White
#: (0 and 1 are partners, as are 2 and 3).
PLACES: Mapping[Seat, int] = {
    Seat.A_WHITE: 0,
    Seat.B_BLACK: 1,
    Seat.A_BLACK: 2,
    Seat.B_WHITE: 3,
}
#: Its WebSocket endpoint's query for each seat (``/websocketclient?A``).
PLACE_QUERY: Mapping[Seat, str] = {
    Seat.A_WHITE: "A",
    Seat.A_BLACK: "a",
    Seat.B_WHITE: "B",
    Seat.B_BLACK: "b",
}
#: Rejected moves in one turn after which the seat waits (it sits until a move).
MAX_REJECTED = 3
#: The clock (centiseconds) told in untimed play: about a second a move.
UNTIMED_CLOCK_CS = 3000
OTHER_BOARD_FINISHED = "The other board finished"
#: The server's own pocket order (python-chess's: queen first).
POCKET_ORDER = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
_FEATURE = re.compile(r'(\w+)=(?:(\w+)|"((?:[^\\"]|\\.)*)")')
_MOVE_WORD = re.compile("move", re.IGNORECASE)


def parse_features(text: str) -> dict[str, str]:
    """The pairs of a ``feature`` line, read as tinyChessServer reads them
    (``san=1, myname="Lazy Bug"`` -> {"san": "1", "myname": "Lazy Bug"})."""
    return {m[1]: m[2] if m[2] is not None else m[3] for m in _FEATURE.finditer(text)}


def defused(text: str) -> str:
    """``text`` as one line with no word "move" in it (``mv``) and no braces."""
    text = " ".join(text.replace("{", "(").replace("}", ")").split())
    return _MOVE_WORD.sub("mv", text)


def pockets_of(fen: str) -> str:
    """``[white] [black]`` of a bughouse FEN, as the server writes them: ``[qnpp] []``."""
    placement = fen.split(" ", 1)[0]
    _, bracket, rest = placement.partition("[")
    letters = rest.split("]", 1)[0] if bracket else ""
    sides = []
    for upper in (True, False):
        mine = [c.lower() for c in letters if c.isalpha() and c.isupper() == upper]
        sides.append(
            "".join(chess.piece_symbol(p) * mine.count(chess.piece_symbol(p)) for p in POCKET_ORDER)
        )
    return f"[{sides[0]}] [{sides[1]}]"


def board_result(outcome: Outcome, board: BoardId) -> str:
    """The result as ``board``'s own players see it (White's score first)."""
    result = outcome.result.value
    if outcome.winner is None or result == "*":
        return result
    return "1-0" if Seat.of(board, chess.WHITE).team is outcome.winner else "0-1"


def comment_of(outcome: Outcome) -> str:
    """The server's words for the deciding board where it has them, else the reason."""
    colour = None if outcome.seat is None else ("white" if outcome.seat.color else "black")
    if colour is not None and outcome.termination is Termination.CHECKMATE:
        return f"{colour} mated."
    if colour is not None and outcome.termination is Termination.FLAG:
        return f"{colour} ran out of time."
    return defused(outcome.reason) or outcome.termination.value.replace("_", " ")


def result_lines(outcome: Outcome, seat: Seat, otherboard: bool) -> list[str]:
    """What the server sends ``seat`` at the end: the deciding board's result,
    then the other board's, each with a ``p`` in front where it is not ``seat``'s
    board (and only to an engine with ``otherboard=1``)."""
    deciding = outcome.board or seat.board
    said = [
        (deciding, f"{board_result(outcome, deciding)} {{{comment_of(outcome)}}}"),
        (deciding.other, f"{board_result(outcome, deciding.other)} {{{OTHER_BOARD_FINISHED}}}"),
    ]
    return [
        text if board is seat.board else f"p{text}"
        for board, text in said
        if board is seat.board or otherboard
    ]


class TcsAdapter(EngineAdapter):
    """One engine speaking tinyChessServer's dialect at one seat."""

    KEEP: ClassVar[Keep] = keep_lines(("feature", "move", "tellics", "ptell", "resign"))

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
        #: Waiting for this connection's first ``feature`` line.
        self.negotiating = False
        self._held_move: str | None = None
        self._last_tell: str | None = None
        #: Pockets last told, per board (the server starts from ``[] []``).
        self._told: dict[BoardId, str] = {}

    @property
    def ready(self) -> bool:
        """The handshake is over (the dialect has nothing after ``accepted``)."""
        return self.handshake_done

    @property
    def otherboard(self) -> bool:
        return self.features.get("otherboard") == "1"

    # -- handshake -----------------------------------------------------------------

    def begin(self) -> None:
        """The server's greeting; also for each new connection of a WebSocket engine."""
        self.negotiating = True
        self.send("xboard", "protover 4")

    def _accept(self, text: str) -> None:
        self.negotiating = False
        self.features = parse_features(text)
        if "myname" in self.features:
            self.name = self.features["myname"]
        self.send("accepted")
        if self.handshake_done:
            return
        self.handshake_done = True
        if self.options:
            raise EngineFailed("tinyChessServer's dialect has no engine options to set")
        if self.limits:
            self.note("tinyChessServer's dialect cannot carry movetime, depth or nodes")
        self.send(*self.init)

    def set_option(self, name: str, value: str | None) -> None:
        raise EngineFailed("tinyChessServer's dialect has no engine options to set")

    @property
    def option_done(self) -> bool:
        return True

    def ping(self) -> int | None:
        return None  # the dialect has no ping

    def pinged(self, ticket: int) -> bool:
        return False

    # -- arbiter notifications ------------------------------------------------------

    def new_game(
        self,
        rules: HouseRules,
        fen: str,
        clocks: Mapping[Seat, float],
        opening: Sequence[PlayedMove] = (),
        now: str | None = None,
        *,
        other_fen: str = STANDARD_START,
    ) -> None:
        """``new`` ... ``go``/``playother``; only from the standard start on both
        boards (``other_fen``: the other board's start).

        Raises:
            EngineFailed: a set-up position or book moves (the dialect has neither).
        """
        if opening or any(f != STANDARD_START for f in (fen, now or fen, other_fen)):
            raise EngineFailed(
                "tinyChessServer's dialect has no set-up positions or book moves: "
                "its games start from the standard position (tournament: --opening-plies 0)"
            )
        self.start_board(rules, fen, clocks)
        self._held_move = self._last_tell = None
        self._told = dict.fromkeys(BOARDS, "[] []")
        self.rejected = 0
        if rules.clock:
            own, other = self.own_ms() // 10, self.opponent_ms() // 10
        else:
            own = other = UNTIMED_CLOCK_CS
        self.send(
            "new",
            "variant bughouse",
            f"partner {PLACES[self.seat.partner]}",
            f"time {max(1, own)}",
            f"otim {max(1, other)}",
            "go" if self.seat.color == chess.WHITE else "playother",
        )

    def your_turn(self, token: int, fen: str, clocks: Mapping[Seat, float]) -> None:
        self.clocks = dict(clocks)
        if self.board.fen() != fen:
            self.note("position out of step at our turn (the dialect cannot re-sync)")
            self.reset_board(fen)
        self.open_turn(token)
        held, self._held_move = self._held_move, None
        if held is not None:
            self._engine_move(held)

    def moved(
        self,
        played: PlayedMove,
        fen: str,
        clocks: Mapping[Seat, float],
        *,
        other_fen: str | None = None,
    ) -> None:
        """A move on either board (``fen``, ``other_fen``: this board and the other after it)."""
        if self.over:
            return
        if not self.follow(played, fen, clocks):
            self.note("the engine cannot be re-synced in this dialect; it plays on")
        if played.board is self.seat.board:
            self._last_tell = None
            self.rejected = 0
            self._held_move = None
            if played.seat is self.seat:
                self.token = None
            else:
                self.send(f"move {move_text(played.move)}")
        elif self.otherboard:
            self.send(f"pmove {move_text(played.move)}")
        fens = {self.seat.board: fen, self.seat.board.other: other_fen}
        for board in BOARDS:
            board_fen = fens[board]
            if board_fen is None:
                continue
            pockets = pockets_of(board_fen)
            if pockets == self._told[board]:
                continue
            self._told[board] = pockets
            if board is self.seat.board:
                self.send(f"holding {pockets}")
            elif self.otherboard:
                self.send(f"pholding {pockets}")

    def partner_says(self, text: str) -> None:
        text = defused(text)
        if text:
            self.send(f"ptell {text}")

    def game_over(self, outcome: Outcome | None = None) -> None:
        """The result lines (none without ``outcome``); the engine's moves are ignored after."""
        if self.over:
            return
        self.over = True
        self._held_move = None
        if outcome is not None:
            self.send(*result_lines(outcome, self.seat, self.otherboard))

    def quit(self) -> None:
        self.send("quit")

    # -- engine output ------------------------------------------------------------------

    def receive(self, line: str) -> None:
        line = clip(line).strip()
        head, _, rest = line.partition(" ")
        rest = rest.strip()
        if head == "feature":
            if self.negotiating:
                self._accept(rest)
        elif head == "move":
            self._engine_move(rest)
        elif head == "tellics":
            word, _, said = rest.partition(" ")
            if word == "ptell":
                self._tell(said.strip())
        elif head == "ptell":
            self._tell(rest)
        elif head == "resign" and not self.over:
            self.emit(EngineResign())

    def _tell(self, text: str) -> None:
        if not text or self.over:
            return
        if text == self._last_tell:
            return  # said again with nothing moved since (MCTS sitting)
        self._last_tell = text
        self.emit(EngineTell(text))

    def _engine_move(self, text: str) -> None:
        if self.over:
            self.note(f"move {text!r} after the game ignored")
            return
        if not self.my_turn or self.answered:
            self.note(f"move {text!r} out of turn ignored")
            return
        if self.token is None:
            self._held_move = text  # its turn is not open here yet
            return
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            self.note(f"engine move {text!r} is not UCI (the dialect takes no SAN): ignored")
            return
        if not self.board.is_legal(move):
            self.rejected += 1
            self.note(f"engine move rejected: {text!r} is not legal here")
            self.send(f"Illegal move: {text}")
            if self.rejected == MAX_REJECTED:
                self.emit(EngineWait(self.token, f"engine's moves rejected ({text})"))
            return
        self.emit(EngineMove(self.token, move_text(move)))
