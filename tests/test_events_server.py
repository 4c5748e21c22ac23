"""A real ``bughouse server`` process runs a short club evening to its standings.

Four guests on the event page's socket (they sign up, check in and take the
seat each round gives them, then let their clocks run: the time control is
three seconds) and two bots the host adds (the server's random engine plays
them, no line-port bot being connected): three teams, a round robin of three
rounds with a bye each. Every game is in its table's BPGN file and the
event's record in ``events/e1.json``.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import trio
from test_server_lobby import LobbyServer, Socket

TIMEOUT = 90


def post(port: int, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def player(port: int, event: str, name: str, done: trio.Event) -> None:
    """A guest on the event page: signs up, checks in, takes every seat it is given."""
    page = await Socket.open(port, f"/event/{event}/ws")
    await page.send({"type": "hello", "name": name})
    await page.until("welcome")
    await page.send({"type": "sign_up"})
    await page.send({"type": "check_in"})
    async with trio.open_nursery() as nursery:
        while not done.is_set():
            seat = None
            with trio.move_on_after(0.5):
                seat = await page.until("seat")
            if seat is not None:
                table = await Socket.open(port, f"/table/{seat['table']}/ws")
                await table.send({"type": "sit", "seat": seat["seat"], "token": seat["token"]})
                nursery.start_soon(_hold, table)
        nursery.cancel_scope.cancel()
    await page.aclose()


async def _hold(table: Socket) -> None:
    try:
        while not table.state.get("result"):
            await table.message()
    except EOFError:
        pass
    await table.aclose()


@pytest.mark.slow
async def test_a_short_event_runs_three_rounds_to_its_standings(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    server.argv += ["--computer", "random"]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery)
            port = server.port
            assert post(port, "/api/events", {"tc": "3+0", "format": "knockout"}) == (
                400,
                {"error": "format is round-robin or swiss"},
            )
            status, made = post(
                port, "/api/events", {"title": "Quick evening", "tc": "3+0", "auto_start": False}
            )
            assert status == 200 and made["id"] == "e1", made
            token = made["host_url"].split("#host=")[1]
            host = await Socket.open(port, "/event/e1/ws")
            assert await host.answer({"type": "start"}) == (
                "only the host may do that (the host's link holds its token)"
            )
            for bot in ("bot1", "bot2"):
                await host.send({"type": "add_bot", "name": bot, "token": token})
            done = trio.Event()
            async with trio.open_nursery() as players:
                for name in ("ann", "bea", "cid", "dan"):
                    players.start_soon(player, port, "e1", name, done)
                while True:
                    view = await host.until("event")
                    if sum(e["checked_in"] for e in view["entrants"]) == 6:
                        break
                assert await host.answer({"type": "check_in"}) == "say who you are first"
                await host.send({"type": "start", "token": token})
                while view["state"] != "finished":
                    view = await host.until("event")
                done.set()
            assert server.process is not None
            server.process.terminate()  # a page still open is told the server stops
            try:
                while True:
                    await host.message()
            except EOFError:
                pass
            assert host.closed is not None and host.closed.code == 1001
            await server.process.wait()
    teams = {t["id"]: t["name"] for t in view["teams"]}
    members = sorted(n for t in view["teams"] for n in (p["name"] for p in t["players"]))
    assert len(teams) == 3 and members == ["ann", "bea", "bot1", "bot2", "cid", "dan"]
    assert view["round"] == 3 and len(view["matches"]) == 6
    byes = [m["first"] for m in view["matches"] if m["second"] is None]
    assert sorted(byes) == sorted(teams)  # each team rests one round
    played = [m for m in view["matches"] if m["second"] is not None]
    assert all(len(m["tables"]) == 1 and m["scores"][0] is not None for m in played)
    rows = view["standings"]
    assert [r["played"] for r in rows] == [3, 3, 3]
    assert sum(r["match_points"] for r in rows) == 6 * 2.0  # three byes and three decided or shared
    record = json.loads((server.out / "events" / "e1.json").read_text())
    assert record["state"] == "finished" and record["standings"] == rows
    for match in played:
        [game] = server.games(match["tables"][0])
        names = {game.tags[t] for t in ("WhiteA", "BlackA", "WhiteB", "BlackB")}
        first, second = teams[match["first"]], teams[match["second"]]
        assert names == set(first.split(" & ")) | set(second.split(" & "))
        one = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[game.tags["Result"]]
        assert match["scores"][0] == one  # the first team had team one's seats
    assert "event e1: finished" in server.err
