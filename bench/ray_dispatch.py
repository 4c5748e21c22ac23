#!/usr/bin/env python3
"""What a game costs the Ray backend beyond the game itself, on a local cluster.

    python bench/ray_dispatch.py [--games N] [--nodes 2] [--cpus 2] [--max-plies 60]
    python bench/ray_dispatch.py --bookkeeping [--passes 20]

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

With ``--bookkeeping`` it times instead what one pass of ``RayScheduler.run``'s
loop costs the driver, with 10, 100 and 1,000 tables whose games all end in
that pass, on a fake ``ray`` whose calls answer at once (no cluster, no Ray
needed): the driver's own work per pass, per table, the refs handed to
``ray.wait`` and how often ``ray.nodes()`` was asked.
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament import journal
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.ray_backend import Dispatch, RayScheduler
from bughouse_arbiter.tournament.ray_table import NodeInfo, Played
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
    parser.add_argument(
        "--bookkeeping", action="store_true",
        help="only time one loop pass's bookkeeping at 10, 100 and 1,000 tables (fake ray)",
    )  # fmt: skip
    parser.add_argument("--passes", type=int, default=20)
    args = parser.parse_args()
    if args.bookkeeping:
        print(f"load average {os.getloadavg()[0]:.2f}")
        for tables in (10, 100, 1000):
            bookkeeping(tables, args.passes)
        return
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


# -- one loop pass's bookkeeping, with a fake ray (no cluster) ------------------------


class _Ref:
    """A fake ObjectRef: what the call answers, and whether it is done."""

    def __init__(self, value: object, done: bool = True) -> None:
        self.value = value
        self.done = done


class _Method:
    def __init__(self, answer: Callable[..., object], done: bool = True) -> None:
        self.answer = answer
        self.is_done = done

    def remote(self, *args: object) -> _Ref:
        return _Ref(self.answer(*args), self.is_done)


class _Handle:
    def __init__(self, node: NodeInfo) -> None:
        self.node = _Method(lambda: node)
        self.watch = _Method(lambda: None, done=False)  # in flight while the table lives
        self.stop = _Method(lambda: True)
        self.play = _Method(
            lambda job, version: Played(
                report=MatchReport(job_id=job.job_id, result=Result.DRAW, plies=1),
                node=node, started=0.0, finished=0.0,
                idle=tuple(entrant.key for entrant in job.entrants),
            )
        )  # fmt: skip


class _Exceptions:
    class RayError(Exception):
        pass

    class RayActorError(RayError):
        pass

    class WorkerCrashedError(RayError):
        pass

    class NodeDiedError(RayError):
        pass

    class ObjectLostError(RayError):
        pass

    class RayTaskError(RayError):
        pass


class FakeRay:
    """Just enough of ``ray`` for ``RayScheduler.run``: every call but ``watch``
    answers at once; ``nodes``, ``wait`` and ``get`` count their work."""

    exceptions = _Exceptions

    def __init__(self, nodes: int, cpus: float) -> None:
        self._nodes = [
            {"Alive": True, "NodeID": f"{n:056x}", "Resources": {"CPU": cpus},
             "NodeManagerAddress": "127.0.0.1", "NodeManagerPort": 1}
            for n in range(nodes)
        ]  # fmt: skip
        self.started = 0
        self.node_calls = 0
        self.waited = 0  # refs looked at by wait, in all

    def remote(self, **options: object) -> Callable[[object], object]:
        return lambda cls: self

    def options(self, **options: object) -> FakeRay:
        return self

    def nodes(self) -> list[dict[str, object]]:
        self.node_calls += 1
        return self._nodes

    def get_runtime_context(self) -> object:
        return type("Context", (), {"gcs_address": None})()

    def wait(
        self, refs: list[_Ref], *, num_returns: int, timeout: float | None, fetch_local: bool
    ) -> tuple[list[_Ref], list[_Ref]]:
        self.waited += len(refs)
        ready = [r for r in refs if r.done]
        return ready, [r for r in refs if not r.done]

    def get(self, ref: _Ref) -> object:
        return ref.value

    def kill(self, handle: object, *, no_restart: bool) -> None:
        pass


class _FakeTableClass:
    def __init__(self, ray: FakeRay) -> None:
        self.ray = ray

    def options(self, **options: object) -> _FakeTableClass:
        return self

    def remote(self) -> _Handle:
        node = self.ray._nodes[self.ray.started % len(self.ray._nodes)]
        self.ray.started += 1
        return _Handle(NodeInfo(node_id=str(node["NodeID"]), ip="127.0.0.1", host="fake"))


def bookkeeping(tables: int, passes: int) -> None:
    """Prints what one loop pass costs the driver with ``tables`` tables whose
    games all end at once (the cluster's own time left out)."""
    ray = FakeRay(nodes=max(1, tables // 10), cpus=20.0)  # ten tables a node
    scheduler = RayScheduler(ray, concurrency=tables, notice=lambda line: None)
    scheduler._table_class = _FakeTableClass(ray)
    jobs = make_jobs(tables * (passes + 2), max_plies=1)
    todo = deque(jobs)
    done = 0
    stamps: list[float] = []
    waited: list[int] = []

    async def on_report(report: MatchReport) -> None:
        nonlocal done
        done += 1
        if done % tables == 0:
            stamps.append(time.perf_counter())
            waited.append(ray.waited)

    trio.run(scheduler.run, lambda: todo.popleft() if todo else None, on_report)
    # After the first two passes (tables up, first games) every pass plays one
    # game on every table; the last is left out (no new jobs).
    per_pass = [b - a for a, b in itertools.pairwise(stamps[1:])]
    refs = [b - a for a, b in itertools.pairwise(waited[1:])]
    print(
        f"{tables:>5} tables: one pass {1000 * statistics.median(per_pass):8.2f} ms median "
        f"({1e6 * statistics.median(per_pass) / tables:6.1f} us a table), "
        f"refs waited on {statistics.median(refs):>6.0f}, ray.nodes() {ray.node_calls} times "
        f"in {len(stamps)} passes"
    )


if __name__ == "__main__":
    main()
