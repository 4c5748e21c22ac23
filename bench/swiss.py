"""How long one Swiss round takes to pair (``events.pairings.swiss``), at the server's
largest event: random events of ``--teams`` teams over ``--rounds`` rounds, each
match won by a random side. Prints the total, the slowest round and the median
round (ms), and the load average.

    python bench/swiss.py --events 20 --teams 32 --rounds 20
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from bughouse_arbiter.events.pairings import swiss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--teams", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    times: list[float] = []
    repeats = 0
    for _ in range(args.events):
        seeds = [f"T{i}" for i in range(1, args.teams + 1)]
        points: dict[str, float] = {}
        played: set[frozenset[str]] = set()
        byes: set[str] = set()
        for _ in range(args.rounds):
            began = time.perf_counter()
            pairs = swiss(seeds, points, played, byes)
            times.append(time.perf_counter() - began)
            for a, b in pairs:
                if b is None:
                    byes.add(a)
                    points[a] = points.get(a, 0.0) + 2
                    continue
                repeats += frozenset((a, b)) in played
                played.add(frozenset((a, b)))
                winner = a if rng.random() < 0.5 else b
                points[winner] = points.get(winner, 0.0) + 2
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{args.events} events x {args.rounds} rounds of {args.teams} teams: "
        f"total {sum(times):.2f} s, slowest round {max(times) * 1000:.1f} ms, "
        f"median round {statistics.median(times) * 1000:.1f} ms, "
        f"repeat pairings {repeats} (load average {load})"
    )


if __name__ == "__main__":
    main()
