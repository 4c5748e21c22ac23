"""``replay --check``'s work in moves per second, against python-chess's
``chess.pgn.read_game`` on the same games, and the peak memory of both.

    python bench/bpgn.py [--corpus DIR] [--repeat R] [--copies N] [--writer-plies N]

Ours: the corpus files (``--copies`` times over, as one stream) read with
``iter_game_parts`` and each game re-judged with ``replay_games``: every move
read, parsed from SAN, checked legal, played, both boards judged, the result
compared, a part of one game in memory at a time (as ``bughouse replay --check``).

python-chess: the same games, each board written as one crazyhouse PGN game
(same start position, the same moves in python-chess's SAN with clock
comments; each pocket starts with exactly the pieces that side drops in the
game, since a bughouse board's pieces come from its partner board), read
with ``read_game``: every move read, parsed from SAN, checked legal and
played. Both read the same number of moves. (Pockets of 40 of every piece,
as this script once used, cost python-chess a 400-letter FEN to read per
board and a loop over every piece type at each parsed move: about a tenth of
its time, and not work a crazyhouse reader does.)

Runs alternate (ours, theirs, ours...), CPU time (``process_time``), best of
``--repeat``; the ratio is our moves/s over python-chess's. Peak memory is
``tracemalloc``'s peak for one run of each, after the timed runs.

Then the writer: one game of ``--writer-plies`` plies (knights back and
forth on both boards) pushed, recorded and appended to a ``BpgnFile`` move
by move, as ``bughouse match`` does; it prints the CPU time per ply over
plies 100-600 and over the last 500 (flat: the same).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import chess.variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bughouse_arbiter.bpgn.read import iter_game_parts, iter_games
from bughouse_arbiter.bpgn.replay import replay_game, replay_games
from bughouse_arbiter.core.game import PlayedMove
from bughouse_arbiter.core.model import BoardId

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"


def ours(data: bytes) -> tuple[int, int]:
    """(games, moves replayed) for ``replay --check``'s loop over ``data``."""
    games = moves = 0
    for report in replay_games(iter_game_parts(io.BytesIO(data))):
        games += 1
        moves += report.replayed
    return games, moves


def as_crazyhouse(data: bytes) -> str:
    """Every replayed board of ``data`` as a crazyhouse PGN game."""
    out = []
    for source in iter_games(io.BytesIO(data)):
        report = replay_game(source)
        if not report.played:
            continue
        for board_id in BoardId:
            moves = [p for p in report.played if p.board is board_id]
            if not moves:
                continue
            fen = _with_pockets(_start_fen(source, board_id), moves)
            board = chess.variant.CrazyhouseBoard(fen)
            game = chess.pgn.Game()
            game.headers["Variant"] = "Crazyhouse"
            game.headers["FEN"] = fen
            game.headers["SetUp"] = "1"
            node: chess.pgn.GameNode = game
            for played in moves:
                node = node.add_variation(played.move)
                if played.clock is not None:
                    node.comment = f"{played.clock:.3f}"
                board.push(played.move)
            out.append(str(game))
    return "\n\n".join(out) + "\n"


def _start_fen(source: object, board_id: BoardId) -> str:
    from bughouse_arbiter.bpgn.positions import start_fens

    fens = start_fens(source)  # type: ignore[arg-type]
    return fens[0] if board_id is BoardId.A else fens[1]


def _with_pockets(fen: str, moves: list[PlayedMove]) -> str:
    """``fen`` with pockets holding what its own pockets held and every piece
    dropped in ``moves`` (which came from the partner board in bughouse)."""
    placement, rest = fen.split(" ", 1)
    board, _, held = placement.partition("[")
    letters = held.rstrip("]") + "".join(
        chess.piece_symbol(m.move.drop).upper() if m.seat.color else chess.piece_symbol(m.move.drop)
        for m in moves
        if m.move.drop
    )
    white = "".join(sorted((c for c in letters if c.isupper()), key="QRBNP".index))
    black = "".join(sorted((c for c in letters if c.islower()), key="qrbnp".index))
    return f"{board}[{white}{black}] {rest}"


def python_chess(pgn: str) -> tuple[int, int]:
    stream = io.StringIO(pgn)
    games = moves = 0
    while (game := chess.pgn.read_game(stream)) is not None:
        games += 1
        if game.errors:
            raise SystemExit(f"python-chess could not read a converted game: {game.errors[0]}")
        moves += sum(1 for _ in game.mainline_moves())
    return games, moves


def timed(run: Callable[[], tuple[int, int]]) -> tuple[float, tuple[int, int]]:
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def peak_mib(run: Callable[[], object]) -> float:
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def writer_cost(plies: int) -> tuple[float, float]:
    """(µs per ply over plies 100-600, µs per ply over the last 500 plies)."""
    import tempfile

    from bughouse_arbiter.bpgn import BpgnFile, BpgnRecorder
    from bughouse_arbiter.core.game import BughouseGame
    from bughouse_arbiter.core.model import Seat
    from bughouse_arbiter.core.rules import HouseRules

    shuffle = {True: ["Nf3", "Ng1"], False: ["Nf6", "Ng8"]}
    game = BughouseGame(HouseRules(max_plies=0))
    recorder = BpgnRecorder(game)
    marks: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as folder, BpgnFile.open(Path(folder) / "w.bpgn") as out:
        header = recorder.streamed_header()
        out.start_game(header.text, slot=header.slot)
        seats = [Seat.A_WHITE, Seat.B_WHITE, Seat.A_BLACK, Seat.B_BLACK]
        for ply in range(plies):
            if ply in (100, 600, plies - 500):
                marks[ply] = time.process_time()
            seat = seats[ply % 4]
            turn = ply // 4
            game.push(seat, shuffle[seat.color][turn % 2], at=ply * 0.01, clock=100.0)
            out.append(recorder.update())
        marks[plies] = time.process_time()
        game.abort("bench")
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    early = (marks[600] - marks[100]) / 500 * 1e6
    late = (marks[plies] - marks[plies - 500]) / 500 * 1e6
    return early, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=1, help="the corpus this many times over")
    parser.add_argument("--writer-plies", type=int, default=8000, help="plies of the writer run")
    args = parser.parse_args()
    files = sorted(args.corpus.glob("*.bpgn"))
    if not files:
        sys.exit(f"no .bpgn files in {args.corpus}")
    data = b"\n\n".join(path.read_bytes() for path in files) * args.copies
    pgn = as_crazyhouse(data)
    our_best = their_best = float("inf")
    for _ in range(args.repeat):
        seconds, (games, moves) = timed(lambda: ours(data))
        our_best = min(our_best, seconds)
        seconds, (their_games, their_moves) = timed(lambda: python_chess(pgn))
        their_best = min(their_best, seconds)
    our_peak = peak_mib(lambda: ours(data))
    their_peak = peak_mib(lambda: python_chess(pgn))
    print(f"corpus: {len(files)} files x {args.copies}, {len(data) / 1e6:.1f} MB")
    print(
        f"ours (iter_game_parts + replay_games): {games} games, {moves} moves replayed, "
        f"{moves / our_best:8.0f} moves/s, peak {our_peak:.1f} MiB"
    )
    print(
        f"python-chess read_game:          {their_games} boards, {their_moves} moves, "
        f"{their_moves / their_best:8.0f} moves/s, peak {their_peak:.1f} MiB"
    )
    ratio = (moves / our_best) / (their_moves / their_best)
    print(f"ratio (ours / python-chess, moves/s): {ratio:.2f}")
    if args.writer_plies > 1100:
        early, late = writer_cost(args.writer_plies)
        print(
            f"writer (push + record + append a move): {early:.1f} us/ply at plies 100-600, "
            f"{late:.1f} us/ply at the last 500 of {args.writer_plies}"
        )


if __name__ == "__main__":
    main()
