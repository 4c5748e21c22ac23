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
