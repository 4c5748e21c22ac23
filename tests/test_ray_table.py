"""``RayTable`` on its own, in this process (no cluster): how a stop ends its game.

The actor's methods are plain blocking calls, so a test calls them from threads
as Ray's threaded actor would. Only the node's name comes from Ray; it is
replaced here.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import attrs
import pytest

from bughouse_arbiter import __version__
from bughouse_arbiter.config.specs import EngineSpec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament import ray_table
from bughouse_arbiter.tournament.ray_table import ABANDONED, NodeInfo, Played, RayTable
from bughouse_arbiter.tournament.schedule import Participant, schedule

GATED = Path(__file__).resolve().parent / "gated_engine.py"


def _stop_loop_only(self: ray_table._TableLoop) -> None:
    """The stop as it lands when the table's loop ends before the game's scope
    is cancelled: the game is cancelled from outside, by the loop's end."""
    self.stopping = True
    assert self._loop is not None
    self._loop.cancel()


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
