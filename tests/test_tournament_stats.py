"""Tournament statistics against independently computed values (closed forms, scipy)."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")

import numpy as np
from scipy import optimize, stats

from bughouse_arbiter.tournament.stats import (
    PENTA_SCORES,
    Pentanomial,
    RatedGame,
    Sprt,
    Summary,
    elo_from_score,
    fit_ratings,
    score_from_elo,
)

K = math.log(10) / 400


def test_elo_of_a_score_is_the_logistic_closed_form() -> None:
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)


def _paired(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Summary:
    """A summary of whole pairs, from fastchess's six pair counts."""
    return Summary(
        wins=wl + wd + 2 * ww,
        losses=2 * ll + ld + wl,
        draws=ld + 2 * dd + wd,
        penta=Pentanomial((ll, ld, wl + dd, wd, ww)),
    )


def test_los_and_nelo_come_from_the_intervals_own_model() -> None:
    s = Summary(wins=30, losses=20, draws=50)
    outcomes = np.array([1.0] * 30 + [0.0] * 20 + [0.5] * 50)
    se = outcomes.std(ddof=0) / math.sqrt(len(outcomes))
    assert s.los == pytest.approx(stats.norm.cdf((outcomes.mean() - 0.5) / se))
    assert s.nelo == pytest.approx(0.05 / outcomes.std(ddof=0) * 800 / math.log(10))
    assert s.nelo_margin() == pytest.approx(stats.norm.ppf(0.975) / 10 * 800 / math.log(10))
    penta = _paired(3, 7, 0, 50, 0, 0)
    pairs = np.repeat(np.array(PENTA_SCORES), penta.penta.counts)
    se = pairs.std(ddof=0) / math.sqrt(len(pairs))
    assert penta.los == pytest.approx(stats.norm.cdf((pairs.mean() - 0.5) / se))
    # The interval lies below 0, so LOS is under 2.5% (the W/L formula said 11%).
    assert penta.elo_interval()[1] < 0 and penta.los < 0.025
    assert penta.nelo == pytest.approx(
        (pairs.mean() - 0.5) / (math.sqrt(2) * pairs.std(ddof=0)) * 800 / math.log(10)
    )


@pytest.mark.parametrize(
    ("counts", "nelo", "nelo_error", "elo", "elo_error", "los"),
    [
        # fastchess's own test cases (app/tests/elo_test.cpp): its figures, to 1%.
        ((34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 1.0),
        ((332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 0.0505),
        ((7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, 0.0),
    ],
)
def test_pentanomial_figures_match_fastchess(
    counts: tuple[int, int, int, int, int, int],
    nelo: float,
    nelo_error: float,
    elo: float,
    elo_error: float,
    los: float,
) -> None:
    s = _paired(*counts)
    assert s.nelo == pytest.approx(nelo, rel=0.01)
    assert s.nelo_margin() == pytest.approx(nelo_error, rel=0.01)
    assert s.elo == pytest.approx(elo, rel=0.01)
    assert s.elo_margin() == pytest.approx(elo_error, rel=0.01)
    assert s.los == pytest.approx(los, abs=5e-5)


@pytest.mark.parametrize(
    ("wdl", "nelo", "nelo_error", "los"),
    [((76, 89, 123), -20.76, 40.13, 0.1553), ((136, 96, 111), 49.77, 36.77, 0.9960)],
)
def test_game_figures_match_fastchess(
    wdl: tuple[int, int, int], nelo: float, nelo_error: float, los: float
) -> None:
    s = Summary(wins=wdl[0], losses=wdl[1], draws=wdl[2])
    assert s.nelo == pytest.approx(nelo, rel=0.01)
    assert s.nelo_margin() == pytest.approx(nelo_error, rel=0.01)
    assert s.los == pytest.approx(los, abs=5e-5)


def test_no_interval_while_the_results_have_no_variance() -> None:
    one_draw = Summary(wins=0, losses=0, draws=1)
    assert not one_draw.interval_known
    assert one_draw.elo_interval() == (-math.inf, math.inf)
    assert one_draw.nelo is None and one_draw.nelo_margin() is None
    assert one_draw.los == 0.5
    # Game 5: two pairs alike and one game of the third.
    alike = Summary(wins=1, losses=2, draws=2, penta=Pentanomial((0, 2, 0, 0, 0)))
    assert not alike.interval_known and alike.elo_margin() == math.inf
    assert alike.los == 0.0  # certain, as far as these results go
    assert Summary(wins=0, losses=0, draws=0).los == 0.5


def test_trinomial_interval_from_the_game_variance() -> None:
    s = Summary(wins=30, losses=20, draws=50)
    outcomes = np.array([1.0] * 30 + [0.0] * 20 + [0.5] * 50)
    se = outcomes.std(ddof=0) / math.sqrt(len(outcomes))
    z = stats.norm.ppf(0.975)
    low, high = s.elo_interval()
    assert s.score == pytest.approx(0.55)
    assert low == pytest.approx(-400 * math.log10(1 / (0.55 - z * se) - 1))
    assert high == pytest.approx(-400 * math.log10(1 / (0.55 + z * se) - 1))
    assert s.draw_ratio == 0.5


def test_pentanomial_interval_from_the_pair_variance() -> None:
    penta = Pentanomial((3, 10, 25, 14, 8))
    s = Summary(wins=45, losses=35, draws=40, penta=penta)
    pairs = np.repeat(np.array(PENTA_SCORES), penta.counts)
    se = pairs.std(ddof=0) / math.sqrt(len(pairs))
    assert s.score_stderr() == pytest.approx(se)
    low, high = s.elo_interval()
    z = stats.norm.ppf(0.975)
    assert high - low == pytest.approx(
        elo_from_score(s.score + z * se) - elo_from_score(s.score - z * se)
    )


def test_pentanomial_counts_pairs_by_points() -> None:
    penta = Pentanomial.from_pairs([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert penta.counts == (1, 1, 2, 1, 3)
    assert penta.as_dict() == {"LL": 1, "LD": 1, "DD+WL": 2, "WD": 1, "WW": 3}
    with pytest.raises(ValueError):
        Pentanomial.from_pairs([0.3])


def _constrained_mle(probs: np.ndarray, constraint: object) -> np.ndarray:
    """argmax sum phat log p over the simplex under ``constraint(p) == 0`` (scipy SLSQP)."""
    result = optimize.minimize(
        lambda p: -float(np.sum(probs * np.log(p))),
        x0=probs,
        method="SLSQP",
        bounds=[(1e-12, 1.0)] * len(probs),
        constraints=[
            {"type": "eq", "fun": lambda p: np.sum(p) - 1.0},
            {"type": "eq", "fun": constraint},
        ],
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    assert result.success, result.message
    return np.asarray(result.x)


def _independent_llr(counts: tuple[int, ...], elo0: float, elo1: float, model: str) -> float:
    regularized = np.array([c if c else 1e-3 for c in counts], dtype=float)
    n = regularized.sum()
    probs = regularized / n
    a = np.array(PENTA_SCORES)

    def mle(elo: float) -> np.ndarray:
        if model == "logistic":
            s = 1 / (1 + 10 ** (-elo / 400))
            return _constrained_mle(probs, lambda p: float(a @ p - s))
        t = math.sqrt(2) * elo / (800 / math.log(10))

        def normalized(p: np.ndarray) -> float:
            mu = float(a @ p)
            sigma = math.sqrt(float(p @ (a - mu) ** 2))
            return (mu - 0.5) - t * sigma

        return _constrained_mle(probs, normalized)

    p0, p1 = mle(elo0), mle(elo1)
    return float(n * np.sum(probs * (np.log(p1) - np.log(p0))))


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize(
    "counts",
    [(10, 40, 100, 45, 12), (0, 3, 20, 30, 40), (5, 0, 7, 0, 2), (0, 0, 0, 0, 30)],
)
def test_gsprt_llr_matches_an_independent_constrained_mle(
    counts: tuple[int, int, int, int, int], model: str
) -> None:
    sprt = Sprt(elo0=0, elo1=5, model=model)
    expected = _independent_llr(counts, 0, 5, model)
    assert sprt.llr(Pentanomial(counts)) == pytest.approx(expected, rel=1e-4, abs=1e-6)


def test_sprt_bounds_and_decisions() -> None:
    sprt = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.1)
    assert sprt.lower == pytest.approx(math.log(0.1 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.9 / 0.05))
    assert sprt.decision(3.0) == "H1"
    assert sprt.decision(-2.3) == "H0"
    assert sprt.decision(0.0) is None
    assert sprt.llr(Pentanomial()) == 0.0
    with pytest.raises(ValueError):
        Sprt(elo0=5, elo1=0)
    with pytest.raises(ValueError):
        Sprt(alpha=0.6, beta=0.5)


def test_sprt_leans_towards_the_true_hypothesis() -> None:
    sprt = Sprt(elo0=0, elo1=10, model="logistic")
    strong = Pentanomial((5, 30, 100, 45, 20))
    weak = Pentanomial((20, 45, 100, 30, 5))
    assert sprt.llr(strong) > 0 > sprt.llr(weak)


def _neg_log_likelihood(x: np.ndarray, rows: np.ndarray, scores: np.ndarray) -> float:
    d = K * rows @ x
    return float(-np.sum(scores * -np.logaddexp(0, -d) + (1 - scores) * -np.logaddexp(0, d)))


def _scipy_fit(rows: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratings (mean 0) and their 95% margins: scipy optimum, numeric inverse Hessian."""
    m = rows.shape[1]

    def nll(free: np.ndarray) -> float:
        return _neg_log_likelihood(np.concatenate([[0.0], free]), rows, scores)

    result = optimize.minimize(nll, np.zeros(m - 1), method="BFGS", options={"gtol": 1e-10})
    full = np.concatenate([[0.0], result.x])
    # The information matrix in closed form at the optimum (independent of ours).
    d = K * rows @ full
    p = 1 / (1 + np.exp(-d))
    info = (rows[:, 1:] * (K * K * p * (1 - p))[:, None]).T @ rows[:, 1:]
    cov = np.linalg.inv(info)
    centre = np.eye(m)[:, 1:] - 1.0 / m
    margins = stats.norm.ppf(0.975) * np.sqrt(np.diag(centre @ cov @ centre.T))
    return full - full.mean(), margins


def test_two_players_fit_gives_the_elo_of_the_score() -> None:
    games = [
        RatedGame(side={"a": 1}, other={"b": 1}, score=1.0, weight=6),
        RatedGame(side={"a": 1}, other={"b": 1}, score=0.0, weight=3),
        RatedGame(side={"a": 1}, other={"b": 1}, score=0.5, weight=1),
    ]
    ratings = fit_ratings(games)
    assert ratings["a"].elo - ratings["b"].elo == pytest.approx(elo_from_score(0.65), abs=1e-6)
    assert ratings["a"].elo == pytest.approx(-ratings["b"].elo)


def test_round_robin_fit_matches_scipy() -> None:
    # (a, b, score of a) for every game of a three-player round-robin.
    results = [("x", "y", 1.0)] * 7 + [("x", "y", 0.0)] * 3 + [("x", "y", 0.5)] * 2
    results += [("y", "z", 1.0)] * 5 + [("y", "z", 0.0)] * 4 + [("x", "z", 1.0)] * 8
    results += [("x", "z", 0.0)] * 2 + [("x", "z", 0.5)] * 3
    names = ["x", "y", "z"]
    rows = np.array([[(n == a) - (n == b) for n in names] for a, b, _ in results], dtype=float)
    scores = np.array([s for _, _, s in results])
    expected, margins = _scipy_fit(rows, scores)
    ratings = fit_ratings([RatedGame(side={a: 1}, other={b: 1}, score=s) for a, b, s in results])
    for i, name in enumerate(names):
        assert ratings[name].elo == pytest.approx(expected[i], abs=1e-3)
        assert ratings[name].margin == pytest.approx(margins[i], rel=1e-3)


def test_mixed_team_fit_rates_engines_as_sums() -> None:
    # Teams: X+X, Y+Y, X+Y; a team's strength is the sum of its members' ratings.
    teams = {"XX": {"X": 2.0}, "YY": {"Y": 2.0}, "XY": {"X": 1.0, "Y": 1.0}, "ZZ": {"Z": 2.0}}
    results = [("XX", "YY", 1.0)] * 6 + [("XX", "YY", 0.0)] * 4
    results += [("XY", "ZZ", 1.0)] * 3 + [("XY", "ZZ", 0.0)] * 7
    results += [("XX", "ZZ", 0.5)] * 4 + [("XX", "ZZ", 0.0)] * 3 + [("XX", "ZZ", 1.0)] * 3
    names = ["X", "Y", "Z"]
    rows = np.array(
        [[teams[a].get(n, 0.0) - teams[b].get(n, 0.0) for n in names] for a, b, _ in results]
    )
    scores = np.array([s for _, _, s in results])
    expected, margins = _scipy_fit(rows, scores)
    ratings = fit_ratings(
        [RatedGame(side=teams[a], other=teams[b], score=s) for a, b, s in results]
    )
    for i, name in enumerate(names):
        assert ratings[name].elo == pytest.approx(expected[i], abs=1e-3)
        assert ratings[name].margin == pytest.approx(margins[i], rel=1e-3)


def test_a_perfect_score_needs_the_prior_to_stay_finite() -> None:
    games = [RatedGame(side={"a": 1}, other={"b": 1}, score=1.0, weight=10)]
    with_prior = fit_ratings(games, prior_draws=1.0)
    # 10 wins and one virtual draw: a scores 10.5 / 11.
    assert with_prior["a"].elo - with_prior["b"].elo == pytest.approx(
        elo_from_score(10.5 / 11), abs=1e-6
    )
    assert math.isfinite(with_prior["a"].margin)
