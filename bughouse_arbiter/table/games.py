"""Playing one game: the one path every command and backend takes.

``play_game`` seats a game's ``entrants`` (engine processes) and any other
players (a person at the console, network seats) and runs the arbiter: on
an ``EngineKeeper``'s engines, kept from earlier games and kept after it, or
without one on engines started for this game alone and closed after it
(each with its ``--debug`` log, if given). Recording (``recording.py``) and
showing it are observers the caller passes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import trio

from ..config.specs import seeded
from ..core.board import STARTING_FEN
from ..core.model import Seat
from ..core.rules import HouseRules
from ..players.base import Player
from ..players.debug_logs import DebugLogs
from ..players.factory import create_player, create_team_player
from .arbiter import MatchRecord, Observer, run_match
from .keeper import EngineKeeper, Entrant

__all__ = ["play_game"]


async def play_game(
    entrants: Sequence[Entrant],
    rules: HouseRules,
    *,
    game_id: str,
    keeper: EngineKeeper | None = None,
    seed: int | None = None,
    others: Sequence[Player] = (),
    human_seats: Collection[Seat] = (),
    observer: Observer | None = None,
    stop_reason: Callable[[], str] | None = None,
    fen_a: str = STARTING_FEN,
    fen_b: str = STARTING_FEN,
    opening: Sequence[tuple[Seat, str]] = (),
    logs: DebugLogs | None = None,
) -> tuple[MatchRecord, int]:
    """Plays one game; returns its record and how many engines were started for it.

    ``seed`` is the game's (``config.specs.game_seed``): each engine started
    gets ``seeded(spec, seed, 0, seat)`` for its seat. ``others`` are players
    that are not engines of the table (unstarted): with a keeper they are
    started into its channel for this game and closed after it, as
    ``run_match`` would do without one. With ``logs`` (``--debug``) every
    engine is started for this game with its log, and closed after it (with
    a keeper too: ``EngineKeeper.play``).
    """
    if keeper is None:
        players = [_fresh(entrant, seed, logs) for entrant in entrants]
        record = await run_match(
            [*players, *others],
            rules,
            game_id=game_id,
            fen_a=fen_a,
            fen_b=fen_b,
            opening=opening,
            human_seats=human_seats,
            observer=observer,
            stop_reason=stop_reason,
        )
        return record, len(players)
    if not others:
        return await keeper.play(
            entrants,
            rules,
            game_id=game_id,
            fen_a=fen_a,
            fen_b=fen_b,
            opening=opening,
            observer=observer,
            seed=seed,
            stop_reason=stop_reason,
            human_seats=human_seats,
            logs=logs,
        )
    started: list[Player] = list(others)

    async def start(at: int, player: Player, nursery: trio.Nursery) -> None:
        started[at] = await keeper.start_player(player, player.name, nursery)

    async with trio.open_nursery() as nursery:
        async with trio.open_nursery() as starting:  # all at once, as run_match does
            for at, player in enumerate(others):
                starting.start_soon(start, at, player, nursery)
        try:
            return await keeper.play(
                entrants,
                rules,
                game_id=game_id,
                fen_a=fen_a,
                fen_b=fen_b,
                opening=opening,
                observer=observer,
                seed=seed,
                stop_reason=stop_reason,
                others=started,
                human_seats=human_seats,
                logs=logs,
            )
        finally:
            with trio.CancelScope(shield=True):
                for player in started:
                    await player.aclose()


def _fresh(entrant: Entrant, seed: int | None, logs: DebugLogs | None) -> Player:
    """A new, unstarted player for ``entrant`` (seeded as the keeper seeds)."""
    spec = seeded(entrant.spec, seed, 0, entrant.seats[0])
    if entrant.team_mode:
        log = logs.for_seats(entrant.seats) if logs is not None else None
        return create_team_player((entrant.seats[0], entrant.seats[1]), spec, log=log)
    log = logs.for_seat(entrant.seats[0]) if logs is not None else None
    return create_player(entrant.seats[0], spec, log=log)
