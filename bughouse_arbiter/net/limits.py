"""The bounds every network connection lives under, and the rate limiter they use.

A client cannot make the server use unbounded memory or CPU, nor hold a
seat it did not authenticate for: before ``auth`` it gets ``auth_timeout``
seconds and ``auth_lines`` lines; every line is cut at ``max_line`` bytes (the
rest is counted, not kept); lines past ``lines_per_second`` (after a burst of
``burst``) are read more slowly, which pushes back through TCP onto the
sender only; a peer that does not read what the server sends loses its
connection once ``max_queued`` bytes wait for it. Connections that hold no
seat are counted in pools (``admission``): at most ``max_connections`` on the
TCP port still to authenticate, ``requests`` HTTP requests and ``pages``
pages watching on the web port, each at most ``per_address`` from one
address; a connection that holds a seat counts in none. A page that answers
no WebSocket ping within ``ping_every`` seconds is closed. Pure: the clock
is passed in.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import UsageError
from ..protocol import MAX_LINE


@attrs.frozen(kw_only=True)
class Limits:
    max_line: int = MAX_LINE
    lines_per_second: float = 500.0
    burst: int = 1000
    max_connections: int = 32
    per_address: int = 16
    auth_timeout: float = 5.0
    auth_lines: int = 3
    max_queued: int = 1 << 20
    requests: int = 64
    pages: int = 64
    #: Pages past ``pages`` (or their address's share) that may still sit, for ``auth_timeout`` s.
    overflow_pages: int = 16
    ping_every: float = 10.0


#: ``serve --limit NAME=VALUE``: the names, the ``Limits`` field each sets, and what it is.
LIMIT_NAMES: dict[str, tuple[str, str]] = {
    "connections": ("max_connections", "TCP connections still to authenticate, at once"),
    "requests": ("requests", "HTTP requests being answered, at once"),
    "pages": ("pages", "web pages watching (holding no seat), at once"),
    "per_address": ("per_address", "of each of those, from one address"),
    "timeout": ("auth_timeout", "seconds to send the auth line, a request, or an overflow sit"),
    "ping": ("ping_every", "seconds between pings to a page; one unanswered by the next closes it"),
}


def limits_from_texts(texts: list[str], base: Limits | None = None) -> Limits:
    """``Limits`` with ``NAME=VALUE`` texts applied (``--limit``); UsageError if one is bad."""
    changes: dict[str, Any] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in LIMIT_NAMES:
            known = ", ".join(LIMIT_NAMES)
            raise UsageError(f"--limit {text!r}: expected NAME=VALUE with NAME one of {known}")
        field = LIMIT_NAMES[name][0]
        try:
            timed = field.endswith(("timeout", "every"))
            number: float | int = float(value) if timed else int(value)
        except ValueError:
            raise UsageError(f"--limit {name}: {value!r} is not a number") from None
        if not 0 < number <= 100_000:
            raise UsageError(f"--limit {name}: {value} is out of range (above 0, at most 100000)")
        changes[field] = number
    return attrs.evolve(base or Limits(), **changes)


@attrs.define
class RateLimiter:
    """A token bucket: ``delay(now)`` is how long to wait before the next line may be taken."""

    rate: float
    burst: int
    tokens: float = attrs.field(init=False)
    updated: float | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.tokens = float(self.burst)

    def delay(self, now: float) -> float:
        """Takes one token and returns 0, or returns the seconds until one is there."""
        if self.updated is not None:
            self.tokens = min(float(self.burst), self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate
