"""How late the harness reads an engine's line: a bound from the trio loop's own waits.

An engine's answer is stamped with the trio time its line was read
(``arrived_at``), and the arbiter stops the engine's clock there. If the loop
was busy with other work when the line arrived (another table's move, the
progress display) or its process was descheduled, the line waited in the
pipe, and that wait was charged to the engine.

trio looks for I/O between every two batches of tasks (an epoll wait, with
a zero timeout when tasks are ready to run). A line read in the batch after
a wait was not there at the wait before (it would have been seen then), so
it arrived after that earlier wait returned: while the loop is busy, the
time since then bounds its wait. When the latest wait could sleep (the loop
had nothing to run), the line is taken to have come during it, which the
wait ended at once: the time since it returned counts. That misses a line
that came during the batch before an idle wait (the batch's rest, well
under a millisecond when the loop is idle enough to wait); otherwise the
bound errs on the long side, which suits its use: telling whether the
harness could have cost an engine its time.

``LoopWatch`` is the trio instrument that notes the waits; ``read_lag``
installs one in the running loop on first use (one call per loop iteration).
"""

from __future__ import annotations

import trio

__all__ = ["LoopWatch", "read_lag", "watch"]


class LoopWatch(trio.abc.Instrument):
    """Notes when the loop's I/O waits returned, and whether they could sleep."""

    def __init__(self, clock: trio.abc.Clock) -> None:
        """``clock``: the loop's (``trio.lowlevel.current_clock()``)."""
        # Its own method: this runs at every turn of the loop, and
        # ``trio.current_time`` first looks the clock up.
        self._now = clock.current_time
        #: When the latest wait returned, and the one before it.
        self.woke: float | None = None
        self.woke_before: float | None = None
        #: Whether the latest wait could sleep (the loop had nothing to run).
        self.slept = False

    def after_io_wait(self, timeout: float) -> None:
        self.woke_before, self.woke = self.woke, self._now()
        self.slept = timeout > 0

    def since(self) -> float | None:
        """The earliest instant a line read now may have arrived (None: unknown)."""
        return self.woke if self.slept else self.woke_before


_WATCH: trio.lowlevel.RunVar[LoopWatch] = trio.lowlevel.RunVar("bughouse_loop_watch")


def watch() -> LoopWatch:
    """The running loop's watch, installed on first use."""
    try:
        return _WATCH.get()
    except LookupError:
        found = LoopWatch(trio.lowlevel.current_clock())
        trio.lowlevel.add_instrument(found)
        _WATCH.set(found)
        return found


def read_lag(now: float) -> float:
    """A bound on how long a line read at ``now`` waited for this loop (seconds)."""
    since = watch().since()
    return 0.0 if since is None or since > now else now - since
