"""``--noswap`` and ``--reverse``: which seats the first participant of a
pairing holds in each game, and that results are credited to the right side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_tournament_clocks import played

from bughouse_arbiter.cli import main
from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import Result, Seat, Team
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.runner import TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, rotation, schedule

SPEC = builtin_engine("random")
TEAMS = [Participant(name=n, members=(SPEC, SPEC), member_names=(n, n)) for n in "ab"]


def _jobs(**flags: bool) -> list[MatchJob]:
    return schedule(
        TEAMS, format="gauntlet", games=8, rules=HouseRules(time=2.0), openings=[], **flags
    )


def _a_seats(job: MatchJob) -> set[Seat]:
    return {
        seat for entrant in job.entrants if entrant.participant == "a" for seat in entrant.seats
    }


def test_by_default_the_second_game_of_a_pair_swaps_the_teams() -> None:
    jobs = _jobs()
    # Each pair swaps them; pairs 2 and 4 also turn the boards (and so start on team 2's).
    assert [job.first_team for job in jobs] == [Team.ONE, Team.TWO, Team.TWO, Team.ONE] * 2
    assert [rotation(g) for g in range(4)] == [0, 1, 2, 3]


def test_noswap_keeps_the_first_participant_on_team_1s_seats() -> None:
    jobs = _jobs(noswap=True)
    assert [job.first_team for job in jobs] == [Team.ONE] * 8
    assert all(job.sides[Team.ONE] == "a" for job in jobs)
    assert all(_a_seats(job) == set(Team.ONE.seats) for job in jobs)
    # The openings still go in pairs; the members change boards every pair.
    assert [job.pair for job in jobs] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [rotation(g, noswap=True) for g in range(4)] == [0, 0, 3, 3]


def test_reverse_plays_each_pair_the_other_way_round() -> None:
    jobs = _jobs(reverse=True)
    assert [job.first_team for job in jobs] == [Team.TWO, Team.ONE, Team.ONE, Team.TWO] * 2
    both = _jobs(noswap=True, reverse=True)
    assert [job.first_team for job in both] == [Team.TWO] * 8


async def test_results_are_credited_to_the_participant_that_played(tmp_path: Path) -> None:
    jobs = _jobs(noswap=True, reverse=True)  # "a" always on team 2's seats
    rules = HouseRules(time=2.0)
    plan = TournamentPlan(
        participants=tuple(TEAMS), format="gauntlet", games=8, rules=rules,
        jobs=tuple(jobs), out=tmp_path,
    )  # fmt: skip

    tournament = await played(
        plan, lambda job: MatchReport(job_id=job.job_id, result=Result.TEAM_TWO, bpgn="*\n")
    )
    [pairing] = tournament.summary()["pairings"]  # type: ignore[misc]
    assert (pairing["first"], pairing["wins"], pairing["losses"]) == ("a", 8, 0)


def test_a_saved_flag_that_is_not_a_boolean_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    options = {"engine": ["a=random", "b=random"], "noswap": "yes"}
    (folder / "tournament.json").write_text(json.dumps({"options": options}))
    assert main(["tournament", "--resume", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "option 'noswap' is \"yes\", not true or false" in err
    assert len(err.splitlines()) == 1
