"""``WorkerPool``: jobs off the loop, bounded, refused with one line when full."""

from __future__ import annotations

import operator

import pytest
import trio
from loop_checks import Gate

from bughouse_arbiter.loop.cache import SizedCache
from bughouse_arbiter.loop.workers import Refused, WorkerPool


async def test_a_thread_job_runs_while_the_loop_turns() -> None:
    pool = WorkerPool("test", workers=1, queue=0)
    gate = Gate()

    def job() -> int:
        gate.wait()
        return 42

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(gate.turn)
            assert await pool.run(job) == 42
    assert gate.turned == gate.turns and pool.jobs == 0


async def test_a_full_pool_refuses_with_one_line_and_takes_jobs_again_after() -> None:
    pool = WorkerPool("replay page", workers=1, queue=1)
    release = trio.Event()
    token = trio.lowlevel.current_trio_token()

    def held() -> str:
        trio.from_thread.run(release.wait, trio_token=token)
        return "done"

    answers: list[str] = []

    async def ask() -> None:
        answers.append(await pool.run(held))

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            nursery.start_soon(ask)
            while pool.jobs < 2:
                await trio.sleep(0.01)
            with pytest.raises(Refused) as refused:
                await pool.run(held)
            release.set()
        assert str(refused.value) == (
            "the server is busy with 2 replay page jobs: try again in a moment"
        )
        assert answers == ["done", "done"] and pool.refused == 1 and pool.most == 2
        assert await pool.run(operator.add, 1, 2) == 3


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        WorkerPool("x", workers=0)


@pytest.mark.slow
async def test_a_process_job_leaves_the_loop_free_and_its_errors_come_back() -> None:
    pool = WorkerPool("test", workers=1, queue=0, kind="process")
    try:
        with trio.fail_after(60):
            await pool.start()
            assert await pool.run(sum, range(10**7)) == sum(range(10**7))
            with pytest.raises(ZeroDivisionError):
                await pool.run(operator.truediv, 1, 0)
    finally:
        pool.close()


def test_the_cache_keeps_the_newest_up_to_its_size() -> None:
    cache: SizedCache[int] = SizedCache(10)
    cache.put(1, "aaaa")
    cache.put(2, "bbbb")
    assert cache.get(1) == "aaaa"  # 1 is now the newest used
    cache.put(3, "cccc")
    assert cache.get(2) is None and cache.get(1) == "aaaa" and cache.get(3) == "cccc"
    cache.put(4, "x" * 11)  # bigger than the whole cache: not kept
    assert cache.get(4) is None and cache.size == 8 and len(cache) == 2
    cache.put(1, "a")
    assert cache.size == 5
