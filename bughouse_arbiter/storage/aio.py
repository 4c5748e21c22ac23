"""``AsyncStore``: a ``Store`` for the trio server, its calls run off the event loop.

Each call runs in a worker thread (``trio.to_thread.run_sync``) under a
limiter of one: the store's one connection is used by one thread at a time,
in the order the calls came, and the loop goes on serving while SQLite waits
for the disk. One connection, not a pool: SQLite has one writer anyway, and
the server's reads are small.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeVar

import trio

from .records import Account, FinishedGame, GameStart, RatingChange
from .store import Store

T = TypeVar("T")


class AsyncStore:
    """``store``'s methods as awaitables (``run`` for any of them)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._limiter = trio.CapacityLimiter(1)

    async def run(self, call: Callable[[Store], T]) -> T:
        """``call(store)`` in the store's thread: ``await db.run(lambda s: s.games(q))``."""
        return await trio.to_thread.run_sync(
            functools.partial(call, self.store), limiter=self._limiter
        )

    async def begin_game(self, start: GameStart) -> int:
        return await self.run(lambda s: s.begin_game(start))

    async def record_game(
        self, finished: FinishedGame, rating_changes: Sequence[RatingChange] | None = None
    ) -> tuple[RatingChange, ...]:
        """Returns once the game and its rating changes are on disk: tell the result after."""
        return await self.run(lambda s: s.record_game(finished, rating_changes))

    async def bot_for_token(self, name: str, token: str) -> Account | None:
        return await self.run(lambda s: s.bot_for_token(name, token))

    async def aclose(self) -> None:
        await self.run(lambda s: s.close())
