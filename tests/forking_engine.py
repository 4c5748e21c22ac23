#!/usr/bin/env python3
"""A test engine: the random mover that leaves processes behind and crashes.

``forking_engine.py RECORD [--children N] [--daemons M] [--crash-in K]``:
it plays like the random mover until its first turn of its K-th game
(default 1; the games this process played, counted by ``newgame``). Then
it forks N sleeping children (in its own process group, default 50) and M
daemons (double fork and ``setsid``, out of its group and session, default
2), and exits with status 3 without answering. ``--crash-in 2`` crashes
every other game of a tournament: the process plays one game, crashes in
the next, and its restart does the same.

Each daemon's pid is appended to the file ``RECORD`` (one a line, written
before the engine exits), so a test can look for survivors.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from random_mover import RandomMover

#: Seconds a child or daemon sleeps if nobody kills it.
SLEEP = 600


def _quiet_child() -> None:
    """In a forked child: standard streams off the engine's pipes, then sleep."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    time.sleep(SLEEP)
    os._exit(0)


def _daemon(record: Path) -> None:
    """Double fork and ``setsid``: the daemon's pid goes to ``record``."""
    first = os.fork()
    if first:
        os.waitpid(first, 0)  # the middle process exits at once
        return
    os.setsid()
    daemon = os.fork()
    if daemon:
        with record.open("a") as out:
            out.write(f"{daemon}\n")
        os._exit(0)
    _quiet_child()


class Forking(RandomMover):
    def __init__(self, record: Path, children: int, daemons: int, crash_in: int) -> None:
        super().__init__()
        self.record = record
        self.children = children
        self.daemons = daemons
        self.crash_in = crash_in
        self.games = 0

    def on_newgame(self, words: list[str]) -> None:
        self.games += 1
        super().on_newgame(words)

    def on_go(self, words: list[str]) -> None:
        if self.games == self.crash_in:
            sys.stdout.flush()
            for _ in range(self.children):
                if os.fork() == 0:
                    _quiet_child()
            for _ in range(self.daemons):
                _daemon(self.record)
            os._exit(3)
        super().on_go(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", type=Path)
    parser.add_argument("--children", type=int, default=50)
    parser.add_argument("--daemons", type=int, default=2)
    parser.add_argument("--crash-in", type=int, default=1)
    args = parser.parse_args()
    return Forking(args.record, args.children, args.daemons, args.crash_in).run()


if __name__ == "__main__":
    sys.exit(main())
