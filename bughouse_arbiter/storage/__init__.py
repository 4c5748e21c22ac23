"""The server's storage: accounts, bots, the game archive and the ratings, behind one
``Store`` protocol (``store``), kept in SQLite (``sqlite.SqliteStore``).

``records`` holds the values, ``schema`` the versioned tables and their
migrations, ``accounts`` the username rules and secrets, ``aio`` the trio face, and
``archive`` the lobby's ``Archive`` seam over it (what ``bughouse server`` keeps).
"""

from __future__ import annotations

from .records import (
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
from .sqlite import SqliteStore
from .store import Store

__all__ = [
    "Account",
    "ArchivedGame",
    "ArchivedPlayer",
    "FinishedGame",
    "GameQuery",
    "GameStart",
    "HistoryPoint",
    "RatingChange",
    "SeatPlayer",
    "SqliteStore",
    "Store",
    "StoreError",
]
