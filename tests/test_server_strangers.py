"""Strangers on a real ``bughouse server``'s line port: one address holds at most its
share of identities, a name online is taken in every letter case, and the chat
limit belongs to the name, not the connection."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from serve_helpers import reap
from test_server_lobby import LobbyServer, guest

from bughouse_arbiter.net.limits import Limits

GUARD = 60


async def _hello(port: int, line: str) -> tuple[trio.SocketStream, str]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all((line + "\n").encode())
    got = b""
    while b"\n" not in got:
        chunk = await stream.receive_some(4096)
        if not chunk:
            break
        got += chunk
    return stream, got.split(b"\n", 1)[0].decode()


@pytest.mark.slow
async def test_one_address_cannot_fill_the_lobby_nor_take_a_name_in_another_case(
    tmp_path: Path,
) -> None:
    server = LobbyServer(tmp_path)
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            await server.start(nursery)
            try:
                held = []
                stream, said = await _hello(server.line_port, "guest mallory")
                assert said == "hello ok mallory"
                held.append(stream)
                stream, said = await _hello(server.line_port, "guest Mallory")
                assert "taken" in said and said.startswith("hello refused"), said
                for n in range(1, Limits().per_address):
                    stream, said = await _hello(server.line_port, f"guest g{n}")
                    assert said == f"hello ok g{n}"
                    held.append(stream)
                stream, said = await _hello(server.line_port, "guest onemore")
                assert said == "hello refused too many players from your address"
                for stream in held:
                    await stream.aclose()
            finally:
                assert server.process is not None
                await reap(server.process)


@pytest.mark.slow
async def test_reconnecting_does_not_refill_the_chat_limit(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            await server.start(nursery)
            try:
                page = await guest(server.port, "chatty")
                for _ in range(5):  # the burst
                    await page.send({"type": "chat", "text": "hi"})
                    await page.until("chat")
                await page.aclose()
                for _ in range(100):  # until the lobby saw it leave
                    try:
                        page = await guest(server.port, "Chatty")
                        break
                    except (AssertionError, EOFError):
                        await trio.sleep(0.05)
                else:
                    raise AssertionError("the name never came free")
                refused = await page.answer({"type": "chat", "text": "hi again"})
                assert refused == "too many chat messages: wait a moment"
                await page.aclose()
            finally:
                assert server.process is not None
                await reap(server.process)
