"""The database's tables as numbered migrations, applied in order when a store opens.

The schema's version is SQLite's ``user_version``. A migration is applied
with the version it brings in one transaction, so a server killed in the
middle of one starts again from the version before. A database newer than
this program is refused, never written. Add a change as a new entry at the
end of ``MIGRATIONS``; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from .records import StoreError

#: Migration N (from 1) takes the schema from version N-1 to N.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE accounts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        kind TEXT NOT NULL CHECK (kind IN ('account', 'bot')),
        password_hash TEXT,
        token_hash TEXT,
        created REAL NOT NULL,
        revoked REAL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        rated_games INTEGER NOT NULL DEFAULT 0,
        last_rated REAL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('playing', 'finished', 'aborted')),
        table_id TEXT NOT NULL,
        time_control TEXT NOT NULL,
        rules TEXT NOT NULL,
        rated INTEGER NOT NULL,
        started REAL NOT NULL,
        ended REAL,
        result TEXT NOT NULL DEFAULT '*',
        termination TEXT,
        reason TEXT,
        bpgn TEXT NOT NULL
    );
    CREATE TABLE game_players (
        game_id INTEGER NOT NULL REFERENCES games (id),
        seat TEXT NOT NULL,
        name TEXT NOT NULL COLLATE NOCASE,
        kind TEXT NOT NULL,
        account_id INTEGER REFERENCES accounts (id),
        rating_before REAL,
        rd_before REAL,
        rating_after REAL,
        rd_after REAL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX games_by_end ON games (ended);
    CREATE INDEX games_by_status ON games (status);
    CREATE INDEX players_by_name ON game_players (name, game_id);
    CREATE INDEX players_by_account ON game_players (account_id, game_id);
    """,
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id),
        created REAL NOT NULL
    );
    CREATE INDEX sessions_by_account ON sessions (account_id);
    """,
)


def version(conn: sqlite3.Connection) -> int:
    (found,) = conn.execute("PRAGMA user_version").fetchone()
    return int(found)


def migrate(conn: sqlite3.Connection, migrations: Sequence[str] = MIGRATIONS) -> int:
    """Brings the database of ``conn`` (in autocommit mode) to the last version;
    returns it."""
    current = version(conn)
    if current > len(migrations):
        raise StoreError(
            f"the database is at schema version {current}; this program knows up to "
            f"{len(migrations)} (a newer bughouse-arbiter made it)"
        )
    for number in range(current + 1, len(migrations) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(migrations[number - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number:d}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(migrations)


def _statements(script: str) -> list[str]:
    """The statements of a migration script, one by one (``executescript`` would
    commit the transaction on its own). A ``;`` inside a string does not split."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\n;"):
                out.append(pending.strip())
            pending = ""
    if pending.strip(" \t\n;"):
        out.append(pending.strip())
    return out
