#!/usr/bin/env python3
"""Benchmark of ``bughouse tournament``'s local backend with instant engines.

    python bench/tournament.py [--games N] [--engine random] [--max-plies 200]

Plays ``--games`` games between two teams of an instant engine (the random
mover by default; games capped at ``--max-plies`` plies so their lengths stay
comparable) through ``LocalScheduler`` at concurrency 1 and 2, engines kept
alive between games, and once more at concurrency 1 with four fresh engine
processes per game (``play_job_async`` without a keeper, as ``match --games``
did before). For each run it prints games/s, plies/s, the harness's own CPU
time per game (this process: arbiter, scheduler, BPGN, statistics; the
engines are separate processes), the engine processes started, and the
harness's delay on the engines' clocks (``MatchReport.harness_delay``). The last
lines give what keeping engines alive saves per game: wall time and harness
CPU, plus the engines' own start-up CPU (from the children's rusage). Then
what the liveness ping after each game costs (all four engines pinged at
once, as the keeper does to tell a hang from a slow engine). The machine's
load average is printed too, since other processes move every figure.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.play import play_job_async
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import LocalScheduler


def make_jobs(engine: str, games: int, max_plies: int) -> list[MatchJob]:
    spec = engine_spec(engine)
    teams = [
        Participant(name=name, members=(spec, spec), member_names=(name, name))
        for name in ("one", "two")
    ]
    rules = HouseRules(time=600.0, max_plies=max_plies)
    return schedule(teams, format="gauntlet", games=games, rules=rules, openings=[], seed=1)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def harness_cpu() -> float:
    return time.process_time()


async def run_kept(jobs: list[MatchJob], concurrency: int) -> tuple[list[MatchReport], int]:
    todo = list(jobs)
    reports: list[MatchReport] = []

    async def on_report(report: MatchReport) -> None:
        reports.append(report)

    scheduler = LocalScheduler(concurrency)
    await scheduler.run(lambda: todo.pop(0) if todo else None, on_report)
    return reports, scheduler.stats.engines_started


async def run_fresh(jobs: list[MatchJob]) -> tuple[list[MatchReport], int]:
    reports = [await play_job_async(job) for job in jobs]
    return reports, sum(r.started_engines for r in reports)


def measure(label: str, run: object, *args: object) -> dict[str, float]:
    wall0, cpu0, kids0 = time.monotonic(), harness_cpu(), children_cpu()
    reports, started = trio.run(run, *args)  # type: ignore[arg-type]
    wall, cpu = time.monotonic() - wall0, harness_cpu() - cpu0
    kids = children_cpu() - kids0
    games = len(reports)
    plies = sum(r.plies for r in reports)
    played = sum(r.played for r in reports)
    delays = [d for r in reports for d in r.harness_delay.values()]
    mean_delay = 1000 * sum(delays) / max(len(delays), 1)
    max_delay = 1000 * max(delays, default=0.0)
    print(
        f"{label:<36} {games / wall:6.2f} games/s {plies / wall:8.0f} plies/s  "
        f"harness CPU {1000 * cpu / games:7.1f} ms/game ({1e6 * cpu / max(plies, 1):5.0f} us/ply)  "
        f"engines started {started:3d}  ({played}/{games} finished, {plies / games:.0f} plies/game)"
        f"  harness delay on a seat's clock per game: mean "
        f"{mean_delay:.2f} ms, max {max_delay:.2f} ms"
    )
    return {"wall": wall / games, "cpu": cpu / games, "kids": kids, "started": started}


async def ping_cost(job: MatchJob, rounds: int) -> float:
    """Seconds of wall time per ping of a table's four live engines (all at once)."""
    from bughouse_arbiter.core.model import Outcome, Termination
    from bughouse_arbiter.table.keeper import EngineKeeper

    async with EngineKeeper.open() as keeper:
        await play_job_async(job, keeper)  # four engines, kept alive after it
        players = [player for _, player in keeper._idle]
        outcome = Outcome(termination=Termination.AGREEMENT, winner=None, reason="agreed")
        start = time.monotonic()
        for _ in range(rounds):
            hung = await keeper.ping_all(players, outcome)
            assert not hung
        return (time.monotonic() - start) / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--engine", default="random")
    parser.add_argument("--max-plies", type=int, default=200)
    args = parser.parse_args()
    jobs = make_jobs(args.engine, args.games, args.max_plies)
    print(
        f"{args.games} games of {args.engine}+{args.engine} against {args.engine}+"
        f"{args.engine}, at most {args.max_plies} plies; load average {os.getloadavg()[0]:.2f}"
    )
    measure("concurrency 1, engines kept", run_kept, jobs, 1)
    measure("concurrency 2, engines kept", run_kept, jobs, 2)
    # Reference: the same games at concurrency 1 with fresh engines, for the restart cost.
    kept = measure("concurrency 1, engines kept (again)", run_kept, jobs, 1)
    fresh = measure("concurrency 1, 4 fresh engines/game", run_fresh, jobs)
    extra = fresh["started"] - kept["started"]
    start_cpu = (fresh["kids"] - kept["kids"]) / extra if extra else 0.0
    print(
        f"keeping engines alive saves {1000 * (fresh['wall'] - kept['wall']):.0f} ms of wall "
        f"time and {1000 * (fresh['cpu'] - kept['cpu']):.1f} ms of harness CPU per game; "
        f"{extra} engine starts avoided, each costing about {1000 * start_cpu:.0f} ms of "
        f"engine CPU; load average now {os.getloadavg()[0]:.2f}"
    )
    ping = trio.run(ping_cost, jobs[0], 200)
    print(
        f"the ping of a table's four engines after each game (hang or only slow?) costs "
        f"{1000 * ping:.2f} ms of wall time per game"
    )


if __name__ == "__main__":
    main()
