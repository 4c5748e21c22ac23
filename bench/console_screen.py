"""Console screen cost: composing and painting frames of a mid-game position.

Prints frames per second for a full repaint and for a clock tick (only the
changed rows are written), with the bytes each writes, in colour and ASCII.
"""

from __future__ import annotations

import random
import time

from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.ui.console_screen import ScreenPainter, Style, compose
from bughouse_arbiter.ui.console_session import ConsoleSession


def mid_game(plies: int = 60, seed: int = 3) -> ConsoleSession:
    rng = random.Random(seed)
    game = BughouseGame()
    session = ConsoleSession(Seat.A_WHITE)
    clocks = dict.fromkeys(Seat, 100.0)
    fens = {b: game.fen(b) for b in BoardId}
    session.start(
        game_id="b",
        names={s: "engine" for s in Seat},
        rules=game.rules,
        fens=fens,
        clocks=clocks,
        now=0.0,
    )
    for _ in range(plies):
        board_id = rng.choice(list(BoardId))
        board = game.board(board_id)
        moves = list(board.legal_moves)
        if not moves or game.is_over:
            continue
        played = game.push(game.to_move(board_id), rng.choice(moves))
        session.moved(played, {b: game.fen(b) for b in BoardId}, clocks, 0.0)
    session.on_line("moves")
    return session


def measure(style: Style, label: str) -> None:
    session = mid_game()
    painter = ScreenPainter(style)
    frames = 0
    full_bytes = tick_bytes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < 1.0:
        painter.invalidate()
        full_bytes = len(painter.paint(compose(session, frames * 0.1, style, "Nf3"), 12))
        frames += 1
    full_rate = frames / (time.perf_counter() - start)
    frames = 0
    start = time.perf_counter()
    while time.perf_counter() - start < 1.0:
        # One second later each time: the two running clocks change.
        now = float(frames % 80)
        tick_bytes = len(painter.paint(compose(session, now, style, "Nf3"), 12))
        frames += 1
    tick_rate = frames / (time.perf_counter() - start)
    print(
        f"{label:>14}: full repaint {full_rate:7.0f} frames/s ({full_bytes} bytes), "
        f"clock tick {tick_rate:7.0f} frames/s ({tick_bytes} bytes)"
    )


if __name__ == "__main__":
    measure(Style(unicode=True, color=True), "unicode+colour")
    measure(Style(unicode=False, color=False), "ascii")
