"""The values of the native protocol (BUG/1, protocol.md): one frozen class per line.

Commands go from the arbiter to an engine, messages from an engine to the
arbiter. ``KEYWORD`` is each line's first word.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Final, Literal

import attrs

from ..core.model import BoardId, Result, Seat, Termination
from ..errors import ArbiterError

VERSION: Final = 1
#: The longest line (in bytes, without the LF) either side may write.
MAX_LINE: Final = 8192

Clocks = tuple[int, int, int, int]
"""Remaining milliseconds of a-white, a-black, b-white, b-black."""


class LocalProtocolError(ArbiterError):
    """The arbiter tried to send something the protocol does not allow now (our bug)."""


class ProtocolSyntaxError(ValueError):
    """A line that does not follow the grammar of protocol.md."""


class SessionState(enum.Enum):
    """protocol.md §3, one engine process as the arbiter sees it."""

    STARTED = "started"
    HANDSHAKE = "handshake"
    READY = "ready"
    PLAYING = "playing"
    QUITTING = "quitting"
    CLOSED = "closed"

    #: Members are singletons: identity hashing spares Enum's Python-level
    #: ``__hash__`` (the session looks its state up on every line it sends).
    __hash__ = object.__hash__


class Marker(enum.Enum):
    NEED_DATA = "need data"
    CLOSED = "closed"


NEED_DATA: Final = Marker.NEED_DATA
"""``next_event``: no complete line yet, feed more data."""
CLOSED: Final = Marker.CLOSED
"""``next_event``: the engine's output ended and every line was handed out."""


# -- arbiter -> engine commands ----------------------------------------------------


@attrs.frozen
class Bug:
    KEYWORD: ClassVar[str] = "bug"
    version: int = VERSION


@attrs.frozen
class SetOption:
    KEYWORD: ClassVar[str] = "setoption"
    name: str
    value: str | None = None


@attrs.frozen
class IsReady:
    KEYWORD: ClassVar[str] = "isready"


@attrs.frozen(kw_only=True)
class NewGame:
    KEYWORD: ClassVar[str] = "newgame"
    game_id: str
    seats: tuple[Seat, ...]
    time_ms: int
    inc_ms: int


@attrs.frozen
class PlayerInfo:
    KEYWORD: ClassVar[str] = "player"
    seat: Seat
    kind: Literal["engine", "human"]
    name: str


@attrs.frozen
class RulesInfo:
    KEYWORD: ClassVar[str] = "rules"
    pairs: tuple[tuple[str, str], ...]


@attrs.frozen(kw_only=True)
class State:
    KEYWORD: ClassVar[str] = "state"
    version: int
    fen_a: str
    fen_b: str
    clocks: Clocks
    #: ``nodouble``: per board (a, b), the squares of dropped pawns that may not
    #: double-step; only under ``dropped_pawn_double_step=off``.
    no_double: tuple[tuple[str, ...], tuple[str, ...]] | None = None


@attrs.frozen(kw_only=True)
class MoveEvent:
    KEYWORD: ClassVar[str] = "event"
    version: int
    board: BoardId
    move: str
    passed: str | None = None
    clocks: Clocks


@attrs.frozen(kw_only=True)
class Go:
    KEYWORD: ClassVar[str] = "go"
    version: int
    token: int
    board: BoardId
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    #: ms left of the turn's time limit (``turn_time_limit``), counted from this ``go``.
    limit: int | None = None


@attrs.frozen(kw_only=True)
class Refused:
    """``illegal``: the move for ``token`` was refused; the turn is open again."""

    KEYWORD: ClassVar[str] = "illegal"
    token: int
    move: str
    reason: str


@attrs.frozen
class PartnerTell:
    KEYWORD: ClassVar[str] = "ptell"
    text: str


@attrs.frozen
class RelayedDrawOffer:
    KEYWORD: ClassVar[str] = "draw"
    by: Seat


@attrs.frozen(kw_only=True)
class BoardOver:
    KEYWORD: ClassVar[str] = "boardover"
    board: BoardId
    result: Result
    reason: Termination
    seat: Seat | None = None
    text: str


@attrs.frozen(kw_only=True)
class GameOver:
    KEYWORD: ClassVar[str] = "gameover"
    result: Result
    reason: Termination
    board: BoardId | None = None
    seat: Seat | None = None
    text: str


@attrs.frozen
class Quit:
    KEYWORD: ClassVar[str] = "quit"


Command = (
    Bug
    | SetOption
    | IsReady
    | NewGame
    | PlayerInfo
    | RulesInfo
    | State
    | MoveEvent
    | Go
    | Refused
    | PartnerTell
    | RelayedDrawOffer
    | BoardOver
    | GameOver
    | Quit
)
COMMAND_TYPES: Final[tuple[type[Command], ...]] = (
    Bug,
    SetOption,
    IsReady,
    NewGame,
    PlayerInfo,
    RulesInfo,
    State,
    MoveEvent,
    Go,
    Refused,
    PartnerTell,
    RelayedDrawOffer,
    BoardOver,
    GameOver,
    Quit,
)


# -- engine -> arbiter messages ------------------------------------------------------


@attrs.frozen
class Id:
    KEYWORD: ClassVar[str] = "id"
    key: str
    value: str


@attrs.frozen(kw_only=True)
class OptionSpec:
    """An ``option`` line in UCI syntax."""

    KEYWORD: ClassVar[str] = "option"
    name: str
    type: str
    default: str | None = None
    min: str | None = None
    max: str | None = None
    vars: tuple[str, ...] = ()


@attrs.frozen
class Feature:
    KEYWORD: ClassVar[str] = "feature"
    name: str
    value: str = ""


@attrs.frozen
class BugOk:
    KEYWORD: ClassVar[str] = "bugok"


@attrs.frozen
class ReadyOk:
    KEYWORD: ClassVar[str] = "readyok"


@attrs.frozen(kw_only=True)
class BestMove:
    KEYWORD: ClassVar[str] = "bestmove"
    move: str
    token: int
    board: BoardId | None = None


@attrs.frozen(kw_only=True)
class Wait:
    KEYWORD: ClassVar[str] = "wait"
    token: int
    board: BoardId | None = None
    reason: str = ""


@attrs.frozen(kw_only=True)
class Resign:
    KEYWORD: ClassVar[str] = "resign"
    board: BoardId | None = None


@attrs.frozen(kw_only=True)
class Draw:
    """``draw offer`` or ``draw accept`` (both mean: I agree to a draw)."""

    KEYWORD: ClassVar[str] = "draw"
    accept: bool = False
    board: BoardId | None = None


@attrs.frozen
class Tell:
    """``ptell`` from the engine to its partner."""

    KEYWORD: ClassVar[str] = "ptell"
    text: str


@attrs.frozen(kw_only=True)
class Info:
    KEYWORD: ClassVar[str] = "info"
    text: str
    board: BoardId | None = None


@attrs.frozen
class EngineError:
    KEYWORD: ClassVar[str] = "error"
    text: str


@attrs.frozen
class Ignored:
    """A line the arbiter ignores (and logs), with the reason."""

    line: str
    reason: str


Message = (
    Id
    | OptionSpec
    | Feature
    | BugOk
    | ReadyOk
    | BestMove
    | Wait
    | Resign
    | Draw
    | Tell
    | Info
    | EngineError
)
MESSAGE_TYPES: Final[tuple[type[Message], ...]] = (
    Id,
    OptionSpec,
    Feature,
    BugOk,
    ReadyOk,
    BestMove,
    Wait,
    Resign,
    Draw,
    Tell,
    Info,
    EngineError,
)

Event = Message | Ignored
