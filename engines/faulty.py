#!/usr/bin/env python3
"""Faulty: the random mover with one deliberate fault, for testing the arbiter.

Run it as ``python engines/faulty.py MODE [--after N] [--delay S]`` (or ``--mode MODE``).
It plays like ``random_mover.py`` (whose code it reuses; nothing of the
arbiter) until the fault strikes on its turn after ``N`` moves (default 1):

- ``crash``: exits with status 3 (a message on stderr) instead of answering.
- ``hang``: never answers ``go`` (still reads input and answers ``isready``):
  alive, only too slow.
- ``freeze``: stops answering anything (``go``, ``isready``, ``quit``) and
  stays alive with its pipes open: hung.
- ``garbage``: before every answer prints junk: invalid UTF-8, unknown and
  malformed lines, answers with wrong tokens and boards, an over-long line.
- ``flood``: before every answer prints ``--flood-mb`` megabytes of ``info``.
- ``illegal``: answers with an illegal move (from an empty square).
- ``slow-start``: waits ``--delay`` seconds (default 30) before ``bugok``.
- ``stale``: answers every turn first with an old token, then correctly.
- ``ignore-quit``: ignores SIGTERM, SIGINT, ``quit`` and the end of input.
- ``close-pipe``: closes its standard output and error and stays alive.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time

import chess
from random_mover import RandomMover, Turn, send

MODES = (
    "crash",
    "hang",
    "freeze",
    "garbage",
    "flood",
    "illegal",
    "slow-start",
    "stale",
    "ignore-quit",
    "close-pipe",
)


class Faulty(RandomMover):
    def __init__(self, mode: str, after: int, delay: float, flood_mb: float, seed: int) -> None:
        super().__init__(seed=seed)
        self.mode = mode
        self.after = after
        self.delay = delay
        self.flood_mb = flood_mb
        if mode == "ignore-quit":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    @property
    def striking(self) -> bool:
        return self.moves_played >= self.after

    def run(self) -> int:
        code = super().run()
        if self.mode == "ignore-quit":
            while True:  # only SIGKILL ends it
                time.sleep(1)
        return code

    def on_bug(self, words: list[str]) -> None:
        if self.mode == "slow-start":
            time.sleep(self.delay)
        super().on_bug(words)

    def on_go(self, words: list[str]) -> None:
        if self.striking:
            if self.mode == "crash":
                print(
                    f"faulty: crashing on purpose after {self.moves_played} moves", file=sys.stderr
                )
                sys.stderr.flush()
                os._exit(3)
            if self.mode == "hang":
                return
            if self.mode == "freeze":
                sys.stdout.flush()
                while True:  # lines pile up unread (the reader thread drains the pipe)
                    time.sleep(1)
            if self.mode == "close-pipe":
                sys.stdout.flush()
                os.close(1)
                os.close(2)
                while True:
                    time.sleep(1)
        super().on_go(words)

    def answer(self, turn: Turn, move: str) -> None:
        if self.mode == "garbage":
            self.garbage(turn)
        elif self.mode == "flood":
            self.flood()
        elif self.mode == "stale":
            send(f"bestmove {move} turn {turn.token - 1}{self.board_suffix(turn)}")
            send(f"wait turn {turn.token + 1000}")
        elif self.mode == "illegal" and self.striking:
            move = self.illegal_move(turn.board)
        super().answer(turn, move)

    def garbage(self, turn: Turn) -> None:
        out = sys.stdout.buffer
        out.write(b"\xff\xfe\x00 binary \x80\x81 junk\n")
        out.write(b"x" * 20000 + b"\n")
        out.flush()
        for line in (
            "Hello from the garbage engine!",
            "bestmove",
            "bestmove e2e4",
            "bestmove e2e4 turn banana",
            f"bestmove e2e4 turn {turn.token + 77}",
            "wait",
            "draw maybe",
            "ptell",
            "bugok",
            "1-0 {White mates}",
            "\t",
        ):
            send(line)

    def flood(self) -> None:
        line = "info depth 1 score cp 0 nodes 1 pv " + "e2e4 " * 190 + "\n"
        count = int(self.flood_mb * 1_000_000 / len(line)) + 1
        sys.stdout.write(line * count)
        sys.stdout.flush()

    def illegal_move(self, board_name: str) -> str:
        board = self.boards[board_name]
        empty = next(sq for sq in chess.SQUARES if board.piece_at(sq) is None)
        target = next(sq for sq in chess.SQUARES if sq != empty)
        return chess.Move(empty, target).uci()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", choices=MODES, help="the fault (or --mode)")
    parser.add_argument("--mode", dest="mode_option", choices=MODES)
    parser.add_argument("--after", type=int, default=1, help="moves played before the fault")
    parser.add_argument("--delay", type=float, default=30.0, help="slow-start delay in seconds")
    parser.add_argument("--flood-mb", type=float, default=2.0, help="megabytes per flood")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    mode = args.mode_option or args.mode
    if mode is None:
        parser.error("a mode is needed: " + ", ".join(MODES))
    return Faulty(mode, args.after, args.delay, args.flood_mb, args.seed).run()


if __name__ == "__main__":
    sys.exit(main())
