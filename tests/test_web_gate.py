"""``web.gate``: the Starlette pieces every web app of the server stands behind.

A small app on ``serve_asgi`` (loopback), spoken to with raw HTTP and wsproto:
the Host/Origin gate's 403 and its line, the requests pool's 503 for the
oldest request, and text-only sockets.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import trio
import wsproto
import wsproto.events as ws_events
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute

from bughouse_arbiter.net.admission import Pool
from bughouse_arbiter.net.asgi_host import serve_asgi
from bughouse_arbiter.net.gate import (
    BUSY,
    FOREIGN_ORIGIN,
    WRONG_HOST,
    RequestGate,
    SiteGate,
    TextSocket,
)


class Gated:
    """``/`` answers at once, ``/slow`` once ``release`` is set; ``/ws`` echoes text."""

    def __init__(self, pool: Pool) -> None:
        self.refused: list[tuple[str, str]] = []
        self.evicted: list[Any] = []
        self.release = trio.Event()
        self.ended: list[str | None] = []
        self.app = Starlette(
            routes=[
                Route("/", self.hello),
                Route("/slow", self.slow),
                WebSocketRoute("/ws", self.echo),
            ],
            middleware=[
                Middleware(
                    SiteGate,
                    hosts=["127.0.0.1"],
                    allowed=["bughouse.example.org"],
                    on_refused=lambda scope, what, value: self.refused.append((what, value)),
                ),
                Middleware(RequestGate, pool=pool, on_evicted=self.evicted.append),
            ],
        )

    async def hello(self, request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello\n")

    async def slow(self, request: Any) -> PlainTextResponse:
        await self.release.wait()
        return PlainTextResponse("at last\n")

    async def echo(self, websocket: Any) -> None:
        socket = TextSocket(websocket)
        await socket.accept()
        while (text := await socket.receive()) is not None:
            await socket.send(text)
        self.ended.append(socket.gone)


async def http(port: int, target: str, host: str = "localhost") -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        head = f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        await stream.send_all(head.encode())
        data = b""
        with trio.fail_after(10):
            while chunk := await stream.receive_some(65536):
                data += chunk
    return data


async def upgrade(port: int, origin: str) -> tuple[trio.SocketStream, wsproto.WSConnection, Any]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    request = ws_events.Request(
        host="localhost", target="/ws", extra_headers=[(b"origin", origin.encode())]
    )
    await stream.send_all(ws.send(request))
    with trio.fail_after(10):
        while True:
            for event in ws.events():
                return stream, ws, event
            ws.receive_data(await stream.receive_some(65536) or None)


async def test_a_foreign_host_or_origin_gets_403_and_one_line() -> None:
    gated = Gated(Pool(8, 8, evict=True))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve_asgi, gated.app, host="127.0.0.1", port=0))
        assert (await http(port, "/")).endswith(b"hello\n")
        assert (await http(port, "/", host="bughouse.example.org")).endswith(b"hello\n")
        wrong = await http(port, "/", host="evil.example.com")
        assert wrong.startswith(b"HTTP/1.1 403") and wrong.endswith(WRONG_HOST.encode() + b"\n")
        _, _, accepted = await upgrade(port, f"http://127.0.0.1:{port}")
        assert isinstance(accepted, ws_events.AcceptConnection)
        stream, _, rejected = await upgrade(port, "http://evil.example.com")
        assert isinstance(rejected, ws_events.RejectConnection) and rejected.status_code == 403
        body = b""
        with trio.fail_after(10):
            while chunk := await stream.receive_some(65536):
                body += chunk
        assert body.endswith(FOREIGN_ORIGIN.encode() + b"\n")
        assert gated.refused == [
            ("wrong Host", "evil.example.com"),
            ("foreign Origin", "http://evil.example.com"),
        ]
        nursery.cancel_scope.cancel()


async def test_past_the_pool_the_oldest_request_being_answered_gets_a_503_line() -> None:
    gated = Gated(Pool(2, 2, evict=True))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve_asgi, gated.app, host="127.0.0.1", port=0))
        answers: list[bytes] = []

        async def slow() -> None:
            answers.append(await http(port, "/slow"))

        nursery.start_soon(slow)
        await trio.sleep(0.2)
        nursery.start_soon(slow)
        await trio.sleep(0.2)
        # A third makes the oldest go at once; it is answered meanwhile.
        assert (await http(port, "/")).endswith(b"hello\n")
        with trio.fail_after(10):
            while not answers:
                await trio.sleep(0.05)
        assert answers[0].startswith(b"HTTP/1.1 503") and answers[0].endswith(BUSY.encode() + b"\n")
        assert len(gated.evicted) == 1
        gated.release.set()
        with trio.fail_after(10):
            while len(answers) < 2:
                await trio.sleep(0.05)
        assert answers[1].endswith(b"at last\n")
        nursery.cancel_scope.cancel()


async def test_a_socket_takes_text_and_a_binary_message_closes_it() -> None:
    gated = Gated(Pool(8, 8, evict=True))
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve_asgi, gated.app, host="127.0.0.1", port=0))
        stream, ws, _ = await upgrade(port, f"http://127.0.0.1:{port}")
        await stream.send_all(ws.send(ws_events.TextMessage(data="hi")))
        await stream.send_all(ws.send(ws_events.BytesMessage(data=b"\x00")))
        got: list[Any] = []
        with trio.fail_after(10):
            while len(got) < 2:
                got.extend(e for e in ws.events() if not isinstance(e, ws_events.Ping))
                if len(got) < 2:
                    ws.receive_data(await stream.receive_some(65536) or None)
        assert isinstance(got[0], ws_events.TextMessage) and got[0].data == "hi"
        assert isinstance(got[1], ws_events.CloseConnection) and got[1].code == 1003
        await stream.send_all(ws.send(got[1].response()))
        with trio.fail_after(10):
            while not gated.ended:
                await trio.sleep(0.05)
        assert gated.ended == [None]  # closed by the server, not gone silent
        nursery.cancel_scope.cancel()
