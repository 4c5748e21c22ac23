#!/usr/bin/env python3
"""Benchmark of the tournament driver alone: a synthetic backend, no engines.

    python bench/driver.py [--games N] [--slots 1000] [--no-sprt] [--dir PATH]
                           [--progress both|bare|shown]

A ``Scheduler`` that finishes each game the moment it is handed out (a
synthetic ``MatchReport`` with ~2 KB of BPGN, results chosen so that the
SPRT stays undecided), with at most ``--slots`` games handed out and not yet
journaled and shown (as tables wait for their games), drives ``Tournament.run``
through ``--games`` games of two participants, with the SPRT on (as a long
engine test runs) unless ``--no-sprt``. The journal is written to a real
folder (``--dir``, by default a fresh one under the current directory, so
that fsync costs what it costs on this disk; removed afterwards).

Each run is made twice (``--progress both``, the default): ``bare``, the
driver alone (a progress that only counts), and ``shown``, with what the
command adds to every game: the progress lines (``LineProgress``, to
/dev/null) and ``report.html`` kept up to date (``ReportFile``, in the run's
folder). Printed for each: games per second over the whole run, the
driver's wall and CPU time per game in windows of at least 1,000 games and
ten times ``--slots`` (from game 1,000 on, 10,000, 50,000 and the last
ones), the CPU ratio of the last
window to the first, the time the summary's figures take; then a resume of
the journal the bare run wrote: its time and the peak growth of this
process's resident memory while it ran (the schedule, built before, not
counted; its own size is printed too).

The games of one journal commit (one write and fsync for every report that
arrived during the one before) are shown together when it returns, so a
game's own moment says nothing: a commit can hold thousands of games. A
window therefore runs between two commits' starts, when every game before
was shown, and holds whole commits (``honest_windows``); it says how many
games and commits it spans. Other processes move every figure; the load
average is printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bughouse_arbiter.commands.tournament import LineProgress
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
#: Seconds between the synthetic backend's looks for freed slots.
FREED_POLL = 0.001
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
    """Finishes each game the moment it is handed out, with at most
    ``concurrency`` games handed out and not yet shown (``shown``): a game's
    slot frees once the driver has journaled and shown it, so no commit holds
    more than ``concurrency`` games and the games waiting to be written stay
    few at every moment (with no bound, one commit's write lets every other
    game arrive, and the next commit holds them all)."""

    def __init__(self, concurrency: int, shown: Callable[[], int]) -> None:
        self.concurrency = concurrency
        self.shown = shown
        self.stats = SchedulerStats()

    async def run(self, next_job: NextJob, on_report: OnReport) -> None:
        handed = 0
        while True:
            while handed - self.shown() < self.concurrency:
                job = next_job()
                if job is None:
                    return
                handed += 1
                await on_report(synthetic_report(job))
                await trio.lowlevel.checkpoint()
            await trio.sleep(FREED_POLL)  # the commit in flight frees the slots


class Counted:
    """A ``Progress`` that only counts the games shown (the driver alone)."""

    def __init__(self) -> None:
        self.done = 0

    def begin(self, total: int, done: int) -> None: ...

    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: Remaining | None = None
    ) -> None:
        self.done += 1

    def message(self, text: str) -> None: ...

    def end(self) -> None: ...


@attrs.frozen
class Mark:
    """A moment at which ``games`` games had been shown, and none was waiting to be."""

    games: int
    wall: float
    cpu: float


@attrs.frozen
class Window:
    """The games shown between two marks."""

    first: Mark
    last: Mark
    commits: int

    @property
    def games(self) -> int:
        return self.last.games - self.first.games

    def wall_per_game(self) -> float:
        return (self.last.wall - self.first.wall) / self.games

    def cpu_per_game(self) -> float:
        return (self.last.cpu - self.first.cpu) / self.games


def honest_windows(marks: Sequence[Mark], starts: Sequence[int], size: int) -> list[Window]:
    """For each of ``starts``, the window from the first mark at or after that
    many games to the first mark at least ``size`` games later (none if the
    marks end before). Marks are taken between commits, so a window holds
    whole commits: its time is the time its games took, however they were
    grouped."""
    windows = []
    for start in starts:
        begin = next((i for i, m in enumerate(marks) if m.games >= start), None)
        if begin is None:
            continue
        later = range(begin + 1, len(marks))
        end = next((j for j in later if marks[j].games - marks[begin].games >= size), None)
        if end is not None:
            windows.append(Window(marks[begin], marks[end], end - begin))
    return windows


def window_size(slots: int) -> int:
    """Games a window holds at least: 1,000, and ten times the games that may
    wait for a commit at its ends, so that those move its figure by 10% at most."""
    return max(1000, 10 * slots)


def window_starts(done: int, size: int, slots: int) -> list[int]:
    """Where the windows of a run of ``done`` games begin: games 1,000, 10,000
    and 50,000 (each if a whole window fits after it), and the last ``size``
    games (to the run's end). A window begins at the first commit from its
    start on, up to ``slots`` games later (no commit holds more)."""
    starts = [start for start in (1000, 10_000, 50_000) if start + slots + size <= done]
    last = done - slots - size
    if last > 0 and last not in starts:
        starts.append(last)
    return starts


def mark_commits(tournament: Tournament, shown: Callable[[], int], marks: list[Mark]) -> None:
    """Notes a ``Mark`` as each journal commit begins (the previous one's games
    all shown: commits run one after the other, each shown before the next)."""
    append_all = tournament.journal.append_all

    def marked(games: Sequence[tuple[MatchJob, MatchReport]]) -> None:
        marks.append(Mark(shown(), time.perf_counter(), time.process_time()))
        append_all(games)

    tournament.journal.append_all = marked  # type: ignore[method-assign]


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
    tournament = Tournament(plan, Counted())
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


def play(args: argparse.Namespace, out: Path, shown: bool) -> None:
    """One run into ``out``: the driver alone, or with the progress lines and the page."""
    before = rss_kib("VmRSS")
    started = time.perf_counter()
    plan = make_plan(args.games, out, not args.no_sprt)
    built = time.perf_counter() - started
    schedule_mib = (rss_kib("VmRSS") - before) / 1024
    what = "with the progress lines and report.html" if shown else "the driver alone"
    print(f"-- {what}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"schedule: {args.games} games built in {built:.2f} s, {schedule_mib:.0f} MiB resident")
    progress: Counted | LineProgress
    if shown:
        sink = open(os.devnull, "w")  # noqa: SIM115 - closed below
        progress = LineProgress(sink)
    else:
        sink, progress = io.StringIO(), Counted()
    tournament = Tournament(plan, progress)
    tournament.resume()
    page = None
    if isinstance(progress, LineProgress):
        page = ReportFile(out, plan.sprt)
        progress.attach(page, tournament.summary, plan.sprt)
    marks: list[Mark] = []
    mark_commits(tournament, lambda: progress.done, marks)
    cpu = time.process_time()
    started = time.perf_counter()
    marks.append(Mark(0, started, cpu))
    backend = InstantScheduler(args.slots, lambda: progress.done)
    trio.run(tournament.run, backend, trio.CancelScope())
    marks.append(Mark(progress.done, time.perf_counter(), time.process_time()))
    wall, cpu = marks[-1].wall - started, marks[-1].cpu - cpu
    sink.close()
    done = progress.done
    sprt = "with the SPRT" if plan.sprt is not None else "no SPRT"
    print(
        f"run: {done} games, {args.slots} slots open, {sprt}: {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU, {done / wall:.0f} games/s; {len(marks) - 2} journal commits"
        + (f", report.html written {page.writes} times" if page is not None else "")
    )
    size = window_size(args.slots)
    windows = honest_windows(marks, window_starts(done, size, args.slots), size)
    for w in windows:
        print(
            f"  games {w.first.games + 1}-{w.last.games} ({w.games} in "
            f"{w.commits} commit{'s' if w.commits != 1 else ''}): "
            f"{w.wall_per_game() * 1e6:.0f} µs a game wall, {w.cpu_per_game() * 1e6:.0f} µs CPU"
        )
    if not windows:
        largest = max(b.games - a.games for a, b in itertools.pairwise(marks))
        print(
            f"  no window of {size} games from commit to commit (the largest of the "
            f"{len(marks) - 2} commits held {largest} games): see the whole run's figure"
        )
    if len(windows) >= 2:
        ratio = windows[-1].cpu_per_game() / windows[0].cpu_per_game()
        print(f"  CPU a game, last window / first: {ratio:.2f}")
    if tournament.decision is not None:
        print(f"  (the SPRT decided {tournament.decision}: the run stopped early)")
    started = time.perf_counter()
    tournament.summary()
    print(f"summary.json's figures: {time.perf_counter() - started:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--slots", type=int, default=1000)
    parser.add_argument("--no-sprt", action="store_true")
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--progress", choices=("both", "bare", "shown"), default="both")
    parser.add_argument("--resume-of", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.resume_of is not None:
        resume_of(args.resume_of, args.games, not args.no_sprt)
        return
    folders = []
    try:
        for shown in {"both": (False, True), "bare": (False,), "shown": (True,)}[args.progress]:
            out = Path(tempfile.mkdtemp(prefix="bench-driver-", dir=args.dir or Path.cwd()))
            folders.append(out)
            play(args, out, shown)
        # The resume runs in a fresh process, so that its memory is its own.
        command = [
            sys.executable, __file__, "--games", str(args.games), "--resume-of", str(folders[0])
        ]  # fmt: skip
        if args.no_sprt:
            command.append("--no-sprt")
        subprocess.run(command, check=True)
    finally:
        for out in folders:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
