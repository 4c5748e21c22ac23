"""``RayScheduler``: the tournament's games played on a Ray cluster, engines kept.

The driver (this process) keeps everything that makes the tournament: the
schedule, the journal, ``games.bpgn``, the statistics and the progress. The
games are played by *tables*: Ray actors (``RayTable``, ``ray_table.py``),
one per game slot, each reserving ``cpus_per_match`` CPUs on its node for
as long as it lives (so a node never runs more games than it has cores for).
A table plays one ``MatchJob`` at a time and keeps its engines alive from
one game to the next with an ``EngineKeeper``, as a local table does: idle
engines are reseated by ``Entrant.key``, pinged after each game, and
restarted only after a crash, a hang, a failed start, a time loss or an
illegal move. Each ``MatchReport`` comes back as soon as its game ends and
is handed to ``on_report`` like the local backend's (see ``scheduler.py``);
its ``started_engines`` feed ``stats`` (``engines_started``,
``games_reusing``).

The driver hands each job to an idle table whose idle engines fit it best;
it starts a new table (and waits for it to be up before giving it a game)
when the live nodes have room for one more, up to ``--concurrency``. The
tables are polled with the games (every ``POLL_SECONDS``); the node list is
asked for at most every ``NODES_SECONDS`` (and at once after a table died or
failed to start): the capacity is counted again (a node that joins gets a
table as soon as a game waits), tables on nodes that left are dropped, tables
beyond the capacity retired. A pass's bookkeeping does not grow with the
calls that return in it (tables are found by their calls' refs).
Each table has a ``watch`` call in flight for its whole life, which Ray
fails when the actor dies: a table that died idle is dropped before it is
handed a game. When ``run``
ends, or is cancelled (Ctrl+C), every table is asked to ``stop`` (abandon
its game, close its engines) and killed after ``CLOSE_GRACE`` seconds, or
``CANCEL_GRACE`` when games were abandoned.

What the cluster adds, and how it is kept out of the results:

- A table's worker process or node that dies mid-game costs that game only:
  the table is dropped (a new one is started where there is room), the job
  is handed out again (first in line, up to ``max_attempts`` in all) and
  reported once. Ray's own retries are off (``max_restarts=0``,
  ``max_task_retries=0``) so a game is never played twice behind the
  driver's back; a job id already reported or in flight is never handed
  out again.
- An engine that does not start on a node is that node's fault (the engine
  is missing or broken there), not the engine's: the report is turned into a
  harness error naming the node (``error`` set, not a game), and jobs that
  seat that engine go only to tables on other nodes from then on (an idle
  table on such a node is retired when the job has nowhere else to go). A
  job no live node can take is reported as an error at once.
- A node with another bughouse-arbiter version refuses each game naming
  itself (the version is checked per job).
- Which it was, a table's worker or its whole node, is read from Ray's
  error (``node_loss``: a node stopped with SIGTERM is drained first, and
  said to be stopped) and, where Ray does not say, asked of that node's
  raylet port (Ray reports a node's end as its actors' deaths first).
- No call to the cluster blocks the event loop (``_ask`` runs each in a
  thread the loop can leave, so Ctrl+C always works); one that takes long
  makes the driver look at the head's port, and a head that no longer
  answers ends ``run`` with ``head_lost`` set (the command says how to
  resume) instead of a silent minute in Ray's reconnection timeout.
- Per node, the games, failures and games/s are counted (``node_counts``).
- The built-in engines (``searcher``, ``random``...) are found on the worker
  where that node's installation keeps them; every other command runs on the
  worker as written (install it at the same path on every node).

Ray is an optional dependency: it is imported when a ``RayScheduler`` is
connected, never before, and ``require_ray`` says what to install.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import os
import socket
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import IO, Any, Literal

import attrs
import trio

from .. import __version__
from ..errors import ConfigError
from ..table.keeper import fit_keys
from .jobs import MatchJob, MatchReport
from .ray_nodes import NodeCounts
from .ray_table import (
    NodeInfo,
    Played,
    RayTable,
    answers,
    error_report,
    gcs_address,
    localize_job,
)
from .scheduler import NextJob, OnReport, SchedulerStats

__all__ = [
    "DEFAULT_CPUS_PER_MATCH",
    "RAY_MISSING",
    "Dispatch",
    "NodeInfo",
    "RayScheduler",
    "localize_job",
    "require_ray",
]

UNAUTHENTICATED = (
    "the Ray cluster refuses this driver's authentication token: set RAY_AUTH_MODE=token "
    "and the cluster's token (~/.ray/auth_token or RAY_AUTH_TOKEN) here as on its nodes "
    "(docs/distributed.md)"
)
RAY_MISSING = "--ray needs Ray, which is not installed: pip install 'bughouse-arbiter[ray]'"
#: CPUs a match reserves by default: two engines think at once in a bughouse game.
DEFAULT_CPUS_PER_MATCH = 2.0
#: Attempts a job gets when its worker or node dies under it.
MAX_ATTEMPTS = 3
#: Seconds the loop waits for a call to answer before it looks around again.
POLL_SECONDS = 1.0
#: Seconds between asks for the node list (nodes come and go); a table's death
#: or failed start makes the next pass ask at once.
NODES_SECONDS = 1.0
#: Seconds a cancelled run's tables get to close their engines before they are killed.
CANCEL_GRACE = 3.0
#: Seconds the tables get to close their idle engines at the end of a run.
CLOSE_GRACE = 15.0
#: Seconds a call to the cluster may take before the driver checks that the head
#: (and a dead table's node) still answers on its port.
HEAD_PATIENCE = 1.5
#: Seconds between the progress lines of per-node counts.
NODES_EVERY = 60.0
_LOCAL = "local"
_NODE_ID_LABEL = "ray.io/node-id"


class HeadLost(Exception):
    """The cluster's head no longer answers: the run cannot go on."""


def require_ray() -> Any:
    """The ``ray`` module; ConfigError (one line, what to install) if it is missing."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ConfigError(RAY_MISSING) from None


@attrs.frozen(kw_only=True)
class Dispatch:
    """One job's trip through the cluster (wall-clock seconds, for ``bench/ray_dispatch.py``)."""

    job_id: str
    attempt: int
    #: Where it ran: ``host:pid ray-node NODE_ID IP`` (the table's worker process and its node).
    node: str
    submitted: float
    started: float
    finished: float
    received: float
    reported: float

    @property
    def to_start(self) -> float:
        """Job handed to its table until the table began it."""
        return self.started - self.submitted

    @property
    def to_journal(self) -> float:
        """Table finished until ``on_report`` (the journal) was done with it."""
        return self.reported - self.finished


@attrs.define
class _Flight:
    job: MatchJob
    attempt: int
    submitted: float


@attrs.define(eq=False)
class _Table:
    """The driver's view of one ``RayTable`` actor."""

    handle: Any
    #: The call in flight: ``node`` while the table starts, then ``play`` per game.
    ref: Any = None
    #: Set once the table is up (its first call answered).
    node_id: str | None = None
    #: Its node's raylet (host, port), to tell a dead node from a dead worker.
    raylet: tuple[str, int] | None = None
    #: Keys of the engines it holds idle (after its last game).
    idle: tuple[str, ...] = ()
    flight: _Flight | None = None
    #: Its ``watch`` call, in flight until the actor stops or dies.
    watch: Any = None
    #: Set when ``watch`` answered: the actor is dead (or its loop ended).
    gone: bool = False

    @property
    def starting(self) -> bool:
        return self.node_id is None

    @property
    def ready(self) -> bool:
        """Up and not playing."""
        return self.ref is None and self.node_id is not None


class RayScheduler:
    """Plays jobs on Ray actors that keep their engines; the ``Scheduler`` contract.

    Make one with ``RayScheduler.connect(address)``: ``"local"`` starts a Ray
    runtime in this process (all of this machine's CPUs), anything else is
    the address of a running cluster (``HOST:PORT`` of its head, or ``auto``).
    """

    def __init__(
        self,
        ray: Any,
        *,
        cpus_per_match: float = DEFAULT_CPUS_PER_MATCH,
        concurrency: int | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self._ray = ray
        self.cpus_per_match = cpus_per_match
        self.max_attempts = max_attempts
        self.stats = SchedulerStats()
        #: The user's cap on games in flight (None: as many as the cluster holds).
        self.limit = concurrency
        self._notice = notice if notice is not None else _to_stderr
        self._table_class = ray.remote(
            num_cpus=cpus_per_match, max_restarts=0, max_task_retries=0, max_concurrency=3
        )(RayTable)
        #: The live tables, and the retired ones closing their engines (by their stop call).
        self._tables: list[_Table] = []
        self._retiring: dict[Any, _Table] = {}
        #: The live tables by their call in flight and by their ``watch`` (kept
        #: in step with ``_Table.ref`` and ``.watch`` by ``_call``, ``_unwatch``, ``_forget``).
        self._by_ref: dict[Any, _Table] = {}
        self._by_watch: dict[Any, _Table] = {}
        #: The live tables that are ready (up, no call in flight), oldest ready first.
        self._ready: dict[_Table, None] = {}
        #: Tables started in all (a dead or retired one is replaced by a new one).
        self.tables_started = 0
        #: Tables that failed to start in a row, and why the last one did.
        self._start_failures = 0
        self._last_start_failure = ""
        #: Engine keys that failed to start, per node id.
        self.bad_nodes: dict[str, set[str]] = {}
        #: Job ids handed to ``on_report`` as played, and every trip made.
        self.reported: set[str] = set()
        self.dispatches: list[Dispatch] = []
        #: (job id, attempt) of every job handed out again after its worker or node died.
        self.requeued: list[tuple[str, int]] = []
        #: Games, failures and games/s per node that had a table.
        self.node_counts = NodeCounts()
        self._nodes_said = time.monotonic()
        #: The head's GCS address (HOST:PORT), and why the run stopped if it went.
        self.head = gcs_address(ray)
        self.head_lost: str | None = None
        #: What ``--ray`` was given (set by ``connect``), for the line that says how to resume.
        self.address = "ADDRESS"
        alive = [node for node in ray.nodes() if node.get("Alive")]
        self._nodes: dict[str, Mapping[str, Any]] = {str(n["NodeID"]): n for n in alive}
        #: The last node list asked for, and when (trio time; None: ask at the next pass).
        self._alive: list[Mapping[str, Any]] = alive
        self._alive_asked: float | None = None
        self.concurrency = self._capacity(alive)
        if self.concurrency == 0:
            raise ConfigError(self._no_room_message(alive))

    # -- connecting -------------------------------------------------------------------

    @classmethod
    def connect(
        cls,
        address: str,
        *,
        cpus_per_match: float = DEFAULT_CPUS_PER_MATCH,
        concurrency: int | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> RayScheduler:
        """Connects this process to Ray at ``address`` and checks the cluster can hold a game.

        Raises:
            ConfigError: Ray is not installed, ``address`` cannot be reached, or
                no node has ``cpus_per_match`` CPUs.
        """
        if not cpus_per_match > 0 or not math.isfinite(cpus_per_match):
            raise ConfigError(f"--ray-cpus-per-match must be above 0, not {cpus_per_match:g}")
        ray = require_ray()
        if not ray.is_initialized():
            _init(ray, address)
        try:
            scheduler = cls(
                ray, cpus_per_match=cpus_per_match, concurrency=concurrency, notice=notice
            )
        except ConfigError:
            ray.shutdown()
            raise
        scheduler.address = address
        return scheduler

    def shutdown(self) -> None:
        """Closes any table left (engines first), then disconnects from the
        cluster (and stops a ``local`` runtime)."""
        self._close_tables()
        self._ray.shutdown()

    # -- the cluster ------------------------------------------------------------------

    async def _alive_nodes(self) -> list[Mapping[str, Any]]:
        nodes = await self._ask(self._ray.nodes)
        alive = [node for node in nodes if node.get("Alive")]
        self._nodes.update((str(n["NodeID"]), n) for n in alive)
        self._alive, self._alive_asked = alive, trio.current_time()
        return alive

    async def _recent_nodes(self) -> list[Mapping[str, Any]]:
        """The live nodes, asked of the cluster at most every ``NODES_SECONDS``
        (its cost grows with the nodes), or at once after a table died or failed."""
        asked = self._alive_asked
        if asked is None or trio.current_time() - asked >= NODES_SECONDS:
            return await self._alive_nodes()
        return self._alive

    async def _ask(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, a blocking call to the cluster, off the event loop
        (so Ctrl+C ends it at once); HeadLost if it takes long and the head's
        port no longer answers."""
        answer: list[Any] = []
        failure: list[BaseException] = []
        lost = False

        async def asking(scope: trio.CancelScope) -> None:
            try:
                answer.append(await trio.to_thread.run_sync(call, *args, abandon_on_cancel=True))
            except Exception as exc:
                failure.append(exc)
            scope.cancel()

        async def watching(scope: trio.CancelScope) -> None:
            nonlocal lost
            while True:
                await trio.sleep(HEAD_PATIENCE)
                if self.head is None:
                    continue
                up = await trio.to_thread.run_sync(answers, self.head, abandon_on_cancel=True)
                if not up:
                    lost = True
                    scope.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(asking, nursery.cancel_scope)
            nursery.start_soon(watching, nursery.cancel_scope)
        if lost:
            raise HeadLost(f"the Ray cluster's head at {self.head} no longer answers")
        if failure:
            raise failure[0]
        return answer[0]

    def _slots(self, node: Mapping[str, Any]) -> int:
        cpus = float(node.get("Resources", {}).get("CPU", 0.0))
        return math.floor(cpus / self.cpus_per_match + 1e-9)

    def _capacity(self, alive: Sequence[Mapping[str, Any]]) -> int:
        """Games the live nodes can play at once (capped by ``limit``)."""
        slots = sum(self._slots(node) for node in alive)
        return slots if self.limit is None else min(slots, self.limit)

    def _no_room_message(self, alive: Sequence[Mapping[str, Any]]) -> str:
        largest = max(
            (float(n.get("Resources", {}).get("CPU", 0.0)) for n in alive),
            default=0.0,
        )
        return (
            f"no node of the Ray cluster has {self.cpus_per_match:g} CPUs for a match "
            f"(the largest has {largest:g}): lower --ray-cpus-per-match or add nodes"
        )

    def _avoid(self, job: MatchJob) -> set[str]:
        """Nodes where an engine of ``job`` did not start."""
        keys = {entrant.key for entrant in job.entrants}
        return {node for node, bad in self.bad_nodes.items() if bad & keys}

    # -- the tables -------------------------------------------------------------------

    def _start_table(self, avoid: Collection[str]) -> None:
        """Starts one more table, on a node not in ``avoid``; it takes games once up."""
        options: dict[str, Any] = {}
        if avoid:
            options["label_selector"] = {_NODE_ID_LABEL: f"!in({','.join(sorted(avoid))})"}
        handle = self._table_class.options(**options).remote()
        table = _Table(handle, watch=handle.watch.remote())
        self._by_watch[table.watch] = table
        self._call(table, handle.node.remote())
        self._tables.append(table)
        self.tables_started += 1

    def _call(self, table: _Table, ref: Any) -> None:
        """``ref`` (or None) is now the call ``table`` has in flight."""
        if table.ref is not None:
            self._by_ref.pop(table.ref, None)
        table.ref = ref
        if ref is not None:
            self._by_ref[ref] = table
        self._mark(table)

    def _mark(self, table: _Table) -> None:
        """Keeps ``_ready`` in step with a live table's ``ready``."""
        if table.ready:
            self._ready[table] = None
        else:
            self._ready.pop(table, None)

    def _unwatch(self, table: _Table) -> None:
        if table.watch is not None:
            self._by_watch.pop(table.watch, None)
        table.watch = None

    def _forget(self, table: _Table) -> None:
        """Takes ``table`` out of the live tables and their indexes."""
        if table in self._tables:
            self._tables.remove(table)
        if table.ref is not None and self._by_ref.get(table.ref) is table:
            del self._by_ref[table.ref]
        if table.watch is not None and self._by_watch.get(table.watch) is table:
            del self._by_watch[table.watch]
        self._ready.pop(table, None)

    def _drop(self, table: _Table) -> None:
        """Forgets ``table`` and kills its actor (it is dead, or its call lost)."""
        self._forget(table)
        self._alive_asked = None  # its node may have gone: the next pass asks
        with contextlib.suppress(Exception):
            self._ray.kill(table.handle, no_restart=True)

    def _retire(self, table: _Table) -> None:
        """Asks an idle ``table`` to close its engines; it is killed once done."""
        self._forget(table)
        self._retiring[table.handle.stop.remote()] = table

    def _tidy(self, alive: Sequence[Mapping[str, Any]]) -> None:
        """Drops the idle tables that died or whose node left; retires tables
        beyond the capacity."""
        alive_ids = {str(node["NodeID"]) for node in alive}
        for table in list(self._tables):
            if table.ready and table.gone:
                self._drop(table)
                where = f" on node {table.node_id[:8]}" if table.node_id else ""
                self._notice(f"a game table died while idle{where}: dropped, no game lost")
            elif table.ready and table.node_id not in alive_ids:
                self._drop(table)
        while len(self._tables) > self.concurrency:
            starting = [t for t in self._tables if t.starting]
            ready = [t for t in self._tables if t.ready]
            if starting:
                self._drop(starting[-1])  # no game yet: nothing lost
            elif ready:
                self._retire(ready[0])
            else:
                break  # all playing: the excess goes when their games end

    def _close_tables(self) -> None:
        """Stops every table (abandoning games in play) and kills it after a grace."""
        tables = self._tables + list(self._retiring.values())
        if not tables:
            return
        playing = any(table.flight is not None for table in self._tables)
        stops = list(self._retiring)
        for table in self._tables:
            with contextlib.suppress(Exception):
                stops.append(table.handle.stop.remote())
        self._tables, self._retiring = [], {}
        self._by_ref, self._by_watch, self._ready = {}, {}, {}
        with contextlib.suppress(Exception):
            grace = CANCEL_GRACE if playing else CLOSE_GRACE
            self._ray.wait(stops, num_returns=len(stops), timeout=grace, fetch_local=False)
        for table in tables:
            with contextlib.suppress(Exception):
                self._ray.kill(table.handle, no_restart=True)

    # -- running ----------------------------------------------------------------------

    async def run(self, next_job: NextJob, on_report: OnReport) -> None:
        ray = self._ray
        again: deque[tuple[MatchJob, int]] = deque()
        waiting: deque[tuple[MatchJob, int]] = deque()
        self._alive_asked = None  # a run begins with a fresh look
        try:
            while True:
                alive = await self._recent_nodes()
                self._say_nodes()
                self.concurrency = max(self._capacity(alive), 1)
                self._tidy(alive)
                await self._fill(next_job, on_report, again, waiting, alive)
                calls = list(self._by_ref)
                if not calls and not again and not waiting:
                    return
                calls.extend(self._retiring)
                calls.extend(self._by_watch)
                if not calls:  # jobs wait for room that is not there yet: look again soon
                    await trio.sleep(POLL_SECONDS)
                    continue
                ready = await self._ask(_wait_ready, ray, calls)
                for ref in ready:
                    await self._answered(ref, again, on_report)
        except HeadLost as exc:
            # Nothing more can be played: the run ends as if stopped, its journal intact.
            self.head_lost = str(exc)
        finally:
            with trio.CancelScope(shield=True), trio.move_on_after(CANCEL_GRACE + 2.0):
                await trio.to_thread.run_sync(self._close_tables, abandon_on_cancel=True)

    def _say_nodes(self) -> None:
        """Every ``NODES_EVERY`` seconds, one progress line of the per-node counts."""
        now = time.monotonic()
        if now - self._nodes_said < NODES_EVERY or not self.node_counts.nodes:
            return
        self._nodes_said = now
        self._notice("; ".join(self.node_counts.lines()))

    async def _fill(
        self,
        next_job: NextJob,
        on_report: OnReport,
        again: deque[tuple[MatchJob, int]],
        waiting: deque[tuple[MatchJob, int]],
        alive: Sequence[Mapping[str, Any]],
    ) -> None:
        """Hands waiting jobs (lost ones first), then new ones, to ready tables,
        starting tables where there is room."""
        unplaced = 0
        roomy = [node for node in alive if self._slots(node) > 0]
        for line in (again, waiting):
            for item in list(line):
                placed = await self._place(item, alive, roomy, on_report, unplaced)
                if placed != "waits":
                    line.remove(item)
                else:
                    unplaced += 1
        taken: set[str] | None = None  # job ids waiting or in flight, once a new job comes
        while not again and len(waiting) < self.concurrency and self._room_for_more():
            job = next_job()
            if job is None:
                return
            if taken is None:
                taken = {item[0].job_id for item in waiting}
                taken.update(t.flight.job.job_id for t in self._tables if t.flight is not None)
            if job.job_id in self.reported or job.job_id in taken:
                self._notice(f"job {job.job_id} is already played or in flight: skipped")
                continue
            # A job reported at once (nowhere to play it) may come back at once.
            placed = await self._place((job, 1), alive, roomy, on_report, unplaced)
            if placed != "reported":
                taken.add(job.job_id)
            if placed == "waits":
                waiting.append((job, 1))
                unplaced += 1

    def _room_for_more(self) -> bool:
        return len(self._tables) < self.concurrency or bool(self._ready)

    def _best_ready(self, job: MatchJob, avoid: Collection[str]) -> _Table | None:
        """The ready table off ``avoid`` whose idle engines fit ``job`` best (the
        first of the best); the search ends at one that fits it wholly."""
        keys = [entrant.key for entrant in job.entrants]
        best, best_fit = None, -1
        for table in self._ready:
            if table.node_id in avoid:
                continue
            fits = fit_keys(keys, table.idle)
            if fits > best_fit:
                best, best_fit = table, fits
                if fits == len(keys):
                    break
        return best

    async def _place(
        self,
        item: tuple[MatchJob, int],
        alive: Sequence[Mapping[str, Any]],
        roomy: Sequence[Mapping[str, Any]],
        on_report: OnReport,
        unplaced: int,
    ) -> Literal["handed", "reported", "waits"]:
        """Hands ``item`` to the ready table that fits it best (``handed``), or
        reports it as not played when no live node can take it (``reported``);
        ``waits`` for a table otherwise. ``roomy``: the live nodes with room for
        a table."""
        job, attempt = item
        avoid = self._avoid(job)
        allowed = [n for n in roomy if str(n["NodeID"]) not in avoid] if avoid else roomy
        if not allowed:
            await on_report(error_report(job, self._nowhere_message(job, avoid, alive)))
            await trio.lowlevel.checkpoint_if_cancelled()
            return "reported"
        if self._start_failures >= self.max_attempts and not self._tables:
            self._start_failures = 0
            await on_report(error_report(job, self._last_start_failure))
            await trio.lowlevel.checkpoint_if_cancelled()
            return "reported"
        table = self._best_ready(job, avoid)
        if table is not None:
            table.flight = _Flight(job, attempt, time.time())
            self._call(table, table.handle.play.remote(job, __version__))
            return "handed"
        # Nothing ready for it: a new table where there is room (one per waiting job) ...
        allowed_ids = {str(n["NodeID"]) for n in allowed}
        starting = sum(1 for t in self._tables if t.starting)
        taken = sum(1 for t in self._tables if t.starting or t.node_id in allowed_ids)
        room = sum(self._slots(n) for n in allowed) - taken if avoid else 1
        if len(self._tables) < self.concurrency and room > 0 and starting <= unplaced:
            self._start_table(avoid)
            return "waits"
        # ... or, with no room and no table on an allowed node to wait for, an idle
        # table on a node it avoids makes way for one.
        if not any(t.starting or t.node_id in allowed_ids for t in self._tables):
            spare = next((t for t in self._tables if t.ready), None)
            if spare is not None:
                self._retire(spare)
        return "waits"

    async def _answered(
        self, ref: Any, again: deque[tuple[MatchJob, int]], on_report: OnReport
    ) -> None:
        """Handles one call that returned: a retired table closed, a table up, a game done."""
        retired = self._retiring.pop(ref, None)
        if retired is not None:
            with contextlib.suppress(Exception):
                self._ray.kill(retired.handle, no_restart=True)
            return
        watched = self._by_watch.get(ref)
        if watched is not None:
            # The actor died (or its loop ended). Idle, it is dropped before it
            # gets a game (``_tidy``, after a fresh look at the nodes); starting
            # or playing, that call fails too and is handled as it answers.
            self._unwatch(watched)
            watched.gone = True
            self._alive_asked = None
            with contextlib.suppress(Exception):
                self._ray.get(ref)  # fetched, so that Ray does not log it as unhandled
            return
        table = self._by_ref.get(ref)
        if table is None:  # dropped meanwhile
            return
        self._call(table, None)
        flight, table.flight = table.flight, None
        if flight is None:
            self._table_up(table, ref)
            return
        received = time.time()
        report, played = await self._collect(table, ref, flight, again)
        if report is None:
            return
        if report.played:
            self.reported.add(report.job_id)
        if table.node_id is not None:
            self.node_counts.reported(table.node_id, report, received)
        self.stats.engines_started += report.started_engines
        if report.played and report.started_engines == 0:
            self.stats.games_reusing += 1
        await on_report(report)
        # A stop decided in on_report takes effect before the next job.
        await trio.lowlevel.checkpoint_if_cancelled()
        if played is not None:
            self.dispatches.append(
                Dispatch(
                    job_id=report.job_id,
                    attempt=flight.attempt,
                    node=played.report.node or str(played.node),
                    submitted=flight.submitted,
                    started=played.started,
                    finished=played.finished,
                    received=received,
                    reported=time.time(),
                )
            )

    def _table_up(self, table: _Table, ref: Any) -> None:
        try:
            node: NodeInfo = self._ray.get(ref)
        except self._ray.exceptions.RayError as exc:
            self._drop(table)
            self._start_failures += 1
            self._last_start_failure = f"a game table could not start: {_first_line(exc)}"
            self._notice(self._last_start_failure)
            return
        self._start_failures = 0
        table.node_id = node.node_id
        self._mark(table)
        self.node_counts.up(node.node_id, node.ip, node.host, time.time())
        raylet = self._nodes.get(node.node_id, {})
        with contextlib.suppress(KeyError, TypeError, ValueError):
            table.raylet = (str(raylet["NodeManagerAddress"]), int(raylet["NodeManagerPort"]))

    async def _collect(
        self, table: _Table, ref: Any, flight: _Flight, again: deque[tuple[MatchJob, int]]
    ) -> tuple[MatchReport | None, Played | None]:
        """The report of a finished game; None if its job was put back in line."""
        ray = self._ray
        job = flight.job
        try:
            played: Played = ray.get(ref)
        except (
            ray.exceptions.RayActorError,
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError,
        ) as exc:
            self._drop(table)
            lost: str | None = "its node died"
            if not isinstance(exc, ray.exceptions.NodeDiedError):
                lost = node_loss(str(exc), preempted=bool(getattr(exc, "preempted", False)))
            if lost is None:
                gone = await self._node_died(table)
                lost = "its node died" if gone else "its worker process died"
            self.node_counts.lost(table.node_id, time.time())
            if flight.attempt < self.max_attempts:
                again.append((job, flight.attempt + 1))
                self.requeued.append((job.job_id, flight.attempt + 1))
                self._notice(
                    f"game {job.job_id} lost ({lost}): played again "
                    f"(attempt {flight.attempt + 1} of {self.max_attempts})"
                )
                return None, None
            return error_report(job, f"lost {self.max_attempts} times ({lost})"), None
        except ray.exceptions.RayTaskError as exc:  # the table itself broke
            self._drop(table)
            where = f"on node {getattr(exc, 'ip', '?')}: " if getattr(exc, "ip", None) else ""
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            return error_report(job, f"{where}{type(cause).__name__}: {_first_line(cause)}"), None
        except ray.exceptions.RayError as exc:
            self._drop(table)
            return error_report(job, f"{type(exc).__name__}: {_first_line(exc)}"), None
        table.idle = played.idle
        return self._judge_start(job, played), played

    async def _node_died(self, table: _Table) -> bool:
        """Whether the node of ``table`` (whose worker died) is gone too.

        Ray marks a node dead only once its health checks have failed for a
        while, so its raylet is asked directly: a raylet killed with its node
        no longer answers on its port, while a lone dead worker's raylet does.
        """
        if table.raylet is not None:
            host, port = table.raylet
            return not await self._ask(answers, f"{host}:{port}")
        alive = {str(node["NodeID"]) for node in await self._alive_nodes()}
        return table.node_id is not None and table.node_id not in alive

    def _judge_start(self, job: MatchJob, played: Played) -> MatchReport:
        """Turns a game lost to an engine that did not start into that node's error."""
        report = played.report
        failed = [incident for incident in report.incidents if incident.kind == "start"]
        if not failed or not report.played:
            return report
        reasons = []
        for incident in failed:
            entrant = job.entrant_at(incident.seat)
            self.bad_nodes.setdefault(played.node.node_id, set()).add(entrant.key)
            reasons.append(f"engine {incident.engine!r} did not start ({incident.text})")
        message = (
            f"on node {played.node}: {'; '.join(reasons)}; "
            "not counted as a game, and games with that engine avoid this node from now on"
        )
        return error_report(job, message, node=report.node)

    def _nowhere_message(
        self, job: MatchJob, avoid: set[str], alive: Sequence[Mapping[str, Any]]
    ) -> str:
        engines = sorted(
            {
                entrant.engine
                for entrant in job.entrants
                if any(entrant.key in self.bad_nodes.get(node, ()) for node in avoid)
            }
        )
        if not engines:
            return self._no_room_message(alive)
        names = ", ".join(repr(name) for name in engines)
        return f"engine {names} does not start on any live node of the Ray cluster"


def node_loss(death: str, *, preempted: bool) -> str | None:
    """What Ray says of a table's node when the table died: ``its node was
    stopped`` (``preempted``: the node was drained before it ended, as
    ``ray start --block`` does on SIGTERM), ``its node died``, or None when
    Ray does not say (a worker killed alone, or a node whose end Ray has not
    noticed yet)."""
    if preempted:
        return "its node was stopped"
    if "its node has died" in death:
        return "its node died"
    return None


def _wait_ready(ray: Any, refs: list[Any]) -> list[Any]:
    """Refs among ``refs`` that are done, after waiting up to ``POLL_SECONDS`` for one."""
    ready, rest = ray.wait(refs, num_returns=1, timeout=POLL_SECONDS, fetch_local=False)
    if ready and rest:
        more, _ = ray.wait(rest, num_returns=len(rest), timeout=0, fetch_local=False)
        ready.extend(more)
    return list(ready)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _to_stderr(line: str) -> None:
    print(f"bughouse tournament: {line}", file=sys.stderr)


def _quiet_cluster_messages() -> None:
    """Sends Ray's own reports of dead workers to the log instead of our stdout.

    The driver prints them (to stdout, where the standings go); the scheduler
    already says, in one line, which game was lost and what it does about it.
    """
    with contextlib.suppress(ImportError, AttributeError):
        worker: Any = importlib.import_module("ray._private.worker")
        log = logging.getLogger("bughouse_arbiter.ray")

        def to_log(data: Mapping[str, Any], ignore_prefix: bool = False) -> None:
            for line in data.get("lines", ()):
                log.info("%s", line)

        worker.print_to_stdstream = to_log


def _init(ray: Any, address: str) -> None:
    """``ray.init`` for ``address``, quiet, with one clear line if the cluster is not there."""
    _quiet_cluster_messages()
    # "Token authentication is enabled": docs/distributed.md says how to set it up.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR
    )
    quiet = {"logging_level": logging.WARNING, "log_to_driver": False, "configure_logging": True}
    if address == _LOCAL:
        ray.init(include_dashboard=False, **quiet)
        return
    if address != "auto":
        _check_reachable(address)
    # Ray's C++ client writes each refused attempt to fd 2 (about 20 lines when
    # the token is wrong): kept aside, and said in one line if that was why.
    with tempfile.TemporaryFile() as aside:
        try:
            with _fd2_to(aside):
                ray.init(address=address, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            aside.seek(0)
            said = aside.read().decode(errors="replace")
            if "Unauthenticated" in said or "InvalidAuthToken" in said:
                raise ConfigError(f"--ray {address}: {UNAUTHENTICATED}") from None
            why = _first_line(exc)
            raise ConfigError(f"--ray {address}: cannot join the Ray cluster: {why}") from None
        aside.seek(0)
        said = aside.read().decode(errors="replace")
    if said:
        sys.stderr.write(said)


@contextlib.contextmanager
def _fd2_to(file: IO[bytes]) -> Iterator[None]:
    """Sends what is written to fd 2 (by C++ code too) to ``file`` for a while."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        os.dup2(file.fileno(), 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _check_reachable(address: str) -> None:
    """Fails fast (ray.init would retry for a minute) when nothing listens at ``address``."""
    host, colon, port_text = address.rpartition(":")
    if not colon or not host or not port_text.isdigit():
        raise ConfigError(
            f"--ray takes HOST:PORT of a Ray head (as `ray start --head` prints), "
            f"'auto' or 'local', not {address!r}"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=5.0):
            pass
    except OSError as exc:
        raise ConfigError(
            f"--ray {address}: no Ray head answers there ({exc.strerror or exc}); "
            "start one with `ray start --head`"
        ) from None
