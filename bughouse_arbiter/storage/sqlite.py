"""``SqliteStore``: the ``Store`` on an embedded SQLite file (stdlib ``sqlite3``).

WAL mode, so that readers (the archive pages, ``export``, ``backup``) never
wait for the writer, and ``synchronous=FULL``, so that a transaction that has
returned is on disk (a process killed or a machine losing power after a
game was recorded keeps it). Every write that belongs together is one
transaction: a finished game, its players, its BPGN and the rating changes
it causes go in together or not at all. Blocking: the server calls it from a
thread (``storage.aio.AsyncStore``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.model import Seat
from ..ratings import PlayerRating, TeamGame, rate_team_game
from ..ratings.glicko import DEFAULTS, GlickoParams
from ..ratings.policy import REPEAT_WINDOW, rating_call
from . import accounts
from .records import (
    RATED_KINDS,
    Account,
    ArchivedGame,
    ArchivedPlayer,
    FinishedGame,
    GameQuery,
    GameStart,
    HistoryPoint,
    RatingChange,
    SeatPlayer,
    StoreError,
)
from .schema import MIGRATIONS, migrate
from .store import Store
from .text import aborted_bpgn

_SEAT_BY_VALUE = {seat.value: seat for seat in Seat}
#: How long a write waits for a lock held by another process, in milliseconds.
BUSY_MS = 1500

_ACCOUNT_COLUMNS = "id, name, kind, created, revoked, rating, rd, rated_games, last_rated"
#: The reason given to games a restart finds unfinished.
RESTART_REASON = "the server stopped before the game ended"
_EVERY_GAME = GameQuery()


class SqliteStore:
    """The server's database in one SQLite file. Open with ``SqliteStore.open``."""

    def __init__(self, conn: sqlite3.Connection, path: str, params: GlickoParams) -> None:
        self._conn = conn
        self.path = path
        self.params = params

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        params: GlickoParams = DEFAULTS,
        migrations: Sequence[str] = MIGRATIONS,
        create: bool = True,
    ) -> SqliteStore:
        """Opens (``create``: or makes) the database at ``path`` and brings its schema
        up to date. ``StoreError`` for a file that is not such a database."""
        where = str(path)
        if not create and not Path(where).is_file():
            raise StoreError(f"no database at {where!r}")
        try:
            if create:
                Path(where).parent.mkdir(parents=True, exist_ok=True)
            # Autocommit: transactions are begun and ended explicitly. The
            # connection is used from one thread at a time (AsyncStore's limiter).
            conn = sqlite3.connect(where, isolation_level=None, check_same_thread=False)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {where!r}: {exc}") from None
        try:
            # Short: a page under a lock held elsewhere answers 503 at once, not in 10 s.
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"the database {where!r} cannot use WAL mode (it says {mode})")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn, migrations)
            # A locked, read-only or immutable file is told now, before anyone registers.
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"cannot use the database {where!r}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(conn, where, params)

    def close(self) -> None:
        self._conn.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- accounts ---------------------------------------------------------------

    def create_account(self, name: str, password: str, *, now: float | None = None) -> Account:
        """A new person's account (name checked, password hashed with Argon2)."""
        accounts.check_username(name)
        hashed = accounts.hash_password(password)
        return self._insert_account(name, "account", password_hash=hashed, now=now)

    def add_account(self, name: str, password_hash: str, *, now: float | None = None) -> Account:
        """A new person's account whose password was hashed already (off this thread)."""
        accounts.check_username(name)
        return self._insert_account(name, "account", password_hash=password_hash, now=now)

    def password_record(self, name: str) -> tuple[Account, str] | None:
        """A person's account and its password hash (checked by the caller), or None."""
        row = self._conn.execute(
            f"SELECT {_ACCOUNT_COLUMNS}, password_hash FROM accounts "
            "WHERE name = ? AND kind = 'account' AND revoked IS NULL",
            (name,),
        ).fetchone()
        if row is None or row[-1] is None:
            return None
        return _account(row[:-1]), str(row[-1])

    def set_password_hash(
        self, name: str, password_hash: str, *, keep: str | None = None
    ) -> None:
        """A new hash of the same password; with ``keep``, a new password: every session
        of ``name`` but ``keep`` ends in the same transaction."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE accounts SET password_hash = ? WHERE name = ? AND kind = 'account'",
                (password_hash, name),
            )
            if keep is not None:
                _end_sessions(conn, name, keep)

    # -- sessions: a cookie names one; ending it here ends it everywhere ----------------

    def open_session(self, name: str, *, now: float | None = None) -> str:
        """A new session of the account ``name``: its id, for the signed cookie."""
        session = secrets.token_urlsafe(24)
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO sessions (id, account_id, created) "
                "SELECT ?, id, ? FROM accounts WHERE name = ? AND kind = 'account'",
                (session, _now(now), name),
            )
        return session

    def session_account(
        self, session: str, max_age: float, *, now: float | None = None
    ) -> Account | None:
        """The account of a live session (younger than ``max_age`` seconds), or None."""
        row = self._conn.execute(
            f"SELECT {', '.join('a.' + c for c in _ACCOUNT_COLUMNS.split(', '))} "
            "FROM sessions s JOIN accounts a ON a.id = s.account_id "
            "WHERE s.id = ? AND s.created > ? AND a.kind = 'account' AND a.revoked IS NULL",
            (session, _now(now) - max_age),
        ).fetchone()
        return None if row is None else _account(row)

    def end_sessions(self, name: str, *, keep: str | None = None) -> int:
        """Ends every session of ``name`` but ``keep``; how many ended."""
        with self._transaction() as conn:
            return _end_sessions(conn, name, keep or "")

    def end_session(self, session: str) -> None:
        with self._transaction() as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session,))

    def verify_password(self, name: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else None."""
        row = self._conn.execute(
            f"SELECT {_ACCOUNT_COLUMNS}, password_hash FROM accounts "
            "WHERE name = ? AND kind = 'account' AND revoked IS NULL",
            (name,),
        ).fetchone()
        if row is None or row[-1] is None:
            accounts.verify_nothing(password)  # as long as a wrong password takes
            return None
        if not accounts.verify_password(row[-1], password):
            return None
        if accounts.needs_rehash(row[-1]):
            with self._transaction() as conn:
                conn.execute(
                    "UPDATE accounts SET password_hash = ? WHERE id = ?",
                    (accounts.hash_password(password), row[0]),
                )
        return _account(row[:-1])

    def add_bot(self, name: str, *, now: float | None = None) -> str:
        """Makes the bot ``name`` and returns its token (only its hash is kept)."""
        accounts.check_username(name)
        token = accounts.new_token()
        self._insert_account(name, "bot", token_hash=accounts.hash_token(token), now=now)
        return token

    def revoke_bot(self, name: str, *, now: float | None = None) -> bool:
        """Revokes the bot's token (its games and rating stay); False if no such bot."""
        with self._transaction() as conn:
            cursor = conn.execute(
                "UPDATE accounts SET revoked = ?, token_hash = NULL "
                "WHERE name = ? AND kind = 'bot' AND revoked IS NULL",
                (_now(now), name),
            )
        return cursor.rowcount == 1

    def bot_for_token(self, name: str, token: str) -> Account | None:
        """The bot ``name`` if ``token`` is its token: a token seats its own bot only."""
        row = self._conn.execute(
            f"SELECT {_ACCOUNT_COLUMNS}, token_hash FROM accounts "
            "WHERE name = ? AND kind = 'bot' AND revoked IS NULL",
            (name,),
        ).fetchone()
        if row is None or row[-1] is None or not accounts.token_matches(row[-1], token):
            return None
        return _account(row[:-1])

    def account(self, name: str) -> Account | None:
        row = self._conn.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else _account(row)

    def _insert_account(
        self,
        name: str,
        kind: str,
        *,
        password_hash: str | None = None,
        token_hash: str | None = None,
        now: float | None,
    ) -> Account:
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM accounts WHERE name = ?", (name,)).fetchone():
                raise StoreError(f"the name {name!r} is taken")
            cursor = conn.execute(
                "INSERT INTO accounts (name, kind, password_hash, token_hash, created, rating, rd)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    name,
                    kind,
                    password_hash,
                    token_hash,
                    _now(now),
                    self.params.initial_rating,
                    self.params.max_rd,
                ),
            )
            row = conn.execute(
                f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE id = ?", (cursor.lastrowid,)
            ).fetchone()
        return _account(row)

    # -- games -----------------------------------------------------------------

    def begin_game(self, start: GameStart) -> int:
        """Marks a game in progress (its row id); ``abort_interrupted`` ends it if
        the server dies first."""
        bpgn = start.header
        with self._transaction() as conn:
            if conn.execute("SELECT 1 FROM games WHERE key = ?", (start.key,)).fetchone():
                raise StoreError(f"the game {start.key!r} is already in the archive")
            cursor = conn.execute(
                "INSERT INTO games (key, status, table_id, time_control, rules, rated, started,"
                " bpgn) VALUES (?, 'playing', ?, ?, ?, ?, ?, ?)",
                (
                    start.key,
                    start.table,
                    start.time_control,
                    start.rules,
                    int(start.rated),
                    start.started,
                    bpgn,
                ),
            )
            game_id = int(cursor.lastrowid or 0)
            self._insert_players(conn, game_id, start.players, {})
        return game_id

    def record_game(
        self, finished: FinishedGame, rating_changes: Sequence[RatingChange] | None = None
    ) -> tuple[RatingChange, ...]:
        """Writes a finished game, its BPGN and its rating changes in one transaction;
        returns the changes. With ``rating_changes`` None they are worked out here
        from the ratings as they stand in that same transaction (a rated game whose
        four players are all accounts or bots, with a result; a name with no
        account leaves the game unrated, never unrecorded); given, they are
        applied as they are. Tell the players the result only after this returns."""
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT id, status FROM games WHERE key = ?", (finished.key,)
            ).fetchone()
            if row is not None and row[1] != "playing":
                raise StoreError(f"the game {finished.key!r} is already recorded")
            if rating_changes is None:
                rating_changes = self._changes(conn, finished)
            values = (
                finished.table,
                finished.time_control,
                finished.rules,
                int(finished.rated and bool(rating_changes)),
                finished.started,
                finished.ended,
                finished.result,
                finished.termination,
                finished.reason,
                finished.bpgn,
            )
            if row is None:
                cursor = conn.execute(
                    "INSERT INTO games (status, table_id, time_control, rules, rated, started,"
                    " ended, result, termination, reason, bpgn, key)"
                    " VALUES ('finished', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*values, finished.key),
                )
                game_id = int(cursor.lastrowid or 0)
            else:
                game_id = int(row[0])
                conn.execute(
                    "UPDATE games SET status = 'finished', table_id = ?, time_control = ?,"
                    " rules = ?, rated = ?, started = ?, ended = ?, result = ?, termination = ?,"
                    " reason = ?, bpgn = ? WHERE id = ?",
                    (*values, game_id),
                )
                conn.execute("DELETE FROM game_players WHERE game_id = ?", (game_id,))
            by_seat = {change.seat: change for change in rating_changes}
            self._insert_players(conn, game_id, finished.players, by_seat)
            for change in rating_changes:
                after = change.after
                updated = conn.execute(
                    "UPDATE accounts SET rating = ?, rd = ?, rated_games = ?, last_rated = ?"
                    " WHERE name = ?",
                    (after.rating, after.rd, after.games, after.last, change.name),
                )
                if updated.rowcount != 1:
                    raise StoreError(f"no account {change.name!r} to rate")
        return tuple(rating_changes)

    def _changes(
        self, conn: sqlite3.Connection, finished: FinishedGame
    ) -> tuple[RatingChange, ...]:
        players = finished.players.values()
        before: dict[Seat, PlayerRating] = {}
        for seat, player in finished.players.items():
            if player.kind not in RATED_KINDS:
                break
            row = conn.execute(
                f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE name = ?", (player.name,)
            ).fetchone()
            if row is None:
                break  # not an account after all: the game is kept, unrated
            before[seat] = _account(row).rating
        call = rating_call(
            table_rated=finished.rated,
            all_rated_players=len(before) == 4,
            result=finished.result,
            moved=finished.moved,
            repeats=self._repeats(conn, [p.name for p in players], finished.ended),
        )
        if not call.rated:
            return ()
        score = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[finished.result]
        after = rate_team_game(
            TeamGame(ratings=before, score_one=score, now=finished.ended), self.params
        )
        return tuple(
            RatingChange(
                seat=seat, name=finished.players[seat].name, before=before[seat], after=after[seat]
            )
            for seat in Seat
        )

    @staticmethod
    def _repeats(conn: sqlite3.Connection, names: Sequence[str], now: float) -> int:
        """Rated games the same four players finished together within the window."""
        if len(set(n.casefold() for n in names)) != 4:
            return 0
        marks = ", ".join("?" * len(names))
        (count,) = conn.execute(
            "SELECT COUNT(*) FROM games g WHERE g.status = 'finished' AND g.rated = 1"
            " AND g.ended > ? AND g.ended <= ? AND (SELECT COUNT(*) FROM game_players p"
            f" WHERE p.game_id = g.id AND p.name IN ({marks})) = 4",
            (now - REPEAT_WINDOW, now, *names),
        ).fetchone()
        return int(count)

    def _insert_players(
        self,
        conn: sqlite3.Connection,
        game_id: int,
        players: Mapping[Seat, SeatPlayer],
        changes: Mapping[Seat, RatingChange],
    ) -> None:
        for seat, player in players.items():
            account = None
            if player.kind in RATED_KINDS:
                found = conn.execute(
                    "SELECT id FROM accounts WHERE name = ?", (player.name,)
                ).fetchone()
                account = None if found is None else int(found[0])
            change = changes.get(seat)
            conn.execute(
                "INSERT INTO game_players (game_id, seat, name, kind, account_id, rating_before,"
                " rd_before, rating_after, rd_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seat.value,
                    player.name,
                    player.kind,
                    account,
                    None if change is None else change.before.rating,
                    None if change is None else change.before.rd,
                    None if change is None else change.after.rating,
                    None if change is None else change.after.rd,
                ),
            )

    def abort_interrupted(self, reason: str = RESTART_REASON, *, now: float | None = None) -> int:
        """Records every game still marked in progress as aborted (``*``, ``reason``);
        how many. The server calls it once at start, before it seats anyone."""
        ended = _now(now)
        with self._transaction() as conn:
            rows = conn.execute("SELECT id, bpgn FROM games WHERE status = 'playing'").fetchall()
            for game_id, header in rows:
                conn.execute(
                    "UPDATE games SET status = 'aborted', ended = ?, result = '*',"
                    " termination = 'aborted', reason = ?, bpgn = ? WHERE id = ?",
                    (ended, reason, aborted_bpgn(header, reason), game_id),
                )
        return len(rows)

    # -- the archive -------------------------------------------------------------

    def games(self, query: GameQuery = _EVERY_GAME) -> list[ArchivedGame]:
        """Finished and aborted games matching ``query``, newest first."""
        where, args = _where(query)
        rows = self._conn.execute(
            "SELECT g.id, g.key, g.table_id, g.status, g.time_control, g.rules, g.rated, g.started,"
            f" g.ended, g.result, g.termination, g.reason FROM games g WHERE {where}"
            " ORDER BY g.ended DESC, g.id DESC LIMIT ? OFFSET ?",
            (*args, query.limit, query.offset),
        ).fetchall()
        return [self._archived(row) for row in rows]

    def game(self, game_id: int) -> ArchivedGame | None:
        row = self._conn.execute(
            "SELECT id, key, table_id, status, time_control, rules, rated, started, ended, result,"
            " termination, reason FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        return None if row is None else self._archived(row)

    def _archived(self, row: tuple[object, ...]) -> ArchivedGame:
        game_id = int(row[0])  # type: ignore[call-overload]
        players = {
            _SEAT_BY_VALUE[seat]: ArchivedPlayer(
                name=name, kind=kind, rating_before=before, rating_after=after
            )
            for seat, name, kind, before, after in self._conn.execute(
                "SELECT seat, name, kind, rating_before, rating_after FROM game_players"
                " WHERE game_id = ?",
                (game_id,),
            )
        }
        return ArchivedGame(
            id=game_id,
            key=str(row[1]),
            table=str(row[2]),
            status=str(row[3]),
            players=players,
            time_control=str(row[4]),
            rules=str(row[5]),
            rated=bool(row[6]),
            started=float(row[7]),  # type: ignore[arg-type]
            ended=None if row[8] is None else float(row[8]),  # type: ignore[arg-type]
            result=str(row[9]),
            termination=None if row[10] is None else str(row[10]),
            reason=None if row[11] is None else str(row[11]),
        )

    def game_bpgn(self, game_id: int) -> str | None:
        row = self._conn.execute(
            "SELECT bpgn FROM games WHERE id = ? AND status != 'playing'", (game_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def iter_bpgn(self, query: GameQuery = _EVERY_GAME) -> Generator[str, None, None]:
        """The BPGN of every finished and aborted game matching ``query`` (its paging
        aside), oldest first, read a game at a time in one read transaction (a
        snapshot: games recorded meanwhile are not in it)."""
        where, args = _where(query)
        conn = self._conn
        conn.execute("BEGIN")
        try:
            last = 0
            while True:
                row = conn.execute(
                    f"SELECT g.id, g.bpgn FROM games g WHERE {where} AND g.id > ?"
                    " ORDER BY g.id LIMIT 1",
                    (*args, last),
                ).fetchone()
                if row is None:
                    break
                last = int(row[0])
                yield str(row[1])
        finally:
            conn.execute("COMMIT")

    def counts(self) -> dict[str, int]:
        """Games in the archive by status."""
        found = dict.fromkeys(("playing", "finished", "aborted"), 0)
        for status, count in self._conn.execute(
            "SELECT status, COUNT(*) FROM games GROUP BY status"
        ):
            found[str(status)] = int(count)
        return found

    # -- ratings -----------------------------------------------------------------

    def leaderboard(
        self,
        *,
        limit: int = 50,
        offset: int = 0,
        provisional: bool = False,
        now: float | None = None,
    ) -> list[Account]:
        """Rated accounts and bots, highest rating first; without ``provisional``
        only those whose deviation (grown to ``now``) is small enough."""
        rows = self._conn.execute(
            f"SELECT {_ACCOUNT_COLUMNS} FROM accounts WHERE rated_games > 0"
            " ORDER BY rating DESC, name",
        ).fetchall()
        at = _now(now)
        board = [_account(row) for row in rows]
        if not provisional:
            board = [a for a in board if not a.rating.provisional(at, self.params)]
        return board[offset : offset + limit]

    def rating_history(self, name: str) -> list[HistoryPoint]:
        """A player's rating after each rated game, oldest first."""
        rows = self._conn.execute(
            "SELECT g.id, g.ended, p.rating_after, p.rd_after FROM game_players p"
            " JOIN games g ON g.id = p.game_id"
            " WHERE p.name = ? AND p.rating_after IS NOT NULL ORDER BY g.ended, g.id",
            (name,),
        ).fetchall()
        return [
            HistoryPoint(game_id=int(i), ended=float(e), rating=float(r), rd=float(d))
            for i, e, r, d in rows
        ]

    # -- backup ------------------------------------------------------------------

    def backup(self, target: str | os.PathLike[str]) -> None:
        """A consistent copy of the database at ``target`` (SQLite's online backup:
        the server keeps running). Written beside it and renamed into place."""
        final = Path(target)
        temporary = final.with_name(final.name + ".part")
        try:
            temporary.unlink(missing_ok=True)
            copy = sqlite3.connect(str(temporary))
            try:
                self._conn.backup(copy)
            finally:
                copy.close()
            os.replace(temporary, final)
        except (sqlite3.Error, OSError) as exc:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            raise StoreError(f"cannot write the backup {str(final)!r}: {exc}") from None


def _where(query: GameQuery) -> tuple[str, list[object]]:
    """The SQL condition on ``games g`` for ``query``'s filters, and its arguments."""
    where = ["g.status != 'playing'"]
    args: list[object] = []
    if query.player is not None:
        where.append("EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = g.id AND p.name = ?)")
        args.append(query.player)
    if query.since is not None:
        where.append("g.ended >= ?")
        args.append(query.since)
    if query.until is not None:
        where.append("g.ended < ?")
        args.append(query.until)
    if query.result is not None:
        where.append("g.result = ?")
        args.append(query.result)
    return " AND ".join(where), args


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _account(row: Sequence[object]) -> Account:
    id_, name, kind, created, revoked, rating, rd, games, last = row
    return Account(
        id=int(id_),  # type: ignore[call-overload]
        name=str(name),
        kind=str(kind),
        created=float(created),  # type: ignore[arg-type]
        revoked=revoked is not None,
        rating=PlayerRating(
            rating=float(rating),  # type: ignore[arg-type]
            rd=float(rd),  # type: ignore[arg-type]
            games=int(games),  # type: ignore[call-overload]
            last=None if last is None else float(last),  # type: ignore[arg-type]
        ),
    )


if TYPE_CHECKING:
    _CONFORMS: type[Store] = SqliteStore


def _end_sessions(conn: sqlite3.Connection, name: str, keep: str) -> int:
    """Deletes every session of ``name`` but ``keep``; how many."""
    cursor = conn.execute(
        "DELETE FROM sessions WHERE id != ? AND account_id IN "
        "(SELECT id FROM accounts WHERE name = ?)",
        (keep, name),
    )
    return cursor.rowcount
