"""The line lobby over real sockets on 127.0.0.1, with a stand-in Hall and tables:
hello and refusals, a bot seated game after game, a guest's idle commands, held
notices, ``quit`` during a game, and the bot client's one engine for many games."""

from __future__ import annotations

import io
import math
import sys
from collections.abc import Callable, Collection, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from cli_checks import expect_usage_error

from bughouse_arbiter.clients import bot
from bughouse_arbiter.clients.link import ConnectRefused
from bughouse_arbiter.clients.lobby_link import (
    LinePort,
    find_line_port,
    line_port_of,
    open_lobby,
    parse_server_url,
)
from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.exits import OK
from bughouse_arbiter.hall.line_lobby import STOPPING, serve_line_lobby
from bughouse_arbiter.hall.runtime import JoinRefused
from bughouse_arbiter.lobby.identity import Identity
from bughouse_arbiter.net.files import FileReserve
from bughouse_arbiter.net.limits import Limits
from bughouse_arbiter.net.tls import client_context, server_context
from bughouse_arbiter.players.process import EngineProcess, ProtocolLog
from bughouse_arbiter.protocol.lobby_lines import Hello
from bughouse_arbiter.serve.seam import AuthRefused, SeatLink

ROOT = Path(__file__).resolve().parent.parent
GUARD = 20


class FakeTable:
    """A table's seam as the line lobby sees it: each attach is one short game."""

    def __init__(self, table_id: str, *, moves: int = 0) -> None:
        self.table_id = table_id
        self.token = "tok"
        self.heard: list[str] = []
        self.attached = 0
        self.moves = moves
        self.during: Callable[[], None] | None = None

    def authenticate(self, seat_text: str, token: str, *, peer: str = "?") -> Seat:
        if token != self.token:
            raise AuthRefused("wrong token")
        return Seat.parse(seat_text)

    async def attach(self, seat: Seat, link: SeatLink) -> None:
        self.attached += 1
        link.send("bug 1")
        await self._until(link, "bugok")
        link.send(f"newgame id {self.table_id} seat {seat.slug} time 10000 inc 0")
        link.send("isready")
        await self._until(link, "readyok")
        if self.during is not None:
            self.during()
        link.send("gameover result * reason aborted text the test is over")
        link.send("quit")  # what RemoteSeat.aclose says when the series ends
        while (line := await link.receive()) is not None:
            self.heard.append(line.text)

    async def _until(self, link: SeatLink, word: str) -> None:
        while (line := await link.receive()) is not None:
            self.heard.append(line.text)
            if line.text.split()[:1] == [word]:
                return


class FakeTicket:
    def __init__(self) -> None:
        self.send, self.receive = trio.open_memory_channel[tuple[FakeTable, Seat]](math.inf)
        self.left = False

    async def next_seat(self) -> tuple[FakeTable, Seat] | None:
        try:
            return await self.receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    def leave(self) -> None:
        self.left = True
        self.send.close()


class FakeHall:
    def __init__(self) -> None:
        self.tickets: dict[str, FakeTicket] = {}
        self.tcs: dict[str, Collection[TimeControl]] = {}
        self.members: dict[str, Callable[[dict[str, Any]], None]] = {}
        self.handled: list[tuple[str, Mapping[str, Any]]] = []
        self.left: list[str] = []
        self.tables: dict[str, FakeTable] = {}
        self.joined = trio.Event()
        self.log = print

    def join(self, identity: Identity, send: Callable[[dict[str, Any]], None]) -> str:
        if identity.name in self.members:
            raise JoinRefused(f"the name {identity.name!r} is taken by someone connected now")
        self.members[identity.name] = send
        send({"type": "welcome", "name": identity.name})
        send(
            {
                "type": "lobby",
                "tables": [
                    {"id": "t1", "tc": "180+0", "state": "open", "seats": {"A-black": None}}
                ],
            }
        )
        self.joined.set()
        return identity.name

    def leave(self, member: str) -> None:
        self.left.append(member)

    def handle(self, member: str, message: Mapping[str, Any]) -> None:
        self.handled.append((member, message))
        if message.get("type") == "sit":
            self.members[member](
                {"type": "seat", "table": "t1", "seat": message["seat"], "token": "tok"}
            )

    async def check_bot(self, name: str, token: str | None) -> Identity:
        if name == "rookbot" and token != "secret":
            raise JoinRefused("wrong or revoked token for the bot 'rookbot'")
        return Identity(name, "bot")

    async def check_guest(self, name: str) -> Identity:
        if name == "rookbot":
            raise JoinRefused("the name 'rookbot' is an account's")
        return Identity(name, "guest")

    def add_bot(self, identity: Identity, tcs: Collection[TimeControl]) -> FakeTicket:
        if identity.name in self.tickets:
            raise JoinRefused(f"the name {identity.name!r} is taken by someone connected now")
        ticket = self.tickets[identity.name] = FakeTicket()
        self.tcs[identity.name] = tcs
        self.joined.set()
        return ticket

    def live_table(self, table_id: str) -> FakeTable | None:
        return self.tables.get(table_id)


class Peer:
    """A raw client of the line port."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def send(self, line: str) -> None:
        await self.stream.send_all((line + "\n").encode())

    async def line(self) -> str | None:
        while b"\n" not in self.buffer:
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                return None
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\n", 1)
        return raw.decode()

    async def until(self, text: str) -> list[str]:
        seen = []
        while (line := await self.line()) is not None:
            seen.append(line)
            if line == text:
                return seen
        raise AssertionError(f"closed before {text!r}; saw {seen}")


async def _lobby(nursery: trio.Nursery, hall: FakeHall, log: list[str]) -> int:
    port: int = await nursery.start(
        partial(serve_line_lobby, hall, host="127.0.0.1", port=0, log=log.append)  # type: ignore[arg-type]
    )
    return port


async def _peer(port: int, hello: str) -> Peer:
    peer = Peer(await trio.open_tcp_stream("127.0.0.1", port))
    await peer.send(hello)
    return peer


async def test_a_bot_is_seated_game_after_game_and_never_sees_the_tables_quit() -> None:
    hall, log = FakeHall(), []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peer = await _peer(port, "bot rnd tc=180+0,60+1,3+0")  # 3+0: an event's, no table's
            assert await peer.line() == "hello ok rnd"
            assert [str(tc) for tc in hall.tcs["rnd"]] == ["180+0", "60+1", "3+0"]
            ticket = hall.tickets["rnd"]
            for number, seat in ((1, Seat.A_WHITE), (2, Seat.B_BLACK)):
                table = FakeTable(f"t{number}")
                ticket.send.send_nowait((table, seat))
                name = seat.slug[0].upper() + seat.slug[1:]
                assert await peer.line() == f"seated t{number} {name}"
                assert await peer.line() == "bug 1"
                await peer.send("id name Rnd")
                await peer.send("bugok")
                newgame = await peer.line() or ""
                assert newgame.startswith(f"newgame id t{number} seat {seat.slug}")
                assert await peer.line() == "isready"
                await peer.send("readyok")
                assert (await peer.line() or "").startswith("gameover result *")
                assert await peer.line() == f"unseated t{number}"
                assert table.heard == ["id name Rnd", "bugok", "readyok"]
            # Idle again: lobby commands are answered, late engine lines are dropped.
            await peer.send("bestmove e2e4 turn 3")
            await peer.send("sit t1 A-white")
            assert await peer.line() == (
                "error a bot is seated by the server; it has no lobby commands"
            )
            await peer.send("quit")
            assert await peer.line() is None
            nursery.cancel_scope.cancel()
    assert ticket.left
    assert any("bot rnd joined the lobby" in line for line in log)


class StuckTable(FakeTable):
    """A table that never lets its seat go (its game does not end)."""

    async def attach(self, seat: Seat, link: SeatLink) -> None:
        link.send("bug 1")
        await trio.sleep_forever()


async def test_a_stopping_lobby_tells_every_connection_and_closes_it() -> None:
    hall, log = FakeHall(), []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            lobby = trio.CancelScope()

            async def serve(task_status: trio.TaskStatus[int]) -> None:
                with lobby:
                    await serve_line_lobby(
                        hall,  # type: ignore[arg-type]
                        host="127.0.0.1", port=0, log=log.append, task_status=task_status,
                    )  # fmt: skip

            port: int = await nursery.start(serve)
            guest = await _peer(port, "guest alice")
            assert await guest.until("hello ok alice")
            bot = await _peer(port, "bot rnd tc=180+0")
            assert await bot.line() == "hello ok rnd"
            hall.tickets["rnd"].send.send_nowait((StuckTable("t9"), Seat.A_WHITE))
            assert await bot.until("bug 1") == ["seated t9 A-white", "bug 1"]
            silent = Peer(await trio.open_tcp_stream("127.0.0.1", port))
            lobby.cancel()
            assert await guest.until("error the server is stopping")
            assert await guest.line() is None
            # Its table never let the seat go: it is cut free, then told.
            assert await bot.until(STOPPING) == ["unseated t9", STOPPING]
            assert await bot.line() is None
            assert await silent.line() is None  # no hello: nothing to tell
            nursery.cancel_scope.cancel()
    assert hall.tickets["rnd"].left and hall.left == ["alice"]


@pytest.mark.parametrize(
    ("hello", "answer"),
    [
        ("auth a-white token", "hello refused expected 'bot <name> [tc=...] [ping]'"),
        ("bot rnd", "hello refused a bot names the time controls it plays"),
        ("bot rnd tc=none", "hello refused a bot needs a timed control (for example 180+2)"),
        ("bot rnd tc=fast", "hello refused time control 'fast' is not BASE+INC in seconds"),
        ("bot r tc=180+0", "hello refused a name is 2 to 20 letters"),
        ("guest alice tc=180+0", "hello refused unknown option 'tc=180+0'"),
        ("guest taken", "hello refused the name 'taken' is taken"),
        ("bot rookbot tc=180+0", "hello refused wrong or revoked token for the bot 'rookbot'"),
        ("bot rookbot tc=180+0 token=guess", "hello refused wrong or revoked token"),
        ("guest rookbot", "hello refused the name 'rookbot' is an account's"),
        ("guest alice token=secret", "hello refused unknown option 'token=secret'"),
    ],
)
async def test_a_bad_or_refused_hello_is_answered_in_one_line_and_closed(
    hello: str, answer: str
) -> None:
    hall, log = FakeHall(), []
    hall.members["taken"] = lambda message: None
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peer = await _peer(port, hello)
            line = await peer.line()
            assert line is not None and line.startswith(answer), line
            assert await peer.line() is None
            nursery.cancel_scope.cancel()
    assert not hall.tickets and set(hall.members) == {"taken"}


async def test_a_bot_accounts_token_seats_it_as_itself() -> None:
    hall, log = FakeHall(), []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peer = await _peer(port, "bot rookbot tc=180+0 token=secret ping")
            assert await peer.line() == "hello ok rookbot"
            assert "rookbot" in hall.tickets
            nursery.cancel_scope.cancel()


async def test_a_guest_lists_sits_plays_and_gets_the_notices_after_the_game() -> None:
    hall, log = FakeHall(), []
    table = hall.tables["t1"] = FakeTable("t1")
    table.during = lambda: hall.members["alice"](
        {"type": "chat", "from": "bob", "text": "good luck"}
    )
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peer = await _peer(port, "guest alice human ping")
            assert await peer.line() == "hello ok alice"
            await peer.send("tables")
            assert await peer.until("end") == [
                "table t1 180+0 open A-white=- A-black=- B-white=- B-black=-",
                "end",
            ]
            await peer.send("sit t1")
            assert await peer.line() == "error usage: sit <table> <seat>"
            await peer.send("queue 180+0 partner bob")
            await peer.send("sit t1 A-black")
            assert await peer.line() == "seated t1 A-black"
            assert await peer.line() == "bug 1"
            await peer.send("bugok")
            assert (await peer.line() or "").startswith("newgame")
            assert await peer.line() == "isready"
            await peer.send("readyok")
            lines = await peer.until("unseated t1")
            # The chat said during the game comes after its gameover, never inside it.
            assert [line.split()[0] for line in lines] == ["gameover", "chat", "unseated"]
            assert lines[1] == "chat bob good luck"
            await peer.send("quit")
            assert await peer.line() is None
            nursery.cancel_scope.cancel()
    assert hall.handled == [
        ("alice", {"type": "play_now", "tc": "180+0", "computers": True, "partner": "bob"}),
        ("alice", {"type": "sit", "table": "t1", "seat": "A-black"}),
    ]
    assert hall.left == ["alice"]


async def test_quit_during_a_game_leaves_after_its_gameover() -> None:
    hall, log = FakeHall(), []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peer = await _peer(port, "bot rnd tc=180+0")
            assert await peer.line() == "hello ok rnd"
            table = FakeTable("t1")
            hall.tickets["rnd"].send.send_nowait((table, Seat.A_WHITE))
            await peer.until("bug 1")
            await peer.send("bugok")
            await peer.until("isready")
            await peer.send("quit")  # the bot wants this game to be its last
            await trio.sleep(0.1)
            assert hall.tickets["rnd"].left  # offered nothing more from now on
            await peer.send("readyok")  # the game goes on to its end
            rest = [line async for line in _lines(peer)]
            assert rest[0].startswith("gameover") and rest[1:] == ["unseated t1"]
            nursery.cancel_scope.cancel()
    assert table.heard == ["bugok", "readyok"]


async def _lines(peer: Peer) -> Any:
    while (line := await peer.line()) is not None:
        yield line


@pytest.mark.slow
async def test_the_bot_client_plays_two_seatings_on_one_engine_handshake() -> None:
    """``connect --bot``'s pump: the engine hears ``bug 1`` once; the second
    seating's handshake is answered from the first; ``games=2`` ends it cleanly."""
    hall, log = FakeHall(), []
    said: list[str] = []
    engine_log = io.StringIO()
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            link, name = await open_lobby(
                LinePort("127.0.0.1", port), Hello("bot", "rnd", ("180+0",), ping=True)
            )
            assert name == "rnd"
            tables = [FakeTable("t1"), FakeTable("t2")]
            for table, seat in zip(tables, (Seat.A_WHITE, Seat.B_WHITE), strict=True):
                hall.tickets["rnd"].send.send_nowait((table, seat))
            engine = EngineProcess(
                [sys.executable, str(ROOT / "engines" / "random_mover.py")],
                label="rnd",
                log=ProtocolLog(engine_log),
            )
            status = await bot.run_bot(
                link, 2, lambda lines: bot.pump_native(lines, engine, said.append), said.append
            )
            nursery.cancel_scope.cancel()
    assert status == OK
    # "<ms> rnd < LINE" is a line to the engine.
    logged = [line.split() for line in engine_log.getvalue().splitlines()]
    to_engine = [words[3:] for words in logged if words[2] == "<"]
    assert to_engine.count(["bug", "1"]) == 1, to_engine
    assert [words[0] for words in to_engine].count("newgame") == 2
    assert "exited with status 0" in engine_log.getvalue()
    for table in tables:
        assert "bugok" in table.heard and "readyok" in table.heard
    assert said[-1] == "done: 2 games played"
    assert hall.tickets["rnd"].left


async def test_a_refused_name_is_a_connect_refused() -> None:
    hall, log = FakeHall(), []
    hall.members["alice"] = lambda message: None
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            with pytest.raises(ConnectRefused, match="'alice' refused: the name 'alice' is taken"):
                await open_lobby(LinePort("127.0.0.1", port), Hello("guest", "alice"))
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--server", "ftp://x", "--bot", "rnd", "--", "random"], "expected http://HOST:PORT"),
        (["--server", "tcp://127.0.0.1", "--bot", "rnd", "--", "random"], "tcp:// needs a port"),
        (["--server", "http://h:99999", "--bot", "rnd", "--", "random"], "out of range"),
        (["--bot", "rnd", "--", "random"], "--server URL and --bot NAME go together"),
        (["--server", "tcp://h:1", "--", "random"], "--server URL and --bot NAME go together"),
        (["--server", "tcp://h:1", "--bot", "a b", "--", "random"], "--bot must be one"),
        (["--server", "tcp://h:1", "--bot", "rnd", "--games", "0", "--", "random"], "at least 1"),
        (["--server", "tcp://h:1", "--bot", "rnd", "--tc", "1+0,,2+0", "--", "random"], "--tc"),
        (["--server", "tcp://h:1", "--bot", "rnd", "--seat", "WA", "--", "random"], "--seat is"),
        (["--server", "tcp://h:1", "--bot", "rnd", "--token", "a b", "--", "random"], "--token:"),
        (["h:1", "--seat", "WA", "--token", "t", "--games", "2", "--", "random"], "--games goes"),
        (["h:1", "--", "random"], "give HOST:PORT --seat SEAT --token TOKEN, or --server"),
        (["--server", "tcp://h:1", "--bot", "rnd"], "name the engine after '--'"),
    ],
)
def test_connect_bot_usage_errors_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    expect_usage_error("connect", argv, message, capsys, tmp_path)


def test_play_server_usage_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for argv, message in [
        (["--server", "mailto:x"], "expected http://HOST:PORT"),
        (["--server", "tcp://h:1", "--token", "t"], "--token is for a seat"),
        (["--server", "tcp://h:1", "--seat", "BB"], "--seat is chosen in the lobby"),
        (["--server", "tcp://h:1", "--tc", "60+0"], "--tc is the server's choice"),
        (["--server", "tcp://h:1", "--name", "a b"], "--name must be one printable word"),
        (["--server", "tcp://h:1", "--debug"], "--debug is for the engines of a local game"),
    ]:
        expect_usage_error("play", argv, message, capsys, tmp_path)


def test_the_web_address_names_the_line_port() -> None:
    assert line_port_of({"line_port": 7790, "tls": False}, "h") == LinePort("h", 7790)
    assert line_port_of({"line_port": 7790, "tls": True}, "h").tls
    for bad in ({}, {"line_port": "7790"}, {"line_port": True}, {"line_port": 0}, [7790]):
        with pytest.raises(ConnectRefused, match="names no line port"):
            line_port_of(bad, "h")
    assert parse_server_url("http://127.0.0.1:8080/") == ("http", "127.0.0.1", 8080)
    assert parse_server_url("https://club.example.org") == ("https", "club.example.org", 443)
    assert parse_server_url("tcp://[::1]:7790") == ("tcp", "::1", 7790)


async def test_an_unreachable_server_is_one_connect_refused() -> None:
    with trio.fail_after(GUARD):
        listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        port = listener.socket.getsockname()[1]
        await listener.aclose()  # nobody listens there now
        with pytest.raises(ConnectRefused, match=r"cannot reach http://127\.0\.0\.1"):
            await find_line_port(f"http://127.0.0.1:{port}")
        with pytest.raises(ConnectRefused, match=r"cannot connect to 127\.0\.0\.1"):
            await open_lobby(LinePort("127.0.0.1", port), Hello("bot", "rnd", ("180+0",)))


async def test_the_line_lobby_speaks_tls_when_given_a_certificate(tmp_path: Path) -> None:
    from tls_files import certificate  # trustme, for this test only

    cafile, cert, key = certificate(tmp_path)
    hall, log = FakeHall(), []
    hello = Hello("guest", "alice", ping=True)
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(
                partial(
                    serve_line_lobby,
                    hall,  # type: ignore[arg-type]
                    host="127.0.0.1",
                    port=0,
                    log=log.append,
                    ssl_context=server_context(cert, key),
                )
            )
            where = LinePort("127.0.0.1", port, tls=True)
            link, name = await open_lobby(where, hello, client_context(cafile))
            assert name == "alice"
            await link.send("tables")
            assert (await link.receive()).text.startswith("table t1 180+0 open")  # type: ignore[union-attr]
            await link.aclose()
            with pytest.raises(ConnectRefused, match="speaks TLS: connect with --tls"):
                await open_lobby(LinePort("127.0.0.1", port), Hello("guest", "bob"))
            with pytest.raises(ConnectRefused, match="not trusted"):
                await open_lobby(where, Hello("guest", "carol"))  # this machine's CAs only
            nursery.cancel_scope.cancel()
    assert any("plain text, not TLS" in line for line in log)


async def test_one_address_holds_at_most_its_share_of_identities() -> None:
    hall, log = FakeHall(), []
    share = Limits().per_address
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            port = await _lobby(nursery, hall, log)
            peers = []
            for n in range(share):
                peers.append(await _peer(port, f"guest g{n}"))
                assert await peers[-1].line() == f"hello ok g{n}"
            extra = await _peer(port, "guest extra")
            assert await extra.line() == "hello refused too many players from your address"
            assert await extra.line() is None
            await peers[0].send("quit")
            assert await peers[0].line() is None
            for _ in range(100):  # the share comes back once the lobby saw it leave
                again = await _peer(port, "guest again")
                if await again.line() == "hello ok again":
                    break
                await trio.sleep(0.05)
            else:
                raise AssertionError("the freed share never came back")
            nursery.cancel_scope.cancel()


def test_files_are_kept_in_reserve_and_the_soft_limit_is_raised() -> None:
    import resource

    reserve = FileReserve.raised()
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert reserve.limit == soft or soft == resource.RLIM_INFINITY
    small = FileReserve.of(1024)
    assert small.room(1024 - 257) and not small.room(1024 - 256)
