"""Writes finished games into a store in a loop, printing each game's key once it is
recorded (the crash test kills it with SIGKILL at some point). Usage:
``python tests/storage_writer.py DB FIRST``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from archive_games import SPACED, START, finished, seats, start_of

from bughouse_arbiter.storage import SqliteStore

NAMES = ("ann", "bob", "cat", "dan")


def main() -> None:
    store = SqliteStore.open(sys.argv[1])
    for name in NAMES:
        if store.account(name) is None:
            store.add_bot(name, now=START)
    players = seats(NAMES, "bot")
    i = int(sys.argv[2])
    while True:
        key = f"g{i}"
        store.begin_game(start_of(key, players))
        result = ("1-0", "0-1", "1/2-1/2")[i % 3]
        store.record_game(finished(key, players, result, ended=START + i * SPACED, seed=i, plies=6))
        print(key, flush=True)
        i += 1


if __name__ == "__main__":
    main()
