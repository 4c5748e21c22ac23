"""One engine process as the arbiter sees it: lines in, typed events out.

``LineBuffer`` splits output into capped lines; ``EngineSession`` mirrors the
state table of protocol.md §3 and keeps the turn bookkeeping.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

import attrs

from ..core.model import BoardId, Seat
from .grammar import format_command, parse_message, split
from .limits import (
    INFO_LIMIT,
    MAX_ANNOUNCED,
    MOVE_LIMIT,
    NAME_LIMIT,
    TELL_LIMIT,
    TEXT_LIMIT,
    engine_text,
    keep_announced,
)
from .messages import (
    CLOSED,
    MAX_LINE,
    MESSAGE_TYPES,
    NEED_DATA,
    BestMove,
    BoardOver,
    Bug,
    BugOk,
    Command,
    Draw,
    EngineError,
    Event,
    Feature,
    GameOver,
    Go,
    Id,
    Ignored,
    Info,
    IsReady,
    LocalProtocolError,
    Marker,
    Message,
    MoveEvent,
    NewGame,
    OptionSpec,
    PlayerInfo,
    ProtocolSyntaxError,
    Quit,
    Refused,
    Resign,
    RulesInfo,
    SessionState,
    SetOption,
    State,
    Tell,
    Wait,
)

# -- lines ----------------------------------------------------------------------------


@attrs.frozen
class RawLine:
    """One line of output: decoded text (no LF, no trailing CR) and its size in bytes.

    An ``overlong`` line was longer than the limit: ``text`` holds only its
    beginning and the rest was thrown away unread.
    """

    text: str
    length: int
    overlong: bool = False


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class LineBuffer:
    """Splits a byte stream into ``RawLine``s; keeps partial lines; caps length.

    An over-long line is not kept in memory: its first ``max_line`` bytes are,
    and the rest is only counted until its LF arrives.
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._partial = bytearray()
        self._skipped = 0  # >0 while inside an over-long line

    def feed(self, data: bytes | bytearray) -> list[RawLine]:
        pieces = bytes(data).split(b"\n")
        if len(pieces) == 1:
            self._add_partial(pieces[0])
            return []
        lines = [self._finish(pieces[0])]
        lines.extend(self._line(piece) for piece in pieces[1:-1])
        self._add_partial(pieces[-1])
        return lines

    def close(self) -> list[RawLine]:
        """End of the stream: an unterminated last line still counts as a line."""
        if self._skipped or self._partial:
            return [self._finish(b"")]
        return []

    def _add_partial(self, chunk: bytes) -> None:
        if self._skipped:
            self._skipped += len(chunk)
            return
        self._partial += chunk
        if len(self._partial) > self.max_line + 1:  # +1: a CR may still end it
            self._skipped = len(self._partial)
            del self._partial[self.max_line :]

    def _finish(self, chunk: bytes) -> RawLine:
        """Ends the line that started in earlier data."""
        if self._skipped:
            length = self._skipped + len(chunk)
            head = bytes(self._partial)
            self._partial.clear()
            self._skipped = 0
            return RawLine(_decode(head), length, overlong=True)
        if self._partial:
            chunk = bytes(self._partial) + chunk
            self._partial.clear()
        return self._line(chunk)

    def line(self, data: bytes) -> RawLine:
        """One whole line (without its LF) read on its own, outside the stream."""
        return self._line(data)

    def _line(self, data: bytes) -> RawLine:
        if data.endswith(b"\r"):
            data = data[:-1]
        if len(data) > self.max_line:
            return RawLine(_decode(data[: self.max_line]), len(data), overlong=True)
        return RawLine(_decode(data), len(data))


# -- the session ------------------------------------------------------------------------

#: protocol.md §3: what the arbiter may send in each state (by keyword).
COMMANDS_ALLOWED: Final[dict[SessionState, frozenset[str]]] = {
    SessionState.STARTED: frozenset({"bug", "quit"}),
    SessionState.HANDSHAKE: frozenset({"quit"}),
    SessionState.READY: frozenset({"setoption", "isready", "newgame", "quit"}),
    SessionState.PLAYING: frozenset(
        {
            "player",
            "rules",
            "state",
            "event",
            "go",
            "illegal",
            "ptell",
            "draw",
            "boardover",
            "isready",
            "gameover",
            "quit",
        }
    ),
    SessionState.QUITTING: frozenset(),
    SessionState.CLOSED: frozenset(),
}

#: protocol.md §3: what the engine may send in each state (by keyword).
MESSAGES_ALLOWED: Final[dict[SessionState, frozenset[str]]] = {
    SessionState.STARTED: frozenset(),
    SessionState.HANDSHAKE: frozenset({"id", "option", "feature", "bugok"}),
    SessionState.READY: frozenset({"readyok", "info", "error"}),
    SessionState.PLAYING: frozenset(
        {"readyok", "bestmove", "wait", "resign", "draw", "ptell", "info", "error"}
    ),
    SessionState.QUITTING: frozenset(),
    SessionState.CLOSED: frozenset(),
}

#: Commands that change nothing in the session (``send`` does not call
#: ``_after_send`` for them: most lines are a move's event or a turn's state).
_STATELESS: Final = frozenset({MoveEvent, State, PlayerInfo, RulesInfo, IsReady, SetOption})

#: Longest engine line quoted in an ``Ignored`` event.
QUOTE_LIMIT: Final = 200


def _quote(text: str) -> str:
    return engine_text(text, QUOTE_LIMIT)


def encode_command(command: Command) -> bytes:
    """``command``'s line, LF included, as bytes; raises ``LocalProtocolError`` if too long."""
    data = (format_command(command) + "\n").encode()
    if len(data) - 1 > MAX_LINE:
        raise LocalProtocolError(f"{command.KEYWORD!r} line is longer than {MAX_LINE} bytes")
    return data


class EngineSession:
    """One engine process, as the arbiter sees it (protocol.md §3).

    ``send`` turns a command into bytes and moves the state along;
    ``receive_data``/``receive_line`` take the engine's output and
    ``next_event`` hands out one typed message at a time. Turn bookkeeping
    lives here: a ``BestMove`` or ``Wait`` only comes out for an open turn,
    with its board filled in; everything else becomes ``Ignored``.
    """

    def __init__(self, *, max_line: int = MAX_LINE) -> None:
        self.state = SessionState.STARTED
        self.ids: dict[str, str] = {}
        self.options: dict[str, OptionSpec] = {}
        self.features: dict[str, str] = {}
        #: The seats of the current game (two in team mode).
        self.seats: tuple[Seat, ...] = ()
        #: Open turns: token -> board.
        self.open_turns: dict[int, BoardId] = {}
        self._issued: dict[int, BoardId] = {}
        self._last_token = 0
        self._buffer = LineBuffer(max_line)
        self._lines: deque[RawLine] = deque()
        self._eof = False

    # -- what we know ------------------------------------------------------------

    @property
    def name(self) -> str | None:
        return self.ids.get("name")

    @property
    def supports_team(self) -> bool:
        return "team" in self.features

    @property
    def team_mode(self) -> bool:
        return len(self.seats) > 1

    def seat_on(self, board: BoardId) -> Seat | None:
        """The seat this engine holds on ``board`` in the current game."""
        for seat in self.seats:
            if seat.board is board:
                return seat
        return None

    # -- arbiter -> engine ------------------------------------------------------------

    def send(self, command: Command, data: bytes | None = None) -> bytes:
        """The bytes to write for ``command``; raises ``LocalProtocolError`` if not allowed now.

        ``data`` is ``encode_command(command)`` when the caller has it already
        (one event told to four engines is formatted once).
        """
        keyword = command.KEYWORD
        if keyword not in COMMANDS_ALLOWED[self.state]:
            raise LocalProtocolError(f"cannot send {keyword!r} in state {self.state.value!r}")
        if data is None:
            data = encode_command(command)
        if type(command) not in _STATELESS:
            self._after_send(command)
        return data

    def _after_send(self, command: Command) -> None:
        if isinstance(command, Bug):
            self.state = SessionState.HANDSHAKE
        elif isinstance(command, NewGame):
            self._start_game(command.seats)
        elif isinstance(command, Go):
            self._open_turn(command.token, command.board)
        elif isinstance(command, Refused):
            if command.token not in self._issued:
                raise LocalProtocolError(f"turn {command.token} was never issued")
            self.open_turns.pop(command.token, None)
        elif isinstance(command, BoardOver):
            self._close_turns(lambda board: board is command.board)
        elif isinstance(command, GameOver):
            self._close_turns(lambda board: True)
            self.state = SessionState.READY
        elif isinstance(command, Quit):
            self.state = SessionState.QUITTING

    def _start_game(self, seats: tuple[Seat, ...]) -> None:
        if not 1 <= len(seats) <= 2 or len(set(seats)) != len(seats):
            raise LocalProtocolError(f"a session holds one seat or two: {seats}")
        if len(seats) == 2:
            if seats[0].team is not seats[1].team:
                raise LocalProtocolError("team mode needs the two seats of one team")
            if not self.supports_team:
                raise LocalProtocolError("the engine did not announce 'feature team'")
        self.seats = seats
        self.open_turns.clear()
        self._issued.clear()
        self.state = SessionState.PLAYING

    def _open_turn(self, token: int, board: BoardId) -> None:
        if token <= self._last_token:
            raise LocalProtocolError(f"turn token {token} is not larger than {self._last_token}")
        if self.seat_on(board) is None:
            raise LocalProtocolError(f"this engine holds no seat on board {board.value}")
        if board in self.open_turns.values():
            raise LocalProtocolError(f"a turn on board {board.value} is already open")
        self._last_token = token
        self._issued[token] = board
        self.open_turns[token] = board

    def close_turn(self, token: int) -> None:
        """Forgets an open turn the arbiter took back; later answers to it are stale."""
        self.open_turns.pop(token, None)

    def _close_turns(self, which: Callable[[BoardId], bool]) -> None:
        for token, board in list(self.open_turns.items()):
            if which(board):
                del self.open_turns[token]

    # -- engine -> arbiter ----------------------------------------------------------------

    def receive_data(self, data: bytes | bytearray) -> None:
        """Feeds raw output; ``b""`` means the output ended (EOF)."""
        if self._eof:
            return
        if not data:
            self._lines.extend(self._buffer.close())
            self._eof = True
        else:
            self._lines.extend(self._buffer.feed(data))

    def receive_line(self, line: RawLine) -> None:
        """Feeds a line split by the transport (same effect as its bytes plus LF)."""
        if not self._eof:
            self._lines.append(line)

    def receive_eof(self) -> None:
        self.receive_data(b"")

    def next_event(self) -> Event | Marker:
        """The next message or ``Ignored``; ``NEED_DATA`` or ``CLOSED`` when there is none."""
        while self._lines:
            raw = self._lines.popleft()
            if raw.overlong:
                return Ignored(
                    _quote(raw.text),
                    f"over-long line ({raw.length} bytes, limit {self._buffer.max_line})",
                )
            if raw.text.strip(" \t"):
                return self._judge(raw.text)
        if self._eof:
            self.state = SessionState.CLOSED
            return CLOSED
        return NEED_DATA

    def _judge(self, line: str) -> Event:
        try:
            message = parse_message(line)
        except ProtocolSyntaxError as exc:
            keyword = split(line, 1)[0]
            known = any(keyword == t.KEYWORD for t in MESSAGE_TYPES)
            reason = f"malformed {keyword!r}: {exc}" if known else "unknown line"
            return Ignored(_quote(line), engine_text(reason))
        if message.KEYWORD not in MESSAGES_ALLOWED[self.state]:
            return Ignored(
                _quote(line), f"{message.KEYWORD!r} is not expected in state {self.state.value!r}"
            )
        try:
            return self._accept(message)
        except _Stale as exc:
            return Ignored(_quote(line), str(exc))

    def _accept(self, message: Message) -> Message:
        message = _bounded(message)
        match message:
            case BestMove(move=move, token=token, board=board):  # first: the line of every move
                board = self._check_turn(token, board, "bestmove")
                del self.open_turns[token]
                # Built directly: attrs.evolve costs as much as the rest of the line.
                return BestMove(move=move, token=token, board=board)
            case BugOk():
                self.state = SessionState.READY
            case Id(key=key, value=value):
                keep_announced(self.ids, key, value)
            case OptionSpec(name=name):
                keep_announced(self.options, name, message)
            case Feature(name=name, value=value):
                keep_announced(self.features, name, value)
            case Wait(token=token, board=board):
                return attrs.evolve(message, board=self._check_turn(token, board, "wait"))
            case Resign(board=board):
                return attrs.evolve(message, board=self._own_board(board))
            case Draw(board=board):
                return attrs.evolve(message, board=self._own_board(board))
            case Info(board=board):
                if self.seats and (board is None or self.seat_on(board) is not None):
                    return attrs.evolve(message, board=self._own_board(board))
            case Tell(text=text):
                if self.team_mode:
                    raise _Stale("'ptell' is not used in team mode")
                if not text:
                    raise _Stale("'ptell' with nothing printable")
        return message

    def _check_turn(self, token: int, board: BoardId | None, what: str) -> BoardId:
        if token not in self.open_turns:
            raise _Stale(f"{what} for turn {token}, which is not open (stale or unknown)")
        turn_board = self.open_turns[token]
        if board is None and self.team_mode:
            raise _Stale(f"{what} without 'board' in team mode")
        if board is not None and board is not turn_board:
            raise _Stale(
                f"{what} names board {board.value} but turn {token} is on board {turn_board.value}"
            )
        return turn_board

    def _own_board(self, board: BoardId | None) -> BoardId:
        if board is None:
            return self.seats[0].board
        if self.seat_on(board) is None:
            raise _Stale(f"this engine holds no seat on board {board.value}")
        return board


def _bounded(message: Message) -> Message:
    """The message with every text an engine wrote cleaned and cut (``limits``)."""
    match message:
        case BestMove(move=move):  # first: the line of every move
            bounded = engine_text(move, MOVE_LIMIT)
            if bounded is move:  # the usual case: nothing to clean
                return message
            return BestMove(move=bounded, token=message.token, board=message.board)
        case Id(key=key, value=value):
            limit = NAME_LIMIT if key == "name" else TEXT_LIMIT
            return Id(engine_text(key), engine_text(value, limit))
        case OptionSpec():
            return attrs.evolve(
                message,
                name=engine_text(message.name),
                type=engine_text(message.type),
                default=_maybe_text(message.default),
                min=_maybe_text(message.min),
                max=_maybe_text(message.max),
                vars=tuple(engine_text(v) for v in message.vars[:MAX_ANNOUNCED]),
            )
        case Feature(name=name, value=value):
            return Feature(engine_text(name), engine_text(value))
        case Wait(reason=reason):
            return attrs.evolve(message, reason=engine_text(reason))
        case Tell(text=text):
            return Tell(engine_text(text, TELL_LIMIT))
        case Info(text=text):
            return attrs.evolve(message, text=engine_text(text, INFO_LIMIT))
        case EngineError(text=text):
            return EngineError(engine_text(text))
    return message


def _maybe_text(text: str | None) -> str | None:
    return None if text is None else engine_text(text)


class _Stale(Exception):
    """A well-formed message that does not fit the session (logged and ignored)."""
