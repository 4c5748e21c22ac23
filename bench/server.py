#!/usr/bin/env python3
"""Benchmark: the per-move overhead of a TCP seat (``bughouse serve``) over a pipe seat.

    python bench/server.py [--games N] [--engine random]

Plays ``--games`` matches between four instant engines (the random mover by
default) twice: once with B-White as an ordinary subprocess seat (pipes),
once with B-White played over loopback TCP through a real ``bughouse
connect`` process running the same engine. For every B-White move it takes
the time the arbiter charged (``MovePlayed.used``: from the moment the turn
opened to the moment the ``bestmove`` line was read by the arbiter's side),
and prints median and p99 for both, the difference (the overhead a TCP seat
adds: socket, the connect bridge's extra hop and process), and the measured
round-trips (``[%lag]``) median and p99. The load average is printed too,
since other processes on the machine move every figure. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.config.specs import builtin_engine  # noqa: E402
from bughouse_arbiter.core.model import SEATS, Seat  # noqa: E402
from bughouse_arbiter.core.rules import HouseRules  # noqa: E402
from bughouse_arbiter.players.base import Player  # noqa: E402
from bughouse_arbiter.players.factory import create_player  # noqa: E402
from bughouse_arbiter.server.listener import TcpFrontEnd  # noqa: E402
from bughouse_arbiter.server.remote import RemoteEnginePlayer, RemoteSeat  # noqa: E402
from bughouse_arbiter.server.seam import LiveTable  # noqa: E402
from bughouse_arbiter.table.arbiter import MatchEvent, MovePlayed, run_match  # noqa: E402

MEASURED = Seat.B_WHITE
RULES = HouseRules(time=600.0, max_plies=300)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def pipe_games(games: int, engine: str) -> list[float]:
    used: list[float] = []
    for _ in range(games):
        players = [create_player(seat, builtin_engine(engine)) for seat in SEATS]
        await run_match(players, RULES, observer=collect(used))
    return used


async def tcp_games(games: int, engine: str) -> tuple[list[float], list[float]]:
    used: list[float] = []
    lags: list[float] = []
    async with trio.open_nursery() as home:
        remote = RemoteSeat(MEASURED, grace=30.0)
        player = RemoteEnginePlayer(remote, home)
        table = LiveTable(RULES, {MEASURED: remote}, names=dict, log=lambda _: None)
        front = TcpFrontEnd("127.0.0.1", 0)
        await home.start(front.serve, table)
        argv = [sys.executable, "-m", "bughouse_arbiter", "connect", f"127.0.0.1:{front.port}"]
        argv += ["--seat", MEASURED.slug, f"--token={table.tokens[MEASURED]}", "--", engine]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        client = await trio.lowlevel.open_process(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        await remote.wait_ready()
        for _ in range(games):
            others = [create_player(s, builtin_engine(engine)) for s in SEATS if s is not MEASURED]
            players: list[Player] = [player, *others]

            def observe(event: MatchEvent) -> None:
                collect(used)(event)
                if isinstance(event, MovePlayed) and event.played.seat is MEASURED:
                    lag = player.move_lag.pop(MEASURED, None)
                    if lag is not None:
                        lags.append(lag)

            await run_match(players, RULES, observer=observe)
        await player.shutdown()
        with trio.move_on_after(5):
            await client.wait()
        home.cancel_scope.cancel()
    return used, lags


def collect(used: list[float]):  # type: ignore[no-untyped-def]
    def observe(event: MatchEvent) -> None:
        if isinstance(event, MovePlayed) and event.played.seat is MEASURED:
            used.append(event.used)

    return observe


def ms(value: float) -> str:
    return f"{value * 1000:.2f} ms"


async def main(games: int, engine: str) -> None:
    pipe = await pipe_games(games, engine)
    tcp, lags = await tcp_games(games, engine)
    print(f"engine {engine}, {games} games per transport, seat {MEASURED}")
    for name, values in (("pipe seat", pipe), ("tcp seat", tcp)):
        print(
            f"{name:10} moves {len(values):5}  median {ms(statistics.median(values))}"
            f"  p99 {ms(percentile(values, 0.99))}"
        )
    print(
        f"overhead   median {ms(statistics.median(tcp) - statistics.median(pipe))}"
        f"  p99 {ms(percentile(tcp, 0.99) - percentile(pipe, 0.99))}"
    )
    if lags:
        print(
            f"ping rtt   samples {len(lags):5}  median {ms(statistics.median(lags))}"
            f"  p99 {ms(percentile(lags, 0.99))}"
        )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--engine", default="random")
    args = parser.parse_args()
    trio.run(main, args.games, args.engine)
