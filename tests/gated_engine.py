#!/usr/bin/env python3
"""A test engine: the random mover that holds each move until a gate file exists.

``gated_engine.py GATE [--free-on NODE]``: before each move it waits (still
answering ``isready`` and taking events, as the random mover does while it
thinks) until the file ``GATE`` exists; once it does, it plays at once. With
``--free-on NODE`` it does not wait at all when its environment says it runs
on that test node (``BUGHOUSE_TEST_NODE=NODE``). A test keeps games in flight
on some nodes for as long as it needs, with no timing involved, then opens
the gate. Give it a clock long enough for the wait, and one seat per
process (as tournaments seat engines by default): an engine holding both
seats of a team would answer the waiting turn when its other board's ``go``
arrives.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from random_mover import RandomMover, Turn

#: Milliseconds between looks at the gate.
LOOK_MS = 50


class Gated(RandomMover):
    def __init__(self, gate: Path, free: bool) -> None:
        super().__init__()
        self.gate = gate
        self.free = free

    def think(self, turn: Turn, delay_ms: int) -> None:
        # A line the turn must end for (go on the other board, gameover, quit)
        # lands in held_back: then this turn is answered without waiting more.
        while not self.free and self.running and not self.held_back and not self.gate.exists():
            super().think(turn, LOOK_MS)
        super().think(turn, delay_ms)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gate", type=Path)
    parser.add_argument("--free-on", default=None)
    args = parser.parse_args()
    free = args.free_on is not None and os.environ.get("BUGHOUSE_TEST_NODE") == args.free_on
    return Gated(args.gate, free).run()


if __name__ == "__main__":
    sys.exit(main())
