#!/usr/bin/env python3
"""``bughouse match`` against the minimal relay, as the engines see them.

    python bench/relay_ratio.py [--rounds 3] [--games 2] [--max-plies 800] [--long 8000]
                                [--without record|observer] [--relay-record]

Both harnesses seat the same four instant engines (``bench/floor/instant_engine.py``,
native protocol) and are run as subprocesses of this script, in alternating
runs. ``bughouse match`` runs its real command-line path: the observer on, a
BPGN file written, the display in its one-line-per-move form (the output is a
file, not a terminal). The minimal relay (``bench/floor/minimal_relay.py``) is
the floor for a Python harness: one legality check per move and nothing else.

Every figure comes from stamps the engines take themselves
(``bench/floor/stamps.py``): the hop from a mover writing ``bestmove`` to the
next player on that board reading ``go`` (pipes and scheduling included),
plies per second of play, and the harness's own CPU (its main thread's on-CPU
time from /proc, read by an engine at the first ``go`` and at ``gameover``).

Then ``--long`` plies of one game per harness with the engines shuffling their
knights (no captures, so the game runs to the ply cap): the harness's CPU per
ply and the hop around ply ~100 and around the end, to see whether the cost of
a ply grows with the length of the game.

It prints the medians over the rounds and the three ratios with their goals
(plies/s >= 0.8x the relay, CPU per ply <= 1.3x, hop <= 1.3x), each ratio
with a 90% interval from resampling the rounds (paired: a round's two runs
stay together). A goal reads "met" only when the whole interval meets it,
"NOT met" when none of it does, and "within the noise" otherwise: on a
loaded machine one run's ratio moves by a tenth. Nothing is asserted; the
machine's load moves every figure, hence the alternation. Below the table,
for reference, each goal's ratio again as the median of the rounds' own
ratios, with its interval: a round's two runs are back to back, so a slow
spell of the machine, which slows both, leaves that figure alone.

``--relay-record`` has the relay write a line per move to a file, one write
a move, as the match writes its BPGN file (each move in the kernel's hands
as it is played): the one part of the match's observer whose cost is the
kernel's, on both sides. The goals are set against the bare relay; this is
for weighing that write.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FLOOR = HERE / "floor"
ENGINE = FLOOR / "instant_engine.py"
SEATS = ("A-white", "A-black", "B-white", "B-black")

sys.path.insert(0, str(FLOOR))
import stamps  # noqa: E402


def relay_argv(games: int, max_plies: int, tc: float, record: Path | None = None) -> list[str]:
    """``record``: a file the relay writes a line to as each move is played."""
    each_move = ["--record", str(record), "--record-each-move"] if record is not None else []
    return [
        sys.executable,
        str(FLOOR / "minimal_relay.py"),
        "--games",
        str(games),
        "--max-plies",
        str(max_plies),
        "--tc",
        f"{tc:g}",
        "--quiet",
        *each_move,
    ]


def match_argv(
    games: int, max_plies: int, tc: float, out: Path, without: str | None = None
) -> list[str]:
    engine = f"{sys.executable} {ENGINE}"
    if without is None:
        argv = [sys.executable, "-m", "bughouse_arbiter", "match"]
    else:
        argv = [sys.executable, str(FLOOR / "bughouse_without.py"), without, "match"]
    for seat in SEATS:
        argv += ["--engine", f"{seat}={engine}"]
    return [
        *argv,
        "--tc",
        f"{tc:g}+0",
        "--rule",
        f"max_plies={max_plies}",
        "--games",
        str(games),
        "--out",
        str(out),
    ]


def run(
    kind: str,
    games: int,
    max_plies: int,
    tc: float,
    env: dict[str, str],
    tree: Path = ROOT,
    without: str | None = None,
    relay_record: bool = False,
) -> dict:
    """One run of one harness; the engines' stamps, loaded.

    ``relay_record``: the relay writes its record line per move too (``--relay-record``).
    """
    with tempfile.TemporaryDirectory(prefix=f"ratio-{kind}-") as folder:
        work = Path(folder)
        if kind == "relay":
            argv = relay_argv(games, max_plies, tc, work / "relay.txt" if relay_record else None)
        else:
            argv = match_argv(games, max_plies, tc, work / "games.bpgn", without)
        env = {
            **os.environ,
            **env,
            "INSTANT_LOG_DIR": folder,
            "PYTHONPATH": str(tree),
        }
        with open(work / "stdout", "wb") as out:
            done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, env=env, cwd=folder)
        if done.returncode != 0:
            sys.exit(f"{kind} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        figures = stamps.load(folder)
        figures.update(windows(folder))
        if kind == "match" and (work / "games.bpgn").exists():
            figures["bpgn_bytes"] = (work / "games.bpgn").stat().st_size
            figures["display_lines"] = (work / "stdout").read_bytes().count(b"\n")
        return figures


def windows(folder: str) -> dict[str, float]:
    """Harness CPU per ply and hop median between the INSTANT_CPU_AT checkpoints."""
    marks: dict[int, tuple[float, float]] = {}
    bms: list[tuple[float, str, int]] = []
    gos: dict[str, list[tuple[float, int]]] = {"a": [], "b": []}
    for path in glob.glob(os.path.join(folder, "eng-*.json")):
        with open(path) as fh:
            data = json.load(fh)
        for v, _t, cpu, run_s in data.get("cpu_marks", []):
            marks.setdefault(v, (cpu, run_s))
        for kind, board, v, t in data["stamps"]:
            if kind == "bm":
                bms.append((t, board, v))
            else:
                gos[board].append((t, v))
    for board in gos:
        gos[board].sort()
    result: dict[str, float] = {}
    points = sorted(marks)
    for low, high in zip(points[::2], points[1::2], strict=False):
        run_ms = (marks[high][1] - marks[low][1]) / (high - low) * 1e3
        hops = []
        for t, board, v in bms:
            if low <= v < high:
                later = [gt for gt, gv in gos[board] if gv > v and gt >= t]
                if later:
                    hops.append(min(later) - t)
        result[f"run_ms_per_ply@{low}-{high}"] = run_ms
        if hops:
            result[f"hop_ms@{low}-{high}"] = statistics.median(hops) * 1e3
    return result


def median_of(runs: list[dict], key: str) -> float:
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else float("nan")


def paired(match: list[dict], relay: list[dict], key: str) -> list[tuple[float, float]]:
    """Each round's (match, relay) figures for ``key``."""
    return [(m[key], r[key]) for m, r in zip(match, relay, strict=True) if key in m and key in r]


def ratio_of_medians(pairs: list[tuple[float, float]]) -> float:
    below = statistics.median(r for _, r in pairs)
    return statistics.median(m for m, _ in pairs) / below if below else math.inf


def median_of_ratios(pairs: list[tuple[float, float]]) -> float:
    return statistics.median(m / r if r else math.inf for m, r in pairs)


def ratio_interval(
    pairs: list[tuple[float, float]],
    statistic: Callable[[list[tuple[float, float]]], float] = ratio_of_medians,
    draws: int = 2000,
) -> tuple[float, float]:
    """A 90% interval of ``statistic`` over the rounds' ``pairs``: the rounds
    resampled with replacement (a round's match and relay runs together)."""
    if len(pairs) < 2:
        return float("nan"), float("nan")
    rng = random.Random(0)
    ratios = sorted(statistic(rng.choices(pairs, k=len(pairs))) for _ in range(draws))
    return ratios[int(0.05 * draws)], ratios[int(0.95 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating pairs of runs")
    parser.add_argument("--games", type=int, default=2, help="games per run")
    parser.add_argument("--max-plies", type=int, default=800)
    parser.add_argument("--tc", type=float, default=600.0, help="seconds a player")
    parser.add_argument(
        "--long", type=int, default=8000, help="plies of the length run (0: skip it)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--tree",
        type=Path,
        default=ROOT,
        help="run bughouse match from this checkout (e.g. an older commit's, to compare)",
    )
    parser.add_argument(
        "--without",
        choices=("record", "observer"),
        help="to weigh the observer: match's BPGN writer (record) or writer and display "
        "(observer) hear nothing (bench/floor/bughouse_without.py)",
    )
    parser.add_argument(
        "--relay-record",
        action="store_true",
        help="the relay writes a line per move to a file, one write a move, as the match "
        "writes its BPGN file (minimal_relay.py --record --record-each-move)",
    )
    args = parser.parse_args()
    for option, value in (
        ("--rounds", args.rounds),
        ("--games", args.games),
        ("--max-plies", args.max_plies),
    ):
        if value < 1:
            parser.error(f"{option}: at least 1, not {value}")
    if not (args.tc > 0 and math.isfinite(args.tc)):
        parser.error(f"--tc: seconds above 0, not {args.tc:g}")
    if args.long and args.long < 400:
        # Its two windows, plies 50-150 and the last 200-100, must not meet.
        parser.error("--long: at least 400 plies (or 0 to skip the length run)")
    without = f" without its {args.without}" if args.without else ""
    print(f"bughouse match{without} from {args.tree}")
    if args.relay_record:
        print("the relay writes a record line per move, one write a move (--relay-record)")

    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs")
    runs: dict[str, list[dict]] = {"match": [], "relay": []}
    for number in range(args.rounds):
        order = ("match", "relay") if number % 2 == 0 else ("relay", "match")
        for kind in order:
            env = {"INSTANT_SEED": str(args.seed + number)}
            started = time.perf_counter()
            figures = run(
                kind,
                args.games,
                args.max_plies,
                args.tc,
                env,
                args.tree,
                args.without,
                args.relay_record,
            )
            runs[kind].append(figures)
            print(
                f"  round {number + 1} {kind:5}: {figures['plies']} plies, "
                f"{figures['plies_per_s']:.0f} plies/s, "
                f"CPU {figures['harness_play_run_ms_per_ply']:.3f} ms/ply, "
                f"hop {figures['hop_median_ms']:.3f} ms "
                f"({time.perf_counter() - started:.1f} s)",
                flush=True,
            )

    rows = (
        ("plies/s in play", "plies_per_s", ">= 0.8x", lambda r: r >= 0.8),
        ("harness CPU per ply (ms)", "harness_play_run_ms_per_ply", "<= 1.3x", lambda r: r <= 1.3),
        ("bestmove -> go hop, median (ms)", "hop_median_ms", "<= 1.3x", lambda r: r <= 1.3),
        ("bestmove -> go hop, p90 (ms)", "hop_p90_ms", "", None),
        ("harness context switches per ply", "harness_play_vcsw_per_ply", "", None),
        ("engine wake-ups per ply", "engine_wakeups_per_ply", "", None),
    )
    print()
    print(f"{'figure':34} {'match':>9} {'relay':>9} {'ratio':>7}  {'90% interval':13} goal")
    for title, key, goal, ok in rows:
        match, relay = median_of(runs["match"], key), median_of(runs["relay"], key)
        ratio = match / relay if relay else float("nan")
        low, high = ratio_interval(paired(runs["match"], runs["relay"], key))
        if ok is None:
            verdict = ""
        elif ok(low) and ok(high):
            verdict = "  met"
        elif not (ok(low) or ok(high)):
            verdict = "  NOT met"
        else:
            verdict = f"  within the noise ({'met' if ok(ratio) else 'not met'} by the median)"
        interval = f"{low:.2f}-{high:.2f}"
        print(f"{title:34} {match:9.3f} {relay:9.3f} {ratio:7.2f}  {interval:13} {goal}{verdict}")
    # A round's two runs are back to back, so a slow spell of the machine
    # slows both: the median of the rounds' own ratios leaves it out.
    print()
    print("the same ratios as the median of each round's own ratio (not used for the verdicts):")
    for title, key, _goal, ok in rows:
        pairs = paired(runs["match"], runs["relay"], key)
        if ok is None or len(pairs) < 2:
            continue
        low, high = ratio_interval(pairs, median_of_ratios)
        print(f"{title:34} {median_of_ratios(pairs):7.2f}  {low:.2f}-{high:.2f}")

    if args.long:
        early = (50, 150)
        late = (args.long - 200, args.long - 100)
        print()
        print(f"one game of {args.long} plies, knights shuffling")
        keys = [f"@{early[0]}-{early[1]}", f"@{late[0]}-{late[1]}"]
        for kind in ("match", "relay"):
            # A knight's check can still end a game early: then another seed.
            for seed in range(args.seed, args.seed + 5):
                env = {
                    "INSTANT_MODE": "shuffle",
                    "INSTANT_SEED": str(seed),
                    "INSTANT_CPU_AT": ",".join(str(v) for v in (*early, *late)),
                }
                figures = run(
                    kind,
                    1,
                    args.long,
                    args.tc * 10,
                    env,
                    args.tree,
                    args.without,
                    args.relay_record,
                )
                if f"run_ms_per_ply{keys[1]}" in figures:
                    break
            cpu = [figures.get(f"run_ms_per_ply{k}", float("nan")) for k in keys]
            hop = [figures.get(f"hop_ms{k}", float("nan")) for k in keys]
            print(
                f"  {kind:5}: {figures['plies']} plies; CPU per ply {cpu[0]:.3f} ms at ply "
                f"{early[0]}-{early[1]}, {cpu[1]:.3f} ms at ply {late[0]}-{late[1]} "
                f"(x{cpu[1] / cpu[0]:.2f}); hop {hop[0]:.3f} -> {hop[1]:.3f} ms "
                f"(x{hop[1] / hop[0]:.2f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
