"""Group commit: the reports that arrived together are journaled in one write and
fsync, off the event loop; none is shown before its fsync; hand-out goes on meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import trio

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import NextJob, OnReport, SchedulerStats

GUARD = 20


def _plan(folder: Path, games: int) -> TournamentPlan:
    spec = builtin_engine("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    rules = HouseRules(time=2.0, max_plies=6)
    jobs = schedule(teams, format="gauntlet", games=games, rules=rules, openings=[])
    return TournamentPlan(
        participants=tuple(teams),
        format="gauntlet",
        games=games,
        rules=rules,
        jobs=tuple(jobs),
        out=folder,
    )


class _Shown:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def begin(self, total: int, done: int) -> None: ...

    def game(self, job: MatchJob, report: MatchReport, status: str, left: object = None) -> None:
        self.log.append(f"shown {job.job_id}")

    def message(self, text: str) -> None: ...

    def end(self) -> None: ...


class _SlowJournal:
    """A journal whose write (and fsync) returns only once ``release`` is set."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.release = threading.Event()
        self.batches: list[list[str]] = []

    def append_all(self, games: Sequence[tuple[MatchJob, MatchReport]]) -> None:
        ids = [job.job_id for job, _ in games]
        self.log.append(f"writing {' '.join(ids)}")
        assert self.release.wait(GUARD)
        self.batches.append(ids)
        self.log.append(f"fsynced {' '.join(ids)}")

    def close(self) -> None: ...


def _draw(job: MatchJob) -> MatchReport:
    return MatchReport(job_id=job.job_id, result=Result.DRAW, bpgn="[Event \"x\"]\n\n*\n")


async def test_reports_that_arrived_together_are_one_write_shown_only_after_its_fsync(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    tournament = Tournament(_plan(tmp_path, 6), _Shown(log))
    tournament.resume()
    tournament.journal.close()
    slow = _SlowJournal(log)
    tournament.journal = slow  # type: ignore[assignment]

    class Together:
        concurrency = 6
        stats = SchedulerStats()

        async def run(self, next_job: NextJob, on_report: OnReport) -> None:
            first = [next_job() for _ in range(3)]
            for job in first:  # three results at once: no checkpoint between them
                assert job is not None
                await on_report(_draw(job))
            while not log:  # the write has begun, in its thread
                await trio.sleep(0.001)
            # Hand-out does not wait for the fsync.
            later = [next_job() for _ in range(3)]
            log.append("handed out 3 more")
            for job in later:
                assert job is not None
                await on_report(_draw(job))
            slow.release.set()

    with trio.fail_after(GUARD):
        await tournament.run(Together(), trio.CancelScope())
    ids = [job.job_id for job in tournament.plan.jobs]
    assert slow.batches == [ids[:3], ids[3:]]
    assert log == [
        f"writing {' '.join(ids[:3])}",
        "handed out 3 more",
        f"fsynced {' '.join(ids[:3])}",
        *(f"shown {i}" for i in ids[:3]),
        f"writing {' '.join(ids[3:])}",
        f"fsynced {' '.join(ids[3:])}",
        *(f"shown {i}" for i in ids[3:]),
    ]


async def test_a_game_that_arrived_as_the_run_is_stopped_is_journaled_and_shown(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    tournament = Tournament(_plan(tmp_path, 4), _Shown(log))
    tournament.resume()
    stop = trio.CancelScope()

    class StopsAfterOne:
        concurrency = 1
        stats = SchedulerStats()

        async def run(self, next_job: NextJob, on_report: OnReport) -> None:
            job = next_job()
            assert job is not None
            await on_report(_draw(job))
            stop.cancel()  # as Ctrl+C or a decided SPRT would, before any checkpoint
            await trio.sleep_forever()

    with trio.fail_after(GUARD):
        await tournament.run(StopsAfterOne(), stop)
    first = tournament.plan.jobs[0].job_id
    assert log == [f"shown {first}"]
    lines = (tmp_path / "results.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 1 and f'"job_id": "{first}"' in lines[0]
    assert "*" in (tmp_path / "games.bpgn").read_text("utf-8")
