#!/usr/bin/env python3
"""Benchmark: how long a busy ``bughouse server`` takes to stop on SIGTERM.

    python bench/server_stop.py [--tables 100] [--pages 800] [--deaf 0] [--runs 1]

Starts a real ``bughouse server --port 0 --line-port 0`` (its own process)
with ``--tables`` tables, each created by a line-lobby ``guest`` and played
by it and three line-lobby ``bot`` connections answering every ``go`` at
once with a random legal move (python-chess), so four line connections a
table. ``--pages`` table-page WebSockets (wsproto over trio, spread evenly
over the tables) watch: they read and answer pings; ``--deaf`` more are
opened and then never read again (a peer that stalls). Once everything is
open, SIGTERM is sent and timed until the process has exited.

Printed: seconds from SIGTERM to exit and the CPU seconds the server spent
meanwhile (on a shared machine the first depends on the load, the second
hardly), the exit status, how many reading
pages were sent a close frame with 1001 (and how many with other codes or
none), how many line connections were told something after the signal,
how many were told ``error the server is stopping``, and how many saw
the connection end, the BPGN files written and the server's last stdout
line. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import chess
import chess.variant
import trio
import wsproto
import wsproto.events as ws_events
from serving import Lines, ServerProcess, cpu_s
from wsproto.utilities import LocalProtocolError

TC = "180+0"
#: The line every line connection is told last when the server stops.
STOPPING = "error the server is stopping"
perf = time.perf_counter


class Server(ServerProcess):
    """The server to stop; ``stop_timed`` times its stop."""

    def __init__(self, folder: Path, pages: int) -> None:
        super().__init__(folder, pages)
        self.stop_cpu = math.nan
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        #: CPU seconds of the processes reaped before this one (earlier runs).
        self.reaped_cpu = children.ru_utime + children.ru_stime

    async def stop_timed(self) -> tuple[float, int | None]:
        """SIGTERM, then the seconds until the process exited (killed after 60 s);
        ``stop_cpu``: the CPU seconds it spent meanwhile."""
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        before = cpu_s(self.process.pid)
        start = perf()
        self.process.terminate()
        with trio.move_on_after(60):
            while chunk := await stdout.receive_some(4096):
                self.out += chunk
            await self.process.wait()
        took = perf() - start
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.stop_cpu = children.ru_utime + children.ru_stime - self.reaped_cpu - before
        return took, self.process.returncode


class Tally:
    """What the peers saw once the signal was sent."""

    def __init__(self) -> None:
        self.signalled: float | None = None
        self.page_codes: Counter[str] = Counter()
        self.lines_told = 0
        self.lines_goodbye = 0
        self.lines_ended = 0
        self.seated = 0
        self.all_seated = trio.Event()
        self.wanted = 0

    def sat(self) -> None:
        self.seated += 1
        if self.seated >= self.wanted:
            self.all_seated.set()


async def player(
    port: int, hello: str, rng: random.Random, tally: Tally, *,
    host: bool = False, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:  # fmt: skip
    """One line connection playing instant random moves; a host creates and starts a table."""
    link = Lines(await trio.open_tcp_stream("127.0.0.1", port))
    await link.send(hello)
    answer = await link.readline()
    if answer is None or not answer.startswith("hello ok"):
        raise SystemExit(f"{hello!r} answered {answer!r}")
    table = ""
    if host:
        await link.send(f"create {TC}")
        line = await link.readline()
        if line is None or not line.startswith("created "):
            raise SystemExit(f"create answered {line!r}")
        table = line.split()[1]
        await link.send(f"sit {table} A-white", f"start {table}")
    task_status.started(table)
    fens: dict[str, str] = {}
    told = False
    while True:
        line = await link.readline()
        if tally.signalled is not None and line is not None and not told:
            told = True
            tally.lines_told += 1
        if tally.signalled is not None and line == STOPPING:
            tally.lines_goodbye += 1
        if line is None:
            if tally.signalled is not None:
                tally.lines_ended += 1
            return
        word, _, rest = line.partition(" ")
        if word == "go" and tally.signalled is None:
            f = rest.split()
            fields = dict(zip(f[0::2], f[1::2], strict=False))
            board = fields["board"]
            legal = list(chess.variant.CrazyhouseBoard(fens[board]).legal_moves)
            if not legal:
                await link.send(f"wait turn {fields['turn']} board {board}")
                continue
            move = rng.choice(legal).uci()
            await link.send(f"bestmove {move} turn {fields['turn']} board {board}")
        elif word == "state":
            s = rest.split()
            fens["a"] = " ".join(s[3:9])
            fens["b"] = " ".join(s[10:16])
        elif word == "seated":
            tally.sat()
        elif word == "bug":
            await link.send("id name instant", "bugok")
        elif word == "isready":
            await link.send("readyok")
        elif word == "gameover" and host and tally.signalled is None:
            await link.send(f"rematch {table}")


async def open_page(port: int, table: str) -> tuple[trio.SocketStream, wsproto.WSConnection]:
    """A table page's WebSocket, accepted."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    request = ws_events.Request(
        host=f"127.0.0.1:{port}",
        target=f"/table/{table}/ws",
        extra_headers=[(b"origin", f"http://127.0.0.1:{port}".encode())],
    )
    await stream.send_all(ws.send(request))
    while True:
        for event in ws.events():
            if isinstance(event, ws_events.AcceptConnection):
                return stream, ws
            raise SystemExit(f"/table/{table}/ws answered {event!r}")
        ws.receive_data(await stream.receive_some(65536) or None)


async def watch(stream: trio.SocketStream, ws: wsproto.WSConnection, tally: Tally) -> None:
    """Reads the page's socket, answering pings, until it ends; tallies the close code."""
    code = "none"
    try:
        while True:
            data = await stream.receive_some(65536)
            ws.receive_data(data or None)
            for event in ws.events():
                if isinstance(event, ws_events.Ping):
                    await stream.send_all(ws.send(event.response()))
                elif isinstance(event, ws_events.CloseConnection):
                    code = str(event.code)
                    await stream.send_all(ws.send(event.response()))
                    return
            if not data:
                return
    except (trio.BrokenResourceError, trio.ClosedResourceError, LocalProtocolError):
        pass
    finally:
        if tally.signalled is not None:
            tally.page_codes[code] += 1
        await trio.aclose_forcefully(stream)


async def run(tables: int, pages: int, deaf: int, folder: Path) -> dict[str, Any]:
    """One server: ``tables`` playing tables, ``pages`` + ``deaf`` pages; SIGTERM, timed."""
    tally = Tally()
    tally.wanted = 4 * tables
    server = Server(folder, pages + deaf)
    rng = random.Random(1)
    await server.start()
    figures: dict[str, Any] = {}
    deaf_streams: list[trio.SocketStream] = []
    async with trio.open_nursery() as nursery:
        with trio.fail_after(300):
            for index in range(tables):
                for bot in range(3):
                    hello = f"bot b{index}x{bot} tc={TC}"
                    await nursery.start(player, server.line_port, hello, rng, tally)
            ids = []
            for index in range(tables):
                host = partial(player, server.line_port, f"guest g{index}", rng, tally, host=True)
                ids.append(await nursery.start(host))
            await tally.all_seated.wait()
            limiter = trio.CapacityLimiter(50)

            async def one(index: int, reads: bool) -> None:
                async with limiter:
                    stream, ws = await open_page(server.port, ids[index % len(ids)])
                if reads:
                    nursery.start_soon(watch, stream, ws, tally)
                else:
                    deaf_streams.append(stream)

            async with trio.open_nursery() as opening:
                for index in range(pages + deaf):
                    opening.start_soon(one, index, index < pages)
        await trio.sleep(2.0)  # the games go on with every page watching
        tally.signalled = perf()
        figures["seconds"], figures["status"] = await server.stop_timed()
        figures["cpu"] = server.stop_cpu
        with trio.move_on_after(5):
            while sum(tally.page_codes.values()) < pages or tally.lines_ended < 4 * tables:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    for stream in deaf_streams:
        await trio.aclose_forcefully(stream)
    lines = server.out.decode(errors="replace").strip().splitlines()
    figures["last"] = lines[-1] if lines else ""
    figures["codes"] = dict(tally.page_codes)
    figures["told"], figures["ended"] = tally.lines_told, tally.lines_ended
    figures["goodbye"] = tally.lines_goodbye
    figures["bpgn"] = sum(1 for _ in (folder / "games").glob("*.bpgn"))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100, help="playing tables (4 lines each)")
    parser.add_argument("--pages", type=int, default=800, help="reading table pages")
    parser.add_argument("--deaf", type=int, default=0, help="pages that never read again")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.tables <= 500 or not 0 <= args.pages <= 5000 or not 0 <= args.deaf <= 5000:
        parser.error("--tables 1..500, --pages and --deaf 0..5000")
    if not 1 <= args.runs <= 20:
        parser.error("--runs is out of range (1 to 20)")
    print(
        f"{args.tables} tables ({4 * args.tables} line connections), {args.pages} pages"
        f" + {args.deaf} deaf"
    )
    for number in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-stop-") as tmp:
            f = trio.run(run, args.tables, args.pages, args.deaf, Path(tmp))
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(f["codes"].items()))
        print(
            f"run {number + 1}: stopped in {f['seconds']:.2f} s, {f['cpu']:.2f} CPU s"
            f" (exit {f['status']});"
            f" pages closed {{{codes}}}; lines told something {f['told']},"
            f" told {STOPPING!r} {f['goodbye']}, ended {f['ended']};"
            f" {f['bpgn']} BPGN files"
        )
        print(f"  last line: {json.dumps(f['last'])}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
