"""``WorkerPool``: slow work off the trio loop, bounded, refused with one line when full.

The loop only moves messages and clocks; anything whose cost grows with data
runs here. A pool has ``workers`` running at once and ``queue`` more waiting;
one more is refused with ``Refused`` (its text is the line to show) rather
than waiting without end. ``kind="thread"`` suits I/O (the GIL is let go while
it waits); ``kind="process"`` suits pure-Python work that would hold the GIL
and so still stall the loop (rendering a page, pairing a round): the function
and its arguments must pickle, and the processes start on first use::

    pages = WorkerPool("replay page", workers=2, queue=8, kind="process")
    html = await pages.run(render, text)       # Refused: "busy: ... try again"
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

import trio

T = TypeVar("T")
Kind = Literal["thread", "process"]


class Refused(Exception):
    """The pool would not run the job (it is full, or its processes died); ``str()``
    is the line to show."""


class WorkerPool:
    """The pool of the module docstring."""

    def __init__(
        self, name: str, *, workers: int = 2, queue: int = 8, kind: Kind = "thread"
    ) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a pool has at least one worker and a queue of zero or more")
        self.name = name
        self.workers = workers
        self.queue = queue
        self.kind = kind
        #: Jobs admitted and not finished (running or waiting), and the most seen.
        self.jobs = 0
        self.most = 0
        self.refused = 0
        self._limiter = trio.CapacityLimiter(workers)
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None

    async def run(self, call: Callable[..., T], *args: object) -> T:
        """``call(*args)`` in a worker; raises ``Refused`` when the pool is full."""
        if self.jobs >= self.workers + self.queue:
            self.refused += 1
            raise Refused(
                f"the server is busy with {self.jobs} {self.name} jobs: try again in a moment"
            )
        self.jobs += 1
        self.most = max(self.most, self.jobs)
        try:
            async with self._limiter:
                if self.kind == "thread":
                    return await trio.to_thread.run_sync(functools.partial(call, *args))
                return await self._in_process(call, *args)
        finally:
            self.jobs -= 1

    async def start(self) -> None:
        """Starts a process pool's processes now, in a thread (each imports the project
        once: better at start-up than on the first job); nothing for threads."""
        if self.kind == "process":
            executor = self._executor()
            warm = [executor.submit(int) for _ in range(self.workers)]
            await trio.to_thread.run_sync(concurrent.futures.wait, warm)

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._processes is None:
            # spawn, not fork: the server's process holds threads and sockets.
            self._processes = concurrent.futures.ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
        return self._processes

    async def _in_process(self, call: Callable[..., T], *args: object) -> T:
        executor = self._executor()
        # Submitted from a thread: the first jobs start the processes, which takes a while.
        future = await trio.to_thread.run_sync(executor.submit, call, *args)
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()

        def wake(_: object) -> None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(done.set)

        future.add_done_callback(wake)
        try:
            await done.wait()
        except trio.Cancelled:
            future.cancel()  # a job already running finishes; its answer is dropped
            raise
        try:
            return future.result()
        except concurrent.futures.process.BrokenProcessPool:
            self._processes = None  # the next job starts new ones
            raise Refused(f"a {self.name} worker stopped: try again in a moment") from None

    def close(self) -> None:
        """Ends the pool's processes (jobs still running are let finish)."""
        # A worker also ends by itself within a second of the process that started
        # it (``_watch_parent``): a server killed before it could call this.
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)
            self._processes = None


def _watch_parent(parent: int) -> None:
    """In a pool's process: ends it once the process that started it is gone (killed,
    or exited without waiting), so that no worker outlives its server."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
