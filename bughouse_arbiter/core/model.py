"""The table: boards, seats, teams, and how a match ends.

Pure values only. Team 1 is A-White + B-Black, team 2 is A-Black + B-White
(docs/rules.md): partners sit at different boards and play opposite colours.
"""

from __future__ import annotations

import dataclasses
import enum

import chess


class BoardId(enum.Enum):
    """One of the two boards."""

    _value_: str
    A = "A"
    B = "B"

    # Members are singletons: hash them by identity, in C. Enum's own hash
    # (of the member's name, in Python) was ~100 calls a move in the arbiter.
    __hash__ = object.__hash__

    #: The other board (set on each member below: an attribute, not a property,
    #: as it is read on every move).
    other: BoardId

    @property
    def value(self) -> str:
        # Said here, as mypy infers no type for ``value`` once the class
        # declares attributes that are not members.
        return self._value_

    @classmethod
    def parse(cls, text: str) -> BoardId:
        """Reads ``A``/``B`` in either case."""
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ValueError(f"unknown board {text!r} (expected A or B)") from None


class Team(enum.IntEnum):
    """Team 1 (A-White + B-Black) and team 2 (A-Black + B-White)."""

    ONE = 1
    TWO = 2

    @property
    def other(self) -> Team:
        return Team.TWO if self is Team.ONE else Team.ONE

    @property
    def seats(self) -> tuple[Seat, Seat]:
        if self is Team.ONE:
            return (Seat.A_WHITE, Seat.B_BLACK)
        return (Seat.A_BLACK, Seat.B_WHITE)


_SEAT_ALIASES: dict[str, str] = {}


class Seat(enum.Enum):
    """One of the four chairs at the table."""

    _value_: str
    A_WHITE = "A-White"
    A_BLACK = "A-Black"
    B_WHITE = "B-White"
    B_BLACK = "B-Black"

    __hash__ = object.__hash__  # as for BoardId

    @classmethod
    def of(cls, board: BoardId, color: chess.Color) -> Seat:
        """The seat that plays ``color`` on ``board``."""
        return _SEAT_OF[board, bool(color)]

    @classmethod
    def parse(cls, text: str) -> Seat:
        """Reads ``A-white``, ``a_white``, ``aw`` or BPGN's ``WA``/``BA``/``WB``/``BB``."""
        key = text.strip().lower().replace("_", "-")
        try:
            return cls(_SEAT_ALIASES[key])
        except KeyError:
            raise ValueError(
                f"unknown seat {text!r} (expected A-white, A-black, B-white, B-black, "
                "or WA, BA, WB, BB)"
            ) from None

    # Plain attributes of each member, set once below: they are read a dozen
    # times a move, and a property (or reading a member off its class,
    # ``Seat.A_WHITE``) costs several times an attribute.

    #: The board this seat plays on.
    board: BoardId
    #: Its colour (``chess.WHITE`` or ``chess.BLACK``).
    color: chess.Color
    #: The team it plays for.
    team: Team
    #: The seat on the other board in its team.
    partner: Seat
    #: The seat across its own board.
    opponent: Seat

    @property
    def value(self) -> str:
        # Said here, as mypy infers no type for ``value`` once the class
        # declares attributes that are not members.
        return self._value_

    @property
    def bpgn(self) -> str:
        """BPGN's two-letter code: ``WA``, ``BA``, ``WB``, ``BB``."""
        return ("W" if self.color else "B") + self.board.value

    @property
    def slug(self) -> str:
        """Lower-case name used on the command line: ``a-white``."""
        return self.value.lower()

    def __str__(self) -> str:
        return self.value


_SEAT_OF = {
    (BoardId.A, True): Seat.A_WHITE,
    (BoardId.A, False): Seat.A_BLACK,
    (BoardId.B, True): Seat.B_WHITE,
    (BoardId.B, False): Seat.B_BLACK,
}
BoardId.A.other, BoardId.B.other = BoardId.B, BoardId.A
for (_board, _color), _seat in _SEAT_OF.items():
    _seat.board, _seat.color = _board, _color
    _seat.team = Team.ONE if _seat in (Seat.A_WHITE, Seat.B_BLACK) else Team.TWO
    _seat.partner = _SEAT_OF[_board.other, not _color]
    _seat.opponent = _SEAT_OF[_board, not _color]

for _seat in Seat:
    _colour = "white" if _seat.color else "black"
    _b = _seat.board.value.lower()
    for _alias in (
        f"{_b}-{_colour}",
        f"{_b}{_colour}",
        f"{_b}{_colour[0]}",
        f"{_b}-{_colour[0]}",
        _seat.bpgn.lower(),
    ):
        _SEAT_ALIASES[_alias] = _seat.value

SEATS: tuple[Seat, ...] = tuple(Seat)
#: Both boards, A first (iterating the Enum class itself is slower).
BOARDS: tuple[BoardId, BoardId] = (BoardId.A, BoardId.B)


class Termination(enum.Enum):
    """Why a match ended."""

    CHECKMATE = "checkmate"
    DEADLOCK = "deadlock"
    STALEMATE = "stalemate"
    MAX_PLIES = "max_plies"
    REPETITION = "repetition"
    RESIGNATION = "resignation"
    FLAG = "flag"
    ILLEGAL_MOVE = "illegal_move"
    LEFT = "left"
    AGREEMENT = "agreement"
    BOARDS_SUMMED = "boards_summed"
    ABORTED = "aborted"
    STALLING = "stalling"


class Result(enum.Enum):
    """A result string from team 1's point of view, as BPGN writes it."""

    TEAM_ONE = "1-0"
    TEAM_TWO = "0-1"
    DRAW = "1/2-1/2"
    UNFINISHED = "*"

    @classmethod
    def won_by(cls, team: Team | None) -> Result:
        if team is None:
            return cls.DRAW
        return cls.TEAM_ONE if team is Team.ONE else cls.TEAM_TWO

    @property
    def winner(self) -> Team | None:
        if self is Result.TEAM_ONE:
            return Team.ONE
        if self is Result.TEAM_TWO:
            return Team.TWO
        return None


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Outcome:
    """How a match ended.

    ``winner`` is None for a draw or an aborted match. ``board`` and ``seat``
    name where it was decided (``seat`` is the player the termination is
    about: the one mated, flagged, resigning, leaving or moving illegally).
    ``reason`` is a sentence for people. An ``aborted`` match (always the case
    for ``Termination.ABORTED``) has no result: ``*``.
    """

    termination: Termination
    winner: Team | None
    reason: str
    board: BoardId | None = None
    seat: Seat | None = None
    aborted: bool = False

    @property
    def result(self) -> Result:
        if self.aborted or self.termination is Termination.ABORTED:
            return Result.UNFINISHED
        return Result.won_by(self.winner)

    def __str__(self) -> str:
        return f"{self.result.value} ({self.reason})"
