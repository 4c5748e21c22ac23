"""A real ``bughouse server --db``: nothing finished is lost when it is killed.

Four tables play at once: one rated (four accounts), three with a guest and
three computers each. The rated game and one other end (their results
seen), a third is resigned and the server is killed with SIGKILL at once
(in the middle of that game's end), the fourth is still being played.
Restarted on the same database, the server records the unfinished games as
aborted; every game whose result a page was told is there, finished, every
account's rating is that of its rated game, and the database's export
passes ``replay --check``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from serve_helpers import ENV, ROOT, bughouse, reap
from test_server_accounts import Browser, lobby_socket
from test_server_lobby import LobbyServer, Socket, seated_with_computers

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.storage import GameQuery, SqliteStore

TIMEOUT = 90
RATED = ("r1", "r2", "r3", "r4")


class OneSender:
    """A stream whose sends never overlap (a socket's reader answers pings as a test sends)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.lock = trio.Lock()

    async def send_all(self, data: bytes) -> None:
        async with self.lock:
            await self.stream.send_all(data)

    async def receive_some(self, size: int) -> bytes:
        return await self.stream.receive_some(size)

    async def aclose(self) -> None:
        await self.stream.aclose()


async def read_on(socket: Socket) -> None:
    """Reads ``socket`` to its end (answering pings, keeping its latest state)."""
    socket.stream = OneSender(socket.stream)  # type: ignore[assignment]
    try:
        while True:
            await socket.message()
            socket.seen.clear()
    except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def until(check: Callable[[], Any]) -> Any:
    while not (found := check()):
        await trio.sleep(0.02)
    return found


async def resigned(page: Socket) -> str:
    """Resigns (again, should the game not have begun yet); the result."""
    while True:
        await page.send({"type": "resign"})
        with trio.move_on_after(2):
            return str((await until(lambda: page.state.get("result")))["result"])


async def rated_game(port: int, nursery: trio.Nursery, *, moves: bool = True) -> Socket:
    """Four accounts at a rated table, their game on (each has moved once, with
    ``moves``); the A-Black player's table socket."""
    lobbies = []
    for name in RATED:
        web = Browser(port)
        form = {"username": name, "password": "password1", "password2": "password1"}
        assert (await web.post("/register", form))[0] == 200
        lobby = await lobby_socket(port, web.cookie())
        await lobby.send({"type": "hello", "name": name})
        await lobby.until("welcome")
        lobbies.append(lobby)
    await lobbies[0].send({"type": "create", "tc": "120+0", "computers": False, "rated": True})
    table = (await lobbies[0].until("created"))["table"]
    for lobby, seat in zip(lobbies, ("A-white", "A-black", "B-white", "B-black"), strict=True):
        await lobby.send({"type": "sit", "table": table, "seat": seat})
    boards = []
    for lobby in lobbies:
        seat = await lobby.until("seat", table=table)
        nursery.start_soon(read_on, lobby)
        board = await Socket.open(port, f"/table/{table}/ws")
        await board.send({"type": "sit", "seat": seat["seat"], "token": seat["token"]})
        await board.until("seated")
        nursery.start_soon(read_on, board)
        boards.append(board)
    for board in boards if moves else ():  # a game not all four played is not rated
        you = await until(lambda b=board: _to_move(b))
        await board.send({"type": "move", "uci": you["legal"][0]})
        await until(lambda b=board: not _to_move(b))
    return boards[1]


def _to_move(board: Socket) -> Any:
    you = board.state.get("you") or {}
    return you if you.get("toMove") and you.get("legal") else None


@pytest.mark.slow
async def test_a_server_killed_during_finishing_games_loses_no_finished_game(
    tmp_path: Path,
) -> None:
    server = LobbyServer(tmp_path)
    told: dict[str, str] = {}
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                async with trio.open_nursery() as readers:
                    rated = await rated_game(server.port, readers)
                    pages = []
                    for i in range(3):
                        lobby, page, _ = await seated_with_computers(server.port, f"p{i}")
                        readers.start_soon(read_on, lobby)
                        readers.start_soon(read_on, page)
                        pages.append(page)
                    # Every game on: the guests (A-White) have their first move to make.
                    for page in pages:
                        await until(lambda page=page: (page.state.get("you") or {}).get("legal"))
                    told["r1"] = await resigned(rated)  # A-Black: team one wins, rated
                    told["p0"] = await resigned(pages[0])
                    await pages[1].send({"type": "resign"})
                    # The end of p1's game is being recorded (or about to be): kill now.
                    assert server.process is not None
                    server.process.kill()
                    with trio.move_on_after(2):
                        told["p1"] = (await until(lambda: pages[1].state.get("result")))["result"]
                    readers.cancel_scope.cancel()
        finally:
            assert server.process is not None
            await reap(server.process)
    assert server.process.returncode == -9
    # The same database again: what was in progress is recorded as aborted on start.
    (tmp_path / "again").mkdir()
    again = LobbyServer(tmp_path / "again")
    again.argv[again.argv.index("--db") + 1] = str(server.db)
    async with trio.open_nursery() as nursery:
        with trio.fail_after(TIMEOUT):
            await again.start(nursery)  # listening: the database was put right before
            # A second server on the same database is refused (it would abort these games).
            second = await trio.run_process(
                bughouse("server", "--port", "0", "--line-port", "0", "--db", str(server.db)),
                capture_stderr=True, check=False, env=ENV, cwd=str(ROOT),
            )
        assert second.returncode == 2 and b"another bughouse server" in second.stderr
        assert again.process is not None
        await reap(again.process)
    store = SqliteStore.open(server.db, create=False)
    try:
        counts = store.counts()
        games = {g.players[Seat.A_WHITE].name: g for g in store.games(GameQuery())}
        # The rated game's ratings are every account's rating now.
        assert games["r1"].rated
        for player in games["r1"].players.values():
            account = store.account(player.name)
            assert account is not None and account.rating.games == 1
            assert account.rating.rating == player.rating_after != player.rating_before
    finally:
        store.close()
    assert counts["playing"] == 0 and counts["finished"] + counts["aborted"] == 4
    assert set(games) == {"r1", "p0", "p1", "p2"}
    for name, result in told.items():
        assert games[name].status == "finished" and games[name].result == result
    assert games["p2"].status == "aborted" and games["p2"].result == "*"
    assert games["p2"].reason and "stopped" in games["p2"].reason
    # Everything the database holds exports to a file replay --check passes.
    exported = tmp_path / "all.bpgn"
    with exported.open("w") as out:
        subprocess.run(
            bughouse("server", "export", "--db", str(server.db)),
            stdout=out, env=ENV, cwd=str(ROOT), check=True, timeout=60,
        )
    check = subprocess.run(
        bughouse("replay", "--check", str(exported)),
        capture_output=True, text=True, env=ENV, cwd=str(ROOT), timeout=60,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert exported.read_text().count("[Event ") == 4
