#!/usr/bin/env python3
"""Start-up time of the ``bughouse`` command, against bare Python and ``import chess``.

    python bench/startup.py [--runs 21]

Runs each command ``--runs`` times as a fresh process, in turn (so the
machine's load falls on all of them alike), and prints the median and the
fastest wall time of each, with the ratios the goals are stated in:
``bughouse --help`` <= 120 ms, ``bughouse position FEN --json`` <= 1.3x
``python -c "import chess"``. The ``bughouse`` script next to this Python is
used when there is one (the console entry point users run), else
``python -m bughouse_arbiter``; either way the package is imported from this
checkout (PYTHONPATH). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
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
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.tree)}
    todo = commands()
    times: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(args.runs):
        for name, argv in todo.items():
            started = time.perf_counter()
            done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - started)
            if done.returncode != 0:
                sys.exit(f"{name} failed with status {done.returncode}")
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.runs} runs each")
    median = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    for name, values in times.items():
        print(f"  {name:32} median {median[name]:7.1f} ms   fastest {min(values) * 1e3:7.1f} ms")
    help_ms = median["bughouse --help"]
    ratio = median["bughouse position FEN --json"] / median["python -c 'import chess'"]
    bare = median["python -c pass"]
    print(
        f"bughouse --help: {help_ms:.0f} ms, {help_ms / bare:.2f}x python -c pass (goal <= 120 ms)"
    )
    print(f"bughouse position FEN --json / import chess: {ratio:.2f}x (goal <= 1.3x)")


if __name__ == "__main__":
    main()
