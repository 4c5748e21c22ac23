#!/usr/bin/env python3
"""A test engine: plays the moves it is given, one a turn, then holds (never
answers again, so its clock runs and the position stays put), and writes
every ``ptell`` it receives to a file.

``python tests/script_engine.py --moves h7h6,h6h5 --told TOLD [--delay MS]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from random_mover import RandomMover, Turn, fields


class ScriptEngine(RandomMover):
    def __init__(self, moves: list[str], told: Path, delay_ms: int) -> None:
        super().__init__(delay_ms=delay_ms)
        self.script = moves
        self.told = told

    def on_go(self, words: list[str]) -> None:
        found = fields(words[1:], {"v", "turn", "board", "movetime"})
        if not self.script:
            return
        turn = Turn(int(found["turn"]), found.get("board", "a"))
        self.think(turn, self.delay_ms)
        self.answer(turn, self.script.pop(0))

    def on_ptell(self, words: list[str]) -> None:
        with self.told.open("a") as told:
            told.write(" ".join(words[1:]) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", default="", help="UCI moves, comma-separated")
    parser.add_argument("--told", type=Path, required=True, help="file for the ptells received")
    parser.add_argument("--delay", type=int, default=0, help="thinking time per move in ms")
    args = parser.parse_args()
    moves = [move for move in args.moves.split(",") if move]
    sys.exit(ScriptEngine(moves, args.told, args.delay).run())
