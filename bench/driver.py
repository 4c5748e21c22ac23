#!/usr/bin/env python3
"""Benchmark of the tournament driver alone: a synthetic backend, no engines.

    python bench/driver.py [--games N] [--slots 1000] [--no-sprt] [--dir PATH]

A ``Scheduler`` that keeps ``--slots`` games "in flight" and finishes one the
moment it is handed out (a synthetic ``MatchReport`` with ~2 KB of BPGN,
results chosen so that the SPRT stays undecided) drives ``Tournament.run``
through ``--games`` games of two participants, with the SPRT on (as a long
engine test runs) unless ``--no-sprt``. The journal is written to a real
folder (``--dir``, by default a fresh one under the current directory, so
that fsync costs what it costs on this disk; removed afterwards). Printed:
games per second over the whole run, the driver's wall and CPU time per game
in windows of 1,000 games (from game 1,000 on, and the last but one 1,000), the CPU
ratio of the last window to the first, the time the summary's figures take,
then a resume of the journal just written: its time and the peak
growth of this process's resident memory while it ran (the schedule, built
before, not counted; its own size is printed too). Other processes move
every figure; the load average is printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.display import Remaining
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.report_file import ReportFile
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule, side_of
from bughouse_arbiter.tournament.scheduler import NextJob, OnReport, SchedulerStats
from bughouse_arbiter.tournament.stats import Sprt

#: Pair points (out of 2) of the first participant, cycled: a symmetric
#: pentanomial, so an SPRT between -3 and +3 Elo stays near an LLR of 0.
PAIR_CYCLE = ((0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 0.5), (1.0, 0.5), (1.0, 1.0))
MOVES = " ".join(f"{n}A. e4 {n}a. e5 {n}B. d4 {n}b. d5" for n in range(1, 45))


def synthetic_report(job: MatchJob) -> MatchReport:
    points = PAIR_CYCLE[job.pair % len(PAIR_CYCLE)][job.game % 2]
    first = side_of(job.game)
    if points == 0.5:
        result = Result.DRAW
    else:
        winner = first if points == 1.0 else first.other
        result = Result.TEAM_ONE if winner.value == 1 else Result.TEAM_TWO
    bpgn = f'[Event "bench"]\n[Round "{job.number}"]\n[Result "{result.value}"]\n\n{MOVES}\n'
    return MatchReport(
        job_id=job.job_id,
        result=result,
        termination="max_plies",
        reason="draw: the ply limit",
        bpgn=bpgn,
        plies=176,
        seconds=1.0,
        harness_delay={seat: 0.000123 * (1 + job.number % 7) for seat in Seat},
        harness_delay_max=0.0004,
        node="bench:1",
    )


class InstantScheduler:
    """Keeps ``concurrency`` jobs in flight; each finishes at once, in hand-out order."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.stats = SchedulerStats()

    async def run(self, next_job: NextJob, on_report: OnReport) -> None:
        flight: list[MatchJob] = []
        at = 0
        while True:
            while len(flight) - at < self.concurrency and (job := next_job()) is not None:
                flight.append(job)
            if at == len(flight):
                return
            job = flight[at]
            at += 1
            if at > 4096:  # forget the done head now and then
                del flight[:at]
                at = 0
            await on_report(synthetic_report(job))
            # A real backend waits on an engine's pipe between two games' reports: the
            # loop turns, and its lag is the driver's own, not this loop's.
            await trio.lowlevel.checkpoint()
            await trio.lowlevel.checkpoint()


class Clocked:
    """A ``Progress`` that notes when each game is reported."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []
        #: ``--report``: the run folder's page, fed and rewritten as ``bughouse
        #: tournament`` does it (``ReportFile.update`` with the summary).
        self.page: ReportFile | None = None
        self.summary: Callable[[], Mapping[str, Any]] | None = None
        #: The driver's loop-lag monitor's stall lines.
        self.stalls: list[str] = []

    def begin(self, total: int, done: int) -> None: ...

    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: Remaining | None = None
    ) -> None:
        if self.page is not None and self.summary is not None:
            self.page.game(job, report)
            self.page.update(self.summary, "running")
        self.times.append(time.perf_counter())
        self.cpu.append(time.process_time())

    def message(self, text: str) -> None:
        if text.startswith("loop stall"):
            self.stalls.append(f"{text} (at game {len(self.times)})")

    def end(self) -> None: ...


def make_plan(games: int, out: Path, sprt: bool) -> TournamentPlan:
    spec = builtin_engine("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in ("a", "b")]
    rules = HouseRules(time=30.0, max_plies=200)
    jobs = schedule(teams, format="gauntlet", games=games, rules=rules, openings=[], seed=1)
    return TournamentPlan(
        participants=tuple(teams),
        format="gauntlet",
        games=games,
        rules=rules,
        jobs=tuple(jobs),
        out=out,
        sprt=Sprt(elo0=-3.0, elo1=3.0) if sprt else None,
    )


def rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def reset_peak_rss() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def resume_of(out: Path, games: int, sprt: bool) -> None:
    """Resumes the tournament in ``out`` (as ``--resume`` would) and prints what it took."""
    plan = make_plan(games, out, sprt)
    journal_mib = (out / "results.jsonl").stat().st_size / 2**20
    tournament = Tournament(plan, Clocked())
    reset_peak_rss()
    base = rss_kib("VmRSS")
    cpu = time.process_time()
    started = time.perf_counter()
    kept = tournament.resume()
    took = time.perf_counter() - started
    cpu = time.process_time() - cpu
    peak = (rss_kib("VmHWM") - base) / 1024
    tournament.journal.close()
    print(
        f"resume: {kept} games from a {journal_mib:.0f} MiB journal in {took:.2f} s wall "
        f"({cpu:.2f} s CPU), resident memory up {peak:.0f} MiB at most "
        f"(process: {rss_kib('VmHWM') / 1024:.0f} MiB at most, schedule included)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--slots", type=int, default=1000)
    parser.add_argument("--no-sprt", action="store_true")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--report", action="store_true", help="feed and rewrite report.html as the command does"
    )
    parser.add_argument("--resume-of", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resume_of is not None:
        resume_of(args.resume_of, args.games, not args.no_sprt)
        return
    out = Path(tempfile.mkdtemp(prefix="bench-driver-", dir=args.dir or Path.cwd()))
    try:
        before = rss_kib("VmRSS")
        started = time.perf_counter()
        plan = make_plan(args.games, out, not args.no_sprt)
        built = time.perf_counter() - started
        schedule_mib = (rss_kib("VmRSS") - before) / 1024
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(
            f"schedule: {args.games} games built in {built:.2f} s, "
            f"{schedule_mib:.0f} MiB resident"
        )
        progress = Clocked()
        tournament = Tournament(plan, progress)
        if args.report:
            progress.page = ReportFile(out, plan.sprt)
            progress.summary = tournament.summary
        tournament.resume()
        cpu = time.process_time()
        started = time.perf_counter()
        trio.run(tournament.run, InstantScheduler(args.slots), trio.CancelScope())
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        done = len(progress.times)
        sprt = "with the SPRT" if plan.sprt is not None else "no SPRT"
        print(
            f"run: {done} games, {args.slots} slots open, {sprt}: {wall:.2f} s wall, "
            f"{cpu:.2f} s CPU, {done / wall:.0f} games/s"
        )
        times, cpu_times = progress.times, progress.cpu
        windows = [start for start in (1000, 10_000, 50_000) if start + 1000 <= done]
        # The last games are shown together, as the run's final write returns:
        # the last full window is the one before them.
        if done >= 3000 and done - 2000 not in windows:
            windows.append(done - 2000)
        costs = []
        for start in windows:
            per_game = (times[start + 999] - times[start - 1]) / 1000
            cpu_game = (cpu_times[start + 999] - cpu_times[start - 1]) / 1000
            costs.append(cpu_game)
            print(
                f"  games {start + 1}-{start + 1000}: {per_game * 1e6:.0f} µs a game wall, "
                f"{cpu_game * 1e6:.0f} µs CPU"
            )
        if len(costs) >= 2:
            print(f"  CPU a game, last window / first: {costs[-1] / costs[0]:.2f}")
        lag = tournament.lag.figures()
        page = f", report.html written {progress.page.writes} times" if progress.page else ""
        print(
            f"  the driver's loop: lag max {lag.max_ms:.1f} ms, p99 {lag.p99_ms:.1f} ms, "
            f"{lag.stalls} stalls; slowest step {lag.slowest_step_ms:.1f} ms in "
            f"{lag.slowest_task or '?'}{page}"
        )
        for line in progress.stalls[:5]:
            print(f"    {line}")
        if tournament.decision is not None:
            print(f"  (the SPRT decided {tournament.decision}: the run stopped early)")
        started = time.perf_counter()
        tournament.summary()
        print(f"summary.json's figures: {time.perf_counter() - started:.2f} s")
        del tournament, progress
        # The resume runs in a fresh process, so that its memory is its own.
        command = [sys.executable, __file__, "--games", str(args.games), "--resume-of", str(out)]
        if args.no_sprt:
            command.append("--no-sprt")
        subprocess.run(command, check=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
