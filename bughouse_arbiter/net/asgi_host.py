"""An ASGI app (Starlette) served by Hypercorn's trio worker, in the current trio run.

``serve_asgi(app, host=..., port=..., task_status=...)`` listens on
``host:port`` (port 0: a free one; ``started()`` is given the port bound),
speaks TLS when given ``certfile`` and ``keyfile``, and serves until it is
cancelled; it then shuts down gracefully: no new connections, idle ones
closed, and ``await on_stop()`` (the app closes its long-lived sockets, such
as WebSockets, and returns once they are closed); what is still open once it
returned, or after ``WebBounds.graceful`` seconds, is cut. Without
``on_stop``, open requests get the whole grace.

HTTP/1.1, WebSocket framing and TLS are Hypercorn's (h11, wsproto, trio's
``SSLListener``), and so is every bound (``WebBounds``): the request head's
size, a WebSocket message's size, the seconds an HTTP connection may sit
without a request, pings to every WebSocket, and a read timeout that closes
a connection the peer has gone silent on (a WebSocket that answers no ping
is closed at the next).
The listening sockets are opened here (one clear ``ServeError`` if the
address is taken, every address of a name) and handed to Hypercorn, with
``TCP_USER_TIMEOUT`` set (Linux), so that a peer that stops reading loses
its connection once what was sent to it waits ``send_timeout`` seconds.
Hypercorn shields its sends from cancellation: without that bound, such a
peer would hold its connection, and the shutdown, for as long as it likes.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs
import trio

from ..errors import UsageError
from .tcp import ServeError, open_listeners
from .tls import server_context

if TYPE_CHECKING:
    from hypercorn.config import Config

#: Where Hypercorn's warnings and errors go (its info lines are left out).
LOG = logging.getLogger("bughouse_arbiter.web")


@attrs.frozen(kw_only=True)
class WebBounds:
    """The bounds of every web connection, as Hypercorn's configuration."""

    #: Bytes of an HTTP request head (``h11_max_incomplete_size``); past it, the connection goes.
    max_head: int = 16 * 1024
    #: Bytes of one WebSocket message (``websocket_max_message_size``); past it, close 1009.
    max_message: int = 8 * 1024
    #: Seconds an HTTP connection may sit with no request (``keep_alive_timeout``).
    idle_timeout: float = 5.0
    #: Seconds between pings to a WebSocket (``websocket_ping_interval``).
    ping_every: float = 10.0
    #: Seconds what was sent may wait for the peer to take it (``TCP_USER_TIMEOUT``).
    send_timeout: float = 10.0
    #: Seconds for a TLS handshake.
    handshake_timeout: float = 5.0
    #: Seconds open connections get to finish once the server stops.
    graceful: float = 2.0

    @property
    def read_timeout(self) -> float:
        """Seconds with nothing from the peer before its connection goes. A WebSocket
        answers each ping at once: one that answered none since the last ping is
        closed at the next (Hypercorn's pinger ends the connection it finds closed)."""
        return 1.5 * self.ping_every


def hypercorn_config(
    bounds: WebBounds, binds: list[str], certfile: str | None, keyfile: str | None
) -> Config:
    """Hypercorn's configuration for ``binds`` under ``bounds``."""
    from hypercorn.config import Config

    config = Config()
    config.bind = binds
    config.certfile, config.keyfile = certfile, keyfile
    config.alpn_protocols = ["http/1.1"]
    config.h11_max_incomplete_size = bounds.max_head
    config.websocket_max_message_size = bounds.max_message
    config.websocket_ping_interval = bounds.ping_every
    config.keep_alive_timeout = bounds.idle_timeout
    # Hypercorn's type says int; it is handed to trio.fail_after, which takes seconds.
    config.read_timeout = bounds.read_timeout  # type: ignore[assignment]
    config.ssl_handshake_timeout = bounds.handshake_timeout
    config.graceful_timeout = bounds.graceful
    config.shutdown_timeout = bounds.graceful
    config.include_server_header = False
    config.accesslog = None
    config.errorlog = LOG
    return config


async def serve_asgi(
    app: Any,
    *,
    host: str,
    port: int,
    certfile: str | None = None,
    keyfile: str | None = None,
    bounds: WebBounds | None = None,
    on_stop: Callable[[], Awaitable[None]] | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serves ``app`` on ``host:port`` until cancelled (see the module docstring)."""
    bounds = bounds or WebBounds()
    if (certfile is None) != (keyfile is None):
        raise ServeError("--certfile and --keyfile go together")
    if certfile is not None and keyfile is not None:
        try:  # a bad file is one line before anything listens
            server_context(certfile, keyfile)
        except UsageError as exc:
            raise ServeError(str(exc)) from None
    listeners = await open_listeners(host, port)
    bound = listeners[0].socket.getsockname()[1]
    binds = []
    for listener in listeners:
        sock = listener.socket
        if hasattr(socket, "TCP_USER_TIMEOUT"):  # accepted connections inherit it
            sock.setsockopt(
                socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(bounds.send_timeout * 1000)
            )
        binds.append(f"fd://{os.dup(sock.fileno())}")  # Hypercorn owns the copy
        sock.close()
    config = hypercorn_config(bounds, binds, certfile, keyfile)
    stop = trio.Event()
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(_hypercorn, app, config, stop, on_stop)
            task_status.started(bound)
            try:
                await trio.sleep_forever()
            finally:
                stop.set()
    finally:
        stop.set()


async def _hypercorn(
    app: Any,
    config: Config,
    stop: trio.Event,
    on_stop: Callable[[], Awaitable[None]] | None,
    *,
    task_status: trio.TaskStatus[None],
) -> None:
    """Hypercorn's ``serve``, shielded from the caller's cancellation: ``stop`` shuts it
    down gracefully, and the shutdown itself is bounded."""
    from hypercorn.trio import serve

    with trio.CancelScope(shield=True) as scope:
        async with trio.open_nursery() as inner:

            async def bound_the_shutdown() -> None:
                await stop.wait()
                scope.deadline = trio.current_time() + config.graceful_timeout + 1.0
                if on_stop is not None:
                    with trio.move_on_after(config.graceful_timeout):
                        await on_stop()
                    # What is left holds no socket of the app's (a closed socket's
                    # pinger sleeps on to its next ping, an HTTP reply ends).
                    scope.cancel()

            async def serving(*, task_status: trio.TaskStatus[list[str]]) -> None:
                await serve(app, config, shutdown_trigger=stop.wait, task_status=task_status)
                inner.cancel_scope.cancel()

            inner.start_soon(bound_the_shutdown)
            await inner.start(serving)
            task_status.started()
