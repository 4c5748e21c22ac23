"""``bughouse tournament --ray``: the games on a two-node Ray cluster on this machine.

One cluster (``ray.cluster_utils.Cluster``: a head and a second node, 2 CPUs
each, so two games at once) serves the whole module; each test runs the
command as its own driver process joining it, as a user would. The second
node's processes carry ``BUGHOUSE_TEST_NODE=second`` in their environment,
which lets a test seat an engine that starts everywhere but there.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from cli_checks import BUGHOUSE, expect_usage_error, run_bughouse
from proc_checks import forking, recorded, running, zombies_of

from bughouse_arbiter import __version__
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.config.specs import EngineSpec, builtin_engine, engine_spec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.ray_backend import RAY_MISSING, RayScheduler, localize_job
from bughouse_arbiter.tournament.schedule import Participant, schedule

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
#: Marks every process of this module's cluster (and the engines its workers start).
MARK = f"BUGHOUSE_RAY_TEST={os.getpid()}"
#: Each node's object store (bytes): small, the games' reports are.
STORE = 80 * 1024 * 1024
#: The test engine that holds its moves until a file exists (tests/gated_engine.py).
GATED = ROOT / "tests" / "gated_engine.py"
#: Deterministic results at any speed: r1 vs r2 is a draw at the 6-ply cap (random
#: movers never mate that fast); ``faulty-illegal`` moves illegally on its second
#: turn (by ply 5), so r1 beats bad.
GAUNTLET = [
    "--engine", "r1=random",
    "--engine", "r2=random",
    "--engine", "bad=faulty-illegal",
    "--games", "20",
    "--tc", "2+0",
    "--rule", "max_plies=6",
    "--seed", "5",
]  # fmt: skip


#: ``bughouse`` as a process, as every test here runs it.
bughouse = partial(run_bughouse, timeout=300.0)


def _ray_or_skip() -> Any:
    try:
        import ray
    except ImportError:
        if os.environ.get("BUGHOUSE_REQUIRE_ENGINES") == "1":
            pytest.fail("ray is not installed (pip install -e '.[ray]')")
        pytest.skip("ray is not installed")
    return ray


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    _ray_or_skip()
    from ray.cluster_utils import Cluster

    key, value = MARK.split("=")
    os.environ[key] = value
    head = {"num_cpus": 2, "object_store_memory": STORE, "include_dashboard": False}
    made = Cluster(initialize_head=True, head_node_args=head)
    try:
        os.environ["BUGHOUSE_TEST_NODE"] = "second"
        made.add_node(num_cpus=2, object_store_memory=STORE)
        del os.environ["BUGHOUSE_TEST_NODE"]
        made.wait_for_nodes()
        yield made
    finally:
        os.environ.pop("BUGHOUSE_TEST_NODE", None)
        made.shutdown()
        os.environ.pop(key, None)


def journal(folder: Path) -> list[dict[str, Any]]:
    """The reports in ``results.jsonl``, in the order they were written."""
    lines = (folder / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["report"] for line in lines]


def _node_id(where: str) -> str:
    """The Ray node id in a report's ``node`` (``host:pid ray-node NODE_ID IP``)."""
    return where.split(" ray-node ")[1].split()[0]


def comparable_summary(folder: Path) -> dict[str, Any]:
    """summary.json without the time it was written and the incidents' free text
    (which names the position and seat, a matter of timing)."""
    summary: dict[str, Any] = json.loads((folder / "summary.json").read_text())
    del summary["written"]
    # How the backend ran, not what was played: which table played which game
    # decides which engines were kept.
    del summary["engines_this_session"]
    del summary["loop_lag_this_session"]
    # The harness's measured delay on the clocks: timing, not what was played.
    del summary["harness_delay"]
    # Which nodes played (none in a local run).
    summary.pop("nodes", None)
    # The test's settings say when, where and on what the run played; what it
    # played (engines, book, time control, seed) must match.
    settings = summary.pop("settings")
    for key in ("started", "machine", "where", "concurrency", "tables"):
        del settings[key]
    summary["played_as"] = settings
    summary["incidents"] = sorted(
        (i["game"], i["participant"], i["kind"]) for i in summary["incidents"]
    )
    return summary


#: Tags that depend on when, not on what: the clock, the position of an illegal
#: move, and which of the two boards got to it first (both seats of the culprit's
#: team move illegally on their second turn; ``TerminationSeat`` is compared as
#: the participant sitting there).
TIMING_TAGS = {"Date", "Time", "TerminationReason", "TerminationBoard", "TerminationSeat"}
#: The incidents that count as an engine's failure (``Incident.is_failure``).
FAILURES = ("crash", "start", "hang")
SEAT_TAGS = {"WA": "WhiteA", "BA": "BlackA", "WB": "WhiteB", "BB": "BlackB"}


def games_by_round(folder: Path) -> dict[str, dict[str, str]]:
    games = read_games((folder / "games.bpgn").read_text())
    for game in games:
        assert game.finished
        assert replay_game(game).ok, game.tags
    tags = {game.tags["Round"]: dict(game.tags) for game in games}
    assert len(tags) == len(games)  # no game twice
    comparable = {}
    for number, game in tags.items():
        culprit = SEAT_TAGS.get(game.get("TerminationSeat", ""))
        comparable[number] = {k: v for k, v in game.items() if k not in TIMING_TAGS}
        comparable[number]["culprit"] = game[culprit] if culprit else "-"
    return comparable


@pytest.mark.slow
def test_a_40_game_tournament_on_two_nodes_matches_a_local_run(
    cluster: Any, tmp_path: Path
) -> None:
    local = bughouse(
        "tournament",
        *GAUNTLET,
        "--concurrency",
        "2",
        "--force-concurrency",
        "--out",
        "local",
        cwd=tmp_path,
    )
    assert local.returncode == 0, local.stderr
    on_ray = bughouse(
        "tournament", *GAUNTLET, "--ray", cluster.address, "--out", "ray", cwd=tmp_path
    )
    assert on_ray.returncode == 0, on_ray.stderr

    assert "games: 40 of 40 scheduled" in on_ray.stdout
    assert comparable_summary(tmp_path / "ray") == comparable_summary(tmp_path / "local")
    # Engines are kept from game to game on the cluster too: fewer than four per
    # game are started, and the counts are those of the reports.
    engines = json.loads((tmp_path / "ray" / "summary.json").read_text())["engines_this_session"]
    started = [r["started_engines"] for r in journal(tmp_path / "ray")]
    assert engines == {
        "engines_started": sum(started),
        "games_reusing": sum(1 for n in started if n == 0),
    }
    assert engines["engines_started"] < 160 and engines["games_reusing"] > 0
    assert games_by_round(tmp_path / "ray") == games_by_round(tmp_path / "local")
    ray_journal = journal(tmp_path / "ray")
    local_journal = journal(tmp_path / "local")
    assert len(ray_journal) == 40
    assert sorted((r["job_id"], r["result"], r["termination"]) for r in ray_journal) == sorted(
        (r["job_id"], r["result"], r["termination"]) for r in local_journal
    )

    # The standings printed at the end are the same text (but for the harness's
    # measured delay on the clocks, a matter of timing).
    def standings(out: str) -> str:
        text = out.split("\n #")[1].split("\nwritten to")[0].split("\nnode ")[0]
        return re.sub(r"the harness's delay on an engine's clock.*", "", text, flags=re.S)

    assert standings(on_ray.stdout) == standings(local.stdout)
    # Both nodes played (each report names the Ray node of its worker).
    nodes = {_node_id(r["node"]) for r in ray_journal}
    assert nodes == {node.node_id for node in cluster.list_all_nodes()}
    # ... and summary.json counts the games per node, as the last lines print them.
    per_node = json.loads((tmp_path / "ray" / "summary.json").read_text())["nodes"]
    assert {n["node_id"] for n in per_node} == nodes
    for counted in per_node:
        played_there = [r for r in ray_journal if _node_id(r["node"]) == counted["node_id"]]
        assert counted["games"] == len(played_there) > 0
        assert counted["address"] == played_there[0]["node"].split()[-1]
        faults = [i for r in played_there for i in r["incidents"]]
        assert counted["failures"] == sum(1 for i in faults if i["kind"] in FAILURES)
        assert counted["games_per_second"] > 0
        line = f"({counted['address']}, {counted['node_id'][:8]}): {counted['games']} games"
        assert line in on_ray.stdout


def _marked_processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of this module's cluster processes."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            if MARK.encode() not in environ.split(b"\0"):
                continue
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry.name)] = (parent, command)
    return found


def _marked_family(pid: int) -> set[int]:
    """``pid`` and its children among this module's live cluster processes."""
    processes = _marked_processes()
    return {p for p, (parent, _) in processes.items() if pid in (p, parent)}


def _worker_playing_a_game(timeout: float, engine: str = "random_mover.py") -> int:
    """The pid of a Ray worker whose engines are playing (it started ``engine``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        processes = _marked_processes()
        for parent, command in processes.values():
            if engine in command and processes.get(parent, (0, ""))[1].startswith("ray::"):
                return parent
        time.sleep(0.05)
    raise AssertionError("no Ray worker started engines")


def _tournament(
    cluster: Any, tmp_path: Path, engine: str, *, games: int, tc: str, max_plies: int
) -> subprocess.Popen[str]:
    """A driver playing ``games`` games of ``engine`` against itself on ``cluster``
    (output in ``t``)."""
    argv = [
        "tournament", "--engine", f"a={engine}", "--engine", f"b={engine}",
        "--games", str(games), "--tc", tc, "--rule", f"max_plies={max_plies}",
        "--ray", cluster.address, "--out", "t",
    ]  # fmt: skip
    return subprocess.Popen(
        [*BUGHOUSE, *argv],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _random_tournament(cluster: Any, tmp_path: Path, *, games: int) -> subprocess.Popen[str]:
    """Random movers at 4 s a player."""
    return _tournament(cluster, tmp_path, "random", games=games, tc="4+0", max_plies=300)


def _gated_tournament(
    cluster: Any, tmp_path: Path, gate: Path, *, games: int, free_on: str = ""
) -> subprocess.Popen[str]:
    """Engines that hold every move until ``gate`` exists (except on node
    ``free_on``): a table seen with engines is surely mid-game, not idle
    between games."""
    gated = f"{sys.executable} {GATED} {gate}" + (f" --free-on {free_on}" if free_on else "")
    return _tournament(cluster, tmp_path, gated, games=games, tc="600+0", max_plies=16)


@pytest.mark.slow
def test_a_killed_worker_costs_its_game_only_played_again_and_counted_once(
    cluster: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    driver = _gated_tournament(cluster, tmp_path, gate, games=4)
    try:
        os.kill(_worker_playing_a_game(timeout=120, engine=str(GATED)), signal.SIGKILL)
        gate.touch()
        out, err = driver.communicate(timeout=300)
    finally:
        gate.touch()
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, err
    lost = [line for line in out.splitlines() if "its worker process died" in line]
    assert len(lost) == 1, out
    assert "played again (attempt 2 of 3)" in lost[0]
    lost_job = lost[0].split("game ", 1)[1].split()[0]
    ids = [r["job_id"] for r in journal(tmp_path / "t")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 4
    assert lost_job in ids
    assert len(read_games((tmp_path / "t" / "games.bpgn").read_text())) == 4
    assert "games: 4 of 4 scheduled" in out
    # Nothing of Ray's own about the dead worker reaches the user: one line of ours.
    assert "Unhandled error" not in out + err and "Traceback" not in err, err


def _engines_left(timeout: float, what: str = "random_mover.py") -> list[str]:
    """The cluster's processes whose command holds ``what`` (by default the
    random movers) still running after ``timeout`` seconds at most."""
    deadline = time.monotonic() + timeout
    while True:
        left = [c for _, c in _marked_processes().values() if what in c]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


@pytest.mark.slow
def test_ctrl_c_abandons_the_games_and_closes_every_table_and_engine(
    cluster: Any, tmp_path: Path
) -> None:
    driver = _random_tournament(cluster, tmp_path, games=8)
    try:
        _worker_playing_a_game(timeout=120)
        driver.send_signal(signal.SIGINT)
        _, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 130, err
    assert "Traceback" not in err
    # No engine and no table outlives the driver.
    assert _engines_left(timeout=30) == []
    assert _engines_left(timeout=30, what="RayTable") == []
    played = journal(tmp_path / "t") if (tmp_path / "t" / "results.jsonl").exists() else []
    ids = [r["job_id"] for r in played]
    assert len(ids) == len(set(ids)) < 8


@pytest.mark.slow
def test_each_table_keeps_its_four_engines_from_game_to_game(cluster: Any, tmp_path: Path) -> None:
    argv = [
        "tournament", "--engine", "a=random", "--engine", "b=random",
        "--games", "12", "--tc", "30+0", "--rule", "max_plies=40",
        "--ray", cluster.address, "--out", "t",
    ]  # fmt: skip
    done = bughouse(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "games: 12 of 12 scheduled" in done.stdout
    reports = journal(tmp_path / "t")
    assert len(reports) == 12 and len({r["job_id"] for r in reports}) == 12
    # One table per slot (two nodes of one slot each), each a worker process
    # (host:pid) of its own: it starts its four engines for its first game and
    # plays every later game with them.
    tables = {r["node"].split(" ray-node ")[0] for r in reports}
    assert len(tables) == 2
    assert len({_node_id(r["node"]) for r in reports}) == 2
    for table in tables:
        started = [r["started_engines"] for r in reports if r["node"].startswith(table + " ")]
        assert started[0] == 4 and not any(started[1:]), (table, started)
    engines = json.loads((tmp_path / "t" / "summary.json").read_text())["engines_this_session"]
    assert engines == {"engines_started": 8, "games_reusing": 10}
    # The tables closed their engines when the tournament ended.
    assert _engines_left(timeout=30) == []


@pytest.mark.slow
async def test_a_killed_table_costs_its_game_only_and_a_new_table_takes_its_slot(
    cluster: Any,
) -> None:
    notices: list[str] = []
    scheduler = RayScheduler.connect(cluster.address, notice=notices.append)
    try:
        rules = HouseRules(time=4.0, max_plies=300)
        jobs = _jobs(6, builtin_engine("random"), rules)
        reports: list[MatchReport] = []
        killed: list[int] = []

        async def on_report(report: MatchReport) -> None:
            reports.append(report)

        async def kill_a_table() -> None:
            pid = await trio.to_thread.run_sync(_worker_playing_a_game, 120)
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

        with trio.fail_after(300):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(kill_a_table)
                await scheduler.run(lambda: jobs.pop(0) if jobs else None, on_report)
    finally:
        scheduler.shutdown()
    assert len(killed) == 1
    # Six games, each reported once and played; the lost one played again.
    assert sorted(r.job_id for r in reports) == sorted({r.job_id for r in reports})
    assert len(reports) == 6 and all(r.played for r in reports)
    assert [attempt for _, attempt in scheduler.requeued] == [2]
    lost = [line for line in notices if "its worker process died" in line]
    assert len(lost) == 1 and "played again (attempt 2 of 3)" in lost[0], notices
    # It was played to its end by another table's worker process.
    lost_job = lost[0].split("game ", 1)[1].split()[0]
    (replayed,) = [r for r in reports if r.job_id == lost_job]
    assert replayed.node.split(" ")[0].rsplit(":", 1)[1] != str(killed[0])
    # The dead table was replaced: two at first, a third in its slot.
    assert scheduler.tables_started == 3
    assert scheduler.concurrency == 2
    # Each table that reported started its four engines once.
    tables = {r.node.split(" ray-node ")[0] for r in reports}
    assert scheduler.stats.engines_started == 4 * len(tables)
    assert scheduler.stats.games_reusing == 6 - len(tables)
    assert _engines_left(timeout=30) == []


@pytest.mark.slow
def test_stop_reaches_a_table_mid_game_and_its_watch_returns(cluster: Any, tmp_path: Path) -> None:
    ray = _ray_or_skip()
    scheduler = RayScheduler.connect(cluster.address, notice=lambda line: None)
    try:
        # The table class the scheduler makes its tables of, asked directly.
        table = scheduler._table_class.remote()
        watch = table.watch.remote()
        spec = EngineSpec(name="held", command=(sys.executable, str(GATED), str(tmp_path / "shut")))
        (job,) = _jobs(1, spec, HouseRules(time=600.0, max_plies=16))[:1]
        game = table.play.remote(job, __version__)
        _worker_playing_a_game(timeout=120, engine=str(GATED))
        # The game holds forever (its gate stays shut): stop runs beside it, abandons
        # it and closes its engines; then the watch call returns.
        assert ray.get(table.stop.remote(), timeout=60) is True
        played = ray.get(game, timeout=30)
        assert not played.report.played
        assert played.report.error == "abandoned: the table was stopped", played.report
        assert ray.get(watch, timeout=30) is True
        assert _engines_left(timeout=30, what=str(GATED)) == []
        ray.kill(table)
    finally:
        scheduler.shutdown()


@pytest.mark.slow
async def test_a_table_that_dies_idle_is_dropped_before_it_is_handed_a_game(
    cluster: Any, tmp_path: Path
) -> None:
    notices: list[str] = []
    scheduler = RayScheduler.connect(cluster.address, notice=notices.append)
    gate = tmp_path / "gate"
    rules = HouseRules(time=600.0, max_plies=16)
    # One game held at the gate keeps a table busy; quick games for the other.
    held = _jobs(1, EngineSpec(name="held", command=(sys.executable, str(GATED), str(gate))), rules)
    quick = [
        attrs.evolve(job, job_id=f"quick-{n}")
        for n, job in enumerate(_jobs(3, builtin_engine("random"), rules))
    ]
    line = [*held[:1], quick[0]]
    reports: list[MatchReport] = []
    first_quick = trio.Event()
    killed: list[int] = []
    try:

        async def on_report(report: MatchReport) -> None:
            reports.append(report)
            if report.job_id == quick[0].job_id:
                first_quick.set()

        async def kill_the_idle_table() -> None:
            await first_quick.wait()
            # The table that played it is idle (nothing more to hand out): kill it.
            (quick_report,) = reports
            pid = int(quick_report.node.split(" ")[0].rsplit(":", 1)[1])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            while not any("died while idle" in notice for notice in notices):
                await trio.sleep(0.05)
            # Only now more games, and the held one may end.
            line.extend(quick[1:])
            gate.touch()

        with trio.fail_after(180):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(kill_the_idle_table)
                await scheduler.run(lambda: line.pop(0) if line else None, on_report)
    finally:
        gate.touch()
        scheduler.shutdown()
    assert len(killed) == 1
    # The death was noticed while the table was idle: no game was lost to it.
    dead = [notice for notice in notices if "died while idle" in notice]
    assert len(dead) == 1 and dead[0].endswith("dropped, no game lost"), notices
    assert not any(" lost (" in notice for notice in notices), notices
    assert scheduler.requeued == []
    ids = [report.job_id for report in reports]
    assert sorted(ids) == sorted({held[0].job_id, *(job.job_id for job in quick)})
    assert all(report.played for report in reports)
    assert not any(report.node.split(" ")[0].endswith(f":{killed[0]}") for report in reports[1:])
    # A new table took the dead one's slot.
    assert scheduler.tables_started == 3
    assert _engines_left(timeout=30) == []
    assert _engines_left(timeout=30, what=str(GATED)) == []


@pytest.mark.slow
def test_an_engine_that_does_not_start_on_a_node_is_that_nodes_error_not_a_game(
    cluster: Any, tmp_path: Path
) -> None:
    mover = ROOT / "engines" / "random_mover.py"
    picky = (
        f'/bin/sh -c \'[ "$BUGHOUSE_TEST_NODE" = second ] && exit 3; '
        f"exec {sys.executable} {mover} --delay 50'"
    )  # it thinks, so the head's table cannot play all four before the second's starts
    argv = [
        "tournament", "--engine", f"picky={picky}", "--engine", "b=random",
        "--games", "4", "--tc", "2+0", "--rule", "max_plies=40",
        "--ray", cluster.address, "--out", "t",
    ]  # fmt: skip
    done = bughouse(*argv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    second = next(
        node.node_id for node in cluster.list_all_nodes() if node is not cluster.head_node
    )
    refusals = [line for line in done.stdout.splitlines() if "did not start" in line]
    assert refusals, done.stdout
    assert all(f"node {second[:8]}" in line for line in refusals)
    assert any("not counted as a game" in line for line in refusals)
    reports = journal(tmp_path / "t")
    assert len(reports) == 4 and len({r["job_id"] for r in reports}) == 4
    assert not any(i["kind"] == "start" for r in reports for i in r["incidents"])
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["games_played"] == 4 and summary["crashes"]["picky"] == 0


@pytest.mark.slow
def test_a_driver_restarted_resumes_from_its_journal_on_the_cluster(
    cluster: Any, tmp_path: Path
) -> None:
    argv = ["--engine", "a=random", "--engine", "b=random", "--games", "6", "--tc", "2+0",
            "--rule", "max_plies=40"]  # fmt: skip
    first = bughouse("tournament", *argv, "--ray", cluster.address, "--out", "t", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    # The driver "dies" after its third game: the journal holds three lines, the
    # last one torn.
    lines = (tmp_path / "t" / "results.jsonl").read_text().splitlines(keepends=True)
    kept = [json.loads(line)["job_id"] for line in lines[:3]]
    (tmp_path / "t" / "results.jsonl").write_text("".join(lines[:3]) + lines[3][:50])
    # Resumed with --concurrency 1: one table on the two-node cluster.
    again = bughouse(
        "tournament", "--resume", "t", "--ray", cluster.address, "--concurrency", "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "resuming: 3 of 6 games already played" in again.stdout
    ids = [r["job_id"] for r in journal(tmp_path / "t")]
    assert ids[:3] == kept and sorted(ids) == sorted(set(ids)) and len(ids) == 6
    resumed = journal(tmp_path / "t")[3:]
    assert len({r["node"] for r in resumed}) == 1
    assert resumed[0]["started_engines"] == 4
    engines = json.loads((tmp_path / "t" / "summary.json").read_text())["engines_this_session"]
    assert engines["engines_started"] < 12
    assert len(read_games((tmp_path / "t" / "games.bpgn").read_text())) == 6
    assert json.loads((tmp_path / "t" / "summary.json").read_text())["games_played"] == 6


@pytest.mark.slow
def test_an_engine_no_node_can_start_gives_its_games_up_without_a_game_counted(
    cluster: Any, tmp_path: Path
) -> None:
    argv = [
        "tournament", "--engine", "ghost=/nonexistent/engine", "--engine", "b=random",
        "--games", "2", "--ray", cluster.address, "--out", "t",
    ]  # fmt: skip
    done = bughouse(*argv, cwd=tmp_path)
    assert "does not start on any live node of the Ray cluster" in done.stdout
    assert done.stdout.count("given up") == 2
    assert "games: 0 of 2 scheduled" in done.stdout
    assert journal(tmp_path / "t") == []
    # No game could be played: not a success, and said in one line.
    assert done.returncode == 1
    assert "written to" not in done.stdout
    (line,) = [line for line in done.stderr.splitlines() if "no game could be played" in line]
    assert "all 2 were given up" in line and "does not start on any live node" in line
    assert "Traceback" not in done.stderr


def _engines_on_second_node(engine: str, node: str = "second") -> list[int]:
    """The pids of the ``engine`` processes running on the second node (or the
    test node ``node``: ``BUGHOUSE_TEST_NODE`` in their environment)."""
    found = []
    for pid, (_, command) in _marked_processes().items():
        if engine not in command:
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if f"BUGHOUSE_TEST_NODE={node}".encode() in environ:
            found.append(pid)
    return found


def _wait_for(what: str, done: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"{what}: not after {timeout:g} s"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_node_lost_mid_game_costs_its_game_only(cluster: Any, tmp_path: Path) -> None:
    # Four games for two tables (one per node), held until the gate opens: the
    # second node's table is mid-game when the node goes.
    gate = tmp_path / "gate"
    driver = _gated_tournament(cluster, tmp_path, gate, games=4)
    second = next(node for node in cluster.list_all_nodes() if node is not cluster.head_node)
    try:
        engine = str(GATED)
        _wait_for("a game on the second node", lambda: bool(_engines_on_second_node(engine)), 120)
        cluster.remove_node(second, allow_graceful=False)
        # The gate stays shut until the node's table is gone: a worker outlives its
        # raylet for a moment, and could still finish its game and report it.
        _wait_for("the second node's end", lambda: not _engines_on_second_node(engine), 120)
        gate.touch()
        out, err = driver.communicate(timeout=300)
    finally:
        gate.touch()
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
        # The next tests get their second node back.
        os.environ["BUGHOUSE_TEST_NODE"] = "second"
        try:
            cluster.add_node(num_cpus=2, object_store_memory=STORE)
            cluster.wait_for_nodes()
        finally:
            del os.environ["BUGHOUSE_TEST_NODE"]
    assert driver.returncode == 0, err
    # Ray tells a node's death as an actor's (its worker's) death when it notices
    # the worker's end first: the node's raylet, gone, tells the two apart.
    lost = [line for line in out.splitlines() if " lost (its " in line]
    assert len(lost) == 1, out
    assert " lost (its node died)" in lost[0]
    assert "played again (attempt 2 of 3)" in lost[0]
    ids = [r["job_id"] for r in journal(tmp_path / "t")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 4
    assert "games: 4 of 4 scheduled" in out


@pytest.mark.slow
def test_a_node_stopped_with_sigterm_is_reported_as_stopped(cluster: Any, tmp_path: Path) -> None:
    """A node of its own (``ray start --address ... --block``, as the docs start
    one), stopped as the docs stop it: ``kill`` (SIGTERM) to that command, while
    its table is mid-game. Ray drains the node first; its game is lost as the
    node's, said to be stopped, not as a dead worker's."""
    env = {**os.environ, "BUGHOUSE_TEST_NODE": "stopped"}
    ray_start = [sys.executable, "-m", "ray.scripts.scripts", "start"]
    node = subprocess.Popen(
        [*ray_start, "--address", cluster.address, "--num-cpus", "2", "--block"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    gate = tmp_path / "gate"
    driver = None
    try:
        _wait_for("its raylet", lambda: bool(_engines_on_second_node("raylet", "stopped")), 120)
        # Six games for three tables, one per node, each held mid-game.
        driver = _gated_tournament(cluster, tmp_path, gate, games=6)
        engine = str(GATED)
        _wait_for("a game there", lambda: bool(_engines_on_second_node(engine, "stopped")), 180)
        node.send_signal(signal.SIGTERM)
        node.wait(timeout=120)
        _wait_for("its end", lambda: not _engines_on_second_node(engine, "stopped"), 120)
        gate.touch()
        out, err = driver.communicate(timeout=300)
    finally:
        gate.touch()
        if driver is not None and driver.poll() is None:
            driver.kill()
            driver.communicate()
        if node.poll() is None:
            node.kill()
            node.wait()
    assert driver.returncode == 0, err
    lost = [line for line in out.splitlines() if " lost (its " in line]
    assert len(lost) == 1, out
    assert " lost (its node was stopped)" in lost[0], lost[0] + err
    assert "played again (attempt 2 of 3)" in lost[0]
    ids = [r["job_id"] for r in journal(tmp_path / "t")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 6


#: Ray 2.60's words for a table whose node has died (here one stopped with SIGTERM).
_NODE_DIED = (
    "The actor died unexpectedly before finishing this task.\n\tclass_name: RayTable\n"
    "\tip: 192.0.2.2\nThe actor died because its node has died. Node Id: 3166fdc7\n"
    "\tthe actor's node was preempted: Node received SIGTERM; draining before shutdown."
)


@pytest.mark.parametrize(
    ("death", "preempted", "said"),
    [
        # A node drained before its end (SIGTERM to ``ray start --block``),
        (_NODE_DIED, True, "its node was stopped"),
        # one that just ended (its raylet killed),
        (_NODE_DIED.replace("preempted", "terminated unexpectedly"), False, "its node died"),
        # and a worker killed alone: its node's raylet is asked then.
        (
            "The actor died unexpectedly before finishing this task.\n\tclass_name: RayTable\n"
            "Worker exits unexpectedly by a signal. SystemExit is raised",
            False,
            None,
        ),
    ],
)
def test_rays_words_tell_a_stopped_node_from_a_dead_one(
    death: str, preempted: bool, said: str | None
) -> None:
    from bughouse_arbiter.tournament.ray_backend import node_loss

    assert node_loss(death, preempted=preempted) == said


def _first_report_from(folder: Path, node_id: str, timeout: float) -> tuple[int, dict[str, Any]]:
    """Waits for the journal's first game played on the Ray node ``node_id``: its
    place in the journal and its report."""
    path = folder / "results.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines(keepends=True) if path.exists() else []
        for at, line in enumerate(lines):
            if not line.endswith("\n"):
                break  # being written
            report: dict[str, Any] = json.loads(line)["report"]
            if _node_id(report["node"]) == node_id:
                return at, report
        time.sleep(0.2)
    raise AssertionError(f"no game played on node {node_id[:8]} in {timeout:g} s")


@pytest.mark.slow
def test_a_node_that_joins_mid_run_gets_a_table_and_every_game_is_counted_once(
    cluster: Any, tmp_path: Path
) -> None:
    # Six games for two tables (one per node). The engines hold every move until
    # the gate opens, except on the node that joins: the first two games stay in
    # flight on the first two nodes until the third one has played a game.
    gate = tmp_path / "gate"
    driver = _gated_tournament(cluster, tmp_path, gate, games=6, free_on="third")
    third = None
    try:
        _worker_playing_a_game(timeout=120, engine=str(GATED))
        os.environ["BUGHOUSE_TEST_NODE"] = "third"
        try:
            third = cluster.add_node(num_cpus=2, object_store_memory=STORE)
        finally:
            del os.environ["BUGHOUSE_TEST_NODE"]
        at, joined = _first_report_from(tmp_path / "t", third.node_id, timeout=180)
        gate.touch()
        out, err = driver.communicate(timeout=300)
    finally:
        gate.touch()
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
        if third is not None:
            # The next tests get their two-node cluster back.
            cluster.remove_node(third)
    assert driver.returncode == 0, err
    # Nothing was played anywhere else while the gate was shut: the new node's
    # table was made and given games while both others were still playing.
    assert at == 0 and joined["started_engines"] == 4
    reports = journal(tmp_path / "t")
    nodes = [_node_id(r["node"]) for r in reports]
    assert third.node_id in nodes
    assert set(nodes) - {third.node_id}, "the first two nodes' games were not reported"
    # Every game once, in the journal, in games.bpgn and in the results.
    ids = [r["job_id"] for r in reports]
    assert len(ids) == 6 and len(set(ids)) == 6
    assert len(read_games((tmp_path / "t" / "games.bpgn").read_text())) == 6
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["games_played"] == 6 and summary["complete"] is True
    (pairing,) = summary["pairings"]
    assert pairing["games"] == pairing["wins"] + pairing["losses"] + pairing["draws"] == 6
    draws = sum(1 for r in reports if r["result"] == "1/2-1/2")
    assert pairing["draws"] == draws
    assert sum(row["points"] for row in summary["standings"]) == 6
    assert "games: 6 of 6 scheduled" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ray", "127.0.0.1:1"], "--ray 127.0.0.1:1: no Ray head answers there"),
        (["--ray", "no-port-here"], "--ray takes HOST:PORT"),
        (["--ray", "local", "--ray-cpus-per-match", "0"], "must be above 0"),
        (["--ray", "local", "--ray-cpus-per-match", "two"], "takes a number of CPUs"),
        (["--ray-cpus-per-match", "2"], "--ray-cpus-per-match goes with --ray"),
    ],
)
def test_bad_ray_options_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _ray_or_skip()
    monkeypatch.chdir(tmp_path)
    base = ["--engine", "a=random", "--engine", "b=random", "--out", "t"]
    expect_usage_error("tournament", [*base, *argv], message, capsys, tmp_path)


@pytest.mark.slow
def test_a_match_larger_than_every_node_is_refused(cluster: Any, tmp_path: Path) -> None:
    argv = [
        "tournament", "--engine", "a=random", "--engine", "b=random",
        "--ray", cluster.address, "--ray-cpus-per-match", "3", "--out", "t",
    ]  # fmt: skip
    done = bughouse(*argv, cwd=tmp_path)
    assert done.returncode == 2
    assert "no node of the Ray cluster has 3 CPUs for a match (the largest has 2)" in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "t").exists()


def test_without_ray_installed_ray_says_what_to_install(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    argv = ["--engine", "a=random", "--engine", "b=random", "--ray", "local", "--out", "t"]
    expect_usage_error("tournament", argv, RAY_MISSING, capsys, tmp_path)
    assert "pip install 'bughouse-arbiter[ray]'" in RAY_MISSING


def _jobs(games: int, spec: EngineSpec, rules: HouseRules | None = None) -> list[MatchJob]:
    teams = [
        Participant(name=name, members=(spec, spec), member_names=(name, name))
        for name in ("one", "two")
    ]
    rules = rules or HouseRules(time=5.0, max_plies=20)
    return schedule(teams, format="gauntlet", games=games, rules=rules, openings=[], seed=1)


def test_built_in_engines_are_found_where_the_worker_keeps_them() -> None:
    here = builtin_engine("random").with_options(Delay="5")
    elsewhere = attrs.evolve(here, command=("/opt/python3", "/srv/other/engines/random_mover.py"))
    (job,) = _jobs(1, elsewhere)[:1]
    localized = localize_job(job)
    assert all(entrant.spec == here for entrant in localized.entrants)
    # Commands that are not the built-in script run as written.
    mine = EngineSpec(name="random", command=("/opt/my-random", "--fast"))
    other = attrs.evolve(here, command=(sys.executable, "/srv/engines/searcher.py"))
    for spec in (mine, other, engine_spec("uci:/usr/games/fairy-stockfish")):
        (job,) = _jobs(1, spec)[:1]
        assert localize_job(job) == job


def test_the_built_in_sjengs_folder_is_made_on_the_node_that_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from bughouse_arbiter.config.engines_file import builtin_external_engines

    sjeng = builtin_external_engines()["sjeng"]
    # The driver's folder is not there on this "node", whose temporary folder is its own.
    node_tmp = tmp_path / "node-tmp"
    node_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(node_tmp))
    moved = attrs.evolve(sjeng, cwd=str(tmp_path / "driver-tmp" / "bughouse-arbiter-sjeng"))
    (job,) = _jobs(1, moved)[:1]
    localized = localize_job(job)
    folder = node_tmp / "bughouse-arbiter-sjeng"
    assert folder.is_dir()
    assert all(entrant.spec.cwd == str(folder) for entrant in localized.entrants)
    assert all(entrant.spec.command == sjeng.command for entrant in localized.entrants)


@pytest.mark.slow
async def test_a_node_with_another_version_refuses_the_game_naming_itself(
    cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bughouse_arbiter.tournament import ray_backend

    monkeypatch.setattr(ray_backend, "__version__", "9.9.9")
    scheduler = RayScheduler.connect(cluster.address, notice=lambda line: None)
    try:
        jobs = _jobs(2, builtin_engine("random"))
        reports: list[MatchReport] = []

        async def on_report(report: MatchReport) -> None:
            reports.append(report)

        with trio.fail_after(120):
            await scheduler.run(lambda: jobs.pop(0) if jobs else None, on_report)
    finally:
        scheduler.shutdown()
    assert len(reports) == 2
    for report in reports:
        assert not report.played
        assert report.error is not None
        assert f"runs bughouse-arbiter {__version__}, the driver 9.9.9" in report.error
        assert "node " in report.error
    assert scheduler.reported == set()
    assert scheduler.concurrency == 2


@pytest.mark.slow
async def test_a_lone_table_on_a_node_its_engine_avoids_makes_way_for_one_elsewhere(
    cluster: Any,
) -> None:
    # The engine starts on the second node only; one table at a time (--concurrency 1).
    mover = ROOT / "engines" / "random_mover.py"
    script = f'[ "$BUGHOUSE_TEST_NODE" = second ] || exit 3; exec {sys.executable} {mover}'
    spec = EngineSpec(name="picky", command=("/bin/sh", "-c", script))
    scheduler = RayScheduler.connect(cluster.address, concurrency=1, notice=lambda line: None)
    try:
        jobs = _jobs(4, spec)
        reports: list[MatchReport] = []

        async def on_report(report: MatchReport) -> None:
            reports.append(report)

        with trio.fail_after(180):
            await scheduler.run(lambda: jobs.pop(0) if jobs else None, on_report)
    finally:
        scheduler.shutdown()
    head = cluster.head_node.node_id
    second = next(n.node_id for n in cluster.list_all_nodes() if n is not cluster.head_node)
    refused = [r for r in reports if not r.played]
    played = [r for r in reports if r.played]
    assert len(reports) == 4 and len(refused) <= 1
    assert all(_node_id(r.node) == second for r in played)
    if refused:
        # The first table landed on the head: its engine did not start there, so
        # that table was retired and the next one made on the second node.
        assert refused[0].error is not None and f"node {head[:8]}" in refused[0].error
        assert set(scheduler.bad_nodes) == {head}
        assert scheduler.tables_started == 2
    else:
        assert scheduler.tables_started == 1
    assert scheduler.concurrency == 1


@pytest.mark.slow
def test_a_table_clears_what_its_engines_left_after_every_game(
    cluster: Any, tmp_path: Path
) -> None:
    # The forking engine (one seat of "bad") forks 10 children and 2 daemons on
    # its first turn and exits: by the time each game is reported, its table's
    # worker (a subreaper) has reaped those children and killed the daemons.
    ray = _ray_or_skip()
    record = tmp_path / "daemons.txt"
    bad = engine_spec(forking(record, "--children", "10", "--daemons", "2"))
    good = builtin_engine("random").with_options(Delay="30")
    teams = [
        Participant(name="bad", members=(bad, good), member_names=("forking", "random")),
        Participant(name="good", members=(good, good), member_names=("random", "random")),
    ]
    rules = HouseRules(time=10.0, max_plies=400)  # each game ends with the crash
    jobs = schedule(teams, format="gauntlet", games=2, rules=rules, openings=[], seed=1)
    scheduler = RayScheduler.connect(cluster.address, notice=lambda line: None)
    try:
        table = scheduler._table_class.remote()
        for number, job in enumerate(jobs, 1):
            played = ray.get(table.play.remote(job, __version__), timeout=120)
            assert played.report.played, played.report
            worker = int(played.report.node.split(" ")[0].rsplit(":", 1)[1])
            daemons = recorded(record)
            assert len(daemons) == 2 * number
            assert running(daemons) == []
            assert zombies_of(worker) == set()
        assert ray.get(table.stop.remote(), timeout=60) is True
        ray.kill(table)
    finally:
        scheduler.shutdown()


@pytest.mark.slow
def test_a_head_that_goes_ends_the_run_at_once_with_the_resume_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cluster of its own (one node: the head), whose GCS is killed mid-run: every
    # call to the head would block for Ray's 60 s reconnection timeout.
    _ray_or_skip()
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    key, value = MARK.split("=")
    monkeypatch.setenv(key, value)
    # Ray's node waits this long for its head to come back (60 s by default):
    # only the table's own look at the head ends it and its engines sooner.
    patient = {"gcs_rpc_server_reconnect_timeout_s": 600}
    head = {
        "num_cpus": 2,
        "object_store_memory": STORE,
        "include_dashboard": False,
        "_system_config": patient,
    }
    doomed = Cluster(initialize_head=True, head_node_args=head)
    address = doomed.address
    try:
        driver = _random_tournament(doomed, tmp_path, games=20)
        try:
            family = _marked_family(_worker_playing_a_game(timeout=120))
            (gcs,) = doomed.head_node.all_processes[ray_constants.PROCESS_TYPE_GCS_SERVER]
            gcs.process.kill()
            gcs.process.wait()
            _, err = driver.communicate(timeout=40)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.communicate()
        # The driver's stop still reaches its tables, its kill does not (that goes
        # through the head): each sees the head gone and ends its worker process.
        _wait_for(
            "the table's worker and engines to end",
            lambda: not family & set(_marked_processes()),
            120,
        )
    finally:
        doomed.shutdown()
    assert driver.returncode == 1, err
    (line,) = [line for line in err.splitlines() if "no longer answers" in line]
    assert f"head at {address} no longer answers" in line
    assert line.endswith(f"continue with: bughouse tournament --resume t --ray {address}")
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["complete"] is False
    assert f"{summary['games_played']} of 20 games are in t" in line
    assert "Traceback" not in err


def test_a_driver_the_cluster_refuses_says_it_is_the_token_in_one_line() -> None:
    import socket as sockets

    from bughouse_arbiter.errors import ConfigError
    from bughouse_arbiter.tournament import ray_backend

    class Refusing:
        """``ray.init`` as Ray's client does it without the cluster's token."""

        def init(self, **options: Any) -> None:
            for _ in range(20):
                os.write(2, b"gcs_client.cc:210: Failed to get cluster ID from GCS server: "
                         b"Unauthenticated: RPC error: InvalidAuthToken\n")  # fmt: skip
            raise ConnectionError("Failed to connect to Ray cluster at 192.0.2.2:6390")

    with sockets.socket() as head:
        head.bind(("127.0.0.1", 0))
        head.listen()
        address = f"127.0.0.1:{head.getsockname()[1]}"
        with pytest.raises(ConfigError) as refused:
            ray_backend._init(Refusing(), address)
    assert str(refused.value) == f"--ray {address}: {ray_backend.UNAUTHENTICATED}"
    assert "RAY_AUTH_MODE=token" in str(refused.value)


async def test_a_table_leaves_once_its_head_missed_five_looks_in_a_row(
    autojump_clock: object,
) -> None:
    from bughouse_arbiter.tournament.ray_table import (
        HEAD_LOOK_SECONDS,
        HEAD_MISSES,
        wait_for_head_loss,
    )

    # Two misses, an answer (a busy head: the count starts again), then silence.
    looks = iter([False, False, True] + [False] * HEAD_MISSES + [True])
    asked: list[str] = []

    def probe(address: str) -> bool:
        asked.append(address)
        return next(looks)

    await wait_for_head_loss("127.0.0.1:6379", probe=probe)
    assert asked == ["127.0.0.1:6379"] * (3 + HEAD_MISSES)
    assert trio.current_time() == pytest.approx((3 + HEAD_MISSES) * HEAD_LOOK_SECONDS)
