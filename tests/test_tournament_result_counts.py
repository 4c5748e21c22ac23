"""``ResultCounts``: the standings, crosstable and ratings from counts are those of the
games one by one, in any order (what lets ``summary`` cost the same at any length)."""

from __future__ import annotations

import random

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.tournament.results import (
    GameResult,
    ResultCounts,
    crosstable,
    engine_ratings,
    standings,
)
from bughouse_arbiter.tournament.schedule import Participant
from bughouse_arbiter.tournament.stats import RatedGame, fit_ratings

SPEC = builtin_engine("random")


def _results(count: int, seed: int) -> list[GameResult]:
    rng = random.Random(seed)
    names = ["a", "b", "c"]
    out = []
    for n in range(count):
        first, second = rng.sample(names, 2)
        out.append(GameResult(job_id=f"g{n}", pairing=0, game=n, first=first,
                              second=second, points=rng.choice((0.0, 0.5, 1.0))))
    return out


def test_counts_give_what_the_games_one_by_one_give() -> None:
    people = tuple(Participant(name=n, members=(SPEC, SPEC), member_names=(n, n)) for n in "abc")
    results = _results(300, 1)
    counts = ResultCounts(results)
    assert sum(counts.counts.values()) == 300
    rows = {row["name"]: row for row in standings(people, counts)}
    for name in "abc":
        mine = [r.points if r.first == name else 1 - r.points
                for r in results if name in (r.first, r.second)]
        assert rows[name]["games"] == len(mine) and rows[name]["points"] == sum(mine)
        assert rows[name]["wins"] == mine.count(1.0) and rows[name]["draws"] == mine.count(0.5)
    one_by_one = [RatedGame(side={r.first: 1.0}, other={r.second: 1.0}, score=r.points)
                  for r in results]
    fitted = fit_ratings(one_by_one, prior_draws=1.0)
    assert {n: round(fitted[n].elo, 1) for n in "abc"} == {n: rows[n]["elo"] for n in "abc"}
    table = crosstable(people, counts)
    ab = [r for r in results if {r.first, r.second} == {"a", "b"}]
    assert table["a"]["b"] == (sum(r.points if r.first == "a" else 1 - r.points for r in ab),
                               len(ab))
    shuffled = list(results)
    random.Random(2).shuffle(shuffled)
    again = ResultCounts(shuffled)
    assert standings(people, again) == standings(people, counts)
    assert engine_ratings(people, counts) == {}  # no team is mixed
