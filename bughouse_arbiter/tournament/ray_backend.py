"""``RayScheduler``: the tournament's games played as Ray tasks on a cluster.

The driver (this process) keeps everything that makes the tournament: the
schedule, the journal, ``games.bpgn``, the statistics and the progress. Each
``MatchJob`` becomes one Ray task (``play_job`` on a worker, reserving
``cpus_per_match`` CPUs, so a node never runs more games than it has cores
for); its ``MatchReport`` comes back as soon as that game ends and is handed
to ``on_report`` like the local backend's (see ``scheduler.py``).

What the cluster adds, and how it is kept out of the results:

- A worker process or a node that dies mid-game costs that game only: the
  job is submitted again (first in line, up to ``max_attempts`` in all) and
  reported once. Ray's own retries are off (``max_retries=0``) so a game is
  never played twice behind the driver's back; a job id already reported or
  in flight is never submitted again.
- An engine that does not start on a node is that node's fault (the engine
  is missing or broken there), not the engine's: the report is turned into a
  harness error naming the node (``error`` set, not a game), and jobs that
  seat that engine avoid that node from then on. A job no live node can take
  is reported as an error at once.
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
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from .. import __version__
from ..config.specs import BUILTIN_ENGINES, EngineSpec, builtin_engine
from ..core.model import Result
from ..errors import ConfigError
from .jobs import MatchJob, MatchReport, play_job
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

RAY_MISSING = "--ray needs Ray, which is not installed: pip install 'bughouse-arbiter[ray]'"
#: CPUs a match reserves by default: two engines think at once in a bughouse game.
DEFAULT_CPUS_PER_MATCH = 2.0
#: Attempts a job gets when its worker or node dies under it.
MAX_ATTEMPTS = 3
#: Seconds between looks at the cluster while games are in flight (nodes come and go).
POLL_SECONDS = 1.0
#: Seconds a cancelled game's worker gets to close its engines before it is killed.
CANCEL_GRACE = 3.0
_LOCAL = "local"
_NODE_ID_LABEL = "ray.io/node-id"


def require_ray() -> Any:
    """The ``ray`` module; ConfigError (one line, what to install) if it is missing."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ConfigError(RAY_MISSING) from None


# -- the worker side ----------------------------------------------------------------


@attrs.frozen(kw_only=True)
class NodeInfo:
    """Which node a game ran on, as people and Ray name it."""

    node_id: str
    ip: str
    host: str

    def __str__(self) -> str:
        return f"{self.host} ({self.ip}, node {self.node_id[:8]})"


@attrs.frozen(kw_only=True)
class _Played:
    """What a task sends back: the report, where it ran and when (wall clock)."""

    report: MatchReport
    node: NodeInfo
    started: float
    finished: float


def localize_job(job: MatchJob) -> MatchJob:
    """``job`` with its built-in engines resolved on this machine.

    The driver resolved ``random`` to its own Python and its own ``engines/``
    folder; a worker node may keep both elsewhere. Other commands are left
    as written.
    """
    entrants = tuple(
        attrs.evolve(entrant, spec=_localize_spec(entrant.spec)) for entrant in job.entrants
    )
    return attrs.evolve(job, entrants=entrants)


def _localize_spec(spec: EngineSpec) -> EngineSpec:
    script = BUILTIN_ENGINES.get(spec.name)
    if script is None or len(spec.command) != len(script) + 1:
        return spec
    if Path(spec.command[1]).name != script[0] or tuple(spec.command[2:]) != script[1:]:
        return spec
    return attrs.evolve(spec, command=builtin_engine(spec.name).command)


def _node_here(ray: Any) -> NodeInfo:
    return NodeInfo(
        node_id=str(ray.get_runtime_context().get_node_id()),
        ip=str(ray.util.get_node_ip_address()),
        host=socket.gethostname(),
    )


def _play_remote(job: MatchJob, driver_version: str) -> _Played:
    """The Ray task: plays ``job`` on this worker (blocking) and reports it."""
    started = time.time()
    ray = importlib.import_module("ray")
    node = _node_here(ray)
    if driver_version != __version__:
        report = _error_report(
            job,
            f"node {node} runs bughouse-arbiter {__version__}, the driver {driver_version}: "
            "install the same version on every node",
            node=str(node),
        )
    else:
        try:
            report = play_job(localize_job(job))
        except Exception as exc:  # play_job should not raise; if it does, not a game
            report = _error_report(job, f"{type(exc).__name__}: {exc}", node=str(node))
        else:
            # host:pid as locally, and which Ray node that worker belongs to.
            report = attrs.evolve(report, node=f"{report.node} ray-node {node.node_id[:8]}")
    return _Played(report=report, node=node, started=started, finished=time.time())


def _error_report(job: MatchJob, error: str, *, node: str = "") -> MatchReport:
    return MatchReport(job_id=job.job_id, result=Result.UNFINISHED, error=error, node=node)


# -- the driver side ----------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Dispatch:
    """One job's trip through the cluster (wall-clock seconds, for ``bench/ray_dispatch.py``)."""

    job_id: str
    attempt: int
    #: Where it ran: ``host:pid ray-node ID`` (the worker process and its node).
    node: str
    submitted: float
    started: float
    finished: float
    received: float
    reported: float

    @property
    def to_start(self) -> float:
        """Task submitted until the worker began the job."""
        return self.started - self.submitted

    @property
    def to_journal(self) -> float:
        """Worker finished until ``on_report`` (the journal) was done with it."""
        return self.reported - self.finished


@attrs.define
class _Flight:
    job: MatchJob
    attempt: int
    submitted: float


class RayScheduler:
    """Plays jobs as Ray tasks; the ``Scheduler`` contract of ``scheduler.py``.

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
        self._remote = ray.remote(num_cpus=cpus_per_match, max_retries=0)(_play_remote)
        #: Engine keys that failed to start, per node id.
        self.bad_nodes: dict[str, set[str]] = {}
        #: Job ids handed to ``on_report`` as played, and every trip made.
        self.reported: set[str] = set()
        self.dispatches: list[Dispatch] = []
        #: (job id, attempt) of every job submitted again after its worker or node died.
        self.requeued: list[tuple[str, int]] = []
        self.concurrency = self._capacity()
        if self.concurrency == 0:
            raise ConfigError(self._no_room_message())

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
            return cls(ray, cpus_per_match=cpus_per_match, concurrency=concurrency, notice=notice)
        except ConfigError:
            ray.shutdown()
            raise

    def shutdown(self) -> None:
        """Disconnects from the cluster (and stops a ``local`` runtime)."""
        self._ray.shutdown()

    # -- the cluster ------------------------------------------------------------------

    def _alive_nodes(self) -> list[Mapping[str, Any]]:
        return [node for node in self._ray.nodes() if node.get("Alive")]

    def _slots(self, node: Mapping[str, Any]) -> int:
        cpus = float(node.get("Resources", {}).get("CPU", 0.0))
        return math.floor(cpus / self.cpus_per_match + 1e-9)

    def _capacity(self) -> int:
        """Games the live nodes can play at once (capped by ``limit``)."""
        slots = sum(self._slots(node) for node in self._alive_nodes())
        return slots if self.limit is None else min(slots, self.limit)

    def _no_room_message(self) -> str:
        largest = max(
            (float(n.get("Resources", {}).get("CPU", 0.0)) for n in self._alive_nodes()),
            default=0.0,
        )
        return (
            f"no node of the Ray cluster has {self.cpus_per_match:g} CPUs for a match "
            f"(the largest has {largest:g}): lower --ray-cpus-per-match or add nodes"
        )

    def _eligible(self, keys: Iterable[str]) -> tuple[list[str], set[str]]:
        """Live nodes that can take a job seating ``keys``, and the nodes it must avoid."""
        keys = set(keys)
        avoid = {node for node, bad in self.bad_nodes.items() if bad & keys}
        alive = [
            str(node["NodeID"])
            for node in self._alive_nodes()
            if self._slots(node) > 0 and node["NodeID"] not in avoid
        ]
        return alive, avoid

    # -- running ----------------------------------------------------------------------

    async def run(self, next_job: NextJob, on_report: OnReport) -> None:
        ray = self._ray
        flights: dict[Any, _Flight] = {}
        again: deque[tuple[MatchJob, int]] = deque()
        try:
            while True:
                self.concurrency = max(self._capacity(), 1)
                while len(flights) < self.concurrency:
                    if again:
                        job, attempt = again.popleft()
                    else:
                        taken = next_job()
                        if taken is None:
                            break
                        job, attempt = taken, 1
                    if job.job_id in self.reported or any(
                        f.job.job_id == job.job_id for f in flights.values()
                    ):
                        self._notice(f"job {job.job_id} is already played or in flight: skipped")
                        continue
                    alive, avoid = self._eligible(entrant.key for entrant in job.entrants)
                    if not alive:
                        await on_report(_error_report(job, self._nowhere_message(job, avoid)))
                        await trio.lowlevel.checkpoint_if_cancelled()
                        continue
                    options: dict[str, Any] = {"name": f"bughouse-match {job.job_id}"}
                    if avoid:
                        options["label_selector"] = {_NODE_ID_LABEL: f"!in({','.join(avoid)})"}
                    ref = self._remote.options(**options).remote(job, __version__)
                    flights[ref] = _Flight(job, attempt, time.time())
                if not flights:
                    return
                ready = await trio.to_thread.run_sync(
                    _wait_ready, ray, list(flights), abandon_on_cancel=True
                )
                for ref in ready:
                    flight = flights.pop(ref)
                    received = time.time()
                    report, played = self._collect(ref, flight, again)
                    if report is None:
                        continue
                    if report.played:
                        self.reported.add(report.job_id)
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
        finally:
            if flights:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(_cancel_all, ray, list(flights))

    def _collect(
        self, ref: Any, flight: _Flight, again: deque[tuple[MatchJob, int]]
    ) -> tuple[MatchReport | None, _Played | None]:
        """The report of a finished task; None if its job was put back in line."""
        ray = self._ray
        job = flight.job
        try:
            played: _Played = ray.get(ref)
        except (
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.NodeDiedError,
            ray.exceptions.ObjectLostError,
        ) as exc:
            lost = (
                "its worker process died"
                if isinstance(exc, ray.exceptions.WorkerCrashedError)
                else "its node died"
            )
            if flight.attempt < self.max_attempts:
                again.append((job, flight.attempt + 1))
                self.requeued.append((job.job_id, flight.attempt + 1))
                self._notice(
                    f"game {job.job_id} lost ({lost}): played again "
                    f"(attempt {flight.attempt + 1} of {self.max_attempts})"
                )
                return None, None
            return _error_report(job, f"lost {self.max_attempts} times ({lost})"), None
        except ray.exceptions.RayTaskError as exc:  # the task itself broke (not installed?)
            where = f"on node {getattr(exc, 'ip', '?')}: " if getattr(exc, "ip", None) else ""
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            return _error_report(job, f"{where}{type(cause).__name__}: {_first_line(cause)}"), None
        except ray.exceptions.RayError as exc:
            return _error_report(job, f"{type(exc).__name__}: {_first_line(exc)}"), None
        return self._judge_start(job, played), played

    def _judge_start(self, job: MatchJob, played: _Played) -> MatchReport:
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
        return _error_report(job, message, node=report.node)

    def _nowhere_message(self, job: MatchJob, avoid: set[str]) -> str:
        engines = sorted(
            {
                entrant.engine
                for entrant in job.entrants
                if any(entrant.key in self.bad_nodes.get(node, ()) for node in avoid)
            }
        )
        if not engines:
            return self._no_room_message()
        names = ", ".join(repr(name) for name in engines)
        return f"engine {names} does not start on any live node of the Ray cluster"


def _wait_ready(ray: Any, refs: list[Any]) -> list[Any]:
    """Refs among ``refs`` that are done, after waiting up to ``POLL_SECONDS`` for one."""
    ready, rest = ray.wait(refs, num_returns=1, timeout=POLL_SECONDS, fetch_local=False)
    if ready and rest:
        more, _ = ray.wait(rest, num_returns=len(rest), timeout=0, fetch_local=False)
        ready.extend(more)
    return list(ready)


def _cancel_all(ray: Any, refs: list[Any]) -> None:
    """Stops the tasks of abandoned games: politely (their engines are closed), then by force."""
    for ref in refs:
        with contextlib.suppress(Exception):
            ray.cancel(ref, force=False)
    with contextlib.suppress(Exception):
        _, left = ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE, fetch_local=False)
        for ref in left:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)


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
    try:
        ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        why = _first_line(exc)
        raise ConfigError(f"--ray {address}: cannot join the Ray cluster: {why}") from None


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
