#!/usr/bin/env python3
"""A minimal, near-instant native-protocol (BUG/1) engine, written from protocol.md.

(Copied from the shared performance material with one addition:
INSTANT_CPU_AT, below.)

Plays a random legal move at once (python-chess CrazyhouseBoard built from the
``state`` line's FEN of its own board only, only when a ``go`` comes).  Reads
stdin with plain blocking reads on the main thread (no reader thread), so it
costs as little CPU per move as a Python engine can.

With INSTANT_LOG_DIR set it keeps, in memory, a perf_counter() stamp (CLOCK_MONOTONIC,
comparable across processes) for every ``go`` line read and every ``bestmove`` written,
and on quit/EOF dumps them with its own CPU time as one JSON file per process.
With INSTANT_CPU_AT="100,200,..." it also notes the harness's CPU (its parent's,
as for the start/end marks) when it reads a ``go`` at one of those versions
(``cpu_marks``: v, t, cpu s, main-thread run s), so the per-ply cost of the
harness can be compared early and late in a long game.
"""

import json
import os
import random
import resource
import sys
import time

import chess
import chess.variant

perf = time.perf_counter
LOG_DIR = os.environ.get("INSTANT_LOG_DIR")
out = sys.stdout.buffer
inp = sys.stdin.buffer


PPID = os.getppid()
TICK = os.sysconf("SC_CLK_TCK")


def parent_cpu() -> tuple[float, float, float]:
    """The harness (our parent): (utime+stime of all its threads in s, main thread
    on-CPU s and run-queue wait s from schedstat, ns resolution)."""
    try:
        with open(f"/proc/{PPID}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        with open(f"/proc/{PPID}/schedstat") as fh:
            run_ns, wait_ns, _ = fh.read().split()
        with open(f"/proc/{PPID}/status") as fh:
            status = {
                ln.split(":")[0]: ln.split()[1] for ln in fh if ":" in ln and len(ln.split()) > 1
            }
        return (
            ticks / TICK,
            int(run_ns) / 1e9,
            int(wait_ns) / 1e9,
            int(status["voluntary_ctxt_switches"]),
            int(status["nonvoluntary_ctxt_switches"]),
            int(status["VmRSS"]),
            int(status["VmHWM"]),
        )
    except (OSError, ValueError, IndexError, KeyError):
        return (float("nan"),) * 7


MODE = os.environ.get("INSTANT_MODE", "random")
CPU_AT = {int(v) for v in os.environ.get("INSTANT_CPU_AT", "").split(",") if v.strip()}


def pick(rng, board, legal):
    """random: any legal move. shuffle: a quiet knight move when there is one
    (games then go on to max_plies, for length-scaling runs)."""
    if MODE == "shuffle":
        quiet = [
            m
            for m in legal
            if m.drop is None
            and board.piece_type_at(m.from_square) == chess.KNIGHT
            and not board.is_capture(m)
        ]
        if quiet:
            return rng.choice(quiet)
    return rng.choice(legal)


def send(text: str) -> None:
    out.write(text.encode() + b"\n")
    out.flush()


def main() -> int:
    rng = random.Random(int(os.environ.get("INSTANT_SEED", "0")) or None)
    seats: list[str] = []
    fens = {"a": None, "b": None}
    waiting = None  # (token, board, CrazyhouseBoard) for a turn answered with wait
    stamps: list[tuple[str, str, int, float]] = []  # (kind, board, v, t)
    last_v = {}
    moves = 0
    cpu_at_bug = 0.0
    parent_marks = []  # (kind, t, parent cpu s, parent main-thread run s, run-queue wait s)
    cpu_marks = []  # (v, t, parent cpu s, parent main-thread run s)
    for raw in inp:
        t = perf()
        words = raw.split()
        if not words:
            continue
        key = words[0]
        if key == b"event":
            if waiting is not None and b"pass" in words:
                # a piece may have arrived in our pocket: try the waiting turn again
                board_name = words[4].decode().lower()
                piece = chess.Piece.from_symbol(words[words.index(b"pass") + 1].decode())
                other = "b" if board_name == "a" else "a"
                token, wboard, board = waiting
                if wboard == other and board.turn == piece.color:
                    board.pockets[piece.color].add(piece.piece_type)
                    legal = list(board.legal_moves)
                    if legal:
                        waiting = None
                        moves += 1
                        if LOG_DIR:
                            stamps.append(("bm", wboard, last_v[wboard], perf()))
                        send(f"bestmove {pick(rng, board, legal).uci()} turn {token}")
            continue
        if key == b"state":
            s = raw.decode().split()
            fens["a"] = " ".join(s[4:10])
            fens["b"] = " ".join(s[11:17])
            continue
        if key == b"go":
            s = raw.decode().split()
            f = dict(zip(s[1::2], s[2::2], strict=False))
            token, board_name, v = f["turn"], f.get("board", "a").lower(), int(f["v"])
            if LOG_DIR:
                stamps.append(("go", board_name, v, t))
                if v == 0:
                    parent_marks.append(("start", t, *parent_cpu()))
            if v in CPU_AT:
                cpu_marks.append((v, t, *parent_cpu()[:2]))
            last_v[board_name] = v
            board = chess.variant.CrazyhouseBoard(fens[board_name])
            legal = list(board.legal_moves)
            if not legal:
                waiting = (token, board_name, board)
                send(f"wait turn {token} reason no legal move")
                continue
            waiting = None
            moves += 1
            if LOG_DIR:
                stamps.append(("bm", board_name, v, perf()))
            send(f"bestmove {pick(rng, board, legal).uci()} turn {token}")
            continue
        if key == b"isready":
            send("readyok")
        elif key == b"bug":
            ru0 = resource.getrusage(resource.RUSAGE_SELF)
            cpu_at_bug = ru0.ru_utime + ru0.ru_stime
            send("id name Instant 1.0")
            send("id author perf harness")
            send("bugok")
        elif key == b"newgame":
            s = raw.decode().split()
            seats = [s[i + 1] for i, w in enumerate(s[:-1]) if w == "seat"]
            waiting = None
        elif key == b"gameover":
            waiting = None
            if LOG_DIR:
                parent_marks.append(("end", t, *parent_cpu()))
        elif key == b"quit":
            break
    if LOG_DIR:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        with open(os.path.join(LOG_DIR, f"eng-{os.getpid()}.json"), "w") as fh:
            json.dump(
                {
                    "seats": seats,
                    "cpu": ru.ru_utime + ru.ru_stime,
                    "nvcsw": ru.ru_nvcsw,
                    "nivcsw": ru.ru_nivcsw,
                    "cpu_after_start": ru.ru_utime + ru.ru_stime - cpu_at_bug,
                    "moves": moves,
                    "maxrss_kib": ru.ru_maxrss,
                    "stamps": stamps,
                    "parent_marks": parent_marks,
                    "cpu_marks": cpu_marks,
                },
                fh,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
