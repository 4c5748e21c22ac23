"""A real ``bughouse server --db``: nothing finished is lost when it is killed.

Three tables play at once, each a guest and three computers. One game ends
(its result seen), a second is resigned and the server is killed with
SIGKILL at once (in the middle of that game's end), the third is still
being played. Restarted on the same database, the server records the
unfinished games as aborted; every game whose result a page was told is
there, finished, and the database's export passes ``replay --check``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import trio
from serve_helpers import ENV, ROOT, bughouse, reap
from test_server_lobby import LobbyServer, play_moves, resign, seated_with_computers

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.storage import GameQuery, SqliteStore

TIMEOUT = 90


async def test_a_server_killed_during_finishing_games_loses_no_finished_game(
    tmp_path: Path,
) -> None:
    server = LobbyServer(tmp_path)
    told: dict[str, str] = {}
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                seated = [await seated_with_computers(server.port, f"p{i}") for i in range(3)]
                pages = [page for _, page, _ in seated]
                for page in pages:
                    await play_moves(page, 1)
                told["p0"] = (await resign(pages[0]))["result"]["result"]
                await pages[1].send({"type": "resign"})
                # The end of p1's game is being recorded (or about to be): kill now.
                assert server.process is not None
                server.process.kill()
                with trio.move_on_after(2):
                    try:
                        while not pages[1].state.get("result"):
                            await pages[1].message()
                    except (EOFError, trio.BrokenResourceError):
                        pass  # the server is gone
                if pages[1].state.get("result"):
                    told["p1"] = pages[1].state["result"]["result"]
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
    finally:
        store.close()
    assert counts["playing"] == 0 and counts["finished"] + counts["aborted"] == 3
    assert set(games) == {"p0", "p1", "p2"}
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
    assert exported.read_text().count("[Event ") == 3
