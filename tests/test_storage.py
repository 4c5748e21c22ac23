"""The server's store (storage/): schema and migrations, accounts and bots, games
recorded with their ratings in one transaction, the archive, backup, the trio face."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

import pytest
import trio
from archive_games import SPACED, START, finished, seats, start_of
from cli_checks import environment

from bughouse_arbiter.bpgn import format_game
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.ratings import PlayerRating, TeamGame, rate_team_game
from bughouse_arbiter.ratings.policy import REPEAT_LIMIT, REPEAT_WINDOW
from bughouse_arbiter.storage import (
    GameQuery,
    RatingChange,
    SqliteStore,
    StoreError,
    accounts,
)
from bughouse_arbiter.storage.aio import AsyncStore
from bughouse_arbiter.storage.schema import MIGRATIONS

NAMES = ("ann", "bob", "cat", "dan")
PASSWORD = "correct horse"


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    opened = SqliteStore.open(tmp_path / "server.sqlite3")
    yield opened  # type: ignore[misc]
    opened.close()


def _players(store: SqliteStore, names: tuple[str, ...] = NAMES) -> None:
    for name in names:
        store._insert_account(name, "account", now=START)


# -- the file and its schema -------------------------------------------------------


def test_a_new_database_is_made_in_wal_mode_at_the_last_version(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "server.sqlite3"
    SqliteStore.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert conn.execute("PRAGMA user_version").fetchone() == (len(MIGRATIONS),)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"accounts", "games", "game_players"} <= tables
    conn.close()
    SqliteStore.open(path).close()  # opened again: nothing to do


def test_migrations_are_applied_in_order_at_open_and_a_failed_one_changes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "server.sqlite3"
    SqliteStore.open(path).close()
    later = (*MIGRATIONS, "ALTER TABLE accounts ADD COLUMN country TEXT;")
    broken = (*later, "CREATE TABLE x (a INTEGER); ALTER TABLE nowhere ADD COLUMN b TEXT;")
    with pytest.raises(StoreError, match="no such table: nowhere"):
        SqliteStore.open(path, migrations=broken)
    conn = sqlite3.connect(path)
    # Migration 2 went in whole; migration 3 not at all (no table x).
    assert conn.execute("PRAGMA user_version").fetchone() == (len(later),)
    assert "country" in {r[1] for r in conn.execute("PRAGMA table_info(accounts)")}
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='x'").fetchone() is None
    conn.close()
    # This program does not know version 2: it refuses the newer file.
    known = f"schema version {len(later)}; this program knows up to {len(MIGRATIONS)}"
    with pytest.raises(StoreError, match=known):
        SqliteStore.open(path)


def test_a_file_that_is_not_a_database_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not SQLite\n" * 100)
    with pytest.raises(StoreError, match=r"cannot use the database .*not a database"):
        SqliteStore.open(path)
    assert path.read_text().startswith("hello")
    with pytest.raises(StoreError, match="no database at"):
        SqliteStore.open(tmp_path / "missing.sqlite3", create=False)
    assert not (tmp_path / "missing.sqlite3").exists()


# -- accounts and bots ----------------------------------------------------------------


def test_accounts_hash_their_passwords_with_argon2(store: SqliteStore) -> None:
    made = store.create_account("Ann_1", PASSWORD, now=START)
    assert made.name == "Ann_1" and made.kind == "account"
    assert made.rating == PlayerRating(rating=1500, rd=350)
    (stored,) = store._conn.execute("SELECT password_hash FROM accounts").fetchone()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert store.verify_password("Ann_1", PASSWORD) == made
    assert store.verify_password("ann_1", PASSWORD) == made  # names are case-blind
    assert store.verify_password("Ann_1", "wrong horse") is None
    assert store.verify_password("nobody1", PASSWORD) is None
    with pytest.raises(StoreError, match="the name 'ANN_1' is taken"):
        store.create_account("ANN_1", PASSWORD)


def test_a_login_for_a_missing_name_checks_a_password_all_the_same(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add_bot("somebot")
    checked: list[str] = []
    real = accounts.verify_password
    monkeypatch.setattr(accounts, "verify_password", lambda h, p: checked.append(p) or real(h, p))
    assert store.verify_password("nobody1", "guess one") is None
    assert store.verify_password("somebot", "guess two") is None  # a bot has no password
    assert checked == ["guess one", "guess two"]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("a", "2 to 20 characters, not 1"),
        ("x" * 21, "2 to 20 characters, not 21"),
        ("ann bob", "letters, digits and . - _"),
        ("-ann", "starting with a letter or digit"),
        ("ann\x1b[31m", "letters, digits"),
        ("jörg", "letters, digits"),
        ("Admin", "reserved"),
    ],
)
def test_usernames_are_checked(store: SqliteStore, name: str, why: str) -> None:
    with pytest.raises(StoreError, match=why.replace(".", r"\.")):
        store.add_bot(name)
    assert store.account(name) is None


def test_a_short_password_is_refused(store: SqliteStore) -> None:
    with pytest.raises(StoreError, match="8 to 256 characters"):
        store.create_account("ann", "short")
    assert store.account("ann") is None


def test_a_bot_token_is_stored_hashed_and_seats_its_own_bot_only(store: SqliteStore) -> None:
    token = store.add_bot("sjengbot", now=START)
    other = store.add_bot("ffish", now=START)
    assert len(token) == 32 and int(token, 16) >= 0 and token != other
    (stored,) = store._conn.execute(
        "SELECT token_hash FROM accounts WHERE name = 'sjengbot'"
    ).fetchone()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    bot = store.bot_for_token("sjengbot", token)
    assert bot is not None and bot.name == "sjengbot" and bot.kind == "bot"
    assert store.bot_for_token("ffish", token) is None  # not another bot's seat
    assert store.bot_for_token("sjengbot", other) is None
    assert store.bot_for_token("sjengbot", "") is None
    assert store.revoke_bot("sjengbot")
    assert store.bot_for_token("sjengbot", token) is None
    assert not store.revoke_bot("sjengbot")  # already revoked
    assert not store.revoke_bot("nobot")
    assert store.account("sjengbot") is not None  # its games and rating stay


# -- games and ratings ------------------------------------------------------------------


def test_a_rated_game_is_written_with_its_rating_changes(store: SqliteStore) -> None:
    _players(store)
    players = seats(NAMES)
    game = finished("t1-1", players, "1-0", ended=START + 3600, seed=1)
    changes = store.record_game(game)
    new = PlayerRating()
    expected = rate_team_game(
        TeamGame(ratings=dict.fromkeys(Seat, new), score_one=1.0, now=START + 3600)
    )
    assert {c.seat: c.after for c in changes} == expected
    assert all(c.before == new for c in changes)
    for seat, player in players.items():
        account = store.account(player.name)
        assert account is not None and account.rating == expected[seat]
    (archived,) = store.games()
    assert archived.status == "finished" and archived.result == "1-0" and archived.rated
    assert archived.termination == "resignation" and archived.reason == "A-Black resigned"
    assert archived.time_control == "5+0" and archived.table == "t1"
    assert archived.players[Seat.A_WHITE].rating_before == 1500
    assert archived.players[Seat.A_WHITE].rating_after == pytest.approx(1666.40, abs=0.01)
    assert store.game_bpgn(archived.id) == game.bpgn
    (point,) = store.rating_history("ann")
    assert point.rating == pytest.approx(1666.40, abs=0.01) and point.ended == START + 3600


def test_a_rated_draw_moves_the_stronger_team_down_through_the_store(
    store: SqliteStore,
) -> None:
    _players(store)
    players = seats(NAMES)
    store.record_game(finished("t1-1", players, "1-0", ended=START + 60, seed=1))
    before = {}
    for seat, player in players.items():
        account = store.account(player.name)
        assert account is not None
        before[seat] = account.rating
    draw = finished("t1-2", players, "1/2-1/2", ended=START + 120, seed=2)
    changes = {c.seat: c for c in store.record_game(draw)}
    expected = rate_team_game(TeamGame(ratings=before, score_one=0.5, now=START + 120))
    assert {seat: c.after for seat, c in changes.items()} == expected
    assert {seat: c.before for seat, c in changes.items()} == before
    # Team one (ann and bob) won the first game: a draw costs them and pays team two.
    for seat in Seat:
        moved = changes[seat].after.rating - before[seat].rating
        assert moved < 0 if seat.team is Seat.A_WHITE.team else moved > 0
    latest = store.games()[0]
    assert latest.key == "t1-2" and latest.result == "1/2-1/2" and latest.rated
    assert latest.players[Seat.A_WHITE].rating_after == pytest.approx(
        expected[Seat.A_WHITE].rating
    )
    assert [p.rating for p in store.rating_history("cat")][-1] == pytest.approx(
        expected[Seat.A_BLACK].rating
    )


def test_games_with_a_guest_unrated_or_aborted_change_no_rating(store: SqliteStore) -> None:
    _players(store)
    guest = {**seats(NAMES), Seat.B_WHITE: seats(("x", "y", "z", "zed"), "guest")[Seat.B_WHITE]}
    assert store.record_game(finished("g1", guest, "1-0", ended=START + 1)) == ()
    assert store.record_game(finished("g2", seats(NAMES), "0-1", ended=START + 2,
                                      rated=False)) == ()
    store.begin_game(start_of("g3", seats(NAMES)))
    assert store.abort_interrupted(now=START + 3) == 1
    # A seat said to be an account that is not there: kept, unrated.
    ghost = seats(("ann", "bob", "cat", "ghost"))
    assert store.record_game(finished("g4", ghost, "1-0", ended=START + 4)) == ()
    for name in NAMES:
        account = store.account(name)
        assert account is not None and account.rating.games == 0
    assert [g.key for g in store.games()] == ["g4", "g3", "g2", "g1"]
    assert store.games(GameQuery(player="zed"))[0].players[Seat.B_WHITE].kind == "guest"


def test_a_started_game_finishes_with_its_outcome(store: SqliteStore) -> None:
    _players(store)
    start = start_of("t1-1", seats(NAMES))
    store.begin_game(start)
    game = BughouseGame(HouseRules())
    outcome = game.resign(Seat.B_WHITE)
    assert outcome is not None
    bpgn = format_game(game)
    changes = store.record_game(start.finish(outcome, ended=START + 90, bpgn=bpgn))
    assert len(changes) == 4
    (archived,) = store.games()
    assert (archived.result, archived.termination, archived.reason) == (
        "1-0", "resignation", outcome.reason
    )
    assert archived.started == START and archived.ended == START + 90
    assert store.game_bpgn(archived.id) == bpgn


def test_a_game_is_recorded_once_and_a_failed_record_leaves_nothing(store: SqliteStore) -> None:
    _players(store)
    game = finished("g1", seats(NAMES), "1-0", ended=START + 1)
    store.record_game(game)
    with pytest.raises(StoreError, match="'g1' is already recorded"):
        store.record_game(game)
    # Rating changes naming an account that is not there: the whole game is refused.
    second = finished("g2", seats(NAMES), "0-1", ended=START + 2)
    bogus = RatingChange(seat=Seat.A_WHITE, name="ghost", before=PlayerRating(),
                         after=PlayerRating(rating=1900, rd=100, games=1, last=START))
    real = RatingChange(seat=Seat.A_BLACK, name="cat", before=PlayerRating(),
                        after=PlayerRating(rating=1234, rd=100, games=1, last=START))
    with pytest.raises(StoreError, match="no account 'ghost'"):
        store.record_game(second, [real, bogus])
    assert [g.key for g in store.games()] == ["g1"]
    cat = store.account("cat")
    assert cat is not None and cat.rating.games == 1 and cat.rating.rating != 1234
    assert store.counts() == {"playing": 0, "finished": 1, "aborted": 0}


def test_a_game_in_progress_is_aborted_with_its_reason_on_restart(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    store = SqliteStore.open(path)
    _players(store)
    store.begin_game(start_of("t1-1", seats(NAMES)))
    store.begin_game(start_of("t2-1", seats(NAMES)))
    store.record_game(finished("t2-1", seats(NAMES), "0-1", ended=START + 10))
    assert store.games() and store.counts()["playing"] == 1
    store.close()  # (as good as a kill: the row was committed)
    store = SqliteStore.open(path)
    assert store.abort_interrupted(now=START + 20) == 1
    assert store.abort_interrupted(now=START + 30) == 0
    aborted = store.games(GameQuery(result="*"))
    assert [(g.key, g.status, g.result, g.termination) for g in aborted] == [
        ("t1-1", "aborted", "*", "aborted")
    ]
    assert aborted[0].reason == "the server stopped before the game ended"
    assert aborted[0].ended == START + 20
    text = store.game_bpgn(aborted[0].id)
    assert text is not None
    assert text.endswith("{Game aborted: the server stopped before the game ended} *\n")
    assert '[Result "*"]' in text and '[Termination "aborted"]' in text
    store.close()


def test_the_archive_is_searched_by_player_date_and_result_and_paged(store: SqliteStore) -> None:
    _players(store, (*NAMES, "eve"))
    day = 86400.0
    results = ["1-0", "0-1", "1/2-1/2", "1-0", "1-0"]
    for i, result in enumerate(results):
        names = NAMES if i % 2 == 0 else ("eve", "bob", "cat", "dan")
        store.record_game(finished(f"g{i}", seats(names), result, ended=START + i * day,
                                   seed=i, plies=2))
    assert [g.key for g in store.games()] == ["g4", "g3", "g2", "g1", "g0"]
    assert [g.key for g in store.games(GameQuery(player="EVE"))] == ["g3", "g1"]
    assert [g.key for g in store.games(GameQuery(result="1-0"))] == ["g4", "g3", "g0"]
    assert [g.key for g in store.games(GameQuery(since=START + day, until=START + 3 * day))] == [
        "g2", "g1"
    ]
    assert [g.key for g in store.games(GameQuery(limit=2, offset=1))] == ["g3", "g2"]
    assert [g.key for g in store.games(GameQuery(player="ann", result="1-0"))] == ["g4", "g0"]
    assert len(store.iter_bpgn(GameQuery(player="eve")).__next__()) > 0
    assert len(store.rating_history("bob")) == 5
    with pytest.raises(ValueError):
        GameQuery(result="2-0")
    with pytest.raises(ValueError):
        GameQuery(limit=0)


def test_the_leaderboard_lists_established_ratings_unless_asked(store: SqliteStore) -> None:
    _players(store)
    store.add_bot("idle", now=START)  # never played: not listed
    apart = REPEAT_WINDOW / REPEAT_LIMIT + 60  # the same four: all rated at this pace
    for i in range(30):
        store.record_game(finished(f"g{i}", seats(NAMES), "1-0" if i % 3 else "0-1",
                                   ended=START + i * apart, plies=0))
    now = START + 30 * apart
    everyone = store.leaderboard(provisional=True, now=now)
    assert {a.name for a in everyone} == set(NAMES)
    assert everyone[0].rating.rating >= everyone[-1].rating.rating
    assert {a.name for a in store.leaderboard(now=now)} == set(NAMES)  # RD now below 80
    # A month later the deviations have grown back above 80: provisional again.
    assert store.leaderboard(now=now + 30 * 86400) == []
    assert len(store.leaderboard(provisional=True, limit=1, offset=1, now=now)) == 1


# -- backup and the trio face -------------------------------------------------------------


def test_an_online_backup_is_a_consistent_copy_while_the_store_is_in_use(
    store: SqliteStore, tmp_path: Path
) -> None:
    _players(store)
    store.record_game(finished("g1", seats(NAMES), "1-0", ended=START + 1))
    store.begin_game(start_of("g2", seats(NAMES)))
    # Another connection (the server) holds a write transaction open meanwhile.
    writer = sqlite3.connect(store.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE accounts SET rating = 9999 WHERE name = 'ann'")
    out = tmp_path / "copy.sqlite3"
    out.write_text("an old copy")
    store.backup(out)
    writer.execute("ROLLBACK")
    writer.close()
    copy = SqliteStore.open(out, create=False)
    assert copy.counts() == {"playing": 1, "finished": 1, "aborted": 0}
    ann = copy.account("ann")
    assert ann is not None and ann.rating.rating != 9999  # the uncommitted write is not in it
    copy.close()
    assert not (tmp_path / "copy.sqlite3.part").exists()
    with pytest.raises(StoreError, match="cannot write the backup"):
        store.backup(tmp_path / "no" / "such" / "folder" / "copy.sqlite3")


async def test_the_async_store_runs_calls_off_the_loop_one_at_a_time(tmp_path: Path) -> None:
    db = AsyncStore(SqliteStore.open(tmp_path / "server.sqlite3"))
    await db.run(lambda s: [s.add_bot(n, now=START) for n in NAMES])
    threads: set[int] = set()
    loop_thread = threading.get_ident()
    inside = [0, 0]  # calls in the store now, the most at once

    def probe(_: object) -> int:
        inside[0] += 1
        inside[1] = max(inside)
        time.sleep(0.005)
        inside[0] -= 1
        return threading.get_ident()

    async def one(i: int) -> None:
        await db.begin_game(start_of(f"g{i}", seats(NAMES, "bot")))
        threads.add(await db.run(probe))
        await db.record_game(finished(f"g{i}", seats(NAMES, "bot"), "1-0",
                                        ended=START + i * SPACED))

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            for i in range(8):
                nursery.start_soon(one, i)
    assert loop_thread not in threads
    assert inside == [0, 1]
    counts = await db.run(lambda s: s.counts())
    assert counts == {"playing": 0, "finished": 8, "aborted": 0}
    ann = await db.run(lambda s: s.account("ann"))
    assert ann is not None and ann.rating.games == 8
    await db.aclose()


# -- a writer killed by SIGKILL ------------------------------------------------------------

WRITER = Path(__file__).resolve().parent / "storage_writer.py"


async def _run_and_kill(db: Path, first: int, after: int) -> list[str]:
    """Runs the writer from game ``first`` and kills it (SIGKILL) once it has told
    ``after`` games; the keys it told."""
    import signal
    import subprocess
    import sys

    told: list[str] = []
    with trio.fail_after(60):
        process = await trio.lowlevel.open_process(
            [sys.executable, str(WRITER), str(db), str(first)],
            stdout=subprocess.PIPE,
            env=environment(),
        )
        assert process.stdout is not None
        pending = b""
        while len(told) < after:
            chunk = await process.stdout.receive_some(4096)
            assert chunk, "the writer stopped by itself"
            pending += chunk
            *lines, pending = pending.split(b"\n")
            told += [line.decode() for line in lines]
        process.send_signal(signal.SIGKILL)
        await process.wait()
        await process.stdout.aclose()
    assert process.returncode == -signal.SIGKILL
    return told


@pytest.mark.slow
async def test_a_writer_killed_at_any_moment_loses_no_finished_game(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    told: list[str] = []
    aborted = 0
    for after in (3, 17, 8):
        told += await _run_and_kill(db, len(told) + aborted, after)
        store = SqliteStore.open(db)
        assert store._conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        counts = store.counts()
        recorded = {g.key for g in store.games(GameQuery(result=None, limit=500))
                    if g.status == "finished"}
        # Everything the writer told is there; at most the one after it too.
        assert set(told) <= recorded and len(recorded) - len(told) <= 1
        assert counts["playing"] <= 1
        aborted += store.abort_interrupted()
        told = sorted(recorded, key=lambda k: int(k[1:]))
        # Each player's rating is its last game's: the games and ratings went in together.
        for name in ("ann", "bob", "cat", "dan"):
            account = store.account(name)
            history = store.rating_history(name)
            assert account is not None and account.rating.games == len(recorded) == len(history)
            assert account.rating.rating == history[-1].rating
        store.close()
    store = SqliteStore.open(db)
    assert store.counts() == {"playing": 0, "finished": len(told), "aborted": aborted}
    store.close()
