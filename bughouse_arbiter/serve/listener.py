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
import ssl
from functools import partial

import trio

from ..net.admission import Pool
from ..net.limits import Limits
from ..net.tcp import TcpLink, open_connection, open_listeners, peer_name
from ..net.tls import close_quietly
from ..protocol import LineBuffer, RawLine
from .seam import AuthRefused, LiveTable

#: What may follow the token on the ``auth`` line.
AUTH_OPTIONS = frozenset({"ping", "human"})


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
        self.waiting = Pool(self.limits.max_connections, self.limits.per_address, evict=True)
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


async def _answer(stream: trio.abc.Stream, line: str) -> None:
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all((line + "\n").encode())
