"""How late the harness reads an engine's line: a bound from the trio loop's own waits.

An engine's answer is stamped with the trio time its line was read
(``arrived_at``), and the arbiter stops the engine's clock there. If the loop
was busy with other work when the line arrived (another table's move, the
progress display), the line waited in the pipe, and that wait was charged to
the engine. ``LoopWatch`` is a trio instrument that notes when the loop last
woke from a wait that could block (it had nothing to run): every line read
since then arrived at the earliest at that instant or during the busy
stretch after it, so ``read_lag(now)`` (the time since) bounds how long the
harness kept it waiting. The bound is generous (a line that arrived late in
the stretch counts the whole stretch), which suits its use: telling whether
the harness could have cost an engine its time.

``read_lag`` installs the watch in the running trio loop on first use; the
cost is one call per loop iteration.
"""

from __future__ import annotations

import trio

__all__ = ["LoopWatch", "read_lag"]


class LoopWatch(trio.abc.Instrument):
    """Notes when the loop last woke from a wait that could block."""

    def __init__(self) -> None:
        self.idle_woke_at: float | None = None

    def after_io_wait(self, timeout: float) -> None:
        if timeout > 0:  # the loop had nothing to run: it was idle until now
            self.idle_woke_at = trio.current_time()


_WATCH: trio.lowlevel.RunVar[LoopWatch] = trio.lowlevel.RunVar("bughouse_loop_watch")


def watch() -> LoopWatch:
    """The running loop's watch, installed on first use."""
    try:
        return _WATCH.get()
    except LookupError:
        found = LoopWatch()
        trio.lowlevel.add_instrument(found)
        _WATCH.set(found)
        return found


def read_lag(now: float) -> float:
    """A bound on how long a line read at ``now`` waited for this loop (seconds)."""
    woke = watch().idle_woke_at
    return 0.0 if woke is None or woke > now else now - woke
