#!/usr/bin/env python3
"""What a ply costs the CPU, ``bughouse match`` against the minimal relay, under valgrind.

    python bench/footprint.py [--short 600] [--long 2600]

``bench/relay_ratio.py`` times the two harnesses; this counts what the time
is made of. Each harness plays one game of the four instant engines shuffling
their knights (no captures: the game runs to its ply cap) under
``valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes``, once to
``--short`` plies and once to ``--long``; the difference of the two, divided
by the plies between, is the harness's per-ply count of each event, start-up
left out. Only the harness runs under valgrind; the engines run natively.

Printed per ply: instructions (Ir), data reads and writes, first-level
instruction and data cache misses (I1mr, D1mr, D1mw), last-level misses,
conditional and indirect branches and their mispredictions (Bcm, Bim), and
a rough cycle estimate (Ir + 10 per first-level miss + 100 per last-level
miss + 15 per misprediction). valgrind's caches and branch predictor are
simulated, not this machine's: the ratios are the figures to read. Needs
``valgrind``; takes a few minutes. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FLOOR = HERE / "floor"
ENGINE = FLOOR / "instant_engine.py"
SEATS = ("A-white", "A-black", "B-white", "B-black")
EVENTS = (
    *("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"),
    *("Bc", "Bcm", "Bi", "Bim"),
)
TITLES = {
    "Ir": "instructions",
    "Dr": "data reads",
    "Dw": "data writes",
    "I1mr": "L1 instruction misses",
    "D1mr": "L1 data read misses",
    "D1mw": "L1 data write misses",
    "ILmr": "last-level instruction misses",
    "DLmr": "last-level data read misses",
    "DLmw": "last-level data write misses",
    "Bc": "conditional branches",
    "Bcm": "  mispredicted",
    "Bi": "indirect branches",
    "Bim": "  mispredicted",
}


def harness_argv(kind: str, plies: int, out: Path) -> list[str]:
    if kind == "relay":
        return [
            str(FLOOR / "minimal_relay.py"),
            "--games",
            "1",
            "--max-plies",
            str(plies),
            "--tc",
            "60000",
            "--quiet",
        ]
    engine = f"{sys.executable} {ENGINE}"
    argv = ["-m", "bughouse_arbiter", "match"]
    for seat in SEATS:
        argv += ["--engine", f"{seat}={engine}"]
    return [*argv, "--tc", "60000+0", "--rule", f"max_plies={plies}", "--out", str(out)]


def counts(kind: str, plies: int, seed: int) -> dict[str, int] | None:
    """The harness's event counts for one game of ``plies`` plies (None: it ended early)."""
    with tempfile.TemporaryDirectory(prefix=f"footprint-{kind}-") as folder:
        work = Path(folder)
        profile = work / "callgrind.out"
        argv = [
            "valgrind",
            "--tool=callgrind",
            "--cache-sim=yes",
            "--branch-sim=yes",
            f"--callgrind-out-file={profile}",
            sys.executable,
            *harness_argv(kind, plies, work / "game.bpgn"),
        ]
        env = {
            **os.environ,
            "INSTANT_MODE": "shuffle",
            "INSTANT_SEED": str(seed),
            "PYTHONPATH": str(ROOT),
        }
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=folder)
        if done.returncode != 0:
            sys.exit(f"{kind} failed ({done.returncode}): {done.stderr[-2000:]}")
        if kind == "relay":
            played = int(re.search(r'"plies": (\d+)', done.stdout).group(1))  # type: ignore[union-attr]
        else:
            played = done.stdout.count("\nply ")
        if played != plies:
            return None  # a knight's check ended the game early
        for line in profile.read_text().splitlines():
            if line.startswith("summary:"):
                return dict(zip(EVENTS, map(int, line.split()[1:]), strict=True))
    sys.exit(f"{kind}: no summary in callgrind's output")


def per_ply(kind: str, short: int, long: int) -> dict[str, float]:
    for seed in range(1, 8):
        low = counts(kind, short, seed)
        high = counts(kind, long, seed) if low is not None else None
        if low is not None and high is not None:
            return {event: (high[event] - low[event]) / (long - short) for event in EVENTS}
    sys.exit(f"{kind}: every seed ended a game before its ply cap")


def cycles(figures: dict[str, float]) -> float:
    first = figures["I1mr"] + figures["D1mr"] + figures["D1mw"]
    last = figures["ILmr"] + figures["DLmr"] + figures["DLmw"]
    return figures["Ir"] + 10 * first + 100 * last + 15 * (figures["Bcm"] + figures["Bim"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=600, help="plies of the shorter game")
    parser.add_argument("--long", type=int, default=2600, help="plies of the longer game")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("needs valgrind (apt-get install valgrind)")
    if args.long <= args.short:
        sys.exit("--long must be more plies than --short")
    match = per_ply("match", args.short, args.long)
    relay = per_ply("relay", args.short, args.long)
    print(f"per ply, plies {args.short} to {args.long}, knights shuffling")
    print(f"{'event':32} {'match':>10} {'relay':>10} {'ratio':>7}")
    for event in EVENTS:
        # A few per ply (last-level misses): too few for a ratio to mean anything.
        ratio = f"{match[event] / relay[event]:7.2f}" if relay[event] >= 100 else f"{'-':>7}"
        print(f"{TITLES[event]:32} {match[event]:10.0f} {relay[event]:10.0f} {ratio}")
    print(
        f"{'cycles, estimated':32} {cycles(match):10.0f} {cycles(relay):10.0f} "
        f"{cycles(match) / cycles(relay):7.2f}"
    )


if __name__ == "__main__":
    main()
