#!/usr/bin/env python3
"""Benchmark: one ``bughouse server`` process, many tables of instant bots, many spectators.

    python bench/server_scale.py [--tables 100] [--spectators 1000] [--games 1000]

Starts a real ``bughouse server --port 0 --line-port 0`` (its own process,
so its memory is read from /proc/PID/status VmRSS) and, in this process
(trio), plays every seat with an *instant bot* (``--think MS``: one that
waits before it answers): one task per line-lobby
connection that answers each ``go`` at once with a random legal move of its
board (python-chess, from the ``state`` line's FEN). Each table has one
``guest`` (it creates the table, sits, starts it and asks for every rematch)
and three ``bot`` connections the lobby seats when the table starts.
Spectators are WebSockets on ``/table/ID/ws`` (wsproto over trio), spread
evenly over the tables, in a process of their own (reading a thousand
sockets would otherwise delay the bots' answers).

Measured, on one clock (``time.perf_counter``: CLOCK_MONOTONIC, the same in
both processes):

- fan-out: a bot's ``bestmove`` written -> each spectator of that table
  receiving the first snapshot whose board holds that move;
- harness delay: a bot's ``bestmove`` written -> the next ``go`` on that
  board read by the player to move (what the server adds between two turns);
- server RSS at start, once the tables play, once the spectators watch, and
  every ``--every`` finished games: memory per table and per spectator.

A single-table run (one table with as many spectators as each table of the
scale run, or ``--solo-spectators``; its own server process) comes first, as
the baseline the delay is compared with.
The bench's two processes share the machine with the server: their CPU and
the load average are printed. Nothing is asserted; the figures are printed
as a table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import chess
import chess.variant
import trio
import wsproto
import wsproto.events as ws_events
from serving import Lines, ServerProcess, cpu_s, rss_kib

perf = time.perf_counter
#: Moves ``start`` to ``end`` of (table, game, board) reached a spectator at ``at``.
Arrival = tuple[str, int, str, int, int, float]
TC = "180+0"
#: ``--profile FILE``: the server runs under cProfile, its stats written to FILE on SIGUSR1.
PROFILED = """
import cProfile, os, signal, sys
out, sys.argv = sys.argv[1], ["bughouse", *sys.argv[2:]]
profile = cProfile.Profile()
def dump(*_):
    profile.disable()
    profile.dump_stats(out)
signal.signal(signal.SIGUSR1, dump)
from bughouse_arbiter.cli import main
profile.enable()
main()
"""


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))]






class Stats:
    """Everything the bots and spectators measure, keyed by (table, game, board)."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int, str], list[float]] = defaultdict(list)
        self.last_bm: dict[tuple[str, int, str], float] = {}
        self.delays: list[float] = []
        self.moves = 0
        self.games = 0
        self.game_done = trio.Event()
        self.stop_rematch = False
        #: Seconds a bot thinks before it answers (0: at once).
        self.think = 0.0

    def finished(self) -> None:
        self.games += 1
        self.game_done.set()
        self.game_done = trio.Event()


class Server(ServerProcess):
    """The scale run's server, under cProfile with ``profile`` (its stats written there)."""

    def __init__(self, folder: Path, pages: int, profile: str | None = None) -> None:
        command = ["-m", "bughouse_arbiter"] if profile is None else ["-c", PROFILED, profile]
        super().__init__(folder, pages, command)
        self.profile = profile

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            if self.profile is not None:
                self.process.send_signal(signal.SIGUSR1)
                await trio.sleep(3)
            self.process.terminate()
            with trio.move_on_after(10):
                await self.process.wait()
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()


async def instant_player(
    port: int, hello: str, stats: Stats, rng: random.Random, *,
    table_started: trio.Event | None = None, host_tc: str | None = None,
    created: list[str] | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:  # fmt: skip
    """One line-lobby connection played by an instant bot; a guest also hosts a table."""
    link = Lines(await trio.open_tcp_stream("127.0.0.1", port))
    await link.send(hello)
    answer = await link.readline()
    if answer is None or not answer.startswith("hello ok"):
        raise SystemExit(f"{hello!r} answered {answer!r}")
    table = ""
    if host_tc is not None:
        await link.send(f"create {host_tc}")
        line = await link.readline()
        if line is None or not line.startswith("created "):
            raise SystemExit(f"create answered {line!r}")
        table = line.split()[1]
        if created is not None:
            created.append(table)
        await link.send(f"sit {table} A-white", f"start {table}")
    task_status.started()
    game = 0
    fens: dict[str, str] = {}
    while True:
        line = await link.readline()
        if line is None:
            return
        word, _, rest = line.partition(" ")
        if word == "go":
            now = perf()
            f = rest.split()
            fields = dict(zip(f[0::2], f[1::2], strict=False))
            board = fields["board"]
            key = (table, game, board)
            bm = stats.last_bm.pop(key, None)
            if bm is not None:
                stats.delays.append(now - bm)
            position = chess.variant.CrazyhouseBoard(fens[board])
            legal = list(position.legal_moves)
            if not legal:
                await link.send(f"wait turn {fields['turn']} board {board}")
                continue
            move = rng.choice(legal).uci()
            if stats.think:
                await trio.sleep(stats.think * (0.5 + rng.random()))
            sent = perf()
            stats.last_bm[key] = sent
            stats.sent[key].append(sent)
            stats.moves += 1
            await link.send(f"bestmove {move} turn {fields['turn']} board {board}")
        elif word == "state":
            s = rest.split()
            fens["a"] = " ".join(s[3:9])
            fens["b"] = " ".join(s[10:16])
        elif word == "newgame":
            game = int(rest.split()[1].rsplit(".", 1)[1])
        elif word == "seated":
            table = rest.split()[0]
            if table_started is not None:
                table_started.set()
        elif word == "bug":
            await link.send("id name instant", "bugok")
        elif word == "isready":
            await link.send("readyok")
        elif word == "gameover" and host_tc is not None:
            stats.finished()
            if not stats.stop_rematch:
                await link.send(f"rematch {table}")
        elif word == "error" and rest.startswith("no game at"):
            raise SystemExit(f"rematch on gameover refused: {line}")


class Spectator:
    """A table page's WebSocket that only watches: each move's arrival is timed."""

    def __init__(self, stream: trio.SocketStream, table: str) -> None:
        self.stream = stream
        self.table = table
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.game = -1
        self.seen = {"A": 0, "B": 0}

    @classmethod
    async def open(cls, port: int, table: str) -> Spectator:
        spectator = cls(await trio.open_tcp_stream("127.0.0.1", port), table)
        request = ws_events.Request(
            host=f"127.0.0.1:{port}",
            target=f"/table/{table}/ws",
            extra_headers=[(b"origin", f"http://127.0.0.1:{port}".encode())],
        )
        await spectator.stream.send_all(spectator.ws.send(request))
        while True:
            for event in spectator.ws.events():
                if isinstance(event, ws_events.AcceptConnection):
                    return spectator
                raise SystemExit(f"/table/{table}/ws answered {event!r}")
            spectator.ws.receive_data(await spectator.stream.receive_some(65536) or None)

    async def watch(self, arrivals: list[Arrival]) -> None:
        text: list[str] = []
        while True:
            data = await self.stream.receive_some(65536)
            now = perf()
            self.ws.receive_data(data or None)
            for event in self.ws.events():
                if isinstance(event, ws_events.Ping):
                    await self.stream.send_all(self.ws.send(event.response()))
                elif isinstance(event, ws_events.TextMessage):
                    text.append(event.data)
                    if event.message_finished:
                        self.snapshot(json.loads("".join(text)), now, arrivals)
                        text = []
                elif isinstance(event, ws_events.CloseConnection):
                    return
            if not data:
                return

    def snapshot(self, data: dict[str, Any], now: float, arrivals: list[Arrival]) -> None:
        """Notes which moves (by index, per board) arrived with this snapshot, and when."""
        if data.get("type") != "state" or not data.get("boards"):
            return
        if self.game == -1:  # the moves played before it came are not fanned out to it
            self.game = data["game"]
            self.seen = {n: b["moves"]["count"] for n, b in data["boards"].items()}
        if data["game"] != self.game:
            self.game, self.seen = data["game"], {"A": 0, "B": 0}
        for name, board in data["boards"].items():
            count = board["moves"]["count"]
            if count > self.seen[name]:
                arrivals.append((self.table, self.game, name.lower(), self.seen[name], count, now))
                self.seen[name] = count


async def spectate(port: int, tables: list[str], count: int, out: Path) -> None:
    """The spectators' process: ``count`` WebSockets spread over ``tables``; says
    ``ready`` once all are open, watches until its stdin closes, then writes what
    arrived when (JSON) to ``out``."""
    arrivals: list[Arrival] = []
    limiter = trio.CapacityLimiter(50)
    async with trio.open_nursery() as nursery:

        async def one(table: str) -> None:
            async with limiter:
                spectator = await Spectator.open(port, table)
            nursery.start_soon(spectator.watch, arrivals)

        with trio.fail_after(300):
            async with trio.open_nursery() as opening:
                for index in range(count):
                    opening.start_soon(one, tables[index % len(tables)])
        print("ready", flush=True)
        stdin = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
        while await stdin.receive_some(1024):
            pass
        nursery.cancel_scope.cancel()
    out.write_text(json.dumps(arrivals))


def fan_out(
    arrivals: list[list[Any]], sent: dict[tuple[str, int, str], list[float]], since: float
) -> list[float]:
    """Seconds from each move's ``bestmove`` to each spectator's snapshot holding it."""
    times = []
    for table, game, board, start, end, at in arrivals:
        moves = sent.get((table, game, board), [])
        for index in range(start, min(end, len(moves))):
            if moves[index] >= since:
                times.append(at - moves[index])
    return times


class Spectators:
    """The spectators' own process (``spectate``), so that reading 1,000 sockets does
    not delay the bots' answers in this one."""

    def __init__(self, folder: Path) -> None:
        self.out = folder / "arrivals.json"
        self.process: trio.Process | None = None

    async def start(self, port: int, tables: list[str], count: int) -> None:
        argv = [
            sys.executable, __file__, "--spectate", str(port), "--spectators", str(count),
            "--ids", ",".join(tables), "--arrivals", str(self.out),
        ]  # fmt: skip
        self.process = await trio.lowlevel.open_process(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.process.stdout is not None
        with trio.fail_after(300):
            said = await self.process.stdout.receive_some(64)
        if not said.startswith(b"ready"):
            raise SystemExit("the spectators' process failed (see its stderr)")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def stop(self) -> list[list[Any]]:
        if self.process is None:
            return []
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        with trio.fail_after(120):
            await self.process.wait()
        return list(json.loads(self.out.read_text())) if self.out.exists() else []


async def run(
    tables: int, spectators: int, games: int, every: int, folder: Path,
    profile: str | None = None, think: float = 0.0,
) -> dict[str, Any]:  # fmt: skip
    """One server, ``tables`` tables, ``spectators`` spectators, until ``games`` games ended."""
    stats = Stats()
    stats.think = think
    base = 0
    server = Server(folder, spectators, profile)
    watchers = Spectators(folder)
    rng = random.Random(1)
    figures: dict[str, Any] = {"rss": []}
    await server.start()
    try:
        async with trio.open_nursery() as nursery:
            await trio.sleep(0.5)
            figures["rss_start"] = rss_kib(server.pid)
            ids = []
            for index in range(tables):
                for bot in range(3):
                    name = f"b{index}x{bot}"
                    await nursery.start(
                        instant_player, server.line_port, f"bot {name} tc={TC}", stats, rng
                    )
            with trio.fail_after(120):
                async with trio.open_nursery() as opening:
                    for index in range(tables):
                        opening.start_soon(
                            host_table, nursery, server.line_port, f"guest g{index}", stats, rng,
                            ids,
                        )
            await trio.sleep(1.0)
            figures["rss_tables"] = rss_kib(server.pid)
            if spectators:
                await watchers.start(server.port, ids, spectators)
            await trio.sleep(1.0)
            figures["rss_spectators"] = rss_kib(server.pid)
            stats.delays.clear()
            cpu0, t0, moves0 = cpu_s(server.pid), perf(), stats.moves
            own0 = sum(os.times()[:2]) + (cpu_s(watchers.pid) if spectators else 0.0)
            base = mark = stats.games
            figures["rss"].append((0, figures["rss_spectators"]))
            while stats.games - base < games:
                await stats.game_done.wait()
                if stats.games - mark >= every or stats.games - base >= games:
                    mark = stats.games
                    figures["rss"].append((stats.games - base, rss_kib(server.pid)))
                    print(f"  {stats.games - base} games, RSS {figures['rss'][-1][1]} KiB")
            stats.stop_rematch = True
            elapsed = perf() - t0
            figures["server_cpu"] = (cpu_s(server.pid) - cpu0) / elapsed
            own = sum(os.times()[:2]) + (cpu_s(watchers.pid) if spectators else 0.0)
            figures["bench_cpu"] = (own - own0) / elapsed
            figures["moves_per_s"] = (stats.moves - moves0) / elapsed
            figures["elapsed"] = elapsed
            arrivals = await watchers.stop()
            nursery.cancel_scope.cancel()
    finally:
        await server.stop()
    figures["delays"] = list(stats.delays)
    figures["fanout"] = fan_out(arrivals, stats.sent, t0)
    figures["games"] = stats.games - base
    return figures


async def host_table(
    nursery: trio.Nursery, port: int, hello: str, stats: Stats, rng: random.Random, ids: list[str]
) -> None:
    """A guest who creates a table, sits, starts it (bots fill it) and plays there."""
    seated = trio.Event()

    async def guest(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        await instant_player(
            port, hello, stats, rng, table_started=seated, host_tc=TC, created=ids,
            task_status=task_status,
        )  # fmt: skip

    await nursery.start(guest)
    await seated.wait()


def ms(value: float) -> str:
    return f"{value * 1000:7.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1000, help="games to finish (all tables)")
    parser.add_argument("--every", type=int, default=100, help="read the RSS every N games")
    parser.add_argument(
        "--solo-spectators",
        type=int,
        help="spectators of the single table (default: as many as each table has)",
    )
    parser.add_argument("--solo-games", type=int, default=5)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        metavar="MS",
        help="bots think 0.5 to 1.5 times MS before each move (default 0: instant)",
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="run the scale server under cProfile, stats to FILE"
    )
    parser.add_argument("--spectate", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    parser.add_argument("--arrivals", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spectate is not None:  # the spectators' own process (``Spectators``)
        trio.run(spectate, args.spectate, args.ids.split(","), args.spectators, args.arrivals)
        return 0
    if args.solo_spectators is None:
        args.solo_spectators = args.spectators // args.tables if args.tables > 0 else 0
    if not 0 <= args.think <= 10_000:
        parser.error("--think is out of range (0 to 10000 ms)")
    for name in ("tables", "spectators", "games", "every", "solo_spectators", "solo_games"):
        if getattr(args, name) < (0 if "spectators" in name else 1):
            parser.error(f"--{name.replace('_', '-')} is out of range")
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        print(f"single table: 1 table, {args.solo_spectators} spectators, {args.solo_games} games")
        (Path(tmp) / "solo").mkdir()
        solo = trio.run(
            run,
            1,
            args.solo_spectators,
            args.solo_games,
            args.solo_games,
            Path(tmp) / "solo",
            None,
            args.think / 1000,
        )
        print(f"scale: {args.tables} tables, {args.spectators} spectators, {args.games} games")
        (Path(tmp) / "scale").mkdir()
        scale = trio.run(
            run,
            args.tables,
            args.spectators,
            args.games,
            args.every,
            Path(tmp) / "scale",
            args.profile,
            args.think / 1000,
        )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print()
    print(f"{'':28} {'single':>9} {'scale':>9}")
    rows = [
        ("harness delay p50 (ms)", lambda f: ms(percentile(f["delays"], 0.5))),
        ("harness delay p99 (ms)", lambda f: ms(percentile(f["delays"], 0.99))),
        ("fan-out p50 (ms)", lambda f: ms(percentile(f["fanout"], 0.5))),
        ("fan-out p99 (ms)", lambda f: ms(percentile(f["fanout"], 0.99))),
        ("fan-out max (ms)", lambda f: ms(max(f["fanout"], default=math.nan))),
        ("moves timed", lambda f: f"{len(f['delays']):7d}"),
        ("fan-outs timed", lambda f: f"{len(f['fanout']):7d}"),
        ("moves/s (all tables)", lambda f: f"{f['moves_per_s']:7.0f}"),
        ("server CPU (cores)", lambda f: f"{f['server_cpu']:7.2f}"),
        ("bench CPU, 2 processes", lambda f: f"{f['bench_cpu']:7.2f}"),
        ("games finished", lambda f: f"{f['games']:7d}"),
        ("wall time (s)", lambda f: f"{f['elapsed']:7.1f}"),
        ("RSS at start (MiB)", lambda f: f"{f['rss_start'] / 1024:7.1f}"),
        ("RSS tables up (MiB)", lambda f: f"{f['rss_tables'] / 1024:7.1f}"),
        ("RSS + spectators (MiB)", lambda f: f"{f['rss_spectators'] / 1024:7.1f}"),
    ]
    for label, cell in rows:
        print(f"{label:28} {cell(solo):>9} {cell(scale):>9}")
    extra = percentile(scale["delays"], 0.99) - percentile(solo["delays"], 0.99)
    per_table = (scale["rss_tables"] - scale["rss_start"]) / args.tables
    per_spectator = (scale["rss_spectators"] - scale["rss_tables"]) / max(1, args.spectators)
    print()
    print(f"delay p99 above single table: {extra * 1000:.2f} ms (target <= 5)")
    print(f"fan-out p99: {percentile(scale['fanout'], 0.99) * 1000:.2f} ms (target <= 50)")
    print(f"memory per table: {per_table:.0f} KiB; per spectator: {per_spectator:.1f} KiB")
    by_games = ", ".join(f"{g}: {k / 1024:.1f} MiB" for g, k in scale["rss"])
    print(f"RSS by games finished: {by_games}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
