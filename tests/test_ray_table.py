"""``RayTable`` on its own, in this process (no cluster): how a stop ends its game.

The actor's methods are plain blocking calls, so a test calls them from threads
as Ray's threaded actor would. Only the node's name comes from Ray; it is
replaced here.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import attrs
import pytest

from bughouse_arbiter import __version__
from bughouse_arbiter.config.specs import EngineSpec
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament import ray_table
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.ray_table import ABANDONED, NodeInfo, Played, RayTable
from bughouse_arbiter.tournament.schedule import Participant, schedule

GATED = Path(__file__).resolve().parent / "gated_engine.py"


def _stop_loop_only(self: ray_table._TableLoop) -> None:
    """The stop as it lands when the table's loop ends before the game's scope
    is cancelled: the game is cancelled from outside, by the loop's end."""
    self.stopping = True
    assert self._loop is not None
    self._loop.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("reaches", ["game scope", "loop's end"])
def test_a_game_stopped_mid_play_is_reported_abandoned_however_the_stop_reaches_it(
    reaches: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    node = NodeInfo(node_id="f" * 16, ip="127.0.0.1", host="here")
    monkeypatch.setattr(ray_table, "_node_here", lambda: node)
    if reaches == "loop's end":
        monkeypatch.setattr(ray_table._TableLoop, "cancel_all", _stop_loop_only)
    # A game that holds forever: its engines wait for a gate file never made.
    spec = EngineSpec(name="held", command=(sys.executable, str(GATED), str(tmp_path / "shut")))
    teams = [
        Participant(name=name, members=(spec, spec), member_names=(name, name))
        for name in ("one", "two")
    ]
    rules = HouseRules(time=600.0, max_plies=16)
    (job,) = schedule(teams, format="gauntlet", games=1, rules=rules, openings=[], seed=1)[:1]

    table = RayTable()
    played: list[Played] = []
    player = threading.Thread(target=lambda: played.append(table.play(job, __version__)))
    player.start()
    deadline = time.monotonic() + 60
    while table._table.keeper.engines_started < 4:
        assert time.monotonic() < deadline, "the game's four engines did not start"
        time.sleep(0.02)

    assert table.stop() is True
    player.join(30)
    assert not player.is_alive()
    (report,) = (p.report for p in played)
    assert report.error == ABANDONED
    assert not report.played
    assert report.node.endswith(f" ray-node {node.node_id} {node.ip}")


def test_the_per_node_counts_take_games_failures_and_lost_games() -> None:
    from bughouse_arbiter.core.model import Result, Seat
    from bughouse_arbiter.tournament.jobs import MatchReport, SeatIncident
    from bughouse_arbiter.tournament.ray_nodes import NodeCounts

    counts = NodeCounts()
    counts.up("a" * 56, "10.0.0.5", "box", now=100.0)
    crash = SeatIncident(seat=next(iter(Seat)), participant="p", engine="e", kind="crash", text="")
    illegal = attrs.evolve(crash, kind="illegal")
    played = MatchReport(job_id="1", result=Result.DRAW, incidents=(crash, illegal))
    counts.reported("a" * 56, played, now=104.0)
    counts.reported("a" * 56, MatchReport(job_id="2", result=Result.UNFINISHED, error="x"), 108.0)
    counts.lost("a" * 56, now=110.0)
    counts.reported("b" * 56, played, now=110.0)  # no table came up there: not counted
    assert counts.as_list() == [
        {
            "node_id": "a" * 56,
            "address": "10.0.0.5",
            "host": "box",
            "games": 1,
            "failures": 3,
            "games_per_second": 0.1,
        }
    ]
    assert counts.lines() == ["node box (10.0.0.5, aaaaaaaa): 1 games, 3 failures, 0.10 games/s"]


class _StuckRay:
    """Just enough of ``ray`` for a ``RayScheduler`` whose head stops answering:
    after the first look, ``nodes()`` blocks (as Ray's does for a minute)."""

    def __init__(self, head: str) -> None:
        self.head = head
        self.looks = 0
        self.release = threading.Event()

    def remote(self, **options: object) -> object:
        return lambda cls: cls

    def nodes(self) -> list[dict[str, object]]:
        self.looks += 1
        if self.looks > 1:
            self.release.wait(60)
        return [{"Alive": True, "NodeID": "n1", "Resources": {"CPU": 4.0}}]

    def get_runtime_context(self) -> object:
        return type("Context", (), {"gcs_address": self.head})()


def _closed_port() -> str:
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{free.getsockname()[1]}"


@pytest.mark.parametrize("head_answers", [False, True])
def test_a_blocked_call_to_the_cluster_never_holds_the_event_loop(head_answers: bool) -> None:
    import socket

    import trio

    from bughouse_arbiter.tournament.ray_backend import RayScheduler

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    up = f"127.0.0.1:{listening.getsockname()[1]}"
    ray = _StuckRay(up if head_answers else _closed_port())
    scheduler = RayScheduler(ray, notice=lambda line: None)

    async def main() -> float:
        with trio.fail_after(20):
            with trio.move_on_after(4) as stopped:  # Ctrl+C, as a cancelled scope
                await scheduler.run(lambda: None, _no_report)
            return trio.current_time() if stopped.cancelled_caught else -1.0

    try:
        ended = trio.run(main)
    finally:
        ray.release.set()
        listening.close()
    if head_answers:
        # A head that answers but is slow: the run waits, and the stop ends it.
        assert ended > 0 and scheduler.head_lost is None
    else:
        assert ended == -1.0
        assert scheduler.head_lost == f"the Ray cluster's head at {ray.head} no longer answers"


async def _no_report(report: object) -> None:
    raise AssertionError("no game was handed out")


class _Ref:
    def __init__(self, answer: Callable[[], object], done: bool = True) -> None:
        self.answer, self.done = answer, done


class _Call:
    """A method of a fake actor: it runs at once; its ref is done unless ``done`` is False."""

    def __init__(self, method: Callable[..., object], done: bool = True) -> None:
        self.method, self.done = method, done

    def remote(self, *args: object) -> _Ref:
        try:
            value = self.method(*args)
        except _ActorDied as exc:
            failure = exc
            return _Ref(lambda: _raise(failure), self.done)
        return _Ref(lambda: value, self.done)


def _raise(exc: BaseException) -> object:
    raise exc


class _ActorDied(Exception):
    pass


class _InstantRay:
    """Just enough of ``ray`` for ``RayScheduler.run`` with no cluster: every
    call answers at once, but a table's ``watch``, which answers only when the
    table dies (after the games in ``dies_after``); counts its ``nodes()``."""

    class exceptions:
        RayError = Exception
        RayActorError = _ActorDied
        WorkerCrashedError = NodeDiedError = ObjectLostError = RayTaskError = _ActorDied

    def __init__(self, dies_after: Collection[str] = ()) -> None:
        self.dies_after = set(dies_after)
        self.looks = 0
        self.started = 0

    def remote(self, **options: object) -> Callable[[object], object]:
        return lambda cls: self

    def options(self, **options: object) -> _InstantRay:
        return self

    def nodes(self) -> list[dict[str, object]]:
        self.looks += 1
        return [{"Alive": True, "NodeID": f"n{n}", "Resources": {"CPU": 4.0}} for n in (1, 2)]

    def get_runtime_context(self) -> object:
        return type("Context", (), {"gcs_address": None})()

    def wait(
        self, refs: list[_Ref], *, num_returns: int, timeout: float, fetch_local: bool
    ) -> tuple[list[_Ref], list[_Ref]]:
        done = [ref for ref in refs if ref.done][:num_returns]
        return done, [ref for ref in refs if ref not in done]

    def get(self, ref: _Ref) -> Any:
        return ref.answer()

    def kill(self, handle: object, *, no_restart: bool) -> None:
        pass

    def _handle(self) -> object:
        """A new table's handle (``RayScheduler._table_class.options(...).remote()``)."""
        node = NodeInfo(node_id=f"n{self.started % 2 + 1}", ip="127.0.0.1", host="here")
        self.started += 1
        watched = _Ref(lambda: None, done=False)
        ray = self

        def play(job: MatchJob, version: str) -> Played:
            if watched.done:
                raise _ActorDied("the actor died")
            if job.job_id in ray.dies_after:
                watched.done = True  # the actor dies once this game is back
            keys = tuple(entrant.key for entrant in job.entrants)
            report = MatchReport(job_id=job.job_id, result=Result.DRAW, plies=1)
            return Played(report=report, node=node, started=0.0, finished=0.0, idle=keys)

        handle = type("Handle", (), {})()
        handle.node = _Call(lambda: node)
        handle.watch = type("Watch", (), {"remote": lambda self: watched})()
        handle.stop = _Call(lambda: True)
        handle.play = _Call(play)
        return handle


class _TableClass:
    def __init__(self, ray: _InstantRay) -> None:
        self.ray = ray

    def options(self, **options: object) -> _TableClass:
        return self

    def remote(self) -> object:
        return self.ray._handle()


def _check_indexes(scheduler: Any) -> None:
    """The scheduler's indexes of its tables agree with the tables."""
    tables = scheduler._tables
    assert scheduler._by_ref == {t.ref: t for t in tables if t.ref is not None}
    assert scheduler._by_watch == {t.watch: t for t in tables if t.watch is not None}
    assert list(scheduler._ready) == [t for t in scheduler._ready if t in tables and t.ready]
    assert set(scheduler._ready) == {t for t in tables if t.ready}


def test_the_ray_loop_indexes_its_tables_and_asks_for_the_nodes_once_a_second() -> None:
    import trio.testing

    from bughouse_arbiter.tournament import ray_backend
    from bughouse_arbiter.tournament.ray_backend import RayScheduler

    teams = [
        Participant(name=name, members=(spec, spec), member_names=(name, name))
        for name, spec in (("one", EngineSpec(name="a", command=("a",))),
                           ("two", EngineSpec(name="b", command=("b",))))
    ]  # fmt: skip
    jobs = schedule(teams, format="gauntlet", games=40, rules=HouseRules(), openings=[], seed=1)
    ray = _InstantRay(dies_after={jobs[9].job_id, jobs[25].job_id})
    lines: list[str] = []
    scheduler = RayScheduler(ray, notice=lines.append)
    scheduler._table_class = _TableClass(ray)
    assert scheduler.concurrency == 4 and ray.looks == 1
    clock = trio.testing.MockClock()  # still: only the test moves it
    todo = deque(jobs)
    looks: dict[str, int] = {}

    async def on_report(report: MatchReport) -> None:
        _check_indexes(scheduler)
        looks[report.job_id] = ray.looks
        if report.job_id == jobs[30].job_id:
            clock.jump(ray_backend.NODES_SECONDS)

    trio.run(scheduler.run, lambda: todo.popleft() if todo else None, on_report, clock=clock)

    assert sorted(scheduler.reported) == sorted(job.job_id for job in jobs)
    assert lines == ["a game table died while idle on node n2: dropped, no game lost"] * 2
    assert scheduler.tables_started == 6  # four, and one for each that died
    # Asked when the run began, at once after each death (as the watch fires and
    # as the table is dropped), and once the clock had moved on: 7 asks in all
    # (with the scheduler's first), never just because a pass came round.
    assert looks[jobs[0].job_id] == 2
    assert sorted(set(looks.values())) == [2, 3, 4, 5, 6, 7]
    assert looks[jobs[30].job_id] == 6 and ray.looks == 7
    assert not scheduler._by_ref and not scheduler._by_watch and not scheduler._ready
