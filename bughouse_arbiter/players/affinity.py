"""Pinning engine processes to CPU cores (``tournament --use-affinity``).

``pinned(cpus)`` marks the engines started inside it (in this task and the
tasks it awaits) to run on ``cpus`` only; ``EngineProcess.start`` calls
``pin`` on each new process. Every thread the process has by then is pinned
(``/proc/PID/task``); threads and children it makes later inherit the mask.
Linux only: elsewhere ``tournament/machine.py`` refuses the option first.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

__all__ = ["pin", "pinned"]

_CPUS: contextvars.ContextVar[frozenset[int] | None] = contextvars.ContextVar(
    "engine_cpus", default=None
)


@contextlib.contextmanager
def pinned(cpus: frozenset[int] | None) -> Iterator[None]:
    """Engines started in this block run on ``cpus`` (None: wherever the system puts them)."""
    token = _CPUS.set(cpus)
    try:
        yield
    finally:
        _CPUS.reset(token)


def pin(pid: int) -> None:
    """Pins process ``pid`` (each of its threads) to the cores of the ``pinned``
    block around it, if any. A process that is gone already is left alone."""
    cpus = _CPUS.get()
    if cpus is None:
        return
    try:
        threads = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        threads = [pid]
    for tid in threads:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, cpus)
