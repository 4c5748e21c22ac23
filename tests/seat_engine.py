#!/usr/bin/env python3
"""A test engine: the random mover under a name of its own, which notes every
``newgame`` it is told, with its process id (so a test sees which seat it
played in each game, and whether one process played them) and,
with ``--resign-after N``, resigns instead of its (N+1)th move of each game
(with ``--resign-in 1,3`` only in the games of those ids).

``python tests/seat_engine.py NAME LOG [--resign-after N] [--resign-in IDS] [--delay MS]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from random_mover import AUTHOR, RandomMover, send


class SeatEngine(RandomMover):
    def __init__(
        self,
        name: str,
        log: Path,
        *,
        resign_after: int | None,
        resign_in: set[str] | None,
        delay_ms: int,
    ) -> None:
        super().__init__(delay_ms=delay_ms)
        self.name = name
        self.log = log
        self.resign_after = resign_after
        self.resign_in = resign_in
        self.game_id = ""

    def on_bug(self, words: list[str]) -> None:
        send(f"id name {self.name}")
        send(f"id author {AUTHOR}")
        send("bugok")

    def on_newgame(self, words: list[str]) -> None:
        with self.log.open("a") as log:
            log.write(" ".join(words) + f" pid {os.getpid()}\n")
        self.game_id = words[2]
        super().on_newgame(words)

    def on_go(self, words: list[str]) -> None:
        resigns = self.resign_in is None or self.game_id in self.resign_in
        if resigns and self.resign_after is not None and self.moves_played >= self.resign_after:
            send("resign")
            return
        super().on_go(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("log", type=Path)
    parser.add_argument("--resign-after", type=int)
    parser.add_argument("--resign-in", help="game ids, comma-separated (default: every game)")
    parser.add_argument("--delay", type=int, default=0)
    args = parser.parse_args()
    return SeatEngine(
        args.name,
        args.log,
        resign_after=args.resign_after,
        resign_in=set(args.resign_in.split(",")) if args.resign_in else None,
        delay_ms=args.delay,
    ).run()


if __name__ == "__main__":
    sys.exit(main())
