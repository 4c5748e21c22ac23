"""``HashPool``: the password hashes run in threads of their own, a bounded few.

An Argon2 hash is slow on purpose. Run where the database work runs, a burst
of failed logins would hold the store's one thread (and every page waiting
on it); run on the loop, it would stop the server. So hashes get
``HASHERS`` threads of their own, at most ``WAITING`` more wait for one, and
one past that is refused at once (``HashBusy``: the page says to try again).
One address holds at most ``PER_ADDRESS`` of those places, so that it alone
can never fill the pool and keep everyone else from logging in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import trio

from . import accounts

T = TypeVar("T")

#: Hashes at once (each keeps a core busy), hashes that may wait for one, and places
#: (running or waiting) one address may hold.
HASHERS = 2
WAITING = 8
PER_ADDRESS = 3


class HashBusy(Exception):
    """Too many hashes are running or waiting: try again in a moment."""


class HashPool:
    """See the module docstring."""

    def __init__(
        self, hashers: int = HASHERS, waiting: int = WAITING, per_address: int = PER_ADDRESS
    ) -> None:
        self._limiter = trio.CapacityLimiter(hashers)
        self.bound = hashers + waiting
        self.per_address = per_address
        self.held = 0
        self._by_address: dict[str, int] = {}

    async def run(self, call: Callable[[], T], address: str) -> T:
        """``call()`` in a hash thread, or ``HashBusy`` if the pool (or ``address``'s
        share of it) is full."""
        mine = self._by_address.get(address, 0)
        if self.held >= self.bound:
            raise HashBusy("the server is busy checking passwords: try again in a moment")
        if mine >= self.per_address:
            raise HashBusy(
                "your address has passwords being checked already: try again in a moment"
            )
        self.held += 1
        self._by_address[address] = mine + 1
        try:
            return await trio.to_thread.run_sync(call, limiter=self._limiter)
        finally:
            self.held -= 1
            left = self._by_address[address] - 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]

    async def hash(self, password: str, address: str) -> str:
        return await self.run(lambda: accounts.hash_password(password), address)

    async def verify(self, stored: str | None, password: str, address: str) -> bool:
        """Whether ``password`` is ``stored``'s (None: no such account, as slow)."""
        if stored is None:
            await self.run(lambda: accounts.verify_nothing(password), address)
            return False
        return await self.run(lambda: accounts.verify_password(stored, password), address)
