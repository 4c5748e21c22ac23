"""The tournament's counts kept game by game equal those recomputed over every game."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.display import remaining, status_text
from bughouse_arbiter.tournament.jobs import MatchReport
from bughouse_arbiter.tournament.results import (
    GameResult,
    by_pairing,
    pairing_summary,
    sprt_state,
)
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.stats import Sprt, Tally

POINTS = st.sampled_from([0.0, 0.5, 1.0])


@given(games=st.dictionaries(st.integers(0, 40), POINTS, max_size=40), order=st.randoms())
def test_a_tally_is_the_pairings_summary_in_any_order(
    games: dict[int, float], order: object
) -> None:
    results = [
        GameResult(job_id=f"g{g}", pairing=0, game=g, first="a", second="b", points=p)
        for g, p in games.items()
    ]
    order.shuffle(results)  # type: ignore[attr-defined]
    tally = Tally()
    for r in results:
        tally.add(r.game // 2, r.points)
    assert tally.summary() == pairing_summary(results)


class _Quiet:
    def begin(self, total: int, done: int) -> None: ...

    def game(self, job: object, report: object, status: str, left: object = None) -> None: ...

    def message(self, text: str) -> None: ...

    def end(self) -> None: ...


RULES = HouseRules(time=2.0, max_plies=6)
SPEC = builtin_engine("random")
TEAMS = tuple(Participant(name=n, members=(SPEC, SPEC), member_names=(n, n)) for n in "abc")
JOBS = tuple(
    schedule(TEAMS, format="round-robin", games=12, rules=RULES, openings=[], seed=1)
)
RESULTS = st.sampled_from([Result.TEAM_ONE, Result.TEAM_TWO, Result.DRAW])


@settings(max_examples=40, deadline=None)
@given(
    played=st.lists(st.tuples(st.sampled_from(JOBS), RESULTS), max_size=36),
    dropped=st.sets(st.sampled_from("abc"), max_size=1),
)
def test_the_tournaments_figures_kept_game_by_game_are_those_over_every_game(
    played: list[tuple[object, Result]], dropped: set[str]
) -> None:
    plan = TournamentPlan(
        participants=TEAMS,
        format="round-robin",
        games=12,
        rules=RULES,
        jobs=JOBS,
        out=Path("."),
        sprt=Sprt(elo0=-20, elo1=20),
    )
    tournament = Tournament(plan, _Quiet())
    for job, result in played:
        tournament._account(job, MatchReport(job_id=job.job_id, result=result))  # type: ignore[attr-defined]
    tournament.dropped.update({name: "gone" for name in dropped})
    results = tournament.results()
    assert len({r.job_id for r in results}) == len(results)  # a game again is not counted
    first = [r for r in results if r.pairing == 0]
    sprt = sprt_state(plan.sprt, results)  # type: ignore[arg-type]
    assert tournament.status_text() == (
        status_text(first[0].first, first[0].second, pairing_summary(first), sprt)
        if first
        else ""
    )
    summary = tournament.summary()
    expected = []
    for (a, b), games in by_pairing(results).items():
        s = pairing_summary(games)
        expected.append((a, b, s.wins, s.losses, s.draws, s.penta.as_dict()))
    assert [
        (p["first"], p["second"], p["wins"], p["losses"], p["draws"], p["pentanomial"])
        for p in summary["pairings"]  # type: ignore[attr-defined]
    ] == expected
    assert summary["sprt"] == sprt
    left = sum(
        1
        for job in JOBS
        if job.job_id not in tournament.reports and not set(job.sides.values()) & dropped
    )
    assert tournament.games_left() == remaining(left, sprt, len(first))
