"""Just enough HTTP for the live page: GET of a few fixed files, and one WebSocket.

Sans-IO parsing by ``h11`` (the request) and ``wsproto`` (the WebSocket
after the upgrade), trio at the edge. ``read_request`` returns the request
of a fresh connection; ``respond`` answers it with a fixed body;
``WebSocket.accept`` upgrades it, after which ``receive`` gives whole text
messages and ``send`` writes one. Every size is bounded: the request head
(``MAX_HEAD``), a message (``MAX_MESSAGE``), and the time to send a request.
"""

from __future__ import annotations

import contextlib
from http import HTTPStatus

import h11
import trio
import wsproto
import wsproto.events as ws_events

#: Bytes of request head accepted before the connection is dropped.
MAX_HEAD = 16 * 1024
#: Bytes of one WebSocket message from a page.
MAX_MESSAGE = 8 * 1024
#: Seconds a client gets to send its request.
REQUEST_TIMEOUT = 10.0
_CHUNK = 4096


class HttpError(Exception):
    """The peer broke the protocol or went away; drop the connection."""


async def read_request(stream: trio.abc.Stream) -> tuple[h11.Connection, h11.Request]:
    """Reads one request head from a new connection."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    with trio.move_on_after(REQUEST_TIMEOUT):
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise HttpError(f"bad request: {exc}") from None
            if isinstance(event, h11.Request):
                return conn, event
            if event is h11.NEED_DATA:
                data = await _receive(stream)
                conn.receive_data(data)
                if not data:
                    raise HttpError("closed before a request")
            else:
                raise HttpError("closed before a request")
    raise HttpError("no request in time")


async def respond(
    stream: trio.abc.Stream,
    conn: h11.Connection,
    status: int,
    body: bytes,
    content_type: str,
    *,
    head_only: bool = False,
) -> None:
    """Sends one whole response and closes the connection's sending side."""
    headers = [
        ("content-type", content_type),
        ("content-length", str(len(body))),
        ("cache-control", "no-cache"),
        ("x-content-type-options", "nosniff"),
        ("connection", "close"),
    ]
    if content_type.startswith("text/html"):
        headers.append(("content-security-policy", _CSP))
    reason = HTTPStatus(status).phrase.encode()
    data = conn.send(h11.Response(status_code=status, headers=headers, reason=reason)) or b""
    if not head_only:
        data += conn.send(h11.Data(data=body)) or b""
    data += conn.send(h11.EndOfMessage()) or b""
    await stream.send_all(data)


# The page loads only its own files and talks only to its own server.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; media-src 'self' data:; base-uri 'none'"
)


def wants_websocket(request: h11.Request) -> bool:
    headers = {name.lower(): value.lower() for name, value in request.headers}
    return b"websocket" in headers.get(b"upgrade", b"") and request.method == b"GET"


class WebSocket:
    """A WebSocket on ``stream``, upgraded from ``request``."""

    def __init__(self, stream: trio.abc.Stream, conn: h11.Connection, request: h11.Request) -> None:
        self.stream = stream
        self._ws = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
        self._ws.initiate_upgrade_connection(list(request.headers), request.target)
        self._leftover, _ = conn.trailing_data
        self._parts: list[str] = []
        self._size = 0
        self._send_lock = trio.Lock()
        self.closed = False

    async def accept(self) -> None:
        for event in self._ws.events():
            if isinstance(event, ws_events.Request):
                await self.stream.send_all(self._ws.send(ws_events.AcceptConnection()))
                break
        else:
            raise HttpError("not a WebSocket handshake")
        if self._leftover:
            self._ws.receive_data(self._leftover)

    async def receive(self) -> str | None:
        """The next whole text message, or None once the socket is closed."""
        while not self.closed:
            for event in self._ws.events():
                message = await self._handle(event)
                if message is not None:
                    return message
            if self.closed:
                break
            try:
                data = await _receive(self.stream)
            except HttpError:
                self.closed = True
                break
            self._ws.receive_data(data or None)
        return None

    async def _handle(self, event: ws_events.Event) -> str | None:
        if isinstance(event, ws_events.TextMessage):
            self._size += len(event.data)
            if self._size > MAX_MESSAGE:
                await self.close(1009, "message too big")
                return None
            self._parts.append(event.data)
            if event.message_finished:
                text = "".join(self._parts)
                self._parts, self._size = [], 0
                return text
        elif isinstance(event, ws_events.BytesMessage):
            await self.close(1003, "text only")
        elif isinstance(event, ws_events.Ping):
            await self._send_raw(self._ws.send(event.response()))
        elif isinstance(event, ws_events.CloseConnection):
            if self._ws.state is wsproto.connection.ConnectionState.REMOTE_CLOSING:
                await self._send_raw(self._ws.send(event.response()))
            self.closed = True
        return None

    async def send(self, text: str) -> None:
        if self.closed:
            return
        await self._send_raw(self._ws.send(ws_events.TextMessage(data=text)))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(wsproto.utilities.LocalProtocolError):
            await self._send_raw(self._ws.send(ws_events.CloseConnection(code=code, reason=reason)))

    async def _send_raw(self, data: bytes) -> None:
        async with self._send_lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self.closed = True


async def _receive(stream: trio.abc.Stream) -> bytes:
    try:
        return bytes(await stream.receive_some(_CHUNK))
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        raise HttpError(f"connection lost: {exc}") from None
