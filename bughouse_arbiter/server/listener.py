"""The TCP front end: accept, authenticate, bound, and attach to a seat.

Per connection: at most ``Limits.auth_lines`` lines within
``Limits.auth_timeout`` seconds, the first non-blank one being
``auth <seat> <token> [ping] [human]``; the answer is ``auth ok <seat>`` or ``auth
refused <reason>`` (then the connection is closed). After ``auth ok`` the
connection carries protocol.md lines both ways, exactly as a pipe
(``TcpLink``), until either side closes it. With ``ping`` the server also
sends ``ping <n>`` after each ``go`` and every ``PING_EVERY`` seconds, and
the client answers ``pong <n>`` at once (its engine never sees either); the
round-trip is the lag written into the BPGN, and a connection that leaves a
ping unanswered for ``PONG_WAIT`` seconds is closed (a drop: its player may
come back). Nothing a client sends reaches
another client: the only way from a connection to the table is its seat's
protocol session, which parses and filters every line. Every failure of one
connection is logged (``LiveTable.refused``: a flood is counted, not
written line by line) and ends only that connection.

With a TLS context (``serve --certfile --keyfile``) every connection first
completes a TLS handshake within ``Limits.auth_timeout`` (``tls.accept_tls``;
a plain-text client is told in plain text that the server speaks TLS), and
the lines then go over ``trio.SSLStream``, the same in every other way.
"""

from __future__ import annotations

import contextlib
import errno
import ssl
from functools import partial

import attrs
import trio

from ..protocol import LineBuffer, RawLine
from .admission import Pool
from .limits import Limits, RateLimiter
from .seam import AuthRefused, LiveTable
from .streams import first_line, read_lines
from .tls import TlsRefused, accept_tls, close_quietly

#: What may follow the token on the ``auth`` line.
AUTH_OPTIONS = frozenset({"ping", "human"})
#: Seconds between keep-alive pings on an idle connection that asked for them.
PING_EVERY = 5.0
#: Seconds a ping may go unanswered before such a connection counts as gone.
PONG_WAIT = 3 * PING_EVERY


class TcpLink:
    """One authenticated TCP connection, as a ``SeatLink`` (see ``seam``)."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        peer: str,
        limits: Limits,
        *,
        buffer: LineBuffer | None = None,
        pending: list[RawLine] | None = None,
        pings: bool = False,
        human: bool = False,
    ) -> None:
        self.stream = stream
        self.peer = peer
        self.limits = limits
        self.pings = pings
        #: The client said a person plays (``auth ... human``).
        self.human = human
        #: The last measured round-trip in seconds (None until a pong came back).
        self.lag: float | None = None
        self._buffer = buffer or LineBuffer(limits.max_line)
        self._pending = list(pending or [])
        self._rate = RateLimiter(limits.lines_per_second, limits.burst)
        self._queued = bytearray()
        self._kick = trio.Event()
        self._broken = False
        self._eof = False
        self._ping_no = 0
        self._ping_sent: dict[int, float] = {}
        #: Why the server gave up on the peer, or None.
        self.gone: str | None = None

    # -- out ----------------------------------------------------------------------------

    def send(self, line: str) -> None:
        if self._broken:
            return
        self._queued += (line + "\n").encode()
        if len(self._queued) > self.limits.max_queued:
            self._broken = True  # the peer does not read: let it go
            self._queued.clear()
        self._kick.set()
        if self.pings and line.startswith("go "):
            self.ping()

    def ping(self) -> None:
        """Sends ``ping <n>``; its ``pong <n>`` sets ``lag``."""
        if not self.pings or self._broken:
            return
        self._ping_no += 1
        self._ping_sent[self._ping_no] = trio.current_time()
        while len(self._ping_sent) > 16:
            self._ping_sent.pop(next(iter(self._ping_sent)))
        self.send(f"ping {self._ping_no}")

    async def run_writer(self) -> None:
        """Sends what ``send`` queued (run it next to the reader; returns when broken)."""
        try:
            while not self._broken:
                if not self._queued:
                    await self._kick.wait()
                    self._kick = trio.Event()
                    continue
                burst = bytes(self._queued)
                self._queued.clear()
                await self.stream.send_all(burst)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            self._broken = True
            # Closing wakes the reader too: the link ends (a drop, for the seat).
            await close_quietly(self.stream)

    async def run_pinger(self) -> None:
        while self.pings and not self._broken:
            await trio.sleep(PING_EVERY)
            waited = [trio.current_time() - sent for sent in self._ping_sent.values()]
            if waited and max(waited) >= PONG_WAIT:
                # Gone without a word (a dead network): free the seat for its player.
                self.gone = f"no pong in {PONG_WAIT:g} s"
                self._broken = True
                self._kick.set()
                return
            self.ping()

    # -- in -----------------------------------------------------------------------------

    async def receive(self) -> RawLine | None:
        while True:
            line = await self._next_line()
            if line is None:
                return None
            delay = self._rate.delay(trio.current_time())
            if delay > 0:
                await trio.sleep(delay)
                self._rate.delay(trio.current_time())
            words = line.text.split()
            if len(words) == 2 and words[0] == "pong":
                self._pong(words[1])
                continue
            return line

    def _pong(self, word: str) -> None:
        try:
            sent = self._ping_sent.pop(int(word))
        except (ValueError, KeyError):
            return
        self.lag = trio.current_time() - sent

    async def _next_line(self) -> RawLine | None:
        while not self._pending:
            if self._eof or self._broken:
                return None
            lines, self._eof = await read_lines(self.stream, self._buffer)
            self._pending.extend(lines)
        return self._pending.pop(0)

    async def aclose(self) -> None:
        self._broken = True
        self._kick.set()
        await close_quietly(self.stream)


class TcpFrontEnd:
    """Listens on ``host:port`` (0: any free port; ``port`` holds the real one once started).

    Connections still to authenticate share one ``admission.Pool``
    (``max_connections``, ``per_address`` from one address): a newcomer past
    either makes the oldest such connection (of its own address first) go,
    with ``error too many connections``. So strangers cannot keep a player
    who holds a token out: its connection sends ``auth`` at once and leaves
    the pool, and the ones that made it wait are the ones closed.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: Limits | None = None,
        *,
        tls: ssl.SSLContext | None = None,
    ):
        self.host = host
        self.port = port
        self.limits = limits or Limits()
        #: The server's TLS context (``tls.server_context``), or None: plain TCP.
        self.tls = tls
        self.waiting = Pool(
            self.limits.max_connections, self.limits.per_address, evict=True
        )
        self.open_connections = 0
        #: Connections closed to make room for newer ones.
        self.turned_away = 0
        #: Connections closed before a well-formed auth line.
        self.junk = 0

    async def serve(
        self, table: LiveTable, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        listeners = await open_listeners(self.host, self.port)
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.report_refusals)
            task_status.started()
            await trio.serve_listeners(partial(self._handle, table), listeners)

    async def _handle(self, table: LiveTable, raw: trio.SocketStream) -> None:
        peer = peer_name(raw)
        stream: trio.abc.Stream = raw
        self.open_connections += 1
        try:
            opening = await open_connection(raw, self.waiting, self.tls, self.limits)
            stream = opening.stream
            if opening.refused is not None:
                self._refused(table, f"{peer}: {opening.refused}; closed")
                return
            first = opening.first
            if opening.evicted:
                self.turned_away += 1
                table.refused(
                    f"{peer}: closed to make room, too many connections waiting to "
                    f"authenticate ({self.turned_away} so far)",
                    "too many connections",
                )
                await _answer(stream, "error too many connections")
                return
            if first is not None:
                await self._session(table, stream, peer, *first)
        except Exception as exc:  # one connection's trouble never reaches the others
            table.refused(
                f"{peer}: connection failed ({type(exc).__name__}: {exc})", "failed connection"
            )
        finally:
            self.open_connections -= 1
            await close_quietly(stream)


    async def _session(
        self,
        table: LiveTable,
        stream: trio.abc.Stream,
        peer: str,
        auth: RawLine | None,
        buffer: LineBuffer,
        lines: list[RawLine],
    ) -> None:
        if auth is None:
            self._refused(table, f"{peer}: no auth line in time; closed")
            await _answer(stream, "auth refused no auth line")
            return
        words = auth.text.split()
        if auth.overlong or not 3 <= len(words) <= 5 or words[0] != "auth":
            self._refused(table, f"{peer}: not an auth line; closed")
            await _answer(stream, "auth refused expected 'auth <seat> <token>'")
            return
        options = set(words[3:])
        if not options <= AUTH_OPTIONS or len(options) < len(words) - 3:
            await _answer(stream, "auth refused unknown option")
            return
        try:
            seat = table.authenticate(words[1], words[2], peer=peer)
        except AuthRefused as exc:
            await _answer(stream, f"auth refused {exc.reason}")
            return
        link = TcpLink(
            stream,
            peer,
            self.limits,
            buffer=buffer,
            pending=lines,
            pings="ping" in options,
            human="human" in options,
        )
        link.send(f"auth ok {seat.bpgn}")
        table.log(f"{peer}: took seat {seat.bpgn}{' (a person)' if link.human else ''}")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.run_writer)
            nursery.start_soon(link.run_pinger)
            try:
                await table.attach(seat, link)
            finally:
                nursery.cancel_scope.cancel()
        gone = f" ({link.gone})" if link.gone else ""
        table.log(f"{peer}: left seat {seat.bpgn}{gone}")

    def _refused(self, table: LiveTable, text: str) -> None:
        self.junk += 1
        table.refused(f"{text} ({self.junk} junk connections so far)", "junk connection")


async def open_listeners(host: str, port: int) -> list[trio.SocketListener]:
    """TCP listeners on ``host:port`` (port 0: a free one), or one clear ``ServeError``."""
    try:
        return await trio.open_tcp_listeners(port, host=host)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use"
        raise ServeError(f"cannot listen on {host}:{port}: {reason}") from exc


@attrs.frozen
class Opening:
    """A new connection past its waiting room: its stream (TLS once handshaken),
    its first line (``streams.first_line``: None if the peer closed first),
    whether another connection evicted it meanwhile, and the TLS refusal if the
    handshake failed (then nothing was read)."""

    stream: trio.abc.Stream
    first: tuple[RawLine | None, LineBuffer, list[RawLine]] | None = None
    evicted: bool = False
    refused: TlsRefused | None = None


async def open_connection(
    raw: trio.SocketStream, waiting: Pool, tls: ssl.SSLContext | None, limits: Limits
) -> Opening:
    """Holds ``raw`` in the ``waiting`` pool (an evicting one: a newcomer past it
    cancels the oldest) through the TLS handshake and the first line, within the
    auth bounds of ``limits``: the start every TCP front end gives a connection."""
    stream: trio.abc.Stream = raw
    scope = trio.CancelScope()
    ticket = waiting.admit(peer_host(raw), scope.cancel)
    assert ticket is not None  # an evicting pool always admits
    first = None
    with scope:
        try:
            if tls is not None:
                stream = await accept_tls(raw, tls, limits.auth_timeout)
            first = await first_line(
                stream,
                max_line=limits.max_line,
                timeout=limits.auth_timeout,
                lines=limits.auth_lines,
            )
        except TlsRefused as exc:
            return Opening(stream, refused=exc)
        finally:
            waiting.release(ticket)
    return Opening(stream, first, ticket.evicted)


class ServeError(Exception):
    """The server cannot start (e.g. the port is taken)."""


async def _answer(stream: trio.abc.Stream, line: str) -> None:
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all((line + "\n").encode())


def peer_name(stream: trio.SocketStream) -> str:
    """``host:port`` of the other end, or ``?``."""
    try:
        host, port = stream.socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"


def peer_host(stream: trio.SocketStream) -> str:
    """The other end's address (what the per-address limits count by), or ``?``."""
    try:
        return str(stream.socket.getpeername()[0])
    except OSError:
        return "?"
