"""Strangers attack a real ``bughouse serve --web``; the seated player still plays to the result.

Each test starts the server with B-White remote and the three other seats
held by gated random movers (``gated_engine.py``: no move until the test
opens the gate), so the game stands still while an attack runs. The seat is
played by a scripted page (``WebSeat``, a WebSocket as the live page speaks
it) or by ``bughouse connect``; after the attack the gate opens, the seat
plays on and resigns, and the game file must show that result.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import wsproto
import wsproto.events as ws_events
from serve_helpers import ROOT, Server, reap

from bughouse_arbiter.bpgn.read import BpgnGame, read_games

TIMEOUT = 90
#: Moves the seat plays once the gate is open, before it resigns.
MOVES_AFTER = 3


def gated_server(tmp_path: Path, *args: str) -> tuple[Server, Path]:
    gate = tmp_path / "gate"
    engine = f"{sys.executable} {ROOT / 'tests' / 'gated_engine.py'} {gate}"
    server = Server(
        tmp_path,
        "--remote",
        "B-white",
        *[f"--engine={seat}={engine}" for seat in ("A-white", "A-black", "B-black")],
        "--tc",
        "120+0",
        "--rule",
        "reconnect_grace=30",
        *args,
    )
    return server, gate


async def start_web(nursery: trio.Nursery, server: Server) -> int:
    """Starts the server; its live page's port."""
    server.argv += ["--web", "0"]
    await server.start(nursery, remote_seats=1)
    page = next(line for line in server.lines if line.startswith("live page:"))
    found = re.search(r":(\d+)/$", page)
    assert found is not None
    return int(found.group(1))


def resigned_by_the_seat(server: Server) -> BpgnGame:
    """The game, which the seat (B-White) ended by resigning after playing its moves."""
    games = read_games(server.out.read_text())
    assert len(games) == 1
    game = games[0]
    assert game.tags["Termination"] == "resignation", game.tags
    assert game.tags["TerminationSeat"] == "WB" and game.tags["Result"] == "1-0"
    assert sum(m.board.value == "B" and m.white for m in game.moves) >= 1 + MOVES_AFTER
    return game


class WebSeat:
    """A page over a raw WebSocket: answers pings as a browser does."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.errors: list[str] = []
        self.state: dict[str, Any] = {}

    @classmethod
    async def open(cls, port: int, *, origin: str | None = None) -> WebSeat:
        page = cls(await trio.open_tcp_stream("127.0.0.1", port))
        origin = origin or f"http://127.0.0.1:{port}"
        request = ws_events.Request(
            host=f"127.0.0.1:{port}", target="/ws", extra_headers=[(b"origin", origin.encode())]
        )
        await page.stream.send_all(page.ws.send(request))
        assert isinstance(await page.event(), ws_events.AcceptConnection)
        return page

    async def event(self) -> ws_events.Event:
        while True:
            for event in self.ws.events():
                if isinstance(event, ws_events.Ping):
                    await self.stream.send_all(self.ws.send(event.response()))
                    continue
                return event
            self.ws.receive_data(await self.stream.receive_some(65536) or None)

    async def send(self, message: dict[str, Any] | str) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        await self.stream.send_all(self.ws.send(ws_events.TextMessage(data=text)))

    async def message(self) -> dict[str, Any]:
        while True:
            event = await self.event()
            if isinstance(event, ws_events.TextMessage):
                data: dict[str, Any] = json.loads(event.data)
                if data["type"] == "state":
                    self.state = data
                elif data["type"] == "error":
                    self.errors.append(data["text"])
                return data
            assert not isinstance(event, ws_events.CloseConnection), event

    async def read_on(self) -> None:
        """Reads (and answers pings) until cancelled."""
        while True:
            await self.message()

    async def answer(self, message: dict[str, Any] | str) -> str:
        """Sends ``message``; the error line it is answered with."""
        seen = len(self.errors)
        await self.send(message)
        while len(self.errors) == seen:
            await self.message()
        return self.errors[-1]

    async def sit(self, token: str) -> None:
        await self.send({"type": "sit", "seat": "b-white", "token": token})
        while (await self.message())["type"] != "seated":
            assert not any(e.startswith("cannot sit") for e in self.errors), self.errors

    async def play(self, moves: int) -> None:
        """Plays ``moves`` moves of the seat, each once it is to move."""
        played_at: int | None = None
        while moves:
            data = await self.message()
            you = data.get("you")
            if data["type"] != "state" or you is None or not you["toMove"] or not you["legal"]:
                continue
            count = data["boards"]["B"]["moves"]["count"]
            if count != played_at:
                await self.send({"type": "move", "uci": random.choice(you["legal"])})
                played_at, moves = count, moves - 1
        # The last move is on the board before the page goes on (a page that
        # closes at once may take its last move with it).
        while self.state["boards"]["B"]["moves"]["count"] == played_at:
            await self.message()

    async def resign(self) -> None:
        await self.send({"type": "resign"})
        while not self.state.get("result"):
            await self.message()

    async def aclose(self) -> None:
        with trio.move_on_after(1):
            await self.stream.send_all(self.ws.send(ws_events.CloseConnection(code=1001)))
        await self.stream.aclose()


async def http_status(port: int, target: str = "/", host: str | None = None) -> int:
    """The status of a plain GET (``host``: its Host header, by default the server's address)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        head = f"GET {target} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n\r\n"
        await stream.send_all(head.encode())
        data = b""
        while b"\r\n" not in data and (chunk := await stream.receive_some(65536)):
            data += chunk
    return int(data.split()[1])


async def upgrade_status(port: int, origin: str) -> int:
    """The status a WebSocket upgrade from a page at ``origin`` is answered with."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        request = ws_events.Request(
            host=f"127.0.0.1:{port}", target="/ws", extra_headers=[(b"origin", origin.encode())]
        )
        await stream.send_all(ws.send(request))
        while True:
            for event in ws.events():
                if isinstance(event, ws_events.RejectConnection):
                    return event.status_code
                assert isinstance(event, ws_events.AcceptConnection)
                return 101
            ws.receive_data(await stream.receive_some(65536) or None)


async def play_on(server: Server, seat: WebSeat, gate: Path) -> None:
    """Opens the gate; the seat plays its moves and resigns; the server ends."""
    gate.touch()
    await seat.play(MOVES_AFTER)
    await seat.resign()
    assert await server.wait() == 0, server.err
    await seat.aclose()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sender", "message", "answer"),
    [
        (
            "stranger",
            '{"type": "sit", "seat": "b-white", "token": "\\ud800"}',
            "not valid Unicode text (a lone surrogate)",
        ),
        (
            "seat",
            '{"type": "tell", "text": "\\ud800"}',
            "not valid Unicode text (a lone surrogate)",
        ),
        ("stranger", "[" * 2000 + "]" * 2000, "not JSON (nested too deeply)"),
    ],
    ids=["surrogate-token", "surrogate-tell", "deep-json"],
)
async def test_a_message_that_broke_the_server_is_answered_and_the_game_goes_on(
    tmp_path: Path, sender: str, message: str, answer: str
) -> None:
    server, gate = gated_server(tmp_path)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            port = await start_web(nursery, server)
            seat = await WebSeat.open(port)
            await seat.sit(server.tokens["b-white"])
            await seat.play(1)
            stranger = await WebSeat.open(port)
            assert await (seat if sender == "seat" else stranger).answer(message) == answer
            # The sender's page still works: it is answered again.
            assert (
                await stranger.answer('{"type": "dance"}')
                == "take a seat first ('dance' needs one)"
            )
            await stranger.aclose()
            await play_on(server, seat, gate)
    resigned_by_the_seat(server)
    assert "interrupted" not in server.out.read_text()


@pytest.mark.slow
async def test_stalled_websockets_cannot_keep_a_reloading_player_out(tmp_path: Path) -> None:
    server, gate = gated_server(tmp_path, "--limit", "ping=1")
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            port = await start_web(nursery, server)
            seat = await WebSeat.open(port)
            await seat.sit(server.tokens["b-white"])
            await seat.play(1)
            # 70 sockets upgraded that then never read nor send.
            stalled = []
            for _ in range(70):
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
                await stream.send_all(
                    ws.send(ws_events.Request(host=f"127.0.0.1:{port}", target="/ws"))
                )
                answer = b""
                while b"\r\n\r\n" not in answer:
                    answer += await stream.receive_some(1)
                assert answer.startswith(b"HTTP/1.1 101")
                stalled.append(stream)
            # The player reloads the page: its files, a new socket, and sits again.
            await seat.aclose()
            for target in ["/", "/assets/live.js", "/assets/chessground.min.js"]:
                assert await http_status(port, target) == 200
            seat = await WebSeat.open(port)
            await seat.sit(server.tokens["b-white"])
            # Every stalled socket is closed by the server (a watcher: no answer to its
            # pings), while the player's page reads on (a browser's does).
            async with trio.open_nursery() as reading:
                reading.start_soon(seat.read_on)
                for stream in stalled:
                    with trio.fail_after(20), contextlib.suppress(trio.BrokenResourceError):
                        while await stream.receive_some(65536):
                            pass
                    await stream.aclose()
                reading.cancel_scope.cancel()
            await play_on(server, seat, gate)
    resigned_by_the_seat(server)
    # Watchers past the pool were turned away: logged one by one, or counted once the
    # first ten refusals were written (those may all be stalled pages closed by then).
    assert "the table is full" in server.err or "table full: " in server.err


async def logged(server: Server, text: str) -> None:
    """Waits until the server's log holds ``text`` (its stderr is a file: polled)."""
    while text not in server.err:
        await trio.sleep(0.05)


async def idle_connections(port: int, opened: list[int]) -> None:
    """One stranger: opens a connection, says nothing, and opens another once it is closed."""
    while True:
        try:
            stream = await trio.open_tcp_stream("127.0.0.1", port)
        except OSError:
            await trio.sleep(0.1)
            continue
        opened[0] += 1
        async with stream:
            with trio.move_on_after(10), contextlib.suppress(trio.BrokenResourceError, OSError):
                while await stream.receive_some(1000):
                    pass
        await trio.sleep(0.2)


@pytest.mark.slow
async def test_idle_tcp_connections_cannot_keep_a_dropped_engine_out(tmp_path: Path) -> None:
    server, gate = gated_server(tmp_path)
    log = tmp_path / "seat.log"
    engine = f"{sys.executable} {ROOT / 'tests' / 'seat_engine.py'} Mine {log}"
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=1)
            first = await server.connect("b-white", engine)
            await server.plies(1)
            opened = [0]
            async with trio.open_nursery() as strangers:
                for _ in range(40):
                    strangers.start_soon(idle_connections, server.port, opened)
                first.kill()
                await first.wait()
                await logged(server, "dropped the connection")
                while opened[0] < 80:  # the strangers have filled the pool and come back
                    await trio.sleep(0.05)
                again = await server.connect("b-white", f"{engine} --resign-after {MOVES_AFTER}")
                await logged(server, "came back")
                strangers.cancel_scope.cancel()
            gate.touch()
            assert await server.wait() == 0, server.err
            assert await again.wait() == 0
            await reap(first)
    resigned_by_the_seat(server)
    assert "too many connections" in server.err


@pytest.mark.slow
async def test_a_foreign_origin_and_a_wrong_host_are_refused(tmp_path: Path) -> None:
    server, gate = gated_server(tmp_path, "--allow-origin", "bughouse.example.org")
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            port = await start_web(nursery, server)
            seat = await WebSeat.open(port)
            await seat.sit(server.tokens["b-white"])
            await seat.play(1)
            # A page of another site (or another port here) may not open the socket.
            for origin in ["http://evil.example.com", f"http://127.0.0.1:{port + 1}", "null"]:
                assert await upgrade_status(port, origin) == 403, origin
            # A name that is not this server's (DNS rebinding) gets nothing.
            assert await http_status(port, "/", host=f"evil.example.com:{port}") == 403
            assert await http_status(port, "/", host=f"localhost:{port}") == 200
            # The name of a reverse proxy, allowed with --allow-origin.
            assert await http_status(port, "/", host="bughouse.example.org") == 200
            proxied = await WebSeat.open(port, origin="https://bughouse.example.org")
            assert (await proxied.message())["type"] == "state"
            await proxied.aclose()
            await play_on(server, seat, gate)
    resigned_by_the_seat(server)
    assert "foreign Origin 'http://evil.example.com'" in server.err
    assert "wrong Host 'evil.example.com:" in server.err


async def wrong_tcp_tokens(port: int, count: int) -> None:
    for _ in range(count):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with stream:
            await stream.send_all(b"auth WB not-the-token\n")
            assert await stream.receive_some(100) == b"auth refused wrong token\n"


@pytest.mark.slow
async def test_a_thousand_wrong_tokens_write_a_bounded_log(tmp_path: Path) -> None:
    server, gate = gated_server(tmp_path)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            port = await start_web(nursery, server)
            seat = await WebSeat.open(port)
            await seat.sit(server.tokens["b-white"])
            await seat.play(1)
            for _ in range(20):  # 500 by pages, 25 each (within a page's burst)
                page = await WebSeat.open(port)
                for _ in range(25):
                    answer = await page.answer({"type": "sit", "seat": "WB", "token": "nope"})
                    assert answer == "cannot sit at WB: wrong token"
                await page.aclose()
            async with trio.open_nursery() as strangers:  # 500 on the TCP port
                for _ in range(10):
                    strangers.start_soon(wrong_tcp_tokens, server.port, 50)
            await play_on(server, seat, gate)
    resigned_by_the_seat(server)
    refused = [line for line in server.err.splitlines() if "wrong token" in line]
    one_by_one = [line for line in refused if "auth refused" in line]
    counted = sum(int(n) for n in re.findall(r"wrong token: (\d+)", server.err))
    assert len(one_by_one) + counted == 1000
    assert len(refused) < 40, refused
    # The first ones, by the pages, name the page's real address.
    assert one_by_one and all(line.startswith("serve: web 127.0.0.1:") for line in one_by_one)


class FailingEnd:
    """A front end with a bug: it fails a second after it started."""

    async def serve(
        self, table: object, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        task_status.started()
        await trio.sleep(1)
        raise RuntimeError("boom")


@pytest.mark.slow
async def test_a_game_stopped_by_a_failing_front_end_is_recorded_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The record once read "interrupted by : ..." (no signal had come).
    import datetime
    import io

    from bughouse_arbiter.cli import build_parser
    from bughouse_arbiter.commands import serve
    from bughouse_arbiter.table.stopping import Stop
    from bughouse_arbiter.ui.match_view import Display
    from bughouse_arbiter.ui.render import RenderOptions

    assert Stop().reason() == "interrupted: the match was stopped before it ended"
    engine = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 300"
    out = tmp_path / "game.bpgn"
    args = build_parser().parse_args(
        ["serve", "--web", "0", "--port", "0", "--tc", "60+0", "--out", str(out)]
        + [f"--engine={seat}={engine}" for seat in ("WA", "BA", "WB", "BB")]
    )
    plan = serve.plan_from_args(args, today=datetime.datetime.now())
    ends = serve.front_ends
    monkeypatch.setattr(serve, "front_ends", lambda plan: [*ends(plan), FailingEnd()])
    display = Display(io.StringIO(), live=False, options=RenderOptions(unicode=False))
    with trio.fail_after(TIMEOUT), pytest.raises(BaseExceptionGroup) as failed:
        await serve.serve(plan, display, log=lambda text: None)
    assert failed.group_contains(RuntimeError, match="boom", depth=None)
    game = read_games(out.read_text())[0]
    assert game.tags["Result"] == "*"
    assert game.tags["TerminationReason"] == (
        "the server failed (RuntimeError: boom); the game was stopped"
    )
