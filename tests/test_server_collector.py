"""``server.collector``: the garbage collector's policies of a long-running server."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
import trio

from bughouse_arbiter.net.collector import FULL_AFTER, MIDDLE, YOUNG, collecting


@pytest.fixture
def restored_collector() -> Iterator[None]:
    """The test process's collector as it was, whatever the test did to it."""
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    if enabled:
        gc.enable()


async def test_a_running_server_freezes_start_up_and_collects_seldom(
    restored_collector: None,
) -> None:
    gc.unfreeze()
    async with trio.open_nursery() as nursery:
        await nursery.start(collecting)
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG, MIDDLE, FULL_AFTER)
        assert YOUNG > 700 and MIDDLE >= 10 and FULL_AFTER > 10  # rarer than CPython's
        assert gc.isenabled()  # young collections still reclaim garbage cycles
        nursery.cancel_scope.cancel()


async def test_a_stopping_server_collects_no_more(restored_collector: None) -> None:
    async with trio.open_nursery() as nursery:
        await nursery.start(collecting)
        nursery.cancel_scope.cancel()
    assert not gc.isenabled()
