"""Legal-move generation and move application per second: ``BughouseBoard``
against plain ``chess.variant.CrazyhouseBoard`` on the same positions.

    python bench/rules.py [--positions N] [--seed S] [--repeat R]

The positions come from seeded random play on two linked boards (captures
passed to the partner board), so pockets, drops and checks are typical of
bughouse. Each figure is the best of ``--repeat`` runs. The ratio is
CrazyhouseBoard's rate divided by ours: 1.00 means no overhead.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bughouse_arbiter.board import BughouseBoard
from bughouse_arbiter.game import BughouseGame
from bughouse_arbiter.model import BoardId, Seat


def positions(count: int, seed: int) -> list[str]:
    """FENs of board A and B met in seeded random bughouse games."""
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        game = BughouseGame()
        while not game.is_over and len(fens) < count:
            board_id = rng.choice(list(BoardId))
            board = game.board(board_id)
            legal = list(board.legal_moves)
            fens.append(board.fen())
            if not legal:
                other = game.board(board_id.other)
                if not any(other.legal_moves):
                    break
                continue
            game.push(Seat.of(board_id, board.turn), rng.choice(legal))
    return fens


def best_rate(work: Callable[[], int], repeat: int) -> float:
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        done = work()
        best = max(best, done / (time.perf_counter() - start))
    return best


def generation(boards: list[chess.Board]) -> Callable[[], int]:
    def work() -> int:
        count = 0
        for board in boards:
            count += len(list(board.legal_moves))
        return len(boards)

    return work


def application(boards: list[chess.Board]) -> Callable[[], int]:
    moves = [list(board.legal_moves) for board in boards]

    def work() -> int:
        done = 0
        for board, legal in zip(boards, moves, strict=True):
            for move in legal:
                board.push(move)
                board.pop()
            done += len(legal)
        return done

    return work


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    fens = positions(args.positions, args.seed)
    ours = [BughouseBoard(fen) for fen in fens]
    plain = [chess.variant.CrazyhouseBoard(fen) for fen in fens]
    print(f"{len(fens)} positions (seed {args.seed}), best of {args.repeat} runs")
    print(f"{'':24}{'BughouseBoard':>16}{'CrazyhouseBoard':>18}{'overhead':>10}")
    worst = 0.0
    for name, unit, make in (
        ("legal-move generation", "positions/s", generation),
        ("move application", "push+pop/s", application),
    ):
        ours_rate = best_rate(make(ours), args.repeat)
        plain_rate = best_rate(make(plain), args.repeat)
        ratio = plain_rate / ours_rate
        worst = max(worst, ratio)
        print(
            f"{name:24}{ours_rate:>12,.0f} {unit.split('/')[0][:3]:<3}{plain_rate:>14,.0f}    "
            f"{ratio:>8.2f}x"
        )
    print(f"worst overhead {worst:.2f}x (target <= 1.30x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
