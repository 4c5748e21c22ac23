"""The loop-lag monitor under MockClock: a task that holds the loop is a stall, named."""

from __future__ import annotations

import trio
import trio.testing

from bughouse_arbiter.loop.lag import LagMonitor


async def _hog(clock: trio.testing.MockClock, seconds: float, at: float = 1.0) -> None:
    await trio.sleep(at)
    clock.jump(seconds)  # the loop's time passes while this step runs: a stall


async def test_a_quiet_loop_wakes_on_time(autojump_clock: trio.testing.MockClock) -> None:
    said: list[str] = []
    lag = LagMonitor(interval=0.05, threshold=0.1, log=said.append)
    with trio.move_on_after(2.0):
        await lag.run()
    figures = lag.figures()
    assert figures.wakes >= 39
    assert figures.max_ms == 0.0 and figures.stalls == 0
    assert said == []


async def test_a_stall_is_logged_with_the_task_that_ran(
    autojump_clock: trio.testing.MockClock,
) -> None:
    said: list[str] = []
    lag = LagMonitor(interval=0.05, threshold=0.1, log=said.append)
    trio.lowlevel.add_instrument(lag)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lag.run)
            nursery.start_soon(_hog, autojump_clock, 0.5)
            await trio.sleep(3.0)
            nursery.cancel_scope.cancel()
    finally:
        trio.lowlevel.remove_instrument(lag)
    figures = lag.figures()
    assert figures.stalls == 1 and figures.recent_ms == 0.0
    assert 450 <= figures.max_ms <= 500
    assert figures.slowest_task.endswith("_hog") and figures.slowest_step_ms == 500.0
    [line] = said
    assert line.startswith("loop stall: woke ")
    assert line.endswith("slowest step: 500 ms in test_loop_lag._hog")


async def test_small_lags_are_counted_but_not_logged(
    autojump_clock: trio.testing.MockClock,
) -> None:
    said: list[str] = []
    lag = LagMonitor(interval=0.05, threshold=0.1, log=said.append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lag.run)
        for i in range(5):
            nursery.start_soon(_hog, autojump_clock, 0.03, 0.5 + i * 0.3)
        await trio.sleep(3.0)
        nursery.cancel_scope.cancel()
    assert said == [] and lag.figures().stalls == 0
    assert 0 < lag.figures().max_ms <= 150
    assert lag.figures().recent_ms == 0.0  # the last second was quiet
    lag.reset()
    assert lag.figures().wakes == 0 and lag.figures().max_ms == 0.0
