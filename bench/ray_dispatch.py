#!/usr/bin/env python3
"""What a game costs the Ray backend beyond the game itself, on a local cluster.

    python bench/ray_dispatch.py [--games N] [--nodes 2] [--cpus 2] [--max-plies 60]

Starts a Ray cluster of ``--nodes`` nodes on this machine
(``ray.cluster_utils.Cluster``, ``--cpus`` CPUs each) and plays ``--games``
short games of random movers (capped at ``--max-plies`` plies) through
``RayScheduler`` into a real journal (``results.jsonl``, fsynced, as the
tournament writes it). For each game it takes four wall-clock stamps: job
handed to a table (driver), game begun and game done (the table, a Ray
actor), journal written (driver). It prints the two overheads per game,
median / 90th percentile / max:

- handed -> begun: from ``play.remote()`` to the table entering the call
  (the actor call, unpickling the job);
- done -> journal: from the table returning to the journal line being on
  disk (object transfer, the driver noticing, the report's fsync).

A table's first game also starts its four engines, and the table itself
was started before it (not counted here); later games reuse the engines:
the two are shown apart, with the engines started and the tables made. It
prints the cluster's start and stop times too, and the machine's load
average, since other processes move every figure. Nothing is asserted.
Needs ``pip install 'bughouse-arbiter[ray]'``.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament import journal
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.ray_backend import Dispatch, RayScheduler
from bughouse_arbiter.tournament.schedule import Participant, schedule


def make_jobs(games: int, max_plies: int) -> list[MatchJob]:
    spec = engine_spec("random")
    teams = [
        Participant(name=name, members=(spec, spec), member_names=(name, name))
        for name in ("one", "two")
    ]
    rules = HouseRules(time=600.0, max_plies=max_plies)
    return schedule(teams, format="gauntlet", games=games, rules=rules, openings=[], seed=1)


async def play(scheduler: RayScheduler, jobs: list[MatchJob], folder: Path) -> list[MatchReport]:
    todo = list(jobs)
    by_id = {job.job_id: job for job in jobs}
    reports: list[MatchReport] = []
    book = journal.Journal(folder)
    book.open([])

    async def on_report(report: MatchReport) -> None:
        if report.played:
            book.append(by_id[report.job_id], report)
        reports.append(report)

    try:
        await scheduler.run(lambda: todo.pop(0) if todo else None, on_report)
    finally:
        book.close()
    return reports


def figures(label: str, values: list[float]) -> str:
    if not values:
        return f"{label:<32} -"
    ms = sorted(1000 * v for v in values)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return (
        f"{label:<32} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms   "
        f"max {ms[-1]:7.1f} ms   ({len(ms)} games)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=60)
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    print(f"load average {os.getloadavg()[0]:.2f}")
    began = time.monotonic()
    store = 80 * 1024 * 1024
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": args.cpus, "object_store_memory": store,
                        "include_dashboard": False},
    )  # fmt: skip
    for _ in range(args.nodes - 1):
        cluster.add_node(num_cpus=args.cpus, object_store_memory=store)
    cluster.wait_for_nodes()
    started = time.monotonic() - began
    try:
        began = time.monotonic()
        scheduler = RayScheduler.connect(cluster.address, notice=lambda line: print(line))
        joined = time.monotonic() - began
        print(
            f"cluster of {args.nodes} nodes x {args.cpus} CPUs up in {started:.1f} s, "
            f"driver joined in {joined:.2f} s; {scheduler.concurrency} games at once"
        )
        jobs = make_jobs(args.games, args.max_plies)
        with tempfile.TemporaryDirectory() as folder:
            began = time.monotonic()
            reports = trio.run(play, scheduler, jobs, Path(folder))
            wall = time.monotonic() - began
        played = sum(r.played for r in reports)
        plies = sum(r.plies for r in reports)
        print(
            f"{played}/{len(jobs)} games played in {wall:.1f} s ({played / wall:.2f} games/s, "
            f"{plies / max(played, 1):.0f} plies/game, game itself "
            f"{statistics.median(r.seconds for r in reports):.2f} s median on the table)"
        )
        report_overheads(scheduler.dispatches)
        print(
            f"tables started {scheduler.tables_started}, engines started "
            f"{scheduler.stats.engines_started}, games reusing every engine "
            f"{scheduler.stats.games_reusing} of {played}"
        )
        began = time.monotonic()
        scheduler.shutdown()
    finally:
        cluster.shutdown()
    print(f"driver left and cluster stopped in {time.monotonic() - began:.1f} s")


def report_overheads(dispatches: list[Dispatch]) -> None:
    seen: set[str] = set()
    first, warm = [], []
    for d in sorted(dispatches, key=lambda d: d.started):
        (warm if d.node in seen else first).append(d)
        seen.add(d.node)
    out = io.StringIO()
    print(figures("handed -> begun (later games)", [d.to_start for d in warm]), file=out)
    print(figures("handed -> begun (table's first)", [d.to_start for d in first]), file=out)
    print(figures("done -> journal", [d.to_journal for d in dispatches]), file=out)
    print(
        figures("done -> driver has result", [d.received - d.finished for d in dispatches]),
        file=out,
    )
    print(out.getvalue(), end="")


if __name__ == "__main__":
    main()
