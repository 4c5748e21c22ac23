#!/usr/bin/env python3
"""Benchmark of the server's store (storage/sqlite.py): games recorded, the archive read.

    python bench/storage.py [--games N] [--players P] [--db PATH]

Records ``--games`` rated games (a real BPGN of 40 plies each, four of
``--players`` bot accounts at random, their Glicko updates) one transaction
each, as the server does (WAL, ``synchronous=FULL``: every game waits for
the disk), then times the archive: one page of a player's games, a date
range, the leaderboard, a rating history, the whole export, an online
backup. Prints games per second, milliseconds per call and the file's size
per game. The disk and the other processes on the machine move every
figure; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from archive_games import START, finished, seats

from bughouse_arbiter.storage import GameQuery, SqliteStore


def _timed(label: str, call: object, repeat: int = 20) -> None:
    assert callable(call)
    begin = time.perf_counter()
    for _ in range(repeat):
        call()
    each = (time.perf_counter() - begin) / repeat * 1000
    print(f"  {label:<40} {each:8.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--db", help="the database file (default: a temporary one)")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    path = Path(args.db) if args.db else Path(folder.name) / "bench.sqlite3"
    store = SqliteStore.open(path)
    names = [f"bot{i:03d}" for i in range(args.players)]
    for name in names:
        if store.account(name) is None:
            store.add_bot(name, now=START)
    rng = random.Random(1)
    games = [
        finished(f"b{i}", seats(tuple(rng.sample(names, 4)), "bot"),  # type: ignore[arg-type]
                 rng.choice(("1-0", "0-1", "1/2-1/2")), ended=START + i * 600, seed=i, plies=40)
        for i in range(args.games)
    ]
    begin = time.perf_counter()
    for game in games:
        store.record_game(game)
    spent = time.perf_counter() - begin
    print(f"recorded {args.games} rated games in {spent:.2f} s: {args.games / spent:.0f} games/s "
          f"({spent / args.games * 1000:.2f} ms each, synchronous=FULL)")
    size = path.stat().st_size + (path.with_name(path.name + "-wal").stat().st_size
                                  if path.with_name(path.name + "-wal").exists() else 0)
    print(f"database: {size / 1e6:.1f} MB, {size / args.games / 1e3:.1f} kB per game")
    print("archive reads:")
    _timed("a player's newest 50 games", lambda: store.games(GameQuery(player=names[0])))
    _timed("games in one day, page 2", lambda: store.games(
        GameQuery(since=START, until=START + 86400, offset=50)))
    _timed("games with result 1/2-1/2", lambda: store.games(GameQuery(result="1/2-1/2")))
    _timed("the leaderboard (top 50)", lambda: store.leaderboard(provisional=True))
    _timed("a player's rating history", lambda: store.rating_history(names[0]))
    _timed("export: every game's BPGN", lambda: sum(1 for _ in store.iter_bpgn()), repeat=3)
    backup = Path(folder.name) / "copy.sqlite3"
    _timed("online backup", lambda: store.backup(backup), repeat=3)
    store.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    folder.cleanup()


if __name__ == "__main__":
    main()
