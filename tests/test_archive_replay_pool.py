"""A replay page of the archive: drawn off the loop in the page pool, once, and kept;
a full pool is refused with one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from archive_games import START, finished, seats, start_of
from loop_checks import Gate

from bughouse_arbiter.hall.web import archive
from bughouse_arbiter.hall.web.accounts import Accounts
from bughouse_arbiter.hall.web.archive import ArchiveSite
from bughouse_arbiter.loop.workers import Refused, WorkerPool
from bughouse_arbiter.storage import SqliteStore
from bughouse_arbiter.storage.aio import AsyncStore

PLAYERS = seats(("ann", "bea", "cid", "dan"))


def _site(tmp_path: Path, pages: WorkerPool, plies: int = 40) -> tuple[ArchiveSite, int]:
    store = SqliteStore.open(tmp_path / "server.sqlite3")
    game_id = store.begin_game(start_of("g1", PLAYERS))
    store.record_game(finished("g1", PLAYERS, "1-0", ended=START + 60, plies=plies))
    db = AsyncStore(store)
    return ArchiveSite(db, Accounts(db, secret="s" * 32), pages=pages), game_id


async def test_the_page_is_drawn_while_the_loop_turns_then_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    drawn: list[str] = []
    real = archive.replay_html

    def gated(text: str, *, title: str) -> str:
        gate.wait()  # on the loop, this would wait for a loop that cannot turn
        drawn.append(title)
        return real(text, title=title)

    monkeypatch.setattr(archive, "replay_html", gated)
    site, game_id = _site(tmp_path, WorkerPool("replay page", workers=1, queue=0))
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(gate.turn)
            pages = []

            async def ask() -> None:
                pages.append(await site.replay(game_id))

            nursery.start_soon(ask)
            nursery.start_soon(ask)  # asked again while it is drawn: drawn once
        again = await site.replay(game_id)
    assert drawn == [f"Game {game_id}"] and gate.turned == gate.turns
    page = pages[0]
    assert page is not None and pages == [page, page] and again == page
    assert 'href="/game/1.bpgn">Download BPGN</a>' in page and '"ann"' in page
    assert await site.replay(999) is None


async def test_a_full_page_pool_refuses_and_a_bad_record_says_why(tmp_path: Path) -> None:
    pool = WorkerPool("replay page", workers=1, queue=0)
    site, game_id = _site(tmp_path, pool)
    pool.jobs = 1  # as if one page were being drawn
    with pytest.raises(Refused, match="busy with 1 replay page jobs"):
        await site.replay(game_id)
    pool.jobs = 0
    site.db.store._conn.execute("UPDATE games SET bpgn = ''")  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="no game in its record"):
        await site.replay(game_id)


@pytest.mark.slow
async def test_the_server_draws_pages_in_processes(tmp_path: Path) -> None:
    pool = WorkerPool("replay page", workers=1, queue=2, kind="process")
    site, game_id = _site(tmp_path, pool, plies=400)
    try:
        with trio.fail_after(120):
            page = await site.replay(game_id)
    finally:
        pool.close()
    assert page is not None and "<svg" in page and "Download BPGN" in page
    assert site.drawn.get(game_id) == page
