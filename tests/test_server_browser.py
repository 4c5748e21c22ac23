"""``bughouse server``: the lobby page and its tables, driven in real browsers.

One real ``bughouse server --port 0 --line-port 0`` with random-mover
computers (a little slowed down, so games last while the test looks at
them), two real bots (``bughouse connect --server URL --bot NAME``), and
people in separate Chromium contexts (each its own storage, as separate
browsers): a pair queues through "play now" and the two bots join them at
once, a spectator watches from the lobby, a rematch swaps the colours, a
second table plays at the same time, and a person who leaves is replaced by
a computer where the table allows it. Screenshots go to ``tests/screenshots/``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_checks import BUGHOUSE

from bughouse_arbiter.bpgn.read import read_games
from tests.test_web_live import square_center
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

ROOT = Path(__file__).resolve().parent.parent
#: The computers: random legal moves, 400 ms each (few enough that a 60 s game
#: outlasts the test: a random mate is rare in them).
COMPUTER = f"native:{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 400"
WAIT_MS = 30_000
#: The bots: name -> engine (``bughouse connect --bot NAME -- SPEC``).
BOTS = {"rando": "random", "srch": "searcher"}
#: The time control the pair queues for, which the bots play.
TC = "60+0"
#: What colour each seat becomes in a rematch.
SWAPPED = {"A-White": "A-Black", "A-Black": "A-White", "B-White": "B-Black", "B-Black": "B-White"}


def lobby_seat(seat: str) -> str:
    """A seat as the lobby names it ("A-White" -> "A-white")."""
    return seat[:2] + seat[2:].lower()


class Server:
    """A running ``bughouse server``: its lobby address and its games folder."""

    def __init__(self, tmp_path: Path) -> None:
        self.out = tmp_path / "games"
        self.err = tmp_path / "server.err"
        self.process = subprocess.Popen(
            [*BUGHOUSE, "server", "--port", "0", "--line-port", "0", "--out", str(self.out),
             "--computer", COMPUTER],
            stdout=subprocess.PIPE,
            stderr=self.err.open("w"),
            text=True,
            cwd=tmp_path,
        )
        found = threading.Event()
        self.url = ""

        def read() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                if match := re.search(r"lobby: (http://127\.0\.0\.1:\d+)/", line):
                    self.url = match.group(1)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(30):
            self.stop()
            raise AssertionError(f"the server printed no lobby address: {self.err.read_text()}")

    def games(self, table: str) -> list[Any]:
        return read_games((self.out / f"{table}.bpgn").read_text())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path)
    yield running
    running.stop()


@pytest.fixture
def bots(server: Server, tmp_path: Path) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """The two bots, in the server's lobby (it has said they joined)."""
    running = {
        name: subprocess.Popen(
            [*BUGHOUSE, "connect", "--server", server.url, "--bot", name, "--tc", TC, "--", spec],
            stdout=subprocess.DEVNULL,
            stderr=(tmp_path / f"{name}.err").open("w"),
            text=True,
            cwd=tmp_path,
        )
        for name, spec in BOTS.items()
    }
    try:
        deadline = time.monotonic() + WAIT_MS / 1000
        while not all(f"bot {name} joined the lobby" in server.err.read_text() for name in BOTS):
            assert time.monotonic() < deadline, server.err.read_text()
            for name, process in running.items():
                assert process.poll() is None, (tmp_path / f"{name}.err").read_text()
            time.sleep(0.1)
        yield running
    finally:
        for process in running.values():
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


class Person:
    """One person: a browser context of their own, with a page in it."""

    def __init__(self, browser: Any, server: Server, name: str, width: int, height: int) -> None:
        self.name = name
        self.size = f"{width}x{height}"
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.page = self.open()
        self.page.goto(f"{server.url}/", wait_until="commit")

    def open(self) -> Any:
        page = self.context.new_page()
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        return page

    def enter(self) -> None:
        self.page.fill("#hello-name", self.name)
        self.page.click("#hello button")

    def welcomed(self) -> None:
        from playwright.sync_api import expect

        expect(self.page.locator("#status")).to_have_text(f"you are {self.name}", timeout=WAIT_MS)

    def table(self) -> str:
        """The table whose page is open (after a ``seat`` or ``watch``)."""
        self.page.wait_for_url(re.compile(r"/table/\w+"), timeout=WAIT_MS)
        found = re.search(r"/table/(\w+)", self.page.url)
        assert found is not None
        return found.group(1)

    def seat(self) -> str:
        """The seat this person plays in the game shown ("A-White")."""
        you = self.page.locator("#you")
        from playwright.sync_api import expect

        expect(you).to_have_text(re.compile(r"You play [AB]-(White|Black)"), timeout=WAIT_MS)
        found = re.search(r"[AB]-(White|Black)", str(you.text_content()))
        assert found is not None
        return found.group(0)


def play_one_move(person: Person) -> None:
    """Clicks one legal move (not a drop, not a promotion) on the person's own board."""
    from playwright.sync_api import expect

    page = person.page
    board_id = person.seat()[0]
    board = page.locator(f"#side-{board_id} .board-wrap")
    expect(page.locator("#you")).to_contain_text("your move", timeout=WAIT_MS)
    legal = [m for m in str(board.get_attribute("data-legal")).split() if len(m) == 4]
    assert legal, "no legal move to click"
    before = board.get_attribute("data-fen")
    page.mouse.click(*square_center(page, board_id, legal[0][:2]))
    page.mouse.click(*square_center(page, board_id, legal[0][2:]))
    expect(board).not_to_have_attribute("data-fen", str(before), timeout=WAIT_MS)


def resign(person: Person) -> None:
    from playwright.sync_api import expect

    person.page.click("#resign")
    person.page.click("#confirm-yes")
    expect(person.page.locator("#result")).to_be_visible(timeout=WAIT_MS)


#: How many tables the lobby page shows playing.
PLAYING = "(window.bughouseLobby.lobby?.tables || []).filter((t) => t.state === 'playing').length"


@pytest.mark.slow
def test_a_pair_and_two_bots_play_are_watched_and_rematch_beside_a_second_table(
    browser: Any, server: Server, bots: dict[str, subprocess.Popen[str]]
) -> None:
    from playwright.sync_api import expect

    alice = Person(browser, server, "alice", 1280, 800)
    bob = Person(browser, server, "bob", 390, 844)
    carol = Person(browser, server, "carol", 1280, 800)
    dave = Person(browser, server, "dave", 1280, 800)
    people = [alice, bob, carol, dave]
    for person in people:
        person.enter()
    for person in people:
        person.welcomed()

    # alice invites bob as her partner; bob accepts from the banner, and the
    # two idle bots that play the time control fill the table at once.
    alice.page.select_option("#quick-tc", TC)
    alice.page.fill("#quick-partner", "bob")
    alice.page.click("#play-now")
    expect(alice.page.locator("#queued-why")).to_contain_text("waiting for bob", timeout=WAIT_MS)
    expect(bob.page.locator("#invite-text")).to_have_text(
        "alice asks you to be partners at 1+0.", timeout=WAIT_MS
    )
    SHOTS.mkdir(exist_ok=True)
    bob.page.screenshot(path=str(SHOTS / "server-queue-390x844.png"))
    bob.page.click("#invite-accept")
    first = alice.table()
    assert bob.table() == first

    # Meanwhile dave makes a table of his own (computers at once; a leaver is
    # replaced after 1 s away) and sits: it starts with three computers.
    dave.page.click("#create-box summary")
    dave.page.fill("#create-tc", "60+0")
    dave.page.fill("#create-fill", "0")
    dave.page.select_option("#create-leaver", "computer")
    dave.page.fill("#create-grace", "1")
    dave.page.click("#create button[type=submit]")
    own = dave.page.locator("#tables > li.created")
    expect(own).to_have_count(1, timeout=WAIT_MS)
    second = str(own.get_attribute("data-table"))
    own.get_by_role("button", name=f"sit at {second} A white").click()
    assert dave.table() == second
    dave_seat = dave.seat()

    # Two tables play at once: the pair's with the bots at its other two seats.
    assert second != first
    lobby = carol.page
    lobby.wait_for_function(f"() => ({PLAYING}) == 2", timeout=WAIT_MS)
    row = lobby.locator(f"li[data-table='{first}']")
    for name in ("alice", "bob", *BOTS):
        expect(row.locator(".seat .name", has_text=name).first).to_be_visible()
    for name in BOTS:
        bot_seat = row.locator(".seat", has=lobby.locator(".name", has_text=name))
        expect(bot_seat.locator(".kind.bot")).to_have_text("bot")
    expect(row.locator(".seat .name", has_text="computer")).to_have_count(0)
    lobby.screenshot(path=str(SHOTS / "server-lobby-1280x800.png"))

    # dave's table: carol watches it in a second page, and dave leaves it.
    watching_second = carol.open()
    watching_second.goto(f"{server.url}/table/{second}")
    dave_name = watching_second.locator(f".seat[data-seat='{dave_seat}'] .name")
    expect(dave_name).to_have_text("dave", timeout=WAIT_MS)
    # dave never moved: whoever plays his colour on his board from now on is the computer.
    dave_moves = watching_second.get_by_role("list", name=f"Board {dave_seat[0]} moves")
    dave_colour = "white" if dave_seat.endswith("White") else "black"
    assert dave_moves.locator(f"li.{dave_colour}").count() == 0
    dave.context.close()
    people.remove(dave)
    # The computer that takes his seat over is named as the record names it.
    expect(dave_name).to_have_text("dave / searcher", timeout=WAIT_MS)

    # carol watches the pair's table from the lobby, in one click.
    row.get_by_role("button", name=f"watch {first}").click()
    assert carol.table() == first
    expect(carol.page.locator("#status")).to_contain_text("game 1", timeout=WAIT_MS)
    # A watcher gets no token form (a lobby's seats are taken in the lobby).
    expect(carol.page.locator("#seat-form")).to_be_hidden()

    # Table chat reaches everyone there, the watcher too; a partner signal only the partner.
    alice_seat, bob_seat = alice.seat(), bob.seat()
    alice.page.fill("#chat-text", "good luck, have fun")
    alice.page.press("#chat-text", "Enter")
    for person in (alice, bob, carol):
        expect(person.page.locator("#chat")).to_contain_text(
            "alice: good luck, have fun", timeout=WAIT_MS
        )
    alice.page.locator("#signals button[data-tell='++n']").click()
    expect(bob.page.locator("#messages")).to_contain_text("++n", timeout=WAIT_MS)
    carol.page.fill("#chat-text", "go team")
    carol.page.press("#chat-text", "Enter")
    expect(alice.page.locator("#chat")).to_contain_text(": go team", timeout=WAIT_MS)

    # The bots play: each answers a move of the person on its board.
    play_one_move(alice)
    play_one_move(bob)
    seats_of = {"A-White", "A-Black", "B-White", "B-Black"} - {alice_seat, bob_seat}
    for seat in sorted(seats_of):
        moves = carol.page.get_by_role("list", name=f"Board {seat[0]} moves")
        colour = "white" if seat.endswith("White") else "black"
        expect(moves.locator(f"li.{colour}").first).to_be_attached(timeout=WAIT_MS)
    # The game to its result: alice resigns.
    resign(alice)
    for person in (bob, carol):
        expect(person.page.locator("#result")).to_be_visible(timeout=WAIT_MS)
    assert "++n" not in str(carol.page.locator("#panel").text_content())
    expect(carol.page.locator("#rematch-box")).to_be_hidden()
    bob.page.screenshot(path=str(SHOTS / "server-table-390x844.png"), full_page=True)

    # A rematch: both ask (the bots accept), and the colours swap.
    for person in (alice, bob):
        person.page.click("#rematch")
    expect(alice.page.locator("#rematch")).to_be_hidden(timeout=WAIT_MS)
    assert alice.seat() == SWAPPED[alice_seat]
    assert bob.seat() == SWAPPED[bob_seat]
    expect(alice.page.locator("#rotated")).to_contain_text("Colours swapped for the rematch")
    expect(carol.page.locator("#status")).to_contain_text("game 2", timeout=WAIT_MS)
    alice.page.screenshot(path=str(SHOTS / "server-rematch-1280x800.png"))
    # bob looks in at the lobby during the game, in one click, under the same
    # name (his table page held it): his seat there is a link back, not a page
    # taken away; back at the table (within the grace) he resigns.
    bob.page.click("#to-lobby")
    bob.welcomed()
    expect(bob.page.locator("#playing-text")).to_have_text(
        f"You are playing at {first} as {lobby_seat(SWAPPED[bob_seat])}.", timeout=WAIT_MS
    )
    assert bob.page.url == f"{server.url}/"
    bob.page.click("#playing-link")
    assert bob.table() == first
    assert bob.seat() == SWAPPED[bob_seat]
    resign(bob)

    # dave's seat was played on by the computer (no forfeit for leaving).
    expect(dave_moves.locator(f"li.{dave_colour}").first).to_be_attached(timeout=WAIT_MS)
    assert "left" not in str(watching_second.locator("#result").text_content())
    games = server.games(first)
    assert len(games) == 2
    tag = {"A-White": "WhiteA", "A-Black": "BlackA", "B-White": "WhiteB", "B-Black": "BlackB"}
    assert games[0].tags[tag[alice_seat]] == "alice" == games[1].tags[tag[SWAPPED[alice_seat]]]
    assert games[0].tags[tag[bob_seat]] == "bob" == games[1].tags[tag[SWAPPED[bob_seat]]]
    # The bots held the other two seats, in both games (colours swapped in the second).
    for game, held in zip(games, (seats_of, {SWAPPED[seat] for seat in seats_of}), strict=True):
        assert {game.tags[tag[seat]] for seat in held} == set(BOTS)
        assert game.tags["Result"] in ("1-0", "0-1")
    for process in bots.values():
        assert process.poll() is None  # still in the lobby, ready for more

    for person in people:
        assert person.errors == [], person.name
