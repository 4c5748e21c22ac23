"""Figures for the native protocol: codec speed, transport throughput and latency.

Run ``python bench/protocol.py``. It prints:

- how many engine lines per second ``EngineSession`` turns into events, and how
  many commands per second it formats;
- how fast ``EngineProcess`` drains a flooding child (MB/s) while nobody reads;
- the round-trip time of ``isready`` -> ``readyok`` through the whole stack
  (``NativeEnginePlayer`` barrier excluded: raw lines over ``EngineProcess``)
  against ``engines/random_mover.py``, and of ``go`` -> ``bestmove``.

No figure is asserted anywhere; they depend on the machine and its load.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.core.model import BoardId, Seat  # noqa: E402
from bughouse_arbiter.players.process import open_engine_process  # noqa: E402
from bughouse_arbiter.protocol import (  # noqa: E402
    NEED_DATA,
    Bug,
    EngineSession,
    MoveEvent,
    NewGame,
    State,
)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
RANDOM = [sys.executable, str(ROOT / "engines" / "random_mover.py"), "--seed", "1"]


def bench_codec() -> None:
    session = EngineSession()
    session.send(Bug())
    session.receive_data(b"bugok\n")
    session.next_event()
    session.send(NewGame(game_id="b", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0))
    lines = b"".join(
        b"info depth %d score cp 12 nodes 4000 pv e2e4 e7e5 g1f3\n" % i for i in range(50_000)
    )
    started = time.perf_counter()
    session.receive_data(lines)
    count = 0
    while session.next_event() is not NEED_DATA:
        count += 1
    elapsed = time.perf_counter() - started
    print(f"codec: {count / elapsed:,.0f} engine lines/s parsed into events")

    commands = [
        State(version=3, fen_a=START, fen_b=START, clocks=(1, 2, 3, 4)),
        MoveEvent(version=4, board=BoardId.B, move="e4d5", passed="p", clocks=(1, 2, 3, 4)),
    ]
    started = time.perf_counter()
    for _ in range(20_000):
        for command in commands:
            session.send(command)
    elapsed = time.perf_counter() - started
    print(f"codec: {40_000 / elapsed:,.0f} commands/s formatted (state and event lines)")


async def bench_flood() -> None:
    megabytes = 50
    code = (
        "import sys\n"
        "line = 'info ' + 'x' * 1019 + '\\n'\n"
        f"for _ in range({megabytes}):\n"
        "    sys.stdout.write(line * 1024)\n"
        "sys.stdout.flush()\n"
    )
    async with open_engine_process([sys.executable, "-c", code]) as engine:
        started = trio.current_time()
        lines = 0
        while await engine.receive() is not None:
            lines += 1
        elapsed = trio.current_time() - started
    print(f"transport: {megabytes / elapsed:,.0f} MB/s drained ({lines:,} lines, all delivered)")


async def bench_latency() -> None:
    async with open_engine_process(RANDOM) as engine:
        engine.send("bug 1")
        while (line := await engine.receive()) is not None and line.text != "bugok":
            pass
        round_trips = []
        for _ in range(300):
            started = trio.current_time()
            engine.send("isready")
            while (line := await engine.receive()) is not None and line.text != "readyok":
                pass
            round_trips.append(trio.current_time() - started)
        engine.send("newgame id b seat a-white time 60000 inc 0")
        moves = []
        for turn in range(1, 101):
            started = trio.current_time()
            engine.send(f"state v 0 a {START} b {START} clock 60000 60000 60000 60000")
            engine.send(f"go v 0 turn {turn} board a")
            while (line := await engine.receive()) is not None and not line.text.startswith(
                "bestmove"
            ):
                pass
            moves.append(trio.current_time() - started)
    _print_ms("transport: isready -> readyok round trip", round_trips)
    _print_ms("transport: state + go -> bestmove (random mover)", moves)


def _print_ms(label: str, values: list[float]) -> None:
    values = sorted(values)
    median = statistics.median(values) * 1000
    p95 = values[int(len(values) * 0.95)] * 1000
    print(f"{label}: median {median:.3f} ms, p95 {p95:.3f} ms ({len(values)} samples)")


def main() -> None:
    print(f"python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f}")
    bench_codec()
    trio.run(bench_flood)
    trio.run(bench_latency)


if __name__ == "__main__":
    main()
