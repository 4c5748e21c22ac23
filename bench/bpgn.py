"""Reading plus replaying BPGN, in games and moves per second, beside
python-chess's own PGN reader on comparable crazyhouse games.

    python bench/bpgn.py [--corpus DIR] [--repeat R] [--seed S]

Ours: ``read_games`` on every file of the corpus, then ``replay_game`` on
every game (each move parsed from SAN, played and the match re-judged).
python-chess: ``chess.pgn.read_game`` on seeded random crazyhouse games with
the same number of games and moves, written with clock comments, so its
reader also parses SAN and plays each move. Each figure is the best of
``--repeat`` runs; the ratio is our moves per second over python-chess's.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import chess.variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"


def ours(texts: list[bytes]) -> tuple[int, int, float, float]:
    """(games, moves replayed, seconds reading, seconds reading + replaying)."""
    start = time.perf_counter()
    games = [game for text in texts for game in read_games(text)]
    read_done = time.perf_counter()
    moves = sum(replay_game(game).replayed for game in games)
    return len(games), moves, read_done - start, time.perf_counter() - start


def crazyhouse_pgn(games: int, moves: int, seed: int) -> str:
    """Random crazyhouse games as PGN, ``moves`` half-moves in all."""
    rng = random.Random(seed)
    per_game = max(1, moves // games)
    out = []
    for number in range(games):
        board = chess.variant.CrazyhouseBoard()
        game = chess.pgn.Game()
        game.headers["Event"] = f"bench {number}"
        game.headers["Variant"] = "Crazyhouse"
        node: chess.pgn.GameNode = game
        clock = 180.0
        while len(board.move_stack) < per_game and not board.is_game_over():
            move = rng.choice(list(board.legal_moves))
            node = node.add_variation(move)
            clock -= rng.uniform(0, 1)
            node.comment = f"{clock:.3f}"
            board.push(move)
        game.headers["Result"] = board.result() if board.is_game_over() else "*"
        out.append(str(game))
    return "\n\n".join(out) + "\n"


def python_chess(pgn: str) -> tuple[int, int, float]:
    start = time.perf_counter()
    stream = io.StringIO(pgn)
    games = moves = 0
    while (game := chess.pgn.read_game(stream)) is not None:
        games += 1
        moves += sum(1 for _ in game.mainline_moves())
    return games, moves, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    files = sorted(args.corpus.glob("*.bpgn"))
    if not files:
        sys.exit(f"no .bpgn files in {args.corpus}")
    texts = [path.read_bytes() for path in files]
    runs = [ours(texts) for _ in range(args.repeat)]
    games, moves = runs[0][0], runs[0][1]
    read_s = min(r[2] for r in runs)
    total_s = min(r[3] for r in runs)
    pgn = crazyhouse_pgn(games, moves, args.seed)
    theirs = [python_chess(pgn) for _ in range(args.repeat)]
    their_games, their_moves = theirs[0][0], theirs[0][1]
    their_s = min(t[2] for t in theirs)
    print(f"corpus: {len(files)} files, {games} games, {moves} moves replayed")
    print(f"ours, read only:        {games / read_s:9.1f} games/s {moves / read_s:10.0f} moves/s")
    print(f"ours, read + replay:    {games / total_s:9.1f} games/s {moves / total_s:10.0f} moves/s")
    print(
        f"python-chess read_game: {their_games / their_s:9.1f} games/s "
        f"{their_moves / their_s:10.0f} moves/s  ({their_games} crazyhouse games, "
        f"{their_moves} moves)"
    )
    ratio = (moves / total_s) / (their_moves / their_s)
    print(f"ratio (ours read + replay / python-chess, moves/s): {ratio:.2f}")


if __name__ == "__main__":
    main()
