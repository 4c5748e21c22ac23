"""The ``Hall`` in one trio run with real engines: a failing table, bots, the seat messages."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.clients.lobby_link import LinePort, open_lobby
from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.hall.line_lobby import serve_line_lobby
from bughouse_arbiter.hall.runtime import Encoded, Hall, JoinRefused
from bughouse_arbiter.hall.tables import TableHost
from bughouse_arbiter.lobby.archive import GameFinished, GameStarted
from bughouse_arbiter.lobby.identity import Identity
from bughouse_arbiter.lobby.model import Lobby
from bughouse_arbiter.lobby.shown import apply_diff
from bughouse_arbiter.players.base import ResignAction
from bughouse_arbiter.protocol.lobby_lines import Hello
from bughouse_arbiter.serve.live_page import WebPlayer
from bughouse_arbiter.serve.seam import LiveTable
from bughouse_arbiter.table.arbiter import MatchEnded
from bughouse_arbiter.table.match_events import MatchStarted, SeatTakenOver

TIMEOUT = 60


class Inbox:
    """What the hall sends one member."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._changed = trio.Event()

    def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._changed.set()
        self._changed = trio.Event()

    async def next(self, kind: str) -> dict[str, Any]:
        while True:
            for message in self.messages:
                if message["type"] == kind:
                    self.messages.remove(message)
                    return message
            await self._changed.wait()


async def sit_and_start(hall: Hall, name: str) -> tuple[Inbox, dict[str, Any]]:
    inbox = Inbox()
    member = hall.join(Identity(name), inbox.send)
    hall.handle(member, {"type": "create", "tc": "120+0", "fill_after": 30})
    table = (await inbox.next("created"))["table"]
    hall.handle(member, {"type": "sit", "table": table, "seat": "A-white"})
    hall.handle(member, {"type": "start", "table": table})
    return inbox, await inbox.next("seat")


async def take(hall: Hall, nursery: trio.Nursery, seat: dict[str, Any], name: str) -> WebPlayer:
    """Takes the seat as the table page does: a ``WebPlayer`` on a memory link."""
    live = hall.live_table(seat["table"])
    assert live is not None
    live.observe(lambda event: started.add(live) if isinstance(event, MatchStarted) else None)
    joined = live.authenticate(seat["seat"], seat["token"])
    player = WebPlayer(live.seat_of(joined), name, on_turn=lambda: None)
    await nursery.start(player.run, live, joined, name)
    return player


#: The tables whose game has started.
started: set[LiveTable] = set()


async def resign(player: WebPlayer, hall: Hall, table: str) -> None:
    """Resigns once the game is on (an action before it would be lost)."""
    while hall.live_table(table) not in started:
        await trio.sleep(0.05)
    player.act(ResignAction(seat=player.seat, arrived_at=trio.current_time()))


async def ended(hall: Hall, table: str) -> None:
    while hall.lobby.tables[table].state != "between":
        await trio.sleep(0.05)


@pytest.mark.slow
async def test_an_exception_at_one_table_ends_that_table_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logged: list[str] = []
    hall = Hall(tmp_path, log=logged.append, join_timeout=20)
    real_play = TableHost._play

    async def play(self: TableHost, *args: Any) -> None:
        if self.id == "t1":
            raise RuntimeError("a bug at this table")
        await real_play(self, *args)

    monkeypatch.setattr(TableHost, "_play", play)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            alice, one = await sit_and_start(hall, "alice")
            _bob, two = await sit_and_start(hall, "bob")
            await take(hall, nursery, one, "alice")
            bobs = await take(hall, nursery, two, "bob")
            told = await alice.next("error")
            assert told["text"] == "t1: the table failed and was closed"
            assert "t1" not in hall.lobby.tables
            while "t1" in hall.hosts:
                await trio.sleep(0.01)
            await trio.sleep(1)  # the other game goes on
            await resign(bobs, hall, "t2")
            await ended(hall, "t2")
            nursery.cancel_scope.cancel()
    assert any("table t1: failed (" in line and "a bug at this table" in line for line in logged), (
        logged
    )
    (game,) = read_games((tmp_path / "t2.bpgn").read_text())
    assert game.tags["WhiteA"] == "bob" and game.tags["Termination"] == "resignation"
    assert not (tmp_path / "t1.bpgn").exists()


@pytest.mark.slow
async def test_a_bot_is_offered_its_seat_and_plays_there(tmp_path: Path) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            ticket = hall.add_bot(Identity("botty", "bot"), [TimeControl(120.0)])
            with pytest.raises(JoinRefused):
                hall.join(Identity("botty"), lambda message: None)
            _alice, seat = await sit_and_start(hall, "alice")
            offered = await ticket.next_seat()
            assert offered is not None
            live, bot_seat = offered
            assert live is hall.live_table(seat["table"])
            bot = WebPlayer(live.seat_of(bot_seat), "botty", on_turn=lambda: None)
            await nursery.start(bot.run, live, bot_seat, "botty")
            person = await take(hall, nursery, seat, "alice")
            view = hall.lobby.view()
            kinds = sorted(s["kind"] for s in view["tables"][0]["seats"].values())  # type: ignore[index]
            assert kinds == ["bot", "computer", "computer", "guest"]
            await resign(person, hall, seat["table"])
            await ended(hall, seat["table"])
            ticket.leave()
            assert await ticket.next_seat() is None
            nursery.cancel_scope.cancel()
    (game,) = read_games((tmp_path / f"{seat['table']}.bpgn").read_text())
    assert "botty" in game.tags.values() and game.tags["WhiteA"] == "alice"


async def test_a_player_back_in_the_lobby_is_told_its_seat_again(tmp_path: Path) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            _alice, seat = await sit_and_start(hall, "alice")
            hall.leave(next(iter(hall.members.values())))
            again = Inbox()
            hall.join(Identity("alice"), again.send)
            assert await again.next("seat") == seat
            nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_a_player_back_after_a_rematch_is_told_the_seat_held_now(tmp_path: Path) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            _alice, seat = await sit_and_start(hall, "alice")
            table = seat["table"]
            player = await take(hall, nursery, seat, "alice")
            await resign(player, hall, table)
            await ended(hall, table)
            assert hall._rematch(table, "alice") is None  # the computers accept
            live = hall.hosts[table].live
            while live.seat_of(Seat.A_WHITE) != Seat.A_BLACK:  # game 2, colours swapped
                await trio.sleep(0.05)
            hall.leave(next(iter(hall.members.values())))
            again = Inbox()
            hall.join(Identity("alice"), again.send)
            told = await again.next("seat")
            assert told["seat"] == "A-black" and told["token"] == seat["token"]
            assert told["url"] == f"/table/{table}?seat=A-black#token={seat['token']}"
            nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_a_rematch_asked_the_moment_a_page_hears_gameover_is_granted(
    tmp_path: Path,
) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            _alice, seat = await sit_and_start(hall, "alice")
            table = seat["table"]
            live = hall.live_table(table)
            assert live is not None
            asked: list[str | None] = []

            def on_gameover(event: object) -> None:  # as the page's button, at once
                if isinstance(event, MatchEnded) and not asked:
                    asked.append(hall._rematch(table, "alice"))

            live.observe(on_gameover)
            player = await take(hall, nursery, seat, "alice")
            await resign(player, hall, table)
            while not asked:
                await trio.sleep(0.01)
            assert asked == [None]  # the computers accept: game 2, colours swapped
            while live.seat_of(Seat.A_WHITE) != Seat.A_BLACK:
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()


class StuckArchive:
    """An archive whose ``record`` returns only once released (a slow database)."""

    def __init__(self) -> None:
        self.release = trio.Event()

    async def begin(self, game: GameStarted) -> None:
        pass

    async def record(self, game: GameFinished) -> None:
        await self.release.wait()


@pytest.mark.slow
@pytest.mark.parametrize("stuck", [False, True], ids=["archived", "archive-stuck"])
async def test_a_line_client_that_asks_for_a_rematch_on_gameover_gets_it(
    tmp_path: Path, stuck: bool
) -> None:
    """Stuck: the seat hears gameover after ``RECORD_WAIT``, the lobby no later."""
    archive = StuckArchive()
    if not stuck:
        archive.release.set()
    hall = Hall(tmp_path, archive=archive, log=lambda text: None, join_timeout=20)
    seen: list[str] = []
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            port = await nursery.start(
                partial(serve_line_lobby, hall, host="127.0.0.1", port=0, log=lambda t: None)
            )
            link, _ = await open_lobby(LinePort("127.0.0.1", port), Hello("guest", "alice"))
            await link.send("create 60+0")
            created = await link.receive()
            assert created is not None and created.text.startswith("created "), created
            table = created.text.split()[1]
            await link.send(f"sit {table} A-white")
            await link.send(f"start {table}")
            games = 0
            while (line := await link.receive()) is not None:
                seen.append(line.text)
                word = line.text.split()[0] if line.text.strip() else ""
                assert word != "error", seen[-5:]
                if word == "bug":
                    await link.send("bugok")
                elif word == "isready":
                    await link.send("readyok")
                elif word == "newgame":
                    games += 1
                    if games == 2:
                        break
                elif word == "go" and games == 1:
                    await link.send("resign")
                elif word == "gameover":
                    await link.send(f"rematch {table}")  # at once: no wait, no retry
                    await link.send("tables")  # answered after the rematch's answer
                elif word == "table":
                    assert line.text.split()[3] == "playing", line.text  # game 2 is set up
                elif word == "end":
                    archive.release.set()
            await link.aclose()
            nursery.cancel_scope.cancel()
    assert games == 2, seen
    assert f"{table}.2 seat a-black" in seen[-1]  # the same table, colours swapped


@pytest.mark.slow
async def test_a_computer_that_takes_a_left_seat_over_is_named_on_the_pages_and_in_the_file(
    tmp_path: Path,
) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    rules = {"leaver": "computer", "reconnect_grace": 1}
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            alice, bob = Inbox(), Inbox()
            member = hall.join(Identity("alice"), alice.send)
            hall.handle(member, {"type": "create", "tc": "120+0", "rules": rules})
            table = (await alice.next("created"))["table"]
            hall.handle(member, {"type": "sit", "table": table, "seat": "A-white"})
            other = hall.join(Identity("bob"), bob.send)
            hall.handle(other, {"type": "sit", "table": table, "seat": "B-white"})
            hall.handle(member, {"type": "start", "table": table})
            live = hall.live_table(table)
            assert live is not None
            told: list[SeatTakenOver] = []
            live.observe(lambda e: told.append(e) if isinstance(e, SeatTakenOver) else None)
            bobs = await take(hall, nursery, await bob.next("seat"), "bob")
            async with trio.open_nursery() as away:
                await take(hall, away, await alice.next("seat"), "alice")
                while live not in started:
                    await trio.sleep(0.05)
                away.cancel_scope.cancel()  # alice's page is gone; she does not come back
            while not told:
                await trio.sleep(0.05)
            (event,) = told
            assert event.seat == Seat.A_WHITE
            assert event.names[Seat.A_WHITE] == "alice / searcher"
            assert event.names[Seat.B_WHITE] == "bob"
            assert live.names()[Seat.A_WHITE] == "alice / searcher"  # a page opened now
            await resign(bobs, hall, table)
            await ended(hall, table)
            nursery.cancel_scope.cancel()
    (game,) = read_games((tmp_path / f"{table}.bpgn").read_text())
    assert game.tags["WhiteA"] == "alice / searcher" and game.tags["WhiteB"] == "bob"


@pytest.mark.slow
async def test_a_paired_table_whose_series_ended_is_let_go_with_its_engines(
    tmp_path: Path,
) -> None:
    lobby = Lobby(queue_fill_after=0.1, rematch_window=0.5)
    hall = Hall(tmp_path, log=lambda text: None, lobby=lobby, join_timeout=20)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            inbox = Inbox()
            member = hall.join(Identity("alice"), inbox.send)
            hall.handle(member, {"type": "play_now", "tc": "120+0", "computers": True})
            seat = await inbox.next("seat")
            host = hall.hosts[seat["table"]]
            player = await take(hall, nursery, seat, "alice")
            await resign(player, hall, seat["table"])
            while seat["table"] in hall.hosts:  # no rematch asked: the series ends
                await trio.sleep(0.05)
            assert seat["table"] not in lobby.tables and host.live.remote_seats == ()
            nursery.cancel_scope.cancel()
    (game,) = read_games((tmp_path / f"{seat['table']}.bpgn").read_text())
    assert game.tags["Termination"] == "resignation"


async def test_a_seat_not_taken_in_time_calls_the_game_off_and_says_why(tmp_path: Path) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=0.5)
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            alice, seat = await sit_and_start(hall, "alice")
            told = await alice.next("error")
            assert told["text"] == (
                f"{seat['table']}: the game did not start: alice did not take the seat in time"
            )
            assert hall.lobby.tables[seat["table"]].state == "open"
            nursery.cancel_scope.cancel()


async def test_the_timers_sleep_until_a_deadline_or_a_change(tmp_path: Path) -> None:
    ticks: list[float] = []

    class Counting(Lobby):
        def tick(self, now: float) -> list[Any]:
            ticks.append(now)
            return super().tick(now)

    hall = Hall(tmp_path, log=lambda text: None, lobby=Counting())
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.run)
        inbox = Inbox()
        member = hall.join(Identity("alice"), inbox.send)
        hall.handle(member, {"type": "play_now", "tc": "120+0", "computers": False})
        await trio.sleep(0.3)
        # One look for the join, one for the queueing: no deadline, so no more.
        assert len(ticks) <= 3, len(ticks)
        assert "only people or bots" in (await inbox.next("queued"))["why"]
        nursery.cancel_scope.cancel()


async def test_members_get_the_whole_view_then_only_what_changed_encoded_once(
    tmp_path: Path, autojump_clock: object
) -> None:
    hall = Hall(tmp_path, log=lambda text: None)
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.run)
        alice, bob = Inbox(), Inbox()
        member = hall.join(Identity("alice"), alice.send)
        welcome, view = alice.messages
        assert welcome["type"] == "welcome"
        assert view == {"type": "lobby", "version": 0, "tables": [], "queue": [],
                        "online": ["alice"]}
        await trio.sleep(0.25)  # the views go out at 0.1, 0.2...: the one change, once
        assert alice.messages[2:] == [
            {"type": "lobby-diff", "version": 1, "tables": {}, "gone": [], "online": ["alice"]}
        ]
        hall.join(Identity("bob"), bob.send)
        assert bob.messages[1]["version"] == 1 and bob.messages[1]["online"] == ["alice", "bob"]
        hall.handle(member, {"type": "create", "tc": "120+0"})
        hall.handle(member, {"type": "sit", "table": "t1", "seat": "A-white"})
        await trio.sleep(0.1)  # at 0.3: the three changes in one diff, the same to both
        diff = alice.messages[-1]
        assert diff is bob.messages[-1] and len(bob.messages) == 3
        assert diff["type"] == "lobby-diff" and diff["version"] == 2
        assert list(diff["tables"]) == ["t1"] and diff["online"] == ["alice", "bob"]
        assert diff["tables"]["t1"]["seats"]["A-white"]["name"] == "alice"
        assert isinstance(diff, Encoded) and diff.text == json.dumps(diff, separators=(",", ":"))
        assert apply_diff(bob.messages[1], diff) == hall.lobby.view()
        await trio.sleep(1.0)  # nothing changed: nothing more is sent
        assert len(bob.messages) == 3
        nursery.cancel_scope.cancel()


async def test_a_stopping_table_lets_all_its_players_go_at_once(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    """Four people seated at their pages, which do not close on ``quit``: each gets the
    one ``quit`` grace, all four in the same second (not one after another)."""
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    names = ("alice", "bob", "carol", "dave")
    async with trio.open_nursery() as nursery:
        running = trio.CancelScope()

        async def run_hall(task_status: trio.TaskStatus[None]) -> None:
            with running:
                await hall.run(task_status=task_status)

        await nursery.start(run_hall)
        inboxes = [Inbox() for _ in names]
        members = [hall.join(Identity(n), i.send) for n, i in zip(names, inboxes, strict=True)]
        hall.handle(members[0], {"type": "create", "tc": "120+0", "computers": False})
        table = (await inboxes[0].next("created"))["table"]
        for member, seat in zip(members, ("A-white", "A-black", "B-white", "B-black"), strict=True):
            hall.handle(member, {"type": "sit", "table": table, "seat": seat})
        hall.handle(members[0], {"type": "start", "table": table})
        for inbox, name in zip(inboxes, names, strict=True):
            await take(hall, nursery, await inbox.next("seat"), name)
        while hall.live_table(table) not in started:
            await trio.sleep(0.05)
        stopped_at = trio.current_time()
        running.cancel()
        while table in hall.hosts:
            await trio.sleep(0.001)
        # The quit grace (1 s) once, not once per player (4 s).
        assert trio.current_time() - stopped_at == pytest.approx(1.0, abs=0.01)
        nursery.cancel_scope.cancel()
    (game,) = read_games((tmp_path / f"{table}.bpgn").read_text())
    assert game.tags["Result"] == "*"
