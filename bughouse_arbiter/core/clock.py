"""Four chess clocks on one time base, as a pure value.

``Clocks`` reads no clock of its own: every method takes ``now`` (seconds on
the arbiter's monotonic time base, e.g. ``trio.current_time()``) and returns a
new value. A seat's clock runs while it is that seat's turn (waiting
included); ``press`` stops it, adds the increment and reports the time the
turn used; ``start`` sets the next seat's clock going. The arbiter calls
``start`` only after it has told the next player, and ``start_later`` when
the telling reached the player's engine later still (a batched write), so
its own processing between a move arriving and the next turn being sent is
charged to nobody.

Deadlines: a running seat flags when its remaining time reaches zero or, with
``turn_time_limit``, when its turn has lasted that long, whichever comes
first. ``next_deadline`` gives the earliest deadline and every seat that
reaches it at that same instant (the simultaneous-flag rule). Untimed play
(``clock=off``) has clocks with infinite time: they measure what each turn
used and never flag.

A ``margin`` (a tournament's ``--time-margin``, cutechess's and fastchess's
``timemargin``) is a grace past zero: a seat flags only once its time is
``margin`` seconds below zero, and a move made within the grace leaves it
with no time but its increment, as fastchess counts it. The same margin holds
for all four seats: one seat's own margin would be time odds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import attrs

from .model import SEATS, Seat
from .rules import HouseRules

#: Deadlines closer than this (seconds) are the same instant; it absorbs
#: floating-point rounding, far below any real clock's resolution.
SAME_INSTANT = 1e-6


@attrs.frozen(kw_only=True)
class Flag:
    """The next flag: at ``deadline`` the clocks of ``seats`` run out together.

    ``turn_limit`` is True when the deadline is the per-move limit rather than
    the seat's whole remaining time.
    """

    deadline: float
    seats: tuple[Seat, ...]
    turn_limit: bool = False


@attrs.frozen(kw_only=True)
class Clocks:
    """Remaining time of the four seats and which clocks are running.

    ``banked`` is each seat's remaining time as of the last time its clock
    stopped (or, for a running clock, as of ``running[seat]``, the instant its
    turn started). Build one with ``Clocks.new``.
    """

    increment: float = 0.0
    turn_time_limit: float | None = None
    banked: Mapping[Seat, float]
    running: Mapping[Seat, float] = attrs.field(factory=dict)
    #: Seconds past zero (and past the turn limit) before a seat flags.
    margin: float = 0.0

    @classmethod
    def new(
        cls,
        base: float,
        increment: float = 0.0,
        *,
        turn_time_limit: float | None = None,
        margin: float = 0.0,
    ) -> Clocks:
        """Four stopped clocks with ``base`` seconds each."""
        if base <= 0:
            raise ValueError("a clock needs a positive base time")
        if not margin >= 0:
            raise ValueError("a clock's margin cannot be negative")
        return cls(
            increment=increment,
            turn_time_limit=turn_time_limit,
            banked={seat: float(base) for seat in SEATS},
            margin=margin,
        )

    @classmethod
    def for_rules(cls, rules: HouseRules) -> Clocks:
        """Four stopped clocks set to the rules' ``time``, ``increment``, turn limit
        and ``time_margin`` (infinite, without increment or limit, in untimed play)."""
        if not rules.clock:
            return cls.new(math.inf)
        return cls.new(
            rules.time,
            rules.increment,
            turn_time_limit=rules.turn_time_limit,
            margin=rules.time_margin,
        )

    @property
    def untimed(self) -> bool:
        """True for untimed play: no clock can ever run out."""
        return all(math.isinf(time) for time in self.banked.values())

    # -- looking -----------------------------------------------------------------

    def is_running(self, seat: Seat) -> bool:
        return seat in self.running

    def remaining(self, seat: Seat, now: float) -> float:
        """``seat``'s remaining seconds at ``now`` (negative once it has run out)."""
        banked = self.banked[seat]
        started = self.running.get(seat)
        if started is None:
            return banked
        return banked - (now - started)

    def snapshot(self, now: float, at: Mapping[Seat, float] | None = None) -> dict[Seat, float]:
        """All four remaining times at ``now``, floored at zero; a seat in ``at``
        is counted up to its own instant there instead (a move that arrived)."""
        banked, running = self.banked, self.running
        times = {}
        for seat in SEATS:  # ``remaining`` inline: the arbiter snapshots twice a move
            left = banked[seat]
            started = running.get(seat)
            if started is not None:
                left -= (now if at is None else at.get(seat, now)) - started
            times[seat] = left if left > 0.0 else 0.0
        return times

    def turn_used(self, seat: Seat, now: float) -> float:
        """Seconds ``seat``'s current turn has lasted (0 when its clock is stopped)."""
        started = self.running.get(seat)
        return 0.0 if started is None else now - started

    def deadline(self, seat: Seat) -> tuple[float, bool] | None:
        """When running ``seat`` flags, and whether it is the turn limit; None if stopped."""
        started = self.running.get(seat)
        if started is None:
            return None
        out_of_time = started + self.banked[seat] + self.margin
        if self.turn_time_limit is None and math.isinf(out_of_time):
            return None  # untimed: this seat never flags
        if self.turn_time_limit is not None:
            limit = started + self.turn_time_limit + self.margin
            if limit < out_of_time - SAME_INSTANT:
                return limit, True
        return out_of_time, False

    def next_deadline(self, now: float | None = None) -> Flag | None:
        """The earliest deadline among running clocks, with every seat that
        reaches it at the same instant; None when no clock runs.

        ``now`` is accepted for symmetry with the other methods and ignored:
        deadlines do not move while nobody presses a clock.
        """
        # Plain loops: generators cost more than the work, and this runs before every action.
        running = self.running
        deadlines = []
        first = math.inf
        for seat in SEATS:
            if seat in running and (found := self.deadline(seat)) is not None:
                deadlines.append((found, seat))
                if found[0] < first:
                    first = found[0]
        if not deadlines:
            return None
        seats = []
        turn_limit = False
        for (at, limit), seat in deadlines:
            if at <= first + SAME_INSTANT:
                seats.append(seat)
                turn_limit |= limit
        return Flag(deadline=first, seats=tuple(seats), turn_limit=turn_limit)

    def flagged(self, now: float) -> tuple[Seat, ...]:
        """The seats whose earliest shared deadline has been reached at ``now``.

        Only the first deadline counts: if the caller wakes late, seats whose
        deadlines came later did not flag at the same instant.
        """
        flag = self.next_deadline()
        if flag is None or now < flag.deadline - SAME_INSTANT:
            return ()
        return flag.seats

    # -- changing ----------------------------------------------------------------

    def start(self, seat: Seat, now: float) -> Clocks:
        """Sets ``seat``'s clock running from ``now`` (its turn begins)."""
        if seat in self.running:
            return self
        return self._with(self.banked, {**self.running, seat: now})

    def start_all(self, seats: Iterable[Seat], now: float) -> Clocks:
        clocks = self
        for seat in seats:
            clocks = clocks.start(seat, now)
        return clocks

    def start_later(self, seat: Seat, at: float) -> Clocks:
        """Moves the start of ``seat``'s running clock to ``at`` if that is later
        (the turn reached its player only then); otherwise unchanged."""
        started = self.running.get(seat)
        if started is None or at <= started:
            return self
        return self._with(self.banked, {**self.running, seat: at})

    def stop(self, seat: Seat, now: float) -> Clocks:
        """Stops ``seat``'s clock at ``now`` without increment (its board ended).

        A ``now`` before the turn started counts as its start.
        """
        started = self.running.get(seat)
        if started is None:
            return self
        running = dict(self.running)
        del running[seat]
        banked = {**self.banked, seat: self.remaining(seat, max(now, started))}
        return self._with(banked, running)

    def stop_all(self, now: float) -> Clocks:
        clocks = self
        for seat in list(self.running):
            clocks = clocks.stop(seat, now)
        return clocks

    def press(self, seat: Seat, now: float) -> tuple[Clocks, float]:
        """``seat`` moved at ``now``: stops its clock and adds the increment.

        Returns the new clocks and the seconds the turn used (never negative:
        a ``now`` before the turn started counts as its start). Raises
        ValueError if ``seat``'s clock was not running.
        """
        started = self.running.get(seat)
        if started is None:
            raise ValueError(f"{seat}'s clock is not running")
        used = now - started if now > started else 0.0
        running = dict(self.running)
        del running[seat]
        left = self.banked[seat] - used
        if left < 0.0 < self.margin:  # moved within the grace: no time left but the increment
            left = 0.0
        banked = {**self.banked, seat: left + self.increment}
        return self._with(banked, running), used

    def _with(self, banked: Mapping[Seat, float], running: Mapping[Seat, float]) -> Clocks:
        """This value with other times (``attrs.evolve`` made directly: a move presses
        and starts a clock, and evolve costs three times the constructor)."""
        return self.__class__(
            increment=self.increment,
            turn_time_limit=self.turn_time_limit,
            banked=banked,
            running=running,
            margin=self.margin,
        )
