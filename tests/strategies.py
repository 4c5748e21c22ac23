"""Hypothesis strategies for the rules core, for any test module to reuse.

- ``house_rules()``: any ``HouseRules`` value (every option, any legal value).
- ``seats()``: one of the four seats.
- ``played_games()``: a ``BughouseGame`` after random legal play on both boards
  (captures passed to the partner), drawn choice by choice so Hypothesis can
  shrink a failure to a short game.
- ``bughouse_fens()``: the FEN of one board from such a game.
- ``crazyhouse_walk()``: the FENs along one seeded random game that python-chess
  alone plays (no code under test makes them), for tests that must be quick
  and the same every run.
"""

from __future__ import annotations

import random

import chess
import chess.variant
from hypothesis import strategies as st

from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules

_SECONDS = st.floats(min_value=0.5, max_value=7200, allow_nan=False, allow_infinity=False)


def seats() -> st.SearchStrategy[Seat]:
    return st.sampled_from(list(Seat))


@st.composite
def house_rules(draw: st.DrawFn) -> HouseRules:
    """Any combination of house rules (``profile`` left at ``custom``)."""
    return HouseRules(
        profile="custom",
        time=draw(_SECONDS),
        increment=draw(st.one_of(st.just(0.0), _SECONDS)),
        clock=draw(st.booleans()),
        wait_for_block=draw(st.booleans()),
        stalemate=draw(st.sampled_from(["wait", "draw"])),
        dropped_pawn_double_step=draw(st.booleans()),
        dropped_rook_castles=draw(st.booleans()),
        drop_check=draw(st.sampled_from(["allowed", "no-check", "no-mate"])),
        repetition=draw(st.sampled_from(["none", "threefold"])),
        board_end=draw(st.sampled_from(["match", "continue"])),
        turn_time_limit=draw(st.one_of(st.none(), _SECONDS)),
        stalling=draw(st.integers(min_value=0, max_value=10)),
        max_plies=draw(st.integers(min_value=0, max_value=2000)),
        illegal_move=draw(st.sampled_from(["lose", "reject"])),
        draw=draw(st.sampled_from(["humans", "both-teams"])),
    )


def play_randomly(game: BughouseGame, choices: list[int]) -> None:
    """Plays one move per choice: the choice picks the board (a board whose
    side to move has no move is skipped) and the move among the legal ones."""
    for choice in choices:
        if game.is_over:
            return
        live = [b for b in BoardId if game.is_live(b) and any(game.board(b).legal_moves)]
        if not live:
            return
        board_id = live[choice % len(live)]
        board = game.board(board_id)
        legal = sorted(board.legal_moves, key=lambda move: move.uci())
        game.push(Seat.of(board_id, board.turn), legal[(choice // 2) % len(legal)])


@st.composite
def played_games(
    draw: st.DrawFn,
    *,
    rules: st.SearchStrategy[HouseRules] | None = None,
    min_plies: int = 0,
    max_plies: int = 120,
) -> BughouseGame:
    """A game after ``min_plies`` to ``max_plies`` random legal moves on both
    boards (fewer if the match ends first)."""
    chosen = draw(rules) if rules is not None else HouseRules()
    game = BughouseGame(chosen)
    choices = draw(
        st.lists(st.integers(min_value=0, max_value=10**6), min_size=min_plies, max_size=max_plies)
    )
    play_randomly(game, choices)
    return game


@st.composite
def bughouse_fens(draw: st.DrawFn, *, min_plies: int = 0, max_plies: int = 120) -> str:
    """The FEN of board A or B after random play: pockets, promotions, checks."""
    game = draw(played_games(min_plies=min_plies, max_plies=max_plies))
    return game.fen(draw(st.sampled_from(list(BoardId))))


def crazyhouse_walk(seed: int, plies: int = 100, checks: float = 0.3) -> list[str]:
    """The FEN after each move of a random crazyhouse game played by python-chess
    (pockets fill, pieces get dropped, pawns promote), a check chosen with
    probability ``checks`` when there is one: positions in check, pins and mates."""
    rng = random.Random(seed)
    board = chess.variant.CrazyhouseBoard()
    fens: list[str] = []
    for _ in range(plies):
        moves = sorted(board.legal_moves, key=lambda move: move.uci())
        if not moves:
            break
        if rng.random() < checks:
            moves = [move for move in moves if board.gives_check(move)] or moves
        board.push(rng.choice(moves))
        fens.append(board.fen())
    return fens
