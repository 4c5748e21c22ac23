"""The server's parts in memory: rate limiter, addresses, authentication, a remote
seat's reconnect and grace under a mock clock, and the engine-side driver."""

from __future__ import annotations

import datetime
import math
import socket
from functools import partial
from pathlib import Path

import pytest
import trio
from cli_checks import expect_usage_error
from trio.testing import wait_all_tasks_blocked

from bughouse_arbiter.cli import main
from bughouse_arbiter.clients.link import parse_address
from bughouse_arbiter.commands import serve as serve_command
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.game import BoardResult, BughouseGame, PlayedMove
from bughouse_arbiter.core.model import SEATS, BoardId, Outcome, Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import UsageError
from bughouse_arbiter.net.limits import Limits, RateLimiter
from bughouse_arbiter.net.tcp import PING_EVERY, PONG_WAIT
from bughouse_arbiter.players.base import Action, Gone, MatchInfo, MoveAction, Player, TableState
from bughouse_arbiter.players.driver import PlayerDriver
from bughouse_arbiter.protocol import RawLine
from bughouse_arbiter.serve.listener import TcpFrontEnd
from bughouse_arbiter.serve.live_view import LiveView
from bughouse_arbiter.serve.remote import RemoteEnginePlayer, RemoteSeat
from bughouse_arbiter.serve.seam import AuthRefused, LiveTable
from bughouse_arbiter.table.match_events import MatchStarted

SEAT = Seat.B_WHITE
STATE = TableState(
    version=0,
    fens={BoardId.A: STARTING_FEN, BoardId.B: STARTING_FEN},
    clocks={seat: 60.0 for seat in SEATS},
)
INFO = MatchInfo(
    game_id="1",
    names={seat: seat.bpgn for seat in SEATS},
    rules=HouseRules(time=60),
    start_fens={BoardId.A: STARTING_FEN, BoardId.B: STARTING_FEN},
)


# -- limits and addresses ----------------------------------------------------------------


def test_the_rate_limiter_lets_a_burst_through_then_spaces_lines() -> None:
    limiter = RateLimiter(rate=10.0, burst=2)
    assert [limiter.delay(0.0) for _ in range(2)] == [0.0, 0.0]
    assert limiter.delay(0.0) == pytest.approx(0.1)
    assert limiter.delay(0.1) == 0.0  # a token grew back
    assert limiter.delay(0.1) == pytest.approx(0.1)
    assert limiter.delay(10.0) == 0.0 and limiter.tokens == pytest.approx(1.0)  # capped at burst


@pytest.mark.parametrize(
    ("text", "address"),
    [("127.0.0.1:7790", ("127.0.0.1", 7790)), ("[::1]:80", ("::1", 80)), ("host:1", ("host", 1))],
)
def test_addresses_are_read(text: str, address: tuple[str, int]) -> None:
    assert parse_address(text) == address


@pytest.mark.parametrize(
    ("text", "message"),
    [("7790", "expected HOST:PORT"), ("h:x", "not a number"), ("h:0", "out of range")],
)
def test_bad_addresses_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_address(text)


# -- authentication --------------------------------------------------------------------


class Holder:
    def __init__(self, *, connected: bool = False, lost: bool = False) -> None:
        self.connected = connected
        self.lost = lost

    async def attach(self, link: object) -> None:
        raise AssertionError("not in these tests")


def test_tokens_open_only_their_own_free_seat() -> None:
    logged: list[str] = []
    holders = {
        Seat.B_WHITE: Holder(),
        Seat.A_BLACK: Holder(connected=True),
        Seat.B_BLACK: Holder(lost=True),
    }
    table = LiveTable(HouseRules(), holders, names=dict, log=logged.append)  # type: ignore[arg-type]
    assert table.remote_seats == (Seat.A_BLACK, Seat.B_WHITE, Seat.B_BLACK)
    assert len(set(table.tokens.values())) == 3
    assert all(len(token) >= 20 and not token.startswith("-") for token in table.tokens.values())
    assert table.authenticate("wb", table.tokens[Seat.B_WHITE]) is Seat.B_WHITE
    refusals = [
        ("WB", "x", "wrong token"),
        ("WB", table.tokens[Seat.A_BLACK], "wrong token"),
        ("A-white", table.tokens[Seat.B_WHITE], "not a remote seat"),
        ("C-green", "x", "unknown seat"),
        ("A-black", table.tokens[Seat.A_BLACK], "seat taken"),
        ("BB", table.tokens[Seat.B_BLACK], "token used"),
    ]
    for seat, token, reason in refusals:
        with pytest.raises(AuthRefused) as caught:
            table.authenticate(seat, token)
        assert caught.value.reason == reason
    assert len(logged) == len(refusals)
    assert all(table.tokens[Seat.B_WHITE] not in line for line in logged)


def test_a_token_opens_its_seat_or_the_one_its_player_holds_this_game() -> None:
    logged: list[str] = []
    holders = {Seat.B_WHITE: Holder(), Seat.A_BLACK: Holder()}
    table = LiveTable(HouseRules(), holders, names=dict, log=logged.append)  # type: ignore[arg-type]
    assert table.seating == {Seat.A_BLACK: Seat.A_BLACK, Seat.B_WHITE: Seat.B_WHITE}
    # Game 2 of a rotating run: B-White's player sits at B-Black, A-Black's at A-White.
    table.seat_players({Seat.B_WHITE: Seat.B_BLACK, Seat.A_BLACK: Seat.A_WHITE})
    assert table.seat_of(Seat.B_WHITE) is Seat.B_BLACK
    white_b, black_a = table.tokens[Seat.B_WHITE], table.tokens[Seat.A_BLACK]
    # Either way in, the token's own seat is the one opened (its holder, its log name).
    assert table.authenticate("WB", white_b) is Seat.B_WHITE
    assert table.authenticate("BB", white_b) is Seat.B_WHITE
    assert table.authenticate("A-white", black_a) is Seat.A_BLACK
    refusals = [
        ("BB", black_a, "wrong token"),  # A-Black's player is not at B-Black
        ("WA", white_b, "wrong token"),
        ("B-black", "x", "wrong token"),
    ]
    for seat, token, reason in refusals:
        with pytest.raises(AuthRefused) as caught:
            table.authenticate(seat, token)
        assert caught.value.reason == reason
    # Back to the first game's seats: B-Black holds no remote player again.
    table.seat_players({Seat.B_WHITE: Seat.B_WHITE, Seat.A_BLACK: Seat.A_BLACK})
    with pytest.raises(AuthRefused, match="not a remote seat"):
        table.authenticate("BB", white_b)
    with pytest.raises(ValueError, match="every remote seat"):
        table.seat_players({Seat.B_WHITE: Seat.B_BLACK})


def test_a_failing_observer_is_dropped_and_the_others_still_hear() -> None:
    logged: list[str] = []
    table = LiveTable(HouseRules(), {SEAT: Holder()}, names=dict, log=logged.append)  # type: ignore[dict-item]
    heard: list[object] = []

    def broken(event: object) -> None:
        raise RuntimeError("bug in a front end")

    table.observe(broken)
    stop = table.observe(heard.append)
    table.emit("one")  # type: ignore[arg-type]
    table.emit("two")  # type: ignore[arg-type]
    stop()
    table.emit("three")  # type: ignore[arg-type]
    assert heard == ["one", "two"]
    assert len(logged) == 1 and "RuntimeError" in logged[0]


# -- a remote seat -----------------------------------------------------------------------


class FakeLink:
    """The test plays the engine at the other end."""

    peer = "test-peer"

    def __init__(self) -> None:
        self.human = False
        self.sent: list[str] = []
        self._in, self._out = trio.open_memory_channel[RawLine](math.inf)
        self.closed = False

    def send(self, line: str) -> None:
        self.sent.append(line)

    async def receive(self) -> RawLine | None:
        try:
            return await self._out.receive()
        except trio.EndOfChannel:
            return None

    async def aclose(self) -> None:
        self.closed = True

    def say(self, text: str) -> None:
        self._in.send_nowait(RawLine(text, len(text)))

    def hang_up(self) -> None:
        self._in.close()


async def seated(
    nursery: trio.Nursery, remote: RemoteSeat, *, human: bool = False
) -> tuple[RemoteEnginePlayer, FakeLink, trio.MemoryReceiveChannel[Action]]:
    """A remote player whose link has greeted it and been told a game with B-White to move
    (``human``: the link says a person plays)."""
    player = RemoteEnginePlayer(remote, nursery)
    link = FakeLink()
    link.human = human
    nursery.start_soon(remote.attach, link)
    await remote.wait_ready()
    send, receive = trio.open_memory_channel[Action](math.inf)
    nursery.start_soon(player.start, nursery, send)
    await wait_all_tasks_blocked()
    assert link.sent == ["bug 1"]
    link.say("id name Far Away")
    link.say("bugok")
    await wait_all_tasks_blocked()
    nursery.start_soon(player.new_game, INFO, STATE)
    await wait_all_tasks_blocked()
    link.say("readyok")
    await wait_all_tasks_blocked()
    await player.your_turn(SEAT, 7, STATE)
    assert link.sent[-1] == "go v 0 turn 1 board b"
    return player, link, receive


async def test_a_seat_that_comes_back_in_the_grace_is_told_the_whole_game(
    autojump_clock: trio.abc.Clock,
) -> None:
    async with trio.open_nursery() as nursery:
        remote = RemoteSeat(SEAT, grace=30.0)
        _player, link, actions = await seated(nursery, remote)
        link.hang_up()
        await wait_all_tasks_blocked()
        assert not remote.connected and link.closed
        await trio.sleep(10)
        again = FakeLink()
        nursery.start_soon(remote.attach, again)
        await wait_all_tasks_blocked()
        assert again.sent == ["bug 1"]
        again.say("bugok")
        await wait_all_tasks_blocked()
        keywords = [line.split()[0] for line in again.sent]
        assert keywords == [
            "bug",
            "newgame",
            "player",
            "player",
            "player",
            "player",
            "rules",
            "state",
            "go",
        ]
        assert again.sent[-1] == "go v 0 turn 2 board b"  # a new turn number
        # The clocks of the seats to move ran on while the seat was away.
        assert again.sent[-2].endswith(" clock 50000 60000 50000 60000")
        again.say("bestmove e2e4 turn 1")  # stale: the old turn
        again.say("bestmove e2e4 turn 2")
        await wait_all_tasks_blocked()
        action = actions.receive_nowait()
        assert action == MoveAction(seat=SEAT, token=7, move="e2e4")
        assert remote.reconnects == 1 and not remote.lost
        await trio.sleep(60)  # the grace that was running is over: nothing happens
        assert not remote.lost
        with pytest.raises(trio.WouldBlock):
            actions.receive_nowait()
        nursery.cancel_scope.cancel()


async def test_a_seat_that_does_not_come_back_leaves_at_the_end_of_the_grace(
    autojump_clock: trio.abc.Clock,
) -> None:
    async with trio.open_nursery() as nursery:
        remote = RemoteSeat(SEAT, grace=30.0)
        _player, link, actions = await seated(nursery, remote)
        dropped_at = trio.current_time()
        link.hang_up()
        gone = await actions.receive()
        assert trio.current_time() - dropped_at == pytest.approx(30.0)
        assert isinstance(gone, Gone) and gone.seat is SEAT
        assert gone.reason == "the engine left the table (did not come back within 30 s)"
        assert remote.lost
        nursery.cancel_scope.cancel()


async def test_a_person_who_does_not_come_back_is_said_to_have_left_as_a_person(
    autojump_clock: trio.abc.Clock,
) -> None:
    async with trio.open_nursery() as nursery:
        remote = RemoteSeat(SEAT, grace=30.0)
        _player, link, actions = await seated(nursery, remote, human=True)
        link.hang_up()
        gone = await actions.receive()
        assert isinstance(gone, Gone)
        assert gone.reason == "the person left the table (did not come back within 30 s)"
        nursery.cancel_scope.cancel()


# -- the engine side -------------------------------------------------------------------


class Recorder(Player):
    """Records the driver's calls; answers a turn with ``reply``."""

    def __init__(self, seat: Seat, reply: str) -> None:
        self.seats = (seat,)
        self.name = "Recorder"
        self.reply = reply
        self.calls: list[tuple[str, object]] = []
        self.actions: trio.MemorySendChannel[Action] | None = None

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self.actions = actions

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.calls.append(("new_game", (info.rules.time, dict(info.names), state.fens[BoardId.A])))

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.calls.append(("your_turn", (seat, token, state.clocks[seat])))
        assert self.actions is not None
        self.actions.send_nowait(MoveAction(seat=seat, token=token, move=self.reply))

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self.calls.append(("moved", (played.seat, played.san, state.fens[BoardId.A])))

    async def partner_says(self, seat: Seat, text: str) -> None:
        self.calls.append(("partner_says", text))

    async def board_ended(self, result: BoardResult) -> None:
        self.calls.append(("board_ended", result))

    async def game_over(self, outcome: Outcome) -> None:
        self.calls.append(("game_over", (outcome.termination.value, outcome.winner)))

    async def aclose(self) -> None:
        pass


async def test_the_driver_plays_a_local_player_from_the_servers_lines() -> None:
    player = Recorder(Seat.A_BLACK, reply="e5")  # SAN from the player, UCI on the wire
    sent: list[str] = []
    driver = PlayerDriver(player, sent.extend)
    fen = STARTING_FEN
    script = [
        "bug 1",
        "isready",
        "newgame id g1 seat a-black time 60000 inc 0",
        *(f"player {seat.slug} engine N{seat.bpgn}" for seat in SEATS),
        "rules time=60 increment=0",
        f"state v 0 a {fen} b {fen} clock 60000 60000 60000 60000",
        "event v 1 board a move e2e4 clock 59000 60000 60000 60000",
        "go v 1 turn 3 board a",
        "this is not a command",
        "ptell ++n",
        "boardover board b result 0-1 reason checkmate seat b-black text B-Black checkmated",
        "gameover result 1-0 reason resignation board a seat a-black text A-Black resigned",
        "quit",
        "isready",  # never read: the driver stopped at quit
    ]

    async def lines():  # type: ignore[no-untyped-def]
        for text in script:
            yield RawLine(text, len(text))
            await trio.sleep(0)

    async with trio.open_nursery() as nursery:
        await driver.run(nursery, lines())
        await wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert sent == ["id name Recorder", "bugok", "readyok", "bestmove e7e5 turn 3"]
    names = {seat: f"N{seat.bpgn}" for seat in SEATS}
    assert player.calls == [
        ("new_game", (60.0, names, fen)),
        (
            "moved",
            (Seat.A_WHITE, "e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"),
        ),
        ("your_turn", (Seat.A_BLACK, 3, 60.0)),
        ("partner_says", "++n"),
        (
            "board_ended",
            BoardResult(
                board=BoardId.B,
                winner=Seat.A_BLACK.team,
                termination=Termination.CHECKMATE,
                reason="B-Black checkmated",
                seat=Seat.B_BLACK,
            ),
        ),
        ("game_over", ("resignation", Seat.A_WHITE.team)),
    ]
    assert driver.quit


class Mover(Recorder):
    """A ``Recorder`` that can be moved to another seat between games."""

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        self.calls.append(("reseat", seats))
        self.seats = seats

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.reply = "Nc3" if seat.color else "Nc6"
        await super().your_turn(seat, token, state)


async def test_the_driver_moves_its_player_to_the_seat_each_newgame_names() -> None:
    fen = STARTING_FEN
    script = ["bug 1"]
    for game, seat, board in [("1", "b-white", "b"), ("2", "b-black", "b"), ("3", "a-white", "a")]:
        script += [
            f"newgame id {game} seat {seat} time 60000 inc 0",
            *(f"player {s.slug} engine N{s.bpgn}" for s in SEATS),
            "rules time=60 increment=0",
            f"state v 0 a {fen} b {fen} clock 60000 60000 60000 60000",
        ]
        if seat.endswith("black"):
            script.append(f"event v 1 board {board} move e2e4 clock 60000 60000 59000 60000")
        script += [
            f"go v {1 if seat.endswith('black') else 0} turn {game} board {board}",
            f"gameover result * reason aborted text game {game} stopped",
        ]
    script.append("quit")

    async def lines():  # type: ignore[no-untyped-def]
        for text in script:
            yield RawLine(text, len(text))
            await trio.sleep(0)

    for player in (Mover(Seat.B_WHITE, reply=""), Recorder(Seat.B_WHITE, reply="Nc3")):
        sent: list[str] = []
        logged: list[str] = []
        driver = PlayerDriver(player, sent.extend, log=logged.append)
        async with trio.open_nursery() as nursery:
            await driver.run(nursery, lines())
            await wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
        turns = [args for call, args in player.calls if call == "your_turn"]
        if isinstance(player, Mover):
            # Moved before it hears of games 2 and 3 (not for game 1: already there).
            reseats = [args for call, args in player.calls if call == "reseat"]
            assert reseats == [(Seat.B_BLACK,), (Seat.A_WHITE,)]
            assert [seat for seat, _, _ in turns] == [Seat.B_WHITE, Seat.B_BLACK, Seat.A_WHITE]
            # Each move in UCI for the seat it was played at.
            assert [line for line in sent if line.startswith("bestmove")] == [
                "bestmove b1c3 turn 1",
                "bestmove b8c6 turn 2",  # Nc6 read for B-Black
                "bestmove b1c3 turn 3",
            ]
            assert logged == []
        else:
            # A player that cannot move is said so in the log, once a game it could not.
            assert len(logged) == 2 and "cannot move to BB" in logged[0], logged


# -- bad input at the command line -----------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "name at least one --remote seat"),
        (["--remote", "C-green"], "unknown seat 'C-green'"),
        (["--remote", "WB", "--remote", "b-white"], "named twice"),
        (["--remote", "WB", "--engine", "WB=random"], "both --remote and --engine"),
        (["--remote", "WB", "--port", "http"], "--port takes a number"),
        (["--remote", "WB", "--port", "70000"], "out of range"),
        (["--remote", "WB", "--rule", "leaver=stay"], "takes one of lose, computer"),
        (["--remote", "WB", "--rule", "reconnect_grace=-1"], "must be >= 0"),
        (["--remote", "WB", "--tc", "fast"], "is not BASE+INC"),
        (["--remote", "WB", "--limit", "pages=lots"], "--limit pages: 'lots' is not a number"),
        (["--remote", "WB", "--limit", "sockets=9"], "expected NAME=VALUE with NAME one of"),
        (["--remote", "WB", "--allow-origin", "x.org"], "--allow-origin is for the live page"),
        (["--web", "0", "--allow-origin", "https://x.org/"], "give a host name"),
    ],
)
def test_serve_rejects_bad_options_in_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("serve", argv, message, capsys, tmp_path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["127.0.0.1", "--seat", "WB", "--token", "t", "--", "random"], "expected HOST:PORT"),
        (["127.0.0.1:1", "--seat", "WB", "--token", "t"], "name the engine after '--'"),
        (["127.0.0.1:1", "--seat", "WB", "--token", "a b", "--", "random"], "one printable word"),
        (["127.0.0.1:1", "--seat", "WB", "--token", "t", "--", "./nope"], "no such program"),
        (["127.0.0.1:1", "--seat", "C", "--token", "t", "--", "uci:/bin/true"], "unknown seat"),
    ],
)
def test_connect_rejects_bad_options_in_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("connect", argv, message, capsys, tmp_path)


def test_connect_to_nothing_says_so_and_exits_with_the_refused_status(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat not had is 3 (``exits.REFUSED``), apart from a usage error's 2."""
    monkeypatch.chdir(tmp_path)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert (
        main(["connect", f"127.0.0.1:{port}", "--seat", "WB", "--token", "t", "--", "random"]) == 3
    )
    err = capsys.readouterr().err
    assert err.startswith("bughouse connect: error: cannot connect to 127.0.0.1:")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--connect", "127.0.0.1:1"], "go together"),
        (["--token", "t"], "go together"),
        (
            ["--connect", "127.0.0.1:1", "--token", "t", "--tc", "5+0"],
            "--tc is the server's choice",
        ),
        (["--connect", "nowhere", "--token", "t"], "expected HOST:PORT"),
    ],
)
def test_play_connect_rejects_bad_options_in_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("play", argv, message, capsys, tmp_path)


async def test_a_client_back_between_games_is_greeted_before_the_next_game(
    autojump_clock: trio.abc.Clock,
) -> None:
    async with trio.open_nursery() as nursery:
        remote = RemoteSeat(SEAT, grace=30.0)
        player, link, _ = await seated(nursery, remote)
        await player.game_over(
            Outcome(termination=Termination.RESIGNATION, winner=None, reason="r")
        )
        await player.aclose()  # the end of game 1: the seat stays
        link.hang_up()
        await trio.sleep(100)  # no game on: no grace runs out
        assert not remote.lost
        again = FakeLink()
        nursery.start_soon(remote.attach, again)
        await wait_all_tasks_blocked()
        assert again.sent == ["bug 1"]
        send, _receive = trio.open_memory_channel[Action](math.inf)
        await player.start(nursery, send)  # game 2: no second greeting from start
        nursery.start_soon(player.new_game, INFO, STATE)
        await wait_all_tasks_blocked()
        assert again.sent == ["bug 1"]  # newgame waits for the greeting
        again.say("bugok")
        await wait_all_tasks_blocked()
        assert [line.split()[0] for line in again.sent][:3] == ["bug", "newgame", "player"]
        assert again.sent[-1] == "isready"
        nursery.cancel_scope.cancel()


# -- the TCP front end ------------------------------------------------------------------


async def serving(
    nursery: trio.Nursery, limits: Limits
) -> tuple[TcpFrontEnd, LiveTable, list[str]]:
    logged: list[str] = []
    remote = RemoteSeat(SEAT, grace=30.0)
    table = LiveTable(HouseRules(), {SEAT: remote}, names=dict, log=logged.append)
    front = TcpFrontEnd("127.0.0.1", 0, limits)
    await nursery.start(front.serve, table)
    return front, table, logged


async def read_all(stream: trio.SocketStream) -> bytes:
    data = b""
    with trio.fail_after(20):
        while chunk := await stream.receive_some(4096):
            data += chunk
    return data


async def test_past_the_limit_the_oldest_unauthenticated_connection_makes_room() -> None:
    async with trio.open_nursery() as nursery:
        front, table, logged = await serving(nursery, Limits(max_connections=2, auth_timeout=30))
        held = [await trio.open_tcp_stream("127.0.0.1", front.port) for _ in range(2)]
        await trio.sleep(0.2)
        extra = await trio.open_tcp_stream("127.0.0.1", front.port)
        # The oldest is told and closed; the newcomer can still authenticate.
        assert await read_all(held[0]) == b"error too many connections\n"
        assert front.turned_away == 1 and "too many connections" in logged[-1]
        await extra.send_all(f"auth WB {table.tokens[SEAT]}\n".encode())
        assert (await extra.receive_some(100)).startswith(b"auth ok WB")
        for stream in [*held, extra]:
            await stream.aclose()
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("data", "answer"),
    [
        (b"", b"auth refused no auth line\n"),  # silence until the timeout
        (b"\n\n\n", b"auth refused no auth line\n"),  # blank lines count
        (b"x" * 20000 + b"\n", b"auth refused expected 'auth <seat> <token>'\n"),
        (b"auth WB t extra\n", b"auth refused unknown option\n"),
        (b"auth WB t ping ping\n", b"auth refused unknown option\n"),
        (b"\xff\xfe\x00\n", b"auth refused expected 'auth <seat> <token>'\n"),
    ],
)
async def test_unauthenticated_connections_get_little(data: bytes, answer: bytes) -> None:
    async with trio.open_nursery() as nursery:
        front, _, _ = await serving(nursery, Limits(auth_timeout=0.5))
        stream = await trio.open_tcp_stream("127.0.0.1", front.port)
        await stream.send_all(data)
        assert await read_all(stream) == answer
        assert front.open_connections == 0
        nursery.cancel_scope.cancel()


async def test_a_peer_that_asked_for_pings_and_answers_none_is_dropped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        front, table, logged = await serving(nursery, Limits())
        stream = await trio.open_tcp_stream("127.0.0.1", front.port)
        await stream.send_all(f"auth WB {table.tokens[SEAT]} ping\n".encode())
        remote = table._holders[SEAT]
        while not remote.connected:
            await trio.sleep(0.1)
        attached = trio.current_time()
        with trio.fail_after(120):
            while remote.connected:  # never a pong
                await trio.sleep(0.1)
        assert trio.current_time() - attached == pytest.approx(PONG_WAIT + PING_EVERY, abs=0.3)
        assert logged[-1].endswith(f"left seat WB (no pong in {PONG_WAIT:g} s)")
        await stream.aclose()
        nursery.cancel_scope.cancel()


async def test_a_peer_that_does_not_read_loses_its_link() -> None:
    async with trio.open_nursery() as nursery:
        front, table, _ = await serving(nursery, Limits(max_queued=1000))
        stream = await trio.open_tcp_stream("127.0.0.1", front.port)
        await stream.send_all(f"auth WB {table.tokens[SEAT]}\n".encode())
        await trio.sleep(0.2)
        remote = table._holders[SEAT]
        assert remote.connected
        for _ in range(100):  # 10 kB waiting for a peer that reads nothing
            remote.send("x" * 100)  # type: ignore[attr-defined]
        with trio.fail_after(20):
            while remote.connected:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()


async def test_a_kept_serve_game_starts_its_remote_players_together_and_closes_one_that_cannot(
    autojump_clock: object,
) -> None:
    """``serve --games N``'s game with kept engines: every remote player starts
    at once under its own limit, and one that does not start in time is closed
    and stood in for (it leaves as the game begins)."""
    from fakes import FakePlayer

    from bughouse_arbiter.cli import build_parser
    from bughouse_arbiter.commands.serve import plan_from_args
    from bughouse_arbiter.table.games import play_game
    from bughouse_arbiter.table.keeper import START_TIMEOUT, EngineKeeper

    argv = ["serve", "--games", "2"] + [f"--remote={seat}" for seat in SEATS]
    plan = plan_from_args(build_parser().parse_args(argv), today=datetime.datetime(2026, 1, 1))
    # Three start in 10 s each; B-Black's never answers.
    players = [FakePlayer(seat, start_delay=10.0) for seat in SEATS[:3]]
    stuck = FakePlayer(Seat.B_BLACK, start_delay=math.inf)
    async with EngineKeeper.open() as keeper:
        record, _ = await play_game(
            [],
            plan.match.rules,
            game_id="3",
            keeper=keeper,
            others=[*players, stuck],
            observer=lambda event: None,
            stop_reason=lambda: "",
        )
        # Together: the game began when the stuck one's limit ran out, not after
        # the others' 30 s one by one.
        assert trio.current_time() == START_TIMEOUT
    outcome = record.outcome
    assert (outcome.termination, outcome.seat) == (Termination.LEFT, Seat.B_BLACK)
    assert outcome.reason == (
        f"B-Black left: failed to start: no answer within {START_TIMEOUT:g} s"
    ), outcome.reason
    assert stuck.closed_at == START_TIMEOUT
    assert all(player.starts == 1 and player.closed_at == START_TIMEOUT for player in players)
    assert {player.info.game_id for player in players} == {"3"}  # the third game


class FakeReplacement:
    """Stands in for the searcher's process under ``leaver=computer``."""

    label = "searcher"

    def __init__(self) -> None:
        self.sent: list[str] = []
        self._gone = trio.Event()

    async def start(self, nursery: trio.Nursery, *, on_lines: object = None) -> None:
        pass

    def send(self, line: str) -> None:
        self.sent.append(line)

    async def wait_eof(self) -> None:
        await self._gone.wait()


async def test_the_page_names_the_computer_that_took_a_seat_over(
    autojump_clock: trio.abc.Clock,
) -> None:
    """``leaver=computer``: once the engine holds the seat, the front ends are told,
    and the live page names both, as the record does."""
    async with trio.open_nursery() as nursery:
        remote = RemoteSeat(
            SEAT, grace=30.0, leaver="computer", replacement=FakeReplacement  # type: ignore[arg-type]
        )
        table = LiveTable(HouseRules(), {SEAT: remote}, names=dict, log=lambda text: None)
        names = {seat: seat.value for seat in Seat}
        names[SEAT] = "Alice"
        remote.on_replaced = partial(serve_command._taken_over, table, names, SEAT)
        view = LiveView()
        table.observe(view.apply)
        view.apply(MatchStarted(game=BughouseGame(), names=names, clocks=Clocks.new(60), now=0))
        _player, link, _actions = await seated(nursery, remote, human=True)
        link.hang_up()
        await trio.sleep(31)
        assert remote.replaced_by == "searcher"
        assert view.snapshot(31.0)["names"][SEAT.value] == "Alice / searcher"
        assert names[SEAT] == "Alice / searcher"  # table.names() says it too
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("rules", "draw", "label"),
    [
        ([], "both-teams", "default"),
        (["--rule=draw=humans"], "humans", "default"),
        (["--rule=profile=club"], "both-teams", "club"),
        (["--rule=profile=server"], "both-teams", "server"),
    ],
)
def test_a_served_table_needs_both_teams_for_a_draw_unless_told(
    rules: list[str], draw: str, label: str
) -> None:
    from bughouse_arbiter.cli import build_parser
    from bughouse_arbiter.commands.serve import plan_from_args

    argv = ["serve", "--remote=B-white", *rules]
    plan = plan_from_args(build_parser().parse_args(argv), today=datetime.datetime(2026, 1, 1))
    assert (plan.match.rules.draw, plan.match.rules.profile) == (draw, label)
    # The game file says it, and a replay reads it back.
    assert ("draw", draw) in plan.match.rules.to_pairs()
    assert HouseRules.from_pairs(
        [("profile", label), *plan.match.rules.to_pairs()]
    ) == plan.match.rules
