"""Glicko team ratings (ratings/glicko.py), checked against numbers worked out apart from it."""

from __future__ import annotations

import math

import pytest

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.ratings import (
    MAX_RD,
    Opponent,
    PlayerRating,
    TeamGame,
    glicko_update,
    rate_team_game,
)
from bughouse_arbiter.ratings.glicko import DEFAULTS, virtual_opponent

DAY = 86400.0


def test_glickmans_worked_example() -> None:
    # Glickman, "The Glicko system" (1999), its example: 1500/200 beats 1400/30,
    # loses to 1550/100 and 1700/300. The paper works it with values rounded to
    # 3-4 digits: g = 0.9955, 0.9531, 0.7242; E = 0.639, 0.432, 0.303;
    # d² = 231.67²; r' = 1500 + 131.9·(−0.272) = 1464; RD' = 151.4. (1464.06 and
    # 151.52 are the Glicko-2 paper's answer for the same games: it adds a
    # volatility, see docs/ratings.md.) The paper's arithmetic, redone:
    q = 0.0057565
    gs, es, scores = [0.9955, 0.9531, 0.7242], [0.639, 0.432, 0.303], [1, 0, 0]
    d2 = 1 / (q**2 * sum(g * g * e * (1 - e) for g, e in zip(gs, es, strict=True)))
    assert math.sqrt(d2) == pytest.approx(231.67, abs=0.05)
    precision = 1 / 200**2 + 1 / d2
    assert q / precision == pytest.approx(131.9, abs=0.05)
    change = q / precision * sum(g * (s - e) for g, e, s in zip(gs, es, scores, strict=True))
    assert round(1500 + change) == 1464
    assert math.sqrt(1 / precision) == pytest.approx(151.4, abs=0.05)
    # Ours, unrounded:
    rating, rd = glicko_update(
        1500, 200, [Opponent(1400, 30, 1), Opponent(1550, 100, 0), Opponent(1700, 300, 0)]
    )
    assert round(rating) == 1464
    assert rating == pytest.approx(1500 + change, abs=0.1)
    assert rd == pytest.approx(151.4, abs=0.05)


def _four(**ratings: PlayerRating) -> dict[Seat, PlayerRating]:
    return {Seat.A_WHITE: ratings["aw"], Seat.A_BLACK: ratings["ab"],
            Seat.B_WHITE: ratings["bw"], Seat.B_BLACK: ratings["bb"]}


def test_a_first_game_between_new_players_by_hand() -> None:
    # All four at 1500/350; team two wins. Worked by hand: the virtual opponent's
    # RD is √(3·350²/4) = 303.11, g = 0.72067, E = 0.5, d² = 232420, so
    # r' = 1500 ± 166.40 and RD' = 283.23.
    new = PlayerRating()
    after = rate_team_game(TeamGame(ratings=_four(aw=new, ab=new, bw=new, bb=new),
                                    score_one=0.0, now=1000.0))
    for seat in (Seat.A_BLACK, Seat.B_WHITE):
        assert after[seat].rating == pytest.approx(1666.40, abs=0.01)
    for seat in (Seat.A_WHITE, Seat.B_BLACK):
        assert after[seat].rating == pytest.approx(1333.60, abs=0.01)
    assert {round(p.rd, 2) for p in after.values()} == {283.23}
    assert all(p.games == 1 and p.last == 1000.0 for p in after.values())


def _direct(players: dict[str, tuple[float, float, float | None]],
            team_one: tuple[str, str], team_two: tuple[str, str], score_one: float,
            now: float) -> dict[str, tuple[float, float, float | None]]:
    """The documented system written out directly from docs/ratings.md: team
    averages, the other three's deviations, one Glicko period each."""
    q = math.log(10) / 400
    c2 = (350**2 - 50**2) / 365

    def grown(name: str) -> float:
        _, rd, last = players[name]
        if last is None:
            return rd
        return min(math.sqrt(rd * rd + c2 * (now - last) / DAY), 350.0)

    out = {}
    sides = ((team_one, team_two, score_one), (team_two, team_one, 1 - score_one))
    for team, other, score in sides:
        for me in team:
            partner = team[1] if me == team[0] else team[0]
            mine = (players[me][0] + players[partner][0]) / 2
            theirs = (players[other[0]][0] + players[other[1]][0]) / 2
            spread = grown(partner) ** 2 + grown(other[0]) ** 2 + grown(other[1]) ** 2
            rd_v = math.sqrt(spread / 4)
            g = 1 / math.sqrt(1 + 3 * q * q * rd_v * rd_v / math.pi**2)
            e = 1 / (1 + 10 ** (-g * (mine - theirs) / 400))
            d2 = 1 / (q * q * g * g * e * (1 - e))
            rd = grown(me)
            r_new = players[me][0] + q / (1 / rd**2 + 1 / d2) * g * (score - e)
            rd_new = max(math.sqrt(1 / (1 / rd**2 + 1 / d2)), 50.0)
            out[me] = (r_new, rd_new, now)
    return {**players, **out}


def test_a_scripted_sequence_matches_the_direct_computation() -> None:
    # Five players, partners changing, a draw, a month's break and a long one.
    script = [
        (("ann", "bob"), ("cat", "dan"), 1.0, 0),
        (("ann", "cat"), ("bob", "dan"), 0.5, 1),
        (("ann", "dan"), ("bob", "eve"), 0.0, 1),
        (("eve", "cat"), ("ann", "bob"), 1.0, 31),
        (("ann", "bob"), ("cat", "dan"), 1.0, 31),
        (("bob", "cat"), ("dan", "eve"), 0.5, 400),
    ]
    direct: dict[str, tuple[float, float, float | None]] = {
        name: (1500.0, 350.0, None) for name in ("ann", "bob", "cat", "dan", "eve")
    }
    ours = {name: PlayerRating() for name in direct}
    for one, two, score, day in script:
        now = 1_700_000_000 + day * DAY
        direct = _direct(direct, one, two, score, now)
        seats = {Seat.A_WHITE: one[0], Seat.B_BLACK: one[1], Seat.A_BLACK: two[0],
                 Seat.B_WHITE: two[1]}
        after = rate_team_game(
            TeamGame(ratings={s: ours[n] for s, n in seats.items()}, score_one=score, now=now)
        )
        ours.update({seats[s]: r for s, r in after.items()})
    for name, (rating, rd, _) in direct.items():
        assert ours[name].rating == pytest.approx(rating, abs=1e-9)
        assert ours[name].rd == pytest.approx(rd, abs=1e-9)
    assert ours["ann"].games == 5 and ours["eve"].games == 3
    # Dan lost three and drew two: the lowest.
    assert min(ours, key=lambda n: ours[n].rating) == "dan"


def test_the_virtual_opponent_makes_the_team_difference() -> None:
    ratings = _four(aw=PlayerRating(rating=1800, rd=60), bb=PlayerRating(rating=1400, rd=80),
                    ab=PlayerRating(rating=1650, rd=100), bw=PlayerRating(rating=1550, rd=120))
    game = TeamGame(ratings=ratings, score_one=0.5, now=0.0)
    opponent = virtual_opponent(game, Seat.A_WHITE)
    # r − r_v = (1800 + 1400)/2 − (1650 + 1550)/2 = 0: an even game for each of team one.
    assert 1800 - opponent.rating == pytest.approx(0.0)
    assert opponent.rd == pytest.approx(math.sqrt((80**2 + 100**2 + 120**2) / 4))
    assert opponent.score == 0.5
    after = rate_team_game(game)
    # An even game drawn moves nobody; the deviations shrink.
    for seat, before in ratings.items():
        assert after[seat].rating == pytest.approx(before.rating, abs=1e-9)
        assert after[seat].rd < before.rd


def test_deviation_grows_with_time_away_and_settles_provisional() -> None:
    settled = PlayerRating(rating=1700, rd=50, games=40, last=0.0)
    assert settled.rd_at(0.0) == 50
    assert settled.rd_at(365 * DAY) == pytest.approx(MAX_RD)
    assert settled.rd_at(10_000 * DAY) == MAX_RD
    assert settled.rd_at(30 * DAY) == pytest.approx(math.sqrt(50**2 + DEFAULTS.growth**2 * 30))
    assert not settled.provisional(0.0)
    assert settled.provisional(30 * DAY)  # √(50² + 18.13²·30) = 111 > 80
    assert PlayerRating().provisional(0.0)


def test_bad_games_are_refused() -> None:
    new = PlayerRating()
    with pytest.raises(ValueError, match="all four"):
        rate_team_game(TeamGame(ratings={Seat.A_WHITE: new}, score_one=1.0, now=0.0))
    with pytest.raises(ValueError, match="between 0 and 1"):
        rate_team_game(TeamGame(ratings=_four(aw=new, ab=new, bw=new, bb=new), score_one=2.0,
                                now=0.0))


def test_the_deviation_stops_at_its_floor_over_many_games() -> None:
    # Two hundred games a minute apart shrink every deviation far below 50 without
    # the floor (Glicko's update alone only ever narrows it); with it, each stops
    # at exactly MIN_RD and the ratings still move by a result.
    players = _four(aw=PlayerRating(), ab=PlayerRating(), bw=PlayerRating(), bb=PlayerRating())
    now = 0.0
    for game in range(200):
        now += 60.0
        players = rate_team_game(TeamGame(ratings=players, score_one=float(game % 2), now=now))
    assert {p.rd for p in players.values()} == {DEFAULTS.min_rd}
    assert {p.games for p in players.values()} == {200}
    before = players[Seat.A_WHITE].rating
    won = rate_team_game(TeamGame(ratings=players, score_one=1.0, now=now + 60.0))
    assert won[Seat.A_WHITE].rating - before > 2.0
    assert won[Seat.A_WHITE].rd == DEFAULTS.min_rd
