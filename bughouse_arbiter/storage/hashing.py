"""``HashPool``: the password hashes run in threads of their own, a bounded few.

An Argon2 hash is slow on purpose. Run where the database work runs, a burst
of failed logins would hold the store's one thread (and every page waiting
on it); run on the loop, it would stop the server. So hashes get
``HASHERS`` threads of their own, at most ``WAITING`` more wait for one, and
one past that is refused at once (``HashBusy``: the page says to try again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import trio

from . import accounts

T = TypeVar("T")

#: Hashes at once (each keeps a core busy), and hashes that may wait for one.
HASHERS = 2
WAITING = 8


class HashBusy(Exception):
    """Too many hashes are running or waiting: try again in a moment."""


class HashPool:
    """See the module docstring."""

    def __init__(self, hashers: int = HASHERS, waiting: int = WAITING) -> None:
        self._limiter = trio.CapacityLimiter(hashers)
        self.bound = hashers + waiting
        self.held = 0

    async def run(self, call: Callable[[], T]) -> T:
        """``call()`` in a hash thread, or ``HashBusy`` if the pool is full."""
        if self.held >= self.bound:
            raise HashBusy("the server is busy checking passwords: try again in a moment")
        self.held += 1
        try:
            return await trio.to_thread.run_sync(call, limiter=self._limiter)
        finally:
            self.held -= 1

    async def hash(self, password: str) -> str:
        return await self.run(lambda: accounts.hash_password(password))

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is ``stored``'s (None: no such account, as slow)."""
        if stored is None:
            await self.run(lambda: accounts.verify_nothing(password))
            return False
        return await self.run(lambda: accounts.verify_password(stored, password))
