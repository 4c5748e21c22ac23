"""The worker side of the Ray backend: one game slot, its engines kept alive.

A ``RayTable`` is the class of a Ray actor (``ray_backend.py`` makes it
remote, reserving ``cpus_per_match`` CPUs, so a node holds no more tables
than it has cores for). It plays one game at a time and keeps that table's
engines alive from one game to the next, exactly as a local table does: an
``EngineKeeper`` (``table/keeper.py``) reseats idle engines by ``Entrant.key``,
pings them after each game and restarts the ones that crashed, hung, failed
to start, lost on time or moved illegally. The actor's worker process is a
child subreaper: what the engines leave behind comes to it, and is killed
and reaped after every game (``leftovers.py``) and when the table stops.

The keeper lives in a trio loop of its own, run by a thread the actor
starts when it is made; ``play`` (a blocking actor method) hands a job to
that loop with ``trio.from_thread.run`` and waits for its report. The actor
takes three calls at once (``max_concurrency=3``): ``watch``, which the
driver keeps in flight from the start and which returns only when the table
stops (so its failure tells the driver the actor died, idle or not);
``play``; and ``stop``, which can reach it while a game is being played: it
abandons that game, closes every engine and ends the loop; the driver then
kills the actor.

A table also looks at the head's port every ``HEAD_LOOK_SECONDS``: once the
head has not answered ``HEAD_MISSES`` looks in a row (killed, its machine
gone), the table stops (as by ``stop``) and its worker process exits. The
driver cannot kill it then (``stop`` still reaches a table, its kill goes
through the head), and Ray's node would keep it, engines and all, until the
node itself gives up on the head (60 s by default).

Nothing here imports Ray at module level: the driver imports this module
whether or not Ray is installed.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from .. import __version__
from ..config.engines_file import SJENG_FOLDER, sjeng_folder
from ..config.specs import BUILTIN_ENGINES, EngineSpec, builtin_engine
from ..core.model import Result
from ..players.process import live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..table.keeper import CLOSE_TIMEOUT, EngineKeeper
from .jobs import MatchJob, MatchReport, failed_report, node_name
from .leftovers import clear_leftovers
from .play import play_on_table

__all__ = [
    "NodeInfo",
    "Played",
    "RayTable",
    "answers",
    "error_report",
    "gcs_address",
    "localize_job",
    "wait_for_head_loss",
]

#: Seconds the actor waits for its trio loop to come up.
_LOOP_START_TIMEOUT = 30.0
#: Seconds a look at the head's or a node's port may take.
PROBE_TIMEOUT = 2.0
#: Seconds between a table's looks at its head's port, and how many missed
#: looks in a row mean the head is gone (a busy head is given about 10 s).
HEAD_LOOK_SECONDS = 2.0
HEAD_MISSES = 5

#: A game's error when the table was stopped under it, whichever way the stop
#: reached it (the game's scope, or the loop's end).
ABANDONED = "abandoned: the table was stopped"
#: A game's error when it reached a table already stopping.
CLOSING = "the table is closing"


@attrs.frozen(kw_only=True)
class NodeInfo:
    """Which node a game ran on, as people and Ray name it."""

    node_id: str
    ip: str
    host: str

    def __str__(self) -> str:
        return f"{self.host} ({self.ip}, node {self.node_id[:8]})"


@attrs.frozen(kw_only=True)
class Played:
    """What a table sends back: the report, where and when (wall clock) it
    ran, and the keys of the engines it now holds idle."""

    report: MatchReport
    node: NodeInfo
    started: float
    finished: float
    idle: tuple[str, ...] = ()


def localize_job(job: MatchJob) -> MatchJob:
    """``job`` with its built-in engines resolved on this machine.

    The driver resolved ``random`` to its own Python and its own ``engines/``
    folder; a worker node may keep both elsewhere. The built-in ``sjeng``'s
    working folder (under the temporary folder) is made here, where it runs.
    Other commands are left as written.
    """
    entrants = tuple(
        attrs.evolve(entrant, spec=_localize_spec(entrant.spec)) for entrant in job.entrants
    )
    return attrs.evolve(job, entrants=entrants)


def _localize_spec(spec: EngineSpec) -> EngineSpec:
    if spec.cwd is not None and Path(spec.cwd).name == SJENG_FOLDER:
        # The built-in sjeng's folder: the driver made its own; this node makes its own.
        spec = attrs.evolve(spec, cwd=str(sjeng_folder()))
    script = BUILTIN_ENGINES.get(spec.name)
    if script is None or len(spec.command) != len(script) + 1:
        return spec
    if Path(spec.command[1]).name != script[0] or tuple(spec.command[2:]) != script[1:]:
        return spec
    return attrs.evolve(spec, command=builtin_engine(spec.name).command)


def error_report(job: MatchJob, error: str, *, node: str = "") -> MatchReport:
    """A "not played" report of ``job`` (``error`` set)."""
    return MatchReport(job_id=job.job_id, result=Result.UNFINISHED, error=error, node=node)


def gcs_address(ray: Any) -> str | None:
    """The head's GCS address (HOST:PORT) this process is connected to, if Ray says."""
    try:
        address = ray.get_runtime_context().gcs_address
    except Exception:
        return None
    return str(address) if address else None


def answers(address: str) -> bool:
    """Whether something accepts a TCP connection at ``address`` (HOST:PORT)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT):
            return True
    except (OSError, ValueError):
        return False


async def wait_for_head_loss(address: str, *, probe: Callable[[str], bool] = answers) -> None:
    """Returns once the head at ``address`` has missed ``HEAD_MISSES`` looks
    in a row (one every ``HEAD_LOOK_SECONDS``); a look it answers starts the
    count again."""
    misses = 0
    while misses < HEAD_MISSES:
        await trio.sleep(HEAD_LOOK_SECONDS)
        up = await trio.to_thread.run_sync(probe, address, abandon_on_cancel=True)
        misses = 0 if up else misses + 1


def _node_here() -> NodeInfo:
    ray: Any = importlib.import_module("ray")
    node_id = str(ray.get_runtime_context().get_node_id())
    # The address the node registered under (``ray start --node-ip-address``);
    # the worker's own guess would be this machine's routable address.
    nodes = ray.nodes()
    registered = (str(n.get("NodeManagerAddress", "")) for n in nodes if n["NodeID"] == node_id)
    ip = next(registered, "") or str(ray.util.get_node_ip_address())
    return NodeInfo(node_id=node_id, ip=ip, host=socket.gethostname())


class _TableLoop:
    """A table's trio loop, on a thread of its own: the keeper and its engines.

    Kept apart from ``RayTable`` on purpose: Ray makes an actor whose class
    has any ``async def`` method an asyncio actor, which runs blocking methods
    on its event loop one at a time, so ``stop`` and ``watch`` could not run
    while ``play`` waits for its game.
    """

    def __init__(self) -> None:
        # What the engines leave comes to this worker, to be cleared after each game.
        become_subreaper()
        self.keeper = EngineKeeper()
        self.token: trio.lowlevel.TrioToken | None = None
        self._loop: trio.CancelScope | None = None
        self._game: trio.CancelScope | None = None
        self.stopping = False
        up = threading.Event()
        self.thread = threading.Thread(
            target=trio.run, args=(self._serve, up), name="bughouse-table", daemon=True
        )
        self.thread.start()
        if not up.wait(_LOOP_START_TIMEOUT) or self.token is None:
            raise RuntimeError("the table's trio loop did not start")

    async def _serve(self, up: threading.Event) -> None:
        """Holds the keeper's engines until ``cancel_all``; then closes them and
        kills what is left of theirs."""
        try:
            with trio.CancelScope() as loop:
                self._loop = loop
                self.token = trio.lowlevel.current_trio_token()
                async with trio.open_nursery() as nursery:
                    await nursery.start(self.keeper.serve)
                    up.set()
                    await trio.sleep_forever()
        finally:
            kill_orphans(keep=live_engine_pids())

    async def play(self, job: MatchJob) -> MatchReport:
        if self.stopping:
            return error_report(job, CLOSING)
        try:
            with trio.CancelScope() as game:
                self._game = game
                try:
                    report = await play_on_table(job, self.keeper)
                except Exception as exc:  # the harness failed: report, engines closed
                    await self.keeper.close_all()
                    report = failed_report(job, exc)
                # What this game's engines left behind goes before its report.
                await clear_leftovers()
                if not self.stopping:  # else the stop did it (e.g. closed the keeper)
                    return report
            # Abandoned by ``stop``: the driver is not waiting for this report.
            return error_report(job, ABANDONED)
        finally:
            self._game = None
            if self.stopping:
                self._end_loop()

    def cancel_all(self) -> None:
        """Abandons the game in play and ends the loop (its engines closed); in the loop.

        A game in play is unwound first (its engines closed) and ends the loop
        itself as it leaves, so its report is always the abandoned one."""
        self.stopping = True
        if self._game is not None:
            self._game.cancel()
        else:
            self._end_loop()

    def _end_loop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()


class RayTable:
    """One game slot on a Ray node: plays jobs one at a time with kept engines.

    Its methods are all blocking (a threaded actor: see ``_TableLoop``)."""

    def __init__(self) -> None:
        self._node = _node_here()
        self._table = _TableLoop()
        ray = importlib.import_module("ray")
        # Outside Ray (a table made in a test) asking would start Ray here or wait for a head.
        head = gcs_address(ray) if ray.is_initialized() else None
        if head is not None:
            watch = threading.Thread(
                target=self._end_with_head, args=(head,), name="bughouse-head", daemon=True
            )
            watch.start()

    def _end_with_head(self, head: str) -> None:
        """Once the head is gone: stops the table (its engines closed) and ends
        this worker process, which the driver can no longer kill (stopped or not)."""
        trio.run(wait_for_head_loss, head)
        self.stop()
        os._exit(1)

    # -- actor methods ----------------------------------------------------------------

    def play(self, job: MatchJob, driver_version: str) -> Played:
        """Plays ``job`` with this table's engines (blocking) and reports it.

        Every report names its table as host:pid, as locally, and the Ray
        node that worker belongs to: ``host:pid ray-node NODE_ID IP``."""
        started = time.time()
        node = self._node
        where = f"{node_name()} ray-node {node.node_id} {node.ip}"
        if driver_version != __version__:
            report = error_report(
                job,
                f"node {node} runs bughouse-arbiter {__version__}, the driver {driver_version}: "
                "install the same version on every node",
                node=where,
            )
        else:
            try:
                report = trio.from_thread.run(
                    self._table.play, localize_job(job), trio_token=self._table.token
                )
            except (Exception, trio.Cancelled, BaseExceptionGroup) as exc:
                # Not a game: the loop ended under it (stopped) or broke.
                why = ABANDONED if self._table.stopping else f"{type(exc).__name__}: {exc}"
                report = error_report(job, why, node=where)
            else:
                report = attrs.evolve(report, node=where)
        return Played(
            report=report,
            node=node,
            started=started,
            finished=time.time(),
            idle=self._table.keeper.idle_keys,
        )

    def stop(self) -> bool:
        """Abandons the game in play, closes every engine and ends the loop
        (blocking, up to the keeper's close timeouts). True once it has ended."""
        token = self._table.token
        if token is not None:
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._table.cancel_all, trio_token=token)
        # Closing: this game's engines, then the idle ones (CLOSE_TIMEOUT each at most).
        self._table.thread.join(2 * CLOSE_TIMEOUT + 5.0)
        return not self._table.thread.is_alive()

    def node(self) -> NodeInfo:
        """Where this table is."""
        return self._node

    def watch(self) -> bool:
        """Returns once the table has stopped (True). The driver keeps this call
        in flight for the table's whole life: if the actor dies, Ray fails the
        call at once, so the driver learns it even while the table is idle."""
        self._table.thread.join()
        return True
