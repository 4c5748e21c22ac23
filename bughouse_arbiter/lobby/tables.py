"""A lobby table: its settings, its seats and where it is in its life.

``open`` (seats fill; it starts when four sit, on ``start``, or with
computers ``fill_after`` seconds after the first person sat, where the table
allows them), ``playing`` (a game is on), ``between`` (a game ended; the
four may ask for a rematch within ``REMATCH_WINDOW`` seconds) and
``closed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from ..config.specs import TimeControl
from ..core.model import SEATS, Seat
from ..core.rules import HouseRules
from .identity import COMPUTER, Identity

TableState = Literal["open", "playing", "between", "closed"]
RematchColours = Literal["swap", "keep"]
#: Seconds after a game in which the four may ask for a rematch.
REMATCH_WINDOW = 120.0
#: Seconds computers wait at a table that allows them, unless it says.
DEFAULT_FILL_AFTER = 20.0
#: The longest wait a table may ask for before computers fill it.
MAX_FILL_AFTER = 600.0


@attrs.frozen(kw_only=True)
class TableSpec:
    """What a table was created with."""

    tc: TimeControl
    rules: HouseRules
    rated: bool = False
    computers: bool = True
    fill_after: float = DEFAULT_FILL_AFTER
    rematch_colours: RematchColours = "swap"

    def shown_rules(self) -> dict[str, str]:
        """The house rules that differ from the defaults, with the profile's name."""
        return {"profile": self.rules.profile, **self.rules.differences}


def seat_key(seat: Seat) -> str:
    """A seat as the lobby's messages name it: ``A-white``, ``B-black``."""
    return seat.slug[0].upper() + seat.slug[1:]


def swapped(seats: Mapping[Seat, Identity]) -> dict[Seat, Identity]:
    """Colours swapped on both boards: the same teams, each player the other colour."""
    return {seat.opponent: who for seat, who in seats.items()}


@attrs.define
class Table:
    """One table's mutable state (the ``Lobby`` changes it)."""

    id: str
    spec: TableSpec
    creator: str | None = None
    state: TableState = "open"
    seats: dict[Seat, Identity | None] = attrs.field(factory=lambda: dict.fromkeys(SEATS))
    #: Games started here so far.
    game: int = 0
    watchers: int = 0
    #: When the first person sat at the open table (computers fill from there).
    first_sat: float | None = None
    #: Names of the players that asked for a rematch, and when the window closes.
    rematch: set[str] = attrs.field(factory=set)
    rematch_until: float | None = None
    #: Per table mutes: who muted whom (the muted one's table chat is not shown to them).
    mutes: dict[str, set[str]] = attrs.field(factory=dict)
    #: Formed from the pairing queue (closed when its series ends, not reopened).
    paired: bool = False
    #: Set up by the server for one game (an event's): no rematch, closed after it.
    single: bool = False
    #: The last ``shown`` entry and what it was made of: made again only on a change.
    _shown: tuple[object, dict[str, object]] | None = attrs.field(
        default=None, init=False, eq=False, repr=False
    )

    def seat_of(self, name: str) -> Seat | None:
        return next((s for s, who in self.seats.items() if who and who.name == name), None)

    def people(self) -> list[str]:
        return [who.name for who in self.seats.values() if who is not None and who.person]

    def named(self) -> list[str]:
        """Names at the table that are members (people and bots), in seat order."""
        return [
            who.name for who in self.seats.values() if who is not None and who.kind != "computer"
        ]

    def empty_seats(self) -> list[Seat]:
        return [seat for seat, who in self.seats.items() if who is None]

    def full(self) -> bool:
        return not self.empty_seats()

    def fill_deadline(self) -> float | None:
        """When computers take the empty seats of this open table (None: never)."""
        if self.state != "open" or not self.spec.computers or self.first_sat is None:
            return None
        return self.first_sat + self.spec.fill_after

    def fill_with(self, fillers: list[Identity]) -> None:
        """Seats ``fillers`` (bots first), then the computer, in the empty seats."""
        for seat in self.empty_seats():
            self.seats[seat] = fillers.pop(0) if fillers else COMPUTER

    def unseat_machines(self) -> None:
        """Bots and computers stand up (between series): the seats are open again."""
        for seat, who in self.seats.items():
            if who is not None and not who.person:
                self.seats[seat] = None

    def shown(self) -> dict[str, object]:
        """The table's entry in the lobby view (the same object while nothing shown changed)."""
        key = (self.state, self.game, self.watchers, tuple(self.seats.items()))
        if self._shown is None or self._shown[0] != key:
            self._shown = (key, self._entry())
        return self._shown[1]

    def _entry(self) -> dict[str, object]:
        return {
            "id": self.id,
            "tc": str(self.spec.tc),
            "rules": self.spec.shown_rules(),
            "rated": self.spec.rated,
            "computers": self.spec.computers,
            "fill_after": self.spec.fill_after,
            "rematch_colours": self.spec.rematch_colours,
            "state": self.state,
            "game": self.game,
            "watchers": self.watchers,
            "seats": {
                seat_key(seat): (None if who is None else who.shown())
                for seat, who in self.seats.items()
            },
        }
