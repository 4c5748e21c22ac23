"""A real ``bughouse server --db``: a rated game resigned before all four players
moved is archived as aborted-for-ratings (unrated), nobody's rating moves."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from serve_helpers import reap
from test_server_archive import RATED, TIMEOUT, rated_game, resigned
from test_server_lobby import LobbyServer

from bughouse_arbiter.storage import GameQuery, SqliteStore


@pytest.mark.slow
async def test_a_rated_game_resigned_at_once_is_not_rated(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                async with trio.open_nursery() as readers:
                    page = await rated_game(server.port, readers, moves=False)
                    assert await resigned(page) == "1-0"  # A-Black resigned: team one won
                    readers.cancel_scope.cancel()
        finally:
            assert server.process is not None
            await reap(server.process)
    store = SqliteStore.open(server.db, create=False)
    try:
        (game,) = store.games(GameQuery())
        assert game.status == "finished" and game.result == "1-0" and not game.rated
        for name in RATED:
            account = store.account(name)
            assert account is not None and account.rating.games == 0
            assert account.rating.rating == 1500
    finally:
        store.close()
