"""A fake xboard bughouse engine with Sunsetter's habits, in memory or as a program.

``SunsetterLike`` reads the lines an adapter sends and answers as Sunsetter 9
does (``georgvonzimmermann/Sunsetter``, ``interface.cpp``, checked against
the real program):

- ``feature ping=0 ... setboard=1 ... variants="crazyhouse,bughouse" done=1``;
  ``new`` is ignored, ``variant bughouse`` resets the board;
- ``setboard`` switches the rules to crazyhouse (captures go to the
  capturer's pocket, ``holding`` is ignored) and makes it play the side *not*
  to move;
- ``time``/``otim`` set the clocks of the colour it believes it plays and of
  the other one; ``white``/``black`` set the side to move and give it the
  other colour; ``go`` gives it the side to move;
- with no legal move it sits without a word, and moves as soon as a
  ``holding`` gives it a piece to drop;
- it announces ``memory=1``, but after a ``memory N`` the next ``new``
  crashes it (SIGSEGV, after "table size must be > 25165824 bytes" on
  stderr: ``Crashed`` in memory).

Its choice of move is simple and greedy for drops, which is what shows a
pocket it has wrong: a drop that mates, else ``prefer`` moves in order when
legal, else any drop, else the first legal move in UCI order. Options:
``keeps_bughouse`` keeps the rules through ``setboard`` (a well-behaved
engine), ``ping`` adds ``ping=1`` and ``pong``, ``offers_option`` announces
``option="Aggression -spin 5 0 10"`` (Sunsetter itself announces none),
``resigns`` has it resign whenever it is to move.

Run as a program (``python tests/xboard_fake.py [--keeps-bughouse] [--ping]
[--no-option] [--resigns] [--delay S]``) it speaks over standard input and
output; ``--delay`` has it think S seconds a move, hearing ``holding`` meanwhile.
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import signal
import sys
import time

import chess
import chess.variant


class Crashed(Exception):
    """What Sunsetter does at ``new`` after a ``memory`` command: it dies (SIGSEGV)."""


PIECES = {"P": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP, "R": chess.ROOK, "Q": chess.QUEEN}


class SunsetterLike:
    def __init__(
        self,
        *,
        keeps_bughouse: bool = False,
        ping: bool = False,
        prefer: list[str] | None = None,
        offers_option: bool = True,
        resigns: bool = False,
        delay: float = 0.0,
    ) -> None:
        self.keeps_bughouse = keeps_bughouse
        #: Seconds it thinks after ``go`` (the program's loop calls ``tick``); it
        #: reads ``holding`` meanwhile, as Sunsetter does mid-search.
        self.delay = delay
        self.due: float | None = None
        self.ping = ping
        self.offers_option = offers_option
        #: It resigns whenever it is to move (a hopeless engine).
        self.resigns = resigns
        #: A ``memory`` command came: the next ``new`` crashes it.
        self.memory_set = False
        self.prefer = list(prefer or [])
        self.board = chess.variant.CrazyhouseBoard()
        self.rules = "bughouse"
        self.playing: chess.Color = chess.BLACK
        self.force = False
        self.in_game = False
        #: Centiseconds per colour, as set by time/otim.
        self.clock = {chess.WHITE: 0, chess.BLACK: 0}
        #: The clock it had at each ``go`` (what it budgets its move from).
        self.budgets: list[int] = []
        self.options: list[str] = []
        self.received: list[str] = []
        self.thinking = False

    # -- input ------------------------------------------------------------------

    def feed(self, line: str) -> list[str]:
        """One line from the adapter; returns the engine's output lines."""
        self.received.append(line)
        words = line.split()
        if not words:
            return []
        head, args = words[0], words[1:]
        if head == "protover":
            ping = 1 if self.ping else 0
            option = 'option="Aggression -spin 5 0 10" ' if self.offers_option else ""
            return [
                f"feature ping={ping} draw=0 sigint=0 setboard=1 analyze=1 memory=1 "
                f'myname="FakeSunsetter" variants="crazyhouse,bughouse" {option}done=1'
            ]
        if head == "memory":
            self.memory_set = True
            return []
        if head == "new" and self.memory_set:
            raise Crashed(line)
        if head in ("xboard", "new", "accepted", "easy", "hard", "level", "post"):
            return []
        if head == "ping" and self.ping:
            return [f"pong {' '.join(args)}"]
        if head == "option":
            self.options.append(" ".join(args))
            return []
        if head == "variant":
            self.board = chess.variant.CrazyhouseBoard()
            self.rules = "bughouse" if args[:1] == ["bughouse"] else "crazyhouse"
            self.playing = chess.BLACK
            self.in_game = True
            self.thinking = False
            return []
        if head == "setboard":
            if not self.keeps_bughouse:
                self.rules = "crazyhouse"
            self.board = chess.variant.CrazyhouseBoard(" ".join(args))
            self.playing = not self.board.turn
            self.in_game = True
            self.thinking = False
            return []
        if head == "force":
            self.force = True
            self.thinking = False
            return []
        if head in ("white", "black"):
            self.board.turn = head == "white"
            self.playing = head != "white"
            return []
        if head == "time":
            self.clock[self.playing] = int(args[0])
            return []
        if head == "otim":
            self.clock[not self.playing] = int(args[0])
            return []
        if head == "go":
            self.force = False
            self.playing = self.board.turn
            self.budgets.append(self.clock[self.playing])
            self.thinking = True
            if self.delay:
                self.due = time.monotonic() + self.delay
                return []
            return self.think()
        if head == "holding":
            if self.rules == "bughouse":
                self.set_holding(line)
            return self.think() if self.thinking and self.due is None else []
        if head == "?":
            self.due = None
            return self.think()
        if head in ("ptell", "partner", "quit", "result"):
            return []
        return self.opponent_move(head, line)

    def set_holding(self, line: str) -> None:
        groups = line.split("[")[1:3]
        for color, group in zip((chess.WHITE, chess.BLACK), groups, strict=False):
            pocket = self.board.pockets[color]
            pocket.reset()
            for letter in group.split("]")[0]:
                if letter.upper() in PIECES:
                    pocket.add(PIECES[letter.upper()])

    def opponent_move(self, text: str, line: str) -> list[str]:
        if not self.in_game:
            return [f"Illegal move: {line}"]
        if text == "usermove":
            text = line.split()[-1]
        try:
            move = self.board.parse_uci(text)
        except ValueError:
            return [f"Illegal move: {line}"]
        self.push(move)
        if not self.force and self.board.turn == self.playing:
            self.thinking = True
            return self.think()
        return []

    # -- moving -----------------------------------------------------------------

    def push(self, move: chess.Move) -> None:
        before = sum(len(self.board.pockets[c]) for c in chess.COLORS)
        pockets = {c: self.board.pockets[c].copy() for c in chess.COLORS}
        self.board.push(move)
        grew = sum(len(self.board.pockets[c]) for c in chess.COLORS) > before
        if self.rules == "bughouse" and grew:
            # In bughouse the capture goes to the partner board, not here.
            for color in chess.COLORS:
                self.board.pockets[color] = pockets[color]

    def choose(self) -> chess.Move | None:
        moves = sorted(self.board.legal_moves, key=lambda m: m.uci())
        if not moves:
            return None
        drops = [m for m in moves if m.drop is not None]
        for move in drops:
            self.board.push(move)
            mate = self.board.is_checkmate()
            self.board.pop()
            if mate:
                return move
        for text in self.prefer:
            chosen = next((m for m in moves if m.uci() == text), None)
            if chosen is not None:
                self.prefer.remove(text)
                return chosen
        return drops[0] if drops else moves[0]

    def tick(self) -> list[str]:
        """Its thinking time is up: the move (or nothing, if it sits)."""
        self.due = None
        return self.think()

    def think(self) -> list[str]:
        if self.force or not self.thinking or self.board.turn != self.playing:
            return []
        if self.resigns:
            self.thinking = False
            return ["resign"]
        move = self.choose()
        if move is None:
            return []  # sits without a word
        self.thinking = False
        self.push(move)
        text = move.uci()
        if move.drop is not None:
            text = f"{chess.piece_symbol(move.drop).upper()}@{chess.square_name(move.to_square)}"
        return [f"move {text}"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keeps-bughouse", action="store_true")
    parser.add_argument("--ping", action="store_true")
    parser.add_argument("--no-option", action="store_true")
    parser.add_argument("--resigns", action="store_true")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds it thinks a move")
    args = parser.parse_args()
    engine = SunsetterLike(
        keeps_bughouse=args.keeps_bughouse,
        ping=args.ping,
        offers_option=not args.no_option,
        resigns=args.resigns,
        delay=args.delay,
    )
    pending = b""
    while True:
        wait = None if engine.due is None else max(0.0, engine.due - time.monotonic())
        if not select.select([sys.stdin.fileno()], [], [], wait)[0]:
            for answer in engine.tick():
                print(answer, flush=True)
            continue
        chunk = os.read(sys.stdin.fileno(), 65536)
        if not chunk:
            return
        *lines, pending = (pending + chunk).split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").strip()
            if line == "quit":
                return
            try:
                answers = engine.feed(line)
            except Crashed:
                # Sunsetter's own words before it dies (its hash table was given too little).
                print("table size must be > 25165824 bytes", file=sys.stderr, flush=True)
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
                os.kill(os.getpid(), signal.SIGSEGV)
            for answer in answers:
                print(answer, flush=True)


if __name__ == "__main__":
    main()
