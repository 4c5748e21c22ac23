"""Room for connections that hold no seat: bounded pools, the oldest making room.

A ``Pool`` holds at most ``size`` tickets, at most ``per_address`` of them
from one address. ``admit`` either refuses a newcomer that does not fit
(``evict=False``: returns None) or makes room for it (``evict=True``): an
address at its share gives up its own oldest ticket, else the pool's oldest
goes. Either way one address can take at most its share from the others, and
a newcomer that is about to prove a seat (a reconnecting player) always gets
in: the strangers who came before it make room. The evicted ticket's
``on_evict`` is called (the front end closes that connection with an answer).
A connection that proves a seat leaves its pool (``release``): seated players
count in none. Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import attrs


@attrs.define(eq=False)
class Ticket:
    """One connection's place in a pool."""

    address: str
    on_evict: Callable[[], None] | None = None
    #: True once the pool made room with it (the connection is to be closed).
    evicted: bool = False


class Pool:
    """At most ``size`` tickets, ``per_address`` from one address (see the module docstring)."""

    def __init__(self, size: int, per_address: int, *, evict: bool) -> None:
        self.size = size
        self.per_address = min(per_address, size)
        self.evict = evict
        self._tickets: dict[Ticket, None] = {}  # oldest first
        self._by_address: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._tickets)

    def count(self, address: str) -> int:
        return self._by_address[address]

    def admit(self, address: str, on_evict: Callable[[], None] | None = None) -> Ticket | None:
        """A ticket for a newcomer from ``address``, or None (full, and ``evict`` is off)."""
        crowded = self._by_address[address] >= self.per_address
        if crowded or len(self._tickets) >= self.size:
            if not self.evict:
                return None
            victim = next(
                t for t in self._tickets if not crowded or t.address == address
            )
            self.release(victim)
            victim.evicted = True
            if victim.on_evict is not None:
                victim.on_evict()
        ticket = Ticket(address, on_evict)
        self._tickets[ticket] = None
        self._by_address[address] += 1
        return ticket

    def release(self, ticket: Ticket) -> None:
        """The connection left the pool (closed, or it proved a seat); safe to repeat."""
        if self._tickets.pop(ticket, False) is None:
            self._by_address[ticket.address] -= 1
            if not self._by_address[ticket.address]:
                del self._by_address[ticket.address]
