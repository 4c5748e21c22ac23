#!/usr/bin/env python3
"""RandomMover: a bughouse engine that plays random legal moves and drops.

Written from protocol.md (BUG/1) alone; it needs the standard library and
python-chess, nothing of the arbiter. Run it as ``python engines/random_mover.py
[--seed N] [--delay MS]``.

- A reader thread reads standard input all the time, so events and
  ``isready`` are handled even while it "thinks" (``Delay`` milliseconds).
- With no legal move it answers ``wait``; when an event brings a piece to
  its pocket it tries again and answers the same turn with ``bestmove``.
- Options: ``Seed`` (0 = a fresh random seed) and ``Delay`` (thinking time
  in ms). It announces ``feature team`` and can hold both seats of a team.
"""

from __future__ import annotations

import argparse
import queue
import random
import sys
import threading
import time
from collections.abc import Callable

import chess
import chess.variant

NAME = "RandomMover 1.0"
AUTHOR = "The bughouse-arbiter authors"
BOARDS = ("a", "b")
SEAT_ORDER = ("a-white", "a-black", "b-white", "b-black")


def start_reader(lines: queue.Queue[str | None]) -> None:
    """Reads stdin on a thread; ``None`` marks the end of input."""

    def read() -> None:
        for line in sys.stdin:
            lines.put(line.rstrip("\r\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def fields(words: list[str], keys: set[str]) -> dict[str, str]:
    """``key value`` pairs of a line; unknown keys are skipped with their value."""
    found: dict[str, str] = {}
    i = 0
    while i + 1 < len(words):
        if words[i] in keys:
            found[words[i]] = words[i + 1]
        i += 2
    return found


class Turn:
    """An open turn: its token and board."""

    def __init__(self, token: int, board: str) -> None:
        self.token = token
        self.board = board


class RandomMover:
    """The engine: state from ``state`` lines, pockets from ``event`` lines."""

    def __init__(self, seed: int = 0, delay_ms: int = 0) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seed = seed
        self.delay_ms = delay_ms
        self.rng = random.Random(seed or None)
        self.seats: list[str] = []
        self.rules: dict[str, str] = {}
        self.boards: dict[str, chess.variant.CrazyhouseBoard] = {}
        self.waiting: list[Turn] = []  # turns answered with "wait"
        self.thinking: Turn | None = None
        self.moves_played = 0
        self.running = True
        self.held_back: list[str] = []  # lines left for after the current turn

    # -- the loop ---------------------------------------------------------------

    def run(self) -> int:
        start_reader(self.lines)
        while self.running:
            line = self.held_back.pop(0) if self.held_back else self.lines.get()
            if line is None:
                break
            self.handle(line)
        return 0

    def handle(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        handler: Callable[[list[str]], None] | None = getattr(
            self, "on_" + words[0].replace("-", "_"), None
        )
        if handler is None:
            return
        try:
            handler(words)
        except (KeyError, ValueError, IndexError) as exc:
            send(f"error cannot read {line[:100]!r}: {type(exc).__name__} {exc}")

    # -- commands ---------------------------------------------------------------

    def on_bug(self, words: list[str]) -> None:
        send(f"id name {NAME}")
        send(f"id author {AUTHOR}")
        send("option name Seed type spin default 0 min 0 max 2147483647")
        send("option name Delay type spin default 0 min 0 max 600000")
        send("feature team")
        send("bugok")

    def on_setoption(self, words: list[str]) -> None:
        if "value" not in words:
            return
        at = words.index("value")
        name, value = " ".join(words[2:at]), " ".join(words[at + 1 :])
        try:
            number = int(value)
        except ValueError:
            send(f"error option {name} needs a number, got {value}")
            return
        if name == "Seed":
            self.seed = number
            self.rng = random.Random(number or None)
        elif name == "Delay":
            self.delay_ms = number

    def on_isready(self, words: list[str]) -> None:
        send("readyok")

    def on_newgame(self, words: list[str]) -> None:
        self.seats = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "seat"]
        self.rules = {}
        self.boards = {}
        self.waiting = []
        self.moves_played = 0

    def on_rules(self, words: list[str]) -> None:
        for word in words[1:]:
            name, _, value = word.partition("=")
            self.rules[name] = value

    def on_state(self, words: list[str]) -> None:
        # state v N a <6 fields> b <6 fields> clock ...
        self.boards = {
            "a": chess.variant.CrazyhouseBoard(" ".join(words[4:10])),
            "b": chess.variant.CrazyhouseBoard(" ".join(words[11:17])),
        }

    def on_event(self, words: list[str]) -> None:
        found = fields(words[3:], {"board", "move", "pass"})
        piece = found.get("pass")
        board = found.get("board")
        if piece is None or board not in BOARDS or not self.boards:
            return
        # The piece goes to the pocket of the other board.
        other = "b" if board == "a" else "a"
        got = chess.Piece.from_symbol(piece)
        self.boards[other].pockets[got.color].add(got.piece_type)
        for turn in list(self.waiting):
            if turn.board == other and self.boards[other].turn == got.color:
                move = self.choose(other)
                if move is not None:
                    self.waiting.remove(turn)
                    self.answer(turn, move)

    def on_go(self, words: list[str]) -> None:
        found = fields(words[1:], {"v", "turn", "board", "movetime"})
        turn = Turn(int(found["turn"]), found.get("board", "a"))
        self.waiting = [t for t in self.waiting if t.board != turn.board]
        self.think(turn, int(found.get("movetime", self.delay_ms)))
        move = self.choose(turn.board)
        if move is None:
            self.waiting.append(turn)
            self.send_wait(turn, "no legal move")
        else:
            self.answer(turn, move)

    def on_gameover(self, words: list[str]) -> None:
        self.waiting = []

    def on_quit(self, words: list[str]) -> None:
        self.running = False

    # -- thinking ---------------------------------------------------------------

    def think(self, turn: Turn, delay_ms: int) -> None:
        """Spends ``delay_ms`` while still handling every line that comes in."""
        if delay_ms <= 0:
            return
        deadline = time.monotonic() + delay_ms / 1000
        self.thinking = turn
        try:
            while self.running and (left := deadline - time.monotonic()) > 0:
                try:
                    line = self.lines.get(timeout=left)
                except queue.Empty:
                    break
                if line is None:
                    self.running = False
                    break
                if line.split()[:1] in (["go"], ["gameover"], ["quit"]):
                    self.held_back.append(line)  # handled after this turn
                    break
                self.handle(line)
        finally:
            self.thinking = None

    def legal_moves(self, board_name: str) -> list[chess.Move]:
        board = self.boards[board_name]
        moves = list(board.legal_moves)
        drop_check = self.rules.get("drop_check", "allowed")
        if drop_check != "allowed":
            moves = [m for m in moves if m.drop is None or not self._drop_refused(board, m)]
        if self.rules.get("dropped_pawn_double_step") == "off":
            # It cannot tell dropped pawns from others: it never double-steps.
            moves = [
                m
                for m in moves
                if board.piece_type_at(m.from_square) != chess.PAWN
                or abs(m.to_square - m.from_square) != 16
            ]
        return moves

    def _drop_refused(self, board: chess.variant.CrazyhouseBoard, move: chess.Move) -> bool:
        board.push(move)
        try:
            if self.rules.get("drop_check") == "no-check":
                return board.is_check()
            return board.is_checkmate()
        finally:
            board.pop()

    def choose(self, board_name: str) -> str | None:
        moves = self.legal_moves(board_name)
        if not moves:
            return None
        return self.rng.choice(moves).uci()

    # -- answers ----------------------------------------------------------------

    def board_suffix(self, turn: Turn) -> str:
        return f" board {turn.board}" if len(self.seats) > 1 else ""

    def answer(self, turn: Turn, move: str) -> None:
        self.moves_played += 1
        send(f"info depth 0 string random choice of {len(self.legal_moves(turn.board))}")
        send(f"bestmove {move} turn {turn.token}{self.board_suffix(turn)}")

    def send_wait(self, turn: Turn, reason: str) -> None:
        send(f"wait turn {turn.token}{self.board_suffix(turn)} reason {reason}")


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="random seed (0: a fresh one)")
    parser.add_argument("--delay", type=int, default=0, help="thinking time per move in ms")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    return RandomMover(seed=args.seed, delay_ms=args.delay).run()


if __name__ == "__main__":
    sys.exit(main())
