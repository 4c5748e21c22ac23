"""The harness's own time on the engines' clocks: a turn's clock starts when the
turn reached the player, and what the harness still spent of each turn is
summed per seat in the record (all under trio's MockClock, exact times)."""

from __future__ import annotations

from collections.abc import Sequence

import trio
from fakes import FakePlayer, Move

from bughouse_arbiter.core.model import Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import TableState
from bughouse_arbiter.table.arbiter import run_match

TEN = HouseRules(time=10.0)


class Timed(FakePlayer):
    """A scripted player that says its turns reached it ``late`` seconds after
    ``your_turn`` (a write the process made then) and that the harness spent
    ``delay`` seconds of each turn."""

    def __init__(
        self, seat: Seat, script: Sequence[Move] = (), *, late: float = 0.0, delay: float = 0.0
    ) -> None:
        super().__init__(seat, {seat: list(script)}, name=seat.slug)
        self.late = late
        self.delay = delay
        self.reached: dict[int, float] = {}
        self.asked: list[tuple[int, float, float]] = []

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.reached[token] = trio.current_time() + self.late
        await super().your_turn(seat, token, state)

    def turn_reached(self, seat: Seat, token: int) -> float | None:
        assert seat in self.seats, seat
        return self.reached.get(token) if self.late else None

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        assert seat in self.seats, seat
        self.asked.append((token, opened_at, ended_at))
        return self.delay


def seated(**players: Timed) -> list[Timed]:
    """Timed players at every seat, ``players`` (by seat slug with _) where given."""
    return [players.get(seat.slug.replace("-", "_"), Timed(seat)) for seat in Seat]


async def test_a_turn_written_late_starts_its_clock_when_written(autojump_clock: object) -> None:
    a_black = Timed(Seat.A_BLACK, late=0.25)  # never moves
    players = seated(
        a_white=Timed(Seat.A_WHITE, [Move("e2e4", 1)]),
        a_black=a_black,
        b_white=Timed(Seat.B_WHITE, [Move("d2d4", 2)]),
    )
    record = await run_match(players, TEN)
    # A-Black's turn opened at 1 and reached it at 1.25: it flags at 11.25, not 11.
    assert record.outcome.termination is Termination.FLAG
    assert record.outcome.seat is Seat.A_BLACK
    assert record.ended == 11.25
    assert record.clocks.banked[Seat.A_BLACK] == 0.0


async def test_a_turn_written_before_its_clock_started_keeps_the_start(
    autojump_clock: object,
) -> None:
    early = Timed(Seat.A_BLACK, late=-0.5)  # written before the clock started
    players = seated(
        a_white=Timed(Seat.A_WHITE, [Move("e2e4", 1)]),
        a_black=early,
        b_white=Timed(Seat.B_WHITE, [Move("d2d4", 2)]),
    )
    record = await run_match(players, TEN)
    assert record.outcome.seat is Seat.A_BLACK and record.ended == 11.0


async def test_the_harness_delay_of_every_ended_turn_is_summed_per_seat(
    autojump_clock: object,
) -> None:
    a_white = Timed(Seat.A_WHITE, [Move("e2e4", 1)], delay=0.002)
    a_black = Timed(Seat.A_BLACK, [Move("e7e5", 1)], delay=0.003)
    b_white = Timed(Seat.B_WHITE, delay=0.004)  # never moves: flags at 10
    record = await run_match(seated(a_white=a_white, a_black=a_black, b_white=b_white), TEN)
    assert record.outcome.seat is Seat.B_WHITE and record.ended == 10.0
    # A-White's second turn (opened at 2) was still open at the end: not counted.
    assert record.harness_delay == {Seat.A_WHITE: 0.002, Seat.A_BLACK: 0.003, Seat.B_WHITE: 0.004}
    assert record.harness_delay_max == 0.004
    assert [asked[1:] for asked in a_white.asked] == [(0.0, 1.0)]
    assert [asked[1:] for asked in a_black.asked] == [(1.0, 2.0)]
    assert [asked[1:] for asked in b_white.asked] == [(0.0, 10.0)]  # up to the deadline
    # Each turn is asked about by its own token.
    for player in (a_white, a_black, b_white):
        assert [asked[0] for asked in player.asked] == [token for _, token, _ in player.turns][:1]


async def test_the_harness_delay_of_a_seat_adds_up_over_its_turns_written_late_too(
    autojump_clock: object,
) -> None:
    a_white = Timed(Seat.A_WHITE, [Move("e2e4", 1), Move("g1f3", 1)], delay=0.25)
    a_black = Timed(Seat.A_BLACK, [Move("e7e5", 1)], late=0.5, delay=0.125)
    b_white = Timed(Seat.B_WHITE, [Move("d2d4", 20)])  # B-White flags at 10
    record = await run_match(seated(a_white=a_white, a_black=a_black, b_white=b_white), TEN)
    assert record.ended == 10.0
    assert record.harness_delay == {Seat.A_WHITE: 0.5, Seat.A_BLACK: 0.125, Seat.B_WHITE: 0.0}
    # A-Black's turn opened at 1 and reached it at 1.5 (its clock started then):
    # asked from there to its move at 2.
    assert [asked[1:] for asked in a_black.asked] == [(1.5, 2.0)]
    assert (record.game.moves[1].uci, record.game.moves[1].clock) == ("e7e5", 10.0 - 0.5)


async def test_players_that_cannot_tell_leave_the_record_empty(autojump_clock: object) -> None:
    players = [FakePlayer(seat, {}, name=seat.slug) for seat in Seat]
    record = await run_match(players, TEN)
    assert record.outcome.termination is Termination.FLAG
    assert record.harness_delay == {} and record.harness_delay_max == 0.0
