"""Live page snapshots against game length: bytes and time per snapshot.

Feeds a ``LiveView`` the moves of one long random game (plies over both
boards; mates are avoided where the mover has another move, no ply cap)
and prints, at several lengths, what one snapshot costs for a page that
holds every move (what every page gets on every change) and for a page
that joins then (the first of its ranges, and how many snapshots bring it
the whole list).
"""

from __future__ import annotations

import json
import random
import time

from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.serve.live_view import LiveView, moves_behind, moves_held
from bughouse_arbiter.table.match_events import MatchStarted, MovePlayed

LENGTHS = (100, 1000, 4000)
REPEAT = 300
WIDTHS = (6, 12, 7, 15, 7, 10)


def cost(view: LiveView, have: dict[BoardId, int]) -> tuple[int, float]:
    """Bytes of one snapshot's JSON, and microseconds to build and encode it."""
    start = time.perf_counter()
    for _ in range(REPEAT):
        text = json.dumps(view.snapshot(0.0, have=have), separators=(",", ":"))
    return len(text), (time.perf_counter() - start) / REPEAT * 1e6


def main() -> None:
    rng = random.Random(5)
    game = BughouseGame(HouseRules(max_plies=0))
    view = LiveView()
    clocks = Clocks.new(600)
    view.apply(MatchStarted(game=game, names={}, clocks=clocks, now=0.0))
    heads = ("plies", "held: bytes", "us", "joining: bytes", "us", "snapshots")
    print(" ".join(f"{head:>{width}}" for head, width in zip(heads, WIDTHS, strict=True)))
    for length in LENGTHS:
        while game.plies < length and not game.is_over:
            board = rng.choice([b for b in BoardId if game.is_live(b)])
            seat = game.to_move(board)
            moves = sorted(game.board(board).legal_moves, key=lambda m: m.uci())
            if not moves:
                continue
            rng.shuffle(moves)
            for move in moves:  # a move that does not end the game, if there is one
                trial = game.board(board).copy(stack=False)
                trial.push(move)
                if not trial.is_checkmate() or move is moves[-1]:
                    break
            played = game.push(seat, move)
            view.apply(MovePlayed(played=played, used=0.0, clocks=clocks, now=0.0))
        if game.is_over:
            print(f"the game ended at {game.plies} plies")
            return
        held = {b: len(view.moves[b]) for b in BoardId}
        held_bytes, held_us = cost(view, held)
        join_bytes, join_us = cost(view, {})
        have: dict[BoardId, int] = {}
        snapshots = 0
        while True:
            data = view.snapshot(0.0, have=have)
            have, snapshots = moves_held(data), snapshots + 1
            if not moves_behind(data):
                break
        row = (length, held_bytes, f"{held_us:.1f}", join_bytes, f"{join_us:.1f}", snapshots)
        print(" ".join(f"{cell:>{width}}" for cell, width in zip(row, WIDTHS, strict=True)))


if __name__ == "__main__":
    main()
