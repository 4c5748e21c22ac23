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


_KILLED_PARENT = """
import os, sys, trio
from bughouse_arbiter.loop.workers import WorkerPool

async def main():
    pool = WorkerPool("test", workers=2, queue=0, kind="process")
    await pool.start()
    print(*[await pool.run(os.getpid) for _ in range(4)], flush=True)
    await trio.sleep_forever()

trio.run(main)
"""


@pytest.mark.slow
async def test_the_workers_end_when_their_server_is_killed() -> None:
    import os
    import signal
    import subprocess
    import sys

    with trio.fail_after(60):
        server = await trio.lowlevel.open_process(
            [sys.executable, "-c", _KILLED_PARENT], stdout=subprocess.PIPE
        )
        try:
            assert server.stdout is not None
            line = b""
            while not line.endswith(b"\n"):
                chunk = await server.stdout.receive_some(100)
                assert chunk, "the pool's process ended before its workers answered"
                line += chunk
            workers = {int(pid) for pid in line.split()}
        finally:
            server.send_signal(signal.SIGKILL)
            await server.wait()
        while any(os.path.exists(f"/proc/{pid}") and _running(pid) for pid in workers):
            await trio.sleep(0.1)
    assert workers and server.pid not in workers


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for its (gone) parent's reaper."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
