"""A real ``bughouse server --db`` whose database another process locks, or which is
read-only: one line and exit 2 at start, before anyone could register."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
import trio
from serve_helpers import ENV, ROOT, bughouse, reap
from test_server_accounts import Browser
from test_server_lobby import LobbyServer

from bughouse_arbiter.storage import SqliteStore

TIMEOUT = 60


async def start_on(db: Path) -> tuple[int, str]:
    with trio.fail_after(TIMEOUT):
        done = await trio.run_process(
            bughouse("server", "--port", "0", "--line-port", "0", "--db", str(db)),
            capture_stderr=True, check=False, env=ENV, cwd=str(ROOT),
        )
    return done.returncode, done.stderr.decode()


def made(tmp_path: Path) -> Path:
    db = tmp_path / "hall.sqlite3"
    SqliteStore.open(db).close()
    return db


@pytest.mark.slow
async def test_a_database_locked_by_another_process_is_one_line_and_exit_2(
    tmp_path: Path,
) -> None:
    db = made(tmp_path)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's write lock, held throughout
    try:
        status, said = await start_on(db)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert status == 2, said
    assert "Traceback" not in said
    assert len(said.strip().splitlines()) == 1 and "locked" in said


@pytest.mark.slow
async def test_a_read_only_database_is_noticed_before_anyone_registers(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("running as root: file modes do not stop root writing the database")
    db = made(tmp_path)
    db.chmod(0o444)
    try:
        status, said = await start_on(db)
    finally:
        db.chmod(0o644)
    assert status == 2, said
    assert "Traceback" not in said and len(said.strip().splitlines()) == 1


@pytest.mark.slow
async def test_pages_under_a_lock_held_elsewhere_answer_503_in_one_line(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    async with trio.open_nursery() as nursery:
        await server.start(nursery)
        try:
            with trio.fail_after(TIMEOUT):
                web = Browser(server.port)
                _, _, form = await web.get("/register")
                token = re.search(r'name="csrf" value="([^"]+)"', form)
                assert token is not None
                account = {"username": "ann", "password": "password1",
                           "password2": "password1", "csrf": token.group(1)}
                other = sqlite3.connect(server.db, isolation_level=None)
                other.execute("BEGIN EXCLUSIVE")  # another process locks the database
                try:
                    status, _, page = await web.post("/register", account, csrf=False)
                finally:
                    other.execute("ROLLBACK")
                    other.close()
                assert status == 503, page
                assert "Traceback" not in page and len(page.strip().splitlines()) == 1
                assert "storage is unavailable" in page
                # The lock gone, the same form registers.
                status, url, _ = await web.post("/register", account)
                assert status == 200 and url.endswith("/player/ann")
        finally:
            assert server.process is not None
            await reap(server.process)
