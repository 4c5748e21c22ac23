"""From finished games to standings, pairing statistics, ratings and SPRT (pure).

``GameResult`` is one journal entry seen from its pairing: the pairing's
first participant scored ``points`` against the second in game ``game``.
Everything here is a function of the set of results, not of their order, so
a resumed tournament gives the same numbers as an uninterrupted one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import attrs

from .schedule import Participant
from .stats import Pentanomial, RatedGame, Rating, Sprt, Summary, Tally, fit_ratings


@attrs.frozen(kw_only=True)
class GameResult:
    job_id: str
    pairing: int
    game: int
    first: str
    second: str
    #: The first participant's points: 1, 0.5 or 0.
    points: float


class ResultCounts:
    """The games so far by (first, second, the first's points), counted as they come:
    all the standings, the crosstable and the ratings need, so that their cost
    grows with the pairings, not the games (the same at game 100,000 as at 10)."""

    def __init__(self, results: Iterable[GameResult] = ()) -> None:
        self.counts: dict[tuple[str, str, float], int] = {}
        for r in results:
            self.add(r)

    def add(self, r: GameResult) -> None:
        key = (r.first, r.second, r.points)
        self.counts[key] = self.counts.get(key, 0) + 1

    def rated(self, members: Mapping[str, Mapping[str, float]] | None = None) -> list[RatedGame]:
        """The games for ``fit_ratings``, identical ones as one (``members``: each side's
        entities and weights; those not in it are left out; None: the participants)."""
        return [
            RatedGame(
                side=members[first] if members is not None else {first: 1.0},
                other=members[second] if members is not None else {second: 1.0},
                score=points,
                weight=float(count),
            )
            for (first, second, points), count in self.counts.items()
            if members is None or (first in members and second in members)
        ]


def pairing_summary(results: Iterable[GameResult]) -> Summary:
    """W/L/D of the pairing's first participant, with the pentanomial of complete pairs."""
    wins = losses = draws = 0
    by_pair: dict[int, list[float]] = defaultdict(list)
    for r in results:
        wins += r.points == 1.0
        losses += r.points == 0.0
        draws += r.points == 0.5
        by_pair[r.game // 2].append(r.points)
    penta = Pentanomial.from_pairs(sum(p) for p in by_pair.values() if len(p) == 2)
    return Summary(wins=wins, losses=losses, draws=draws, penta=penta)


def by_pairing(results: Iterable[GameResult]) -> dict[tuple[str, str], list[GameResult]]:
    grouped: dict[tuple[str, str], list[GameResult]] = defaultdict(list)
    for r in results:
        grouped[(r.first, r.second)].append(r)
    return dict(grouped)


def standings(
    participants: Sequence[Participant], results: ResultCounts
) -> list[dict[str, object]]:
    """One row per participant, best first: W/L/D, points, score, Elo ± (fit), LOS."""
    record: dict[str, list[int]] = {p.name: [0, 0, 0] for p in participants}
    for (first, second, points), count in results.counts.items():
        for name, pts in ((first, points), (second, 1.0 - points)):
            row = record.setdefault(name, [0, 0, 0])
            row[0 if pts == 1.0 else 1 if pts == 0.0 else 2] += count
    ratings = participant_ratings(results)
    rows: list[dict[str, object]] = []
    for name, (w, lost, d) in record.items():
        summary = Summary(wins=w, losses=lost, draws=d)
        rating = ratings.get(name)
        rows.append(
            {
                "name": name,
                "games": summary.games,
                "wins": w,
                "losses": lost,
                "draws": d,
                "points": summary.points,
                "score": round(summary.score, 4),
                "elo": None if rating is None else round(rating.elo, 1),
                "elo_margin": None if rating is None else _finite(rating.margin),
                "los": round(summary.los, 4),
            }
        )
    rows.sort(key=lambda row: (-_float(row["points"]), str(row["name"])))
    return rows


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _finite(value: float) -> float | None:
    return round(value, 1) if value < float("inf") else None


def participant_ratings(results: ResultCounts) -> dict[str, Rating]:
    games = results.rated()
    return dict(fit_ratings(games, prior_draws=1.0)) if games else {}


def engine_ratings(
    participants: Sequence[Participant], results: ResultCounts
) -> dict[str, Rating]:
    """Per-engine ratings when some team is mixed (a team's strength is the sum of
    its members'); empty otherwise."""
    if not any(p.mixed for p in participants):
        return {}
    members: Mapping[str, Mapping[str, float]] = {
        p.name: _weights(p.member_names) for p in participants
    }
    games = results.rated(members)
    return dict(fit_ratings(games, prior_draws=1.0)) if games else {}


def _weights(names: Sequence[str]) -> dict[str, float]:
    weights: dict[str, float] = defaultdict(float)
    for name in names:
        weights[name] += 1.0
    return dict(weights)


def crosstable(
    participants: Sequence[Participant], results: ResultCounts
) -> dict[str, dict[str, tuple[float, int]]]:
    """``table[a][b]`` = (points a scored against b, games)."""
    table: dict[str, dict[str, tuple[float, int]]] = {p.name: {} for p in participants}
    for (first, second, points), count in results.counts.items():
        for a, b, pts in ((first, second, points), (second, first, 1.0 - points)):
            old = table.setdefault(a, {}).get(b, (0.0, 0))
            table[a][b] = (old[0] + pts * count, old[1] + count)
    return table


def sprt_state(sprt: Sprt, results: Sequence[GameResult]) -> dict[str, object]:
    """LLR, bounds and decision for the first pairing's first participant."""
    return sprt_state_of(sprt, pairing_summary(r for r in results if r.pairing == 0))


def sprt_state_of(sprt: Sprt, record: Summary | Tally) -> dict[str, object]:
    """``sprt_state`` from the first pairing's record."""
    penta = record.penta
    llr = sprt.llr_of(record)
    return {
        "elo0": sprt.elo0,
        "elo1": sprt.elo1,
        "alpha": sprt.alpha,
        "beta": sprt.beta,
        "model": sprt.model,
        "llr": round(llr, 4),
        "lower": round(sprt.lower, 4),
        "upper": round(sprt.upper, 4),
        "decision": sprt.decision(llr),
        "pairs": penta.pairs,
    }
