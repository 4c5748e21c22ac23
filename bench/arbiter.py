#!/usr/bin/env python3
"""Benchmark of the arbiter: throughput, overhead per move, flag latency, memory.

    python bench/arbiter.py [--matches N] [--flags N] [--engine random]

Part 1 plays ``--matches`` full matches between four instant engines (the
random mover by default) as real subprocesses, with every engine's protocol
log kept in memory. For each move it takes the moment the mover's
``bestmove`` line was read off its pipe and the moment the last ``event`` line
for that move was handed to the pipes of the other three engines (both as the
transport logs them, on trio's clock): the arbiter's overhead per move.

Part 2 measures flag latency, the time from a clock's deadline to the
arbiter declaring the flag: ``--flags`` matches between players that never
move (in-process, so only the arbiter's own wake-up is measured) at 0.05 s
per player, plus a few matches against the ``faulty-hang`` engine process.

``--flag-early 0`` turns off the arbiter's early wake-up before a deadline
(``FLAG_EARLY``), to compare with a plain ``trio.move_on_at``. It prints
plies per second, overhead median and p99 (and the part spent in
the arbiter itself, from taking the move off its channel to having told every
player), flag latency median and p99, the peak resident memory of this
process (the arbiter; engines are separate processes) and the load average,
since other processes on the machine move every figure. Nothing is asserted.

These are the arbiter's own stamps, on trio's clock: they stop when the last
``event`` is handed to a pipe, before the next turn's ``state`` and ``go`` are
written, and leave out the pipes and the observer (record, display). What an
engine sees, against the minimal relay, is ``bench/relay_ratio.py``.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import resource
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import trio

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.game import PlayedMove
from bughouse_arbiter.core.model import SEATS, Outcome, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import (
    Action,
    MatchInfo,
    Player,
    TableState,
)
from bughouse_arbiter.players.factory import create_player
from bughouse_arbiter.table import arbiter
from bughouse_arbiter.table.arbiter import run_match

_EVENT = re.compile(r" < event v (\d+) ")
_BESTMOVE = re.compile(r" > bestmove ")


class SilentPlayer(Player):
    """Holds a seat and never answers: its clock runs out."""

    def __init__(self, seat: Seat) -> None:
        self.seats = (seat,)
        self.name = "silent"

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self.actions = actions

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        pass

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        pass

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        pass

    async def partner_says(self, seat: Seat, text: str) -> None:
        pass

    async def game_over(self, outcome: Outcome) -> None:
        pass

    async def aclose(self) -> None:
        pass


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def throughput(
    matches: int, engine: str, tc: float
) -> tuple[int, float, list[float], list[float]]:
    plies = 0
    seconds = 0.0
    overheads: list[float] = []
    inside: list[float] = []
    rules = HouseRules(time=tc, max_plies=400)
    for number in range(matches):
        log: list[tuple[float, Seat, str]] = []

        def keeper(seat: Seat, log: list[tuple[float, Seat, str]] = log) -> Callable[[str], None]:
            def keep(line: str) -> None:
                log.append((trio.current_time(), seat, line))

            return keep

        spec = builtin_engine(engine).with_options(Seed=str(number))
        players = [create_player(seat, spec, log=keeper(seat)) for seat in SEATS]
        record = await run_match(players, rules, game_id=str(number))
        assert record.started is not None and record.ended is not None
        plies += record.game.plies
        seconds += record.ended - record.started
        overheads.extend(move_overheads(log, record.game.moves))
        inside.extend(record.overheads)
        print(
            f"  match {number + 1}/{matches}: {record.game.plies} plies, {record.outcome}",
            flush=True,
        )
    return plies, seconds, overheads, inside


def move_overheads(log: list[tuple[float, Seat, str]], moves: list[PlayedMove]) -> list[float]:
    """Per move: last ``event v N`` written to the other three minus its bestmove read."""
    last_bestmove: dict[Seat, float] = {}
    arrival: dict[int, float] = {}
    written: dict[int, dict[Seat, float]] = defaultdict(dict)
    for at, seat, line in log:
        if _BESTMOVE.search(line):
            last_bestmove[seat] = at
        elif match := _EVENT.search(line):
            version = int(match.group(1))
            if not 0 < version <= len(moves):
                continue
            mover = moves[version - 1].seat
            if version not in arrival and mover in last_bestmove:
                arrival[version] = last_bestmove[mover]
            if seat is not mover:
                written[version][seat] = at
    return [
        max(written[v].values()) - arrival[v]
        for v in arrival
        if len(written[v]) == 3 and max(written[v].values()) >= arrival[v]
    ]


async def flag_latency(matches: int, hang_matches: int) -> list[float]:
    latencies: list[float] = []
    rules = HouseRules(time=0.05)
    for _ in range(matches):
        record = await run_match([SilentPlayer(seat) for seat in SEATS], rules)
        latencies.extend(record.flag_latencies)
    hang = builtin_engine("faulty-hang")
    if Path(hang.command[1]).is_file():
        for _ in range(hang_matches):
            players = [create_player(seat, hang) for seat in SEATS]
            record = await run_match(players, HouseRules(time=0.5))
            latencies.extend(record.flag_latencies)
    return latencies


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--flags", type=int, default=200)
    parser.add_argument("--hang-matches", type=int, default=5)
    parser.add_argument("--engine", default="random")
    parser.add_argument("--tc", type=float, default=120.0)
    parser.add_argument(
        "--flag-early",
        type=float,
        default=arbiter.FLAG_EARLY,
        help="seconds the arbiter wakes before a deadline (default %(default)s)",
    )
    args = parser.parse_args()
    arbiter.FLAG_EARLY = args.flag_early

    print(f"part 1: {args.matches} matches of four '{args.engine}' engines", flush=True)
    wall = time.perf_counter()
    plies, seconds, overheads, inside = await throughput(args.matches, args.engine, args.tc)
    wall = time.perf_counter() - wall
    print(f"part 2: {args.flags} flag matches in-process + {args.hang_matches} vs faulty-hang")
    gc.collect()
    cpu = time.process_time()
    latencies = await flag_latency(args.flags, args.hang_matches)
    cpu = time.process_time() - cpu
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    print()
    print(f"plies played           {plies} in {seconds:.2f} s of play ({wall:.1f} s wall)")
    print(f"plies per second       {plies / seconds:.0f}")
    if overheads:
        print(
            f"overhead per move      median {statistics.median(overheads) * 1e3:.3f} ms, "
            f"p99 {percentile(overheads, 0.99) * 1e3:.3f} ms  ({len(overheads)} moves; "
            "bestmove read -> last event line to the other three)"
        )
    if inside:
        print(
            f"  of which the arbiter  median {statistics.median(inside) * 1e3:.3f} ms, "
            f"p99 {percentile(inside, 0.99) * 1e3:.3f} ms  (move taken off the action channel "
            "-> every player told)"
        )
    if latencies:
        print(
            f"flag latency           median {statistics.median(latencies) * 1e3:.3f} ms, "
            f"p99 {percentile(latencies, 0.99) * 1e3:.3f} ms, max {max(latencies) * 1e3:.3f} ms  "
            f"({len(latencies)} flags; waking {args.flag_early * 1e3:g} ms early)"
        )
        print(
            f"  arbiter CPU per flag  {cpu / len(latencies) * 1e3:.3f} ms  "
            "(the whole flag match: start, turns, the wait, the end)"
        )
    print(f"arbiter peak memory    {peak_kib / 1024:.1f} MiB (max RSS of this process)")
    load = os.getloadavg()
    print(
        f"load average           {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    trio.run(main)
