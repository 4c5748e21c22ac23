"""``LagMonitor``: how late the trio loop wakes, and what ran when it was late.

A probe task sleeps ``interval`` seconds over and over; each time, how much
later than asked it woke is the loop's lag (a clock of a table waiting on the
same loop is that much late too). The monitor is also a trio instrument: it
times every task step, so a stall over ``threshold`` is logged with the
slowest step since the previous wake, the task that was running::

    lag = LagMonitor(log=print)
    trio.lowlevel.add_instrument(lag)          # optional: names the culprit
    nursery.start_soon(lag.run)
    ...  lag.figures()  ->  LagFigures(wakes=..., max_ms=..., p99_ms=..., stalls=...)

Every time is read from ``trio.current_time()``, so the monitor is tested
under ``MockClock`` (a task that jumps the clock is a stall).
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Callable
from typing import Any

import attrs
import trio

#: Seconds between probes, and the lag (seconds) logged as a stall.
INTERVAL = 0.05
THRESHOLD = 0.1
#: Lags kept for the percentiles (the newest; a sorted window).
WINDOW = 2048
#: Wakes whose worst is ``recent_ms`` (a second's, at the default interval).
RECENT = 20


@attrs.frozen
class LagFigures:
    """What the probe saw: wakes, the worst and the 99th percentile lag (ms), stalls,
    and the task of the slowest step seen (``""`` while no step was timed)."""

    wakes: int
    max_ms: float
    p99_ms: float
    #: The worst of the last ``RECENT`` wakes: polled, it gives a phase's worst.
    recent_ms: float
    stalls: int
    slowest_task: str
    slowest_step_ms: float

    def shown(self) -> dict[str, Any]:
        return attrs.asdict(self)


class LagMonitor(trio.abc.Instrument):
    """The probe and the step timer of the module docstring."""

    def __init__(
        self,
        *,
        interval: float = INTERVAL,
        threshold: float = THRESHOLD,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.interval = interval
        self.threshold = threshold
        self.log = log
        self.wakes = 0
        self.stalls = 0
        self.max_lag = 0.0
        self._window: list[float] = []
        self._order: list[float] = []
        self._step_started: float | None = None
        self._recent_lags: collections.deque[float] = collections.deque(maxlen=RECENT)
        # The slowest step since the probe last woke, and over the whole run.
        self._recent: tuple[float, str] = (0.0, "")
        self._slowest: tuple[float, str] = (0.0, "")

    # -- the instrument --------------------------------------------------------------

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self._step_started = trio.current_time()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if self._step_started is None:
            return  # added during this step: its start was not seen
        took = trio.current_time() - self._step_started
        if took > self._recent[0]:
            self._recent = (took, task.name)
            if took > self._slowest[0]:
                self._slowest = self._recent

    # -- the probe ------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Probes until cancelled."""
        task_status.started()
        while True:
            asked = trio.current_time() + self.interval
            await trio.sleep(self.interval)
            self.note(trio.current_time() - asked)

    def note(self, lag: float) -> None:
        """One wake, ``lag`` seconds late."""
        lag = max(0.0, lag)
        self.wakes += 1
        self.max_lag = max(self.max_lag, lag)
        if len(self._window) == WINDOW:
            gone = self._window.pop(0)
            del self._order[bisect.bisect_left(self._order, gone)]
        self._window.append(lag)
        bisect.insort(self._order, lag)
        self._recent_lags.append(lag)
        took, task = self._recent
        self._recent = (0.0, "")
        if lag >= self.threshold:
            self.stalls += 1
            if self.log is not None:
                culprit = f"; its slowest step: {took * 1000:.0f} ms in {task}" if task else ""
                self.log(f"loop stall: woke {lag * 1000:.0f} ms late{culprit}")

    def figures(self) -> LagFigures:
        order = self._order
        p99 = order[min(len(order) - 1, int(len(order) * 0.99))] if order else 0.0
        took, task = self._slowest
        return LagFigures(
            wakes=self.wakes,
            max_ms=round(self.max_lag * 1000, 2),
            p99_ms=round(p99 * 1000, 2),
            recent_ms=round(max(self._recent_lags, default=0.0) * 1000, 2),
            stalls=self.stalls,
            slowest_task=task,
            slowest_step_ms=round(took * 1000, 2),
        )

    def reset(self) -> None:
        """Forgets what was seen (a bench's quiet part ends)."""
        self.wakes = self.stalls = 0
        self.max_lag = 0.0
        self._window.clear()
        self._order.clear()
        self._recent_lags.clear()
        self._recent = self._slowest = (0.0, "")
