"""A real ``bughouse server`` holding many connections stops on SIGTERM, telling each.

Five tables play (a line-lobby guest and three line-lobby bots at each),
sixty table pages watch; on SIGTERM every page is closed with 1001, every
line connection hears its game's end, ``unseated`` and ``error the server
is stopping`` before its connection ends, the games so far are in the BPGN
files and the server says so and exits 143.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import pytest
import trio
import wsproto.events as ws_events
from serve_helpers import reap
from test_server_lobby import LobbyServer, Socket

from bughouse_arbiter.bpgn.read import read_games

TABLES = 5
PAGES = 60
TC = "180+0"


class Line:
    """A line-lobby connection that answers the handshake and keeps every line."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.lines: list[str] = []
        self.playing = trio.Event()

    @classmethod
    async def open(cls, port: int, hello: str) -> Line:
        line = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await line.send(hello)
        assert (await line.readline() or "").startswith("hello ok"), line.lines
        return line

    async def send(self, *lines: str) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.stream.send_all("".join(f"{text}\n" for text in lines).encode())

    async def readline(self) -> str | None:
        while (end := self.buffer.find(b"\n")) < 0:
            try:
                chunk = await self.stream.receive_some(65536)
            except trio.BrokenResourceError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
        text = self.buffer[:end].decode()
        del self.buffer[: end + 1]
        self.lines.append(text)
        return text

    async def play(self) -> None:
        """Answers the handshake (no moves: the clocks run) until the connection ends."""
        while (text := await self.readline()) is not None:
            if text == "bug 1":
                await self.send("id name idle", "bugok")
            elif text == "isready":
                await self.send("readyok")
            elif text.startswith("newgame "):
                self.playing.set()


async def watch(page: Socket, codes: list[int]) -> None:
    """Reads a page (answering pings) until it is closed; keeps the close code."""
    while True:
        event = await page.event()
        if isinstance(event, ws_events.CloseConnection):
            codes.append(event.code)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await page.stream.send_all(page.ws.send(event.response()))
            await page.stream.aclose()
            return


@pytest.mark.slow
async def test_a_busy_server_tells_every_page_and_line_connection_as_it_stops(
    tmp_path: Path,
) -> None:
    limit = str(PAGES + 40)
    server = LobbyServer(
        tmp_path, "--limit", f"pages={limit}", "--limit", f"per_address={limit}",
        "--limit", f"connections={limit}",
    )  # fmt: skip
    lines: list[Line] = []
    codes: list[int] = []
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(60):
                for index in range(TABLES * 3):
                    lines.append(await Line.open(server.line_port, f"bot b{index} tc={TC}"))
                tables = []
                for index in range(TABLES):
                    host = await Line.open(server.line_port, f"guest g{index}")
                    await host.send(f"create {TC}")
                    created = await host.readline() or ""
                    assert created.startswith("created "), host.lines
                    tables.append(created.split()[1])
                    await host.send(f"sit {tables[-1]} A-white", f"start {tables[-1]}")
                    lines.append(host)
                for line in lines:
                    nursery.start_soon(line.play)
                for line in lines:
                    await line.playing.wait()
                for index in range(PAGES):
                    page = await Socket.open(server.port, f"/table/{tables[index % TABLES]}/ws")
                    nursery.start_soon(watch, page, codes)
                assert server.process is not None and server.process.stdout is not None
                server.process.send_signal(signal.SIGTERM)
                said = b""
                while chunk := await server.process.stdout.receive_some(4096):
                    said += chunk
                assert await server.process.wait() == 128 + signal.SIGTERM
                while len(codes) < PAGES:
                    await trio.sleep(0.05)
        finally:
            assert server.process is not None
            await reap(server.process)
            nursery.cancel_scope.cancel()
    assert codes == [1001] * PAGES
    for line in lines:
        assert line.lines[-1] == "error the server is stopping", line.lines[-4:]
        tail = line.lines[-6:]
        assert any(text.startswith("gameover result * ") for text in tail), tail
        assert any(text.startswith("unseated ") for text in tail), tail
    assert said.decode().splitlines()[-1] == (
        f"stopped (SIGTERM): the games so far are in {server.out}/"
    )
    for table in tables:
        (game,) = read_games((server.out / f"{table}.bpgn").read_text())
        assert game.tags["Result"] == "*"
