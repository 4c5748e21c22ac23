"""What an engine leaves behind: helpers in its session, escapees, orphans.

Every engine runs in its own session (and process group, whose id is its
pid). Before it is stopped, ``family`` lists who descends from it (also those
that left its session with ``setsid``) and who else is in its session; once
it is gone, ``kill_listed`` kills what of them is left (checked by pid and
start time). An engine that exited by itself is past listing: then
``kill_session`` kills whatever still runs in its session, a helper in a
process group of its own included.

A daemon (double fork) is no longer below the engine. To catch those,
``become_subreaper`` makes the arbiter a child subreaper (Linux
``PR_SET_CHILD_SUBREAPER``): an orphan among its descendants is then
re-parented to the arbiter instead of to init, and ``kill_orphans`` kills and
reaps every child the arbiter did not start as an engine. The commands call
both; a library user (a test) may too. A tournament does so after every game
(``signal_orphans`` and ``reap``, which never block), while other tables
play: an engine being started there is a child of ours whose pid is not
among the live engines yet, so its start is wrapped in ``starting_engine``,
and meanwhile only a child that was there before that start began can be
taken for an orphan.

Elsewhere than on Linux these do what they can: the process group is
signalled, the rest does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import time
from collections.abc import Collection, Iterable, Iterator
from typing import NamedTuple

_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"
#: Seconds ``kill_orphans`` spends at most (an orphan that keeps forking).
ORPHAN_DEADLINE = 3.0
_subreaper = False
#: Children this process had when it became a subreaper (not orphans of ours).
_before: frozenset[int] = frozenset()
#: Per engine being started now (``starting_engine``): the children this
#: process had as its start began (only those can be orphans meanwhile).
_starting: list[frozenset[tuple[int, int]]] = []


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


def is_subreaper() -> bool:
    """True once ``become_subreaper`` succeeded."""
    return _subreaper


class Proc(NamedTuple):
    """One line of /proc: a process and its place in the tree."""

    pid: int
    ppid: int
    pgrp: int
    session: int
    #: Clock ticks after boot at which it started: with the pid, it names one process.
    start: int


def _stat(pid: int) -> Proc | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None  # it ended meanwhile
    # "pid (comm) state ppid pgrp session ... starttime ...": comm may hold
    # spaces and parentheses, so the fields are counted from its end.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def _processes() -> Iterator[Proc]:
    """Every process /proc shows."""
    try:
        names = os.listdir(_PROC)
    except OSError:
        return
    for name in names:
        if name.isdigit() and (proc := _stat(int(name))) is not None:
            yield proc


def family(root: int) -> list[Proc]:
    """Every process below ``root`` in the tree now (children, theirs...), even
    those that left its session, and every other member of its session: taken
    before the engine is stopped, it names what to kill afterwards
    (``kill_listed``). One pass over /proc."""
    below: dict[int, list[Proc]] = {}
    found: dict[int, Proc] = {}
    for proc in _processes():
        below.setdefault(proc.ppid, []).append(proc)
        if proc.session == root and proc.pid != root:
            found[proc.pid] = proc
    todo = [root]
    while todo:
        for proc in below.get(todo.pop(), ()):
            found[proc.pid] = proc
            todo.append(proc.pid)
    return list(found.values())


def kill_listed(procs: Iterable[Proc], sig: signal.Signals = signal.SIGKILL) -> int:
    """Signals those of ``procs`` that still run (same pid and start time:
    never a newcomer that got a pid back); returns how many."""
    hit = 0
    for proc in procs:
        now = _stat(proc.pid)
        if now is not None and now.start == proc.start:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, sig)
                hit += 1
    return hit


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
    for proc in _processes():
        if proc.session == sid and proc.pid != os.getpid():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(proc.pid, sig)
                hit += 1
    return hit


def children(parent: int | None = None) -> list[int]:
    """The pids whose parent is ``parent`` (default: this process)."""
    me = os.getpid() if parent is None else parent
    return [proc.pid for proc in _processes() if proc.ppid == me]


def _orphans(keep: Collection[int]) -> list[Proc]:
    me, own_session = os.getpid(), os.getsid(0)
    found = [
        proc
        for proc in _processes()
        if proc.ppid == me
        and proc.session != own_session
        and proc.pid not in keep
        and proc.pid not in _before
    ]
    for there in _starting:
        found = [proc for proc in found if (proc.pid, proc.start) in there]
    return found


def orphans(keep: Collection[int] = ()) -> list[int]:
    """Children of this process that an engine left behind.

    Engines run in sessions of their own, so whatever they start does too:
    children in this process's own session (a program embedding the arbiter
    may have some), those it had before it became a subreaper, and ``keep``
    are not orphans of an engine; nor, while an engine is being started
    (``starting_engine``), is a child that came after that start began.
    """
    return [proc.pid for proc in _orphans(keep)]


@contextlib.contextmanager
def starting_engine() -> Iterator[None]:
    """Wraps the start of an engine process until its pid is live
    (``live_engine_pids``): until then the new child would pass for an
    orphan, so only the children there before are taken for orphans meanwhile.
    One pass over /proc (none unless this process is a subreaper)."""
    if not _subreaper:
        yield
        return
    me = os.getpid()
    there = frozenset((proc.pid, proc.start) for proc in _processes() if proc.ppid == me)
    _starting.append(there)
    try:
        yield
    finally:
        _starting.remove(there)


def signal_orphans(keep: Collection[int] = (), sig: signal.Signals = signal.SIGKILL) -> list[int]:
    """Sends ``sig`` to every one of the ``orphans`` (all but ``keep``) now, and
    returns their pids, to ``reap``. Nothing (an empty list) unless this
    process is a subreaper. Never blocks."""
    if not _subreaper:
        return []
    found = [proc.pid for proc in _orphans(keep)]
    for pid in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return found


def reap(pids: Iterable[int]) -> list[int]:
    """Reaps those of ``pids`` (children of ours) that have ended; returns the
    others. Never blocks."""
    waiting = []
    for pid in pids:
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid  # already reaped (or not ours after all)
        if not done:
            waiting.append(pid)
    return waiting


def kill_orphans(keep: Collection[int] = ()) -> int:
    """Kills and reaps the ``orphans`` (all but ``keep``); returns how many.

    Only once ``become_subreaper`` succeeded. Killing one re-parents its own
    children to us, so it goes on until none is left or ``ORPHAN_DEADLINE``
    has passed. Blocks meanwhile.
    """
    killed: set[int] = set()
    deadline = time.monotonic() + ORPHAN_DEADLINE
    while time.monotonic() < deadline:
        found = signal_orphans(keep)
        if not found:
            break
        killed.update(found)
        while (found := reap(found)) and time.monotonic() < deadline:
            time.sleep(0.01)
    return len(killed)
