"""One driver per tournament folder: an advisory lock held for the whole run.

``hold(folder)`` takes ``fcntl.flock`` on ``tournament.lock`` in the folder
(without waiting) and keeps it until the block ends; the kernel lets it go
when the process dies, so a killed run never leaves the folder locked. A
second driver (another ``--resume`` of the same folder) gets ``FolderInUse``
at once, before it reads or writes anything of the run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

LOCK = "tournament.lock"


class FolderInUse(Exception):
    """Another process holds the folder's lock."""


@contextlib.contextmanager
def hold(folder: Path) -> Iterator[None]:
    """Holds the folder's lock for the block (``FolderInUse`` if another process has it).

    The lock file keeps the holder's pid, for the message the next one gets.
    """
    path = folder / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise FolderInUse(
                f"{folder} is in use by another bughouse tournament{who}; "
                "wait for it to end, or stop it first"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
