"""An engine that plays as a WebSocket client: the endpoint is served here, for its seat.

Some engines (BughouseAlphaZero, TandemTurtle) only ever speak to
tinyChessServer's ``/websocketclient`` endpoint, one text message a line.
``WebSocketEngine`` is an ``EngineProcess`` whose lines go over such an
endpoint instead of the pipes: ``start`` listens on 127.0.0.1 (a free port),
puts the address (``ws://127.0.0.1:PORT/websocketclient?A``, the query naming
the seat as the server's does) where the command has ``{ws}``, and runs the
command. The engine connects; each of its text messages is a line in, each
line out is one message. Everything else is the process's: its own output and
stderr go to the log, its end is the engine's end, and ``aclose`` stops its
process group as for any engine.

One connection at a time. An engine that closes its connection and opens a
new one (TandemTurtle restarts itself after every game) gets a fresh
handshake: ``on_reconnect`` is called as the new connection opens, and the
lines it sends go first, before those sent while nobody was connected.
The WebSocket itself is wsproto's sans-IO machine over a trio stream.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Sequence

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Ping,
    Pong,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from ..errors import EngineFailed
from ..protocol import RawLine
from ..protocol.flood import Keep
from .process import EngineProcess, Log

#: Where the command wants the endpoint's address.
PLACEHOLDER = "{ws}"
PATH = "/websocketclient"
_RECEIVE = 65536
#: What the one sending task sends: lines (encoded, LF-ended) or a control answer.
Outgoing = bytes | Pong | CloseConnection


def wants_websocket(argv: Sequence[str]) -> bool:
    """True if the command has the ``{ws}`` placeholder (a WebSocket engine)."""
    return any(PLACEHOLDER in arg for arg in argv)


class WebSocketEngine(EngineProcess):
    """An engine process whose protocol lines go over a WebSocket it opens to us."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        query: str = "",
        cwd: str | os.PathLike[str] | None = None,
        label: str | None = None,
        log: Log | None = None,
        keep: Keep | None = None,
    ) -> None:
        super().__init__(argv, cwd=cwd, label=label, log=log, keep=keep)
        self.query = query
        self.url = ""
        #: Called when a new connection opens after the first one.
        self.on_reconnect: Callable[[], None] | None = None
        self.connections = 0
        #: A connection is open now.
        self.connected = False
        self._changed = trio.Event()
        self._pending: list[bytes] = []  # lines for the next connection
        self._front: list[bytes] | None = None  # lines sent from on_reconnect
        self._outbox: trio.MemorySendChannel[Outgoing] | None = None

    async def start(self, nursery: trio.Nursery, *, on_lines: object = None) -> None:
        try:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        except OSError as exc:
            raise EngineFailed(f"cannot listen for the engine's WebSocket: {exc}") from exc
        listener = listeners[0]
        port = listener.socket.getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}{PATH}" + (f"?{self.query}" if self.query else "")
        self.argv = [arg.replace(PLACEHOLDER, self.url) for arg in self.argv]
        scope = trio.CancelScope()
        self._scopes.append(scope)
        try:
            await super().start(nursery)
        except BaseException:
            await listener.aclose()
            raise
        nursery.start_soon(self._run_in, scope, lambda: self._serve(listener))
        self._note(f"serving its WebSocket at {self.url}")

    # -- lines out: to the connection, or kept for the next one ------------------------

    def _write(self, data: bytes) -> None:
        if self._front is not None:
            self._front.append(data)
        elif self._outbox is not None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                self._outbox.send_nowait(data)
                return
            self._pending.append(data)
        else:
            self._pending.append(data)

    # -- its own output is only logged --------------------------------------------------

    def _deliver(self, lines: list[RawLine], now: float) -> None:
        for line in lines:
            self._note(f"prints: {line.text[:200]}")

    # -- the endpoint --------------------------------------------------------------------

    async def _serve(self, listener: trio.SocketListener) -> None:
        async with listener:
            while True:
                stream = await listener.accept()
                await self._connection(stream)

    async def _connection(self, stream: trio.SocketStream) -> None:
        try:
            await self._talk(stream)
        except (LocalProtocolError, RemoteProtocolError) as exc:
            # A client that breaks the protocol loses its connection, nothing more.
            self._note(f"WebSocket connection dropped: {exc}")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._note("WebSocket connection lost during its opening")

    async def _talk(self, stream: trio.SocketStream) -> None:
        ws = WSConnection(ConnectionType.SERVER)
        async with stream:
            if not await self._open(ws, stream):
                return
            self.connections += 1
            self._note(f"WebSocket connection {self.connections} open")
            self._change(connected=True)
            lines = list(self._pending)
            self._pending.clear()
            if self.connections > 1 and self.on_reconnect is not None:
                self._front = []
                try:
                    self.on_reconnect()
                finally:
                    lines = self._front + lines
                    self._front = None
            send, receive = trio.open_memory_channel[Outgoing](math.inf)
            for data in lines:
                send.send_nowait(data)
            self._outbox = send
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._send_messages, ws, stream, receive, nursery)
                    await self._read_messages(ws, stream, send)
                    nursery.cancel_scope.cancel()
            finally:
                self._outbox = None
                self._change(connected=False)
                send.close()
                # What it did not get waits for its next connection.
                while True:
                    try:
                        item = receive.receive_nowait()
                    except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                        break
                    if isinstance(item, bytes):
                        self._pending.append(item)
                self._note("WebSocket connection closed")

    def _change(self, *, connected: bool) -> None:
        self.connected = connected
        self._changed.set()
        self._changed = trio.Event()

    async def connection_changed(self) -> None:
        """Returns when a connection next opens or closes."""
        await self._changed.wait()

    async def _open(self, ws: WSConnection, stream: trio.SocketStream) -> bool:
        """The opening handshake; False if the client went away first."""
        while True:
            try:
                data = await stream.receive_some(_RECEIVE)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return False
            if not data:
                return False
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, Request):
                    await stream.send_all(ws.send(AcceptConnection()))
                    return True

    async def _send_messages(
        self,
        ws: WSConnection,
        stream: trio.SocketStream,
        receive: trio.MemoryReceiveChannel[Outgoing],
        nursery: trio.Nursery,
    ) -> None:
        """The one task that writes to the connection: each line a text message."""
        try:
            async for item in receive:
                if isinstance(item, CloseConnection):
                    await stream.send_all(ws.send(item))
                    break
                if not isinstance(item, bytes):
                    await stream.send_all(ws.send(item))
                    continue
                if ws.state is not ConnectionState.OPEN:
                    self._pending.append(item)  # closing: for its next connection
                    continue
                text = item.decode(errors="replace")
                out = b"".join(ws.send(TextMessage(data=line)) for line in text.splitlines())
                await stream.send_all(out)
                self._wrote(len(item))
        except (trio.BrokenResourceError, trio.ClosedResourceError, LocalProtocolError):
            pass
        nursery.cancel_scope.cancel()

    async def _read_messages(
        self,
        ws: WSConnection,
        stream: trio.SocketStream,
        answers: trio.MemorySendChannel[Outgoing],
    ) -> None:
        """Hands each text message on as lines until the client closes."""
        parts: list[str] = []
        while True:
            try:
                data = await stream.receive_some(_RECEIVE)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
            ws.receive_data(data or None)
            for event in ws.events():
                if isinstance(event, TextMessage | BytesMessage):
                    piece = event.data
                    text = piece if isinstance(piece, str) else piece.decode(errors="replace")
                    parts.append(text)
                    if event.message_finished:
                        self._hand_on("".join(parts))
                        parts.clear()
                elif isinstance(event, Ping):
                    answers.send_nowait(event.response())
                elif isinstance(event, CloseConnection):
                    if ws.state is ConnectionState.REMOTE_CLOSING:
                        answers.send_nowait(event.response())
                        await trio.sleep_forever()  # the sender ends it once answered
                    return
            if not data:
                return

    def _hand_on(self, message: str) -> None:
        for text in message.splitlines() or [""]:
            line = RawLine(text=text[: self.max_line], length=len(text.encode()))
            if self.log is not None:
                self.log(f"{self.label} > {text[:1000]}")
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                self._lines_out.send_nowait(line)
