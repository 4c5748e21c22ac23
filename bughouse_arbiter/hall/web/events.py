"""The web side of the server's events: the events page, an event's page and socket.

Routes (added to ``hall.app``'s app): ``GET /events`` (the events and the
host's form), ``POST /api/events`` (the form as JSON: ``events.forms``;
answers ``{"id", "url", "host_url"}``: the host's link holds the token
that lets it start the event and add bots), ``GET /api/events`` (a list),
``GET /event/ID`` (the event page), ``GET /event/ID/json`` (its view),
``WS /event/ID/ws`` (its socket) and ``GET /event-assets/NAME``.

The socket: the server sends the ``event`` view on connect and on every
change; the page sends ``{"type": "hello", "name": ...}`` (the person joins
the lobby as that name through this page, so their ``seat`` messages come
here), ``sign_up`` (``partner`` optional), ``withdraw``, ``check_in``, and
with the host's ``token`` ``start`` and ``add_bot`` (``name``). Every bad
message is answered with one ``error``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import trio

from ...events.forms import event_spec, page_command
from ...net.gate import TextSocket, page_response
from ...web.assets import asset
from ..events import EventHall, Viewer

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.websockets import WebSocket

#: Messages an event page may have waiting before it is closed.
OUTBOX = 256
#: The longest form, in bytes.
MAX_FORM = 4096
FILES = {
    "event.html": "text/html; charset=utf-8",
    "event.js": "text/javascript; charset=utf-8",
    "events.js": "text/javascript; charset=utf-8",
    "event.css": "text/css; charset=utf-8",
    "events.html": "text/html; charset=utf-8",
}


def event_routes(events: EventHall) -> list[Any]:
    """The routes above, for ``hall.app.build_app``."""
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route, WebSocketRoute

    def file(name: str) -> Response:
        return page_response(asset(name), FILES[name])  # type: ignore[no-any-return]

    async def events_page(request: Request) -> Response:
        return file("events.html")

    async def page_file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in FILES:
            return PlainTextResponse("not found\n", status_code=404)
        return file(name)

    async def event_page(request: Request) -> Response:
        if request.path_params["event"] not in events.events:
            return PlainTextResponse("no such event\n", status_code=404)
        return file("event.html")

    async def event_json(request: Request) -> Response:
        event = events.events.get(request.path_params["event"])
        if event is None:
            return JSONResponse({"error": "no such event"}, status_code=404)
        return JSONResponse(event.shown(trio.current_time()))

    async def listing(request: Request) -> Response:
        now = trio.current_time()
        return JSONResponse(
            [
                {
                    "id": e.id,
                    "title": e.spec.title,
                    "state": e.state,
                    "tc": str(e.spec.tc),
                    "format": e.spec.format,
                    "entrants": len(e.entrants),
                    "starts_in": max(0.0, e.spec.starts - now),
                    "url": f"/event/{e.id}",
                }
                for e in events.events.values()
            ]
        )

    async def create(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_FORM:
            return JSONResponse({"error": "the form is too long"}, status_code=413)
        try:
            form = json.loads(body)
        except ValueError:
            return JSONResponse({"error": "the form is not JSON"}, status_code=400)
        if not isinstance(form, dict):
            return JSONResponse({"error": "the form is a JSON object"}, status_code=400)
        spec = event_spec(form, trio.current_time())
        if isinstance(spec, str):
            return JSONResponse({"error": spec}, status_code=400)
        made = events.create(spec)
        if isinstance(made, str):
            return JSONResponse({"error": made}, status_code=503)
        event, token = made
        url = f"/event/{event.id}"
        return JSONResponse({"id": event.id, "url": url, "host_url": f"{url}#host={token}"})

    async def socket(websocket: WebSocket) -> None:
        event_id = websocket.path_params["event"]
        wrapped = TextSocket(websocket)
        if events.stopping:
            await websocket.close(1013)
            return
        await wrapped.accept()
        scope = trio.CancelScope()
        events.pages.add(scope)
        try:
            with scope:
                await _page(events, event_id, wrapped)
        except Exception as exc:  # one page's trouble never reaches the others
            events.hall.log(f"event {event_id}: a page failed ({type(exc).__name__}: {exc})")
        finally:
            with trio.move_on_after(2) as closing:
                closing.shield = True
                if events.stopping:
                    await wrapped.close(1001, "the server is stopping")
                await wrapped.close()
            events.pages.discard(scope)

    return [
        Route("/events", events_page),
        Route("/api/events", listing, methods=["GET"]),
        Route("/api/events", create, methods=["POST"]),
        Route("/event-assets/{name}", page_file),
        Route("/event/{event}", event_page),
        Route("/event/{event}/json", event_json),
        WebSocketRoute("/event/{event}/ws", socket),
    ]


async def _page(events: EventHall, event_id: str, socket: TextSocket) -> None:
    outbox, pending = trio.open_memory_channel[dict[str, Any]](OUTBOX)
    over = trio.CancelScope()

    def send(message: dict[str, Any]) -> None:
        try:
            outbox.send_nowait(message)
        except trio.WouldBlock:
            over.cancel()  # it does not read: let it go
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    viewer = Viewer(send)
    if not events.watch(event_id, viewer):
        await socket.send(json.dumps({"type": "error", "text": "no such event"}))
        return
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
                    try:
                        message = json.loads(text)
                    except ValueError:
                        send({"type": "error", "text": "a message is JSON"})
                        continue
                    command = page_command(message)
                    problem = (
                        command
                        if isinstance(command, str)
                        else events.handle(event_id, viewer, command)
                    )
                    if problem is not None:
                        send({"type": "error", "text": problem})
                    await trio.sleep(0.05)  # at most 20 messages a second
                nursery.cancel_scope.cancel()
    finally:
        events.unwatch(event_id, viewer)
        outbox.close()
