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

from bughouse_arbiter.core.board import BughouseBoard
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat


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


Work = Callable[[list[chess.Board]], int]


def best_rates(
    work: Work, ours: list[chess.Board], plain: list[chess.Board], repeat: int
) -> tuple[float, float]:
    """Rates from the fastest of ``repeat`` runs per chunk of 250 positions.

    Ours and plain alternate chunk by chunk, and time is process CPU time, so
    other processes on the machine slow both alike and the ratio stays fair.
    """
    totals = [0.0, 0.0]
    done = [0, 0]
    for first in range(0, len(ours), 250):
        chunks = (ours[first : first + 250], plain[first : first + 250])
        fastest = [float("inf"), float("inf")]
        for _ in range(repeat):
            for index, chunk in enumerate(chunks):
                start = time.process_time()
                count = work(chunk)
                fastest[index] = min(fastest[index], time.process_time() - start)
        for index in (0, 1):
            totals[index] += fastest[index]
            done[index] += count
    return done[0] / totals[0], done[1] / totals[1]


def generation(boards: list[chess.Board]) -> int:
    for board in boards:
        for _ in board.legal_moves:
            pass
    return len(boards)


def application(boards: list[chess.Board]) -> int:
    done = 0
    for board in boards:
        for move in list(board.legal_moves):
            board.push(move)
            board.pop()
            done += 1
    return done


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
    print(f"{'':24}{'BughouseBoard':>15}{'CrazyhouseBoard':>17}{'overhead':>10}")
    worst = 0.0
    for name, unit, work in (
        ("legal-move generation", "positions/s", generation),
        ("move application", "push+pop/s", application),
    ):
        ours_rate, plain_rate = best_rates(work, ours, plain, args.repeat)
        ratio = plain_rate / ours_rate
        worst = max(worst, ratio)
        print(f"{name:24}{ours_rate:>15,.0f}{plain_rate:>17,.0f}{ratio:>9.2f}x  ({unit})")
    print(f"worst overhead {worst:.2f}x (target <= 1.30x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
