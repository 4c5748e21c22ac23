"""A real ``bughouse server`` process: its lobby socket, two tables at once, hostile clients.

Each test starts ``bughouse server --port 0 --line-port 0`` on 127.0.0.1,
reads the ports it prints and drives the lobby socket (``/ws``) and the
tables' sockets (``/table/ID/ws``) with a small WebSocket client, as the
pages speak them. Computers fill the empty seats (``fill_after`` 0); the
person seated resigns, and the table's BPGN file must show it.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trio
import wsproto
import wsproto.events as ws_events
from serve_helpers import ENV, ROOT, bughouse, reap

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.lobby.shown import apply_diff

TIMEOUT = 60


class LobbyServer:
    """One ``bughouse server`` process; ``start`` reads its ports."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.out = tmp_path / "games"
        self.err_path = tmp_path / "server.err"
        self.db = tmp_path / "server.sqlite3"
        self.argv = bughouse(
            "server", "--port", "0", "--line-port", "0", "--out", str(self.out), *args
        )
        self.argv += ["--db", str(self.db)]
        self.process: trio.Process | None = None
        self.port = self.line_port = 0

    async def start(self, nursery: trio.Nursery) -> None:
        self.process = await trio.lowlevel.open_process(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=self.err_path.open("wb"),
            env=ENV,
            cwd=str(ROOT),
        )
        assert self.process.stdout is not None
        pending = b""
        while not (self.port and self.line_port):
            chunk = await self.process.stdout.receive_some(4096)
            assert chunk, self.err
            pending += chunk
            if m := re.search(rb"lobby: http://127\.0\.0\.1:(\d+)/", pending):
                self.port = int(m.group(1))
            if m := re.search(rb"line port: 127\.0\.0\.1:(\d+)", pending):
                self.line_port = int(m.group(1))

    @property
    def err(self) -> str:
        return self.err_path.read_text()

    def games(self, table: str) -> list[Any]:
        return read_games((self.out / f"{table}.bpgn").read_text())


class Socket:
    """A page's WebSocket over wsproto: answers pings, keeps the errors it is sent."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
        self.errors: list[str] = []
        self.seen: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        #: The lobby as this socket was shown it: the last ``lobby`` view, its diffs applied.
        self.view: dict[str, Any] = {}
        self.closed: ws_events.CloseConnection | None = None

    @classmethod
    async def open(cls, port: int, target: str = "/ws", origin: str | None = None) -> Socket:
        socket = cls(await trio.open_tcp_stream("127.0.0.1", port))
        origin = origin or f"http://127.0.0.1:{port}"
        request = ws_events.Request(
            host=f"127.0.0.1:{port}", target=target, extra_headers=[(b"origin", origin.encode())]
        )
        await socket.stream.send_all(socket.ws.send(request))
        event = await socket.event()
        assert isinstance(event, ws_events.AcceptConnection), event
        return socket

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
                if data["type"] == "lobby-diff":  # seen as the whole view it makes
                    view = apply_diff(self.view, data)
                    assert view is not None, f"diff {data['version']} after {self.view}"
                    data = view
                if data["type"] == "lobby":
                    self.view = data
                self.seen.append(data)
                if data["type"] == "state":
                    self.state = data
                elif data["type"] == "error":
                    self.errors.append(data["text"])
                return data
            if isinstance(event, ws_events.CloseConnection):
                self.closed = event
                raise EOFError(f"closed {event.code} {event.reason}")

    async def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        """The next message of type ``kind`` with these fields (earlier ones count too)."""
        for data in self.seen:
            if data["type"] == kind and all(data.get(k) == v for k, v in fields.items()):
                self.seen.remove(data)
                return data
        while True:
            data = await self.message()
            if data["type"] == kind and all(data.get(k) == v for k, v in fields.items()):
                self.seen.remove(data)
                return data

    async def answer(self, message: dict[str, Any] | str) -> str:
        """Sends ``message``; the error line it is answered with."""
        seen = len(self.errors)
        await self.send(message)
        while len(self.errors) == seen:
            await self.message()
        return self.errors[-1]

    async def aclose(self) -> None:
        with trio.move_on_after(1):
            await self.stream.send_all(self.ws.send(ws_events.CloseConnection(code=1001)))
        await self.stream.aclose()


async def guest(port: int, name: str) -> Socket:
    lobby = await Socket.open(port)
    await lobby.send({"type": "hello", "name": name})
    assert (await lobby.until("welcome"))["name"] == name
    return lobby


async def seated_with_computers(
    port: int, name: str, tc: str = "120+0"
) -> tuple[Socket, Socket, str]:
    """``name`` creates a table, sits at A-White, starts it with three computers and sits
    on the table's page; the lobby socket, the table page and the table's id."""
    lobby = await guest(port, name)
    await lobby.send({"type": "create", "tc": tc, "computers": True, "fill_after": 30})
    table = (await lobby.until("created"))["table"]
    await lobby.send({"type": "sit", "table": table, "seat": "A-white"})
    await lobby.send({"type": "start", "table": table})
    seat = await lobby.until("seat", table=table)
    assert seat["url"] == f"/table/{table}?seat=A-white#token={seat['token']}"
    page = await Socket.open(port, f"/table/{table}/ws")
    await page.send({"type": "sit", "seat": seat["seat"], "token": seat["token"], "name": name})
    await page.until("seated")
    return lobby, page, table


async def play_moves(page: Socket, moves: int) -> None:
    """Plays ``moves`` random legal moves of the page's seat (board A, white)."""
    played_at: int | None = None
    while moves:
        data = await page.message()
        you = data.get("you")
        if data["type"] != "state" or you is None or not you["toMove"] or not you["legal"]:
            continue
        count = data["boards"]["A"]["moves"]["count"]
        if count != played_at:
            await page.send({"type": "move", "uci": random.choice(you["legal"])})
            played_at, moves = count, moves - 1
    while page.state["boards"]["A"]["moves"]["count"] == played_at:
        await page.message()


async def resign(page: Socket) -> dict[str, Any]:
    await page.send({"type": "resign"})
    while not page.state.get("result"):
        await page.message()
    return page.state


async def lobby_view(lobby: Socket, done: Any) -> dict[str, Any]:
    """The first lobby view (from now on) for which ``done(view)`` holds."""
    while True:
        data = await lobby.until("lobby")
        if done(data):
            return data


def table_in(view: dict[str, Any], table: str) -> dict[str, Any]:
    return next((t for t in view["tables"] if t["id"] == table), {})


@pytest.mark.slow
async def test_two_tables_play_at_once_with_computers_to_their_results(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                alice, alice_page, one = await seated_with_computers(server.port, "alice")
                _bob, bob_page, two = await seated_with_computers(server.port, "bob")
                assert one != two
                view = await lobby_view(
                    alice,
                    lambda v: all(table_in(v, t).get("state") == "playing" for t in (one, two)),
                )
                seats = table_in(view, one)["seats"]
                assert seats["A-white"] == {"name": "alice", "kind": "guest", "rating": None}
                assert {s["kind"] for k, s in seats.items() if k != "A-white"} == {"computer"}
                assert view["online"] == ["alice", "bob"]
                # Both games go on at once: a move at each, then each resigns.
                await play_moves(alice_page, 2)
                await play_moves(bob_page, 2)
                assert (await resign(bob_page))["result"]
                assert (await resign(alice_page))["result"]
                view = await lobby_view(
                    alice,
                    lambda v: all(table_in(v, t).get("state") == "between" for t in (one, two)),
                )
                # Stopped, the server closes the lobby's and the tables' sockets (1001).
                assert server.process is not None
                server.process.send_signal(signal.SIGTERM)
                for socket in (alice, alice_page):
                    with contextlib.suppress(EOFError):
                        while True:
                            await socket.message()
                    assert socket.closed is not None and socket.closed.code == 1001
                assert await server.process.wait() == 128 + signal.SIGTERM
        finally:
            assert server.process is not None
            await reap(server.process)
    for table, name in ((one, "alice"), (two, "bob")):
        (game,) = server.games(table)
        assert game.tags["WhiteA"] == name and game.tags["BlackA"] == "computer"
        assert game.tags["Termination"] == "resignation" and game.tags["Result"] == "0-1"
        assert sum(m.board.value == "A" and m.white for m in game.moves) >= 2


@pytest.mark.slow
async def test_hostile_messages_at_one_table_leave_the_other_playing(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                _, alice_page, one = await seated_with_computers(server.port, "alice")
                bob, bob_page, two = await seated_with_computers(server.port, "bob")
                await play_moves(bob_page, 1)
                stranger = await Socket.open(server.port, f"/table/{one}/ws")
                hostile: list[dict[str, Any] | str] = [
                    "not json",
                    "[" * 3000 + "]" * 3000,
                    '{"type": "chat", "text": "\\ud800"}',
                    {"type": 7},
                    {"type": "sit", "seat": "A-white", "token": "x" * 500},
                    {"type": "sit", "seat": "\ud800", "token": "\ud800"},
                    {"type": "move", "uci": "e2e4"},
                    {"type": "rematch"},
                    {"type": "chat", "text": ["a"]},
                    {"type": "mute"},
                    {"type": "no such thing"},
                ]
                answers = []
                for message in hostile:
                    answers.append(await stranger.answer(message))
                assert all(answers) and all("\n" not in a for a in answers), answers
                # A message past the bound closes that socket alone (1009).
                big = await Socket.open(server.port, f"/table/{one}/ws")
                await big.send("x" * 100_000)
                try:
                    while True:
                        await big.message()
                except EOFError:
                    assert big.closed is not None and big.closed.code == 1009
                # The other table's game goes on, and so does this one's.
                await play_moves(bob_page, 2)
                await play_moves(alice_page, 1)
                await stranger.send({"type": "chat", "text": "  hello   there "})
                said = await alice_page.until("chat")
                assert said["from"] == "watcher 2" and said["text"] == "hello there"
                await alice_page.send({"type": "chat", "text": "hi"})
                assert (await stranger.until("chat", text="hi"))["from"] == "alice"
                await resign(bob_page)
                await resign(alice_page)
                await lobby_view(bob, lambda v: table_in(v, two).get("state") == "between")
                # A rematch from the table page: the same table, colours swapped.
                await bob_page.send({"type": "rematch"})
                view = await lobby_view(
                    bob,
                    lambda v: (
                        table_in(v, two).get("game") == 2
                        and table_in(v, two).get("state") == "playing"
                    ),
                )
                assert table_in(view, two)["seats"]["A-black"]["name"] == "bob"
                while bob_page.state.get("game") != 2 or bob_page.state.get("result"):
                    await bob_page.message()
                await resign(bob_page)
        finally:
            assert server.process is not None
            await reap(server.process)
    first, second = server.games(two)
    assert first.tags["WhiteA"] == "bob" and second.tags["BlackA"] == "bob"
    assert second.tags["Termination"] == "resignation" and second.tags["Result"] == "1-0"
    assert server.games(one)[0].tags["Termination"] == "resignation"


@pytest.mark.slow
async def test_a_mute_said_in_the_lobby_holds_on_the_table_page(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                alice, alice_page, table = await seated_with_computers(server.port, "alice")
                loud = await Socket.open(server.port, f"/table/{table}/ws")
                quiet = await Socket.open(server.port, f"/table/{table}/ws")
                await loud.send({"type": "chat", "text": "who am I"})
                speaker = (await alice_page.until("chat", text="who am I"))["from"]
                assert speaker.startswith("watcher ")
                # Muted from the lobby's socket, not the table page's.
                await alice.send({"type": "mute", "table": table, "name": speaker})
                assert (await alice.until("muted"))["muted"] is True
                await loud.send({"type": "chat", "text": "you cannot hear me"})
                await quiet.send({"type": "chat", "text": "but me"})
                assert (await alice_page.until("chat"))["text"] == "but me"
                # The other page still hears the muted one: the mute is alice's.
                assert (await quiet.until("chat", text="you cannot hear me"))["from"] == speaker
                await alice.send({"type": "unmute", "table": table, "name": speaker})
                assert (await alice.until("muted"))["muted"] is False
                await loud.send({"type": "chat", "text": "back again"})
                assert (await alice_page.until("chat"))["text"] == "back again"
                assert all(m.get("text") != "you cannot hear me" for m in alice_page.seen)
        finally:
            assert server.process is not None
            await reap(server.process)


@pytest.mark.slow
async def test_hostile_lobby_messages_are_answered_and_strangers_refused(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path, "--limit", "per_address=3")
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                early = await Socket.open(server.port)
                assert "hello" in await early.answer({"type": "chat", "text": "hi"})
                assert "name" in await early.answer({"type": "hello", "name": "<script>"})
                assert "reserved" in await early.answer({"type": "hello", "name": "computer"})
                await early.send({"type": "hello", "name": "carol"})
                await early.until("welcome")
                again = await Socket.open(server.port)
                assert "taken" in await again.answer({"type": "hello", "name": "carol"})
                bad: list[dict[str, Any] | str] = [
                    "{",
                    "[" * 5000,
                    '{"type": "chat", "text": "\\ud800\\ud800"}',
                    {"type": "create", "tc": "0+0"},
                    {"type": "create", "tc": "180+0", "rules": {"clock": "off"}},
                    {"type": "create", "tc": "180+0", "rules": {"repetition": "sometimes"}},
                    {"type": "create", "tc": "180+0", "fill_after": -1},
                    {"type": "sit", "table": "t999", "seat": "A-white"},
                    {"type": "sit", "table": "t1"},
                    {"type": "play_now", "tc": "x"},
                    {"type": "play_now", "tc": "180+0", "partner": "nobody"},
                    {"type": "accept", "from": "nobody"},
                    {"type": "leave_queue"},
                    {"type": "watch", "table": ["t1"]},
                    {"type": "hello", "name": "carol"},
                    {"type": "x" * 5000},
                    [],
                ]
                for message in bad:
                    answer = await early.answer(message)
                    assert answer and "\n" not in answer and len(answer) < 300, answer
                await early.send({"type": "chat", "text": "still here"})
                said = await early.until("chat")
                assert said["from"] == "carol" and said["text"] == "still here"
                # Chat is bounded in rate: a burst is cut short with one line.
                for _ in range(10):
                    await early.send({"type": "chat", "text": "x"})
                while not early.errors[-1].startswith("too many chat"):
                    await early.message()
                assert sum(m["type"] == "chat" for m in early.seen) <= 5
                # One address holds at most per_address lobby sockets: the next is told so.
                third = await Socket.open(server.port)
                crowd = await Socket.open(server.port)
                with contextlib.suppress(EOFError):
                    while True:
                        await crowd.message()
                assert crowd.errors == ["too many lobby connections from your address"]
                assert crowd.closed is not None and crowd.closed.code == 1013
                await third.aclose()
                # Strangers: a foreign page, a wrong Host.
                assert await upgrade_status(server.port, "http://evil.example") == 403
                assert await http_status(server.port, host="evil.example") == 403
                assert await http_status(server.port, "/table/t999") == 404
                assert await http_status(server.port, "/api/server") == 200
        finally:
            assert server.process is not None
            await reap(server.process)
    assert "foreign Origin" in server.err and "wrong Host" in server.err


async def http_status(port: int, target: str = "/", host: str | None = None) -> int:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    request = (
        f"GET {target} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nConnection: close\r\n\r\n"
    )
    await stream.send_all(request.encode())
    head = b""
    while b"\r\n" not in head:
        chunk = await stream.receive_some(4096)
        if not chunk:
            break
        head += chunk
    await stream.aclose()
    return int(head.split()[1])


async def upgrade_status(port: int, origin: str) -> int:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    request = ws_events.Request(
        host=f"127.0.0.1:{port}", target="/ws", extra_headers=[(b"origin", origin.encode())]
    )
    await stream.send_all(ws.send(request))
    head = b""
    while b"\r\n" not in head:
        chunk = await stream.receive_some(4096)
        if not chunk:
            break
        head += chunk
    await stream.aclose()
    return int(head.split()[1])


@pytest.mark.slow
def test_bad_options_and_a_taken_port_are_one_line(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            bughouse("server", "--out", str(tmp_path / "games"), *args),
            capture_output=True,
            text=True,
            env=ENV,
            cwd=str(ROOT),
            timeout=60,
        )

    for args, says in (
        (("--port", "x"), "--port takes a number, not 'x'"),
        (("--certfile", "cert.pem"), "--certfile and --keyfile go together"),
        (("--computer", "no-such-engine-anywhere"), "no program 'no-such-engine-anywhere'"),
    ):
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        done = run("--port", str(taken.getsockname()[1]), "--line-port", "0")
    assert done.returncode == 1 and "in use" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


HOSTILE_FIELD = '"><script>alert(1)</script><b x="'


async def _page_text(port: int, target: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    def fetch() -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{target}", timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as refused:
            with refused:  # its socket is closed here, not whenever it is collected
                return refused.code, refused.read().decode()

    return await trio.to_thread.run_sync(fetch)


@pytest.mark.slow
async def test_the_archive_search_and_player_pages_escape_what_they_are_given(
    tmp_path: Path,
) -> None:
    import urllib.parse

    server = LobbyServer(tmp_path)
    quoted = urllib.parse.quote(HOSTILE_FIELD)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                status, search = await _page_text(
                    server.port, f"/games?player={quoted}&since={quoted}&result={quoted}"
                )
                assert status == 200
                assert "<script>alert(1)</script>" not in search and '<b x="' not in search
                assert 'value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;' in search
                assert "a date is YYYY-MM-DD" in search and "a result is one of" in search
                name = urllib.parse.quote("<img src=x onerror=alert(1)>", safe="")
                status, player = await _page_text(server.port, f"/player/{name}")
                assert status == 404 and "No player of that name here." in player
                assert "<img src=x" not in player
                assert "<h1>&lt;img src=x onerror=alert(1)&gt;</h1>" in player
        finally:
            assert server.process is not None
            await reap(server.process)
