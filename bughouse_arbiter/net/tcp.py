"""TCP for both servers: listeners, a connection's first moments, and a line link.

- ``open_listeners``: listen on ``host:port``, or one clear ``ServeError``.
- ``open_connection``: a new connection through its waiting room (the TLS
  handshake and its first line, within the auth bounds), as every TCP front
  end starts one.
- ``TcpLink``: one authenticated connection carrying protocol lines both ways,
  with the keep-alive pings a client asked for (``PING_EVERY``, ``PONG_WAIT``).
"""

from __future__ import annotations

import errno
import ssl

import attrs
import trio

from ..protocol import LineBuffer, RawLine
from .admission import Pool
from .limits import Limits, RateLimiter
from .streams import first_line, read_lines
from .tls import TlsRefused, accept_tls, close_quietly

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
