"""Who may come in, for any Starlette app this server runs (the live page, the lobby).

- ``SiteNames``: the names this server answers to; a request's ``Host`` and a
  WebSocket's ``Origin`` must be among them (a page elsewhere must not open
  the socket; a name that resolves here must not serve as another site's).
- ``SiteGate``: ASGI middleware answering 403 with one line to a request or
  socket that fails ``SiteNames`` (the app never sees it), and telling
  ``on_refused`` why.
- ``RequestGate``: ASGI middleware counting the HTTP requests being answered
  in an evicting ``admission.Pool`` (a share per address): a newcomer past it
  makes the oldest go with a 503 and one line.
- ``TextSocket``: a Starlette ``WebSocket`` as whole text messages (``receive``
  is None once it is over; a binary message closes it with 1003); sends to a
  socket that is over are dropped. The session code above it (the live
  page's ``PageSession``, the lobby's) needs nothing else of the transport.
- ``page_response``: a fixed file with the headers every page file gets
  (``nosniff``, no caching, and a CSP on HTML: the page loads only its own
  files and talks only to its own server); ``plain_response``: one line.
- ``gated_app``: a Starlette app of given routes behind both gates, its 404
  and 405 in one line, each refusal told to one ``note`` in one line.

Sizes, pings and timeouts are Hypercorn's (``asgi_host.WebBounds``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Collection, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs
import trio

from .admission import Pool

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]
App = Callable[[Scope, Receive, Send], Any]

#: What a refused request or socket is told.
WRONG_HOST = "this server does not answer to that name"
FOREIGN_ORIGIN = "a page elsewhere may not connect"
BUSY = "the server is busy: try again in a moment"

# The page loads only its own files and talks only to its own server.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; media-src 'self' data:; base-uri 'none'"
)


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


def header(scope: Scope, name: bytes) -> str | None:
    """The request's header ``name`` (lower case) as text, or None."""
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def client_host(scope: Scope) -> str:
    """The peer's address (what the per-address shares count by), or ``?``."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


def client_name(scope: Scope) -> str:
    """``host:port`` of the peer, or ``?``."""
    client = scope.get("client")
    return f"{client[0]}:{client[1]}" if client else "?"


def refusal(
    scope: Scope, hosts: Collection[str], allowed: Collection[str]
) -> tuple[str, str] | None:
    """Why a request or socket does not name this server (``(what, value)``), or None."""
    server = scope.get("server") or ("", 0)
    names = SiteNames.of(str(server[0]), hosts, int(server[1] or 0), allowed)
    host = header(scope, b"host")
    if not names.host_ok(host):
        return "wrong Host", host or ""
    origin = header(scope, b"origin")
    if scope["type"] == "websocket" and not names.origin_ok(origin):
        return "foreign Origin", origin or ""
    return None


class SiteGate:
    """ASGI middleware: 403 and one line to what fails ``SiteNames`` (see the module docstring).

    ``on_refused(scope, what, value)`` is told of each refusal (the front end logs it).
    """

    def __init__(
        self,
        app: App,
        *,
        hosts: Collection[str],
        allowed: Collection[str] = (),
        on_refused: Callable[[Scope, str, str], None] | None = None,
    ) -> None:
        self.app = app
        self.hosts = tuple(hosts)
        self.allowed = tuple(allowed)
        self.on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refused = refusal(scope, self.hosts, self.allowed)
        if refused is None:
            await self.app(scope, receive, send)
            return
        what, value = refused
        if self.on_refused is not None:
            self.on_refused(scope, what, value)
        line = WRONG_HOST if what == "wrong Host" else FOREIGN_ORIGIN
        await plain_answer(scope, send, 403, line)


async def plain_answer(scope: Scope, send: Send, status: int, line: str) -> None:
    """A whole response with a one-line body (to a WebSocket request: before any accept)."""
    body = (line + "\n").encode()
    start = "http.response.start"
    body_type = "http.response.body"
    if scope["type"] == "websocket":
        start, body_type = "websocket.http.response.start", "websocket.http.response.body"
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": start, "status": status, "headers": headers})
    await send({"type": body_type, "body": body})


class RequestGate:
    """ASGI middleware: the HTTP requests being answered share an evicting ``Pool``.

    A newcomer past ``pool`` (or its address's share) makes the oldest such
    request go: its handling is cancelled and, if nothing of its answer was
    sent yet, it gets a 503 and ``BUSY``. ``on_evicted(scope)`` is told.
    WebSockets pass untouched (the app admits them into pools of its own).
    """

    def __init__(
        self, app: App, *, pool: Pool, on_evicted: Callable[[Scope], None] | None = None
    ) -> None:
        if not pool.evict:
            raise ValueError("a request gate needs an evicting pool")
        self.app = app
        self.pool = pool
        self.on_evicted = on_evicted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched_send(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        cancel = trio.CancelScope()
        ticket = self.pool.admit(client_host(scope), cancel.cancel)
        assert ticket is not None  # an evicting pool always admits
        try:
            with cancel:
                await self.app(scope, receive, watched_send)
        finally:
            self.pool.release(ticket)
        if ticket.evicted:
            if self.on_evicted is not None:
                self.on_evicted(scope)
            if not started:
                with trio.move_on_after(1):
                    await plain_answer(scope, send, 503, BUSY)


class TextSocket:
    """A Starlette ``WebSocket`` as whole text messages (see the module docstring)."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.closed = False
        #: Why the socket ended without a close from the peer (it went silent), or None.
        self.gone: str | None = None

    async def accept(self) -> None:
        await self.socket.accept()

    async def receive(self) -> str | None:
        """The next text message, or None once the socket is over."""
        while not self.closed:
            message = await self.socket.receive()
            kind = message["type"]
            if kind == "websocket.disconnect":
                self.closed = True
                if message.get("code") == 1006:
                    self.gone = "no close from it (it answered no ping, or its network dropped)"
                return None
            if kind != "websocket.receive":
                continue
            text = message.get("text")
            if text is None:
                await self.close(1003, "text only")
                return None
            return str(text)
        return None

    async def send(self, text: str) -> None:
        if self.closed:
            return
        await self.socket.send({"type": "websocket.send", "text": text})

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        await self.socket.send({"type": "websocket.close", "code": code, "reason": reason})


def page_response(body: bytes, content_type: str, *, status: int = 200) -> Any:
    """A Starlette ``Response`` of a page file, with the headers every page file gets."""
    from starlette.responses import Response

    headers = {"cache-control": "no-cache", "x-content-type-options": "nosniff"}
    if content_type.startswith("text/html"):
        headers["content-security-policy"] = CSP
    return Response(body, status_code=status, headers=headers, media_type=content_type)


def plain_response(status: int, line: str) -> Any:
    """A Starlette response of one line of text."""
    from starlette.responses import PlainTextResponse

    return PlainTextResponse(line + "\n", status_code=status)


def gated_app(
    routes: Sequence[Any],
    *,
    hosts: Collection[str],
    allowed: Collection[str],
    requests: Pool,
    command: str,
    note: Callable[[str, str], None],
    middleware: Sequence[Any] = (),
) -> Any:
    """A Starlette app of ``routes`` behind ``SiteGate`` and ``RequestGate`` (then
    ``middleware``), answering 404 and 405 in one line. ``note(text, kind)`` hears
    each refusal (kind: what was refused, or ``busy``); ``command`` is the one whose
    ``--allow-origin`` would let a refused name in."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware

    def refused(scope: Scope, what: str, value: str) -> None:
        note(
            f"web {client_name(scope)}: refused, {what} {value[:60]!r} "
            f"({command} --allow-origin NAME allows another name)",
            what,
        )

    def evicted(scope: Scope) -> None:
        note(
            f"web {client_name(scope)}: closed with 503 to make room, too many requests at once",
            "busy",
        )

    async def not_found(request: Any, exc: Exception) -> Any:
        return plain_response(404, "not found")

    async def not_allowed(request: Any, exc: Exception) -> Any:
        return plain_response(405, "GET only")

    return Starlette(
        routes=list(routes),
        middleware=[
            Middleware(SiteGate, hosts=hosts, allowed=allowed, on_refused=refused),
            Middleware(RequestGate, pool=requests, on_evicted=evicted),
            *middleware,
        ],
        exception_handlers={404: not_found, 405: not_allowed},
    )
