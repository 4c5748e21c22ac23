"""``--seed`` seats the same seed at each seat, whatever order the engines start in."""

from __future__ import annotations

import pytest
import trio

from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import SEATS, Seat
from bughouse_arbiter.players.base import Player
from bughouse_arbiter.table import keeper as keeper_module
from bughouse_arbiter.table.keeper import EngineKeeper, entrants


async def _seeds(monkeypatch: pytest.MonkeyPatch, seed: int) -> dict[Seat, str]:
    """The ``Seed`` each seat's engine is started with by a fresh keeper."""
    seen: dict[Seat, str] = {}
    keeper = EngineKeeper(start_timeout=1.0)

    def create(seat: Seat, spec: object, **_: object) -> Player:
        seen[seat] = spec.options["Seed"]  # type: ignore[attr-defined]
        # Stands in for the engine; it fails to start at once (no process).
        return keeper.stand_in((seat,), "searcher", "not started in this test")

    monkeypatch.setattr(keeper_module, "create_player", create)
    spec = builtin_engine("searcher")
    async with trio.open_nursery() as nursery:
        await nursery.start(keeper.serve)
        await keeper.seat(entrants(dict.fromkeys(SEATS, spec)), seed=seed)
        nursery.cancel_scope.cancel()
    return seen


async def test_each_seat_gets_the_same_seed_in_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # The engines start in tasks whose order trio shuffles: the seeds once
    # followed that order (seed + engines started so far).
    runs = [await _seeds(monkeypatch, 40) for _ in range(12)]
    assert runs[0] == {seat: str(40 + i) for i, seat in enumerate(SEATS)}
    assert all(run == runs[0] for run in runs)
