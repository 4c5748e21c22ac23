"""What a game's engines left behind, cleared as soon as the game ends.

An engine that forks and exits (or crashes) leaves its children to the
process that is a child subreaper (``reaper.become_subreaper``): the
tournament's driver, or a Ray table's worker. Killed with the engine's
process group, they are zombies of ours until reaped; a double-forked
daemon is alive until killed. A tournament plays thousands of games, so
both are cleared after every game, on every backend (``clear_leftovers``):
with several tables the others go on playing meanwhile, so it never blocks
the loop. The engines kept for the next game are live and spared, and so is
what came while another table starts an engine (``reaper.starting_engine``:
that engine is among it; the next game's clearing takes the rest); whatever
else is a child of ours in another session goes.
"""

from __future__ import annotations

import trio

from ..players.process import live_engine_pids
from ..players.reaper import ORPHAN_DEADLINE, is_subreaper, reap, signal_orphans

#: Seconds between looks while the orphans killed die.
POLL = 0.01


async def clear_leftovers(deadline: float = ORPHAN_DEADLINE) -> int:
    """Kills and reaps the orphans engines left (``reaper.orphans``, all but
    the live engines); returns how many. Goes on while killing one re-parents
    more to us, for ``deadline`` seconds at most (what is left then goes with
    a later game's). Nothing unless this process is a subreaper."""
    if not is_subreaper():
        return 0
    killed: set[int] = set()
    waiting: list[int] = []
    with trio.move_on_after(deadline):
        while True:
            found = signal_orphans(keep=live_engine_pids())
            if not found and not waiting:
                break
            killed.update(found)
            waiting = reap({*waiting, *found})
            await trio.sleep(POLL if waiting else 0)
    reap(waiting)
    return len(killed)
