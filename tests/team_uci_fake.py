"""A fake team-UCI engine with hivemind's habits, as a program.

Written from hivemind's ``engine/src/interface/uci.cc``, ``search/agent.cc`` and
``environment/joint_action.h`` (aminwoo/hivemind); what it does, as they do:

- prints ``Hivemind 1.0`` before reading anything; ``--no-model`` instead says
  on stderr that no ONNX model was found and exits 1 (hivemind without
  ``--model``);
- ``uci`` -> ``id``, its ``option`` lines (``Team``, ``Mode`` ...), an ``info
  string``, ``uciok``; ``isready`` -> ``readyok``;
- ``setoption name Team value white|black``: White on board A and Black on B,
  or the reverse; ``Mode sit|go``: up on time (may pass on both boards) or not;
- ``position startpos|fen <A>|<B> moves 1e2e4 2d7d5 ...``: a move it cannot
  read or play ends the list there, with an ``Error:`` line on stderr;
- ``go [movetime MS] [nodes N]`` (one second without either; clock words
  ignored): thinks on a thread; ``stop``, ``position``, ``setoption``,
  ``ucinewgame`` and a new ``go`` stop the search, which answers at once; every
  ``go`` is answered by exactly one ``bestmove (mA,mB) ponder (..)``;
- a board not on move is ``pass``; without ``Mode sit`` it passes on a board it
  is on move only when it captures on the other (``is_single_pass_legal``); with
  ``Mode sit`` and one board on move it may pass on both (``--sit``);
- ``bestmove (none)`` when the team is mated or has no action.

Its move on a board: a mate in one, else a capture, else any legal move (seeded).
``--think MS`` caps the thinking time; ``--trace FILE`` appends every line it
hears (with its pid) to FILE.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sys
import threading

import chess
import chess.variant
from tcs_fake import choose_move

START = chess.variant.CrazyhouseBoard().fen()


class Boards:
    """The two boards as hivemind keeps them: a capture feeds the partner's pocket."""

    def __init__(self, fens: tuple[str, str] = (START, START)) -> None:
        self.boards = [chess.variant.CrazyhouseBoard(fen) for fen in fens]

    def push(self, index: int, move: chess.Move) -> None:
        board = self.boards[index]
        mover = board.turn
        captured: chess.PieceType | None = None
        if board.is_capture(move):
            if board.is_en_passant(move):
                captured = chess.PAWN
            else:
                piece = board.piece_at(move.to_square)
                assert piece is not None
                promoted = bool(board.promoted & chess.BB_SQUARES[move.to_square])
                captured = chess.PAWN if promoted else piece.piece_type
        board.push(move)
        if captured is not None:
            board.pockets[mover].remove(captured)
            self.boards[1 - index].pockets[not mover].add(captured)


class Engine:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.team = chess.WHITE
        self.sit_mode = False
        self.boards = Boards()
        self.search: threading.Thread | None = None
        self.stop_event = threading.Event()
        self.out_lock = threading.Lock()

    def say(self, text: str) -> None:
        with self.out_lock:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    def trace(self, text: str) -> None:
        if self.args.trace:
            with open(self.args.trace, "a") as f:
                f.write(f"{os.getpid()} < {text}\n")

    # -- commands -------------------------------------------------------------------

    def stop(self) -> None:
        if self.search is not None:
            self.stop_event.set()
            self.search.join()
            self.search = None

    def position(self, words: list[str]) -> None:
        self.stop()
        if not words:
            return
        rest = words[1:]
        if words[0] == "startpos":
            fens = (START, START)
        elif words[0] == "fen":
            fen_words = []
            while rest and rest[0] != "moves":
                fen_words.append(rest.pop(0))
            a, _, b = " ".join(fen_words).partition("|")
            fens = (a.strip(), b.strip())
        else:
            return
        try:
            self.boards = Boards(fens)
        except ValueError as exc:
            print(f"Error: bad FEN: {exc}", file=sys.stderr, flush=True)
            return
        if rest and rest[0] == "moves":
            for count, token in enumerate(rest[1:], 1):
                if token[:1] not in ("1", "2"):
                    print(
                        f"Error: Invalid board indicator in move '{token}' at move {count}",
                        file=sys.stderr,
                        flush=True,
                    )
                    break
                index = int(token[0]) - 1
                board = self.boards.boards[index]
                try:
                    move = chess.Move.from_uci(token[1:])
                    legal = move in board.legal_moves
                except ValueError:
                    legal = False
                if not legal:
                    print(
                        f"Error: Invalid move '{token[1:]}' on board {index + 1} at move {count}",
                        file=sys.stderr,
                        flush=True,
                    )
                    break
                self.boards.push(index, move)

    def go(self, words: list[str]) -> None:
        movetime = nodes = 0
        for key, value in itertools.pairwise(words):
            if key == "movetime":
                movetime = int(value)
            elif key == "nodes":
                nodes = int(value)
        self.stop()
        ms = movetime if movetime > 0 else (nodes // 100 if nodes > 0 else 1000)
        if self.args.think is not None:
            ms = min(ms, self.args.think)
        self.stop_event = threading.Event()
        self.search = threading.Thread(target=self.think, args=(ms, self.stop_event))
        self.search.start()

    def think(self, ms: int, stopped: threading.Event) -> None:
        action = self.action()
        stopped.wait(ms / 1000)
        if action is None:
            self.say("bestmove (none)")
            return
        self.say("info depth 3 score cp 12 nodes 300 nps 3000 time 100 pv " + action)
        self.say(f"bestmove {action} ponder (pass,pass)")

    def action(self) -> str | None:
        a, b = self.boards.boards
        on_a, on_b = a.turn == self.team, b.turn != self.team
        if (on_a and a.is_checkmate()) or (on_b and b.is_checkmate()):
            return None
        move_a = choose_move(a, self.rng) if on_a else None
        move_b = choose_move(b, self.rng) if on_b else None
        if on_a != on_b and self.sit_mode and self.args.sit:
            return "(pass,pass)"
        if on_a and on_b and move_a and move_b and a.is_capture(move_a):
            move_b = None  # a pass on B is legal while A captures
        if move_a is None and move_b is None:
            return None
        text = [m.uci() if m else "pass" for m in (move_a, move_b)]
        return f"({text[0]},{text[1]})"

    def setoption(self, words: list[str]) -> None:
        self.stop()
        if len(words) < 4 or words[0] != "name" or words[2] != "value":
            return
        name, value = words[1], words[3]
        if name == "Team" and value in ("white", "black"):
            self.team = value == "white"
        elif name == "Mode" and value in ("sit", "go"):
            self.sit_mode = value == "sit"
        elif name == "Hash":
            self.say(f"info string Hash table set to {value} MB")

    def uci(self) -> None:
        for line in (
            "id name hivemind",
            "id author aminwoo",
            "",
            "option name Hash type spin default 16 min 1 max 33554432",
            "option name MultiPV type spin default 1 min 1 max 500",
            "option name Ponder type check default true",
            "option name Team type combo default white var white var black",
            "option name Mode type combo default go var sit var go",
            "info string CUDA engines 1 search workers 2 (2 per engine)",
            "uciok",
        ):
            self.say(line)

    def loop(self) -> None:
        for raw in sys.stdin:
            line = raw.strip()
            self.trace(line)
            token, *words = line.split() or [""]
            if token == "uci":
                self.uci()
            elif token == "isready":
                self.say("readyok")
            elif token == "go":
                self.go(words)
            elif token == "setoption":
                self.setoption(words)
            elif token == "position":
                self.position(words)
            elif token in ("ucinewgame", "stop"):
                self.stop()
            elif token == "quit":
                break
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--think", type=int, default=None)
    parser.add_argument("--sit", action="store_true", help="pass on both boards under Mode sit")
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--trace", default=None)
    args = parser.parse_args()
    print("Hivemind 1.0", flush=True)
    if args.no_model:
        print(
            "Error: No ONNX model found; pass --model <onnx> or --network <onnx>.",
            file=sys.stderr,
            flush=True,
        )
        return 1
    Engine(args).loop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
