"""The garbage collector of a server process that holds many connections.

CPython's full collections walk every tracked object; with a hundred tables
and a thousand pages that is a pause of tens to hundreds of milliseconds,
in which no table moves and no page hears of a move. ``collecting()`` runs
next to the server: once it is up, what start-up made (modules, classes,
the app) is frozen out of every collection and full collections come a
tenth as often (young ones are as before, so garbage cycles are still
reclaimed); once the server stops, collecting ends altogether, since the
stop's garbage would set off full collections over the whole heap (a second
or more) and the process is about to exit.
"""

from __future__ import annotations

import gc

import trio

#: Collections of the middle generation before a full one (CPython's default: 10).
FULL_AFTER = 100


async def collecting(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Sets the running policy, then, when cancelled (the server stops), the stopping one."""
    young, middle, full = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(young, middle, max(full, FULL_AFTER))
    task_status.started()
    try:
        await trio.sleep_forever()
    finally:
        gc.disable()
        gc.freeze()
