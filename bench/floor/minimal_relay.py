#!/usr/bin/env python3
"""Minimal reference bughouse relay under trio: the floor for a Python harness.

(Copied unchanged in substance from the shared performance material, so that
``bench/relay_ratio.py`` can run it next to ``bughouse match``.)

Spawns 4 native-protocol (protocol.md, BUG/1) engine processes and plays
``--games`` matches between them in the arbiter's pattern:

  bestmove read off a pipe -> token check -> clock pressed -> ONE legality check
  (python-chess CrazyhouseBoard.is_legal) + push -> capture passed to the partner
  board -> ``event`` line written to the other three, then to the mover ->
  mate/deadlock check on the moved board -> ``state`` + ``go`` to the next seat.

What it leaves out on purpose (so it is a floor, not a rival): no SAN, no
record (BPGN) or per-move display line unless --record (buffered; with
--record-each-move one write a move, as ``bughouse match`` writes its BPGN
file), no protocol log, no draw/ptell/resign handling, no wait_for_block
subtleties beyond "check a drop could block is not mate", no early wake-up
before a flag (plain trio.move_on_at on the earliest deadline).  One reader
task per engine stdout; writes are direct os.write on the (non-blocking)
stdin pipe.

Prints one JSON line: plies, games, seconds in play, wall, own CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import shlex
import subprocess
import sys
import time

import chess
import chess.variant
import trio

HERE = os.path.dirname(os.path.abspath(__file__))
SEATS = ("a-white", "a-black", "b-white", "b-black")
SEAT_OF = {("a", True): 0, ("a", False): 1, ("b", True): 2, ("b", False): 3}
START = chess.variant.CrazyhouseBoard.starting_fen
RULES = (
    "rules time={t:g} increment=0 wait_for_block=on stalemate=wait dropped_pawn_double_step=on "
    "dropped_rook_castles=off drop_check=allowed repetition=none board_end=match "
    "turn_time_limit=none max_plies={mp} illegal_move=lose"
)


class Engine:
    def __init__(self, index: int, argv: list[str]) -> None:
        self.index = index
        self.seat = SEATS[index]
        self.argv = argv
        self.proc: trio.Process | None = None
        self.fd = -1

    def write(self, data: bytes) -> None:
        # The arbiter's pattern: one non-blocking os.write per line batch.
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                time.sleep(0.0001)  # never seen with these line sizes; keeps it simple
                continue
            view = view[n:]


async def reader(engine: Engine, send: trio.MemorySendChannel) -> None:
    assert engine.proc is not None and engine.proc.stdout is not None
    stream = engine.proc.stdout
    buf = b""
    while True:
        chunk = await stream.receive_some(65536)
        if not chunk:
            send.send_nowait((engine.index, None, trio.current_time()))
            return
        now = trio.current_time()
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            send.send_nowait((engine.index, line, now))


def blockable(board: chess.variant.CrazyhouseBoard) -> bool:
    """A check that a dropped piece could block (wait_for_block=on): not mate."""
    king = board.king(board.turn)
    checkers = board.checkers_mask()
    if chess.popcount(checkers) != 1:
        return False
    return bool(chess.between(king, chess.msb(checkers)) & ~board.occupied)


class Relay:
    def __init__(self, engines: list[Engine], tc: float, max_plies: int, record) -> None:
        self.engines = engines
        self.tc = tc
        self.max_plies = max_plies
        self.record = record
        self.overheads: list[float] = []
        self.used: list[float] = []
        self.used_by_seat: list[tuple[int, int, float]] = []  # (game, seat index, seconds)

    async def start_engines(self, nursery: trio.Nursery, send) -> None:
        for e in self.engines:
            e.proc = await trio.lowlevel.open_process(
                e.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
            e.fd = e.proc.stdin.fileno()
            nursery.start_soon(reader, e, send)
        for e in self.engines:
            e.write(b"bug 1\n")

    async def wait_for(self, receive, word: bytes, count: int) -> None:
        seen = 0
        while seen < count:
            index, line, _ = await receive.receive()
            if line is None:
                raise RuntimeError(f"engine {index} left during start")
            if line.split()[:1] == [word]:
                seen += 1

    async def quit_engines(self) -> None:
        for e in self.engines:
            with contextlib.suppress(OSError):
                e.write(b"quit\n")
            await e.proc.stdin.aclose()
        for e in self.engines:
            with trio.move_on_after(2):
                await e.proc.wait()
            if e.proc.returncode is None:
                e.proc.kill()
                await e.proc.wait()

    async def play_game(self, number: int, receive) -> tuple[int, float, str]:
        tc_ms = int(self.tc * 1000)
        names = "".join(f"player {s} engine Instant\n" for s in SEATS)
        rules = RULES.format(t=self.tc, mp=self.max_plies)
        boards = {"a": chess.variant.CrazyhouseBoard(), "b": chess.variant.CrazyhouseBoard()}
        fens = {"a": START, "b": START}
        clocks = [float(self.tc)] * 4
        for e in self.engines:
            e.write(
                (
                    f"newgame id g{number} seat {e.seat} time {tc_ms} inc 0\n{names}{rules}\n"
                    f"state v 0 a {START} b {START} clock {tc_ms} {tc_ms} {tc_ms} {tc_ms}\n"
                    "isready\n"
                ).encode()
            )
        await self.wait_for(receive, b"readyok", 4)
        version = 0
        token = 0
        open_turn: dict[int, int] = {}  # seat index -> token
        started_at: dict[int, float] = {}  # seat index -> turn start

        def clock_text(now: float) -> str:
            return " ".join(
                str(
                    max(
                        0, int((clocks[i] - (now - started_at[i] if i in started_at else 0)) * 1000)
                    )
                )
                for i in range(4)
            )

        def open_turn_on(board_name: str) -> None:
            nonlocal token
            seat = SEAT_OF[(board_name, boards[board_name].turn)]
            token += 1
            open_turn[seat] = token
            now = trio.current_time()
            started_at[seat] = now
            self.engines[seat].write(
                (
                    f"state v {version} a {fens['a']} b {fens['b']} clock {clock_text(now)}\n"
                    f"go v {version} turn {token} board {board_name}\n"
                ).encode()
            )

        t0 = trio.current_time()
        open_turn_on("a")
        open_turn_on("b")
        result = "*"
        reason = ""
        while True:
            deadline = min(started_at[s] + clocks[s] for s in started_at)
            item = None
            with trio.move_on_at(deadline):
                item = await receive.receive()
            if item is None:
                flagged = min(started_at, key=lambda s: started_at[s] + clocks[s])
                result, reason = ("0-1" if flagged in (0, 3) else "1-0"), "flag"
                break
            index, line, arrived = item
            if line is None:
                result, reason = ("0-1" if index in (0, 3) else "1-0"), "left"
                break
            words = line.split()
            if not words or words[0] != b"bestmove":
                continue  # wait, info, readyok...: nothing to do in the floor
            # bestmove <move> turn <t> [board <b>]
            try:
                tok = int(words[words.index(b"turn") + 1])
            except (ValueError, IndexError):
                continue
            if open_turn.get(index) != tok:
                continue  # stale
            taken = trio.current_time()
            seat_name = SEATS[index]
            board_name = seat_name[0]
            board = boards[board_name]
            used = max(0.0, arrived - started_at[index])
            clocks[index] -= used
            self.used.append(used)
            self.used_by_seat.append((number, index, used))
            del open_turn[index]
            del started_at[index]
            text = words[1].decode()
            try:
                move = chess.Move.from_uci(text if "@" not in text else text[0].upper() + text[1:])
            except ValueError:
                move = None
            if move is None or not board.is_legal(move):  # the one legality check
                result, reason = ("0-1" if index in (0, 3) else "1-0"), "illegal_move"
                break
            passed = None
            if board.is_capture(move):
                if board.is_en_passant(move):
                    piece_type = chess.PAWN
                else:
                    piece_type = board.piece_type_at(move.to_square)
                    if board.promoted & chess.BB_SQUARES[move.to_square]:
                        piece_type = chess.PAWN
                passed = piece_type
            mover = board.turn
            board.push(move)
            other_name = "b" if board_name == "a" else "a"
            fens[board_name] = None
            pass_text = ""
            if passed is not None:
                board.pockets[mover].remove(passed)  # crazyhouse put it in the mover's pocket
                boards[other_name].pockets[not mover].add(passed)  # partner gets it, colour kept
                fens[other_name] = None
                pass_text = " pass " + chess.Piece(passed, not mover).symbol()
            version += 1
            now = trio.current_time()
            event = (
                f"event v {version} board {board_name} move {text} {pass_text.strip()}".rstrip()
                + f" clock {clock_text(now)}\n"
            ).encode()
            for e in self.engines:  # the other three first, the mover last
                if e.index != index:
                    e.write(event)
            self.engines[index].write(event)
            for name in ("a", "b"):
                if fens[name] is None:
                    fens[name] = boards[name].fen()
            if self.record is not None:
                self.record.write(f"{version} {board_name} {text}{pass_text}\n")
            # judge the moved board (and deadlock)
            if not any(board.generate_legal_moves()):
                if board.is_check() and not blockable(board):
                    loser = SEAT_OF[(board_name, board.turn)]
                    result, reason = ("0-1" if loser in (0, 3) else "1-0"), "checkmate"
                    self.overheads.append(trio.current_time() - taken)
                    break
                if not any(boards[other_name].generate_legal_moves()):
                    result, reason = "1/2-1/2", "deadlock"
                    self.overheads.append(trio.current_time() - taken)
                    break
            if version >= self.max_plies:
                result, reason = "1/2-1/2", "max_plies"
                self.overheads.append(trio.current_time() - taken)
                break
            open_turn_on(board_name)
            self.overheads.append(trio.current_time() - taken)
        seconds = trio.current_time() - t0
        for e in self.engines:
            e.write(f"gameover result {result} reason {reason} text done\n".encode())
        return version, seconds, f"{result} {reason}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--engine",
        default=f"{sys.executable} {os.path.join(HERE, 'instant_engine.py')}",
        help="engine command line (all four seats)",
    )
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--tc", type=float, default=60.0)
    parser.add_argument("--max-plies", type=int, default=800)
    parser.add_argument(
        "--respawn",
        action="store_true",
        help="new engine processes for every game, as `bughouse match` does",
    )
    parser.add_argument("--record", help="append one line per move to this file")
    parser.add_argument(
        "--record-each-move",
        action="store_true",
        help="with --record: hand each line to the kernel as its move is played (one write a move)",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    argv = shlex.split(args.engine)
    wall0 = time.perf_counter()
    buffering = 1 if args.record_each_move else -1  # 1: line-buffered, a write per line
    record = open(args.record, "a", buffering=buffering) if args.record else None  # noqa: SIM115
    plies = 0
    seconds = 0.0
    overheads: list[float] = []
    used: list[float] = []
    used_by_seat: list = []
    outcomes = []

    async def session(games: list[int]) -> None:
        nonlocal plies, seconds
        send, receive = trio.open_memory_channel(math.inf)
        engines = [Engine(i, argv) for i in range(4)]
        relay = Relay(engines, args.tc, args.max_plies, record)
        async with trio.open_nursery() as nursery:
            await relay.start_engines(nursery, send)
            await relay.wait_for(receive, b"bugok", 4)
            for number in games:
                p, s, outcome = await relay.play_game(number, receive)
                plies += p
                seconds += s
                outcomes.append(outcome)
                if not args.quiet:
                    print(f"game {number}: {p} plies in {s:.3f} s: {outcome}", flush=True)
            await relay.quit_engines()
            nursery.cancel_scope.cancel()
        overheads.extend(relay.overheads)
        used_by_seat.extend(relay.used_by_seat)
        used.extend(relay.used)

    if args.respawn:
        for number in range(1, args.games + 1):
            await session([number])
    else:
        await session(list(range(1, args.games + 1)))
    if record is not None:
        record.close()
    if os.environ.get("INSTANT_LOG_DIR"):
        with open(os.path.join(os.environ["INSTANT_LOG_DIR"], "relay_used.json"), "w") as fh:
            json.dump(used_by_seat, fh)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    overheads.sort()
    print(
        json.dumps(
            {
                "harness": "minimal_relay",
                "games": args.games,
                "plies": plies,
                "play_s": round(seconds, 4),
                "plies_per_s_play": round(plies / seconds, 1),
                "wall_s": round(time.perf_counter() - wall0, 4),
                "self_cpu_s": round(ru.ru_utime + ru.ru_stime, 4),
                "self_cpu_ms_per_ply": round((ru.ru_utime + ru.ru_stime) / max(1, plies) * 1e3, 4),
                "inside_median_ms": round(overheads[len(overheads) // 2] * 1e3, 4)
                if overheads
                else None,
                "maxrss_kib": ru.ru_maxrss,
                "outcomes": outcomes[:5],
                "flags": sum("flag" in o for o in outcomes),
                "used_ms_median": round(sorted(used)[len(used) // 2] * 1e3, 3) if used else None,
                "used_ms_p99": round(sorted(used)[int(0.99 * (len(used) - 1))] * 1e3, 3)
                if used
                else None,
                "used_ms_max": round(max(used) * 1e3, 3) if used else None,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    trio.run(main)
