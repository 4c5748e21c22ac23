"""The live page's parts without a browser: snapshots, and the HTTP/WebSocket edge.

``LiveView`` is fed real arbiter events built on a real ``BughouseGame``;
the front end runs in-process on loopback and is spoken to with raw HTTP and
a ``wsproto`` client, bad input included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import trio
import wsproto
import wsproto.events as ws_events

from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.game import BughouseGame, PartnerMessage
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.server.seam import LiveTable
from bughouse_arbiter.table.match_events import (
    DrawOffered,
    MatchEnded,
    MatchStarted,
    MovePlayed,
    PartnerTold,
)
from bughouse_arbiter.web.live_server import WebFrontEnd
from bughouse_arbiter.web.live_view import LiveView

SERVE = [sys.executable, "-m", "bughouse_arbiter", "serve"]
NAMES = {seat: seat.value.lower() for seat in Seat}


def started(game: BughouseGame, clocks: Clocks) -> MatchStarted:
    return MatchStarted(game=game, names=NAMES, clocks=clocks, now=0.0)


def test_a_snapshot_shows_boards_pockets_clocks_and_the_seats_legal_moves() -> None:
    game = BughouseGame()
    view = LiveView()
    clocks = Clocks.new(60).start_all([Seat.A_WHITE, Seat.B_WHITE], 0.0)
    assert view.apply(started(game, clocks))
    # Each move takes one second: A-White moves at 1 and 3, A-Black at 2.
    moves = [(Seat.A_WHITE, "e4"), (Seat.A_BLACK, "d5"), (Seat.A_WHITE, "exd5")]
    for now, (seat, move) in enumerate(moves, start=1):
        played = game.push(seat, move)
        clocks, _ = clocks.press(seat, now)
        clocks = clocks.start(Seat.of(seat.board, not seat.color), now)
        assert view.apply(MovePlayed(played=played, used=1.0, clocks=clocks, now=now))
    message = PartnerMessage(seat=Seat.A_WHITE, text="need N")
    assert view.apply(PartnerTold(message=message, now=3.5))

    data = view.snapshot(5.0, seat=Seat.B_BLACK)
    json.dumps(data)  # plain JSON
    a, b = data["boards"]["A"], data["boards"]["B"]
    assert a["fen"] == game.board(BoardId.A).board_fen()
    assert a["turn"] == "black" and a["toMove"] == "A-Black"
    assert a["lastMove"] == ["e4", "d5"] and a["lastSan"] == "exd5"
    assert b["pockets"] == {"white": {}, "black": {"P": 1}}  # A-White's capture went to B-Black
    assert data["clocks"]["A-White"] == 58_000  # two turns of 1 s, stopped
    assert data["clocks"]["A-Black"] == 57_000  # 1 s, then running since 3
    assert data["clocks"]["B-White"] == 55_000  # running since 0
    assert sorted(data["running"]) == ["A-Black", "B-White"]
    assert data["messages"] == [{"seat": "A-White", "to": "B-Black", "text": "need N"}]
    assert data["result"] is None
    # B-Black is not to move: no legal moves offered. B-White is, with the board's own list.
    assert data["you"] == {
        "seat": "B-Black",
        "board": "B",
        "color": "black",
        "toMove": False,
        "legal": [],
        "joined": "B-Black",
    }
    white = view.snapshot(5.0, seat=Seat.B_WHITE)["you"]
    assert white["toMove"] is True
    assert white["legal"] == sorted(m.uci() for m in game.board(BoardId.B).legal_moves)
    assert "e2e4" in white["legal"] and not any("@" in m for m in white["legal"])
    black_a = view.snapshot(5.0, seat=Seat.A_BLACK)["you"]
    assert "d8d5" in black_a["legal"]


def test_drops_and_the_result_in_a_snapshot() -> None:
    game = BughouseGame(fen_b="4k3/8/8/8/8/8/8/4K3[N] w - - 0 1")
    view = LiveView()
    view.apply(started(game, Clocks.new(60)))
    legal = view.snapshot(0.0, seat=Seat.B_WHITE)["you"]["legal"]
    assert "N@e4" in legal and "N@d2" in legal
    assert view.snapshot(0.0)["boards"]["B"]["pockets"]["white"] == {"N": 1}
    assert view.apply(DrawOffered(seat=Seat.A_BLACK, now=0.5))
    assert view.snapshot(0.5)["drawOffer"] == "A-Black"
    outcome = game.resign(Seat.B_WHITE)
    assert outcome is not None
    view.apply(MatchEnded(game=game, names=NAMES, outcome=outcome, clocks=Clocks.new(60), now=1))
    data = view.snapshot(1.0, seat=Seat.B_WHITE)
    assert data["result"]["result"] == "1-0"
    assert data["result"]["winners"] == ["A-White", "B-Black"]
    assert data["you"]["legal"] == [] and data["running"] == []
    assert data["drawOffer"] is None


def test_the_seat_shown_follows_the_player_from_game_to_game() -> None:
    """Seats rotate between the games of a run: ``you`` is the seat of the game shown."""
    view = LiveView()
    clocks = Clocks.new(60).start_all([Seat.A_WHITE, Seat.B_WHITE], 0.0)
    one = BughouseGame()
    view.apply(started(one, clocks), seating={Seat.B_WHITE: Seat.B_WHITE})
    you = view.snapshot(0.0, seat=Seat.B_WHITE)["you"]
    assert (you["seat"], you["joined"], you["toMove"]) == ("B-White", "B-White", True)
    outcome = one.resign(Seat.B_WHITE)
    assert outcome is not None
    # Game 1 is over and serve has seated the players for game 2: the page
    # still shows game 1, so still the seat played there.
    view.apply(MatchEnded(game=one, names=NAMES, outcome=outcome, clocks=clocks, now=1.0))
    assert view.snapshot(1.0, seat=Seat.B_WHITE)["you"]["seat"] == "B-White"
    two = BughouseGame()
    view.apply(started(two, clocks), seating={Seat.B_WHITE: Seat.B_BLACK})
    you = view.snapshot(2.0, seat=Seat.B_WHITE)["you"]
    assert you == {
        "seat": "B-Black",
        "board": "B",
        "color": "black",
        "toMove": False,
        "legal": [],
        "joined": "B-White",
    }
    played = two.push(Seat.B_WHITE, "e4")
    view.apply(MovePlayed(played=played, used=1.0, clocks=clocks, now=3.0))
    you = view.snapshot(3.0, seat=Seat.B_WHITE)["you"]
    assert you["toMove"] is True and "e7e5" in you["legal"] and "e2e4" not in you["legal"]
    # A seat nobody moved (a watcher's view of another token) stays itself.
    assert view.snapshot(3.0, seat=Seat.A_BLACK)["you"]["seat"] == "A-Black"


def test_an_untimed_table_shows_no_clocks() -> None:
    rules = HouseRules(clock=False)
    view = LiveView()
    view.apply(started(BughouseGame(rules), Clocks.for_rules(rules)))
    data = view.snapshot(5.0)
    assert data["untimed"] is True and data["clocks"] == {}


# -- the server edge ---------------------------------------------------------------------


class Holder:
    connected = False
    lost = False

    async def attach(self, link: Any) -> None:
        link.send("bug")
        while await link.receive() is not None:
            pass


async def start_front(nursery: trio.Nursery) -> tuple[WebFrontEnd, LiveTable, list[str]]:
    logged: list[str] = []
    table = LiveTable(HouseRules(), {Seat.B_WHITE: Holder()}, names=dict, log=logged.append)  # type: ignore[dict-item]
    front = WebFrontEnd("127.0.0.1", 0)
    await nursery.start(front.serve, table)
    return front, table, logged


async def http(port: int, request: bytes) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(request)
        data = b""
        with trio.fail_after(10):
            try:
                while chunk := await stream.receive_some(65536):
                    data += chunk
            except trio.BrokenResourceError:
                pass  # dropped with unread input: a reset
    return data


async def test_the_page_and_its_files_are_served_and_nothing_else() -> None:
    async with trio.open_nursery() as nursery:
        front, _, _ = await start_front(nursery)
        page = await http(front.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        head, _, body = page.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        assert b"content-security-policy: default-src 'none'" in head.lower()
        assert b'src="/assets/live.js"' in body
        script = await http(
            front.port, b"GET /assets/chessground.min.js HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        assert script.startswith(b"HTTP/1.1 200") and b"Chessground" in script
        for target in [b"/assets/../live_server.py", b"/assets/README.md", b"/etc/passwd", b"/ws"]:
            answer = await http(front.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            assert answer.startswith(b"HTTP/1.1 404"), target
        post = await http(front.port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assert post.startswith(b"HTTP/1.1 405")
        assert await http(front.port, b"\x00\xff junk\r\n\r\n") == b""
        huge = b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 40_000 + b"\r\n\r\n"
        assert await http(front.port, huge) == b""
        # Still serving after all that.
        again = await http(front.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert again.startswith(b"HTTP/1.1 200")
        nursery.cancel_scope.cancel()


class Client:
    """A WebSocket client over trio, with wsproto."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)

    @classmethod
    async def open(cls, port: int) -> Client:
        client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await client.stream.send_all(client.ws.send(ws_events.Request(host="x", target="/ws")))
        assert isinstance(await client.event(), ws_events.AcceptConnection)
        return client

    async def event(self) -> ws_events.Event:
        with trio.fail_after(10):
            while True:
                for event in self.ws.events():
                    return event
                self.ws.receive_data(await self.stream.receive_some(65536) or None)

    async def send(self, text: str) -> None:
        await self.stream.send_all(self.ws.send(ws_events.TextMessage(data=text)))

    async def message(self) -> dict[str, Any]:
        event = await self.event()
        assert isinstance(event, ws_events.TextMessage), event
        parsed: dict[str, Any] = json.loads(event.data)
        return parsed


async def test_a_page_watches_without_a_token_and_bad_messages_get_one_line() -> None:
    async with trio.open_nursery() as nursery:
        front, table, logged = await start_front(nursery)
        client = await Client.open(front.port)
        first = await client.message()
        assert first["type"] == "state" and first["started"] is False and "you" not in first
        game = BughouseGame()
        table.emit(started(game, Clocks.new(60).start_all([Seat.A_WHITE, Seat.B_WHITE], 0)))
        assert (await client.message())["started"] is True
        answers = []
        for text in [
            "not json",
            "[1, 2]",
            '{"type": "move", "uci": "e2e4"}',
            '{"type": "sit", "seat": "B-White", "token": "wrong"}',
            '{"type": "sit", "seat": "A-White", "token": "x"}',
            '{"type": "sit", "seat": 5}',
            '{"type": "dance"}',
        ]:
            await client.send(text)
            answers.append((await client.message())["text"])
        assert answers == [
            "not JSON",
            "a message is an object with a 'type'",
            "take a seat first ('move' needs one)",
            "cannot sit at B-White: wrong token",
            "cannot sit at A-White: not a remote seat",
            "sit needs a seat and a token",
            "take a seat first ('dance' needs one)",
        ]
        assert all(table.tokens[Seat.B_WHITE] not in line for line in logged)
        # The right token seats the page; its snapshots then carry its legal moves.
        await client.send(
            json.dumps({"type": "sit", "seat": "wb", "token": table.tokens[Seat.B_WHITE]})
        )
        assert await client.message() == {"type": "seated", "seat": "B-White", "joined": "B-White"}
        mine = await client.message()
        assert mine["you"]["seat"] == "B-White" and "e2e4" in mine["you"]["legal"]
        await client.send('{"type": "move", "uci": "e2e4; rm -rf"}')
        assert (await client.message())["text"].startswith("a move is UCI text")
        # A message too big closes the socket, and the server carries on.
        await client.send("x" * 20_000)
        closing = await client.event()
        assert isinstance(closing, ws_events.CloseConnection) and closing.code == 1009
        other = await Client.open(front.port)
        assert (await other.message())["type"] == "state"
        nursery.cancel_scope.cancel()


async def test_a_page_that_sits_in_a_rotated_game_plays_its_players_seat() -> None:
    async with trio.open_nursery() as nursery:
        front, table, _ = await start_front(nursery)
        # Game 2 of a rotating run: B-White's player sits at B-Black.
        table.seat_players({Seat.B_WHITE: Seat.B_BLACK})
        table.emit(
            started(BughouseGame(), Clocks.new(60).start_all([Seat.A_WHITE, Seat.B_WHITE], 0))
        )
        client = await Client.open(front.port)
        assert (await client.message())["started"] is True
        await client.send(
            json.dumps({"type": "sit", "seat": "B-White", "token": table.tokens[Seat.B_WHITE]})
        )
        seated = await client.message()
        assert seated == {"type": "seated", "seat": "B-Black", "joined": "B-White"}
        mine = await client.message()
        assert mine["you"]["seat"] == "B-Black" and mine["you"]["joined"] == "B-White"
        assert mine["you"]["toMove"] is False
        nursery.cancel_scope.cancel()


def test_serve_web_options_are_checked(tmp_path: Path) -> None:
    for args, message in [
        (["--web", "http"], "--web takes a number, not 'http'"),
        (["--web", "70000"], "--web 70000 is out of range"),
        ([], "name at least one --remote seat, or --web"),
    ]:
        done = subprocess.run(
            [*SERVE, *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_a_taken_web_port_is_one_error_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*SERVE, "--port", "0", "--web", str(port), "--remote", "WB"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in done.stderr
