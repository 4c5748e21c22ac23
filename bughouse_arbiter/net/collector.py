"""The garbage collector of a server process that holds many connections.

CPython collects its youngest generation every 700 net new objects, and a
busy server makes that many in a move or two: the collections walked every
young survivor (snapshots, moves, connections) again and again, promoted
them, and set off full collections over the whole heap. With a hundred
tables and a thousand pages that was a third of the server's CPU and pauses
of 30 to 600 ms in which no table moved and no page heard of a move
(``bench/server_scale.py``). Yet a playing server makes almost no cyclic
garbage: its objects are freed by their reference counts.

``collecting()`` runs next to the server. Once the server is up, what
start-up made (modules, classes, the app) is frozen out of every collection,
and a young collection comes every ``YOUNG`` net new objects, with full ones
rarer still; garbage cycles are still reclaimed, so memory stays bounded.
Once the server stops, collecting ends altogether: the stop's garbage would
set off full collections over the whole heap (a second or more) and the
process is about to exit.
"""

from __future__ import annotations

import gc

import trio

#: Net new objects between young collections (CPython's default: 700).
YOUNG = 50_000
#: Young collections between collections of the middle generation (default: 10).
MIDDLE = 20
#: Middle-generation collections between full ones (default: 10).
FULL_AFTER = 100


async def collecting(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Sets the running policy, then, when cancelled (the server stops), the stopping one."""
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE, FULL_AFTER)
    task_status.started()
    try:
        await trio.sleep_forever()
    finally:
        gc.disable()
        gc.freeze()
