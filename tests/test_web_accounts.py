"""``bughouse server --db`` in a real browser: register, log in, play a rated game, see the
rating change on the player page and the game in the archive (chromium via Playwright,
skipped when either is missing unless BUGHOUSE_REQUIRE_BROWSER=1; screenshots in
``tests/screenshots/``).

The person plays in chromium; the three other seats are accounts too (a game is rated
only when all four are), driven over their sockets by a thread of the test, as a bot
would be; their A-Black resigns once the person's page shows the game running.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
import trio
from playwright.sync_api import expect
from serve_helpers import ENV, ROOT, bughouse
from test_server_accounts import Browser, lobby_socket
from test_server_lobby import Socket

from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

WAIT_MS = 30_000
OTHERS = {"A-black": "rook1", "B-white": "rook2", "B-black": "rook3"}
#: In the page, the lobby page's and the table page's sockets as they speak: hello (the
#: session's account answers), sit at the table, then take the seat on the table's socket;
#: resolves with the name welcomed once seated, and ``window.result`` gets the game's result.
SIT = """async ([table]) => new Promise((resolve, reject) => {
  const base = `ws://${location.host}`;
  const lobby = new WebSocket(`${base}/ws`);
  window.lobbySocket = lobby;
  lobby.onopen = () => lobby.send(JSON.stringify({type: "hello", name: "ignored"}));
  lobby.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "lobby") window.lobbyView = message;
    if (message.type === "welcome") {
      window.welcome = message.name;
      lobby.send(JSON.stringify({type: "sit", table, seat: "A-white"}));
    } else if (message.type === "error") reject(new Error(message.text));
    else if (message.type === "seat") {
      const board = new WebSocket(`${base}/table/${table}/ws`);
      window.boardSocket = board;
      board.onopen = () => board.send(JSON.stringify(
        {type: "sit", seat: message.seat, token: message.token}));
      board.onmessage = (event) => {
        const said = JSON.parse(event.data);
        if (said.type === "seated") resolve(window.welcome);
        if (said.type === "state" && said.result) window.result = said.result.result;
      };
    }
  };
})"""


#: Whether the lobby's latest view shows queen's seat at the table rated above 1500.
RATED_IN_LOBBY = """(table) => {
  const view = window.lobbyView;
  const shown = view && view.tables.find((t) => t.id === table);
  const seat = shown && shown.seats["A-white"];
  return Boolean(seat && seat.name === "queen" && seat.rating > 1500);
}"""


@pytest.fixture
def server(tmp_path: Path) -> Any:
    process = subprocess.Popen(
        bughouse("server", "--port", "0", "--line-port", "0", "--db", str(tmp_path / "db"),
                 "--out", str(tmp_path / "games")),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=str(ROOT),
    )
    assert process.stdout is not None
    for line in process.stdout:
        if found := re.match(r"lobby: (http://\S+?)/?$", line.strip()):
            break
    else:
        raise AssertionError("the server did not start")
    yield found.group(1)
    process.kill()
    process.communicate(timeout=30)


class Others:
    """The three other seats' accounts in a thread of their own (trio)."""

    def __init__(self, base: str) -> None:
        self.port = int(base.rsplit(":", 1)[1])
        self.table: queue.Queue[str] = queue.Queue()
        self.resign = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            trio.run(self._play)
        except BaseException as exc:  # handed to the test
            self.failure = exc
            self.table.put("failed")

    async def _play(self) -> None:
        with trio.fail_after(90):
            lobbies: dict[str, Socket] = {}
            for name in OTHERS.values():
                web = Browser(self.port)
                form = {"username": name, "password": "password1", "password2": "password1"}
                status, _, _ = await web.post("/register", form)
                assert status == 200
                lobbies[name] = await lobby_socket(self.port, web.cookie())
                await lobbies[name].send({"type": "hello", "name": name})
                await lobbies[name].until("welcome")
            first = lobbies[OTHERS["A-black"]]
            await first.send({"type": "create", "tc": "120+0", "computers": False, "rated": True})
            table = (await first.until("created"))["table"]
            for seat, name in OTHERS.items():
                await lobbies[name].send({"type": "sit", "table": table, "seat": seat})
            self.table.put(table)
            boards = {}
            for name, lobby in lobbies.items():
                seat = await lobby.until("seat", table=table)
                board = await Socket.open(self.port, f"/table/{table}/ws")
                await board.send({"type": "sit", "seat": seat["seat"], "token": seat["token"]})
                await board.until("seated")
                boards[name] = board
            while not self.resign.is_set():
                await trio.sleep(0.05)
            await boards[OTHERS["A-black"]].send({"type": "resign"})
            resigned = boards[OTHERS["A-black"]]
            while not resigned.state.get("result"):
                await resigned.message()


@pytest.mark.slow
def test_register_log_in_play_rated_and_see_the_rating_and_the_game(
    browser: Any, server: str
) -> None:
    others = Others(server)
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/register")
    page.fill("#username", "queen")
    page.fill("#password", "a good password")
    page.fill("#password2", "a good password")
    page.screenshot(path=str(SHOTS / "register-1280x800.png"))
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("queen")
    page.click("text=Log out")
    page.goto(f"{server}/login")
    page.fill("#username", "queen")
    page.fill("#password", "a wrong password")
    page.click("main button[type=submit]")
    expect(page.locator(".error")).to_have_text("wrong username or password")
    page.fill("#password", "a good password")
    page.click("main button[type=submit]")
    expect(page.locator("#rated-games")).to_have_text("0")
    # Sit at the others' rated table from a lobby socket of this page (the session's account).
    table = others.table.get(timeout=90)
    assert others.failure is None, others.failure
    assert page.evaluate(SIT, [table]) == "queen"
    board = context.new_page()
    board.goto(f"{server}/table/{table}")  # a watcher's view of the game
    board.screenshot(path=str(SHOTS / "rated-game-1280x800.png"))
    others.resign.set()
    page.wait_for_function("window.result === '1-0'", timeout=WAIT_MS)
    # The lobby shows the new rating at once.
    page.wait_for_function(RATED_IN_LOBBY, arg=table, timeout=WAIT_MS)
    others.thread.join(timeout=60)
    assert others.failure is None, others.failure
    # The player page: one rated game, the rating up from 1500, its history drawn.
    page.goto(f"{server}/player/queen")
    expect(page.locator("#rated-games")).to_have_text("1")
    rating = int(re.sub(r"\D", "", page.locator("#rating").inner_text()))
    assert rating > 1500
    assert page.locator("svg.plot polyline").count() == 1
    assert page.locator("table.games .up").count() == 2  # the winners: queen and rook3
    assert page.locator("table.games .down").count() == 2
    page.screenshot(path=str(SHOTS / "player-1280x800.png"), full_page=True)
    # The archive: the game is there, and opens as its replay page.
    page.goto(f"{server}/games?player=queen")
    row = page.locator("table.games tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("1-0")
    page.screenshot(path=str(SHOTS / "archive-1280x800.png"))
    row.locator("a").first.click()
    expect(page.locator("#board-A")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("text=Download BPGN")).to_be_visible()
    page.screenshot(path=str(SHOTS / "archive-game-1280x800.png"))
    page.goto(f"{server}/leaderboard?provisional=1")
    expect(page.locator("table.list")).to_contain_text("queen")
    page.screenshot(path=str(SHOTS / "leaderboard-1280x800.png"))
    # On a phone: the same pages, nothing wider than the screen.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    small = phone.new_page()
    for path, shot in (("/player/queen", "player"), ("/games", "archive"), ("/login", "login")):
        small.goto(server + path)
        assert small.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        small.screenshot(path=str(SHOTS / f"{shot}-390x844.png"), full_page=True)
    assert errors == []
    context.close()
    phone.close()
