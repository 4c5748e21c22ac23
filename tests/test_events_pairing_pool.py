"""A Swiss round of a server's event is paired in the pairing pool, off the loop."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from loop_checks import Gate

from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.events import event as event_module
from bughouse_arbiter.events.event import EventSpec
from bughouse_arbiter.events.forms import PageCommand
from bughouse_arbiter.hall.events import EventHall, Viewer
from bughouse_arbiter.hall.runtime import Hall


async def test_the_swiss_round_is_paired_while_the_loop_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    asked: list[list[str]] = []
    real = event_module.swiss

    def gated(seeds, points, played, byes):  # type: ignore[no-untyped-def]
        gate.wait()  # on the loop, this would wait for a loop that cannot turn
        asked.append(list(seeds))
        return real(seeds, points, played, byes)

    monkeypatch.setattr(event_module, "swiss", gated)
    hall = Hall(tmp_path, log=lambda _: None, join_timeout=30.0)
    events = EventHall(hall, tmp_path)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            await nursery.start(events.run)
            now = trio.current_time()
            spec = EventSpec(
                title="Swiss", starts=now + 600, checkin_from=now, tc=TimeControl(60, 0),
                format="swiss", rounds=3, computers=False, auto_start=False,
            )
            made = events.create(spec)
            assert not isinstance(made, str)
            event, token = made
            host = Viewer(lambda _: None)
            assert events.watch(event.id, host)
            for name in ("ann", "bea", "cid", "dan", "eve", "fay", "gus", "hal"):
                viewer = Viewer(lambda _: None)
                assert events.watch(event.id, viewer)
                for command in (PageCommand("hello", name), PageCommand("sign_up"),
                                PageCommand("check_in")):
                    assert events.handle(event.id, viewer, command) is None
            nursery.start_soon(gate.turn)
            assert events.handle(event.id, host, PageCommand("start", token=token)) is None
            assert event.round == 0 and event.wanted is not None  # asked, not answered
            while len(hall.lobby.tables) < 2:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert event.round == 1 and event.wanted is None and gate.turned == gate.turns
    assert len(asked) == 1 and len(asked[0]) == 4
    assert len(event.round_matches()) == 2
