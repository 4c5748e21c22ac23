"""Glicko ratings for bughouse: each player rated from the team result.

One game is one Glicko rating period for each of its four players. A player
meets one *virtual opponent* standing for the other three: its rating is set
so that the expected score is that of the player's team average against the
opponents' team average (as the FICS bughouse rating compared team averages),
and its deviation is the uncertainty the other three bring to that difference.
Deviations grow with time away (``GlickoParams.growth``). The formulas and
the reasons are in ``docs/ratings.md``. Pure: the time is passed in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import attrs

from ..core.model import Seat

#: Glicko's q: ln(10) / 400.
Q = math.log(10) / 400
DEFAULT_RATING = 1500.0
#: A new player's deviation, and the most any deviation grows to.
MAX_RD = 350.0
#: The least a deviation shrinks to, so a rating keeps moving.
MIN_RD = 50.0
#: A rating is provisional while its deviation is above this.
PROVISIONAL_RD = 80.0
DAY = 86400.0


@attrs.frozen(kw_only=True)
class GlickoParams:
    """The system's constants. ``growth`` is Glicko's c per ``period`` seconds:
    the default takes an idle deviation from ``min_rd`` back to ``max_rd`` in
    a year of days (c² = (350² − 50²) / 365)."""

    initial_rating: float = DEFAULT_RATING
    max_rd: float = MAX_RD
    min_rd: float = MIN_RD
    provisional_rd: float = PROVISIONAL_RD
    period: float = DAY
    growth: float = math.sqrt((MAX_RD**2 - MIN_RD**2) / 365)


DEFAULTS = GlickoParams()


@attrs.frozen(kw_only=True)
class PlayerRating:
    """One player's bughouse rating: value, deviation, rated games played and
    when the last one ended (seconds since the epoch; None before the first)."""

    rating: float = DEFAULT_RATING
    rd: float = MAX_RD
    games: int = 0
    last: float | None = None

    def rd_at(self, now: float, params: GlickoParams = DEFAULTS) -> float:
        """The deviation grown by the time since the last game:
        min(√(RD² + c²·t), max_rd), t in rating periods."""
        if self.last is None:
            return min(self.rd, params.max_rd)
        periods = max(0.0, now - self.last) / params.period
        return min(math.sqrt(self.rd**2 + params.growth**2 * periods), params.max_rd)

    def provisional(self, now: float, params: GlickoParams = DEFAULTS) -> bool:
        """Whether the rating is still provisional (its deviation, as of ``now``, too wide)."""
        return self.rd_at(now, params) > params.provisional_rd


@attrs.frozen
class Opponent:
    """One result of a rating period: the opponent's rating and deviation, the score (1, ½, 0)."""

    rating: float
    rd: float
    score: float


def g(rd: float) -> float:
    """Glicko's g(RD) = 1 / √(1 + 3q²RD²/π²): how much a result against an uncertain
    opponent counts."""
    return 1 / math.sqrt(1 + 3 * Q**2 * rd**2 / math.pi**2)


def expected(rating: float, opponent_rating: float, opponent_rd: float) -> float:
    """E = 1 / (1 + 10^(−g(RD_j)(r − r_j)/400))."""
    return 1 / (1 + 10 ** (-g(opponent_rd) * (rating - opponent_rating) / 400))


def glicko_update(rating: float, rd: float, results: Sequence[Opponent]) -> tuple[float, float]:
    """One Glicko rating period (Glickman 1999, step 2): the new rating and deviation
    of a player rated ``rating`` with deviation ``rd`` (already grown for time away)."""
    if not results:
        return rating, rd
    weights = [(g(o.rd), expected(rating, o.rating, o.rd), o.score) for o in results]
    d2 = 1 / (Q**2 * sum(gj**2 * e * (1 - e) for gj, e, _ in weights))
    precision = 1 / rd**2 + 1 / d2
    new_rating = rating + Q / precision * sum(gj * (s - e) for gj, e, s in weights)
    return new_rating, math.sqrt(1 / precision)


@attrs.frozen(kw_only=True)
class TeamGame:
    """A rated game: the four players' ratings before it, team one's score
    (1 win, 0.5 draw, 0 loss) and when it ended."""

    ratings: Mapping[Seat, PlayerRating]
    score_one: float
    now: float


def virtual_opponent(game: TeamGame, seat: Seat, params: GlickoParams = DEFAULTS) -> Opponent:
    """The one opponent ``seat``'s player is rated against: rating
    (r_o1 + r_o2)/2 + (r − r_p)/2, so that r − r_v is the team average minus the
    opponents' average; deviation √((RD_o1² + RD_o2² + RD_p²)/4)."""
    me, partner = game.ratings[seat], game.ratings[seat.partner]
    o1, o2 = (game.ratings[s] for s in (seat.opponent, seat.partner.opponent))
    now = game.now
    rating = (o1.rating + o2.rating) / 2 + (me.rating - partner.rating) / 2
    rd = math.sqrt(
        (o1.rd_at(now, params) ** 2 + o2.rd_at(now, params) ** 2 + partner.rd_at(now, params) ** 2)
        / 4
    )
    won = game.score_one if seat.team is _TEAM_ONE else 1 - game.score_one
    return Opponent(rating, rd, won)


_TEAM_ONE = Seat.A_WHITE.team


def rate_team_game(game: TeamGame, params: GlickoParams = DEFAULTS) -> dict[Seat, PlayerRating]:
    """Every seat's rating after ``game`` (all four computed from the ratings before it)."""
    if sorted(game.ratings, key=lambda s: s.value) != sorted(Seat, key=lambda s: s.value):
        raise ValueError("a rated game needs the ratings of all four seats")
    if not 0 <= game.score_one <= 1:
        raise ValueError(f"a score is between 0 and 1, not {game.score_one}")
    after: dict[Seat, PlayerRating] = {}
    for seat, before in game.ratings.items():
        opponent = virtual_opponent(game, seat, params)
        rating, rd = glicko_update(before.rating, before.rd_at(game.now, params), [opponent])
        after[seat] = PlayerRating(
            rating=rating, rd=max(rd, params.min_rd), games=before.games + 1, last=game.now
        )
    return after
