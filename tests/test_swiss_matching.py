"""The Swiss as a matching: every team once a round, no repeat while one can be avoided,
the bye to the lowest-ranked team that has not had one, and the tiers of its costs."""

from __future__ import annotations

import random

import pytest

from bughouse_arbiter.events.pairings import SwissCosts, swiss


@pytest.mark.parametrize("teams", [7, 16, 33])
def test_random_events_pair_everyone_without_repeats(teams: int) -> None:
    rng = random.Random(teams)
    seeds = [f"T{i}" for i in range(1, teams + 1)]
    points: dict[str, float] = {}
    played: set[frozenset[str]] = set()
    byes: set[str] = set()
    for _ in range(min(6, teams - 1)):
        pairs = swiss(seeds, points, played, byes)
        seen = [t for pair in pairs for t in pair if t is not None]
        assert sorted(seen) == sorted(seeds)
        order = sorted(seeds, key=lambda t: (-points.get(t, 0.0), seeds.index(t)))
        for a, b in pairs:
            if b is None:
                fresh = [t for t in order if t not in byes]
                assert a == fresh[-1] and pairs[-1] == (a, None)
                byes.add(a)
                continue
            assert frozenset((a, b)) not in played and order.index(a) < order.index(b)
            played.add(frozenset((a, b)))
            winner = rng.choice((a, b))
            points[winner] = points.get(winner, 0.0) + 2


def test_each_tier_outweighs_everything_below_it() -> None:
    order = [f"T{i}" for i in range(64)]
    points = {t: float(i % 20) for i, t in enumerate(order)}
    costs = SwissCosts(order, points, {frozenset(("T0", "T1"))}, {"T63"})
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1 :]]
    worst_pair = max(costs.cost(a, b) for a, b in pairs if {a, b} != {"T0", "T1"})
    worst_gaps = max(costs.cost(a, b) // costs.gap_unit for a, b in pairs if a != "T0")
    assert 32 * worst_pair < costs.bye_unit and 64 * costs.bye_unit < costs.repeat_unit
    assert 32 * 64 * costs.rank_unit < costs.gap_unit and worst_gaps >= 1
    assert costs.cost("T0", "T1") >= costs.repeat_unit
    assert costs.cost("T63", None) == costs.repeat_unit  # a second bye: as bad as a repeat
    assert costs.cost("T62", None) == costs.bye_unit
    assert costs.cost("T0", None) == 63 * costs.bye_unit
    assert costs.ceiling > costs.repeat_unit + 32 * worst_pair + 64 * costs.bye_unit
