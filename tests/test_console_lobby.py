"""The console's lobby prompt (``server.console_lobby``) over a scripted link."""

from __future__ import annotations

import io

import trio

from bughouse_arbiter.clients.console_lobby import play_in_lobby
from bughouse_arbiter.protocol import RawLine
from bughouse_arbiter.ui.console_screen import Style


class QuitClosesAtOnce:
    """A server that ends the link on ``quit`` before the client's send has returned
    (as a real socket can: the bytes are out before the sender runs again)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self._gone = trio.Event()

    async def send(self, line: str) -> None:
        self.sent.append(line)
        if line == "quit":
            self._gone.set()
            await trio.sleep(0.05)  # the reader sees the end first

    async def send_many(self, lines: list[str]) -> None:
        for line in lines:
            await self.send(line)

    async def receive(self) -> RawLine | None:
        if self.sent == ["tables"]:
            self.sent.append("")  # the first answer, once
            return RawLine("end", 3)
        await self._gone.wait()
        return None

    async def aclose(self) -> None:
        pass


async def test_quit_ends_with_status_0_when_the_server_closes_the_link_at_once() -> None:
    link = QuitClosesAtOnce()
    out = io.StringIO()
    with trio.fail_after(10):
        status = await play_in_lobby(
            link,  # type: ignore[arg-type]
            "tester",
            interactive=False,
            style=Style(unicode=False, color=False),
            out=out,
            stdin=io.StringIO("quit\n"),
        )
    assert "quit" in link.sent
    assert "the server closed the connection" not in out.getvalue()
    assert status == 0
