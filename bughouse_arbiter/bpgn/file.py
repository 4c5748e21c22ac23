"""The file side of the writer: append as the match goes, replace at the end.

Plain blocking writes (chunks are a line or two). A file may already hold
earlier games: ``start`` notes where this game begins, and ``finalize``
rewrites only this game, atomically (a temporary file in the same folder,
then ``os.replace``), so a reader never sees a half-written file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class BpgnFile:
    """One game's place in a BPGN file.

    Example::

        out = BpgnFile("match.bpgn")
        out.start(recorder.header_text())
        out.append(recorder.update())      # after each event
        out.finalize(recorder.final_text())
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._offset: int | None = None

    def start(self, header_text: str) -> None:
        """Opens the game: appends ``header_text`` after any games already there."""
        with self.path.open("ab") as out:
            self._offset = out.seek(0, os.SEEK_END)
            if self._offset:
                out.write(b"\n")
                self._offset += 1
            out.write(header_text.encode("utf-8"))

    def append(self, text: str) -> None:
        """Appends movetext and flushes it, so a killed process leaves it on disk."""
        if not text:
            return
        if self._offset is None:
            raise RuntimeError("BpgnFile.append before start")
        with self.path.open("ab") as out:
            out.write(text.encode("utf-8"))

    def finalize(self, game_text: str) -> None:
        """Replaces this game's text with ``game_text`` in one atomic rename."""
        offset = self._offset or 0
        before = b""
        if offset and self.path.exists():
            with self.path.open("rb") as existing:
                before = existing.read(offset)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent or ".")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(before)
                out.write(game_text.encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._offset = None
