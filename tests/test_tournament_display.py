"""What a tournament prints: figures rounded once, no -0, no empty interval, an
honest ETA, 80-column lines."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from bughouse_arbiter.commands.tournament import LineProgress, report_text
from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.display import (
    Remaining,
    elo_text,
    eta_text,
    fit,
    nelo_text,
    percent,
    plural,
    remaining,
    signed,
    sprt_games_left,
    status_text,
)
from bughouse_arbiter.tournament.jobs import MatchReport
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule, side_of
from bughouse_arbiter.tournament.stats import Pentanomial, Sprt, Summary

SPRT = {"llr": -0.74, "lower": -2.94, "upper": 2.94}


def test_numbers_have_no_negative_zero_and_words_their_plural() -> None:
    assert signed(-0.3) == "+0" and signed(-0.04, 1) == "+0.0" and signed(-0.6) == "-1"
    assert signed(float("-inf")) == "-inf" and signed(12.25, 1) == "+12.2"
    assert plural(1, "game") == "1 game" and plural(2, "pair") == "2 pairs"
    assert plural(0, "pair") == "0 pairs"
    assert percent(76 / 148) == "51.4%"  # 0.5135 (rounded before) would show 51.3%


def test_no_interval_until_the_results_bound_one() -> None:
    one_draw = Summary(wins=0, losses=0, draws=1)
    assert elo_text(one_draw) == "Elo +0 ± n/a"
    assert nelo_text(one_draw) == "nElo n/a"
    game_five = Summary(wins=1, losses=2, draws=2, penta=Pentanomial((0, 2, 0, 0, 0)))
    assert elo_text(game_five) == "Elo -70 ± n/a"
    known = Summary(wins=3, losses=1, draws=2, penta=Pentanomial((0, 0, 1, 2, 0)))
    assert elo_text(known).startswith("Elo +") and "n/a" not in elo_text(known)
    assert elo_text(Summary(wins=2, losses=0, draws=0)) == "Elo +inf"


def test_the_status_shows_elo_nelo_los_and_the_llr() -> None:
    s = Summary(wins=30, losses=20, draws=50)
    text = status_text("a", "b", s, {**SPRT, "llr": 1.234})
    # sigma = 0.35 a game: nElo 0.05 / 0.35 * 800 / ln 10 = 49.6, ± 1.96 / 10 * 347.4;
    # Elo of 0.55 -+ 1.96 * 0.035: -12.9 and +84.1, so ± 48.5.
    assert text == "a vs b: Elo +35 ± 48 · nElo +50 ± 68 · LOS 92.3% · LLR 1.23 (-2.94, 2.94)"


def test_an_sprt_is_expected_to_end_at_the_bound_its_llr_drifts_to() -> None:
    # -0.74 after 2 games: -0.37 a game, 2.2 to go to -2.94: 6 games more.
    assert sprt_games_left(-0.74, -2.94, 2.94, 2) == pytest.approx(2.2 / 0.37)
    assert sprt_games_left(1.0, -2.94, 2.94, 10) == pytest.approx(19.4)
    assert sprt_games_left(0.0, -2.94, 2.94, 10) is None
    expected = remaining(19998, SPRT, 2)
    assert expected.approximate and expected.games == pytest.approx(2.2 / 0.37)
    assert remaining(3, SPRT, 2) == Remaining(3.0, approximate=True)  # never past the cap
    assert remaining(7) == Remaining(7.0)
    assert eta_text(Remaining(7.0), 30.0) == "ETA 0:03:30"
    assert eta_text(Remaining(120.0, approximate=True), 31.0) == "ETA ~1:02:00"
    assert eta_text(Remaining(None, approximate=True), 31.0) == "ETA ~?"
    assert eta_text(Remaining(7.0), None) == "ETA ?"


def test_lines_fit_eighty_columns_and_keep_every_word() -> None:
    parts = ["x" * 30, "a long reason " * 8, "y" * 100, "LOS 50.0%"]
    lines = fit(parts)
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("  a long reason")
    assert sum(line.count("reason") for line in lines) == 8
    assert lines[-1].endswith("LOS 50.0%") and any(line.endswith("…") for line in lines)


def _job_and_report() -> tuple[object, MatchReport]:
    spec = engine_spec("random")
    teams = [
        Participant(name=n * 30, members=(spec, spec), member_names=(n, n)) for n in "ab"
    ]
    [job, _] = schedule(teams, format="gauntlet", games=2, rules=HouseRules(), openings=[])
    return job, MatchReport(job_id=job.job_id, result=Result.TEAM_ONE)


def test_a_fixed_run_counts_its_games_left_and_an_sprt_says_about() -> None:
    now = [100.0]
    out = io.StringIO()
    progress = LineProgress(out, clock=lambda: now[0])
    progress.begin(total=10, done=2)
    job, report = _job_and_report()
    now[0] = 130.0
    status = "a vs b: Elo +35 ± 49 · nElo +72 ± 68 · LOS 92.3%"
    progress.game(job, report, status, Remaining(7.0))  # type: ignore[arg-type]
    now[0] = 160.0
    progress.game(job, report, status, Remaining(120.0, approximate=True))  # type: ignore[arg-type]
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("game 1 (3/10): ")
    assert "ETA 0:03:30" in out.getvalue()  # 7 games left at 30 s each
    assert "game 1 (4, SPRT)" in out.getvalue()
    assert "ETA ~1:00:00" in out.getvalue()  # 120 expected at 30 s each


def test_the_report_rounds_once_says_one_game_and_shows_nelo() -> None:
    pairing: dict[str, Any] = {
        "first": "a",
        "second": "b",
        "games": 148,
        "wins": 60,
        "losses": 56,
        "draws": 32,
        "pentanomial": {"LL": 5, "LD": 10, "DD+WL": 40, "WD": 12, "WW": 7},
    }
    row = {"name": "a", "games": 148, "wins": 60, "losses": 56, "draws": 32, "points": 76}
    summary = {
        "standings": [{**row, "elo": -0.02, "elo_margin": 30.0}],
        "crosstable": {},
        "pairings": [
            pairing,
            {
                **pairing,
                **{"games": 1, "wins": 0, "losses": 0, "draws": 1},
                "pentanomial": dict.fromkeys(pairing["pentanomial"], 0),
            },
        ],
        "crashes": {},
        "time_losses": {},
        "dropped": {},
        "games_played": 149,
        "games_scheduled": 150,
        "sprt": {
            "elo0": 0,
            "elo1": 5,
            "model": "normalized",
            "llr": 0.1,
            "lower": -2.94,
            "upper": 2.94,
            "pairs": 1,
            "decision": None,
        },
    }
    text = report_text(summary)
    assert "51.4%" in text and "51.3%" not in text
    assert "-0.0" not in text and "+0.0" in text
    assert "a vs b: 1 game," in text and "after 1 pair:" in text
    assert "nElo +" in text and "Elo +0.0 [n/a]" in text
    assert all(len(line) <= 80 for line in text.splitlines()[2:])


class _Quiet:
    def begin(self, total: int, done: int) -> None: ...
    def game(self, *args: object) -> None: ...
    def message(self, text: str) -> None: ...
    def end(self) -> None: ...


def _tournament(tmp_path: Path, games: int, sprt: Sprt | None) -> Tournament:
    spec = engine_spec("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    jobs = schedule(teams, format="gauntlet", games=games, rules=HouseRules(), openings=[])
    plan = TournamentPlan(
        participants=tuple(teams),
        format="gauntlet",
        games=games,
        rules=HouseRules(),
        jobs=tuple(jobs),
        out=tmp_path,
        sprt=sprt,
    )
    return Tournament(plan, _Quiet())


def _lose(tournament: Tournament, count: int) -> None:
    """The first participant loses the first ``count`` games."""
    for job in tournament.plan.jobs[:count]:
        won = side_of(job.game).other
        result = Result.TEAM_ONE if won.value == 1 else Result.TEAM_TWO
        tournament._account(job, MatchReport(job_id=job.job_id, result=result))


def test_the_tournament_counts_games_left_or_the_sprts_expected_length(tmp_path: Path) -> None:
    fixed = _tournament(tmp_path, 10, None)
    _lose(fixed, 4)
    assert fixed.games_left() == Remaining(6.0)
    fixed.dropped["b"] = "gone"
    assert fixed.games_left() == Remaining(0.0)
    sprt = _tournament(tmp_path, 2000, Sprt(elo0=0, elo1=150))
    _lose(sprt, 2)
    state = sprt._sprt(Sprt(elo0=0, elo1=150))
    llr, lower = float(state["llr"]), float(state["lower"])  # type: ignore[arg-type]
    left = sprt.games_left()
    assert left.approximate and llr < 0
    # Not the 1998 the schedule has left: the drift so far, llr / 2 a game.
    assert left.games == pytest.approx((lower - llr) / (llr / 2))
    assert left.games is not None and left.games < 10
