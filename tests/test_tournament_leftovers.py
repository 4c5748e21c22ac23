"""What crashing engines leave behind goes after every game of a tournament.

The test engine (``forking_engine.py``) forks sleeping children and
double-forked daemons on its first turn, then exits. Its children die with
its process group but are re-parented to this process (a child subreaper, as
the ``tournament`` command is) as zombies; its daemons live on. Both must be
gone by the time each game is reported, not only when the tournament ends.
And an engine that crashes only every other game is dropped all the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from proc_checks import forking, recorded, running, zombies_of

from bughouse_arbiter.config.specs import builtin_engine, engine_spec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.reaper import (
    become_subreaper,
    orphans,
    signal_orphans,
    starting_engine,
)
from bughouse_arbiter.tournament.jobs import MatchReport
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import LocalScheduler

RULES = HouseRules(time=10.0, max_plies=40)
#: Games that end only with the forking engine's crash, however slow the machine.
CRASHING = HouseRules(time=10.0, max_plies=400)
GUARD = 120


def teams(bad_spec: str) -> list[Participant]:
    """``bad`` (the forking engine and a random mover) against two random movers;
    one forking process a game, so its crash ends the game it struck in. The
    random movers take 30 ms a move, so a game that does not crash lasts a
    moment, and one that does is still on when the crash comes."""
    bad = engine_spec(bad_spec)
    good = builtin_engine("random").with_options(Delay="30")
    return [
        Participant(name="bad", members=(bad, good), member_names=("forking", "random")),
        Participant(name="good", members=(good, good), member_names=("random", "random")),
    ]


@pytest.mark.slow
async def test_each_game_is_reported_with_its_zombies_reaped_and_daemons_killed(
    tmp_path: Path,
) -> None:
    if not become_subreaper():
        pytest.skip("needs Linux's child subreaper")
    record = tmp_path / "daemons.txt"
    bad = forking(record, "--children", "20", "--daemons", "2")
    jobs = schedule(teams(bad), format="gauntlet", games=4, rules=CRASHING, openings=[], seed=1)
    before = zombies_of(os.getpid())
    seen: list[tuple[str, int, int, list[int]]] = []

    async def on_report(report: MatchReport) -> None:
        kinds = [i.kind for i in report.incidents if i.participant == "bad"]
        daemons = recorded(record)
        seen.append(
            (",".join(kinds), len(daemons), len(zombies_of(os.getpid()) - before), running(daemons))
        )

    with trio.fail_after(GUARD):
        await LocalScheduler(1).run(lambda: jobs.pop(0) if jobs else None, on_report)
    # Every game: the engine crashed, had left 2 more daemons, and by its report
    # no zombie of its 20 children and none of its daemons was left.
    assert seen == [("crash", 2 * n, 0, []) for n in range(1, 5)]



@pytest.mark.slow
async def test_an_engine_that_crashes_every_other_game_reaches_max_failures(
    tmp_path: Path,
) -> None:
    bad = forking(tmp_path / "daemons.txt", "--children", "0", "--daemons", "0", "--crash-in", "2")
    participants = teams(bad)
    jobs = schedule(participants, format="gauntlet", games=10, rules=RULES, openings=[], seed=1)
    plan = TournamentPlan(
        participants=tuple(participants),
        format="gauntlet",
        games=10,
        rules=RULES,
        jobs=tuple(jobs),
        out=tmp_path / "t",
        max_failures=2,
    )
    (tmp_path / "t").mkdir()
    messages: list[str] = []

    class Quiet:
        def begin(self, total: int, done: int) -> None: ...

        def game(
            self, job: object, report: MatchReport, status: str, left: object = None
        ) -> None: ...

        def message(self, text: str) -> None:
            messages.append(text)

        def end(self) -> None: ...

    tournament = Tournament(plan, Quiet())
    tournament.resume()
    with trio.fail_after(GUARD):
        await tournament.run(LocalScheduler(1), trio.CancelScope())
    # Played, crashed, played, crashed: two failures in its last three games.
    failed = [
        any(i.is_failure and i.participant == "bad" for i in report.incidents)
        for report in (tournament.reports[job.job_id] for job in jobs[:4])
    ]
    assert failed == [False, True, False, True]
    assert len(tournament.reports) == 4
    assert tournament.dropped["bad"].startswith("2 failures in its last 3 games (last: ")
    assert any(m.startswith("bad dropped: 2 failures in its last 3 games") for m in messages)


@pytest.mark.slow
def test_a_child_that_came_while_an_engine_starts_is_not_taken_for_an_orphan() -> None:
    # With several tables, one clears its game's leftovers while another starts
    # an engine: that engine is a child in a session of its own whose pid is not
    # live yet. Only a child there before the start began can be an orphan.
    if not become_subreaper():
        pytest.skip("needs Linux's child subreaper")
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    old = subprocess.Popen(sleep, start_new_session=True)
    try:
        with starting_engine():
            new = subprocess.Popen(sleep, start_new_session=True)
            try:
                found = orphans()
                assert old.pid in found and new.pid not in found
                assert signal_orphans(keep={old.pid}) == []
            finally:
                new.kill()
                new.wait()
        assert old.pid in orphans()
    finally:
        old.kill()
        old.wait()
