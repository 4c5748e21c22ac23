"""Real games for the storage tests: random legal moves played by the rules code,
written by the project's BPGN writer, as ``storage`` values."""

from __future__ import annotations

import random
from collections.abc import Mapping

from bughouse_arbiter.bpgn import BpgnRecorder, GameHeader, format_game
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.ratings.policy import REPEAT_LIMIT, REPEAT_WINDOW
from bughouse_arbiter.storage import FinishedGame, GameStart, SeatPlayer

START = 1_764_547_200.0  # 2025-12-01 00:00 UTC
TEAM_ONE = (Seat.A_WHITE, Seat.B_BLACK)

#: Seconds between games of the same four that keeps every one rated (``ratings.policy``).
SPACED = REPEAT_WINDOW / REPEAT_LIMIT + 1


def seats(names: tuple[str, str, str, str], kind: str = "account") -> dict[Seat, SeatPlayer]:
    """AW, BB (team one), AB, BW (team two)."""
    order = (Seat.A_WHITE, Seat.B_BLACK, Seat.A_BLACK, Seat.B_WHITE)
    return {seat: SeatPlayer(name, kind) for seat, name in zip(order, names, strict=True)}


def _header(players: Mapping[Seat, SeatPlayer]) -> GameHeader:
    return GameHeader(
        players={seat: p.name for seat, p in players.items()},
        event="bughouse server",
        date="2025.12.01",
    )


def start_of(key: str, players: Mapping[Seat, SeatPlayer], *, started: float = START,
             rated: bool = True) -> GameStart:
    game = BughouseGame(HouseRules())
    header = BpgnRecorder(game, _header(players)).header_text()
    return GameStart(key=key, table="t1", players=players, time_control="5+0",
                     rules="profile=club", rated=rated, started=started, header=header)


def finished(
    key: str,
    players: Mapping[Seat, SeatPlayer],
    result: str,
    *,
    ended: float,
    seed: int = 0,
    plies: int = 12,
    rated: bool = True,
) -> FinishedGame:
    """A game of ``plies`` random legal moves (both boards in turn), then ended with
    ``result``: team two or one resigns, or a draw agreed."""
    rng = random.Random(seed)
    game = BughouseGame(HouseRules())
    clock = 0.0
    for ply in range(plies):
        board = BoardId.A if ply % 2 == 0 else BoardId.B
        moves = list(game.board(board).legal_moves)
        if not moves or game.outcome is not None:
            break
        clock += 0.5
        game.push(game.to_move(board), rng.choice(moves), at=clock)
    if game.outcome is None:
        if result == "1-0":
            game.resign(Seat.A_BLACK)
        elif result == "0-1":
            game.resign(Seat.A_WHITE)
        else:
            game.agree_draw()
    outcome = game.outcome
    assert outcome is not None
    text = format_game(game, _header(players))
    return FinishedGame(
        key=key, table="t1", players=players, time_control="5+0", rules="profile=club",
        rated=rated, started=ended - 60, ended=ended, result=outcome.result.value,
        termination=outcome.termination.value, reason=outcome.reason, bpgn=text,
    )
