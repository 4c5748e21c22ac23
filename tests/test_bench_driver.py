"""``bench/driver.py``'s windows hold whole journal commits: a commit of
thousands of games, all shown at one moment, is timed from the commit before
it, never as the few microseconds between its games' display; its synthetic
backend keeps the games waiting for a commit few, so that a window's ends
are alike; and it prints its figures with and without the display."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "driver.py"


def _driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_driver", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_window_is_timed_from_commit_to_commit() -> None:
    driver = _driver()
    mark = driver.Mark
    # Commits of 10 games every 0.01 s, then one of 5,000 games that took 5 s,
    # then small ones again: 1 ms a game throughout.
    marks = [mark(0, 0.0, 0.0)]
    for _ in range(200):
        last = marks[-1]
        marks.append(mark(last.games + 10, last.wall + 0.01, last.cpu + 0.005))
    last = marks[-1]
    marks.append(mark(last.games + 5000, last.wall + 5.0, last.cpu + 2.5))
    for _ in range(200):
        last = marks[-1]
        marks.append(mark(last.games + 10, last.wall + 0.01, last.cpu + 0.005))
    windows = driver.honest_windows(marks, [1000, 1500, 6500], 1000)
    assert [(w.first.games, w.last.games, w.commits) for w in windows] == [
        (1000, 2000, 100),
        (1500, 7000, 51),  # the big commit inside, whole
        (7000, 8000, 100),
    ]
    for w in windows:
        assert w.wall_per_game() == pytest.approx(0.001)
        assert w.cpu_per_game() == pytest.approx(0.0005)
    # Marks that end before a window could: no window, rather than a short one.
    assert driver.honest_windows(marks[:50], [100], 1000) == []
    # Every game in one commit (all in flight at once): no window from game
    # 1,000 on, and from the start only the whole run.
    one = [mark(0, 0.0, 0.0), mark(0, 0.1, 0.1), mark(3000, 1.0, 0.9)]
    assert driver.honest_windows(one, [1000], 1000) == []
    [whole] = driver.honest_windows(one, [0], 1000)
    assert (whole.games, whole.wall_per_game()) == (3000, pytest.approx(1 / 3000))


async def test_the_synthetic_backend_keeps_the_games_waiting_for_a_commit_few(
    tmp_path: Path, autojump_clock: object
) -> None:
    import trio

    driver = _driver()
    jobs = list(driver.make_plan(50, tmp_path, False).jobs)
    waiting: list[str] = []
    shown: list[str] = []
    most = 0

    async def on_report(report: object) -> None:
        nonlocal most
        waiting.append(report.job_id)  # type: ignore[attr-defined]
        most = max(most, len(waiting))

    async def commits() -> None:  # as the journal's: every waiting game at once
        while True:
            await trio.sleep(0.01)
            shown.extend(waiting)
            waiting.clear()

    backend = driver.InstantScheduler(4, lambda: len(shown))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(commits)
        await backend.run(lambda: jobs.pop(0) if jobs else None, on_report)
        nursery.cancel_scope.cancel()
    assert most == 4 and len(shown) + len(waiting) == 50


def test_windows_are_ten_times_the_slots_and_fit_the_run() -> None:
    driver = _driver()
    assert driver.window_size(50) == 1000 and driver.window_size(1000) == 10_000
    assert driver.window_starts(100_000, 10_000, 1000) == [1000, 10_000, 50_000, 89_000]
    assert driver.window_starts(4000, 2000, 200) == [1000, 1800]
    assert driver.window_starts(2000, 2000, 200) == []


def _bench(tmp_path: Path, *options: str) -> str:
    command = [sys.executable, str(SCRIPT), "--games", "4000", "--dir", str(tmp_path), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    assert list(tmp_path.iterdir()) == []  # its folders removed
    return done.stdout


@pytest.mark.slow
def test_the_bench_prints_the_driver_alone_and_with_the_display(tmp_path: Path) -> None:
    out = _bench(tmp_path, "--slots", "200")
    alone, shown = out.split("-- the driver alone")[1].split("-- with the progress lines")
    for part in (alone, shown):
        assert "games/s" in part and " commits" in part and "µs a game wall" in part
        assert "load average " in part
    assert "report.html written" in shown and "report.html" not in alone
    assert "resume: 4000 games" in out
    # Every window holds ten times the slots, whole commits of 200 games at most.
    windows = re.findall(r"\((\d+) in (\d+) commits?\)", out)
    assert windows
    for games, commits in windows:
        assert int(games) >= 2000 and int(games) <= 200 * int(commits)
