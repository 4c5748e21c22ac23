#!/usr/bin/env python3
"""What the lobby's bookkeeping costs as it grows: the view, a diff, a tick, memory per table.

    python bench/lobby.py [--tables 10,100,1000]

For each count of tables, a ``Lobby`` (sans-IO, no sockets) gets that many
open tables with every seat taken by a guest, plus a queue of one solo per
ten tables. It prints the time to build the ``lobby`` view and encode it as
JSON (what ``Hall`` sends a member that joins), the view's size, the time
to make and encode the ``lobby-diff`` of one table changing (what ``Hall``
sends every member on a change, encoded once, at most 10 times a second)
and its size, the time of one ``tick`` (every deadline
looked at), and the memory the tables take (tracemalloc) per table. Times
are the median of repeated runs on this machine, which other processes
move; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
from functools import partial

from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.core.model import SEATS
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.lobby.identity import Identity
from bughouse_arbiter.lobby.messages import PlayNow
from bughouse_arbiter.lobby.model import Lobby
from bughouse_arbiter.lobby.tables import Table, TableSpec


def build(tables: int) -> Lobby:
    lobby = Lobby()
    spec = TableSpec(tc=TimeControl(180.0), rules=HouseRules())
    for t in range(tables):
        table = Table(id=f"t{t + 1}", spec=spec, creator=None)
        for s, seat in enumerate(SEATS):
            who = Identity(f"g{t}-{s}")
            lobby.members[who.name] = who
            table.seats[seat] = who
        table.state = "playing"
        lobby.tables[table.id] = table
    for q in range(max(1, tables // 10)):
        name = f"q{q}"
        lobby.join(Identity(name))
        lobby.handle(name, PlayNow(TimeControl(60.0 + q), True, None), 0.0)
    return lobby


def encoded(lobby: Lobby) -> str:
    return json.dumps(lobby.view(), separators=(",", ":"))


def one_change(lobby: Lobby, n: list[int]) -> str:
    """One table's watchers change: the diff every member is sent, encoded."""
    n[0] += 1
    lobby.set_watchers("t1", n[0])
    diff = lobby.diff()
    assert diff is not None and list(diff["tables"]) == ["t1"]  # type: ignore[call-overload]
    return json.dumps(diff, separators=(",", ":"))


def timed(call: object, repeat: int) -> float:
    assert callable(call)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="10,100,1000")
    args = parser.parse_args()
    print(
        f"{'tables':>7} {'view+json ms':>13} {'view KB':>8} {'diff+json ms':>13} "
        f"{'diff B':>7} {'tick ms':>8} {'KB/table':>9}"
    )
    for count in (int(n) for n in args.tables.split(",")):
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        lobby = build(count)
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        repeat = max(5, 2000 // count)
        view = timed(partial(encoded, lobby), repeat)
        size = len(encoded(lobby))
        lobby.diff()
        n = [0]
        diff = timed(partial(one_change, lobby, n), repeat)
        diff_size = len(one_change(lobby, n))
        tick = timed(partial(lobby.tick, 1.0), repeat)
        print(
            f"{count:>7} {view * 1000:>13.3f} {size / 1024:>8.1f} {diff * 1000:>13.3f} "
            f"{diff_size:>7} {tick * 1000:>8.3f} "
            f"{used / 1024 / count:>9.1f}"
        )


if __name__ == "__main__":
    main()
