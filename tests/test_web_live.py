"""``bughouse serve --web``: the live page, driven in a real browser.

Each test starts a real ``bughouse serve --web 0 --port 0`` with real
random-mover engines and drives the page in Debian's chromium through
Playwright (as ``test_web_replay`` does; skipped when either is missing
unless BUGHOUSE_REQUIRE_BROWSER=1). Screenshots go to ``tests/screenshots/``.
"""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_checks import BUGHOUSE

from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.core.model import BoardId
from bughouse_arbiter.ui.table_view import display_san
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"native:{sys.executable} {ROOT / 'engines' / 'random_mover.py'}"
WAIT_MS = 30_000
SERVE = [*BUGHOUSE, "serve"]


class Served:
    """A running ``bughouse serve``: its page address and seat tokens."""

    def __init__(self, process: subprocess.Popen[str], out: Path) -> None:
        self.process = process
        self.out = out
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.page = self.wait_for(r"live page: (\S+)").group(1)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        for line in self.seen:
            if found := re.search(pattern, line):
                return found
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise AssertionError(f"serve ended before {pattern!r}: {self.seen}")
            self.seen.append(line)
            if found := re.search(pattern, line):
                return found

    def seat_link(self, seat: str) -> str:
        return self.wait_for(rf"open (http://\S+#seat={seat}&token=\S+)").group(1)

    def interrupt(self) -> None:
        """Ctrl+C: the serve writes the game so far and exits 130 (0 if it had ended)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=60)
        assert self.process.returncode in (0, 130), err

    def finish(self) -> str:
        """Waits for the server to end; returns its stderr."""
        _, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return err


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    started: list[Served] = []

    def start(*args: str) -> Served:
        out = tmp_path / "live.bpgn"
        process = subprocess.Popen(
            [*SERVE, "--web", "0", "--port", "0", "--out", str(out), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
        )
        served = Served(process, out)
        started.append(served)
        return served

    yield start
    for served in started:
        if served.process.poll() is None:
            served.process.kill()
            served.process.communicate()


def open_page(browser: Any, url: str | None, errors: list[str], **options: Any) -> Any:
    """A new page (``options`` as for ``new_page``) whose script errors go to
    ``errors``, at ``url`` if given."""
    page = browser.new_page(**options)
    page.on("pageerror", lambda error: errors.append(str(error)))
    if url is not None:
        page.goto(url)
    return page


def no_horizontal_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def square_center(page: Any, board: str, square: str) -> tuple[float, float]:
    """Where ``square`` of ``board`` is on the screen, from the board's orientation."""
    wrap = page.locator(f"#side-{board} .board-wrap")
    box = wrap.bounding_box()
    white = wrap.get_attribute("data-orientation") == "white"
    file, rank = "abcdefgh".index(square[0]), int(square[1]) - 1
    column = file if white else 7 - file
    row = 7 - rank if white else rank
    size = box["width"] / 8
    return box["x"] + (column + 0.5) * size, box["y"] + (row + 0.5) * size


def listed(game: BpgnGame, board: str) -> list[str]:
    """A board's moves as the page lists them (``12. Nf3``, ``12... P@e4``), from the BPGN."""
    return [
        f"{m.number}{'.' if m.white else '...'} {display_san(m.san)}"
        for m in game.moves
        if m.board is BoardId(board)
    ]


def move_items(page: Any, board: str) -> Any:
    return page.get_by_role("list", name=f"Board {board} moves").locator("li")


#: For a second, counts the moves that reach the boards (last moves not seen
#: before) and the pieces that slide (chessground marks one with ``anim``).
WATCH_SLIDES = """() => new Promise((done) => {
  const moves = new Set();
  let sliding = 0;
  const seen = new MutationObserver((changes) => {
    for (const change of changes) {
      const target = change.target;
      if (change.attributeName === "data-last-move") moves.add(target.dataset.fen);
      else if (target.tagName === "PIECE" && target.classList.contains("anim")) sliding += 1;
    }
  });
  seen.observe(document.body, { subtree: true, attributes: true,
                                attributeFilter: ["class", "data-last-move"] });
  setTimeout(() => { seen.disconnect(); done([moves.size, sliding]); }, 1000);
})"""


@pytest.mark.slow
def test_a_spectator_watches_an_engine_match_to_its_end(browser: Any, serve: Any) -> None:
    from playwright.sync_api import expect

    engine = f"{RANDOM} --delay 40"
    served = serve(
        *[f"--engine={seat}={engine}" for seat in ("A-white", "A-black", "B-white", "B-black")],
        "--tc",
        "4+0",
    )
    # Asking for less motion: the pieces land without sliding (and the shot
    # catches none between two squares).
    errors: list[str] = []
    page = open_page(
        browser,
        served.page,
        errors,
        viewport={"width": 1280, "height": 800},
        reduced_motion="reduce",
    )
    expect(page.locator("#status")).to_contain_text("game 1", timeout=WAIT_MS)
    # Live: a clock runs and moves arrive on both boards.
    expect(page.locator(".seat.running").first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#side-A .board-wrap")).not_to_have_attribute("data-last-move", "")
    expect(page.locator("#side-B .board-wrap")).not_to_have_attribute("data-last-move", "")
    moves_seen, sliding = page.evaluate(WATCH_SLIDES)
    assert moves_seen > 1 and sliding == 0  # several positions came and went
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "live-1280x800.png"))
    # Board B is drawn from Black's side, so partners (A-White, B-Black) sit at the bottom.
    assert page.locator("#side-A .board-wrap").get_attribute("data-orientation") == "white"
    assert page.locator("#side-B .board-wrap").get_attribute("data-orientation") == "black"
    assert page.locator("#side-B .seat").last.get_attribute("data-seat") == "B-Black"
    assert "RandomMover" in page.inner_text("#side-A .seat >> nth=0")
    assert no_horizontal_overflow(page)
    page.set_viewport_size({"width": 390, "height": 844})
    assert no_horizontal_overflow(page)
    result = page.locator("#result")
    expect(result).to_be_visible(timeout=WAIT_MS)
    served.finish()
    game = read_games(served.out.read_bytes(), file=str(served.out))[0]
    expect(result).to_have_attribute("data-result", str(game.result_tag))
    assert game.result_tag in ("1-0", "0-1", "1/2-1/2")
    expect(result).to_contain_text(str(game.result_tag))
    expect(page.locator("#status")).to_contain_text("the server has closed", timeout=WAIT_MS)
    # Each board's whole game in its move list, as the file has it.
    for board in "AB":
        expect(move_items(page, board)).to_have_text(listed(game, board))
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(SHOTS / "live-ended-390x844.png"), full_page=True)
    assert errors == []


#: Keeps, per game, the last texts of the move lists the page showed in it.
RECORD_LISTS = """() => {
  window.listsSeen = {};
  const lists = [...document.querySelectorAll("ol.moves")];
  const record = () => {
    window.listsSeen[bughouseLive.movesGame] = lists.map(
      (list) => [...list.children].map((li) => li.textContent));
  };
  const seen = new MutationObserver(record);
  for (const list of lists) seen.observe(list, { childList: true });
}"""


#: Whether a board's move list holds more than it shows, by a few rows.
OVERFLOWS = """(board) => {
  const list = document.querySelector(`#side-${board} ol.moves`);
  return list.scrollHeight > list.clientHeight + 40;
}"""


def scrolled_to_end(page: Any, board: str) -> bool:
    return bool(
        page.evaluate(
            f"""(() => {{ const l = document.querySelector("#side-{board} ol.moves");
            return l.scrollHeight - l.scrollTop - l.clientHeight < 8; }})()"""
        )
    )


@pytest.mark.slow
def test_move_lists_of_two_games_for_pages_there_from_the_start_or_joining_mid_game(
    browser: Any, serve: Any
) -> None:
    """A page watching from the start, and one joining mid-game that then loses
    its connection and some moves: both end with every move of the game."""
    from playwright.sync_api import expect

    # Random movers' games end by a flag after ~20 s (66 moves a seat at
    # 0.15 s each on a 10 s clock), or earlier by a mate (rarely before 120 plies
    # over both boards, ~9 s): the checks below are made in a game's first seconds.
    # (On a 6 s clock, a loaded machine once saw game 2 end, and the server
    # close, before the page had asked for the moves it lost.)
    engine = f"{RANDOM} --delay 150"
    served = serve(
        *[f"--engine={seat}={engine}" for seat in ("A-white", "A-black", "B-white", "B-black")],
        "--tc",
        "10+0",
        "--games",
        "2",
    )
    errors: list[str] = []
    first = open_page(browser, served.page, errors, viewport={"width": 1280, "height": 800})
    first.evaluate(RECORD_LISTS)
    a_moves = move_items(first, "A")
    expect(first.locator("#status")).to_contain_text("game 1", timeout=WAIT_MS)
    expect(a_moves.first).to_have_text(re.compile(r"^1\. \S+$"), timeout=WAIT_MS)
    expect(a_moves.nth(1)).to_have_text(re.compile(r"^1\.\.\. \S+$"), timeout=WAIT_MS)

    # Reading back: a viewer who scrolled up stays there while moves arrive;
    # one at the end follows the newest move.
    expect(a_moves.nth(20)).to_be_attached(timeout=WAIT_MS)
    # (The list fills the height left under the board: wait until it overflows.)
    first.wait_for_function(OVERFLOWS, arg="A", timeout=WAIT_MS)
    a_list = first.locator("#side-A ol.moves")
    assert scrolled_to_end(first, "A")
    a_list.evaluate("list => { list.scrollTop = 0; }")
    count = a_moves.count()
    expect(a_moves.nth(count + 1)).to_be_attached(timeout=WAIT_MS)
    assert a_list.evaluate("list => list.scrollTop") == 0
    a_list.evaluate("list => { list.scrollTop = list.scrollHeight; }")
    count = a_moves.count()
    expect(a_moves.nth(count + 1)).to_be_attached(timeout=WAIT_MS)
    assert scrolled_to_end(first, "A")
    first.screenshot(path=str(SHOTS / "live-moves-1280x800.png"))

    # Game 2 starts the lists again.
    expect(first.locator("#status")).to_contain_text("game 2", timeout=WAIT_MS)
    expect(a_moves.nth(3)).to_be_attached(timeout=WAIT_MS)

    # Joining mid-game: the page is sent the moves played so far.
    joined = open_page(browser, None, errors, viewport={"width": 390, "height": 844})
    sockets: list[tuple[str, list[str], list[str]]] = []

    def watch(ws: Any) -> None:
        got: list[str] = []
        sent: list[str] = []
        sockets.append((ws.url, got, sent))
        ws.on("framereceived", lambda frame: got.append(str(frame)))
        ws.on("framesent", lambda frame: sent.append(str(frame)))

    joined.on("websocket", watch)
    joined.goto(served.page)
    expect(move_items(joined, "A").nth(5)).to_be_attached(timeout=WAIT_MS)
    url, got, _ = sockets[0]
    assert "?" not in url  # a new page holds nothing
    joined_at = json.loads(got[0])
    assert joined_at["game"] == 2 and joined_at["result"] is None
    assert joined_at["boards"]["A"]["moves"]["from"] == 0
    assert joined_at["boards"]["A"]["moves"]["count"] >= 4

    # Losing the connection: the page comes back saying what it holds, and
    # is sent the rest only.
    joined.evaluate("bughouseLive.socket.close()")
    for _ in range(WAIT_MS // 50):
        if len(sockets) > 1 and sockets[1][1]:
            break
        joined.wait_for_timeout(50)
    url, got, sent = sockets[1]
    held = dict(part.split("=") for part in url.split("?", 1)[1].split("&"))
    assert held["game"] == "2" and held["run"] == joined_at["run"]
    back = json.loads(got[0])
    for board in "AB":
        assert back["boards"][board]["moves"]["from"] == int(held[board]) > 0

    # Losing moves (as a bug might): the page finds the gap, asks, and gets them.
    lost = joined.evaluate(
        """() => { const list = document.querySelector("#side-B ol.moves");
        for (let i = 0; i < 3; i++) { list.lastElementChild.remove(); bughouseLive.moves.B.pop(); }
        return bughouseLive.moves.B.length; }"""
    )
    expect(move_items(joined, "B").nth(lost + 3)).to_be_attached(timeout=WAIT_MS)
    asked = [json.loads(frame) for frame in sent if '"moves"' in frame]
    assert asked == [{"type": "moves", "game": 2, "have": {"A": asked[0]["have"]["A"], "B": lost}}]

    served.finish()
    games = read_games(served.out.read_bytes(), file=str(served.out))
    assert len(games) == 2
    for page in (first, joined):
        expect(page.locator("#result")).to_be_visible(timeout=WAIT_MS)
        for board in "AB":
            expect(move_items(page, board)).to_have_text(listed(games[1], board))
    joined.screenshot(path=str(SHOTS / "live-moves-390x844.png"), full_page=True)
    # What the first page showed of game 1: the moves as the file has them (to
    # the last one, unless game 2 started before a snapshot showed it).
    seen = first.evaluate("window.listsSeen")
    assert set(seen) == {"1", "2"}
    for index, board in enumerate("AB"):
        shown, written = seen["1"][index], listed(games[0], board)
        assert len(shown) >= 10 and shown == written[: len(shown)]
    assert errors == []


@pytest.mark.slow
def test_a_seat_played_from_the_page(browser: Any, serve: Any) -> None:
    """Moves (drag, click, premove), a drop, a partner signal, refusals, resigning."""
    from playwright.sync_api import expect

    # Board A's captures feed B-White's pocket; should board A end first (random
    # movers mate now and then), board B plays on (board_end=continue). No drop
    # may give check, so B-Black's first move cannot make the premove (a knight's,
    # which no drop blocks) illegal.
    served = serve(
        "--remote=B-white",
        f"--engine=A-white={RANDOM} --delay 100",
        f"--engine=A-black={RANDOM} --delay 100",
        f"--engine=B-black={RANDOM} --delay 2500",
        "--rule=board_end=continue",
        "--rule=drop_check=no-check",
        "--tc",
        "120+0",
    )
    errors: list[str] = []
    page = open_page(browser, None, errors, viewport={"width": 1280, "height": 800})
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    page.goto(served.seat_link("b-white"))
    you = page.locator("#you")
    expect(you).to_have_text("You play B-White: your move", timeout=WAIT_MS)
    board = page.locator("#side-B .board-wrap")
    # The seat's own board is drawn from its side; the partner's from the partner's.
    assert board.get_attribute("data-orientation") == "white"
    assert page.locator("#side-A .board-wrap").get_attribute("data-orientation") == "black"
    assert "e2e4" in str(board.get_attribute("data-legal")).split()

    # A move by dragging.
    page.mouse.move(*square_center(page, "B", "e2"))
    page.mouse.down()
    page.mouse.move(*square_center(page, "B", "e4"), steps=5)
    page.mouse.up()
    start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    expect(board).not_to_have_attribute("data-fen", start, timeout=WAIT_MS)
    # The server has taken it: B-Black's turn (no legal moves for the page).
    expect(board).to_have_attribute("data-legal", "", timeout=WAIT_MS)
    # A premove while B-Black thinks (2.5 s): shown at once, played when the turn comes.
    page.mouse.click(*square_center(page, "B", "b1"))
    page.mouse.click(*square_center(page, "B", "c3"))
    expect(board.locator("square.current-premove")).to_have_count(2)
    expect(board.locator("square.current-premove")).to_have_count(0, timeout=WAIT_MS)

    # An illegal move is refused in the page: nothing is sent, the turn stays open.
    # First B-Black answers the premove: the server's turn again, the knight on c3.
    page.wait_for_function(
        """() => {
            const wrap = document.querySelector("#side-B .board-wrap");
            if (!wrap.dataset.legal) return false;
            const rank3 = wrap.dataset.fen.split(" ")[0].split("/")[5];
            return rank3.replace(/[1-8]/g, (n) => ".".repeat(Number(n)))[2] === "N";
        }""",
        timeout=WAIT_MS,
    )
    expect(you).to_have_text("You play B-White: your move", timeout=WAIT_MS)
    before = board.get_attribute("data-fen")
    page.mouse.click(*square_center(page, "B", "e4"))
    page.mouse.click(*square_center(page, "B", "e6"))
    expect(you).to_have_text("You play B-White: your move")
    assert board.get_attribute("data-fen") == before
    assert not [frame for frame in sent if '"move"' in frame and "e4e6" in frame]
    # The server still judges: an illegal move forced past the page is refused
    # (a person's seat), and the turn stays open.
    page.evaluate("""bughouseLive.socket.send('{"type": "move", "uci": "h2h5"}')""")
    expect(page.locator("#notice")).to_contain_text("the table refused h2h5", timeout=WAIT_MS)
    expect(you).to_have_text("You play B-White: your move", timeout=WAIT_MS)

    # A partner signal, in protocol.md's words.
    page.get_by_role("button", name="I want a knight: very good").click()
    expect(page.locator("#messages")).to_contain_text(
        "B-White → A-Black: ++n (I want a knight: very good)"
    )

    # Moves by clicking until the partner has passed a piece, then a drop.
    pocket = page.locator("#side-B .pocket.mine")
    dropped = None
    for _ in range(60):
        expect(you).to_have_text("You play B-White: your move", timeout=WAIT_MS)
        legal = str(board.get_attribute("data-legal")).split()
        drops = [m for m in legal if "@" in m]
        if drops:
            dropped = drops[0]
            before = board.get_attribute("data-fen")
            pocket.locator(f".piece-btn[data-piece='{dropped[0]}']").click()
            page.mouse.click(*square_center(page, "B", dropped[2:4]))
            expect(board).not_to_have_attribute("data-fen", str(before), timeout=WAIT_MS)
            break
        move = next((m for m in legal if len(m) == 4), legal[0])
        before = board.get_attribute("data-fen")
        page.mouse.click(*square_center(page, "B", move[:2]))
        page.mouse.click(*square_center(page, "B", move[2:4]))
        if len(move) == 5:
            page.locator(f"#promotion [data-promote='{move[4]}']").click()
        expect(board).not_to_have_attribute("data-fen", str(before), timeout=WAIT_MS)
    assert dropped is not None, "no piece reached the pocket"
    page.screenshot(path=str(SHOTS / "seat-1280x800.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(SHOTS / "seat-390x844.png"), full_page=True)

    # Resigning ends board B (board A may play on); Ctrl+C then ends the serve.
    page.get_by_role("button", name="resign").click()
    page.get_by_role("button", name="yes, resign").click()
    expect(board).to_have_class(re.compile(r"\bover\b"), timeout=WAIT_MS)
    expect(you).not_to_contain_text("your move")
    served.interrupt()
    expect(page.locator("#result")).to_be_visible(timeout=WAIT_MS)
    text = served.out.read_text()
    # Board B ended by the resignation; if board A had ended first, that ended the game.
    assert "[%boardend B 1-0 resignation WB]" in text or (
        '[Termination "resignation"]' in text and '[TerminationSeat "WB"]' in text
    )
    assert re.search(r"\b1B\. e4\b", text), "the dragged move is B-White's first"
    assert re.search(r"\b2B\. Nx?c3\b", text), "the premove is B-White's second"
    assert sum('"type":"move"' in frame for frame in sent) >= 3
    assert "++n" in text
    assert "@" + dropped[2:4] in text
    # The page lists the seat's moves as the file has them.
    game = read_games(served.out.read_bytes(), file=str(served.out))[0]
    b_moves = move_items(page, "B")
    for board in "AB":
        expect(move_items(page, board)).to_have_text(listed(game, board))
    expect(b_moves.nth(0)).to_have_text("1. e4")
    expect(b_moves.nth(2)).to_have_text(re.compile(r"^2\. Nx?c3$"))
    drop = f"{dropped[0].upper()}@{dropped[2:4]}"
    expect(b_moves.filter(has_text=re.compile(rf"^\d+\. {drop}")).first).to_be_attached()
    assert errors == []


@pytest.mark.slow
def test_the_page_follows_its_player_as_the_seats_rotate(browser: Any, serve: Any) -> None:
    """Two games: the person who joined B-White plays B-Black in game 2, on the same page."""
    from playwright.sync_api import expect

    # Board A moves slowly, so neither game ends there before the person resigns.
    served = serve(
        "--remote=B-white",
        f"--engine=A-white={RANDOM} --delay 1000",
        f"--engine=A-black={RANDOM} --delay 1000",
        f"--engine=B-black={RANDOM} --delay 1500",
        "--games=2",
        "--tc",
        "120+0",
    )
    errors: list[str] = []
    page = open_page(browser, None, errors, viewport={"width": 1280, "height": 800})
    page.goto(served.seat_link("b-white") + "&name=Tester")
    you = page.locator("#you")
    board_a = page.locator("#side-A .board-wrap")
    board_b = page.locator("#side-B .board-wrap")
    # Game 1 at the token's seat: nothing about rotation yet.
    expect(you).to_have_text("You play B-White: your move", timeout=WAIT_MS)
    assert board_b.get_attribute("data-orientation") == "white"
    assert board_a.get_attribute("data-orientation") == "black"
    expect(page.locator("#rotated")).to_have_text("")
    page.get_by_role("button", name="resign").click()
    page.get_by_role("button", name="yes, resign").click()
    served.wait_for(r"game 1/2: 1-0 B-White resigned")

    # Game 2: the same page plays B-Black, drawn from its side, and says why.
    expect(page.locator("#status")).to_contain_text("game 2", timeout=WAIT_MS)
    expect(you).to_have_text("You play B-Black: your move", timeout=WAIT_MS)
    expect(board_b).to_have_attribute("data-orientation", "black")
    expect(board_a).to_have_attribute("data-orientation", "white")
    expect(page.locator("#rotated")).to_have_text(
        "Seats rotate between games: you joined as B-White, and play B-Black in game 2."
    )
    legal = str(board_b.get_attribute("data-legal")).split()
    assert legal and all(move[1] == "7" or move[1] == "8" for move in legal), legal
    move = next(m for m in legal if m[0] in "abcdefgh" and len(m) == 4)
    before = board_b.get_attribute("data-fen")
    page.mouse.click(*square_center(page, "B", move[:2]))
    page.mouse.click(*square_center(page, "B", move[2:4]))
    expect(board_b).not_to_have_attribute("data-fen", str(before), timeout=WAIT_MS)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "seat-rotated-1280x800.png"), full_page=True)
    page.get_by_role("button", name="resign").click()
    page.get_by_role("button", name="yes, resign").click()
    expect(page.locator("#result")).to_be_visible(timeout=WAIT_MS)
    expect(you).to_have_text("You played B-Black.", timeout=WAIT_MS)
    # The person's side lost both games, whichever team it played as.
    served.wait_for(r"^score: RandomMover 1\.0\+RandomMover 1\.0 2 - 0 RandomMover 1\.0\+Tester ")
    served.finish()
    one, two = read_games(served.out.read_bytes(), file=str(served.out))
    assert one.tags["WhiteB"] == "Tester" and one.tags["TerminationSeat"] == "WB"
    assert two.tags["BlackB"] == "Tester" and two.tags["TerminationSeat"] == "BB"
    assert two.tags["Result"] == "0-1" and two.tags["Termination"] == "resignation"
    # The move the person played is B-Black's first in game 2.
    first_black_b = next(m for m in two.moves if m.board.value == "B" and not m.white)
    assert first_black_b.san.rstrip("+#").endswith(move[2:4]), (first_black_b, move)
    assert errors == []
