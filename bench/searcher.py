#!/usr/bin/env python3
"""Figures for engines/searcher.py: nodes per second, depth reached, quick games.

    python bench/searcher.py                 # speed on a few positions, 0.5 s each
    python bench/searcher.py --seconds 1     # longer searches
    python bench/searcher.py --games 4       # in-process games, searcher team vs random movers

The games are refereed here with the engine's own board (captures passed to
the partner, mate by the wait-for-block rule) and no clocks: each searcher
move gets ``--move-seconds``. They show strength, not time keeping; the real
check is ``bughouse match``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engines"))

from searcher.partner import PartnerWishes
from searcher.plan import Table, decide
from searcher.position import BugBoard
from searcher.search import score_text, search

POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
    "pockets": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[NBPnbp] w KQkq - 4 4",
    "drops at king": "r1b2rk1/ppp2ppp/2n5/3q4/3P4/2P2N2/P4PPP/R2QKB1R[BNPPnp] w KQ - 0 12",
    "middlegame": "r2q1rk1/ppp2ppp/2npbn2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1[] w - - 0 8",
}


def speed(seconds: float) -> None:
    print(f"{'position':<18} {'depth':>5} {'nodes':>8} {'nps':>7}  best  score")
    for name, fen in POSITIONS.items():
        started = time.perf_counter()
        result = search(BugBoard(fen), seconds=seconds)
        elapsed = time.perf_counter() - started
        move = result.move.uci() if result.move else "-"
        print(
            f"{name:<18} {result.depth:>5} {result.nodes:>8} {int(result.nodes / elapsed):>7}"
            f"  {move:<5} {score_text(result.score)}"
        )


def play(seed: int, move_seconds: float, max_plies: int) -> str:
    """One game: a-white and b-black search, the others move at random. Returns who won."""
    rng = random.Random(seed)
    boards = {"a": BugBoard(), "b": BugBoard()}
    searchers = {("a", chess.WHITE), ("b", chess.BLACK)}
    for ply in range(max_plies):
        letter = "ab"[ply % 2]
        board = boards[letter]
        other = boards["b" if letter == "a" else "a"]
        moves = list(board.generate_legal_moves())
        if not moves:
            if board.is_check() and not board.drop_could_block():
                return "searcher" if (letter, board.turn) not in searchers else "random"
            continue  # the side to move waits
        if (letter, board.turn) in searchers:
            table = Table(
                board=letter,
                color=board.turn,
                mine=board.copy(stack=False),
                other=other.copy(stack=False),
                clocks=(60_000, 60_000, 60_000, 60_000),
                base_ms=60_000,
            )
            decision = decide(table, PartnerWishes(), seconds=move_seconds, may_sit=False)
            move = decision.move or rng.choice(moves)
        else:
            move = rng.choice(moves)
        mover = board.turn
        board.push(move)
        captured = board._captured[-1]
        board.clear_stack()
        if captured is not None:
            # The captured piece keeps its colour: the capturer's partner plays it.
            other.pockets[not mover].add(captured[1])
        if board.is_mate_now():
            return "searcher" if (letter, mover) in searchers else "random"
    return "undecided"


def games(count: int, move_seconds: float, max_plies: int) -> None:
    tally: dict[str, int] = {}
    for seed in range(count):
        started = time.perf_counter()
        winner = play(seed, move_seconds, max_plies)
        tally[winner] = tally.get(winner, 0) + 1
        print(f"game {seed + 1}: {winner} ({time.perf_counter() - started:.1f} s)")
    print("score:", ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="search time per position")
    parser.add_argument("--games", type=int, default=0, help="in-process games against random")
    parser.add_argument("--move-seconds", type=float, default=0.1)
    parser.add_argument("--max-plies", type=int, default=400)
    args = parser.parse_args()
    if args.games:
        games(args.games, args.move_seconds, args.max_plies)
    else:
        speed(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
