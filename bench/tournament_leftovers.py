"""What crashing engines leave on a tournament's driver, game after game.

    python bench/tournament_leftovers.py [--games N] [--children C] [--daemons D]
        [--concurrency K] [--ray ADDRESS]

Runs ``bughouse tournament`` (a child process, the driver) between the random
mover and ``tests/forking_engine.py``, which forks C sleeping children and D
double-forked daemons on its first turn of every game and exits (a crash;
``--max-failures`` is set high and ``--recover`` given, so it is never
dropped nor stops the run). After each game's progress line it counts
the driver's zombie children and the daemons of the games so far that are
still alive, and prints them; then the figures
after the last game and after the driver exited. With ``--ray`` (``local``,
or a cluster's address on this machine) the games are played by Ray tables,
and the zombies counted are those of the Ray workers (``ray::`` processes).
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


def ray_workers() -> set[int]:
    """The pids of this machine's Ray worker processes."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if cmdline.read().startswith(b"ray::"):
                        found.add(int(entry))
            except OSError:
                continue
    return found


def zombie_children(parents: set[int]) -> int:
    """Zombies whose parent is one of ``parents``."""
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
        if fields[0] == b"Z" and int(fields[1]) in parents:
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
    parser.add_argument("--ray", metavar="ADDRESS", help="play on Ray (local, or HOST:PORT)")
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
            "--max-failures", str(10 * args.games), "--recover",
            "--concurrency", str(args.concurrency), "--out", str(Path(folder) / "t"),
        ]  # fmt: skip
        if args.ray:
            argv += ["--ray", args.ray]
        elif args.concurrency > 1:  # the games share cores here: measured as they are
            argv += ["--force-concurrency"]
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
            parents = ray_workers() if args.ray else {driver.pid}
            zombies, live = zombie_children(parents), alive(daemons(record))
            print(f"{line.split()[1]:>5} {zombies:>8} {live:>14}", flush=True)
        driver.wait()
        started = daemons(record)
        where = "Ray workers" if args.ray else "driver"
        print(
            f"after {args.games} games ({args.children} children and {args.daemons} daemons "
            f"per crash): {zombies} zombies on the {where}, {live} of {len(started)} daemons "
            f"alive; after the driver exited: {alive(started)} daemons alive"
        )
        for pid in started:  # the driver's end may have missed some: leave nothing behind
            with contextlib.suppress(OSError):
                os.kill(pid, 9)
    return 0


if __name__ == "__main__":
    sys.exit(main())
