"""Just enough HTTP for the live page: GET of a few fixed files, and one WebSocket.

Sans-IO parsing by ``h11`` (the request) and ``wsproto`` (the WebSocket
after the upgrade), trio at the edge. ``read_request`` returns the request
of a fresh connection; ``respond`` answers it with a fixed body;
``WebSocket.accept`` upgrades it, after which ``receive`` gives whole text
messages and ``send`` writes one. Every size is bounded: the request head
(``MAX_HEAD``), a message (``MAX_MESSAGE``), and the time to send a request.
A WebSocket that does not read is closed: ``keep_alive`` pings it, and one
ping unanswered at the next closes it, as does a send that waits longer.
``SiteNames`` says whether a request's ``Host`` and a WebSocket's
``Origin`` name this server (a page elsewhere must not open the socket; a
name that resolves here must not serve as another site's).
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Collection
from http import HTTPStatus
from urllib.parse import urlsplit

import attrs
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


async def read_request(
    stream: trio.abc.Stream, timeout: float = REQUEST_TIMEOUT
) -> tuple[h11.Connection, h11.Request]:
    """Reads one request head from a new connection."""
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    with trio.move_on_after(timeout):
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


async def answer_plainly(stream: trio.abc.Stream, status: int, line: str) -> None:
    """A whole response with a one-line body, written before any request was read
    (a connection closed to make room); never waits more than a second."""
    body = (line + "\n").encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "content-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all(head.encode() + body)


# The page loads only its own files and talks only to its own server.
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; media-src 'self' data:; base-uri 'none'"
)


def wants_websocket(request: h11.Request) -> bool:
    headers = {name.lower(): value.lower() for name, value in request.headers}
    return b"websocket" in headers.get(b"upgrade", b"") and request.method == b"GET"


def header(request: h11.Request, name: bytes) -> str | None:
    """The request's header ``name`` (lower case) as text, or None."""
    for key, value in request.headers:
        if key == name:
            return value.decode("latin-1")
    return None


@attrs.frozen
class SiteNames:
    """The names this server answers to, for one connection.

    ``own``: its address as the client reached it, the ``--host`` it was
    given and the machine's name, and ``localhost`` on loopback; ``allowed``: more names
    (``serve --allow-origin``, e.g. a reverse proxy's), at any port.
    """

    own: frozenset[str]
    port: int
    allowed: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls, local: str, hosts: Collection[str], port: int, allowed: Collection[str] = ()
    ) -> SiteNames:
        own = {_name(local), *(_name(host) for host in hosts)}
        if _loopback(local):
            own.add("localhost")
        return cls(frozenset(own), port, frozenset(_name(n) for n in allowed))

    def host_ok(self, value: str | None) -> bool:
        """A ``Host`` header naming this server (none at all, as HTTP/1.0 may send, is fine)."""
        if value is None:
            return True
        try:
            url = urlsplit("//" + value.strip())
            name, _ = url.hostname, url.port  # a port that is not a number is refused
        except ValueError:
            return False
        return name is not None and _name(name) in self.own | self.allowed

    def origin_ok(self, value: str | None) -> bool:
        """An ``Origin`` that is this server's own page (none at all: not a browser)."""
        if value is None:
            return True
        try:
            url = urlsplit(value.strip())
            port = url.port or {"http": 80, "https": 443}.get(url.scheme)
        except ValueError:
            return False
        if url.scheme not in ("http", "https") or url.hostname is None:
            return False
        name = _name(url.hostname)
        return name in self.allowed or (name in self.own and port == self.port)


def _name(text: str) -> str:
    """A host name or address as compared: lower case, no brackets, one form per address."""
    text = text.strip().strip("[]").rstrip(".").lower()
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def _loopback(text: str) -> bool:
    try:
        return ipaddress.ip_address(_name(text)).is_loopback
    except ValueError:
        return text == "localhost"


class WebSocket:
    """A WebSocket on ``stream``, upgraded from ``request``."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        conn: h11.Connection,
        request: h11.Request,
        *,
        send_timeout: float = 10.0,
    ) -> None:
        self.stream = stream
        self.send_timeout = send_timeout
        self._ws = wsproto.WSConnection(wsproto.ConnectionType.SERVER)
        self._ws.initiate_upgrade_connection(list(request.headers), request.target)
        self._leftover, _ = conn.trailing_data
        self._parts: list[str] = []
        self._size = 0
        self._send_lock = trio.Lock()
        self._pings = 0
        self._unanswered: bytes | None = None
        self.closed = False
        #: Why the server gave up on the peer (it did not read), or None.
        self.gone: str | None = None

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
        elif isinstance(event, ws_events.Pong):
            if bytes(event.payload) == self._unanswered:
                self._unanswered = None
        elif isinstance(event, ws_events.CloseConnection):
            if self._ws.state is wsproto.connection.ConnectionState.REMOTE_CLOSING:
                await self._send_raw(self._ws.send(event.response()))
            self.closed = True
        return None

    async def send(self, text: str) -> None:
        if self.closed:
            return
        await self._send_raw(self._ws.send(ws_events.TextMessage(data=text)))

    async def keep_alive(self, every: float) -> None:
        """Pings every ``every`` s; a ping still unanswered at the next drops the peer."""
        while not self.closed:
            await trio.sleep(every)
            if self.closed:
                return
            if self._unanswered is not None:
                await self._give_up(f"no answer to a ping in {every:g} s")
                return
            self._pings += 1
            self._unanswered = str(self._pings).encode()
            await self._send_raw(self._ws.send(ws_events.Ping(payload=self._unanswered)))

    async def _give_up(self, why: str) -> None:
        # Closing the stream wakes the reader too: the socket is over.
        self.gone = self.gone or why
        self.closed = True
        with trio.CancelScope(shield=True), contextlib.suppress(OSError):
            await self.stream.aclose()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(wsproto.utilities.LocalProtocolError):
            await self._send_raw(self._ws.send(ws_events.CloseConnection(code=code, reason=reason)))

    async def _send_raw(self, data: bytes) -> None:
        async with self._send_lock:
            if self.gone is not None:
                return
            try:
                with trio.move_on_after(self.send_timeout) as waited:
                    await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                self.closed = True
                return
        if waited.cancelled_caught:
            await self._give_up(f"it read nothing for {self.send_timeout:g} s")


async def _receive(stream: trio.abc.Stream) -> bytes:
    try:
        return bytes(await stream.receive_some(_CHUNK))
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        raise HttpError(f"connection lost: {exc}") from None
