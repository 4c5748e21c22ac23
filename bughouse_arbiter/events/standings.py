"""A round's results and the standings after it.

A match is the games two teams play in a round (``games`` of them, colours
swapped each game). Each game gives game points: 1 a win, ½ a draw, 0 a
loss, to each team. The match gives match points: ``WIN`` to the team with
more game points, ``DRAW`` each when level, 0 to the other. A bye counts as
a match won with every game won.

Standings rank by match points, then game points, then Buchholz (the sum of
the match points of every team met, byes not counted), then
Sonneborn-Berger (the match points of the teams beaten, plus half of those
drawn with), then the starting seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

#: Match points for a match won and drawn.
WIN, DRAW = 2.0, 1.0

#: A game's score for the first team: ``1-0`` 1, ``0-1`` 0, ``1/2-1/2`` ½.
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@attrs.frozen
class Match:
    """One pairing of a round and its games' results, first team's view."""

    round: int
    first: str
    second: str | None
    #: Per game the first team's score (1, ½, 0); None: not played yet.
    scores: tuple[float | None, ...]
    #: Why a game's result is what it is, when it was not played out (a forfeit).
    notes: tuple[str, ...] = ()

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def done(self) -> bool:
        return self.bye or all(s is not None for s in self.scores)

    def game_points(self) -> tuple[float, float]:
        if self.bye:
            return float(len(self.scores)), 0.0
        first = sum(s for s in self.scores if s is not None)
        played = sum(1 for s in self.scores if s is not None)
        return first, played - first

    def match_points(self) -> tuple[float, float]:
        """Match points of the two teams (0, 0 until every game is in)."""
        if self.bye:
            return WIN, 0.0
        if not self.done:
            return 0.0, 0.0
        a, b = self.game_points()
        if a == b:
            return DRAW, DRAW
        return (WIN, 0.0) if a > b else (0.0, WIN)


@attrs.frozen
class Row:
    rank: int
    team: str
    played: int
    match_points: float
    game_points: float
    buchholz: float
    sonneborn_berger: float

    def shown(self) -> dict[str, object]:
        return attrs.asdict(self)


def standings(seeds: Sequence[str], matches: Sequence[Match]) -> list[Row]:
    """The table after ``matches`` (only finished ones count); see the module doc."""
    mp = dict.fromkeys(seeds, 0.0)
    gp = dict.fromkeys(seeds, 0.0)
    played = dict.fromkeys(seeds, 0)
    met: dict[str, list[tuple[str, float]]] = {t: [] for t in seeds}
    for match in matches:
        if not match.done:
            continue
        a_mp, b_mp = match.match_points()
        a_gp, b_gp = match.game_points()
        mp[match.first] += a_mp
        gp[match.first] += a_gp
        played[match.first] += 1
        if match.second is not None:
            mp[match.second] += b_mp
            gp[match.second] += b_gp
            played[match.second] += 1
            met[match.first].append((match.second, a_mp))
            met[match.second].append((match.first, b_mp))
    buchholz = {t: sum(mp[o] for o, _ in met[t]) for t in seeds}
    sb = {t: sum(mp[o] * own / WIN for o, own in met[t]) for t in seeds}
    seed = {t: i for i, t in enumerate(seeds)}
    order = sorted(seeds, key=lambda t: (-mp[t], -gp[t], -buchholz[t], -sb[t], seed[t]))
    return [
        Row(i + 1, t, played[t], mp[t], gp[t], buchholz[t], sb[t]) for i, t in enumerate(order)
    ]


def points(rows: Sequence[Row]) -> Mapping[str, float]:
    return {row.team: row.match_points for row in rows}
