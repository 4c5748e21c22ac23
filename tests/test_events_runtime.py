"""``EventHall`` on a ``Hall`` under trio's MockClock: the slot's start and the rounds' tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.events.event import EventSpec
from bughouse_arbiter.events.forms import PageCommand
from bughouse_arbiter.hall.events import EventHall, Viewer
from bughouse_arbiter.hall.runtime import Hall
from bughouse_arbiter.lobby.identity import Identity


async def test_the_slot_starts_the_event_and_seats_round_one(
    autojump_clock: object, tmp_path: Path
) -> None:
    logged: list[str] = []
    hall = Hall(tmp_path, log=logged.append, join_timeout=30.0)
    events = EventHall(hall, tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.run)
        await nursery.start(events.run)
        start = trio.current_time()
        spec = EventSpec(
            title="Tuesday",
            starts=start + 600,
            checkin_from=start + 300,
            tc=TimeControl(60, 0),
            computers=False,
        )
        made = events.create(spec)
        assert not isinstance(made, str)
        event, _ = made
        pages: dict[str, list[dict[str, Any]]] = {}
        for name in ("ann", "bea", "cid", "dan"):
            pages[name] = []
            viewer = Viewer(pages[name].append)
            assert events.watch(event.id, viewer)
            assert events.handle(event.id, viewer, PageCommand("hello", name)) is None
            assert events.handle(event.id, viewer, PageCommand("sign_up")) is None
            early = events.handle(event.id, viewer, PageCommand("check_in"))
            assert early == "check-in opens in 5 min 0 s"
        await trio.sleep_until(start + 300)
        for seen in pages.values():
            viewer = next(v for v in events.viewers[event.id] if v.send == seen.append)
            assert events.handle(event.id, viewer, PageCommand("check_in")) is None
        await trio.sleep_until(start + 599)
        assert event.state == "signup" and not hall.lobby.tables
        await trio.sleep_until(start + 600.5)
        assert event.state == "running" and event.round == 1
        [table] = hall.lobby.tables.values()
        assert table.single and sorted(table.named()) == ["ann", "bea", "cid", "dan"]
        for seen in pages.values():  # each person's page got its seat
            assert [m["table"] for m in seen if m["type"] == "seat"] == [table.id]
        # nobody takes a seat: the game is set up once more, then counts as a draw
        await trio.sleep_until(start + 600 + 2 * 30 + 1)
        assert event.state == "finished"
        assert event.matches[0].scores == (0.5,)
        assert (tmp_path / "events" / f"{event.id}.json").exists()
        nursery.cancel_scope.cancel()
    assert any("did not take the seat in time" in line for line in logged)


async def test_an_events_game_seats_only_the_bots_that_play_its_time_control(
    autojump_clock: object, tmp_path: Path
) -> None:
    logged: list[str] = []
    hall = Hall(tmp_path, log=logged.append, join_timeout=30.0)
    events = EventHall(hall, tmp_path)
    async with trio.open_nursery() as nursery:
        await nursery.start(hall.run)
        await nursery.start(events.run)
        quick = hall.add_bot(Identity("quick", "bot"), [TimeControl(60, 0), TimeControl(180, 0)])
        slow = hall.add_bot(Identity("slow", "bot"), [TimeControl(300, 0), TimeControl(180, 0)])
        now = trio.current_time()

        async def evening(bot: str, *people: str) -> tuple[str, list[str]]:
            """An event at 60+0 of ``people`` and ``bot``, started by its host; its id."""
            spec = EventSpec(
                title=f"with {bot}", starts=now + 3600, checkin_from=now, tc=TimeControl(60, 0),
                computers=False, auto_start=False,
            )  # fmt: skip
            made = events.create(spec)
            assert not isinstance(made, str)
            event, token = made
            for name in people:
                viewer = Viewer(lambda message: None)
                assert events.handle(event.id, viewer, PageCommand("hello", name)) is None
                assert events.handle(event.id, viewer, PageCommand("sign_up")) is None
                assert events.handle(event.id, viewer, PageCommand("check_in")) is None
            host = Viewer(lambda message: None)
            assert events.handle(event.id, host, PageCommand("add_bot", bot, token=token)) is None
            assert events.handle(event.id, host, PageCommand("start", token=token)) is None
            await trio.sleep(1)
            return event.id, event.shown(trio.current_time())["log"]  # type: ignore[return-value]

        # slow plays 180+0 and 300+0 only: its team forfeits, and the log says why.
        first, log = await evening("slow", "ann", "bea", "cid")
        why = "slow accepts 180+0, 300+0 only, not this event's 60+0: forfeit"
        assert f"round 1: {why}" in log, log
        assert events.events[first].state == "finished" and not hall.lobby.tables
        assert hall.lobby.bots["slow"].table is None
        # quick plays 60+0: it is offered its seat at the event's table.
        second, log = await evening("quick", "dan", "eve", "fay")
        [table] = hall.lobby.tables.values()
        assert events.events[second].tables and events.events[second].state == "running"
        assert "quick" in table.named() and not any("forfeit" in line for line in log)
        with trio.fail_after(5):
            offered = await quick.next_seat()
        assert offered is not None and offered[0] is hall.live_table(table.id)
        with trio.move_on_after(5):
            await slow.next_seat()
            raise AssertionError("slow was offered a seat")
        nursery.cancel_scope.cancel()
