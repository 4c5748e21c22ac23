"""A protocol log with a cap on its size and on the rate it grows at.

An engine that floods its output (or its standard error) must not fill the
disk through ``--debug`` (protocol.md §9: logging is rate-limited). A
``CappedLog`` writes lines as ``ProtocolLog`` does while they fit a token
bucket of ``rate`` bytes a second (``burst`` at once) and the file holds
less than ``max_bytes``; the lines past either are dropped and counted, and
a note says how many and how much: where writing resumes after a stretch
over the rate, where the size cap is reached, and at ``close``.
"""

from __future__ import annotations

from typing import TextIO

import trio

from .process import ProtocolLog

#: Bytes one log may hold (its notes of what was dropped come on top).
MAX_BYTES = 32 * 1024 * 1024
#: Bytes a second a log may grow at, and at once.
RATE = 256 * 1024
BURST = 1024 * 1024


class CappedLog(ProtocolLog):
    """``ProtocolLog`` within ``max_bytes`` and ``rate`` bytes a second (``burst`` at once)."""

    def __init__(
        self,
        stream: TextIO,
        *,
        start: float | None = None,
        max_bytes: int = MAX_BYTES,
        rate: float = RATE,
        burst: float = BURST,
    ) -> None:
        super().__init__(stream, start=start)
        self.max_bytes = max_bytes
        self.rate = rate
        self.burst = burst
        #: Bytes written, notes included.
        self.written = 0
        #: Lines and bytes dropped in all.
        self.dropped_lines = 0
        self.dropped_bytes = 0
        #: The size cap was reached: nothing more is written but the last note.
        self.full = False
        self._tokens = burst
        self._filled_at = self.start
        self._unsaid = (0, 0)  # lines and bytes dropped since the last note

    def __call__(self, line: str) -> None:
        now = trio.current_time()
        text = f"{int((now - self.start) * 1000):>8} {line}\n"
        size = len(text.encode(errors="replace"))
        if self.full:
            self._drop(size)
            return
        tokens = self._tokens + (now - self._filled_at) * self.rate
        self._tokens = tokens if tokens < self.burst else self.burst
        self._filled_at = now
        if self.written + size > self.max_bytes:
            if self._unsaid[0]:
                self._say(now, f"over {_size(self.rate)}/s: {self._dropped_text()} dropped")
            self.full = True
            cap = _size(self.max_bytes)
            self._say(now, f"the log reached its cap of {cap}; the rest is dropped")
            self._drop(size)
            return
        if size > self._tokens:
            self._drop(size)
            return
        if self._unsaid[0]:
            self._say(now, f"over {_size(self.rate)}/s: {self._dropped_text()} dropped")
        self._tokens -= size
        self._write(text, size)

    def close(self) -> None:
        """Notes what was dropped and not said yet (the stream stays open)."""
        if self._unsaid[0]:
            what = "after the cap" if self.full else f"over {_size(self.rate)}/s"
            self._say(trio.current_time(), f"{what}: {self._dropped_text()} dropped")
        if self.dropped_lines:
            self._say(
                trio.current_time(),
                f"in all {self.dropped_lines} lines ({_size(self.dropped_bytes)}) were dropped",
            )

    def _drop(self, size: int) -> None:
        lines, dropped = self._unsaid
        self._unsaid = (lines + 1, dropped + size)
        self.dropped_lines += 1
        self.dropped_bytes += size

    def _dropped_text(self) -> str:
        lines, dropped = self._unsaid
        self._unsaid = (0, 0)
        return f"{lines} lines ({_size(dropped)})"

    def _say(self, now: float, note: str) -> None:
        text = f"{int((now - self.start) * 1000):>8} -- log: {note}\n"
        self._write(text, len(text))

    def _write(self, text: str, size: int) -> None:
        self.stream.write(text)
        self.stream.flush()
        self.written += size


def _size(count: float) -> str:
    """``512 B``, ``256 KB``, ``32 MB``."""
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.3g} MB"
    if count >= 1024:
        return f"{count / 1024:.3g} KB"
    return f"{count:g} B"
