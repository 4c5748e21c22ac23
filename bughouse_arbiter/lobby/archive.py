"""The finished-game seam: what a table hands to storage as a game starts and once it is over."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import attrs

from ..core.model import Seat
from .identity import Identity


@attrs.frozen(kw_only=True)
class GameStarted:
    """One game starting at a lobby table: its first moves are about to be played."""

    table: str
    game: int
    tc: str
    #: The house rules as the record's tags say them (``name=value`` pairs).
    rules: str
    rated: bool
    seats: Mapping[Seat, Identity]
    #: The game's BPGN tag section.
    header: str


@attrs.frozen(kw_only=True)
class GameFinished:
    """One game played at a lobby table."""

    table: str
    game: int
    tc: str
    rated: bool
    seats: Mapping[Seat, Identity]
    #: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` (team one's score first, as BPGN writes it).
    result: str
    #: Why it ended, in the record's words.
    reason: str
    #: The BPGN file the game was appended to (None: it could not be written).
    path: Path | None
    #: The termination's name (``checkmate``, ``time``, ``aborted``...).
    termination: str = ""
    #: The whole game's BPGN (None: it could not be written).
    bpgn: str | None = None
    #: The seats that made a move (None: not known); an aborted game is not rated.
    moved: frozenset[Seat] | None = None


class Archive(Protocol):
    """Storage for the games (``storage.archive`` keeps them in the server's database).

    ``record`` returns once the game is kept for good: the table tells the
    result to the players and watchers only after it."""

    async def begin(self, game: GameStarted) -> None: ...

    async def record(self, game: GameFinished) -> None: ...


class NoArchive:
    """Keeps nothing: the BPGN files are the only record."""

    async def begin(self, game: GameStarted) -> None:
        pass

    async def record(self, game: GameFinished) -> None:
        pass
