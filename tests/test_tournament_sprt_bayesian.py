"""The SPRT's bayesian model (fastchess's ``model=bayesian``): BayesElo on the
games' W/D/L, checked against fastchess's own test figures and the command line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from cli_checks import expect_usage_error

from bughouse_arbiter.commands.tournament import parse_sprt
from bughouse_arbiter.tournament.live import PairingTally
from bughouse_arbiter.tournament.results import sprt_state_of
from bughouse_arbiter.tournament.stats import (
    Pentanomial,
    Sprt,
    Tally,
    bayeselo_score,
    mle_with_mean,
)


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "elo0", "elo1", "llr"),
    [
        # fastchess app/tests/sprt_test.cpp, "bayesian trinomial 1" and "2" (to 1%).
        (68965, 68526, 128429, 0.0, 2.0, -1.26),
        (21629, 21484, 41111, 0.5, 2.5, -1.13),
    ],
)
def test_the_bayesian_llr_matches_fastchess(
    wins: int, losses: int, draws: int, elo0: float, elo1: float, llr: float
) -> None:
    sprt = Sprt(elo0=elo0, elo1=elo1, model="bayesian")
    assert sprt.llr(Pentanomial((0, 0, 0, 0, 0)), (wins, draws, losses)) == pytest.approx(
        llr, rel=0.01
    )


def test_bayeselo_scores_are_symmetric_and_a_draw_elo_pulls_them_to_half() -> None:
    assert bayeselo_score(0.0, 100.0) == 0.5
    assert bayeselo_score(50.0, 0.0) == pytest.approx(1 / (1 + 10 ** (-50 / 400)))
    assert bayeselo_score(-30.0, 80.0) == pytest.approx(1 - bayeselo_score(30.0, 80.0))
    assert 0.5 < bayeselo_score(30.0, 200.0) < bayeselo_score(30.0, 0.0)


def test_the_bayesian_llr_is_the_trinomial_gsprt_at_the_bayeselo_scores() -> None:
    wins, draws, losses = 60, 30, 40
    total = wins + draws + losses
    probs = [losses / total, draws / total, wins / total]
    draw_elo = 200 * math.log10((1 - probs[0]) / probs[0] * (1 - probs[2]) / probs[2])
    p0 = mle_with_mean((0, 0.5, 1), probs, bayeselo_score(0.0, draw_elo))
    p1 = mle_with_mean((0, 0.5, 1), probs, bayeselo_score(10.0, draw_elo))
    expected = total * sum(p * math.log(a / b) for p, a, b in zip(probs, p1, p0, strict=True))
    sprt = Sprt(elo0=0.0, elo1=10.0, model="bayesian")
    assert sprt.llr(Pentanomial((0,) * 5), (wins, draws, losses)) == pytest.approx(expected)


def test_no_llr_before_a_win_and_a_loss_and_none_without_the_games() -> None:
    sprt = Sprt(model="bayesian")
    assert sprt.llr(Pentanomial((0,) * 5), (5, 3, 0)) == 0.0
    with pytest.raises(ValueError, match="W/D/L"):
        sprt.llr(Pentanomial((1, 0, 0, 0, 1)))


def test_the_state_and_the_live_tally_use_the_games_under_the_bayesian_model() -> None:
    sprt = parse_sprt("elo0=0,elo1=10,model=bayesian")
    tally = Tally()
    live = PairingTally("a", "b", with_llr=True)
    for game, points in enumerate([1.0, 0.0, 1.0, 0.5, 1.0, 1.0, 0.0, 1.0, 0.5]):
        tally.add(game // 2, points)
        live.add(game, points)
    state = sprt_state_of(sprt, tally)
    wanted = sprt.llr(tally.penta, (tally.wins, tally.draws, tally.losses))
    assert state["model"] == "bayesian" and state["llr"] == round(wanted, 4)
    assert live.llr_now(sprt) == pytest.approx(wanted)
    # The pentanomial models wait for the ninth game's pair; this one counts it.
    eight = Tally()
    for game, points in enumerate([1.0, 0.0, 1.0, 0.5, 1.0, 1.0, 0.0, 1.0]):
        eight.add(game // 2, points)
    assert eight.penta == tally.penta
    assert sprt.llr_of(eight) != pytest.approx(wanted)


def test_an_unknown_model_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["--engine", "a=random", "--engine", "b=random", "--sprt", "elo0=0,elo1=5,model=bayes"]
    expect_usage_error(
        "tournament", argv, "unknown SPRT model 'bayes' (normalized, logistic or bayesian)",
        capsys, tmp_path,
    )  # fmt: skip
