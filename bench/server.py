#!/usr/bin/env python3
"""Benchmark: the per-move overhead of a TCP seat (``bughouse serve``) over a pipe seat.

    python bench/server.py [--games N] [--engine random] [--tls]

Plays ``--games`` matches between four instant engines (the random mover by
default) twice: once with B-White as an ordinary subprocess seat (pipes),
once with B-White played over loopback TCP through a real ``bughouse
connect`` process running the same engine. For every B-White move it takes
the time the arbiter charged (``MovePlayed.used``: from the moment the turn
opened to the moment the ``bestmove`` line was read by the arbiter's side),
and prints median and p99 for both, the difference (the overhead a TCP seat
adds: socket, the connect bridge's extra hop and process), and the measured
round-trips (``[%lag]``) median and p99. With ``--tls`` the TCP seat plays a
third time over TLS (``serve --certfile``, ``connect --tls --cafile``, a
certificate made by ``trustme``, the test extra), and its line is printed
too. The load average is printed as well, since other processes on the
machine move every figure. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.config.specs import builtin_engine  # noqa: E402
from bughouse_arbiter.core.model import SEATS, Seat  # noqa: E402
from bughouse_arbiter.core.rules import HouseRules  # noqa: E402
from bughouse_arbiter.net.tls import server_context  # noqa: E402
from bughouse_arbiter.players.base import Player  # noqa: E402
from bughouse_arbiter.players.factory import create_player  # noqa: E402
from bughouse_arbiter.serve.listener import TcpFrontEnd  # noqa: E402
from bughouse_arbiter.serve.remote import RemoteEnginePlayer, RemoteSeat  # noqa: E402
from bughouse_arbiter.serve.seam import LiveTable  # noqa: E402
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


def certificate(folder: Path) -> tuple[str, str, str]:
    """A CA file, and a certificate and key it signed for 127.0.0.1 (``trustme``)."""
    import trustme

    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1")
    paths = [folder / name for name in ("ca.pem", "cert.pem", "key.pem")]
    ca.cert_pem.write_to_path(str(paths[0]))
    issued.cert_chain_pems[0].write_to_path(str(paths[1]))
    issued.private_key_pem.write_to_path(str(paths[2]))
    return str(paths[0]), str(paths[1]), str(paths[2])


async def tcp_games(
    games: int, engine: str, tls: tuple[str, str, str] | None = None
) -> tuple[list[float], list[float]]:
    used: list[float] = []
    lags: list[float] = []
    async with trio.open_nursery() as home:
        remote = RemoteSeat(MEASURED, grace=30.0)
        player = RemoteEnginePlayer(remote, home)
        table = LiveTable(RULES, {MEASURED: remote}, names=dict, log=lambda _: None)
        context = None if tls is None else server_context(tls[1], tls[2])
        front = TcpFrontEnd("127.0.0.1", 0, tls=context)
        await home.start(front.serve, table)
        argv = [sys.executable, "-m", "bughouse_arbiter", "connect", f"127.0.0.1:{front.port}"]
        if tls is not None:
            argv += ["--cafile", tls[0]]
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


async def main(games: int, engine: str, with_tls: bool) -> None:
    pipe = await pipe_games(games, engine)
    tcp, lags = await tcp_games(games, engine)
    runs = [("pipe seat", pipe, []), ("tcp seat", tcp, lags)]
    if with_tls:
        with tempfile.TemporaryDirectory() as folder:
            runs.append(("tls seat", *await tcp_games(games, engine, certificate(Path(folder)))))
    print(f"engine {engine}, {games} games per transport, seat {MEASURED}")
    for name, values, _ in runs:
        print(
            f"{name:10} moves {len(values):5}  median {ms(statistics.median(values))}"
            f"  p99 {ms(percentile(values, 0.99))}"
        )
    for name, values, _ in runs[1:]:
        print(
            f"{name[:3]} overhead median {ms(statistics.median(values) - statistics.median(pipe))}"
            f"  p99 {ms(percentile(values, 0.99) - percentile(pipe, 0.99))}"
        )
    for name, _, rtts in runs[1:]:
        if rtts:
            print(
                f"{name[:3]} ping rtt samples {len(rtts):5}  median {ms(statistics.median(rtts))}"
                f"  p99 {ms(percentile(rtts, 0.99))}"
            )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--engine", default="random")
    parser.add_argument("--tls", action="store_true", help="also a TCP seat over TLS")
    args = parser.parse_args()
    trio.run(main, args.games, args.engine, args.tls)
