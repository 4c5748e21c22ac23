"""What crashing engines leave on a tournament's driver, game after game.

    python bench/tournament_leftovers.py [--games N] [--children C] [--daemons D]
        [--concurrency K]

Runs ``bughouse tournament`` (a child process, the driver) between the random
mover and ``tests/forking_engine.py``, which forks C sleeping children and D
double-forked daemons on its first turn of every game and exits (a crash;
``--max-failures`` is set high, so it is never dropped). After each game's
progress line it counts the driver's zombie children and the daemons of
the games so far that are still alive, and prints them; then the figures
after the last game and after the driver exited.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "tests" / "forking_engine.py"


def zombie_children(parent: int) -> int:
    """Zombies whose parent is ``parent``."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2 :].split()
        if fields[0] == b"Z" and int(fields[1]) == parent:
            count += 1
    return count


def alive(pids: list[int]) -> int:
    """How many of ``pids`` still run (not zombies)."""
    count = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue
        if data[data.rfind(b")") + 2 :].split()[0] != b"Z":
            count += 1
    return count


def daemons(record: Path) -> list[int]:
    try:
        return [int(line) for line in record.read_text().split()]
    except (OSError, ValueError):
        return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--children", type=int, default=50)
    parser.add_argument("--daemons", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "daemons.txt"
        bad = (
            f"{sys.executable} {ENGINE} {record} --children {args.children} "
            f"--daemons {args.daemons}"
        )
        argv = [
            sys.executable, "-m", "bughouse_arbiter", "tournament",
            "--engine", "r=random", "--engine", f"bad={bad}",
            "--games", str(args.games), "--tc", "5+0", "--rule", "max_plies=40",
            "--max-failures", str(10 * args.games), "--concurrency", str(args.concurrency),
            "--out", str(Path(folder) / "t"),
        ]  # fmt: skip
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        driver = subprocess.Popen(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert driver.stdout is not None
        zombies = live = 0
        print(f"{'game':>5} {'zombies':>8} {'daemons alive':>14}")
        for line in driver.stdout:
            if not line.startswith("game "):
                continue
            zombies, live = zombie_children(driver.pid), alive(daemons(record))
            print(f"{line.split()[1]:>5} {zombies:>8} {live:>14}", flush=True)
        driver.wait()
        started = daemons(record)
        print(
            f"after {args.games} games ({args.children} children and {args.daemons} daemons "
            f"per crash): {zombies} zombies on the driver, {live} of {len(started)} daemons "
            f"alive; after the driver exited: {alive(started)} daemons alive"
        )
        for pid in started:  # the driver's end may have missed some: leave nothing behind
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
    return 0


if __name__ == "__main__":
    sys.exit(main())
