"""BPGN (bughouse PGN): writing matches, reading files in every dialect.

``write`` and ``notation`` are pure; ``file`` does the blocking file side of
the writer. See ``docs/bpgn.md`` for the format and our extensions.
"""

from __future__ import annotations

from .file import BpgnFile
from .write import BpgnRecorder, EngineInfo, GameHeader, format_game

__all__ = ["BpgnFile", "BpgnRecorder", "EngineInfo", "GameHeader", "format_game"]
