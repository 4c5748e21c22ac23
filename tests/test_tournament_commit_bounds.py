"""Group commits are bounded: thousands of reports at once are journaled a thousand at a
time, and shown a few dozen per loop step, so the loop keeps reading the engines."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import trio
from test_tournament_commit import _draw, _plan, _Shown

from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.runner import COMMIT_GAMES, SHOW_GAMES, Tournament
from bughouse_arbiter.tournament.scheduler import NextJob, OnReport, SchedulerStats

GAMES = 2 * COMMIT_GAMES + 500


class _Counted:
    def __init__(self) -> None:
        self.batches: list[int] = []

    def append_all(self, games: Sequence[tuple[MatchJob, MatchReport]]) -> None:
        self.batches.append(len(games))

    def close(self) -> None: ...


async def test_a_flood_of_reports_is_journaled_and_shown_in_bounded_steps(
    tmp_path: Path,
) -> None:
    log: list[str] = []
    tournament = Tournament(_plan(tmp_path, GAMES), _Shown(log))
    tournament.resume()
    tournament.journal.close()
    counted = _Counted()
    tournament.journal = counted  # type: ignore[assignment]

    class Flood:
        concurrency = GAMES
        stats = SchedulerStats()

        async def run(self, next_job: NextJob, on_report: OnReport) -> None:
            for _ in range(GAMES):  # every report at once: no checkpoint between them
                job = next_job()
                assert job is not None
                await on_report(_draw(job))
            while sum(1 for line in log if line.startswith("shown")) < GAMES:
                log.append("tick")  # another table's turn: it comes between the steps
                await trio.sleep(0)

    with trio.fail_after(60):
        await tournament.run(Flood(), trio.CancelScope())
    assert counted.batches == [COMMIT_GAMES, COMMIT_GAMES, 500]
    runs = [len(list(group)) for shown, group in itertools.groupby(log, lambda s: s != "tick")
            if shown]
    # Between two turns of the other task, the commit ran one step or (trio orders each
    # batch of runnable tasks freely) two: never a batch's whole display at once.
    assert sum(runs) == GAMES and max(runs) <= 2 * SHOW_GAMES
    assert len(runs) >= GAMES // (2 * SHOW_GAMES)
