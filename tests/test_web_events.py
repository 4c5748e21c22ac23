"""A club evening in a real browser: six people and two bots play three rounds.

A real ``bughouse server`` and Debian's chromium through Playwright, as the
other browser tests; the two bots are real ``bughouse connect --server URL
--bot NAME --tc 3+0 --games 3 -- random`` processes, in the server's lobby
before the evening starts and playing its time control, so the server seats
them as themselves (its own engine would otherwise play under their names).
The host creates the evening on ``/events``, adds the two bots on the event
page; six people, each a page of their own, say their name, sign up and
check in; the host starts it. Each round seats every person from their event
page (nobody moves: the time control is three
seconds, so the clocks decide), and the host's page follows the standings
to the end; each bot played its three games on its own connection and then
left with exit status 0. Screenshots go to ``tests/screenshots/``.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_checks import BUGHOUSE

from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

ROOT = Path(__file__).resolve().parent.parent
WAIT_MS = 90_000
PEOPLE = ["ann", "bea", "cid", "dan", "eve", "fay"]
BOTS = ["bot1", "bot2"]
TC = "3+0"


def start_server(out: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    argv = [*BUGHOUSE, "server", "--port", "0", "--line-port", "0", "--out", str(out)]
    process = subprocess.Popen(
        [*argv, "--computer", "random"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    while True:
        found = re.search(r"lobby: (http://127\.0\.0\.1:\d+)/", lines.get(timeout=30))
        if found:
            return process, found.group(1)


def start_bot(base: str, name: str, err: Path) -> subprocess.Popen[str]:
    """``bughouse connect --server URL --bot NAME --tc TC --games 3``: one game a round
    (an event seats only a bot that plays its time control)."""
    argv = ["connect", "--server", base, "--bot", name, "--tc", TC, "--games", "3"]
    return subprocess.Popen(
        [*BUGHOUSE, *argv, "--", "random"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=err.open("w"),
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def until(done: Callable[[], bool], limit: float = WAIT_MS / 1000) -> None:
    """Polls the pages (the page policy forbids a predicate evaluated in them)."""
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, "the pages did not get there in time"
        time.sleep(0.1)


@pytest.mark.slow
def test_six_people_and_two_bots_play_three_rounds_to_the_standings(
    browser: Any, tmp_path: Path
) -> None:
    process, base = start_server(tmp_path / "games", tmp_path / "server.err")
    errors: list[str] = []
    bots: dict[str, subprocess.Popen[str]] = {}
    said = {name: tmp_path / f"{name}.err" for name in BOTS}
    try:
        for name in BOTS:
            bots[name] = start_bot(base, name, said[name])
        joined = [f"bot {name} joined the lobby" for name in BOTS]

        def in_lobby() -> bool:
            for name, bot in bots.items():
                assert bot.poll() is None, said[name].read_text()
            return all(line in (tmp_path / "server.err").read_text() for line in joined)

        until(in_lobby, 30)
        host = browser.new_page(viewport={"width": 1280, "height": 800})
        host.on("pageerror", lambda error: errors.append(str(error)))
        host.goto(f"{base}/events")
        host.fill("input[name=title]", "Tuesday bughouse")
        host.fill("input[name=tc]", TC)
        host.fill("input[name=starts_in]", "10")
        host.uncheck("input[name=auto_start]")
        host.screenshot(path=str(SHOTS / "events-1280x800.png"), full_page=True)
        host.click("#create button")
        host.wait_for_url(re.compile(r"/event/e1#host="))
        host.wait_for_selector("#host:not([hidden])")
        for bot in BOTS:
            host.fill("#bot", bot)
            host.click("#add-bot")
            host.wait_for_selector(f"#entrants td:text-is('{bot} (bot)')")

        pages = []
        for number, name in enumerate(PEOPLE):
            size = {"width": 390, "height": 844} if number == 0 else {"width": 800, "height": 700}
            page = browser.new_page(viewport=size)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{base}/event/e1")
            page.fill("#name", name)
            page.click("#hello button")
            page.wait_for_selector("#actions:not([hidden])")
            page.click("#sign-up")
            page.wait_for_selector("#check-in:not([disabled])")
            page.click("#check-in")
            page.wait_for_selector("#check-in[disabled]")
            pages.append(page)
        until(lambda: host.locator("#entrants td:text-is('checked in')").count() == 8)
        host.screenshot(path=str(SHOTS / "event-signup-1280x800.png"), full_page=True)

        host.click("#start")
        pages[0].wait_for_selector("#game:not([hidden])", timeout=WAIT_MS)
        until(lambda: "taking the seat" not in pages[0].locator("#game-text").inner_text())
        pages[0].screenshot(path=str(SHOTS / "event-game-390x844.png"), full_page=True)
        host.wait_for_selector("#state:text-is('finished')", timeout=WAIT_MS)
        host.screenshot(path=str(SHOTS / "event-finished-1280x800.png"), full_page=True)
        pages[0].wait_for_selector("#state:text-is('finished')", timeout=WAIT_MS)
        pages[0].screenshot(path=str(SHOTS / "event-finished-390x844.png"), full_page=True)

        with urllib.request.urlopen(f"{base}/event/e1/json", timeout=10) as answer:
            view = json.loads(answer.read())
        teams = {t["id"]: t["name"] for t in view["teams"]}
        assert sorted(teams.values()) == ["ann & dan", "bea & cid", "bot1 & fay", "bot2 & eve"]
        assert view["round"] == view["rounds"] == 3
        rows = view["standings"]
        assert [r["played"] for r in rows] == [3, 3, 3, 3]
        assert sum(r["match_points"] for r in rows) == 3 * 2 * 2.0
        shown = host.locator("#standings tr").all_inner_texts()
        assert len(shown) == 4 and shown[0].startswith("1\t" + teams[rows[0]["team"]])
        log = host.locator("#log li").all_inner_texts()
        assert log[-1] == f"finished: {teams[rows[0]['team']]} win the evening"
        for round_no in (1, 2, 3):  # every person was seated and played each round
            assert f"round {round_no} of 3 paired" in log
        assert not [line for line in log if "a computer plays for" in line]
        assert not errors
        # Each bot played one game a round on its own connection, then left cleanly.
        codes = {name: bot.wait(timeout=60) for name, bot in bots.items()}
        assert codes == {name: 0 for name in BOTS}, {n: p.read_text() for n, p in said.items()}
    except Exception:
        print((tmp_path / "server.err").read_text())
        raise
    finally:
        for bot in bots.values():
            stop(bot)
        stop(process)
    record = json.loads((tmp_path / "games" / "events" / "e1.json").read_text())
    assert record["state"] == "finished"
    bpgn = sorted((tmp_path / "games").glob("t*.bpgn"))
    assert len(bpgn) == 6  # two tables a round, one game each
    log = (tmp_path / "server.err").read_text()
    for name in BOTS:
        text = said[name].read_text()
        assert "done: 3 games played" in text, text
        seated = re.findall(r"seated at (t\d+) as ([AB]-\w+)", text)
        # The tables the bot was seated at are the ones whose games name it, and the server
        # seated it there over the connection it joined the lobby on (not its own engine).
        named = [path.stem for path in bpgn if f'"{name}"]' in path.read_text()]
        assert sorted(table for table, _ in seated) == named
        assert len(seated) == 3, text
        found = re.search(rf"(\S+): bot {name} joined the lobby", log)
        assert found is not None, log
        for table, seat in seated:
            assert f"{found.group(1)}: {name} seated at {table} {seat}" in log, log
