"""A line-based engine subprocess under trio: the transport under every engine player.

``EngineProcess`` runs one program (argv, cwd, env; no shell) in its own
process session, so Ctrl+C at the console never reaches it, and gives it
three tasks in the caller's nursery:

- a **reader** that drains standard output into complete lines
  (``LineBuffer``: partial lines kept, lines capped at ``max_line`` bytes,
  UTF-8 decoded with replacement) within the engine's read budget
  (``protocol.flood``): past it, only the lines that can matter (``keep``)
  are read and the rest are dropped unread (counted, logged once), and past
  its bytes per slice the reader waits, so a flood costs the harness a
  bounded share of its time and the flooder its own clock;
- a **stderr reader** that drains standard error into the log and keeps its
  last lines for the crash report, within a budget of its own;
- a **writer** for what the pipe cannot take at once.

Lines out: ``send(line)`` never waits. While nothing is queued it writes the
line straight into the pipe (one non-blocking ``write``, so a notification
reaches the engine without a task switch); whatever the pipe does not take
is queued, and the writer sends the queue in bursts, one ``send_all`` each.
Lines never interleave and keep their order. Inside ``with batched():`` the
lines sent are held and go out together in one write when the block ends
(the arbiter sends a move's ``event`` and the next turn's ``state`` and ``go``
so: one wake-up of the engine, not three).

Lines in: ``receive()`` hands out the lines in order and ``None`` once the
output has ended. A player that wants the lines without a task hop passes
``on_lines`` to ``start``: the reader then calls it with each read's
complete lines and the trio time they were read, and ``receive()`` is not
used (``wait_eof()`` tells when the output ended).

The engine's exit is watched on the process itself, not only through its
output: an engine that exits while a child of its own still holds its pipes
is over all the same. Its output is then read for ``EXIT_DRAIN`` seconds
more, and ends. As soon as the engine has exited, what is left of its
process group (helpers it forked) is killed (``reaper.kill_group``).

``aclose()`` stops the engine for good: the quit line, ``grace`` seconds,
SIGTERM, ``term_grace`` seconds, SIGKILL, all sent by pid to the engine's
own process group; then whatever is left in its session, and of what
descended from it when ``aclose`` began (``setsid`` escapees included), is
killed, whether or not the engine had exited by itself, and the child is
always reaped.
The optional ``log`` gets every line in and out (``ProtocolLog`` writes them
with timestamps, like cutechess's ``--debug``), control characters escaped.

Example::

    async with open_engine_process(["python", "engines/random_mover.py"]) as engine:
        engine.send("bug 1")
        while (line := await engine.receive()) is not None:
            if line.text == "bugok":
                break
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import signal
import subprocess
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TextIO

import trio

from ..errors import EngineFailed
from ..protocol import MAX_LINE, LineBuffer, RawLine
from ..protocol.flood import LINES_PER_SLICE, SLICE, Keep, ReadBudget, keep_lines
from ..protocol.limits import TEXT_LIMIT, engine_text
from .affinity import pin
from .reaper import Proc, family, kill_group, kill_listed, kill_session

Log = Callable[[str], None]
"""Receives one finished log line, e.g. ``"WA < go v 0 turn 1 board a"``."""

LineSink = Callable[[list[RawLine], float], None]
"""Takes the complete lines of one read and the trio time they were read.

Called in the reader task: it must not block (it may only queue or hand on).
"""

#: Seconds an engine gets after the quit line before SIGTERM, and after SIGTERM before SIGKILL.
QUIT_GRACE = 1.0
TERM_GRACE = 1.0
#: Lines waiting for the consumer beyond which new lines are dropped (and counted).
MAX_BACKLOG = 100_000
#: Characters of one line written to the log.
LOG_LINE_LIMIT = 1000
#: How many lines of standard error are kept for the crash report.
STDERR_TAIL = 5
#: Of those, how many an exit's description shows.
SHOWN_STDERR = 3
#: Seconds an exit's description waits for the last stderr lines to be read.
STDERR_SETTLE = 0.5
#: Seconds the output is still read after the engine exited, for a child of
#: its own may hold the pipe open (what the engine wrote is read well within).
EXIT_DRAIN = 0.5
_READ_SIZE = 65536
#: Seconds to wait for an engine's exit status once its output ended (``describe_end``).
EXIT_WAIT = 0.5
#: The pids of the engines started and not reaped yet (``reaper.kill_orphans`` spares them).
_LIVE: set[int] = set()


def live_engine_pids() -> frozenset[int]:
    """Engines of this process still running (or not reaped yet)."""
    return frozenset(_LIVE)


def describe_exit(returncode: int | None) -> str:
    """``exited with status 3``, ``killed by SIGKILL``, or ``still running``."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name}"
    return f"exited with status {returncode}"


class ProtocolLog:
    """A per-engine protocol log: ``<ms since start> <line>`` per line, flushed.

    ``log = ProtocolLog(open("engines.log", "w"))`` and pass ``log`` to players.
    The time base is trio's clock, so it only works inside ``trio.run``.
    """

    def __init__(self, stream: TextIO, *, start: float | None = None) -> None:
        self.stream = stream
        self.start = trio.current_time() if start is None else start

    def __call__(self, line: str) -> None:
        elapsed = int((trio.current_time() - self.start) * 1000)
        self.stream.write(f"{elapsed:>8} {line}\n")
        self.stream.flush()


class EngineProcess:
    """One engine program talking in lines over its standard input and output.

    ``argv`` runs without a shell; ``cwd`` is its working folder and ``env``
    its whole environment (None: the current ones). ``label`` starts every
    log line (the seat, e.g. ``WA``); ``log`` gets each line in (``>``), out
    (``<``), on stderr (``!``) and notes about the process (``:``).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        label: str | None = None,
        log: Log | None = None,
        max_line: int = MAX_LINE,
        max_backlog: int = MAX_BACKLOG,
        keep: Keep | None = None,
    ) -> None:
        if not argv:
            raise EngineFailed("empty engine command")
        self.argv = [str(a) for a in argv]
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.label = label or os.path.basename(self.argv[0])
        self.log = log
        self.max_line = max_line
        self.max_backlog = max_backlog
        #: The lines that matter, read even past the read budget (None: every
        #: line is read, the reader waiting whenever it is past the budget).
        self.keep = keep
        #: Output and stderr lines dropped unread past the read budget.
        self.flood_dropped = 0
        self.stderr_dropped = 0
        #: The last lines the engine wrote on standard error.
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        #: Output lines dropped because nobody read them fast enough.
        self.dropped = 0
        self._process: trio.Process | None = None
        self._lines_out, self._lines_in = trio.open_memory_channel[RawLine](math.inf)
        self._on_lines: LineSink | None = None
        self._stdin_fd = -1
        self._queued = bytearray()  # bytes the pipe has not taken yet, for the writer
        self._held = bytearray()  # lines sent inside ``batched()``, not written yet
        self._batching = 0  # depth of ``batched()`` blocks
        self._batch = _Batch(self)
        self._writing = False  # the writer is inside send_all
        # Bytes accepted by send_data and bytes in the pipe; callbacks due at an offset.
        self._accepted = 0
        self._written = 0
        self._marks: deque[tuple[int, Callable[[float], None]]] = deque()
        self._kick = trio.Event()
        self._scopes: list[trio.CancelScope] = []
        self._eof = False
        self._ended = trio.Event()
        self._stderr_done = trio.Event()
        self._write_failed = False
        self._closing = False
        self._closed = trio.Event()
        self._read_scope = trio.CancelScope()

    # -- start ------------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, *, on_lines: LineSink | None = None) -> None:
        """Spawns the program and starts its tasks in ``nursery``.

        With ``on_lines``, output lines go to it from the reader task instead
        of to ``receive()``. Raises ``EngineFailed`` if the program cannot be run.
        """
        if self._process is not None:
            raise RuntimeError("engine process already started")
        self._on_lines = on_lines
        try:
            self._process = await trio.lowlevel.open_process(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
            )
        except OSError as exc:
            raise EngineFailed(f"cannot run {self.argv[0]!r}: {exc.strerror or exc}") from exc
        stdin = self._process.stdin
        assert isinstance(stdin, trio.lowlevel.FdStream)
        self._stdin_fd = stdin.fileno()
        _LIVE.add(self._process.pid)
        pin(self._process.pid)  # ``--use-affinity``: a no-op outside ``affinity.pinned``
        command = shlex.join(self.argv).replace("\n", "\\n")
        self._note(f"started pid {self._process.pid}: {command}")
        for task in (self._read, self._read_stderr, self._writer, self._watch_exit):
            scope = trio.CancelScope()
            self._scopes.append(scope)
            nursery.start_soon(self._run_in, scope, task)

    @staticmethod
    async def _run_in(scope: trio.CancelScope, task: Callable[[], Awaitable[None]]) -> None:
        with scope:
            await task()

    # -- facts ------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def running(self) -> bool:
        """Started and not known to have exited (never reaps, unlike ``returncode``)."""
        return self._process is not None and self._process.pid in _LIVE

    @property
    def returncode(self) -> int | None:
        return None if self._process is None else self._process.returncode

    @property
    def eof(self) -> bool:
        """True once the engine's output has ended (exit, crash or closed pipe)."""
        return self._eof

    def exit_description(self) -> str:
        """How the process ended, with its last words on stderr if it wrote any."""
        return describe_exit(self.returncode) + self.last_words()

    def last_words(self) -> str:
        """`` (stderr: ...)`` with its last ``SHOWN_STDERR`` stderr lines, or ""."""
        if not self.stderr_tail:
            return ""
        shown = list(self.stderr_tail)[-SHOWN_STDERR:]
        return f" (stderr: {' / '.join(line[:200] for line in shown)})"

    # -- lines in and out ------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Sends one line (without LF) to the engine; never blocks.

        Written at once when the pipe takes it, else queued for the writer.
        Lines sent after the engine stopped reading, or after ``aclose``, are
        dropped (the engine is gone; its end is reported by ``receive``).
        """
        if "\n" in line or "\r" in line:
            raise ValueError(f"a line to send cannot contain a line break: {line!r}")
        self.send_data((line + "\n").encode())

    def send_data(self, data: bytes) -> None:
        """Sends whole lines already encoded, each ending with LF (as ``send``).

        The caller vouches for the line breaks: a protocol session's encoded
        command, say.
        """
        if self._closing or self._write_failed or self._stdin_fd < 0:
            return
        if self.log is not None:
            for line in data.decode(errors="replace").splitlines():
                self.log(f"{self.label} < {line}")
        self._accepted += len(data)
        if self._batching:
            self._held += data
            return
        self._write(data)

    def when_written(self, callback: Callable[[float], None]) -> None:
        """Calls ``callback(t)`` with the trio time at which everything sent so far
        is in the engine's pipe (at once if it is). Never called if the engine's
        input closes first."""
        if self._written >= self._accepted:
            callback(trio.current_time())
        else:
            self._marks.append((self._accepted, callback))

    def _wrote(self, count: int) -> None:
        self._written += count
        marks = self._marks
        if marks and marks[0][0] <= self._written:
            now = trio.current_time()
            while marks and marks[0][0] <= self._written:
                marks.popleft()[1](now)

    def batched(self) -> AbstractContextManager[None]:
        """Holds the lines sent in the block and writes them together at its end."""
        return self._batch

    def _flush_held(self) -> None:
        if self._held:
            data = bytes(self._held)
            self._held.clear()
            if not (self._closing or self._write_failed):
                self._write(data)

    def _write(self, data: bytes) -> None:
        if self._queued or self._writing:
            self._queued += data
            self._kick.set()
            return
        try:
            written = os.write(self._stdin_fd, data)
        except BlockingIOError:
            written = 0
        except OSError:
            self._input_closed()
            return
        if written:
            self._wrote(written)
        if written < len(data):
            self._queued += data[written:]
            self._kick.set()

    def _input_closed(self) -> None:
        self._write_failed = True
        self._queued.clear()
        self._marks.clear()
        self._note("its input is closed; further lines are dropped")
        self._kick.set()  # the writer closes our end

    async def wait_eof(self) -> None:
        """Returns once the engine's output has ended."""
        await self._ended.wait()

    async def receive(self) -> RawLine | None:
        """The next output line, or ``None`` once the output has ended (and after)."""
        try:
            return await self._lines_in.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    def __aiter__(self) -> AsyncIterator[RawLine]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[RawLine]:
        while (line := await self.receive()) is not None:
            yield line

    async def describe_end(self, timeout: float) -> str:
        """How the engine ended (waits up to ``timeout`` s for its exit status)."""
        if await self.wait_exit(timeout) is None:
            return "closed its output" + self.last_words()
        # Its stderr closes as it dies: its last lines may still be on their way.
        with trio.move_on_after(min(timeout, STDERR_SETTLE)):
            await self._stderr_done.wait()
        return self.exit_description()

    async def wait(self) -> int:
        """Waits for the process to exit and reaps it; returns its return code."""
        assert self._process is not None
        return await self._process.wait()

    async def wait_exit(self, timeout: float) -> int | None:
        """The return code if the process exits within ``timeout`` seconds, else None."""
        if self._process is None:
            return None
        with trio.move_on_after(timeout):
            return await self._process.wait()
        return None

    # -- tasks ---------------------------------------------------------------------------

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stream = self._process.stdout
        buffer = LineBuffer(self.max_line)
        budget = ReadBudget(buffer, self.keep)
        try:
            with self._read_scope:
                while True:
                    try:
                        chunk = await stream.receive_some(_READ_SIZE)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        chunk = b""
                    if not chunk:
                        break
                    now = trio.current_time()
                    self._deliver(budget.take(chunk, now), now)
                    if budget.dropped != self.flood_dropped:
                        self._dropping("output", self.flood_dropped, budget.dropped)
                        self.flood_dropped = budget.dropped
                    if budget.resume_at is not None:
                        await trio.sleep_until(budget.resume_at)
            self._deliver(buffer.close(), trio.current_time())
        finally:
            self._eof = True
            self._ended.set()
            self._lines_out.close()
            if self.dropped:
                self._note(f"{self.dropped} output lines dropped (nobody read them)")
            if self.flood_dropped:
                self._note(f"{self.flood_dropped} output lines dropped unread (a flood)")
            self._note("end of output")

    def _dropping(self, what: str, before: int, now: int) -> None:
        """Notes the first lines of ``what`` dropped past the read budget."""
        if not before:
            self._note(
                f"{what} over {LINES_PER_SLICE} lines in {SLICE * 1000:g} ms: lines that"
                f" cannot matter are dropped unread from now on ({now} so far; the total"
                " comes at the end of output)"
            )

    def _deliver(self, lines: list[RawLine], now: float) -> None:
        if not lines:
            return
        if self.log is not None:
            for line in lines:
                self.log(f"{self.label} > {_for_log(line)}")
        if self._on_lines is not None:
            self._on_lines(lines, now)
            return
        for line in lines:
            if self._lines_out.statistics().current_buffer_used >= self.max_backlog:
                self.dropped += 1
                continue
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                self._lines_out.send_nowait(line)

    async def _watch_exit(self) -> None:
        """Waits on the process itself: once it exited, its process group is killed
        and its output ends within ``EXIT_DRAIN`` seconds even if a process
        outside the group still holds the pipe."""
        process = self._process
        assert process is not None
        await process.wait()
        _LIVE.discard(process.pid)
        # Its group at once (a child may hold the pipes); the whole session at aclose.
        if kill_group(process.pid):
            self._note("killed what was left in its process group")
        if self._eof:
            return
        with trio.move_on_after(EXIT_DRAIN):
            await self._ended.wait()
        if not self._eof:
            self._note("exited, but its output is still open (a child holds it): output ended")
            self._read_scope.cancel()

    def _kill_leftovers(self, kin: list[Proc] | None) -> None:
        """Kills what is left of the engine's group and of ``kin`` (its family
        before it was stopped) or, without it, of its session; the engine has exited."""
        assert self._process is not None
        pid = self._process.pid
        hit = kill_session(pid) if kin is None else kill_group(pid) + kill_listed(kin)
        if hit:
            self._note("killed what it left behind")

    async def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        stream = self._process.stderr
        buffer = LineBuffer(self.max_line)
        budget = ReadBudget(buffer, _NO_LINES)
        try:
            while True:
                try:
                    chunk = await stream.receive_some(_READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    chunk = b""
                lines = budget.take(chunk, trio.current_time()) if chunk else buffer.close()
                flood = bool(chunk) and budget.scanned
                if flood:  # only its last lines, for the tail
                    lines += [buffer.line(piece) for piece in _last_lines(chunk, STDERR_TAIL)]
                for line in lines:
                    if line.text.strip():
                        # It may end up in a reason, the record and other engines' lines.
                        self.stderr_tail.append(engine_text(line.text, TEXT_LIMIT))
                        if self.log is not None and not flood:
                            self.log(f"{self.label} ! {_for_log(line)}")
                if budget.dropped != self.stderr_dropped:
                    self._dropping("stderr", self.stderr_dropped, budget.dropped)
                    self.stderr_dropped = budget.dropped
                if not chunk:
                    return
                if budget.resume_at is not None:
                    await trio.sleep_until(budget.resume_at)
        finally:
            self._stderr_done.set()
            if self.stderr_dropped:
                self._note(f"{self.stderr_dropped} stderr lines dropped unread (a flood)")

    async def _writer(self) -> None:
        """Sends what ``send`` queued, a burst at a time; closes stdin at the end."""
        assert self._process is not None and self._process.stdin is not None
        stdin = self._process.stdin
        try:
            while not self._write_failed:
                if not self._queued:
                    if self._closing:
                        return
                    await self._kick.wait()
                    self._kick = trio.Event()
                    continue
                burst = bytes(self._queued)
                self._queued.clear()
                self._writing = True
                try:
                    await stdin.send_all(burst)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    self._input_closed()
                else:
                    self._wrote(len(burst))
                finally:
                    self._writing = False
        finally:
            # The number may be given to another file once closed: never write to it again.
            self._stdin_fd = -1
            with trio.CancelScope(shield=True):
                await stdin.aclose()

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log(f"{self.label} : {text}")

    # -- stop ----------------------------------------------------------------------------

    async def aclose(
        self,
        quit_line: str | None = "quit",
        *,
        grace: float = QUIT_GRACE,
        term_grace: float = TERM_GRACE,
    ) -> None:
        """Quit line -> ``grace`` s -> SIGTERM -> ``term_grace`` s -> SIGKILL; always reaps.

        Safe to call more than once (later calls wait for the first to finish)
        and safe under cancellation (the shutdown itself is shielded).
        """
        if self._closing:
            with trio.CancelScope(shield=True):
                await self._closed.wait()
            return
        self._batching = 0  # nothing is held back any more
        self._flush_held()
        process = self._process
        # Who descends from it now, also out of its session (``setsid``):
        # once it is gone they can no longer be told from anybody's.
        kin = family(process.pid) if process is not None and self.running else None
        if quit_line is not None:
            self.send(quit_line)
        self._closing = True
        self._kick.set()  # the writer sends what is queued, then closes stdin
        try:
            if process is None:
                return
            with trio.CancelScope(shield=True):
                with trio.move_on_after(grace):
                    await process.wait()
                for sig, wait in ((signal.SIGTERM, term_grace), (signal.SIGKILL, 10.0)):
                    if process.returncode is not None:
                        break
                    self._note(f"still running: {sig.name}")
                    _signal_group(process, sig)
                    with trio.move_on_after(wait):
                        await process.wait()
                self._note(describe_exit(process.returncode))
                if process.returncode is not None:
                    _LIVE.discard(process.pid)
                    # Helpers outlive an engine that obeyed quit: not ours to keep.
                    self._kill_leftovers(kin)
        finally:
            for scope in self._scopes:
                scope.cancel()
            self._closed.set()

    async def __aenter__(self) -> EngineProcess:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _signal_group(process: trio.Process, sig: signal.Signals) -> None:
    """Signals the engine's process group (its session, so helpers die too), by pid."""
    if process.returncode is not None:
        return
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(sig)


#: Standard error has no lines that matter but its last ones (``_last_lines``).
_NO_LINES = keep_lines(())


def _last_lines(data: bytes | bytearray, count: int) -> list[bytes]:
    """The last ``count`` whole lines of ``data`` (without their LF)."""
    end = data.rfind(b"\n")
    return bytes(data[:end]).rsplit(b"\n", count)[-count:] if end >= 0 else []


def _for_log(line: RawLine) -> str:
    """The line for the log: cut, and its control characters escaped (``\x1b``)."""
    text = _CONTROL.sub(_escape, line.text[:LOG_LINE_LIMIT])
    if line.overlong or len(line.text) > LOG_LINE_LIMIT:
        return f"{text}... ({line.length} bytes)"
    return text


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    return ascii(match.group())[1:-1]


@contextlib.asynccontextmanager
async def open_engine_process(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    label: str | None = None,
    log: Log | None = None,
    quit_line: str | None = "quit",
    grace: float = QUIT_GRACE,
    term_grace: float = TERM_GRACE,
    max_line: int = MAX_LINE,
) -> AsyncIterator[EngineProcess]:
    """Runs an engine for the duration of the block, with its own nursery; stops it at the end."""
    async with trio.open_nursery() as nursery:
        engine = EngineProcess(argv, cwd=cwd, env=env, label=label, log=log, max_line=max_line)
        await engine.start(nursery)
        try:
            yield engine
        finally:
            await engine.aclose(quit_line, grace=grace, term_grace=term_grace)


class _Batch(AbstractContextManager[None]):
    """``EngineProcess.batched()``: a plain class, not a generator, as it runs every move."""

    def __init__(self, process: EngineProcess) -> None:
        self._process = process

    def __enter__(self) -> None:
        self._process._batching += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        process = self._process
        process._batching -= 1
        if process._batching <= 0:  # below 0 if aclose reset the count meanwhile
            process._batching = 0
            process._flush_held()
