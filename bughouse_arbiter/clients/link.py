"""The client end of a network seat: dial, authenticate, exchange lines.

``open_seat(host, port, seat, token)`` connects, sends ``auth <seat> <token>
ping`` and waits for ``auth ok``; a refusal raises ``ConnectRefused`` with
the server's reason. The ``ClientLink`` it returns answers the server's
``ping <n>`` with ``pong <n>`` itself (so the measured lag is the network's,
not the engine's thinking) and hands every other line on. With a TLS context
(``connect --tls``, ``tls.client_context``) the connection is TLS first, the
server's certificate checked against the host dialled.
"""

from __future__ import annotations

import ssl

import trio

from ..errors import UsageError
from ..net.streams import read_lines
from ..net.tls import TlsRefused, close_quietly, dial_tls
from ..protocol import MAX_LINE, LineBuffer, RawLine

AUTH_TIMEOUT = 10.0


class ConnectRefused(Exception):
    """The server could not be reached, or refused the seat."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as (host, port); UsageError if not."""
    host, sep, port_text = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host:
        raise UsageError(f"expected HOST:PORT, not {text!r}")
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"the port in {text!r} is not a number") from None
    if not 0 < port < 65536:
        raise UsageError(f"port {port} is out of range")
    return host, port


class ClientLink:
    """An authenticated connection to a ``bughouse serve`` seat (or to the line lobby)."""

    def __init__(self, stream: trio.abc.Stream, buffer: LineBuffer, pending: list[RawLine]):
        self.stream = stream
        self._buffer = buffer
        self._pending = pending
        self._send_lock = trio.Lock()
        self._eof = False

    async def send(self, line: str) -> None:
        async with self._send_lock:
            await self.stream.send_all((line + "\n").encode())

    async def send_many(self, lines: list[str]) -> None:
        if lines:
            async with self._send_lock:
                await self.stream.send_all("".join(line + "\n" for line in lines).encode())

    async def receive(self) -> RawLine | None:
        """The next line for the engine (pings answered here), or None at the end."""
        while True:
            line = await self._next()
            if line is None:
                return None
            words = line.text.split()
            if len(words) == 2 and words[0] == "ping":
                try:
                    await self.send(f"pong {words[1]}")
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return None
                continue
            return line

    async def _next(self) -> RawLine | None:
        while not self._pending:
            if self._eof:
                return None
            lines, self._eof = await read_lines(self.stream, self._buffer)
            self._pending.extend(lines)
        return self._pending.pop(0)

    async def aclose(self) -> None:
        await close_quietly(self.stream)


async def open_seat(
    host: str,
    port: int,
    seat: str,
    token: str,
    *,
    human: bool = False,
    tls: ssl.SSLContext | None = None,
) -> ClientLink:
    """Connects (over TLS with ``tls``) and authenticates (``human``: a person plays);
    raises ``ConnectRefused``."""
    try:
        raw = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        raise ConnectRefused(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from exc
    stream: trio.abc.Stream = raw
    if tls is not None:
        try:
            stream = await dial_tls(raw, tls, host, AUTH_TIMEOUT)
        except TlsRefused as exc:
            raise ConnectRefused(f"{host}:{port}: {exc}") from None
    buffer = LineBuffer(MAX_LINE)
    pending: list[RawLine] = []
    link = ClientLink(stream, buffer, pending)
    try:
        with trio.fail_after(AUTH_TIMEOUT):
            await link.send(f"auth {seat} {token} ping{' human' if human else ''}")
            answer = await link._next()
    except trio.TooSlowError:
        await link.aclose()
        raise ConnectRefused(f"{host}:{port} did not answer the auth line") from None
    except (trio.BrokenResourceError, OSError) as exc:
        await link.aclose()
        raise ConnectRefused(f"{host}:{port} closed the connection: {exc}") from exc
    text = answer.text.strip() if answer is not None else ""
    if not text.startswith("auth ok"):
        await link.aclose()
        if not text and tls is None:
            raise ConnectRefused(
                f"{host}:{port} closed the connection without answering "
                "(if it speaks TLS, connect with --tls)"
            )
        reason = text.removeprefix("auth refused").strip() or text or "the connection was closed"
        raise ConnectRefused(f"seat refused: {reason}")
    return link
