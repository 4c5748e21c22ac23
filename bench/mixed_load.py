#!/usr/bin/env python3
"""Benchmark: the tables' loop under a mixed load (``bughouse server``, loopback).

    python bench/mixed_load.py [--tables 20] [--think 1000] [--quiet 20] [--load 20] [--runs 3]

Each run starts a real ``bughouse server`` whose database holds ``--archive``
long games and ``--logins`` accounts, seats ``--tables`` tables of instant
bots (``bench/server_scale.py``'s, thinking 0.5 to 1.5 times ``--think`` ms:
about a move a second per board), and polls ``GET /api/server`` every 50 ms
throughout (in a process of its own). For ``--quiet`` seconds nothing else
happens; then, for ``--load`` seconds, visitors open ``--pages`` of those
games' replay pages at once (twice: the second time from the cache),
``--logins`` people log in (a third with a wrong password), and ``bughouse
server export`` writes the whole archive. Measured in each phase, from the
bots' side and the server's:

- harness delay p99: a bot's ``bestmove`` written -> the next ``go`` read;
- the server's loop lag (``/api/server``'s ``loop_lag``: how late its loop woke;
  each poll's ``recent_ms`` is the worst of the second before it);
- ``/api/server``'s answer time, worst.

Three runs (``--runs``): each figure's median and worst are printed, with the
load average. Goals: delay p99 at most 5 ms above quiet, loop lag max at most
20 ms, ``/api/server`` under 50 ms throughout. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import trio
from server_scale import TC, Server, Stats, host_table, instant_player, percentile
from serving import ROOT

sys.path.insert(0, str(ROOT / "tests"))
from archive_games import START, finished, seats, start_of

from bughouse_arbiter.storage import SqliteStore

perf = time.perf_counter
PASSWORD = "password1"


def seed(db: Path, games: int, plies: int, logins: int) -> None:
    """The archive's long games and the accounts that log in."""
    store = SqliteStore.open(db)
    try:
        for n in range(logins):
            store.create_account(f"person{n}", PASSWORD)
        players = seats(("ann", "bea", "cid", "dan"), kind="guest")
        for n in range(games):
            key = f"long{n}"
            store.begin_game(start_of(key, players, rated=False))
            store.record_game(
                finished(key, players, "1-0", ended=START + n, seed=n, plies=plies, rated=False)
            )
    finally:
        store.close()


async def http_get(port: int, path: str) -> tuple[float, bytes]:
    """One GET on a fresh connection: seconds to the whole answer, and the answer."""
    began = perf()
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        await stream.send_all(request.encode())
        parts = []
        while chunk := await stream.receive_some(65536):
            parts.append(chunk)
    return perf() - began, b"".join(parts)


def log_in(port: int, name: str, password: str) -> int:
    """A person's login by the form, as a browser does it (in a thread): the status."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = f"http://127.0.0.1:{port}"
    with opener.open(base + "/login", timeout=60) as answer:
        token = re.search(r'name="csrf" value="([^"]+)"', answer.read().decode())
    assert token is not None
    form = {"username": name, "password": password, "csrf": token.group(1)}
    try:
        with opener.open(base + "/login", urllib.parse.urlencode(form).encode(), timeout=60) as a:
            return int(a.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


async def poll(port: int, out: Path) -> None:
    """``/api/server`` every 50 ms, in a process of its own (the bench's own work would
    otherwise delay its answers): one line each, ``at took recent_ms``, until killed."""
    with out.open("w") as lines:
        while True:
            at = perf()
            took, answer = await http_get(port, "/api/server")
            lag = json.loads(answer.partition(b"\r\n\r\n")[2]).get("loop_lag", {})
            lines.write(f"{at} {took} {lag.get('recent_ms', 0.0)}\n")
            lines.flush()
            await trio.sleep(0.05)


class Poller:
    """The poll's process, and what it saw between two moments (``perf``'s clock,
    CLOCK_MONOTONIC: the same in both processes)."""

    def __init__(self, port: int, folder: Path) -> None:
        self.port = port
        self.out = folder / "poll.txt"
        self.process: trio.Process | None = None

    async def start(self) -> None:
        argv = [sys.executable, __file__, "--poll", str(self.port), "--poll-out", str(self.out)]
        self.process = await trio.lowlevel.open_process(argv)

    async def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            await self.process.wait()

    def between(self, start: float, end: float) -> tuple[list[float], float]:
        """The answer times of the polls begun in [start, end), and the worst loop lag
        they heard of."""
        took: list[float] = []
        worst = 0.0
        if not self.out.exists():
            return took, worst
        for line in self.out.read_text().splitlines():
            fields = line.split()
            if len(fields) == 3 and start <= float(fields[0]) < end:
                took.append(float(fields[1]))
                worst = max(worst, float(fields[2]))
        return took, worst


async def visitors(port: int, ids: list[int], folder: Path, logins: int) -> dict[str, Any]:
    """The load: replay pages at once (twice), logins, an export; what each took."""
    done: dict[str, Any] = {"pages": [], "sizes": [], "logins": []}

    async def page(game_id: int) -> None:
        took, answer = await http_get(port, f"/game/{game_id}")
        done["pages"].append(took)
        done["sizes"].append(len(answer))

    async def login(n: int) -> None:
        password = "wrong-one" if n % 3 == 0 else PASSWORD
        began = perf()
        await trio.to_thread.run_sync(log_in, port, f"person{n}", password)
        done["logins"].append(perf() - began)

    async def export() -> None:
        began = perf()
        argv = [sys.executable, "-m", "bughouse_arbiter", "server", "export",
                "--db", str(folder / "server.sqlite3")]  # fmt: skip
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        result = await trio.run_process(argv, capture_stdout=True, env=env, check=False)
        done["export"] = (perf() - began, len(result.stdout), result.returncode)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(export)
        for n in range(logins):
            nursery.start_soon(login, n)
        for game_id in ids:
            nursery.start_soon(page, game_id)
    async with trio.open_nursery() as nursery:  # again: from the cache
        for game_id in ids:
            nursery.start_soon(page, game_id)
    return done


async def one_run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    seed(folder / "server.sqlite3", args.archive, args.plies, args.logins)
    stats = Stats()
    stats.think = args.think / 1000
    server = Server(folder, 64)
    rng = random.Random(1)
    figures: dict[str, Any] = {}
    await server.start()
    try:
        async with trio.open_nursery() as nursery:
            for index in range(args.tables):
                for bot in range(3):
                    await nursery.start(
                        instant_player, server.line_port, f"bot b{index}x{bot} tc={TC}", stats,
                        rng,
                    )  # fmt: skip
            ids: list[str] = []
            with trio.fail_after(120):
                async with trio.open_nursery() as opening:
                    for index in range(args.tables):
                        opening.start_soon(
                            host_table, nursery, server.line_port, f"guest g{index}", stats,
                            rng, ids,
                        )  # fmt: skip
            await trio.sleep(2.0)
            poller = Poller(server.port, folder)
            await poller.start()
            await trio.sleep(1.0)
            stats.delays.clear()
            quiet = perf()
            await trio.sleep(args.quiet)
            figures["quiet_delays"] = list(stats.delays)
            stats.delays.clear()
            began = perf()
            longest = list(range(1, min(args.pages, args.archive) + 1))
            figures["visits"] = await visitors(server.port, longest, folder, args.logins)
            figures["visits_s"] = perf() - began
            await trio.sleep(max(0.0, args.load - (perf() - began)))
            figures["load_delays"] = list(stats.delays)
            ended = perf()
            await trio.sleep(0.2)  # the last polls are written
            await poller.stop()
            quiet_api, quiet_lag = poller.between(quiet, began)
            load_api, load_lag = poller.between(began, ended)
            figures["api"] = {"quiet": quiet_api or [math.nan], "load": load_api or [math.nan]}
            figures["worst_lag"] = {"quiet": quiet_lag, "load": load_lag}
            _, answer = await http_get(server.port, "/api/server")
            figures["load_lag"] = json.loads(answer.partition(b"\r\n\r\n")[2])["loop_lag"]
            stats.stop_rematch = True
            nursery.cancel_scope.cancel()
    finally:
        await server.stop()
    figures["stalls"] = [
        line for line in (folder / "server.err").read_text(errors="replace").splitlines()
        if "loop stall" in line
    ]
    return figures


def ms(value: float) -> float:
    return round(value * 1000, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=1000.0, metavar="MS")
    parser.add_argument("--quiet", type=float, default=20.0, metavar="S")
    parser.add_argument("--load", type=float, default=20.0, metavar="S")
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--archive", type=int, default=12, help="long games in the archive")
    parser.add_argument("--plies", type=int, default=600, help="plies of each archived game")
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poll", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--poll-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.poll is not None:  # the poll's own process (``Poller``)
        trio.run(poll, args.poll, args.poll_out)
        return 0
    bounds = {"tables": (1, 200), "think": (0, 10_000), "quiet": (1, 600), "load": (1, 600),
              "pages": (0, 64), "archive": (1, 5000), "plies": (2, 10_000), "logins": (0, 200),
              "runs": (1, 9)}  # fmt: skip
    for name, (low, high) in bounds.items():
        if not low <= getattr(args, name) <= high:
            parser.error(f"--{name} is out of range ({low} to {high})")
    runs = []
    for n in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-mixed-") as tmp:
            print(f"run {n + 1} of {args.runs}: {args.tables} tables, "
                  f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
            runs.append(trio.run(one_run, args, Path(tmp)))
    rows: list[tuple[str, list[float]]] = []
    for name, pick in (
        ("harness delay p99, quiet (ms)", lambda f: ms(percentile(f["quiet_delays"], 0.99))),
        ("harness delay p99, load (ms)", lambda f: ms(percentile(f["load_delays"], 0.99))),
        ("  above quiet (ms, goal <= 5)", lambda f: ms(
            percentile(f["load_delays"], 0.99) - percentile(f["quiet_delays"], 0.99))),
        ("loop lag max, quiet (ms)", lambda f: f["worst_lag"]["quiet"]),
        ("loop lag max, load (ms, <= 20)", lambda f: f["worst_lag"]["load"]),
        ("loop lag max, since start (ms)", lambda f: f["load_lag"].get("max_ms", float("nan"))),
        ("/api/server worst, quiet (ms)", lambda f: ms(max(f["api"]["quiet"]))),
        ("/api/server worst, load (< 50)", lambda f: ms(max(f["api"]["load"]))),
        ("replay page slowest (ms)", lambda f: ms(max(f["visits"]["pages"], default=0))),
        ("replay page largest (KB)", lambda f: max(f["visits"]["sizes"], default=0) / 1000),
        ("login slowest (ms)", lambda f: ms(max(f["visits"]["logins"], default=0))),
        ("export (ms)", lambda f: ms(f["visits"]["export"][0])),
        ("moves timed under load", lambda f: float(len(f["load_delays"]))),
    ):  # fmt: skip
        rows.append((name, [float(pick(f)) for f in runs]))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    print(f"{'':34} {'median':>9} {'worst':>9}   runs")
    for name, values in rows:
        worst = min(values) if name.startswith("moves") else max(values)
        each = " ".join(f"{v:.1f}" for v in values)
        print(f"{name:34} {statistics.median(values):9.1f} {worst:9.1f}   {each}")
    for n, f in enumerate(runs, start=1):
        slowest = f["load_lag"].get("slowest_task", "")
        print(f"run {n}: slowest loop step {f['load_lag'].get('slowest_step_ms')} ms in "
              f"{slowest or '?'}; {len(f['stalls'])} stall line(s)")
        for line in f["stalls"][:3]:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
