"""A real ``bughouse server --db`` on the web: accounts, sessions, CSRF, the login limit,
a logged-in lobby socket, and the game it plays in the archive pages and downloads."""

from __future__ import annotations

import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import trio
import wsproto.events as ws_events
from serve_helpers import reap
from test_server_lobby import LobbyServer, Socket, play_moves, resign

from bughouse_arbiter.bpgn.read import read_games

TIMEOUT = 90


class Browser:
    """Plain HTTP with a cookie jar (redirects followed), run off the event loop."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def _call(self, path: str, form: dict[str, str] | None) -> tuple[int, str, str]:
        data = None if form is None else urllib.parse.urlencode(form).encode()
        try:
            with self.opener.open(self.base + path, data=data, timeout=30) as answer:
                ours = urllib.parse.urlsplit(answer.geturl()).path != "/"  # not the lobby's
                if ours and answer.headers.get_content_type() == "text/html":
                    assert answer.headers["x-frame-options"] == "DENY", path
                return answer.status, answer.geturl(), answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.geturl(), exc.read().decode()

    async def get(self, path: str) -> tuple[int, str, str]:
        return await trio.to_thread.run_sync(self._call, path, None)

    async def post(
        self, path: str, form: dict[str, str], *, csrf: bool = True
    ) -> tuple[int, str, str]:
        """POSTs ``form`` with the CSRF token of the form's page (``csrf``)."""
        if csrf:
            _, _, page = await self.get(path if path != "/logout" else "/login")
            token = re.search(r'name="csrf" value="([^"]+)"', page)
            assert token is not None, page
            form = {**form, "csrf": token.group(1)}
        return await trio.to_thread.run_sync(self._call, path, form)

    def cookie(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def login(name: str, password: str) -> dict[str, str]:
    return {"username": name, "password": password}


async def lobby_socket(port: int, cookie: str) -> Socket:
    """The lobby socket, sent with the browser's cookie."""
    socket = Socket(await trio.open_tcp_stream("127.0.0.1", port))
    request = ws_events.Request(
        host=f"127.0.0.1:{port}",
        target="/ws",
        extra_headers=[
            (b"origin", f"http://127.0.0.1:{port}".encode()),
            (b"cookie", cookie.encode()),
        ],
    )
    await socket.stream.send_all(socket.ws.send(request))
    assert isinstance(await socket.event(), ws_events.AcceptConnection)
    return socket


@pytest.mark.slow
async def test_register_log_in_play_and_find_the_game_in_the_archive(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                web = Browser(server.port)
                account = {"username": "ann", "password": "password1", "password2": "password1"}
                # A form without the session's CSRF token is refused.
                status, _, page = await web.post("/register", account, csrf=False)
                assert status == 403 and "Form expired" in page
                status, url, page = await web.post("/register", account)
                assert status == 200 and url.endswith("/player/ann") and "<h1>ann" in page
                status, _, page = await web.post("/register", {**account, "username": "<b>x"})
                assert "letters, digits" in page and "<b>x" not in page and "&lt;b&gt;x" in page
                status, url, _ = await web.post("/logout", {})
                assert status == 200 and url.endswith("/")
                # Failed logins for one name are limited (even the right password waits).
                other = Browser(server.port)
                await other.post("/register", {**account, "username": "bea"})
                for _ in range(5):
                    status, _, page = await web.post("/login", login("bea", "wrong-one"))
                    assert status == 200 and "wrong username or password" in page
                status, _, page = await web.post("/login", login("bea", "password1"))
                assert status == 429 and "try again in" in page
                assert (await web.get("/api/me"))[2] == '{"name":null}'
                status, url, _ = await web.post("/login", login("ann", "password1"))
                assert status == 200 and url.endswith("/player/ann")
                me = json.loads((await web.get("/api/me"))[2])
                assert me == {"name": "ann", "kind": "account", "rating": 1500.0}
                # Logged in, the lobby socket is the account, whatever name it says.
                lobby = await lobby_socket(server.port, web.cookie())
                await lobby.send({"type": "hello", "name": "someone"})
                assert (await lobby.until("welcome"))["name"] == "ann"
                guest = await Socket.open(server.port)
                answer = await guest.answer({"type": "hello", "name": "bea"})
                assert "belongs to an account" in answer
                await lobby.send(
                    {"type": "create", "tc": "120+0", "computers": True, "fill_after": 30}
                )
                table = (await lobby.until("created"))["table"]
                await lobby.send({"type": "sit", "table": table, "seat": "A-white"})
                view = await lobby.until("lobby")
                while not any(t["seats"]["A-white"] for t in view["tables"]):
                    view = await lobby.until("lobby")
                ann = {"name": "ann", "kind": "account", "rating": 1500.0}
                assert view["tables"][0]["seats"]["A-white"] == ann
                await lobby.send({"type": "start", "table": table})
                seat = await lobby.until("seat", table=table)
                board = await Socket.open(server.port, f"/table/{table}/ws")
                await board.send({"type": "sit", "seat": seat["seat"], "token": seat["token"]})
                await board.until("seated")
                await play_moves(board, 2)
                result = (await resign(board))["result"]["result"]
                # The archive has it: the list, the search, the replay page, the downloads.
                status, _, page = await web.get("/games?player=ann")
                game = re.search(r'href="/game/(\d+)"', page)
                assert status == 200 and game is not None and f"<b>{result}</b>" in page
                number = game.group(1)
                status, _, page = await web.get(f"/game/{number}")
                assert status == 200 and "<svg" in page and f"/game/{number}.bpgn" in page
                status, _, text = await web.get(f"/game/{number}.bpgn")
                (kept,) = read_games(text)
                assert kept.tags["WhiteA"] == "ann" and kept.tags["Result"] == result
                query = urllib.parse.urlencode({"player": "ann", "result": result})
                _, _, every = await web.get(f"/games.bpgn?{query}")
                assert len(read_games(every)) == 1
                _, _, none = await web.get("/games.bpgn?player=nobody")
                assert none == ""
                status, _, page = await web.get("/games?since=yesterday")
                assert status == 200 and "YYYY-MM-DD" in page
                status, _, page = await web.get("/player/ann")
                assert f'href="/game/{number}"' in page and "No rated games yet" in page
                status, _, page = await web.get("/leaderboard?kind=people&provisional=1")
                assert status == 200 and "Leaderboard" in page
                assert (await web.get("/game/999"))[0] == 404
                assert (await web.get("/player/nobody"))[0] == 404
        finally:
            assert server.process is not None
            await reap(server.process)
