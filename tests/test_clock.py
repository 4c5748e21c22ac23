"""Four clocks as a pure value: every time is an argument."""

from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_arbiter.core.clock import SAME_INSTANT, Clocks, Flag
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules

AW, AB, BW, BB = Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE, Seat.B_BLACK


def started(base: float = 10.0, increment: float = 0.0, limit: float | None = None) -> Clocks:
    return Clocks.new(base, increment, turn_time_limit=limit).start_all([AW, BW], 100.0)


def test_new_clocks_are_stopped_and_full() -> None:
    clocks = Clocks.new(180)
    assert clocks.snapshot(5.0) == {seat: 180.0 for seat in Seat}
    assert clocks.next_deadline() is None
    assert clocks.flagged(1e9) == ()
    with pytest.raises(ValueError, match=r"^a clock needs a positive base time$"):
        Clocks.new(0)
    assert clocks.increment == 0.0 and clocks.turn_time_limit is None


def test_for_rules_takes_time_increment_and_turn_limit() -> None:
    clocks = Clocks.for_rules(HouseRules(time=60, increment=2, turn_time_limit=7))
    assert (clocks.banked[AW], clocks.increment, clocks.turn_time_limit) == (60.0, 2.0, 7.0)


def test_a_running_clock_counts_down_from_its_start() -> None:
    clocks = started()
    assert clocks.remaining(AW, 103.5) == 6.5
    assert clocks.remaining(AB, 103.5) == 10.0
    assert clocks.turn_used(AW, 103.5) == 3.5
    assert clocks.turn_used(AB, 103.5) == 0.0
    assert clocks.snapshot(111.0)[AW] == 0.0  # floored at zero


def test_press_stops_the_clock_adds_increment_and_reports_time_used() -> None:
    clocks, used = started(increment=2.0).press(AW, 104.0)
    assert used == 4.0
    assert clocks.banked[AW] == 8.0
    assert not clocks.is_running(AW)
    assert clocks.is_running(BW)
    # Starting the opponent later than the press charges the gap to nobody.
    clocks = clocks.start(AB, 104.25)
    assert clocks.remaining(AB, 105.25) == 9.0
    assert clocks.remaining(AW, 200.0) == 8.0
    with pytest.raises(ValueError, match=r"^A-White's clock is not running$"):
        clocks.press(AW, 106.0)


def test_a_press_or_stop_before_the_turn_began_counts_as_its_start() -> None:
    clocks, used = started(increment=2.0).press(AW, 99.5)
    assert used == 0.0
    assert clocks.banked[AW] == 12.0
    assert started().stop(AW, 90.0).banked[AW] == 10.0


def test_start_twice_keeps_the_first_start() -> None:
    clocks = started().start(AW, 105.0)
    assert clocks.running[AW] == 100.0


def test_stop_keeps_the_remaining_time_without_increment() -> None:
    clocks = started(increment=5.0).stop(AW, 103.0)
    assert clocks.banked[AW] == 7.0
    assert clocks.stop(AW, 104.0) == clocks
    assert clocks.stop_all(104.0).running == {}
    assert clocks.stop_all(104.0).banked[BW] == 6.0


def test_next_deadline_is_the_earliest_with_everyone_at_that_instant() -> None:
    clocks, _ = started().press(BW, 101.0)
    clocks = clocks.start(BB, 101.0)
    assert clocks.next_deadline() == Flag(deadline=110.0, seats=(AW,))
    assert clocks.flagged(109.9) == ()
    assert clocks.flagged(110.0) == (AW,)
    # Waking late does not make the later deadline simultaneous.
    assert clocks.flagged(112.0) == (AW,)


def test_equal_deadlines_are_one_flag_for_both_teams() -> None:
    assert started().next_deadline() == Flag(deadline=110.0, seats=(AW, BW))


def test_equal_deadlines_of_one_team() -> None:
    clocks, _ = started().press(AW, 101.0)  # A-White keeps 9
    clocks = clocks.start(AB, 101.0)
    clocks, _ = clocks.press(AB, 103.0)
    clocks = clocks.start(AW, 103.0)  # A-White: 103 + 9 = 112
    clocks, _ = clocks.press(BW, 102.0)
    clocks = clocks.start(BB, 102.0)  # B-Black: 102 + 10 = 112
    assert clocks.next_deadline() == Flag(deadline=112.0, seats=(AW, BB))


def test_deadlines_less_than_a_microsecond_apart_are_the_same_instant() -> None:
    # Rounding noise: two clocks started 0.4 µs apart flag as one.
    clocks = Clocks.new(10.0).start(AW, 100.0).start(BW, 100.0 + 4e-7)
    aw, bw = clocks.deadline(AW), clocks.deadline(BW)
    assert aw is not None and bw is not None and aw[0] < bw[0]
    assert clocks.next_deadline() == Flag(deadline=110.0, seats=(AW, BW))
    # A wake-up a hair early (within the tolerance) already sees both flags.
    assert clocks.flagged(110.0 - SAME_INSTANT / 2) == (AW, BW)
    assert clocks.flagged(110.0 - 2 * SAME_INSTANT) == ()


def test_flags_half_a_millisecond_apart_are_two_flags() -> None:
    clocks = Clocks.new(10.0).start(AW, 100.0).start(BW, 100.0005)
    assert clocks.next_deadline() == Flag(deadline=110.0, seats=(AW,))
    # Waking between the two deadlines, or after both, flags only the first.
    assert clocks.flagged(110.0002) == (AW,)
    assert clocks.flagged(111.0) == (AW,)
    after = clocks.stop(AW, 110.0)
    assert after.next_deadline() == Flag(deadline=100.0005 + 10.0, seats=(BW,))
    assert after.flagged(110.0002) == ()


def test_turn_time_limit_comes_before_the_clock() -> None:
    clocks = started(base=60.0, limit=5.0)
    assert clocks.next_deadline() == Flag(deadline=105.0, seats=(AW, BW), turn_limit=True)
    # With less time left than the limit, the clock's own deadline wins.
    short = Clocks.new(3.0, turn_time_limit=5.0).start(AW, 0.0)
    assert short.next_deadline() == Flag(deadline=3.0, seats=(AW,), turn_limit=False)


def test_a_turn_limit_that_ends_with_the_clock_is_a_plain_flag() -> None:
    # Both deadlines at the same instant: the clock ran out, whatever the limit says.
    clocks = Clocks.new(5.0, turn_time_limit=5.0).start(AW, 0.0)
    assert clocks.deadline(AW) == (5.0, False)
    assert clocks.next_deadline() == Flag(deadline=5.0, seats=(AW,), turn_limit=False)


@pytest.mark.parametrize("limited_first", [True, False])
def test_a_turn_limit_and_a_clock_running_out_together_are_one_turn_limit_flag(
    limited_first: bool,
) -> None:
    # One seat reaches the turn limit at the instant the other's clock runs out.
    limited, out_of_time = (AW, BW) if limited_first else (BW, AW)
    banked = dict.fromkeys((AW, AB, BW, BB), 60.0) | {out_of_time: 5.0}
    clocks = Clocks(turn_time_limit=5.0, banked=banked).start(AW, 100.0).start(BW, 100.0)
    assert clocks.deadline(limited) == (105.0, True)
    assert clocks.deadline(out_of_time) == (105.0, False)
    assert clocks.next_deadline() == Flag(deadline=105.0, seats=(AW, BW), turn_limit=True)


def test_turn_time_limit_restarts_every_turn() -> None:
    clocks, _ = started(base=60.0, limit=5.0).press(AW, 104.0)
    clocks = clocks.start(AB, 104.0).stop(BW, 104.0)
    clocks, _ = clocks.press(AB, 108.0)
    clocks = clocks.start(AW, 108.0)
    assert clocks.deadline(AW) == (113.0, True)
    assert clocks.remaining(AW, 113.0) == 51.0


def test_clocks_are_values() -> None:
    clocks = started()
    pressed, _ = clocks.press(AW, 101.0)
    assert clocks.is_running(AW)  # the original is unchanged
    assert pressed != clocks
    with pytest.raises(AttributeError):
        clocks.increment = 3.0  # type: ignore[misc]


@settings(max_examples=200, deadline=None)
@given(
    base=st.floats(min_value=1, max_value=600),
    increment=st.floats(min_value=0, max_value=10),
    gaps=st.lists(st.floats(min_value=0, max_value=5), min_size=1, max_size=40),
)
def test_time_is_conserved_whatever_the_moves(
    base: float, increment: float, gaps: list[float]
) -> None:
    """Board A alone: remaining = base + increments - time used, for both seats,
    and the next deadline is always the running seat's remaining time from now."""
    clocks = Clocks.new(base, increment).start(AW, 0.0)
    now = 0.0
    used = {AW: 0.0, AB: 0.0}
    moves = {AW: 0, AB: 0}
    seat = AW
    for gap in gaps:
        flag = clocks.next_deadline()
        assert flag is not None and flag.seats == (seat,)
        assert flag.deadline == pytest.approx(now + clocks.remaining(seat, now))
        now += gap
        clocks, spent = clocks.press(seat, now)
        assert spent == pytest.approx(gap)
        used[seat] += spent
        moves[seat] += 1
        seat = AB if seat is AW else AW
        clocks = clocks.start(seat, now)
    for s in (AW, AB):
        expected = base + moves[s] * increment - used[s]
        assert clocks.remaining(s, now) == pytest.approx(expected, abs=1e-6)


def test_snapshot_counts_a_seat_in_at_up_to_its_own_instant() -> None:
    # AW and BW run from 100.0 with 10 s each; AW's move arrived at 103.0.
    clocks = started()
    assert clocks.snapshot(104.0, {AW: 103.0}) == {AW: 7.0, AB: 10.0, BW: 6.0, BB: 10.0}
    # A seat whose clock is stopped keeps its banked time whatever ``at`` says.
    assert clocks.snapshot(104.0, {AB: 50.0})[AB] == 10.0
    # Floored at zero, as without ``at``; and no ``at`` is ``now`` for everyone.
    assert clocks.snapshot(104.0, {AW: 999.0})[AW] == 0.0
    assert clocks.snapshot(104.0, {}) == clocks.snapshot(104.0)


def test_start_later_moves_a_running_turn_start_only_forward() -> None:
    """The turn reached its player late: the clock counts from then; an
    earlier instant, or a seat whose clock is stopped, leaves the clocks as
    they are."""
    clocks = started()  # AW and BW running since 100.0
    later = clocks.start_later(AW, 102.0)
    assert later.running == {AW: 102.0, BW: 100.0}
    assert later.banked == clocks.banked
    assert later.remaining(AW, 105.0) == 7.0 and later.remaining(BW, 105.0) == 5.0
    assert later.deadline(AW) == (112.0, False)
    assert clocks.start_later(AW, 99.0).running == {AW: 100.0, BW: 100.0}
    assert clocks.start_later(AB, 102.0).running == {AW: 100.0, BW: 100.0}
    assert AB not in clocks.start_later(AB, 102.0).running


def test_a_snapshot_keeps_fractions_of_a_second_and_floors_only_below_zero() -> None:
    clocks = started()
    assert clocks.snapshot(109.5)[AW] == 0.5
    assert clocks.snapshot(109.999)[AW] == pytest.approx(0.001)
    assert clocks.snapshot(110.5)[AW] == 0.0
    assert clocks.snapshot(110.5)[AB] == 10.0


def test_untimed_clocks_never_flag_even_while_running() -> None:
    clocks = Clocks.for_rules(HouseRules(clock=False)).start_all([AW, BW], 100.0)
    assert clocks.untimed
    assert clocks.deadline(AW) is None and clocks.deadline(AB) is None
    assert clocks.next_deadline() is None
    assert clocks.flagged(1e12) == ()
    assert clocks.snapshot(1e9)[AW] == float("inf")
