#!/usr/bin/env python3
"""Hostile: the random mover turned against the arbiter, one attack per mode.

Run it as ``python engines/hostile.py MODE [--after N] [--marker TEXT]``.
It plays like ``random_mover.py`` (whose code it reuses; nothing of the
arbiter) and attacks as told. Every process it starts carries ``--marker``'s
text on its command line, so a test can look for survivors in ``/proc``.

Words that try to decide the result for someone else:

- ``long-name``: announces a name, an author and an option name of about
  8,000 characters, with terminal escapes and line separators in them.
- ``huge-score``: sends ``info`` with a score, a mate and a node count of
  hundreds (or thousands) of digits before every move (the last one with
  ``depth 12``).
- ``ptell-flood``: sends ``--count`` (default 2000) partner messages, with
  control characters, before every move.

Processes that try to outlive their match:

- ``orphan-exit``: on its turn after ``--after`` moves (default 1), starts a
  child that keeps its standard output open and sleeps, then exits without
  answering.
- ``helper``: starts a helper in its own process group at start-up, plays
  normally and obeys ``quit`` (the helper stays behind).
- ``group-helper``: the same, but the helper moves to a process group of
  its own (still in the engine's session).
- ``setsid-helper``: the same, but the helper calls ``setsid`` (a session of
  its own, out of reach of the engine's process group).
- ``daemon-helper``: the same, but the helper double-forks and calls
  ``setsid``: a daemon, no longer below the engine in the process tree.
- ``stubborn``: ignores SIGTERM, SIGINT, SIGHUP, ``quit`` and the end of its
  input, and has a helper in its group; only SIGKILL ends them.
Floods that try to spend the other engines' clocks (from ``newgame`` on, a
thread writes as fast as the pipe takes it, while the engine plays on):

- ``info-flood``: valid ``info`` lines on standard output.
- ``ignored-flood``: lines the protocol does not know, on standard output.
- ``stderr-flood``: lines on standard error.

- ``normal``: no attack (a random mover that carries the marker).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

import random_mover
from random_mover import AUTHOR, RandomMover, Turn

MODES = (
    "normal",
    "long-name",
    "huge-score",
    "ptell-flood",
    "orphan-exit",
    "helper",
    "setsid-helper",
    "group-helper",
    "daemon-helper",
    "stubborn",
    "info-flood",
    "ignored-flood",
    "stderr-flood",
)
#: What each flood writes, a block at a time.
FLOODS = {
    "info-flood": "info depth 12 seldepth 20 score cp 35 nodes 123456 nps 999 pv e2e4 e7e5\n",
    "ignored-flood": "this is not a line of the protocol, but an engine may write it 12345\n",
    "stderr-flood": "warning: the engine has something to say on standard error 12345\n",
}
_OUT = threading.Lock()  # the flood and the answers share standard output


def send(line: str) -> None:
    with _OUT:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


random_mover.send = send  # the mover's own answers take the lock too

#: What a helper runs: a sleep whose command line carries the marker.
SLEEPER = "import sys, time; time.sleep(float(sys.argv[1]))"
#: The same after a double fork and ``setsid``: a daemon, whose parent is gone at once.
DAEMON = (
    "import os, sys, time\n"
    "if os.fork():\n"
    "    os._exit(0)\n"
    "os.setsid()\n"
    "time.sleep(float(sys.argv[1]))\n"
)


class Hostile(RandomMover):
    def __init__(self, mode: str, after: int, count: int, marker: str, delay_ms: int) -> None:
        super().__init__(seed=0, delay_ms=delay_ms)
        self.mode = mode
        self.after = after
        self.count = count
        self.marker = marker
        if mode == "stubborn":
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN)
        if mode in ("helper", "setsid-helper", "group-helper", "daemon-helper", "stubborn"):
            self.spawn(
                new_session=mode == "setsid-helper",
                new_group=mode == "group-helper",
                daemon=mode == "daemon-helper",
                keep_pipes=False,
            )

    def spawn(
        self, *, new_session: bool, keep_pipes: bool, new_group: bool = False, daemon: bool = False
    ) -> None:
        """A sleeping child; with ``keep_pipes`` it holds our stdout and stderr."""
        out = None if keep_pipes else subprocess.DEVNULL
        subprocess.Popen(
            [sys.executable, "-c", DAEMON if daemon else SLEEPER, "600", self.marker],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=new_session,
            process_group=0 if new_group else None,
        )

    def on_newgame(self, words: list[str]) -> None:
        super().on_newgame(words)
        if self.mode in FLOODS and not getattr(self, "flooding", False):
            self.flooding = True
            threading.Thread(target=self.flood, daemon=True).start()

    def flood(self) -> None:
        block = FLOODS[self.mode] * 1000
        stream = sys.stderr if self.mode == "stderr-flood" else sys.stdout
        lock = threading.Lock() if stream is sys.stderr else _OUT
        try:
            while True:
                with lock:
                    stream.write(block)
                    stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            return

    def run(self) -> int:
        code = super().run()
        if self.mode == "stubborn":
            while True:  # only SIGKILL ends it
                time.sleep(1)
        return code

    def on_bug(self, words: list[str]) -> None:
        if self.mode != "long-name":
            super().on_bug(words)
            return
        noise = "\x1b]0;pwned\x07\x1b[2J\u2028\u202e"
        send(f"id name Hostile {noise}{'N' * 8000}")
        send(f"id author {AUTHOR} {noise}{'A' * 8000}")
        send(f"option name {'O' * 8000}{noise} type spin default 0 min 0 max 1")
        send("option name Seed type spin default 0 min 0 max 2147483647")
        send("bugok")

    def on_go(self, words: list[str]) -> None:
        if self.mode == "orphan-exit" and self.moves_played >= self.after:
            self.spawn(new_session=False, keep_pipes=True)
            sys.stdout.flush()
            os._exit(0)
        super().on_go(words)

    def answer(self, turn: Turn, move: str) -> None:
        if self.mode == "huge-score":
            # The last info before the move is the one kept: depth 12, the rest absurd.
            digits = "9" * 500
            send(f"info depth {digits} score cp {digits} nodes {digits}")
            send(f"info depth 12 score mate -{'7' * 5000} score cp -{digits} pv {move}")
            self.moves_played += 1
            send(f"bestmove {move} turn {turn.token}{self.board_suffix(turn)}")
            return
        if self.mode == "ptell-flood":
            text = "spam \x1b[2J\x07 " + "x" * 400
            sys.stdout.write("".join(f"ptell {i} {text}\n" for i in range(self.count)))
        super().answer(turn, move)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=MODES, help="the attack")
    parser.add_argument("--after", type=int, default=1, help="moves played before orphan-exit")
    parser.add_argument("--count", type=int, default=2000, help="ptell-flood messages per move")
    parser.add_argument("--delay", type=int, default=0, help="thinking time per move in ms")
    parser.add_argument("--marker", default="hostile-engine", help="text on every command line")
    args = parser.parse_args(argv)
    return Hostile(args.mode, args.after, args.count, args.marker, args.delay).run()


if __name__ == "__main__":
    sys.exit(main())
