"""Where games run: the one interface between the tournament and its backends.

The tournament logic (schedule, journal, statistics, SPRT, progress, output)
talks to a ``Scheduler`` and never knows which backend it is.
``LocalScheduler`` plays the games in this process with trio (``--concurrency
K`` tables at once, engines kept alive between games); ``RayScheduler``
(``ray_backend.py``, when present) plays them on Ray actors, one per game
slot, which keep their engines the same way.

The contract
------------
``await scheduler.run(next_job, on_report)``:

- ``next_job() -> MatchJob | None`` is a plain function the scheduler calls
  (in its trio task, never concurrently with ``on_report``) whenever it can
  start a game. It returns the next job, or None when there is nothing to
  start *now*. ``run`` calls it again after every report, so a job handed
  back for a retry or freed by a report is picked up; when it returns None
  and no game is in flight, ``run`` returns.
- ``on_report(report) -> Awaitable[None]`` is awaited once per job handed out
  that finished, one call at a time, in completion order, in the caller's
  trio loop. The caller counts the game there (and hands its journal write
  to a task of its own, so it returns at once); the scheduler does not take
  another job until it returns (so a job is never started after the
  tournament decided to stop).
- At most ``scheduler.concurrency`` games are in flight.
- A game is a game whatever happened at the table: an engine that crashed,
  hung, failed to start or moved illegally makes a forfeit, reported like
  any result (``MatchReport.incidents`` says who and why). The backend
  restarts that engine for the next job; it never retries a game by itself.
- What a game's engines left behind (children, daemons: ``leftovers.py``)
  is killed and reaped before its report is handed on, wherever it ran.
- A failure of the harness (an exception while setting up or running a job,
  a lost worker or node) is reported as ``MatchReport(error=...,
  result=Result.UNFINISHED)`` (``jobs.failed_report``): "not played". The tournament decides to
  re-queue the job (``next_job`` hands it out again) or to give up.
- Stopping: the caller cancels the scope ``run`` runs in (Ctrl+C, SIGTERM, a
  decided SPRT). Games in flight are abandoned and not reported; every
  engine the backend started is closed (or its worker killed) before the
  cancellation leaves ``run``. Nothing reported before is affected, so the
  journal loses at most the games in flight.
- Engine reuse is the backend's business: a job's ``Entrant.key`` tells which
  processes are interchangeable. ``run`` closes every engine before it
  returns.
- ``stats`` (a ``SchedulerStats``) counts the engine processes started
  (first starts and restarts) and the games that started none, for the
  summary and the benchmark; it is complete once ``run`` has returned.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Protocol

import attrs
import trio

from ..table.keeper import EngineKeeper
from .jobs import MatchJob, MatchReport, failed_report
from .leftovers import clear_leftovers
from .play import play_on_table

__all__ = [
    "LocalScheduler",
    "NextJob",
    "OnReport",
    "Scheduler",
    "SchedulerStats",
    "TableSettings",
]

NextJob = Callable[[], MatchJob | None]
OnReport = Callable[[MatchReport], Awaitable[None]]


@attrs.define
class SchedulerStats:
    """What a backend counts about engine processes."""

    #: Engine processes started (the first start of each, and every restart).
    engines_started: int = 0
    #: Games that reused every engine from an earlier game.
    games_reusing: int = 0


class Scheduler(Protocol):
    """Plays ``MatchJob`` values somewhere; see the module docstring for the contract."""

    concurrency: int
    stats: SchedulerStats

    async def run(self, next_job: NextJob, on_report: OnReport) -> None: ...


def _fit(job: MatchJob, keeper: EngineKeeper) -> int:
    return keeper.matching(job.entrants)


@attrs.frozen(kw_only=True)
class TableSettings:
    """How the local tables play: the pause between a table's games
    (``--wait``), the engines' start and ping timeouts (``--start-timeout``,
    ``--ping-timeout``) and each table's cores (``--use-affinity``)."""

    #: Seconds a table rests after a game before it takes the next one.
    wait: float = 0.0
    #: Seconds an engine gets to start, its handshake included (None: the
    #: keeper's ``START_TIMEOUT``, of which the handshake gets ``HANDSHAKE_TIMEOUT``).
    start_timeout: float | None = None
    #: Seconds an engine gets to answer the ping after a game (None: ``PING_TIMEOUT``).
    ping_timeout: float | None = None
    #: Per table, the cores its engines are pinned to (empty: not pinned).
    cpus: tuple[frozenset[int], ...] = ()

    def keeper(self, table: int) -> EngineKeeper:
        """Table ``table``'s keeper."""
        cpus = self.cpus[table] if self.cpus else None
        if self.start_timeout is None:
            return EngineKeeper(ping_timeout=self.ping_timeout, cpus=cpus)
        return EngineKeeper(
            start_timeout=self.start_timeout,
            handshake_timeout=self.start_timeout,
            ping_timeout=self.ping_timeout,
            cpus=cpus,
        )


#: How a table plays one job (``play_on_table``; a test may play them otherwise).
PlayJob = Callable[[MatchJob, EngineKeeper], Awaitable[MatchReport]]


class LocalScheduler:
    """Plays jobs in this trio loop, ``concurrency`` tables at once.

    Each table is an ``EngineKeeper``: its engines stay alive from one game
    to the next (new game after ``gameover``), and one that crashed or hung
    is restarted for the next game. After each game what its engines left
    behind is killed and reaped (``leftovers.py``; this process must be a
    subreaper, ``reaper.become_subreaper``, as the command makes it).
    """

    def __init__(
        self,
        concurrency: int = 1,
        *,
        debug: Path | None = None,
        settings: TableSettings | None = None,
        play: PlayJob | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        #: ``--debug DIR``: each game's protocol logs go there (``play_on_table``).
        self.debug = debug
        self.settings = settings or TableSettings()
        self._play_job = play or partial(_play_with_logs, debug=debug)
        self.stats = SchedulerStats()

    async def run(self, next_job: NextJob, on_report: OnReport) -> None:
        # A report, or None: a table is free again (after its --wait).
        send, receive = trio.open_memory_channel[MatchReport | None](math.inf)
        free: list[EngineKeeper] = []
        busy = 0  # tables playing or resting
        async with trio.open_nursery() as nursery:
            keepers = [self.settings.keeper(table) for table in range(self.concurrency)]
            for keeper in keepers:
                await nursery.start(keeper.serve)
                free.append(keeper)
            try:
                while True:
                    while free and (job := next_job()) is not None:
                        # The table whose idle engines fit the job best plays it.
                        keeper = max(free, key=partial(_fit, job))
                        free.remove(keeper)
                        busy += 1
                        nursery.start_soon(self._play, job, keeper, send, free)
                    if busy == 0:
                        break
                    report = await receive.receive()
                    if report is None:
                        busy -= 1
                        continue
                    await on_report(report)
                    # A stop decided in on_report takes effect before the next job.
                    await trio.lowlevel.checkpoint_if_cancelled()
            finally:
                with trio.CancelScope(shield=True):
                    for keeper in keepers:
                        self.stats.engines_started += keeper.engines_started
                        self.stats.games_reusing += keeper.games_reusing
                nursery.cancel_scope.cancel()

    async def _play(
        self,
        job: MatchJob,
        keeper: EngineKeeper,
        send: trio.MemorySendChannel[MatchReport | None],
        free: list[EngineKeeper],
    ) -> None:
        try:
            report = await self._play_job(job, keeper)
        except Exception as exc:  # the harness failed: report, let the tournament re-queue
            report = failed_report(job, exc)
            await keeper.close_all()
        # What this game's engines left behind goes before its report.
        await clear_leftovers()
        send.send_nowait(report)
        if self.settings.wait > 0:  # --wait: the table rests before its next game
            await trio.sleep(self.settings.wait)
        free.append(keeper)
        send.send_nowait(None)


async def _play_with_logs(
    job: MatchJob, keeper: EngineKeeper, *, debug: Path | None
) -> MatchReport:
    return await play_on_table(job, keeper, debug=debug)
