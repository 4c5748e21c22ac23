#!/usr/bin/env python3
"""Start-up time of the ``bughouse`` command, against bare Python and ``import chess``.

    python bench/startup.py [--runs 21]

Runs each command ``--runs`` times as a fresh process, in turn (so the
machine's load falls on all of them alike), and prints the median and the
fastest wall time of each (and the median CPU time, user+sys, which other
load on the machine moves less), with the ratios the goals are stated in:
``bughouse --help`` <= 120 ms, ``bughouse position FEN --json`` <= 1.3x
``python -c "import chess"``. The ``bughouse`` script next to this Python is
used when there is one (the console entry point users run), else
``python -m bughouse_arbiter``; either way the package is imported from this
checkout (PYTHONPATH). Nothing is asserted.

Every command runs with its modules' bytecode cached, as after ``pip
install`` (which compiles it): the runs write and read it under a temporary
``PYTHONPYCACHEPREFIX`` (the checkout is left alone), with
``PYTHONDONTWRITEBYTECODE`` lifted, after one untimed run of each command.
Otherwise a shell that sets ``PYTHONDONTWRITEBYTECODE`` compiles this
package from source on every run while python-chess loads its installed
bytecode, which is not the comparison the goal means. ``--no-bytecode``
measures that uncached case.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pn] w KQkq - 2 3"


def bughouse() -> list[str]:
    script = Path(sys.executable).with_name("bughouse")
    if script.is_file():
        return [sys.executable, str(script)]
    return [sys.executable, "-m", "bughouse_arbiter"]


def commands() -> dict[str, list[str]]:
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import chess'": [sys.executable, "-c", "import chess"],
        "python -c 'import trio'": [sys.executable, "-c", "import trio"],
        "bughouse --help": [*bughouse(), "--help"],
        "bughouse match --help": [*bughouse(), "match", "--help"],
        "bughouse position FEN --json": [*bughouse(), "position", FEN, "--json"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument(
        "--tree", type=Path, default=ROOT, help="import bughouse_arbiter from this checkout"
    )
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run as the environment says (PYTHONDONTWRITEBYTECODE: no bytecode written)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-startup-pyc-") as cache:
        env = {**os.environ, "PYTHONPATH": str(args.tree)}
        if not args.no_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        measure(args.runs, env, cached=not args.no_bytecode)


def measure(runs: int, env: dict[str, str], *, cached: bool) -> None:
    todo = commands()
    if cached:
        for argv in todo.values():  # writes the bytecode of everything each command imports
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
    times: dict[str, list[float]] = {name: [] for name in todo}
    cpu: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(runs):
        for name, argv in todo.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode != 0:
                sys.exit(f"{name} failed with status {done.returncode}")
    load = os.getloadavg()
    how = "bytecode cached" if cached else "bytecode as the environment says"
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {runs} runs each; {how}")
    median = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    cpu_median = {name: statistics.median(values) * 1e3 for name, values in cpu.items()}
    for name, values in times.items():
        print(
            f"  {name:32} median {median[name]:7.1f} ms   fastest {min(values) * 1e3:7.1f} ms"
            f"   CPU median {cpu_median[name]:6.1f} ms"
        )
    help_ms = median["bughouse --help"]
    ratio = median["bughouse position FEN --json"] / median["python -c 'import chess'"]
    bare = median["python -c pass"]
    print(
        f"bughouse --help: {help_ms:.0f} ms, {help_ms / bare:.2f}x python -c pass (goal <= 120 ms)"
    )
    print(f"bughouse position FEN --json / import chess: {ratio:.2f}x (goal <= 1.3x)")
    cpu_ratio = cpu_median["bughouse position FEN --json"] / cpu_median["python -c 'import chess'"]
    print(f"  the same in CPU time (user+sys; less moved by other load): {cpu_ratio:.2f}x")


if __name__ == "__main__":
    main()
