"""The bounds every network connection lives under, and the rate limiter they use.

A client cannot make the server use unbounded memory or CPU, nor hold a
seat it did not authenticate for: before ``auth`` it gets ``auth_timeout``
seconds and ``auth_lines`` lines; every line is cut at ``max_line`` bytes (the
rest is counted, not kept); lines past ``lines_per_second`` (after a burst of
``burst``) are read more slowly, which pushes back through TCP onto the
sender only; a peer that does not read what the server sends loses its
connection once ``max_queued`` bytes wait for it; at most ``max_connections``
connections are open at once (further ones get one ``error`` line and are
closed). Pure: the clock is passed in.
"""

from __future__ import annotations

import attrs

from ..protocol import MAX_LINE


@attrs.frozen(kw_only=True)
class Limits:
    max_line: int = MAX_LINE
    lines_per_second: float = 500.0
    burst: int = 1000
    max_connections: int = 32
    auth_timeout: float = 5.0
    auth_lines: int = 3
    max_queued: int = 1 << 20


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
