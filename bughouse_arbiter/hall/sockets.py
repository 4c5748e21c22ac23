"""A Starlette WebSocket with the face the live page's ``PageSession`` expects.

``send``, ``receive`` (the next text message, or None once closed),
``close``, ``keep_alive``, ``closed`` and ``gone`` (why the server gave up
on the peer: it did not read). Hypercorn pings the peer itself
(``websocket_ping_interval``); a send the peer does not take within
``send_timeout`` ends the socket.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

#: The longest text message taken from a page, in characters.
MAX_MESSAGE = 16_384


class AsgiSocket:
    """See the module docstring."""

    def __init__(self, socket: WebSocket, *, send_timeout: float = 10.0) -> None:
        self.socket = socket
        self.send_timeout = send_timeout
        self.closed = False
        self.gone: str | None = None
        self._lock = trio.Lock()

    async def accept(self) -> None:
        await self.socket.accept()

    async def receive(self) -> str | None:
        while not self.closed:
            try:
                message = await self.socket.receive()
            except Exception:  # the connection is gone, however the stack says so
                self.closed = True
                return None
            kind = message.get("type")
            if kind == "websocket.disconnect":
                self.closed = True
                return None
            text = message.get("text")
            if text is None:
                await self.close(1003, "text only")
                return None
            if len(text) > MAX_MESSAGE:
                await self.close(1009, "message too big")
                return None
            return str(text)
        return None

    async def send(self, text: str) -> None:
        if self.closed:
            return
        async with self._lock:
            with trio.move_on_after(self.send_timeout) as waited:
                try:
                    await self.socket.send_text(text)
                except Exception:
                    self.closed = True
                    return
        if waited.cancelled_caught:
            self.gone = self.gone or f"it read nothing for {self.send_timeout:g} s"
            await self.close(1008, "not reading")

    async def keep_alive(self, every: float) -> None:
        """Nothing to do: the server pings (kept for the ``PageSession`` interface)."""
        await trio.sleep_forever()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception), trio.move_on_after(2):
            await self.socket.close(code, reason)
