"""BPGN (bughouse PGN): writing matches, reading files in every dialect.

``write``, ``read``, ``claims`` and ``notation`` are pure; ``file`` does the
blocking file side of the writer. See ``docs/bpgn.md`` for the format and our extensions.
"""

from __future__ import annotations

from .file import BpgnFile
from .read import BpgnGame, BpgnMove, Problem, read_games
from .write import BpgnRecorder, GameHeader, SearchInfo, format_game

__all__ = [
    "BpgnFile",
    "BpgnGame",
    "BpgnMove",
    "BpgnRecorder",
    "GameHeader",
    "Problem",
    "SearchInfo",
    "format_game",
    "read_games",
]
