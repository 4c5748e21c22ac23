"""The web side of ``bughouse server``: one Starlette app for the lobby and every table.

Routes: ``GET /`` the lobby page, ``GET /assets/NAME`` the page files,
``GET /table/ID`` a table's live page and ``WS /table/ID/ws`` its socket
(``hall.pages``), ``GET /api/server`` (``{"line_port": N, "tls": bool,
"version": ...}``: a bot given the web address finds the line port there)
and ``WS /ws``, the lobby socket.

The lobby socket: the first message is ``{"type": "hello", "name": ...}``
(within the ``timeout`` limit; a refused name is answered and another may
be tried, ``HELLO_TRIES`` in all), then any of ``lobby.messages``; each
text goes to ``Hall.handle_text``, so a bad one is answered with one
``error``. A page is sent what ``Hall`` sends its member, in order; one
that falls ``OUTBOX`` messages behind (it does not read) is closed.

Who may connect (``net.gate``, as for ``serve --web``): every request and
socket must name this server (``Host``; a socket's ``Origin`` must be this
server's page or a name of ``--allow-origin``), else 403; HTTP requests
share an evicting pool; lobby sockets count in a pool of their own
(``LOBBY_SOCKETS``, ``per_address`` from one address), and one past it is
told so and closed (1013); a table's pages count in that table's pools.
Message sizes, pings and timeouts are Hypercorn's (``asgi_host``). Any
failure of one connection is logged once and ends that connection only.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import trio

from ... import __version__
from ...lobby.identity import Identity
from ...lobby.messages import Hello, parse
from ...net.admission import Pool
from ...net.gate import (
    TextSocket,
    client_host,
    client_name,
    gated_app,
    page_response,
    plain_response,
)
from ...net.limits import Limits, RateLimiter
from ...serve.live_page import ASSETS, failure
from ...web.assets import asset
from ..runtime import Hall, JoinRefused, Member, encoded

if TYPE_CHECKING:
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


class LobbyWeb:
    """The app and its open lobby sockets (closed by ``close`` when the server stops)."""

    def __init__(
        self,
        hall: Hall,
        *,
        line_port: int | None,
        tls: bool = False,
        hosts: Collection[str] = ("127.0.0.1",),
        allow_origin: Collection[str] = (),
        limits: Limits | None = None,
        routes: Collection[Any] = (),
        site: Site | None = None,
    ) -> None:
        import socket as sockets

        #: The accounts and archive pages (``hall.site``), if the server has a database.
        self.site = site

        self.hall = hall
        self.line_port = line_port
        self.tls = tls
        self.hosts = (*hosts, sockets.gethostname())
        self.allow_origin = tuple(allow_origin)
        self.limits = limits or hall.limits
        self.lobby_pool = Pool(LOBBY_SOCKETS, self.limits.per_address, evict=False)
        self.requests = Pool(self.limits.requests, self.limits.per_address, evict=True)
        #: The lobby sockets' cancel scopes.
        self._open: dict[trio.CancelScope, None] = {}
        self._all_closed = trio.Event()
        self._stopping = False
        #: More routes, after the lobby's (the events' pages: ``hall.web.events``).
        self.routes = tuple(routes)

    def app(self) -> Any:
        """The Starlette app behind the gates."""
        from starlette.routing import Route, WebSocketRoute

        hall = self.hall

        async def lobby_page(request: Any) -> Any:
            try:
                body = asset("lobby.html")
            except OSError:
                body = PLACEHOLDER
            return page_response(body, "text/html; charset=utf-8")

        async def page_file(request: Any) -> Any:
            name = request.path_params["name"]
            if name not in PAGE_FILES:
                return plain_response(404, "not found")
            try:
                return page_response(asset(name), PAGE_FILES[name])
            except OSError:
                return plain_response(404, "not found")

        async def table_page(request: Any) -> Any:
            if hall.host_for(request.path_params["table"]) is None:
                return plain_response(404, "no such table")
            return page_response(asset("live.html"), "text/html; charset=utf-8")

        async def server_info(request: Any) -> Any:
            from starlette.responses import JSONResponse

            return JSONResponse(
                {
                    "line_port": self.line_port,
                    "tls": self.tls,
                    "version": __version__,
                    "loop_lag": hall.lag.figures().shown(),
                }
            )

        async def favicon(request: Any) -> Any:
            return page_response(b"", "image/x-icon", status=204)

        async def table_socket(websocket: Any) -> None:
            host = hall.host_for(websocket.path_params["table"])
            if host is None or host.pages is None:
                await websocket.close(1008)  # before accept: answered 403
                return
            await host.pages.page(host.live, websocket)

        async def lobby_socket(websocket: Any) -> None:
            await self._held(self._lobby(websocket))

        return gated_app(
            [
                Route("/", lobby_page),
                Route("/assets/{name}", page_file),
                Route("/favicon.ico", favicon),
                Route("/table/{table}", table_page),
                Route("/api/server", server_info),
                WebSocketRoute("/ws", lobby_socket),
                WebSocketRoute("/table/{table}/ws", table_socket),
                *self.routes,
                *(self.site.routes() if self.site is not None else ()),
            ],
            hosts=self.hosts,
            allowed=self.allow_origin,
            requests=self.requests,
            command="server",
            note=lambda text, kind: hall.log(text),
            middleware=self.site.middleware() if self.site is not None else (),
        )

    async def _held(self, running: Any) -> None:
        """Runs one lobby socket's coroutine; ``close`` cancels it."""
        with trio.CancelScope() as scope:
            self._open[scope] = None
            try:
                await running
            finally:
                del self._open[scope]
                if not self._open:
                    self._all_closed.set()

    async def close(self) -> None:
        """Closes every socket (the server is stopping); returns once they are closed:
        the tables' pages as ``serve --web`` closes its pages, the lobby sockets here."""
        self._stopping = True
        async with trio.open_nursery() as closing:
            for host in list(self.hall.hosts.values()):
                if host.pages is not None:
                    closing.start_soon(host.pages.close_pages)
            if self._open:
                self._all_closed = trio.Event()
                for scope in list(self._open):
                    scope.cancel()
                await self._all_closed.wait()

    async def _lobby(self, websocket: Any) -> None:
        peer, address = client_name(websocket.scope), client_host(websocket.scope)
        socket = TextSocket(websocket)
        ticket = self.lobby_pool.admit(address)
        try:
            await socket.accept()
            if ticket is None:
                self.hall.log(f"web {peer}: lobby socket refused, too many from its address")
                await socket.send(_error("too many lobby connections from your address"))
                await socket.close(1013, "too many connections")
                return
            await self._session(socket, peer)
        except Exception as exc:  # one connection's trouble never reaches the others
            why = failure(exc)
            if why is not None:
                self.hall.log(f"web {peer}: lobby socket failed ({why})")
        finally:
            if ticket is not None:
                self.lobby_pool.release(ticket)
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await socket.close(1001 if self._stopping else 1000)

    async def _session(self, socket: TextSocket, peer: str) -> None:
        """One lobby socket, accepted: hello, then messages, until it closes."""
        hall = self.hall
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

        with trio.move_on_after(self.limits.auth_timeout) as hello_scope:
            for _ in range(HELLO_TRIES):
                text = await socket.receive()
                if text is None:
                    return
                parsed = parse(text)
                if not isinstance(parsed, Hello):
                    first = 'say hello first: {"type": "hello", "name": ...}'
                    await socket.send(_error(parsed if isinstance(parsed, str) else first))
                    continue
                try:
                    who = Identity(parsed.name)
                    if self.site is not None:  # its account when logged in
                        who = await self.site.person(socket.socket.scope, parsed.name)
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
                            await socket.send(encoded(message))
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
