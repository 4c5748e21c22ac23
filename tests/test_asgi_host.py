"""``serve_asgi``: a Starlette app under Hypercorn's trio worker, in-process on loopback.

Spoken to with raw HTTP and a ``wsproto`` client: the bounds are Hypercorn's
(head size, message size, idle and read timeouts), TLS with a certificate
made for the test (``trustme``), and a shutdown that lets the app close its
sockets and returns.
"""

from __future__ import annotations

import ssl
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import wsproto
import wsproto.events as ws_events
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect
from tls_files import certificate

from bughouse_arbiter.net.asgi_host import WebBounds, serve_asgi
from bughouse_arbiter.net.tcp import ServeError


class EchoApp:
    """``GET /`` says hello; ``/ws`` echoes text until the server stops (``on_stop``
    closes the sockets with 1001 and returns once they are closed, unless ``stubborn``)."""

    def __init__(self, *, stubborn: bool = False) -> None:
        self.stubborn = stubborn
        self.scopes: set[trio.CancelScope] = set()
        self.changed = trio.Event()
        self.stopped = False
        self.app = Starlette(
            routes=[
                Route("/", self.hello),
                WebSocketRoute("/ws", self.echo),
                WebSocketRoute("/flood", self.flood),
            ]
        )
        self.flood_ended = trio.Event()

    async def hello(self, request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"hello over {request.url.scheme}\n")

    async def echo(self, socket: WebSocket) -> None:
        await socket.accept()
        with trio.CancelScope() as scope:
            self.scopes.add(scope)
            try:
                while True:
                    await socket.send_text(await socket.receive_text())
            except WebSocketDisconnect:
                return
            finally:
                self.scopes.discard(scope)
                self.changed.set()
        await socket.close(1001, "the server is stopping")

    async def flood(self, socket: WebSocket) -> None:
        """Sends and sends; ends when the peer is gone."""
        await socket.accept()
        async with trio.open_nursery() as nursery:

            async def until_gone() -> None:
                while (await socket.receive())["type"] != "websocket.disconnect":
                    pass
                nursery.cancel_scope.cancel()

            nursery.start_soon(until_gone)
            while True:
                await socket.send_text("x" * 65536)
                await trio.sleep(0)
        self.flood_ended.set()

    async def on_stop(self) -> None:
        self.stopped = True
        if self.stubborn:
            await trio.sleep_forever()
        for scope in self.scopes:
            scope.cancel()
        while self.scopes:
            self.changed = trio.Event()
            await self.changed.wait()


async def start(
    nursery: trio.Nursery, echo: EchoApp, bounds: WebBounds | None = None, **tls: str
) -> int:
    port: int = await nursery.start(
        lambda task_status: serve_asgi(
            echo.app,
            host="127.0.0.1",
            port=0,
            bounds=bounds,
            on_stop=echo.on_stop,
            task_status=task_status,
            **tls,
        )
    )
    return port


async def http(stream: trio.abc.Stream, request: bytes) -> bytes:
    await stream.send_all(request)
    data = b""
    with trio.fail_after(10):
        try:
            while chunk := await stream.receive_some(65536):
                data += chunk
        except trio.BrokenResourceError:
            pass
    return data


class Client:
    def __init__(self, stream: trio.abc.Stream, *, pong: bool = True) -> None:
        self.stream = stream
        self.pong = pong
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)

    @classmethod
    async def open(cls, stream: trio.abc.Stream, *, pong: bool = True) -> Client:
        client = cls(stream, pong=pong)
        await stream.send_all(client.ws.send(ws_events.Request(host="localhost", target="/ws")))
        assert isinstance(await client.event(), ws_events.AcceptConnection)
        return client

    async def event(self) -> ws_events.Event | None:
        """The next event other than a ping (answered as a browser does); None at the end."""
        with trio.fail_after(30):
            while True:
                for event in self.ws.events():
                    if isinstance(event, ws_events.Ping):
                        if self.pong:
                            await self.stream.send_all(self.ws.send(event.response()))
                        continue
                    if isinstance(event, ws_events.CloseConnection):
                        await self.stream.send_all(self.ws.send(event.response()))
                    return event
                try:
                    data = await self.stream.receive_some(65536)
                except trio.BrokenResourceError:
                    data = b""
                if not data:
                    return None
                self.ws.receive_data(data)

    async def send(self, text: str) -> None:
        await self.stream.send_all(self.ws.send(ws_events.TextMessage(data=text)))


async def test_requests_and_sockets_are_served_within_hypercorns_bounds() -> None:
    echo = EchoApp()
    async with trio.open_nursery() as nursery:
        port = await start(nursery, echo, WebBounds(max_head=4096, max_message=1000))
        tcp = trio.open_tcp_stream
        answer = await http(
            await tcp("127.0.0.1", port),
            b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        )
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hello over http\n")
        # A head still incomplete past the bound (h11 checks what is buffered) gets no answer.
        huge = b"GET / HTTP/1.1\r\nHost: localhost\r\nX: " + b"a" * 200_000 + b"\r\n\r\n"
        assert b"hello" not in await http(await tcp("127.0.0.1", port), huge)
        junk = await http(await tcp("127.0.0.1", port), b"\x00\xff junk\r\n\r\n")
        assert b"hello" not in junk
        client = await Client.open(await tcp("127.0.0.1", port))
        await client.send("x" * 1000)
        echoed = await client.event()
        assert isinstance(echoed, ws_events.TextMessage) and echoed.data == "x" * 1000
        await client.send("x" * 1001)
        closing = await client.event()
        assert isinstance(closing, ws_events.CloseConnection) and closing.code == 1009
        nursery.cancel_scope.cancel()


async def test_an_idle_connection_and_a_socket_that_answers_no_ping_are_closed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    echo = EchoApp()
    async with trio.open_nursery() as nursery:
        port = await start(nursery, echo, WebBounds(idle_timeout=4, ping_every=3))
        idle = await trio.open_tcp_stream("127.0.0.1", port)
        began = trio.current_time()
        with trio.fail_after(60):
            assert await idle.receive_some(100) == b""
        assert trio.current_time() - began == pytest.approx(4, abs=0.1)
        # A page that reads but answers no ping: cut once nothing came from it for two pings.
        silent = await Client.open(await trio.open_tcp_stream("127.0.0.1", port), pong=False)
        began = trio.current_time()
        assert await silent.event() is None
        assert trio.current_time() - began == pytest.approx(6, abs=0.1)
        # One that answers stays.
        alive = await Client.open(await trio.open_tcp_stream("127.0.0.1", port))
        with trio.move_on_after(20):
            await alive.event()
        await alive.send("still here")
        answer = await alive.event()
        assert isinstance(answer, ws_events.TextMessage) and answer.data == "still here"
        nursery.cancel_scope.cancel()


async def test_a_peer_that_reads_nothing_loses_its_connection() -> None:
    echo = EchoApp()
    async with trio.open_nursery() as nursery:
        port = await start(nursery, echo, WebBounds(send_timeout=1))
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        await stream.send_all(ws.send(ws_events.Request(host="localhost", target="/flood")))
        # It reads nothing more: once the server's sends wait past the bound, the socket is over.
        with trio.fail_after(30):
            await echo.flood_ended.wait()
        await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_cancelling_stops_the_server_gracefully_and_frees_the_port(
    autojump_clock: trio.testing.MockClock,
) -> None:
    for stubborn in (False, True):
        echo = EchoApp(stubborn=stubborn)
        seen: list[ws_events.Event | None] = []
        async with trio.open_nursery() as reader:
            async with trio.open_nursery() as nursery:
                port = await start(nursery, echo, WebBounds(graceful=5))
                client = await Client.open(await trio.open_tcp_stream("127.0.0.1", port))
                await client.send("hi")
                assert isinstance(await client.event(), ws_events.TextMessage)

                async def read(client: Client = client, seen: list[Any] = seen) -> None:
                    seen.append(await client.event())  # as a browser reads

                reader.start_soon(read)
                nursery.cancel_scope.cancel()
                stopped = trio.current_time()
            assert echo.stopped
        [closing] = seen
        if stubborn:  # cut once the grace is over
            assert trio.current_time() - stopped == pytest.approx(5, abs=0.1)
            assert closing is None
        else:  # the app closed its socket when told, and the server stopped at once
            assert trio.current_time() - stopped < 0.1
            assert isinstance(closing, ws_events.CloseConnection) and closing.code == 1001
        # The server listens no more, and the same port can be served again at once.
        with pytest.raises(OSError):
            await trio.open_tcp_stream("127.0.0.1", port)
        async with trio.open_nursery() as nursery:
            again = await nursery.start(partial(serve_asgi, echo.app, host="127.0.0.1", port=port))
            assert again == port
            nursery.cancel_scope.cancel()


async def test_a_taken_port_and_a_bad_certificate_are_one_clear_error(tmp_path: Path) -> None:
    echo = EchoApp()
    async with trio.open_nursery() as nursery:
        port = await start(nursery, echo)
        taken = f"cannot listen on 127.0.0.1:{port}: the port is in use"
        with pytest.raises(ServeError, match=taken):
            await serve_asgi(echo.app, host="127.0.0.1", port=port)
        nursery.cancel_scope.cancel()
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ServeError, match="not a PEM certificate and its key"):
        await serve_asgi(echo.app, host="127.0.0.1", port=0, certfile=str(junk), keyfile=str(junk))
    with pytest.raises(ServeError, match="no such file"):
        await serve_asgi(
            echo.app, host="127.0.0.1", port=0, certfile=str(tmp_path / "none"), keyfile=str(junk)
        )
    with pytest.raises(ServeError, match="go together"):
        await serve_asgi(echo.app, host="127.0.0.1", port=0, certfile=str(junk))


async def test_with_a_certificate_it_speaks_tls_only(tmp_path: Path) -> None:
    cafile, certfile, keyfile = certificate(tmp_path)
    echo = EchoApp()
    async with trio.open_nursery() as nursery:
        port = await start(nursery, echo, certfile=certfile, keyfile=keyfile)
        context = ssl.create_default_context(cafile=cafile)

        async def tls() -> trio.SSLStream[Any]:
            stream = trio.SSLStream(
                await trio.open_tcp_stream("127.0.0.1", port), context, server_hostname="localhost"
            )
            await stream.do_handshake()
            return stream

        answer = await http(
            await tls(), b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hello over https\n")
        client = await Client.open(await tls())
        await client.send("secret")
        echoed = await client.event()
        assert isinstance(echoed, ws_events.TextMessage) and echoed.data == "secret"
        # Plain HTTP to the TLS port gets nothing served.
        plain = await http(
            await trio.open_tcp_stream("127.0.0.1", port), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assert b"hello" not in plain
        # A client that trusts another CA refuses the server.
        other = tmp_path / "other"
        other.mkdir()
        stranger = ssl.create_default_context(cafile=certificate(other)[0])
        stream = trio.SSLStream(
            await trio.open_tcp_stream("127.0.0.1", port), stranger, server_hostname="localhost"
        )
        with pytest.raises(trio.BrokenResourceError):
            await stream.do_handshake()
        nursery.cancel_scope.cancel()
