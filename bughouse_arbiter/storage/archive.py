"""The hall's games kept in the server's database: the ``Archive`` seam over ``AsyncStore``.

``begin`` marks a game in progress as it starts (a server killed during it
records it as aborted when it starts again: ``bughouse server`` calls
``abort_interrupted`` before it seats anyone); ``record`` writes the
finished game, its BPGN and the rating changes it causes in one transaction
and returns once they are on disk: the table tells the result only after it
(``hall.tables``). A game is rated only at a rated table whose four seats are
accounts or bots; the new ratings go back into the lobby (``Hall.rerate``),
so the lobby's views and quick pairing use them at once.
"""

from __future__ import annotations

import fcntl
import secrets
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

import trio

from ..core.model import Seat
from ..lobby.archive import GameFinished, GameStarted
from ..lobby.identity import Identity
from . import FinishedGame, GameStart, RatingChange, SeatPlayer, StoreError
from .aio import AsyncStore
from .records import RATED_KINDS

#: Seconds a finished game waits for a faulty store before the table tells it anyway.
HOLD_FOR = 300.0
#: Seconds between tries to store a finished game.
RETRY_EVERY = 2.0

Rerated = Callable[[Sequence[RatingChange]], None]


def seat_players(seats: Mapping[Seat, Identity]) -> dict[Seat, SeatPlayer]:
    return {seat: SeatPlayer(who.name, who.kind) for seat, who in seats.items()}


def ratable(rated: bool, seats: Mapping[Seat, Identity]) -> bool:
    """A rated table's game counts only when all four players are accounts or bots whose
    account was checked (a login, a bot's token: their identity carries its rating; a
    bot that gave no token names no account, whatever its name)."""
    return (
        rated
        and len(seats) == 4
        and all(w.kind in RATED_KINDS and w.rating is not None for w in seats.values())
    )


class StoreArchive:
    """``Archive`` over the server's database (see the module docstring)."""

    def __init__(
        self,
        db: AsyncStore,
        *,
        rerated: Rerated | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.db = db
        self.rerated = rerated
        self.clock = clock
        #: Table ids restart at t1 with the server: the keys carry this run's own mark.
        self.run_mark = secrets.token_hex(4)
        self._started: dict[tuple[str, int], GameStart] = {}

    def _start(self, game: GameStarted | GameFinished, header: str) -> GameStart:
        return GameStart(
            key=f"{self.run_mark}.{game.table}.{game.game}",
            table=game.table,
            players=seat_players(game.seats),
            time_control=game.tc,
            rules=game.rules if isinstance(game, GameStarted) else "",
            rated=ratable(game.rated, game.seats),
            started=self.clock(),
            header=header,
        )

    async def begin(self, game: GameStarted) -> None:
        start = self._start(game, game.header)
        await self.db.begin_game(start)
        self._started[(game.table, game.game)] = start

    async def record(self, game: GameFinished) -> None:
        """Returns once the game and its rating changes are on disk."""
        start = self._started.pop((game.table, game.game), None)
        if start is None:  # it ended before it began (a player failed to start)
            start = self._start(game, "")
            await self.db.begin_game(start)
        bpgn = game.bpgn
        if bpgn is None:
            bpgn = f"{start.header}\n{{{game.reason}}} {game.result}\n"
        finished = FinishedGame(
            key=start.key,
            table=start.table,
            players=start.players,
            time_control=start.time_control,
            rules=start.rules,
            rated=start.rated and game.result != "*",
            started=start.started,
            ended=self.clock(),
            result=game.result,
            termination=game.termination or ("aborted" if game.result == "*" else "unknown"),
            reason=game.reason,
            bpgn=bpgn,
            moved=game.moved,
        )
        changes = await self._kept(finished)
        if changes and self.rerated is not None:
            self.rerated(changes)


    async def _kept(self, finished: FinishedGame) -> tuple[RatingChange, ...]:
        """Records ``finished``, trying again every ``RETRY_EVERY`` seconds while the
        store is locked elsewhere, read-only or full (up to ``HOLD_FOR``): the table
        tells the result only after this returns, so what players hear is stored."""
        deadline = trio.current_time() + HOLD_FOR
        while True:
            try:
                return await self.db.record_game(finished)
            except sqlite3.OperationalError:
                if trio.current_time() >= deadline:
                    raise
                await trio.sleep(RETRY_EVERY)


def hold_database(path: Path) -> IO[bytes]:
    """Takes ``PATH.lock`` for this server (kept while the file stays open): a second
    server on the same database would record the first one's games as aborted, so it
    is refused with one line. ``export``, ``backup`` and ``admin`` need no lock."""
    lock = path.with_name(path.name + ".lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        held = lock.open("ab")
    except OSError as exc:
        raise StoreError(f"cannot open {str(lock)!r}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        raise StoreError(f"another bughouse server is using the database {str(path)!r}") from None
    return held
