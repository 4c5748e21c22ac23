"""The finished-game seam: what a table hands to storage once a game is over."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import attrs

from ..core.model import Seat
from .identity import Identity


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


class Archive(Protocol):
    """Storage for finished games (accounts and ratings come later)."""

    def record(self, game: GameFinished) -> None: ...


class NoArchive:
    """Keeps nothing: the BPGN files are the only record for now."""

    def record(self, game: GameFinished) -> None:
        pass
