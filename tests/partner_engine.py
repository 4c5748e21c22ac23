#!/usr/bin/env python3
"""A test partner: the random mover that answers each ``ptell`` it receives
with the next of the signals given on its command line (``---q sit x``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from random_mover import RandomMover, send


class Signaller(RandomMover):
    def __init__(self, replies: list[str]) -> None:
        super().__init__()
        self.replies = replies

    def on_ptell(self, words: list[str]) -> None:
        if self.replies:
            send("ptell " + self.replies.pop(0))


if __name__ == "__main__":
    sys.exit(Signaller(sys.argv[1:]).run())
