"""Quick pairing: the queue of solos and pairs by time control, and the tables it forms.

A group is four players at one time control, formed oldest entry first:
pairs stay partners, two solos become partners, and where ratings exist
the opponents are the nearest in rating and the teams are split to be as
even as they can be. Bots waiting for that time control fill a group at
once; computers fill it once its oldest entry has waited ``fill_after``
seconds, for entries that allow them (an entry that does not waits for
people or bots). Every entry can be told why it waits (``why``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import attrs

from ..config.specs import TimeControl
from ..core.model import Seat, Team
from .identity import COMPUTER, Identity

#: Seconds a queued entry that allows computers waits for people before they fill.
QUEUE_FILL_AFTER = 15.0
#: Whether a bot plays a time control (the lobby's ``Bot.plays``).
Plays = Callable[[Identity, TimeControl], bool]
#: The team split's three ways to part four places into two teams of two.
_SPLITS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


@attrs.frozen(kw_only=True)
class Entry:
    """One queued solo (one identity) or pair (two partners)."""

    who: tuple[Identity, ...]
    tc: TimeControl
    computers: bool
    since: float

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(w.name for w in self.who)

    @property
    def rating(self) -> float | None:
        rated = [w.rating for w in self.who if w.rating is not None]
        return sum(rated) / len(rated) if rated else None


@attrs.frozen(kw_only=True)
class Group:
    """Four players the queue put together: ``seats`` says who plays where."""

    tc: TimeControl
    seats: dict[Seat, Identity]
    entries: tuple[Entry, ...]
    computers: bool


def _distance(a: Entry, b: Entry) -> float:
    if a.rating is None or b.rating is None:
        return math.inf  # unrated entries come after the rated near ones, by age
    return abs(a.rating - b.rating)


def choose(entries: Sequence[Entry]) -> list[Entry]:
    """The oldest entry and the others that join it, up to four players (fewer if
    the queue holds fewer): nearest rating first, then oldest."""
    if not entries:
        return []
    anchor, rest = entries[0], list(entries[1:])
    rest.sort(key=lambda e: (_distance(anchor, e), e.since))
    chosen, count = [anchor], len(anchor.who)
    for entry in rest:
        if count + len(entry.who) <= 4:
            chosen.append(entry)
            count += len(entry.who)
        if count == 4:
            break
    return chosen


def split(entries: Sequence[Entry], fillers: Sequence[Identity]) -> dict[Seat, Identity]:
    """Seats four players: pairs together, solos partnered, the teams' ratings as even
    as they can be (unrated players count as the mean of the rated ones)."""
    places: list[Identity] = [w for e in entries for w in e.who] + list(fillers)
    if len(places) != 4:
        raise ValueError("a group is four players")
    bound: list[tuple[int, int]] = []
    at = 0
    for entry in entries:
        if len(entry.who) == 2:
            bound.append((at, at + 1))
        at += len(entry.who)
    rated = [w.rating for w in places if w.rating is not None]
    mean = sum(rated) / len(rated) if rated else 0.0

    def rating(i: int) -> float:
        value = places[i].rating
        return mean if value is None else value

    def fits(parts: tuple[tuple[int, int], tuple[int, int]]) -> bool:
        return all(pair in parts or pair[::-1] in parts for pair in bound)

    best = min(
        (parts for parts in _SPLITS if fits(parts)),
        key=lambda parts: abs(sum(rating(i) for i in parts[0]) - sum(rating(i) for i in parts[1])),
    )
    one, two = best
    return {
        Team.ONE.seats[0]: places[one[0]],
        Team.ONE.seats[1]: places[one[1]],
        Team.TWO.seats[0]: places[two[0]],
        Team.TWO.seats[1]: places[two[1]],
    }


@attrs.define
class Queue:
    """The pairing queue; ``form`` takes the groups that are ready out of it."""

    fill_after: float = QUEUE_FILL_AFTER
    entries: list[Entry] = attrs.field(factory=list)

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.entries.sort(key=lambda e: e.since)

    def entry_of(self, name: str) -> Entry | None:
        return next((e for e in self.entries if name in e.names), None)

    def remove(self, entry: Entry) -> None:
        if entry in self.entries:
            self.entries.remove(entry)

    def at(self, tc: TimeControl) -> list[Entry]:
        return [e for e in self.entries if e.tc == tc]

    def form(
        self,
        now: float,
        bots: Sequence[Identity] = (),
        plays: Plays | None = None,
    ) -> list[Group]:
        """Every group that is ready now; their entries leave the queue.

        ``bots`` are the idle bots, ``plays`` says which time controls each
        accepts (without it, none).
        """
        groups: list[Group] = []
        idle = list(bots)
        progress = True
        while progress:
            progress = False
            for tc in dict.fromkeys(e.tc for e in self.entries):
                group = self._one(tc, now, idle, plays or _plays_none)
                if group is not None:
                    groups.append(group)
                    for entry in group.entries:
                        self.remove(entry)
                    idle = [b for b in idle if b not in group.seats.values()]
                    progress = True
                    break
        return groups

    def _one(
        self,
        tc: TimeControl,
        now: float,
        idle: list[Identity],
        plays: Plays,
    ) -> Group | None:
        waiting = self.at(tc)
        chosen = choose(waiting)
        count = sum(len(e.who) for e in chosen)
        if count == 4:
            return Group(tc=tc, seats=split(chosen, ()), entries=tuple(chosen), computers=False)
        bots = [b for b in idle if plays(b, tc)][: 4 - count]
        if count + len(bots) == 4:
            return Group(tc=tc, seats=split(chosen, bots), entries=tuple(chosen), computers=False)
        anchor = waiting[0]
        if not anchor.computers or now < anchor.since + self.fill_after:
            return None
        # Only entries that allow computers play with them.
        willing = choose([e for e in waiting if e.computers])
        count = sum(len(e.who) for e in willing)
        bots = bots[: 4 - count]
        fillers = bots + [COMPUTER] * (4 - count - len(bots))
        return Group(tc=tc, seats=split(willing, fillers), entries=tuple(willing), computers=True)

    def next_deadline(self) -> float | None:
        """When the oldest entry of some time control gets its computers."""
        firsts = [self.at(tc)[0] for tc in dict.fromkeys(e.tc for e in self.entries)]
        times = [e.since + self.fill_after for e in firsts if e.computers]
        return min(times) if times else None

    def why(self, entry: Entry, now: float, bots: int = 0) -> str:
        """Why ``entry`` waits, in one line."""
        others = sum(len(e.who) for e in self.at(entry.tc))
        missing = max(1, 4 - others - bots)
        players = "player" if missing == 1 else "players"
        text = f"waiting for {missing} more {players} at {entry.tc}"
        anchor = self.at(entry.tc)[0]
        if entry.computers and anchor.computers:
            left = max(0, math.ceil(anchor.since + self.fill_after - now))
            return f"{text}; computers fill the seats in {left} s"
        if entry.computers:
            return f"{text}; computers fill the seats once the longer-waiting entries allow them"
        return f"{text} (you asked for no computers, so only people or bots fill the seats)"


def _plays_none(bot: Identity, tc: TimeControl) -> bool:
    return False
