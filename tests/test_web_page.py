"""The live page as its players see it, on a wide screen and on a phone.

One real ``bughouse serve --web`` with two people, A-White on a phone
(390×844) and B-White on a wide screen (1280×800), against two scripted
engines (``tests/script_engine.py``) that give each a pawn to promote and
then hold still. The page is driven in Debian's chromium (as in
``test_web_live``); screenshots go to ``tests/screenshots/``.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from bughouse_arbiter.bpgn.read import read_games
from tests.test_web_live import WAIT_MS, open_page, square_center
from tests.test_web_live import serve as serve  # the shared fixture
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

ROOT = Path(__file__).resolve().parent.parent
#: Black's moves while White walks its a-pawn to b7: none of them in its way.
BLACK_SCRIPT = "h7h6,h6h5,h5h4,g7g6"
WHITE_WALK = ["a2a4", "a4a5", "a5a6", "a6b7"]

#: What each player needs while playing, in the first screen: everything on
#: a wide screen; on a phone, the player's own board with its clocks and
#: pockets, the turn, the signals and resign.
WIDE = [
    "#side-A .board-wrap",
    "#side-B .board-wrap",
    ".pocket",
    ".seat .clock",
    ".seat .name",
    "#you",
    "#signals button",
    "#draw",
    "#resign",
    "#messages-box",
]
PHONE = [
    ".side.own .board-wrap",
    ".side.own .pocket",
    ".side.own .seat .clock",
    "#you",
    "#signals button",
    "#resign",
]

#: Each element of each selector that is not wholly in the first screen
#: (or the page scrolled), with where it is.
OUTSIDE = """(selectors) => {
  const wrong = window.scrollY ? [`scrolled to ${window.scrollY}`] : [];
  for (const selector of selectors) {
    const found = [...document.querySelectorAll(selector)];
    if (!found.length) wrong.push(`${selector}: none`);
    for (const el of found) {
      const r = el.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 &&
            r.right <= innerWidth && r.bottom <= innerHeight)) {
        wrong.push(`${selector}: x ${r.left}..${r.right} y ${r.top}..${r.bottom}`);
      }
    }
  }
  return wrong;
}"""

#: Board coordinates outside their board (chessground's own put the h-file
#: past the edge) or smaller than 11 px, and pocket counts over their piece.
MISPLACED = """() => {
  const inside = (r, box) => r.left >= box.left && r.right <= box.right &&
    r.top >= box.top && r.bottom <= box.bottom;
  const wrong = [];
  for (const wrap of document.querySelectorAll(".board-wrap")) {
    const board = wrap.getBoundingClientRect();
    for (const coord of wrap.querySelectorAll("coord")) {
      const size = parseFloat(getComputedStyle(coord).fontSize);
      if (!inside(coord.getBoundingClientRect(), board) || size < 11) {
        wrong.push(`coordinate ${coord.textContent}: ${size}px`);
      }
    }
  }
  for (const button of document.querySelectorAll(".pocket .piece-btn")) {
    const piece = button.querySelector("piece").getBoundingClientRect();
    const count = button.querySelector(".count").getBoundingClientRect();
    if (count.left < piece.right && count.top < piece.bottom && piece.top < count.bottom) {
      wrong.push(`count over ${button.dataset.piece}`);
    }
  }
  return wrong;
}"""


def script_engine(told: Path) -> str:
    engine = ROOT / "tests" / "script_engine.py"
    return f"native:{sys.executable} {engine} --moves {BLACK_SCRIPT} --told {told} --delay 50"


def wait_told(told: Path, text: str) -> None:
    """Waits until the engine has been told ``text`` (one line of its own)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        if told.exists() and text in told.read_text().splitlines():
            return
        time.sleep(0.05)
    raise AssertionError(f"never told {text!r}: {told.read_text() if told.exists() else ''}")


def click_move(page: Any, board: str, uci: str) -> None:
    page.mouse.click(*square_center(page, board, uci[:2]))
    page.mouse.click(*square_center(page, board, uci[2:4]))


class Player(NamedTuple):
    """A person at the table: the page, where it sits, and the frames it sent."""

    page: Any
    board: str
    seat: str
    name: str
    size: str  # "1280x800", for the screenshots
    sent: list[str]

    @property
    def own_board(self) -> Any:
        return self.page.locator(f"#side-{self.board} .board-wrap")


def seat_page(
    browser: Any, link: str, seat: str, width: int, height: int, errors: list[str]
) -> Player:
    """A page at ``width``×``height`` that opens ``link`` (which carries the name)."""
    page = open_page(browser, None, errors, viewport={"width": width, "height": height})
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    page.goto(link)
    name = re.search(r"name=(\w+)", link)
    assert name is not None
    return Player(page, seat[0], seat, name.group(1), f"{width}x{height}", sent)


@pytest.mark.slow
def test_two_players_on_a_wide_screen_and_a_phone(
    browser: Any, serve: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    told = {seat: tmp_path / f"{seat}.told" for seat in ("A-black", "B-black")}
    served = serve(
        "--remote=B-white",
        "--remote=A-white",
        *[f"--engine={seat}={script_engine(path)}" for seat, path in told.items()],
        "--tc",
        "300+0",
    )
    errors: list[str] = []
    # The name comes with the link: in its query, or after the token.
    wide_link = served.seat_link("b-white").replace("/#", "/?name=Alice#")
    wide = seat_page(browser, wide_link, "B-White", 1280, 800, errors)
    phone_link = served.seat_link("a-white") + "&name=Bob"
    phone = seat_page(browser, phone_link, "A-White", 390, 844, errors)
    players = [wide, phone]

    # Each walks its a-pawn to b7, by clicks.
    for uci in WHITE_WALK:
        for player in players:
            your_move(player)
            before = player.own_board.get_attribute("data-fen")
            click_move(player.page, player.board, uci)
            expect(player.own_board).not_to_have_attribute("data-fen", str(before), timeout=WAIT_MS)
    # The promotion: four pieces of real size (chessground's 12.5% once made them 8 px).
    for player in players:
        your_move(player)
        click_move(player.page, player.board, "b7a8")
        choices = player.page.locator("#promotion piece")
        expect(choices).to_have_count(4)
        for index in range(4):
            box = choices.nth(index).bounding_box()
            assert box is not None and box["width"] >= 40 and box["height"] >= 40, box
        player.page.screenshot(path=str(SHOTS / f"promotion-{player.size}.png"))
    wide.page.locator("#promotion").get_by_role("button", name="queen").click()
    phone.page.locator("#promotion").get_by_role("button", name="knight").click()
    for player in players:
        expect(player.own_board).to_have_attribute("data-last-move", "b7a8", timeout=WAIT_MS)
        expect(player.page.locator("#promotion")).to_be_hidden()
        # Both names, as text, on both pages.
        for other in players:
            seat_name = player.page.locator(f".seat[data-seat='{other.seat}'] .name")
            expect(seat_name).to_have_text(other.name)

    # What a player needs is in the first screen, and a signal sent from there
    # (protocol.md's words: ++n) scrolls nothing.
    for player, needed, signal, word, partner in [
        (wide, WIDE, "I want a knight: very good", "++n", "A-black"),
        (phone, PHONE, "don't let them get a queen: very bad", "--q", "B-black"),
    ]:
        page = player.page
        assert page.evaluate(OUTSIDE, needed) == []
        assert page.evaluate(MISPLACED) == []
        top = player.own_board.bounding_box()
        page.get_by_role("button", name=signal).click()
        wait_told(told[partner], word)
        messages = page.locator("#messages")
        expect(messages).to_contain_text(f"{player.seat} → {partner.title()}: {word} ({signal})")
        assert page.evaluate("window.scrollY") == 0
        assert player.own_board.bounding_box() == top
        assert page.evaluate(OUTSIDE, needed) == []
        page.screenshot(path=str(SHOTS / f"page-{player.size}.png"))

    # A draw is offered only once confirmed; "no" sends nothing.
    confirm = wide.page.locator("#confirm")
    wide.page.get_by_role("button", name="offer draw").click()
    expect(confirm).to_contain_text("Offer a draw?")
    wide.page.get_by_role("button", name="no", exact=True).click()
    expect(confirm).to_be_hidden()
    assert not any('"draw"' in frame for frame in wide.sent)
    wide.page.get_by_role("button", name="offer draw").click()
    wide.page.get_by_role("button", name="yes, offer").click()
    expect(phone.page.locator("#offer")).to_have_text("B-White offers a draw", timeout=WAIT_MS)
    assert sum('"draw"' in frame for frame in wide.sent) == 1
    # Accepting asks too; the phone says no.
    phone.page.get_by_role("button", name="accept draw").click()
    expect(phone.page.locator("#confirm")).to_contain_text("Accept the draw?")
    phone.page.screenshot(path=str(SHOTS / f"confirm-{phone.size}.png"))
    phone.page.get_by_role("button", name="no", exact=True).click()
    assert not any('"draw"' in frame for frame in phone.sent)

    # Resigning, confirmed, ends the game: the result is in the first screen,
    # and the seat's buttons are off on both pages.
    phone.page.get_by_role("button", name="resign").click()
    phone.page.get_by_role("button", name="yes, resign").click()
    for player in players:
        page = player.page
        expect(page.locator("#result")).to_contain_text("0-1", timeout=WAIT_MS)
        for selector in ["#signals button", "#draw", "#resign"]:
            buttons = page.locator(selector)
            for index in range(buttons.count()):
                expect(buttons.nth(index)).to_be_disabled()
        page.screenshot(path=str(SHOTS / f"page-ended-{player.size}.png"))
        assert page.evaluate(OUTSIDE, ["#result", "#you"]) == []
    served.finish()
    game = read_games(served.out.read_bytes(), file=str(served.out))[0]
    assert game.tags["WhiteB"] == "Alice" and game.tags["WhiteA"] == "Bob"
    assert game.tags["Result"] == "0-1" and game.tags["TerminationSeat"] == "WA"
    text = served.out.read_text()
    assert re.search(r"\bbxa8=Q\b", text) and re.search(r"\bbxa8=N\b", text)
    assert "++n" in text and "--q" in text
    assert errors == []


def your_move(player: Player) -> None:
    from playwright.sync_api import expect

    expect(player.page.locator("#you")).to_have_text(
        f"You play {player.seat}: your move", timeout=WAIT_MS
    )
