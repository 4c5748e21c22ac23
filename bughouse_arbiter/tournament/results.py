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
    participants: Sequence[Participant], results: Sequence[GameResult]
) -> list[dict[str, object]]:
    """One row per participant, best first: W/L/D, points, score, Elo ± (fit), LOS."""
    record: dict[str, list[int]] = {p.name: [0, 0, 0] for p in participants}
    for r in results:
        for name, pts in ((r.first, r.points), (r.second, 1.0 - r.points)):
            row = record.setdefault(name, [0, 0, 0])
            row[0 if pts == 1.0 else 1 if pts == 0.0 else 2] += 1
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


def participant_ratings(results: Sequence[GameResult]) -> dict[str, Rating]:
    games = [RatedGame(side={r.first: 1.0}, other={r.second: 1.0}, score=r.points) for r in results]
    return dict(fit_ratings(games, prior_draws=1.0)) if games else {}


def engine_ratings(
    participants: Sequence[Participant], results: Sequence[GameResult]
) -> dict[str, Rating]:
    """Per-engine ratings when some team is mixed (a team's strength is the sum of
    its members'); empty otherwise."""
    if not any(p.mixed for p in participants):
        return {}
    members: Mapping[str, Mapping[str, float]] = {
        p.name: _weights(p.member_names) for p in participants
    }
    games = [
        RatedGame(side=members[r.first], other=members[r.second], score=r.points)
        for r in results
        if r.first in members and r.second in members
    ]
    return dict(fit_ratings(games, prior_draws=1.0)) if games else {}


def _weights(names: Sequence[str]) -> dict[str, float]:
    weights: dict[str, float] = defaultdict(float)
    for name in names:
        weights[name] += 1.0
    return dict(weights)


def crosstable(
    participants: Sequence[Participant], results: Sequence[GameResult]
) -> dict[str, dict[str, tuple[float, int]]]:
    """``table[a][b]`` = (points a scored against b, games)."""
    table: dict[str, dict[str, tuple[float, int]]] = {p.name: {} for p in participants}
    for r in results:
        for a, b, pts in ((r.first, r.second, r.points), (r.second, r.first, 1.0 - r.points)):
            old = table.setdefault(a, {}).get(b, (0.0, 0))
            table[a][b] = (old[0] + pts, old[1] + 1)
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
