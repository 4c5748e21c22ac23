"""``bughouse server --db`` in a real browser: register, log in, play a rated game against
bots, see the rating change on the player page and the game in the archive (chromium via
Playwright, skipped when either is missing unless BUGHOUSE_REQUIRE_BROWSER=1; screenshots in
``tests/screenshots/``).

The person plays in chromium; the three other seats are real bots, each a bot account made
with ``bughouse server admin add-bot`` (one before the server starts, two beside it running)
and a ``bughouse connect --server URL --bot NAME --token TOKEN`` process with a random
mover (a game is rated only when all four seats are accounts or bots). The person creates
a rated table, sits and starts it: the three idle bots take the empty seats; the person
resigns.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from serve_helpers import ENV, ROOT, bughouse

from bughouse_arbiter.exits import OK
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

WAIT_MS = 30_000
#: The bots (they take the empty seats in the order the lobby lists them).
BOTS = ["rook1", "rook2", "rook3"]
#: A time control long enough that nobody flags before the person resigns.
TC = "60+0"
#: The bots' engine: random legal moves, a little slowed down so that board B's game lasts
#: (a random mate there would end the game before the person resigns).
ENGINE = f"native:{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 150"
#: In the page, the lobby page's and the table page's sockets as they speak: hello (the
#: session's account answers), create a rated table, sit and start it (the idle bots fill
#: the rest), then take the seat on the table's socket; resolves with the table once
#: seated, and ``window.result`` gets the game's result.
PLAY = """async ([tc]) => new Promise((resolve, reject) => {
  const base = `ws://${location.host}`;
  const lobby = new WebSocket(`${base}/ws`);
  let table = null;
  window.lobbySocket = lobby;
  lobby.onopen = () => lobby.send(JSON.stringify({type: "hello", name: "ignored"}));
  lobby.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "lobby") window.lobbyView = message;
    if (message.type === "lobby-diff" && window.lobbyView) {  // what changed, by table id
      const changed = message.tables;
      const tables = window.lobbyView.tables.filter((t) => !message.gone.includes(t.id))
        .map((t) => changed[t.id] || t);
      for (const [id, t] of Object.entries(changed)) {
        if (!tables.some((x) => x.id === id)) tables.push(t);
      }
      window.lobbyView = {...window.lobbyView, ...message, type: "lobby", tables};
    }
    if (message.type === "welcome") {
      window.welcome = message.name;
      lobby.send(JSON.stringify({type: "create", tc, computers: true, fill_after: 600,
                                 rated: true}));
    } else if (message.type === "created") {
      table = message.table;
      lobby.send(JSON.stringify({type: "sit", table, seat: "A-white"}));
      lobby.send(JSON.stringify({type: "start", table}));
    } else if (message.type === "error") reject(new Error(message.text));
    else if (message.type === "seat") {
      const board = new WebSocket(`${base}/table/${table}/ws`);
      window.boardSocket = board;
      board.onopen = () => board.send(JSON.stringify(
        {type: "sit", seat: message.seat, token: message.token}));
      board.onmessage = (event) => {
        const said = JSON.parse(event.data);
        if (said.type === "state") window.boardState = said;
        if (said.type === "seated") resolve([window.welcome, table]);
        if (said.type === "state" && said.result) window.result = said.result.result;
      };
    }
  };
})"""


#: Whether the lobby's latest view shows queen's seat at the table rated below 1500.
RATED_IN_LOBBY = """(table) => {
  const view = window.lobbyView;
  const shown = view && view.tables.find((t) => t.id === table);
  const seat = shown && shown.seats["A-white"];
  return Boolean(seat && seat.name === "queen" && seat.rating !== null && seat.rating < 1500);
}"""


#: Whether the lobby's latest view shows bots in the table's three other seats.
SEATED_BOTS = """(table) => {
  const shown = window.lobbyView?.tables.find((t) => t.id === table);
  return Boolean(shown && ["A-black", "B-white", "B-black"].every(
    (seat) => shown.seats[seat]?.kind === "bot"));
}"""


def add_bot(db: Path, name: str) -> str:
    """``bughouse server admin add-bot NAME --db PATH``: the token it prints."""
    done = subprocess.run(
        bughouse("server", "admin", "add-bot", name, "--db", str(db)),
        capture_output=True, text=True, env=ENV, cwd=str(ROOT), timeout=60,
    )
    assert done.returncode == OK, done.stderr
    token = done.stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{16,}", token), done.stdout
    return token


class Running:
    """A ``bughouse server --db`` and the bots connected to it."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.db = tmp_path / "db"
        self.err = tmp_path / "server.err"
        self.tokens = {"rook1": add_bot(self.db, "rook1")}  # before the server runs
        self.server = subprocess.Popen(
            bughouse("server", "--port", "0", "--line-port", "0", "--db", str(self.db),
                     "--out", str(tmp_path / "games")),
            stdout=subprocess.PIPE, stderr=self.err.open("w"), text=True, env=ENV,
            cwd=str(ROOT),
        )
        self.bots: dict[str, subprocess.Popen[str]] = {}
        assert self.server.stdout is not None
        for line in self.server.stdout:
            if found := re.match(r"lobby: (http://\S+?)/?$", line.strip()):
                self.url = found.group(1)
            if line.startswith("database: "):
                break
        else:
            raise AssertionError(f"the server did not start: {self.err.read_text()}")
        for name in ("rook2", "rook3"):  # beside the running server
            self.tokens[name] = add_bot(self.db, name)

    def said(self, name: str) -> str:
        """What bot ``name``'s ``connect`` process said (its standard error)."""
        return (self.tmp / f"{name}.err").read_text()

    def connect(self, name: str, token: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            bughouse("connect", "--server", self.url, "--bot", name, "--token", token,
                     "--tc", TC, "--", ENGINE),
            stdout=subprocess.DEVNULL, stderr=(self.tmp / f"{name}.err").open("w"), text=True,
            env=ENV, cwd=str(ROOT),
        )

    def start_bots(self) -> None:
        for name in BOTS:
            self.bots[name] = self.connect(name, self.tokens[name])
        deadline = time.monotonic() + WAIT_MS / 1000
        joined = [f"bot {name} joined the lobby" for name in BOTS]
        while not all(line in self.err.read_text() for line in joined):
            assert time.monotonic() < deadline, self.err.read_text()
            for name, process in self.bots.items():
                assert process.poll() is None, self.said(name)
            time.sleep(0.1)

    def stop(self) -> None:
        for process in [*self.bots.values(), self.server]:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    one = Running(tmp_path)
    try:
        yield one
    finally:
        one.stop()


@pytest.mark.slow
def test_register_log_in_play_rated_against_bots_and_see_the_ratings_and_the_game(
    browser: Any, running: Running
) -> None:
    server = running.url
    # A wrong token is refused: one line, exit 3.
    wrong = running.connect("rook1", "0" * 32)
    assert wrong.wait(60) == 3, running.said("rook1")
    assert running.said("rook1").splitlines() == [
        "bughouse connect: error: 'rook1' refused: wrong or revoked token for the bot 'rook1'"
    ]
    running.start_bots()
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
    # Create a rated table from a lobby socket of this page (the session's account), sit
    # and start: the three bots take the other seats.
    welcome, table = page.evaluate(PLAY, [TC])
    assert welcome == "queen"
    page.wait_for_function(SEATED_BOTS, arg=table, timeout=WAIT_MS)
    shown = page.evaluate(f"window.lobbyView.tables.find((t) => t.id === '{table}').seats")
    seated = {seat: shown[seat]["name"] for seat in ("A-black", "B-white", "B-black")}
    assert sorted(seated.values()) == sorted(BOTS)
    board = context.new_page()
    board.goto(f"{server}/table/{table}")  # a watcher's view of the bots playing
    page.wait_for_function(
        "() => (window.boardState?.boards?.B?.moves?.count || 0) > 2", timeout=WAIT_MS
    )
    board.screenshot(path=str(SHOTS / "rated-game-1280x800.png"))
    # A game counts for ratings once all four have moved (docs/ratings.md): queen moves,
    # A-Black's bot answers, then she resigns.
    # (Predicates as functions: an expression is evaluated by eval, which the CSP refuses.)
    page.wait_for_function(
        "() => window.boardState?.you?.toMove && window.boardState.you.legal.length",
        timeout=WAIT_MS,
    )
    page.evaluate("window.boardSocket.send(JSON.stringify({type: 'move', "
                  "uci: window.boardState.you.legal[0]}))")
    page.wait_for_function(
        "() => (window.boardState?.boards?.A?.moves?.count || 0) >= 2", timeout=WAIT_MS
    )
    page.evaluate("window.boardSocket.send(JSON.stringify({type: 'resign'}))")
    page.wait_for_function("() => window.result === '0-1'", timeout=WAIT_MS)
    # The lobby shows the new rating at once.
    page.wait_for_function(RATED_IN_LOBBY, arg=table, timeout=WAIT_MS)
    # The player page: one rated game, the rating down from 1500, its history drawn.
    page.goto(f"{server}/player/queen")
    expect(page.locator("#rated-games")).to_have_text("1")
    rating = int(re.sub(r"\D", "", page.locator("#rating").inner_text()))
    assert rating < 1500
    assert page.locator("svg.plot polyline").count() == 1
    assert page.locator("table.games .up").count() == 2  # the winners: A-black and B-white
    assert page.locator("table.games .down").count() == 2
    page.screenshot(path=str(SHOTS / "player-1280x800.png"), full_page=True)
    # The bots' ratings moved too: the winners up, queen's partner (B-black) down.
    page.goto(f"{server}/leaderboard?kind=bots&provisional=1")
    shown = page.locator("table.list tbody tr").all_inner_texts()
    rows = {cells[1].split()[0]: cells for cells in (row.split("\t") for row in shown)}
    assert sorted(rows) == sorted(BOTS)
    ratings = {name: int(re.sub(r"\D", "", cells[2])) for name, cells in rows.items()}
    assert ratings[seated["A-black"]] > 1500 and ratings[seated["B-white"]] > 1500
    assert ratings[seated["B-black"]] < 1500
    assert {cells[4].strip() for cells in rows.values()} == {"1"}  # one rated game each
    page.screenshot(path=str(SHOTS / "leaderboard-bots-1280x800.png"))
    # The archive: the game is there with all four names, and opens as its replay page.
    page.goto(f"{server}/games?player=queen")
    row = page.locator("table.games tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("0-1")
    for name in ("queen", *BOTS):
        expect(row).to_contain_text(name)
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
    for path, shot in (("/player/queen", "player"), ("/games", "archive"), ("/login", "login"),
                       ("/leaderboard?kind=bots&provisional=1", "leaderboard-bots")):
        small.goto(server + path)
        assert small.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        small.screenshot(path=str(SHOTS / f"{shot}-390x844.png"), full_page=True)
    assert errors == []
    context.close()
    phone.close()
    # Each bot played it on its own connection, and is still in the lobby for the next table.
    for seat, name in seated.items():
        assert f"seated at {table} as {seat}" in running.said(name)
        assert running.bots[name].poll() is None, running.said(name)
