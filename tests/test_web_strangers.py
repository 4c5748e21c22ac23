"""Strangers on the web port of a real ``bughouse server --db``, each from an address
of its own (127.0.0.N).

Guesses sent at once are counted before they are checked; a burst of failed
logins neither starves the lobby nor keeps the owner out; a stranger's
failed tries lock out the stranger, not the owner; logging out, a password
change and "log out everywhere" end sessions on the server; a cross-site
JSON post is refused, and one address cannot fill the server's events; no
page may be framed by another site.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trio
from serve_helpers import ENV, ROOT, bughouse, reap
from test_server_accounts import lobby_socket
from test_server_lobby import LobbyServer, Socket
from web_visitor import Answer, Visitor, login, register

from bughouse_arbiter.hall.events import EVENTS_PER_ADDRESS
from bughouse_arbiter.hall.web.accounts import PER_NAME
from tests.test_web_replay import browser as browser  # the shared fixture

TIMEOUT = 120
PASSWORD = "correct horse"
CHECKED = "wrong username or password"
WAIT = re.compile(r"too many login tries: try again in \d+ s")
BUSY = re.compile(r"busy checking passwords|your address has passwords being checked")


async def burst(
    visitors: list[tuple[Visitor, str, str]], sending: trio.Event | None = None
) -> list[Answer]:
    """One login POST per (visitor, name, password), all sent at once (then ``sending``
    is set); the answers in order."""
    tokens = {id(v): await v.token("/login") for v, _, _ in visitors}
    answers: list[Answer | None] = [None] * len(visitors)

    async def one(i: int, visitor: Visitor, name: str, password: str) -> None:
        answers[i] = await visitor.copy().post(
            "/login", login(name, password), token=tokens[id(visitor)]
        )

    async with trio.open_nursery() as nursery:
        for i, (visitor, name, password) in enumerate(visitors):
            nursery.start_soon(one, i, visitor, name, password)
        if sending is not None:
            sending.set()
    return [a for a in answers if a is not None]


def kind(answer: Answer) -> str:
    """What a login answer was: checked (wrong, or in), refused to wait, or busy."""
    if answer.status == 303 and answer.location.endswith("/player/ann"):
        return "in"
    if answer.status == 200 and CHECKED in answer.body:
        return "checked"
    if answer.status == 429 and WAIT.search(answer.body):
        return "wait"
    if answer.status == 503 and BUSY.search(answer.body):
        return "busy"
    raise AssertionError(f"an answer of no kind: {answer.status} {answer.body[:300]}")


async def started(tmp_path: Path, nursery: trio.Nursery) -> tuple[LobbyServer, Visitor]:
    """The server, and ann's owner registered from 127.0.0.1 (logged in there)."""
    server = LobbyServer(tmp_path)
    await server.start(nursery)
    owner = Visitor(server.port)
    answer = await owner.post("/register", register("ann", PASSWORD))
    assert answer.status == 303 and answer.location == "/player/ann", answer
    return server, owner


@pytest.mark.slow
async def test_guesses_sent_at_once_are_each_counted_before_one_is_checked(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        server, _ = await started(tmp_path, nursery)
        try:
            with trio.fail_after(TIMEOUT):
                # 16 guesses at once from one address, the right one last: at most
                # PER_NAME are checked, the others are told to wait (or that the
                # server is busy), whatever order they arrive in.
                stranger = Visitor(server.port, "127.0.0.2")
                guesses = [(stranger, "ann", f"guess-{i:02}") for i in range(15)]
                kinds = [kind(a) for a in await burst([*guesses, (stranger, "ann", PASSWORD)])]
                assert kinds.count("checked") + kinds.count("in") <= PER_NAME, kinds
                assert "wait" in kinds, kinds
                # Three addresses at once: each gets its own PER_NAME, no more.
                many = [
                    (Visitor(server.port, f"127.0.0.{n}"), "ann", f"guess-{i:02}")
                    for n in (3, 4, 5)
                    for i in range(16)
                ]
                kinds = [kind(a) for a in await burst(many)]
                assert kinds.count("checked") <= 3 * PER_NAME, kinds
                # Once the bucket is full, the right password waits too.
                for _ in range(PER_NAME):
                    await stranger.post("/login", login("ann", "one-more"))
                late = await stranger.post("/login", login("ann", PASSWORD))
                assert kind(late) == "wait" and await stranger.me() == {"name": None}
        finally:
            assert server.process is not None
            await reap(server.process)


@pytest.mark.slow
async def test_a_burst_of_failed_logins_leaves_the_lobby_and_the_owner_served(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        server, owner = await started(tmp_path, nursery)
        await owner.post("/logout", {}, token=await owner.token("/login"))
        try:
            with trio.fail_after(TIMEOUT):
                # 48 failed logins at once, 16 from each of three addresses (names
                # that do not exist: each still spends a hash) ...
                attackers = [Visitor(server.port, f"127.0.0.{n}") for n in (2, 3, 4)]
                tries = [(v, f"nobody{n}x{i}", "wrong-guess") for n, v in enumerate(attackers)
                         for i in range(16)]
                seen: dict[str, object] = {}
                sending = trio.Event()

                async def attack() -> None:
                    seen["kinds"] = [kind(a) for a in await burst(tries, sending)]

                async def others() -> None:
                    await sending.wait()
                    await trio.sleep(0.1)  # while the burst is being checked
                    guest = await Socket.open(server.port)
                    await guest.send({"type": "hello", "name": "gus"})
                    seen["welcome"] = (await guest.until("welcome"))["name"]
                    seen["leaderboard"] = (await Visitor(server.port).get("/leaderboard")).status
                    seen["owner"] = await owner.post("/login", login("ann", PASSWORD))

                async with trio.open_nursery() as both:
                    both.start_soon(attack)
                    both.start_soon(others)
                kinds = seen["kinds"]
                assert isinstance(kinds, list) and set(kinds) <= {"checked", "busy"}, kinds
                # ... are checked a few at a time, the rest refused at once (503),
                assert "busy" in kinds and "checked" in kinds, kinds
                # while a guest joins the lobby, a page is served and the owner logs in.
                assert seen["welcome"] == "gus" and seen["leaderboard"] == 200
                answer = seen["owner"]
                assert isinstance(answer, Answer) and kind(answer) == "in", answer
                assert (await owner.me())["name"] == "ann"
        finally:
            assert server.process is not None
            await reap(server.process)


@pytest.mark.slow
async def test_a_strangers_failed_tries_lock_out_the_stranger_not_the_owner(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        server, owner = await started(tmp_path, nursery)
        await owner.post("/logout", {}, token=await owner.token("/login"))
        try:
            with trio.fail_after(TIMEOUT):
                stranger = Visitor(server.port, "127.0.0.2")
                for _ in range(PER_NAME):
                    assert kind(await stranger.post("/login", login("ann", "not-it"))) == "checked"
                refused = await stranger.post("/login", login("ann", "not-it"))
                assert kind(refused) == "wait", refused
                # The owner, from a new address and from the one it registered at.
                elsewhere = Visitor(server.port, "127.0.0.3")
                assert kind(await elsewhere.post("/login", login("ann", PASSWORD))) == "in"
                assert (await elsewhere.me())["name"] == "ann"
                assert kind(await owner.post("/login", login("ANN", PASSWORD))) == "in"
                # The stranger, even with the right password, waits out its window.
                assert kind(await stranger.post("/login", login("ann", PASSWORD))) == "wait"
                assert await stranger.me() == {"name": None}
        finally:
            assert server.process is not None
            await reap(server.process)


@pytest.mark.slow
async def test_logout_a_password_change_and_log_out_everywhere_end_sessions_on_the_server(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        server, owner = await started(tmp_path, nursery)
        try:
            with trio.fail_after(TIMEOUT):
                # A cookie copied before logging out is logged out with it.
                stolen = owner.copy("127.0.0.2")
                assert (await stolen.me())["name"] == "ann"
                answer = await owner.post("/logout", {}, token=await owner.token("/login"))
                assert answer.status == 303 and await owner.me() == {"name": None}
                assert await stolen.me() == {"name": None}
                cookie = "; ".join(f"{k}={v}" for k, v in stolen.cookies.items())
                lobby = await lobby_socket(server.port, cookie)  # the dead cookie's hello
                refused = await lobby.answer({"type": "hello", "name": "ann"})
                assert "belongs to an account" in refused
                # The password page: logged out, it sends you to log in first.
                answer = await owner.get("/password")
                assert answer.status == 303 and answer.location == "/login?next=/password"
                here, there = Visitor(server.port), Visitor(server.port, "127.0.0.3")
                for visitor in (here, there):
                    assert kind(await visitor.post("/login", login("ann", PASSWORD))) == "in"
                page = await here.get("/password")
                assert page.status == 200 and "Log out everywhere" in page.body
                change = {"current": PASSWORD, "new": "new battery", "new2": "new battery"}
                for wrong, said in (
                    ({"current": "not it"}, "the current password is wrong"),
                    ({"new2": "other one"}, "the two new passwords differ"),
                    ({"new": "short", "new2": "short"}, "a password has 8 to 256 characters"),
                ):
                    answer = await here.post("/password", {**change, **wrong})
                    assert answer.status == 400 and said in answer.body, answer.body
                answer = await here.post("/password", change)
                assert answer.status == 200 and "every other session is logged out" in answer.body
                assert (await here.me())["name"] == "ann" and await there.me() == {"name": None}
                assert kind(await there.post("/login", login("ann", PASSWORD))) == "checked"
                assert kind(await there.post("/login", login("ann", "new battery"))) == "in"
                # "Log out everywhere", from one of them: every session ends.
                token = await there.token("/password")
                answer = await there.post("/logout-everywhere", {}, token=token)
                assert answer.status == 303
                assert await there.me() == {"name": None} and await here.me() == {"name": None}
                # Its form, like every form, wants the session's token.
                assert (await here.post("/logout-everywhere", {}, token="forged")).status == 403
        finally:
            assert server.process is not None
            await reap(server.process)



async def make_event(visitor: Visitor, **headers: str) -> Answer:
    """``POST /api/events`` as the events page sends it: its token from ``/api/csrf``."""
    token = json.loads((await visitor.get("/api/csrf")).body)["csrf"]
    sent = {"content-type": "application/json", "origin": visitor.origin, "x-csrf-token": token}
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    body = json.dumps({"title": "Friday", "tc": "3+0", "starts_in": 6 * 24 * 3600}).encode()
    return await visitor.request("POST", "/api/events", body, sent)


@pytest.mark.slow
async def test_the_json_api_wants_this_sites_origin_and_token_and_caps_events_per_address(
    tmp_path: Path,
) -> None:
    async with trio.open_nursery() as nursery:
        server, owner = await started(tmp_path, nursery)
        try:
            with trio.fail_after(TIMEOUT):
                stranger = Visitor(server.port, "127.0.0.2")
                body = json.dumps({"title": "evil", "tc": "3+0"}).encode()
                # Another site's page posting text/plain (no preflight): refused at the gate.
                elsewhere = f"http://127.0.0.1:{server.port + 1}"
                for origin in ("http://evil.example", "null", elsewhere):
                    plain = {"content-type": "text/plain", "origin": origin}
                    answer = await stranger.request("POST", "/api/events", body, plain)
                    assert answer.status == 403, (origin, answer)
                    assert answer.body == "a page elsewhere may not connect\n"
                    assert (await make_event(stranger, origin=origin)).status == 403
                # No browser (no Origin) still needs the token, sent as header and cookie.
                answer = await stranger.request(
                    "POST", "/api/events", body, {"content-type": "application/json"}
                )
                assert answer.status == 403 and "load it again" in json.loads(answer.body)["error"]
                forged = await make_event(stranger, x_csrf_token="forged")
                assert forged.status == 403
                # A form from another site is refused the same way, token or not.
                answer = await owner.post("/logout", {}, token="x", origin="http://evil.example")
                assert answer.status == 403 and (await owner.me())["name"] == "ann"
                # One address makes EVENTS_PER_ADDRESS events, then is told to wait ...
                for n in range(EVENTS_PER_ADDRESS):
                    made = await make_event(stranger)
                    assert made.status == 200, made
                    assert json.loads(made.body)["id"] == f"e{n + 1}"
                more = await make_event(stranger)
                assert more.status == 429, more
                said = f"your address has {EVENTS_PER_ADDRESS} events open already"
                assert json.loads(more.body) == {"error": said}
                # ... and a real host elsewhere still makes one.
                made = await make_event(Visitor(server.port, "127.0.0.3"))
                assert made.status == 200 and "#host=" in json.loads(made.body)["host_url"]
        finally:
            assert server.process is not None
            await reap(server.process)


def strict(csp: str) -> bool:
    """Whether ``csp`` forbids framing, other sites' scripts and inline ones by default."""
    rules = {part.split()[0]: part.split()[1:] for part in csp.split(";") if part.strip()}
    scripts = rules.get("script-src", rules.get("default-src", []))
    return (
        rules.get("frame-ancestors") == ["'none'"]
        and rules.get("default-src") == ["'none'"]
        and "'unsafe-inline'" not in scripts
        and "'unsafe-eval'" not in scripts
        and "*" not in scripts
    )


@pytest.mark.slow
async def test_no_page_may_be_framed_and_every_answer_has_a_strict_csp(tmp_path: Path) -> None:
    async with trio.open_nursery() as nursery:
        server, owner = await started(tmp_path, nursery)
        try:
            with trio.fail_after(TIMEOUT):
                lobby = await Socket.open(server.port)
                await lobby.send({"type": "hello", "name": "gus"})
                await lobby.until("welcome")
                await lobby.send({"type": "create", "tc": "120+0"})
                table = (await lobby.until("created"))["table"]
                event = json.loads((await make_event(owner)).body)["id"]
                paths = [
                    "/", f"/table/{table}", "/table/t999", "/events", f"/event/{event}",
                    "/login", "/register", "/password", "/games", "/leaderboard",
                    "/player/ann", "/api/me", "/api/events", "/assets/lobby.js", "/nowhere",
                ]
                for path in paths:
                    answer = await owner.get(path)
                    assert answer.status in (200, 404), (path, answer.status)
                    assert answer.headers.get("x-frame-options") == "DENY", path
                    assert strict(answer.headers.get("content-security-policy", "")), path
                    assert answer.headers.get("x-content-type-options") == "nosniff", path
                # A refusal at the gate too.
                evil = {"origin": "http://evil.example"}
                answer = await owner.request("POST", "/login", b"", evil)
                assert answer.status == 403 and answer.headers.get("x-frame-options") == "DENY"
        finally:
            assert server.process is not None
            await reap(server.process)


@pytest.mark.slow
def test_another_sites_page_cannot_frame_the_lobby_or_a_form_in_a_browser(
    tmp_path: Path, browser: Any
) -> None:
    server = subprocess.Popen(
        bughouse("server", "--port", "0", "--line-port", "0", "--db", str(tmp_path / "db"),
                 "--out", str(tmp_path / "games")),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV, cwd=str(ROOT),
    )
    try:
        assert server.stdout is not None
        port = None
        for _ in range(50):
            found = re.search(r"lobby: http://127\.0\.0\.1:(\d+)/", server.stdout.readline())
            if found:
                port = int(found.group(1))
                break
        assert port is not None
        page = browser.new_page()
        frames = "".join(
            f'<iframe id="{name}" src="http://127.0.0.1:{port}{path}"></iframe>'
            for name, path in (("lobby", "/"), ("login", "/login"), ("events", "/events"))
        )
        # The control: a frame the page may show, with a form in it.
        control = '<iframe id="control" srcdoc="<form><input name=x></form>"></iframe>'
        page.set_content(frames + control, wait_until="load")
        assert page.frame_locator("#control").locator("form").count() == 1
        for name in ("lobby", "login", "events"):
            shown = page.frame_locator(f"#{name}")
            assert shown.locator("form, main, #lobby").count() == 0, name
        page.close()
    finally:
        server.kill()
        server.wait(30)
