"""The live page's parts without a browser: snapshots, and the HTTP/WebSocket edge.

``LiveView`` is fed real arbiter events built on a real ``BughouseGame``;
the front end runs in-process on loopback and is spoken to with raw HTTP and
a ``wsproto`` client, bad input included.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import wsproto
import wsproto.events as ws_events
from cli_checks import BUGHOUSE, run_bughouse
from serve_helpers import Server

from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.game import BughouseGame, PartnerMessage
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.net.limits import Limits
from bughouse_arbiter.protocol.signals import signals_message
from bughouse_arbiter.serve.live_page import FULL_CLOSED, TABLE_FULL, WebFrontEnd
from bughouse_arbiter.serve.live_view import LiveView, moves_behind, moves_held
from bughouse_arbiter.serve.seam import LiveTable
from bughouse_arbiter.table.match_events import (
    DrawOffered,
    MatchEnded,
    MatchStarted,
    MovePlayed,
    PartnerTold,
)
from bughouse_arbiter.ui.table_view import display_san

SERVE = [*BUGHOUSE, "serve"]
SILENT = "no close from it (it answered no ping, or its network dropped)"
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
    message = PartnerMessage(seat=Seat.A_WHITE, text="++n")
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
    assert data["messages"] == [
        {"seat": "A-White", "to": "B-Black", "text": "++n", "words": "I want a knight: very good"}
    ]
    assert view.snapshot(5.0, seat=Seat.A_BLACK)["messages"] == []  # an opponent
    assert view.snapshot(5.0)["messages"] == []  # a spectator
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
    assert view.snapshot(0.5)["drawRule"] == "humans"
    assert LiveView().snapshot(0.0)["drawRule"] is None
    strict = LiveView()
    strict.apply(started(BughouseGame(HouseRules(draw="both-teams")), Clocks.new(60)))
    assert strict.snapshot(0.0)["drawRule"] == "both-teams"
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


# -- move lists ----------------------------------------------------------------------------


def play(view: LiveView, game: BughouseGame, moves: list[tuple[Seat, str]]) -> None:
    """Plays ``moves`` on ``game`` and tells ``view`` of each."""
    for seat, move in moves:
        played = game.push(seat, move)
        assert view.apply(MovePlayed(played=played, used=0.0, clocks=Clocks.new(60), now=0.0))


#: Both boards, interleaved: a capture on A passes a pawn that B-Black drops.
OPENING = [
    (Seat.A_WHITE, "e4"),
    (Seat.B_WHITE, "d4"),
    (Seat.A_BLACK, "d5"),
    (Seat.A_WHITE, "exd5"),
    (Seat.B_BLACK, "P@e5"),
    (Seat.B_WHITE, "dxe5"),
]


def moves_of(data: dict[str, Any], board: str) -> dict[str, Any]:
    moves: dict[str, Any] = json.loads(json.dumps(data))["boards"][board]["moves"]
    return moves


def test_each_board_lists_its_moves_with_numbers_and_drops_written_with_their_piece() -> None:
    game = BughouseGame()
    view = LiveView()
    view.apply(started(game, Clocks.new(60)))
    assert moves_of(view.snapshot(0.0), "A") == {"count": 0, "from": 0, "list": []}
    play(view, game, OPENING)
    data = view.snapshot(0.0)
    assert moves_of(data, "A") == {
        "count": 3,
        "from": 0,
        "list": [[1, "w", "e4"], [1, "b", "d5"], [2, "w", "exd5"]],
    }
    assert moves_of(data, "B") == {
        "count": 3,
        "from": 0,
        "list": [[1, "w", "d4"], [1, "b", "P@e5"], [2, "w", "dxe5"]],
    }
    assert data["boards"]["B"]["lastSan"] == "dxe5"
    assert moves_held(data) == {BoardId.A: 3, BoardId.B: 3}
    assert moves_behind(data) is False


def test_a_board_that_starts_with_black_to_move_numbers_from_its_fen() -> None:
    game = BughouseGame(fen_a="4k3/8/8/8/8/8/4P3/4K3 b - - 0 12")
    view = LiveView()
    view.apply(started(game, Clocks.new(60)))
    play(view, game, [(Seat.A_BLACK, "Kd7"), (Seat.A_WHITE, "e4"), (Seat.A_BLACK, "Kc6")])
    assert moves_of(view.snapshot(0.0), "A")["list"] == [
        [12, "b", "Kd7"],
        [13, "w", "e4"],
        [13, "b", "Kc6"],
    ]


def test_a_snapshot_carries_the_moves_from_what_the_page_holds_a_bounded_range_at_most() -> None:
    game = BughouseGame()
    view = LiveView(moves_per_snapshot=2)
    view.apply(started(game, Clocks.new(60)))
    play(view, game, OPENING)
    first = view.snapshot(0.0)
    assert moves_of(first, "A") == {"count": 3, "from": 0, "list": [[1, "w", "e4"], [1, "b", "d5"]]}
    assert moves_held(first) == {BoardId.A: 2, BoardId.B: 2}
    assert moves_behind(first) is True
    rest = view.snapshot(0.0, have={BoardId.A: 2, BoardId.B: 3})
    assert moves_of(rest, "A") == {"count": 3, "from": 2, "list": [[2, "w", "exd5"]]}
    assert moves_of(rest, "B") == {"count": 3, "from": 3, "list": []}
    assert moves_held(rest) == {BoardId.A: 3, BoardId.B: 3}
    assert moves_behind(rest) is False
    # A page claiming more than there is gets the count (it then drops the
    # excess); a negative claim counts as none.
    odd = view.snapshot(0.0, have={BoardId.A: 99, BoardId.B: -5})
    assert moves_of(odd, "A") == {"count": 3, "from": 3, "list": []}
    assert moves_of(odd, "B") == {"count": 3, "from": 0, "list": [[1, "w", "d4"], [1, "b", "P@e5"]]}


def test_a_new_game_starts_its_move_lists_empty() -> None:
    view = LiveView()
    first = BughouseGame()
    view.apply(started(first, Clocks.new(60)))
    play(view, first, OPENING)
    outcome = first.resign(Seat.A_BLACK)
    assert outcome is not None
    view.apply(MatchEnded(game=first, names=NAMES, outcome=outcome, clocks=Clocks.new(60), now=1))
    ended = view.snapshot(1.0)
    assert ended["game"] == 1 and moves_of(ended, "A")["count"] == 3  # kept to the end
    second = BughouseGame()
    view.apply(started(second, Clocks.new(60)))
    data = view.snapshot(2.0, have={BoardId.A: 3, BoardId.B: 3})
    assert data["game"] == 2
    assert moves_of(data, "A") == {"count": 0, "from": 0, "list": []}
    assert moves_of(data, "B") == {"count": 0, "from": 0, "list": []}
    play(view, second, [(Seat.B_WHITE, "Nf3")])
    data = view.snapshot(2.0)
    assert moves_of(data, "A") == {"count": 0, "from": 0, "list": []}
    assert moves_of(data, "B") == {"count": 1, "from": 0, "list": [[1, "w", "Nf3"]]}
    # A third game that ends before it starts (a player failed to start) is
    # a new game too: nothing of the second one's is listed under it.
    third = BughouseGame()
    aborted = third.abort("B-Black did not start")
    assert aborted is not None
    view.apply(MatchEnded(game=third, names=NAMES, outcome=aborted, clocks=Clocks.new(60), now=3))
    data = view.snapshot(3.0)
    assert data["game"] == 3 and data["result"]["reason"] == "B-Black did not start"
    assert moves_of(data, "B") == {"count": 0, "from": 0, "list": []}


def take(page: dict[str, list[list[Any]]], data: dict[str, Any]) -> None:
    """What live.js does with a snapshot's move ranges (a gap never happens here)."""
    for board, info in json.loads(json.dumps(data))["boards"].items():
        moves = info["moves"]
        held = page.setdefault(board, [])
        assert moves["from"] <= len(held)
        del held[moves["from"] :]
        held.extend(moves["list"])


def test_a_page_joining_mid_game_ends_up_with_every_move_while_play_goes_on() -> None:
    game = BughouseGame()
    view = LiveView(moves_per_snapshot=7)
    view.apply(started(game, Clocks.new(60)))
    pick = random.Random(7)

    def play_plies(n: int) -> None:
        for _ in range(n):
            seat = pick.choice([s for s in game.seats_to_move() if game.board(s.board).legal_moves])
            move = pick.choice(sorted(game.board(seat.board).legal_moves, key=lambda m: m.uci()))
            play(view, game, [(seat, move.uci())])

    play_plies(40)
    page: dict[str, list[list[Any]]] = {}
    have: dict[BoardId, int] = {}
    sent = 0
    while True:  # one snapshot per change, the next range at once while behind
        data = view.snapshot(0.0, have=have)
        take(page, data)
        have, sent = moves_held(data), sent + 1
        if sent == 2:
            play_plies(5)  # moves arrive while the page catches up
        if not moves_behind(data):
            break
    for board in BoardId:
        expected = [
            [m.number, "w" if m.seat.color else "b", display_san(m.san)]
            for m in game.moves
            if m.board is board
        ]
        assert page[board.value] == expected
        assert have[board] == len(expected)
    assert sum(len(moves) for moves in page.values()) == 45
    assert sent == -(-max(len(moves) for moves in page.values()) // 7)


# -- the server edge ---------------------------------------------------------------------


class Holder:
    connected = False
    lost = False

    async def attach(self, link: Any) -> None:
        link.send("bug")
        while await link.receive() is not None:
            pass


async def start_front(
    nursery: trio.Nursery, limits: Limits | None = None
) -> tuple[WebFrontEnd, LiveTable, list[str]]:
    logged: list[str] = []
    table = LiveTable(HouseRules(), {Seat.B_WHITE: Holder()}, names=dict, log=logged.append)  # type: ignore[dict-item]
    front = WebFrontEnd("127.0.0.1", 0, limits)
    await nursery.start(front.serve, table)
    return front, table, logged


async def http(port: int, request: bytes) -> bytes:
    """The whole answer to one request (the connection closed after it, as asked)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    line, crlf, rest = request.partition(b"\r\n")
    if crlf and b"HTTP/1.1" in line:
        request = line + b"\r\nConnection: close\r\n" + rest
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
        page = await http(front.port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        head, _, body = page.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        assert b"content-security-policy: default-src 'none'" in head.lower()
        assert b'src="/assets/live.js"' in body
        script = await http(
            front.port, b"GET /assets/chessground.min.js HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        assert script.startswith(b"HTTP/1.1 200") and b"Chessground" in script
        for target in [b"/assets/../live_server.py", b"/assets/README.md", b"/etc/passwd", b"/ws"]:
            request = b"GET " + target + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"
            answer = await http(front.port, request)
            assert answer.startswith(b"HTTP/1.1 404"), target
        post = await http(
            front.port, b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"
        )
        assert post.startswith(b"HTTP/1.1 405")
        # Junk gets a 400 (Hypercorn's), a head past the bound no answer at all.
        assert (await http(front.port, b"\x00\xff junk\r\n\r\n")).startswith(b"HTTP/1.1 400")
        huge = b"GET / HTTP/1.1\r\nHost: localhost\r\nX: " + b"a" * 200_000 + b"\r\n\r\n"
        assert not (await http(front.port, huge)).startswith(b"HTTP/1.1 200")
        # Still serving after all that.
        again = await http(front.port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert again.startswith(b"HTTP/1.1 200")
        nursery.cancel_scope.cancel()


class Client:
    """A WebSocket client over trio, with wsproto."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)

    @classmethod
    async def open(cls, port: int, target: str = "/ws") -> Client:
        client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        request = ws_events.Request(host="localhost", target=target)
        await client.stream.send_all(client.ws.send(request))
        assert isinstance(await client.event(), ws_events.AcceptConnection)
        return client

    async def event(self) -> ws_events.Event:
        with trio.fail_after(10):
            while True:
                for event in self.ws.events():
                    if isinstance(event, ws_events.Ping):  # as a browser does
                        await self.stream.send_all(self.ws.send(event.response()))
                        continue
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
        name = "Alice <b>\u202e" + "x" * 100
        await client.send(
            json.dumps(
                {"type": "sit", "seat": "wb", "token": table.tokens[Seat.B_WHITE], "name": name}
            )
        )
        seated = await client.message()
        assert seated.pop("signals") == signals_message()["signals"]
        assert seated == {
            "type": "seated",
            "seat": "B-White",
            "joined": "B-White",
            "name": "Alice b" + "x" * 23,
        }
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


async def test_past_the_watchers_limit_a_page_may_only_sit_and_is_closed_if_it_does_not() -> None:
    async with trio.open_nursery() as nursery:
        front, table, logged = await start_front(nursery, Limits(pages=1, auth_timeout=1))
        watcher = await Client.open(front.port)
        assert (await watcher.message())["type"] == "state"
        # A second page gets no snapshot, only the line saying why, and may sit.
        player = await Client.open(front.port)
        told = await player.message()
        assert told == {"type": "error", "text": TABLE_FULL}
        await player.send('{"type": "sit", "seat": "wb", "token": "wrong"}')
        assert (await player.message())["text"] == "cannot sit at wb: wrong token"
        await player.send(
            json.dumps({"type": "sit", "seat": "wb", "token": table.tokens[Seat.B_WHITE]})
        )
        # Seated, it gets the seat's snapshots (they may come before the word "seated").
        got = [await player.message(), await player.message()]
        assert sorted(m["type"] for m in got) == ["seated", "state"]
        assert next(m for m in got if m["type"] == "state")["you"]["seat"] == "B-White"
        # A third that does not sit in time is closed, saying why.
        stranger = await Client.open(front.port)
        assert (await stranger.message())["text"] == TABLE_FULL
        assert (await stranger.message())["text"] == FULL_CLOSED
        closing = await stranger.event()
        assert isinstance(closing, ws_events.CloseConnection) and closing.code == 1013
        assert any("page closed, the table is full" in line for line in logged)
        # The seated page and the watcher were left alone.
        assert len(front.pages) == 1 and len(front.overflow) == 0
        nursery.cancel_scope.cancel()


async def test_a_connection_that_sends_no_request_is_closed_after_the_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        front, _, _ = await start_front(nursery, Limits(requests=2, auth_timeout=30))
        idle = [await trio.open_tcp_stream("127.0.0.1", front.port) for _ in range(3)]
        began = trio.current_time()
        # Newcomers get their page meanwhile.
        page = await http(front.port, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert page.startswith(b"HTTP/1.1 200")
        with trio.fail_after(60):
            for stream in idle:
                assert await stream.receive_some(4096) == b""
        assert trio.current_time() - began == pytest.approx(30, abs=0.5)
        nursery.cancel_scope.cancel()


async def test_a_bug_in_one_pages_handling_ends_that_page_only_with_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bughouse_arbiter.serve import live_page as live_server

    parse = live_server.page_message

    def buggy(text: str) -> dict[str, Any] | str:
        if text == "boom":
            raise RuntimeError("a bug")
        return parse(text)

    monkeypatch.setattr(live_server, "page_message", buggy)
    async with trio.open_nursery() as nursery:
        front, _, logged = await start_front(nursery)
        victim, other = await Client.open(front.port), await Client.open(front.port)
        assert (await victim.message())["type"] == (await other.message())["type"] == "state"
        await victim.send("boom")
        with trio.fail_after(10):
            while await victim.stream.receive_some(65536):
                pass
        assert [line for line in logged if "failed" in line] == [
            f"web 127.0.0.1:{victim.stream.socket.getsockname()[1]}: "
            "connection failed (RuntimeError: a bug)"
        ]
        await other.send("[]")
        assert (await other.message())["text"] == "a message is an object with a 'type'"
        nursery.cancel_scope.cancel()


async def test_a_page_that_does_not_answer_pings_is_closed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        front, _, logged = await start_front(nursery, Limits(ping_every=3))
        page = await Client.open(front.port)
        assert (await page.message())["type"] == "state"
        # Reading on, but never answering a ping (as a stalled socket would not).
        started = trio.current_time()
        with trio.fail_after(60):
            while await page.stream.receive_some(65536):
                pass
        assert trio.current_time() - started == pytest.approx(6, abs=0.1)
        await trio.sleep(1)
        assert logged[-1].endswith("page closed, " + SILENT)
        nursery.cancel_scope.cancel()


class TakenHolder:
    """A remote seat that one link at a time holds."""

    connected = False
    lost = False

    async def attach(self, link: Any) -> None:
        self.connected = True
        try:
            link.send("bug")
            while await link.receive() is not None:
                pass
        finally:
            self.connected = False


async def test_a_player_whose_old_page_went_silent_sits_again_once_pings_close_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    logged: list[str] = []
    table = LiveTable(HouseRules(), {Seat.B_WHITE: TakenHolder()}, names=dict, log=logged.append)  # type: ignore[dict-item]
    front = WebFrontEnd("127.0.0.1", 0, Limits(ping_every=3))
    sit = json.dumps({"type": "sit", "seat": "wb", "token": table.tokens[Seat.B_WHITE]})
    async with trio.open_nursery() as nursery:
        await nursery.start(front.serve, table)
        old = await Client.open(front.port)
        await old.send(sit)
        while (await old.message())["type"] != "seated":
            pass
        # The old page goes silent (a laptop asleep, a new network): no close, no pong.
        new = await Client.open(front.port)
        await new.send(sit)
        said = [await new.message() for _ in range(2)]
        assert {"type": "error", "text": "waiting for wb: another connection holds it"} in said
        started = trio.current_time()
        while (await new.message())["type"] != "seated":
            pass
        assert 3 <= trio.current_time() - started <= 6 + 0.5
        assert any("page closed, " + SILENT in line for line in logged)
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
        assert seated["seat"] == "B-Black" and seated["joined"] == "B-White"
        assert seated["name"] == "web B-White"  # no name given
        mine = await client.message()
        assert mine["you"]["seat"] == "B-Black" and mine["you"]["joined"] == "B-White"
        assert mine["you"]["toMove"] is False
        nursery.cancel_scope.cancel()


def emit_moves(table: LiveTable, game: BughouseGame, moves: list[tuple[Seat, str]]) -> None:
    for seat, move in moves:
        played = game.push(seat, move)
        table.emit(MovePlayed(played=played, used=0.0, clocks=Clocks.new(60), now=0.0))


async def ranges(client: Client) -> list[tuple[str, int, int, int]]:
    """Reads snapshots until the page has every move; each board's (board, from, count, len)."""
    seen = []
    while True:
        data = await client.message()
        assert data["type"] == "state", data
        for board, info in data["boards"].items():
            moves = info["moves"]
            seen.append((board, moves["from"], moves["count"], len(moves["list"])))
        if not moves_behind(data):
            return seen


async def test_pages_get_the_move_lists_in_ranges_from_what_they_hold() -> None:
    async with trio.open_nursery() as nursery:
        front, table, _ = await start_front(nursery)
        front.view = LiveView(run="5f0c", moves_per_snapshot=2)
        game = BughouseGame()
        table.emit(started(game, Clocks.new(60)))
        emit_moves(table, game, OPENING)
        # Joining mid-game: every move, two per board and snapshot, sent at once.
        joined = await Client.open(front.port)
        assert await ranges(joined) == [
            ("A", 0, 3, 2),
            ("B", 0, 3, 2),
            ("A", 2, 3, 1),
            ("B", 2, 3, 1),
        ]
        # Coming back with some: the rest only. Another game's, another run's
        # (a restarted server) or unreadable counts: all.
        back = await Client.open(front.port, "/ws?run=5f0c&game=1&A=3&B=1")
        assert await ranges(back) == [("A", 3, 3, 0), ("B", 1, 3, 2)]
        for target in [
            "/ws?run=5f0c&game=7&A=3&B=3",
            "/ws?run=77aa&game=1&A=3&B=3",
            "/ws?game=1&A=3&B=3",
            "/ws?run=5f0c&game=1&A=-1&B=9999999999",
            "/ws?run=5f0c&game=1&A=x",
            "/ws?run=<b>&game=1&A=3&B=3",
        ]:
            other = await Client.open(front.port, target)
            assert (await ranges(other))[:2] == [("A", 0, 3, 2), ("B", 0, 3, 2)], target
        # A page that finds a gap says what it holds, and gets the moves from there.
        await back.send(json.dumps({"type": "moves", "game": 1, "have": {"A": 1}}))
        assert await ranges(back) == [
            ("A", 1, 3, 2),
            ("B", 0, 3, 2),
            ("A", 3, 3, 0),
            ("B", 2, 3, 1),
        ]
        for bad in [
            {"type": "moves"},
            {"type": "moves", "game": 1, "have": {"C": 1}},
            {"type": "moves", "game": 1, "have": {"A": -1}},
            {"type": "moves", "game": 1, "have": {"A": True}},
            {"type": "moves", "game": "1", "have": {"A": 1}},
            {"type": "moves", "game": 1, "have": [1, 2]},
        ]:
            await back.send(json.dumps(bad))
            answer = await back.message()
            assert answer["type"] == "error", bad
            assert answer["text"].startswith("moves needs the game and a count per board")
        # A new move: each page gets just that one.
        emit_moves(table, game, [(Seat.A_BLACK, "Nc6")])
        for page in (joined, back):
            data = await page.message()
            assert data["boards"]["A"]["moves"] == {
                "count": 4,
                "from": 3,
                "list": [[2, "b", "Nc6"]],
            }
            assert data["boards"]["B"]["moves"] == {"count": 3, "from": 3, "list": []}
        # A new game: the lists start again, whatever the pages held.
        outcome = game.resign(Seat.A_BLACK)
        assert outcome is not None
        table.emit(
            MatchEnded(game=game, names=NAMES, outcome=outcome, clocks=Clocks.new(60), now=1)
        )
        second = BughouseGame()
        table.emit(started(second, Clocks.new(60)))
        emit_moves(table, second, [(Seat.B_WHITE, "e4")])
        for page in (joined, back):
            data = await page.message()
            while data["game"] != 2 or data["boards"]["B"]["moves"]["count"] < 1:
                data = await page.message()
            assert data["boards"]["A"]["moves"] == {"count": 0, "from": 0, "list": []}
            assert data["boards"]["B"]["moves"] == {"count": 1, "from": 0, "list": [[1, "w", "e4"]]}
        nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_serve_web_options_are_checked(tmp_path: Path) -> None:
    for args, message in [
        (["--web", "http"], "--web takes a number, not 'http'"),
        (["--web", "70000"], "--web 70000 is out of range"),
        ([], "name at least one --remote seat, or --web"),
    ]:
        done = run_bughouse("serve", *args, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_taken_web_port_is_one_error_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = ["serve", "--port", "0", "--web", str(port), "--remote", "WB"]
        done = run_bughouse(*argv, cwd=tmp_path)
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in done.stderr


def test_partner_messages_reach_only_the_pages_of_the_senders_team() -> None:
    """Signals go only to the partner: a seated page gets its team's messages,
    opponents and spectators none, during the game and after it."""
    game = BughouseGame()
    view = LiveView()
    view.apply(started(game, Clocks.new(60)))
    view.apply(PartnerTold(message=PartnerMessage(seat=Seat.A_WHITE, text="---trades"), now=1))
    view.apply(PartnerTold(message=PartnerMessage(seat=Seat.A_BLACK, text="++n"), now=2))
    team_1 = [
        {"seat": "A-White", "to": "B-Black", "text": "---trades", "words": "any trade mates me"}
    ]
    team_2 = [
        {"seat": "A-Black", "to": "B-White", "text": "++n", "words": "I want a knight: very good"}
    ]

    def shown(seat: Seat | None) -> list[dict[str, str]]:
        messages: list[dict[str, str]] = view.snapshot(3.0, seat=seat)["messages"]
        return messages

    assert shown(Seat.A_WHITE) == shown(Seat.B_BLACK) == team_1
    assert shown(Seat.A_BLACK) == shown(Seat.B_WHITE) == team_2
    assert shown(None) == []
    outcome = game.resign(Seat.B_WHITE)
    assert outcome is not None
    view.apply(MatchEnded(game=game, names=NAMES, outcome=outcome, clocks=Clocks.new(60), now=4))
    assert shown(None) == [] and shown(Seat.B_WHITE) == team_2 and shown(Seat.B_BLACK) == team_1


def test_a_rotated_players_page_gets_the_messages_of_the_team_it_plays_for_now() -> None:
    game = BughouseGame()
    view = LiveView()
    # The player who joined as A-White plays A-Black in this game.
    view.apply(started(game, Clocks.new(60)), seating={Seat.A_WHITE: Seat.A_BLACK})
    view.apply(PartnerTold(message=PartnerMessage(seat=Seat.B_WHITE, text="sit, I'm mated"), now=1))
    view.apply(PartnerTold(message=PartnerMessage(seat=Seat.B_BLACK, text="go"), now=2))
    shown = view.snapshot(3.0, seat=Seat.A_WHITE)["messages"]
    assert [(m["text"], m["words"]) for m in shown] == [("sit, I'm mated", None)]  # a sentence


@pytest.mark.slow
async def test_a_page_sits_under_its_name_and_leaving_is_a_persons(tmp_path: Path) -> None:
    """A real ``serve --web``: the sit message's name, cleaned, is the seat's name
    on every page and in the record; the person's draw offer alone ends nothing
    (draw=both-teams); a page that closes and does not come back within the
    grace has left as a person."""
    slow = f"{sys.executable} {Path(__file__).parent.parent / 'engines' / 'random_mover.py'}"
    engines = [f"--engine={seat}={slow} --delay 1500" for seat in ("A-white", "A-black", "B-black")]
    server = Server(
        tmp_path, "--web=0", "--remote=B-white", *engines, "--tc=60+0", "--rule=reconnect_grace=1"
    )
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=1)
            page = next(line for line in server.lines if line.startswith("live page: "))
            port = int(page.rstrip("/").rsplit(":", 1)[1])
            client = await Client.open(port)
            token = server.tokens["b-white"]
            await client.send(
                json.dumps({"type": "sit", "seat": "b-white", "token": token, "name": "Al <i>ce"})
            )
            while (data := await client.message())["type"] != "seated":
                pass
            assert data["name"] == "Al ice"
            while not (data := await client.message()).get("started"):
                pass
            assert data["names"]["B-White"] == "Al ice"
            assert data["drawRule"] == "both-teams"
            # One person among three engines offers a draw: nothing ends.
            await client.send('{"type": "draw"}')
            with trio.move_on_after(10):  # (a move on board A may hide it: the record tells)
                while (data := await client.message()).get("drawOffer") != "B-White":
                    assert data.get("result") is None
            await client.stream.aclose()  # the page closes, and does not come back
            assert await server.wait() == 0, server.err
    text = server.out.read_text()
    assert '[WhiteB "Al ice"]' in text
    assert "draw=both-teams" in text and "{[%draw WB " in text
    assert (
        '[TerminationReason "B-White left: the person left the table '
        '(did not come back within 1 s)"]' in text
    )


async def test_watchers_in_step_share_one_snapshot_text_per_change() -> None:
    front = WebFrontEnd("127.0.0.1", 0)
    game = BughouseGame()
    front.view.apply(started(game, Clocks.new(60)))
    made: list[dict[BoardId, int]] = []
    snapshot = front.view.snapshot

    def counted(now: float, **kwargs: Any) -> dict[str, Any]:
        made.append(dict(kwargs.get("have") or {}))
        return snapshot(now, **kwargs)

    front.view.snapshot = counted  # type: ignore[method-assign]
    play(front.view, game, [(Seat.A_WHITE, "e2e4")])
    texts = [front.watcher_snapshot({}) for _ in range(3)]
    assert len(made) == 1 and texts[0] is texts[1] is texts[2]
    data, text = texts[0]
    assert json.loads(text) == data and data["boards"]["A"]["moves"]["count"] == 1
    # A watcher holding the move is answered apart; the next move is a new snapshot for all.
    held = moves_held(data)
    assert front.watcher_snapshot(held)[0]["boards"]["A"]["moves"]["list"] == []
    play(front.view, game, [(Seat.A_BLACK, "e7e5")])
    first, again = front.watcher_snapshot(held), front.watcher_snapshot(held)
    assert first is again and first[0]["boards"]["A"]["moves"]["count"] == 2
    assert made == [{}, held, held]
