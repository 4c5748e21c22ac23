"""The web side of ``bughouse server``: one Starlette app for the lobby and every table.

Routes: ``GET /`` the lobby page, ``GET /assets/NAME`` the page files,
``GET /table/ID`` a table's live page and ``WS /table/ID/ws`` its socket
(``hall.pages``), ``GET /api/server`` (``{"line_port": N, "tls": bool,
"version": ...}``: a bot given the web address finds the line port there)
and ``WS /ws``, the lobby socket.

The lobby socket: the first message is ``{"type": "hello", "name": ...}``
(within the ``timeout`` limit; a refused name is answered and another may
be tried), then any of ``lobby.messages``; each text goes to
``Hall.handle_text``, so a bad one is answered with one ``error``. A page
is sent what ``Hall`` sends its member, in order; one that falls
``OUTBOX`` messages behind (it does not read) is closed.

Who may connect: every request and socket must name this server
(``Host``; a socket's ``Origin`` must be this server's page or a name of
``--allow-origin``), else 403; lobby sockets count in a pool of their own
(``LOBBY_SOCKETS``, ``per_address`` from one address), and one past it is
told so and closed (1013). Any failure of one connection is logged once
and ends that connection only.
"""

from __future__ import annotations

import json
import socket as sockets
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import trio

from .. import __version__
from ..lobby.identity import Identity
from ..lobby.messages import Hello, parse
from ..server.admission import Pool
from ..server.limits import Limits, RateLimiter
from ..web.assets import asset
from ..web.http import SiteNames
from ..web.live_server import ASSETS
from .runtime import Hall, JoinRefused, Member
from .sockets import AsgiSocket

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.websockets import WebSocket

    from .site import Site

#: Lobby sockets at once.
LOBBY_SOCKETS = 512
#: Messages a lobby socket may have waiting for it before it is closed.
OUTBOX = 256
#: Lobby messages a second a socket may send (after a burst).
MESSAGE_RATE = 10.0
MESSAGE_BURST = 20
#: Tries at a name before the socket is closed.
HELLO_TRIES = 5
PAGE_FILES = {
    **ASSETS,
    "lobby.js": "text/javascript; charset=utf-8",
    "lobby.css": "text/css; charset=utf-8",
}
PLACEHOLDER = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bughouse server</title></head>
<body><h1>bughouse server</h1>
<p>The lobby page is not installed; its socket is <code>/ws</code>.</p></body></html>
"""


class SiteCheck:
    """ASGI middleware: 403 for a request or socket that does not name this server."""

    def __init__(
        self, app: Any, *, hosts: Collection[str], allow_origin: Collection[str], log: Any
    ) -> None:
        self.app = app
        self.hosts = (*hosts, sockets.gethostname())
        self.allow_origin = tuple(allow_origin)
        self.log = log

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        local, port = (scope.get("server") or ("127.0.0.1", 0))[:2]
        names = SiteNames.of(str(local), self.hosts, int(port or 0), self.allow_origin)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host, origin = headers.get("host"), headers.get("origin")
        if not names.host_ok(host):
            what, shown = "wrong Host", host
        elif scope["type"] == "websocket" and not names.origin_ok(origin):
            what, shown = "foreign Origin", origin
        else:
            await self.app(scope, receive, send)
            return
        peer = (scope.get("client") or ("?", 0))[0]
        self.log(
            f"web {peer}: refused, {what} {(shown or '')[:60]!r} "
            "(server --allow-origin NAME allows another name)"
        )
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})  # before accept: a 403
            return
        body = b"this server does not answer to that name\n"
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")],
            }
        )
        await send({"type": "http.response.body", "body": body})


def build_app(
    hall: Hall,
    *,
    line_port: int | None,
    tls: bool = False,
    hosts: Collection[str] = ("127.0.0.1",),
    allow_origin: Collection[str] = (),
    limits: Limits | None = None,
    site: Site | None = None,
) -> Any:
    """The server's ASGI app (Starlette, behind ``SiteCheck``); ``site`` adds the
    accounts and archive pages (``hall.site``)."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route, WebSocketRoute

    limits = limits or hall.limits
    pool = Pool(LOBBY_SOCKETS, limits.per_address, evict=False)

    async def lobby_page(request: Request) -> Response:
        return _file("lobby.html", "text/html; charset=utf-8", PLACEHOLDER)

    async def page_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in PAGE_FILES:
            return PlainTextResponse("not found\n", status_code=404)
        return _file(name, PAGE_FILES[name], None)

    async def table_page(request: Request) -> Response:
        if hall.host_for(request.path_params["table"]) is None:
            return PlainTextResponse("no such table\n", status_code=404)
        return _file("live.html", "text/html; charset=utf-8", None)

    async def server_info(request: Request) -> Response:
        return JSONResponse({"line_port": line_port, "tls": tls, "version": __version__})

    async def table_socket(socket: WebSocket) -> None:
        peer, address = _peer(socket)
        host = hall.host_for(socket.path_params["table"])
        if host is None or host.pages is None:
            await socket.close(1008)  # before accept: a 403... the table is unknown
            return
        wrapped = AsgiSocket(socket, send_timeout=limits.ping_every)
        try:
            await host.pages.page(
                wrapped, peer, address, socket.scope["query_string"].decode("ascii", "replace")
            )
        except Exception as exc:  # one connection's trouble never reaches the others
            host.live.refused(
                f"web {peer}: connection failed ({type(exc).__name__}: {exc})", "failed connection"
            )
        finally:
            await wrapped.close()

    async def lobby_socket(socket: WebSocket) -> None:
        peer, address = _peer(socket)
        wrapped = AsgiSocket(socket, send_timeout=limits.ping_every)
        ticket = pool.admit(address)
        try:
            await wrapped.accept()
            if ticket is None:
                hall.log(f"web {peer}: lobby socket refused, too many from its address")
                await wrapped.send(_error("too many lobby connections from your address"))
                await wrapped.close(1013, "too many connections")
                return
            await _lobby(hall, wrapped, peer, limits, site)
        except Exception as exc:  # one connection's trouble never reaches the others
            hall.log(f"web {peer}: lobby socket failed ({type(exc).__name__}: {exc})")
        finally:
            if ticket is not None:
                pool.release(ticket)
            await wrapped.close()

    app = Starlette(
        routes=[
            Route("/", lobby_page),
            Route("/assets/{name}", page_file),
            Route("/table/{table}", table_page),
            Route("/api/server", server_info),
            WebSocketRoute("/ws", lobby_socket),
            WebSocketRoute("/table/{table}/ws", table_socket),
            *(site.routes() if site is not None else ()),
        ],
        middleware=site.middleware() if site is not None else None,
    )
    return SiteCheck(app, hosts=hosts, allow_origin=allow_origin, log=hall.log)


async def _lobby(
    hall: Hall, socket: AsgiSocket, peer: str, limits: Limits, site: Site | None = None
) -> None:
    """One lobby socket, accepted: hello, then messages, until it closes."""
    outbox, pending = trio.open_memory_channel[dict[str, Any]](OUTBOX)
    member: Member | None = None
    over = trio.CancelScope()

    def send(message: dict[str, Any]) -> None:
        try:
            outbox.send_nowait(message)
        except trio.WouldBlock:
            socket.gone = socket.gone or f"{OUTBOX} messages waited for it"
            over.cancel()
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    with trio.move_on_after(limits.auth_timeout) as hello_scope:
        for _ in range(HELLO_TRIES):
            text = await socket.receive()
            if text is None:
                return
            parsed = parse(text)
            if not isinstance(parsed, Hello):
                await socket.send(
                    _error(
                        parsed
                        if isinstance(parsed, str)
                        else 'say hello first: {"type": "hello", "name": ...}'
                    )
                )
                continue
            try:
                who = Identity(parsed.name)
                if site is not None:  # its account when logged in
                    who = await site.person(socket.socket.scope, parsed.name)
                member = hall.join(who, send)
            except JoinRefused as exc:
                await socket.send(_error(exc.reason))
                continue
            break
    if member is None:
        why = "no hello in time" if hello_scope.cancelled_caught else "no acceptable name"
        hall.log(f"web {peer}: lobby socket closed, {why}")
        await socket.send(_error(f"closed: {why}"))
        return
    limiter = RateLimiter(MESSAGE_RATE, MESSAGE_BURST)
    try:
        with over:
            async with trio.open_nursery() as nursery:

                async def pump() -> None:
                    async for message in pending:
                        await socket.send(json.dumps(message, separators=(",", ":")))
                        if socket.closed:
                            break
                    nursery.cancel_scope.cancel()

                nursery.start_soon(pump)
                while (text := await socket.receive()) is not None:
                    delay = limiter.delay(trio.current_time())
                    if delay:
                        await trio.sleep(delay)
                    hall.handle_text(member, text)
                nursery.cancel_scope.cancel()
    finally:
        hall.leave(member)
        outbox.close()
    if socket.gone is not None:
        hall.log(f"web {peer}: lobby socket closed, {socket.gone}")


def _error(text: str) -> str:
    return json.dumps({"type": "error", "text": text})


def _peer(socket: WebSocket) -> tuple[str, str]:
    client = socket.client
    if client is None:
        return "?", "?"
    return f"{client.host}:{client.port}", client.host


def _file(name: str, content_type: str, fallback: bytes | None) -> Response:
    from starlette.responses import PlainTextResponse, Response

    try:
        body = asset(name)
    except (FileNotFoundError, OSError):
        if fallback is None:
            return PlainTextResponse("not found\n", status_code=404)
        body = fallback
    return Response(
        body, media_type=content_type.split(";")[0], headers={"cache-control": "no-cache"}
    )
