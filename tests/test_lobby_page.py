"""The lobby page (web/assets/lobby.*) against a stand-in lobby socket.

Chromium loads the page's own files from the package (Playwright's routing,
no server) and its ``/ws`` is answered by the test, which plays the server's
side of docs/server.md's lobby messages: what the page sends for each
click, and what it shows for each message, hostile names as text. The real
server's browser tests are in ``test_server_browser``. Screenshots go to
``tests/screenshots/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from bughouse_arbiter.web.assets import asset
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

ORIGIN = "http://lobby.test"
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
HOSTILE = "<img src=x onerror=\"document.title='owned'\">"


def seat(name: str, kind: str = "guest", rating: float | None = None) -> dict[str, Any]:
    return {"name": name, "kind": kind, "rating": rating}


def table(ident: str, state: str = "open", **seats: dict[str, Any] | None) -> dict[str, Any]:
    places = {"A-white": None, "A-black": None, "B-white": None, "B-black": None}
    places.update({key.replace("_", "-"): value for key, value in seats.items()})
    return {
        "id": ident,
        "tc": "180+0",
        "rules": {"profile": "club", "time": "180", "draw": "both-teams"},
        "rated": False,
        "computers": True,
        "fill_after": 20,
        "rematch_colours": "swap",
        "state": state,
        "game": 1,
        "watchers": 2,
        "seats": places,
    }


class StandIn:
    """The server's side of one page's lobby socket."""

    def __init__(self, page: Any, path: str = "/ws") -> None:
        self.page = page
        self.socket: Any = None
        self.received: list[dict[str, Any]] = []
        self.lobby: StandIn | None = None
        page.route_web_socket(f"{ORIGIN.replace('http', 'ws')}{path}", self._accept)

    def _accept(self, socket: Any) -> None:
        self.socket = socket
        socket.on_message(lambda text: self.received.append(json.loads(text)))

    def send(self, message: dict[str, Any]) -> None:
        assert self.socket is not None
        self.socket.send(json.dumps(message))

    def wait_for(self, kind: str) -> dict[str, Any]:
        """The first message of type ``kind`` the page sent (waiting for it, bounded)."""
        for _ in range(100):
            for message in self.received:
                if message["type"] == kind:
                    self.received.remove(message)
                    return message
            self.page.wait_for_timeout(50)
        raise AssertionError(f"the page sent no {kind!r}: {self.received}")


def serve_assets(route: Any) -> None:
    path = route.request.url.removeprefix(ORIGIN)
    name = "lobby.html" if path in ("/", "") else path.removeprefix("/assets/")
    if "/" in name or "." not in name:
        route.fulfill(status=404, body="not here")
        return
    suffix = name[name.rindex(".") :]
    route.fulfill(status=200, body=asset(name), content_type=TYPES.get(suffix, "text/plain"))


@pytest.fixture
def lobby(browser: Any) -> Iterator[Any]:
    pages: list[Any] = []

    def open_lobby(width: int, height: int, name: str = "") -> tuple[Any, StandIn, list[str]]:
        page = browser.new_page(viewport={"width": width, "height": height})
        pages.append(page)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route(f"{ORIGIN}/**", serve_assets)
        stand_in = StandIn(page)
        if name:
            page.add_init_script(f"localStorage.setItem('bughouse-name', {json.dumps(name)})")
        page.goto(f"{ORIGIN}/")
        return page, stand_in, errors

    yield open_lobby
    for page in pages:
        page.close()


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_lobby_shows_tables_seats_queue_and_chat_as_text(
    lobby: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    page, server, errors = lobby(width, height)
    # A first visit asks for a name; the name goes in a hello.
    expect(page.locator("#hello")).to_be_visible()
    expect(page.locator("#status")).to_have_text("choose a name to join the lobby")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lobby-hello-{width}x{height}.png"))
    page.fill("#hello-name", "alice")
    page.click("#hello button")
    assert server.wait_for("hello") == {"type": "hello", "name": "alice"}
    # A name someone else holds: said at once, the form stays for another try.
    taken = "the name 'alice' is taken by someone connected now"
    server.send({"type": "error", "text": taken})
    expect(page.locator("#notice")).to_have_text(taken)
    expect(page.locator("#hello")).to_be_visible()
    page.click("#hello button")
    assert server.wait_for("hello") == {"type": "hello", "name": "alice"}
    server.send({"type": "welcome", "name": "alice"})
    expect(page.locator("#status")).to_have_text("you are alice")
    expect(page.locator("#hello")).to_be_hidden()

    server.send(
        {
            "type": "lobby",
            "tables": [
                table("t1", "playing", A_white=seat("carol", rating=1612.4),
                      A_black=seat("RandomBot", "bot"), B_white=seat(HOSTILE),
                      B_black=seat("computer", "computer")),
                table("t2", A_white=seat("alice"), B_black=seat("bob")),
                table("t3", "between", A_white=seat("dave"), A_black=seat("erin"),
                      B_white=seat("frank"), B_black=seat("gina")),
            ],
            "queue": [{"tc": "180+0", "names": ["hal", "ivy"], "since": 4.0}],
            "online": ["alice", "bob", "carol", HOSTILE],
        }
    )
    tables = page.locator("#tables > li")
    expect(tables).to_have_count(3)
    # Where alice sits comes first, with her seat marked and a stand button.
    first = tables.first
    expect(first).to_have_attribute("data-table", "t2")
    expect(first.locator(".seat.me .name")).to_have_text("alice")
    expect(first.locator(".facts")).to_have_text(
        "club rules, draw=both-teams · computers after 20 s · rematch swaps colours"
    )
    expect(first.locator(".tc")).to_have_text("3+0")
    expect(first.locator(".seat.open")).to_have_count(2)
    # A hostile name is text, never markup.
    t1 = page.locator("li[data-table='t1']")
    expect(t1.locator(".seat[data-seat='B-white'] .name")).to_have_text(HOSTILE)
    expect(t1.locator(".seat[data-seat='A-white'] .rating")).to_have_text("1612")
    expect(t1.locator(".seat[data-seat='A-black'] .kind")).to_have_text("bot")
    expect(t1.locator(".state")).to_have_text("playing game 1")
    expect(t1.locator(".watchers")).to_have_text("2 watching")
    assert page.locator("img").count() == 0
    expect(page.locator("#online")).to_have_text("4 online · 2 in the queue")

    # Sit, stand and start send the table's id (and the seat).
    first.get_by_role("button", name="sit at t2 A black").click()
    assert server.wait_for("sit") == {"type": "sit", "table": "t2", "seat": "A-black"}
    first.get_by_role("button", name="stand").click()
    assert server.wait_for("stand") == {"type": "stand", "table": "t2"}
    first.get_by_role("button", name="start").click()
    assert server.wait_for("start") == {"type": "start", "table": "t2"}

    # Play now, with a partner: the page says why it waits, as it is told.
    page.select_option("#quick-tc", "60+0")
    page.fill("#quick-partner", "bob")
    page.click("#play-now")
    assert server.wait_for("play_now") == {
        "type": "play_now", "tc": "60+0", "computers": True, "partner": "bob"
    }
    why = "waiting for bob to accept your invitation (60+0)"
    server.send({"type": "queued", "tc": "60+0", "why": why})
    expect(page.locator("#queued-tc")).to_have_text("In the queue for 1+0")
    # A number of seconds in the reason counts down in the page.
    server.send({"type": "queued", "tc": "60+0",
                 "why": "waiting for 2 more players at 60+0; computers fill the seats in 15 s"})
    expect(page.locator("#queued-why")).to_have_text(
        re.compile(r"waiting for 2 more players at 60\+0; computers fill the seats in 1[0-4] s")
    )
    server.send({"type": "queued", "tc": "60+0", "why": why})
    expect(page.locator("#queued-why")).to_have_text(why)
    expect(page.locator("#play-now")).to_be_hidden()

    # An invitation from someone else: accepted by one click.
    server.send({"type": "invited", "from": HOSTILE, "tc": "180+0"})
    expect(page.locator("#invite-text")).to_have_text(f"{HOSTILE} asks you to be partners at 3+0.")

    # Chat lines as text.
    server.send({"type": "chat", "from": "bob", "text": "<b>hi</b> all", "at": 1_700_000_000})
    expect(page.locator("#chat li")).to_have_count(1)
    expect(page.locator("#chat li")).to_contain_text("bob: <b>hi</b> all")
    page.fill("#chat-text", "hello there")
    page.press("#chat-text", "Enter")
    assert server.wait_for("chat") == {"type": "chat", "text": "hello there"}
    expect(page.locator("#chat-text")).to_have_value("")

    # Everything needed is in the first screen, and nothing runs off sideways.
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate(
        "[...document.querySelectorAll('#tables .seat')].every(s => s.scrollWidth <= s.clientWidth"
        " && s.getBoundingClientRect().right <= window.innerWidth)"
    )
    for needed in ("#queued", "#invite", "#tables > li >> nth=0"):
        box = page.locator(needed).bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (needed, box)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"lobby-{width}x{height}.png"))

    page.click("#invite-accept")
    assert server.wait_for("accept") == {"type": "accept", "from": HOSTILE}
    expect(page.locator("#invite")).to_be_hidden()
    page.click("#leave-queue")
    assert server.wait_for("leave_queue") == {"type": "leave_queue"}
    expect(page.locator("#play-now")).to_be_visible()
    assert page.title() == "Bughouse: lobby"
    assert errors == []


@pytest.mark.slow
def test_creating_and_watching_a_table_and_following_a_seat(lobby: Any) -> None:
    from playwright.sync_api import expect

    page, server, errors = lobby(1280, 800, name="bob")
    # A stored name says hello at once; "taken" (the table page this browser
    # just left still holds it), it is asked again.
    assert server.wait_for("hello") == {"type": "hello", "name": "bob"}
    server.send({"type": "error", "text": "the name 'bob' is taken by someone connected now"})
    assert server.wait_for("hello") == {"type": "hello", "name": "bob"}
    server.send({"type": "welcome", "name": "bob"})
    expect(page.locator("#status")).to_have_text("you are bob")
    page.click("#create-box summary")
    page.fill("#create-tc", "15+0")
    page.select_option("#create-rules", "server")
    page.check("#create-rated")
    page.fill("#create-fill", "5")
    page.select_option("#create-colours", "keep")
    page.select_option("#create-leaver", "lose")
    page.fill("#create-grace", "5")
    page.click("#create button[type=submit]")
    assert server.wait_for("create") == {
        "type": "create",
        "tc": "15+0",
        "rules": {"profile": "server", "leaver": "lose", "reconnect_grace": "5"},
        "rated": True,
        "computers": True,
        "fill_after": 5,
        "rematch_colours": "keep",
    }
    server.send({"type": "created", "table": "t9"})
    tables = [table("t8"), table("t9")]
    server.send({"type": "lobby", "tables": tables, "queue": [], "online": ["bob"]})
    expect(page.locator("#tables > li").first).to_have_attribute("data-table", "t9")
    expect(page.locator("li[data-table='t9']")).to_have_class("table state-open created")
    # Then only what changed: a seat taken at t8, t9 gone, one more online.
    taken = table("t8", A_white=seat("ann"))
    server.send({"type": "lobby-diff", "version": 1, "tables": {"t8": taken}, "gone": ["t9"],
                 "online": ["ann", "bob"]})
    expect(page.locator("li[data-table='t9']")).to_have_count(0)
    expect(page.locator("li[data-table='t8']")).to_contain_text("ann")
    expect(page.locator("#online")).to_have_text("2 online")
    # A diff missed (version 3 after 1): the page asks for the whole view again.
    server.send({"type": "lobby-diff", "version": 3, "tables": {}, "gone": ["t8"]})
    assert server.wait_for("lobby") == {"type": "lobby"}
    expect(page.locator("li[data-table='t8']")).to_have_count(1)

    # A name refused: said in one line.
    server.send({"type": "error", "text": "tc: '0:99' is not a time control"})
    expect(page.locator("#notice")).to_have_text("tc: '0:99' is not a time control")

    # Watch: one click, and the server's answer opens the table page.
    page.get_by_role("button", name="watch t8").click()
    assert server.wait_for("watch") == {"type": "watch", "table": "t8"}
    with page.expect_request(f"{ORIGIN}/table/t8"):
        server.send({"type": "watch", "table": "t8", "url": "/table/t8"})
    assert errors == []


@pytest.mark.slow
def test_a_seat_message_opens_the_table_page_or_offers_one_opened_before(lobby: Any) -> None:
    from playwright.sync_api import expect

    page, server, errors = lobby(390, 844, name="carol")
    server.wait_for("hello")
    server.send({"type": "welcome", "name": "carol"})
    # Back in the lobby during a game this tab opened: the seat is told again
    # (the server does so), and offered as a link rather than taking the page away.
    page.evaluate("sessionStorage.setItem('bughouse-seat-t2', 'held')")
    held = "/table/t2?seat=A-white#seat=A-white&token=held"
    server.send({"type": "seat", "table": "t2", "seat": "A-white", "token": "held", "url": held})
    expect(page.locator("#playing-text")).to_have_text("You are playing at t2 as A-white.")
    expect(page.locator("#playing-link")).to_have_attribute("href", held)
    server.send({"type": "lobby", "version": 6, "queue": [], "online": ["carol"],
                 "tables": [table("t2", "playing", A_white=seat("carol"))]})
    expect(page.locator("#playing")).to_be_visible()
    expect(page.locator("#play-now")).to_be_hidden()
    page.screenshot(path=str(SHOTS / "lobby-playing-390x844.png"))
    # The game over and the table open again: the link goes.
    server.send({"type": "lobby-diff", "version": 7, "gone": [],
                 "tables": {"t2": table("t2", A_white=seat("carol"))}})
    expect(page.locator("#playing")).to_be_hidden()
    expect(page.locator("#play-now")).to_be_visible()
    # A new seat opens its table at once.
    url = "/table/t3?seat=B-black#token=s3cret"
    with page.expect_request(f"{ORIGIN}/table/t3?seat=B-black"):
        server.send({"type": "seat", "table": "t3", "seat": "B-black", "token": "t", "url": url})
    page.wait_for_url(re.compile(r".*/table/t3\?seat=B-black.*"))
    page.wait_for_load_state()
    # Remembered in this tab: back in the lobby, the page will not be taken away.
    assert page.evaluate("sessionStorage.getItem('bughouse-seat-t3')") == "t"
    assert errors == []


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def board_info(live: bool) -> dict[str, Any]:
    return {
        "fen": START,
        "turn": "white",
        "toMove": "A-White",
        "live": live,
        "check": False,
        "status": "",
        "waiting": False,
        "lastMove": [],
        "lastSan": None,
        "pockets": {"white": {}, "black": {}},
        "moves": {"count": 0, "from": 0, "list": []},
    }


def ended_state(game: int) -> dict[str, Any]:
    """A snapshot (live_view's shape) of game ``game`` ended, for the page at A-White."""
    seats = ["A-White", "A-Black", "B-White", "B-Black"]
    return {
        "type": "state",
        "version": game,
        "run": "r1",
        "game": game,
        "started": True,
        "names": dict(zip(seats, ["alice", "bob", "carol", "computer"], strict=True)),
        "boards": {"A": board_info(False), "B": board_info(False)},
        "clocks": dict.fromkeys(seats, 15000),
        "running": [],
        "untimed": False,
        "messages": [],
        "result": {"result": "1-0", "reason": "flag", "winners": ["A-White", "B-Black"],
                   "text": "A-Black lost on time"},
        "drawOffer": None,
        "drawRule": "humans",
        "you": {"seat": "A-White", "board": "A", "color": "white", "toMove": False,
                "legal": [], "joined": "A-White"},
    }


def open_table(browser: Any, width: int, height: int) -> tuple[Any, StandIn, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def serve(route: Any) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path.startswith("/table/t3"):
            route.fulfill(status=200, body=asset("live.html"), content_type="text/html")
        else:
            serve_assets(route)

    page.route(f"{ORIGIN}/**", serve)
    stand_in = StandIn(page, "/table/t3/ws")
    stand_in.lobby = StandIn(page, "/ws")
    page.add_init_script("localStorage.setItem('bughouse-name', 'alice')")
    page.goto(f"{ORIGIN}/table/t3?seat=A-white#token=tok3n")
    return page, stand_in, errors


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_table_page_of_a_lobby_table_chats_mutes_and_asks_for_a_rematch(
    browser: Any, width: int, height: int
) -> None:
    from playwright.sync_api import expect

    page, server, errors = open_table(browser, width, height)
    # The lobby's link (?seat=A-white#token=...) sits at once, on the table's socket.
    assert server.wait_for("sit") == {"type": "sit", "seat": "A-White", "token": "tok3n",
                                      "name": "alice"}
    server.send({"type": "seated", "seat": "A-White", "joined": "A-White", "name": "alice",
                 "signals": []})
    server.send(ended_state(1))
    expect(page.locator("#result")).to_have_text("Result: 1-0 (flag)")
    # The person stays in the lobby while at the table (the lobby keeps a
    # series going for those in it), with the name the lobby page used.
    lobby = server.lobby
    assert lobby is not None
    assert lobby.wait_for("hello") == {"type": "hello", "name": "alice"}
    lobby.send({"type": "error", "text": "the name 'alice' is taken by someone connected now"})
    assert lobby.wait_for("hello") == {"type": "hello", "name": "alice"}
    lobby.send({"type": "welcome", "name": "alice"})
    expect(page.locator("#to-lobby")).to_have_attribute("href", "/")
    assert page.title() == "Bughouse: table t3"

    # Table chat: lines as text, each name a one-click mute for this table.
    server.send({"type": "chat", "from": "bob", "text": HOSTILE, "at": 12.5})
    server.send({"type": "chat", "from": "watcher1", "text": "gg all", "at": 13.0})
    lines = page.locator("#chat li")
    expect(lines).to_have_count(2)
    expect(lines.first).to_contain_text(f"bob: {HOSTILE}")
    assert page.locator("img").count() == 0
    page.fill("#chat-text", "thanks, again?")
    page.press("#chat-text", "Enter")
    assert server.wait_for("chat") == {"type": "chat", "text": "thanks, again?"}

    # Rematch: asked once, and said so while the others decide.
    rematch = page.locator("#rematch")
    expect(rematch).to_be_visible()
    expect(page.locator("#rematch-note")).to_have_text("same teams, colours swapped")
    lobby.send({"type": "rematch", "table": "t3", "from": "carol"})
    expect(page.locator("#rematch-note")).to_have_text("carol wants a rematch")
    for needed in ("#rematch", "#result", "#chat-text") if width > 1000 else ("#result",):
        box = page.locator(needed).bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (needed, box)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"table-chat-{width}x{height}.png"), full_page=width < 1000)
    rematch.click()
    assert server.wait_for("rematch") == {"type": "rematch"}
    expect(rematch).to_be_disabled()
    expect(rematch).to_have_text("rematch asked")

    page.get_by_role("button", name="mute bob").click()
    assert server.wait_for("mute") == {"type": "mute", "name": "bob"}
    expect(lines.first).to_contain_text("watcher1: gg all")
    expect(page.locator("#chat")).not_to_contain_text(HOSTILE)
    server.send({"type": "chat", "from": "bob", "text": "still here", "at": 14.0})
    expect(page.locator("#chat")).not_to_contain_text("still here")
    # Kept for this table when the page comes back.
    assert page.evaluate("localStorage.getItem('bughouse-mute-t3')") == '["bob"]'

    # The next game begins: no rematch button while it runs.
    state = ended_state(2)
    state["result"] = None
    state["boards"] = {"A": board_info(True), "B": board_info(True)}
    server.send(state)
    expect(rematch).to_be_hidden()
    # A seat at another table, told by the lobby: the page goes there.
    with page.expect_request(f"{ORIGIN}/table/t4?seat=B-white"):
        lobby.send({"type": "seat", "table": "t4", "seat": "B-white", "token": "x",
                    "url": "/table/t4?seat=B-white#token=x"})
    assert errors == []
    page.close()
