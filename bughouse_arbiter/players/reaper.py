"""What an engine leaves behind: helpers in its session, escapees, orphans.

Every engine runs in its own session (and process group, whose id is its
pid). When it stops, ``kill_session`` kills whatever still runs in that
session, whether or not the engine itself has already exited: a helper it
forked, even one that moved to a process group of its own.

A process that calls ``setsid`` leaves the session. To catch those,
``become_subreaper`` makes the arbiter a child subreaper (Linux
``PR_SET_CHILD_SUBREAPER``): an orphan among its descendants is then
re-parented to the arbiter instead of to init, and ``kill_orphans`` kills and
reaps every child the arbiter did not start as an engine. The commands call
both; a library user (a test) may too.

Elsewhere than on Linux these do what they can: ``kill_session`` signals the
process group only, and the other two do nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import time
from collections.abc import Collection, Iterator

_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"
#: Seconds ``kill_orphans`` spends at most (an orphan that keeps forking).
ORPHAN_DEADLINE = 3.0
_subreaper = False
#: Children this process had when it became a subreaper (not orphans of ours).
_before: frozenset[int] = frozenset()


def become_subreaper() -> bool:
    """Makes this process a child subreaper; True if it now is one."""
    global _subreaper, _before
    if not sys.platform.startswith("linux"):
        return False
    if not _subreaper:
        _before = frozenset(children())
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        _subreaper = bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        pass
    return _subreaper


def _processes() -> Iterator[tuple[int, int, int, int]]:
    """(pid, ppid, process group, session) of every process /proc shows."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{_PROC}/{name}/stat", "rb") as stat:
                data = stat.read()
        except OSError:
            continue  # it ended meanwhile
        # "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
        fields = data[data.rfind(b")") + 2 :].split()
        try:
            yield int(name), int(fields[1]), int(fields[2]), int(fields[3])
        except (IndexError, ValueError):
            continue


def kill_group(pgid: int, sig: signal.Signals = signal.SIGKILL) -> bool:
    """Sends ``sig`` to process group ``pgid``; True if it had a member left."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_session(sid: int, sig: signal.Signals = signal.SIGKILL) -> int:
    """Sends ``sig`` to the process group ``sid`` and to every process of session
    ``sid``; returns how many processes were signalled (0 when none is left).

    Safe after the session's leader was reaped: a session or process group id
    is not given to a new process while a member is alive.
    """
    hit = int(kill_group(sid, sig))
    for pid, _ppid, _pgrp, session in _processes():
        if session == sid and pid != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
                hit += 1
    return hit


def children(parent: int | None = None) -> list[int]:
    """The pids whose parent is ``parent`` (default: this process)."""
    me = os.getpid() if parent is None else parent
    return [pid for pid, ppid, _pgrp, _sid in _processes() if ppid == me]


def orphans(keep: Collection[int] = ()) -> list[int]:
    """Children of this process that an engine left behind.

    Engines run in sessions of their own, so whatever they start does too:
    children in this process's own session (a program embedding the arbiter
    may have some), those it had before it became a subreaper, and ``keep``
    are not orphans of an engine.
    """
    me, own_session = os.getpid(), os.getsid(0)
    return [
        pid
        for pid, ppid, _pgrp, sid in _processes()
        if ppid == me and sid != own_session and pid not in keep and pid not in _before
    ]


def kill_orphans(keep: Collection[int] = ()) -> int:
    """Kills and reaps the ``orphans`` (all but ``keep``); returns how many.

    Only once ``become_subreaper`` succeeded. Killing one re-parents its own
    children to us, so it goes on until none is left or ``ORPHAN_DEADLINE``
    has passed.
    """
    if not _subreaper:
        return 0
    killed: set[int] = set()
    deadline = time.monotonic() + ORPHAN_DEADLINE
    while time.monotonic() < deadline:
        found = orphans(keep)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        _reap(found, deadline)
    return len(killed)


def _reap(pids: list[int], deadline: float) -> None:
    waiting = set(pids)
    while waiting and time.monotonic() < deadline:
        for pid in list(waiting):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # already reaped (or not ours after all)
            if done:
                waiting.discard(pid)
        if waiting:
            time.sleep(0.01)
