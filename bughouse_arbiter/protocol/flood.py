"""How much of one engine's output is read and handled: its read budget.

An engine that floods its output must not spend the harness's time, or the
others' clocks, on it (protocol.md §9). Each engine's output is read through
a ``ReadBudget``, per slice of ``SLICE`` seconds:

- the first ``LINES_PER_SLICE`` lines are handled in full, as every line of a
  quiet engine is;
- beyond that, a read is only scanned (in C, one regular expression over the
  bytes) for the lines that can matter (``Keep``: ``bestmove``, ``readyok``...,
  and the last ``info`` before each of them); the others are dropped unread
  and counted; at most ``KEPT_PER_READ`` lines of one read are kept (the
  first half and the last half of those that matter);
- after ``BYTES_PER_SLICE`` bytes the reader waits for the next slice, so the
  rest waits in the engine's pipe and a flooder is slowed down by its own
  pipe. Its lines, its ``bestmove`` included, are read late, on its own clock.

Sans-IO: the reader passes the time of each read (``now``) and sleeps until
``resume_at`` itself.
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Collection
from typing import Final

import attrs

from .session import LineBuffer, RawLine

#: Seconds of one slice.
SLICE: Final = 0.01
#: Lines of one engine handled in full per slice (5,000 a second: more search
#: output than engines write; a flood is over it in one read).
LINES_PER_SLICE: Final = 50
#: Bytes of one engine read per slice before its reader waits for the next
#: (6.5 MB a second).
BYTES_PER_SLICE: Final = 65536
#: Lines that matter kept from one read over the budget (the first and last halves).
KEPT_PER_READ: Final = 16


@attrs.frozen
class Keep:
    """The lines of a protocol that matter, read even from a flood.

    ``pattern`` matches such a line (from the LF before it to before its own)
    in the bytes of a read (None: no line matters); ``paired``: the keyword of
    lines of which the last one before each kept line is kept too (``info``,
    which goes with a move).
    """

    pattern: re.Pattern[bytes] | None
    paired: bytes | None = None


def keep_lines(keywords: Collection[str], *, paired: str | None = None, prefix: str = "") -> Keep:
    """A ``Keep`` of the lines whose first word is one of ``keywords`` (after
    blanks and any number of ``prefix`` words, e.g. Sjeng's ``Sjeng:`` prompt)."""
    if not keywords:
        return Keep(None)
    words = "|".join(re.escape(word) for word in sorted(keywords, key=len, reverse=True))
    lead = rf"(?:{re.escape(prefix)}[ \t]*)*" if prefix else ""
    # From the LF before the line: sre then skips to each LF at C speed.
    pattern = re.compile(rf"\n[ \t]*{lead}(?:{words})(?![^ \t\r\n])[^\n]*".encode())
    return Keep(pattern, paired.encode() if paired else None)


#: protocol.md: every engine message but ``info``, whose last one before a move is kept.
NATIVE_KEEP: Final = keep_lines(
    ("bestmove", "wait", "resign", "draw", "ptell", "readyok", "error", "id", "option",
     "feature", "bugok"),
    paired="info",
)


class ReadBudget:
    """One engine's read budget (see the module docstring).

    ``take(data, now)`` splits a read into the lines to handle, keeping
    partial lines; ``resume_at`` is when the reader may read again (None: at
    once); ``dropped`` counts the lines dropped unread. ``keep`` None: every
    line is handled, and only the bytes per slice are bounded.
    """

    def __init__(
        self,
        buffer: LineBuffer,
        keep: Keep | None = None,
        *,
        lines: int = LINES_PER_SLICE,
        size: int = BYTES_PER_SLICE,
        kept: int = KEPT_PER_READ,
        slice_: float = SLICE,
    ) -> None:
        self.buffer = buffer
        self.keep = keep
        self.lines = lines
        self.size = size
        self.kept = kept
        self.slice = slice_
        #: Lines dropped unread since the start.
        self.dropped = 0
        #: When the reader may read again (None: at once).
        self.resume_at: float | None = None
        #: A read of this slice was only scanned for the lines that matter.
        self.scanned = False
        self._slice_end = -1.0
        self._lines_used = 0
        self._bytes_used = 0

    def take(self, data: bytes | bytearray, now: float) -> list[RawLine]:
        """The lines of ``data`` (read at ``now``) to handle."""
        if now >= self._slice_end:
            self._slice_end = now + self.slice
            self._lines_used = self._bytes_used = 0
            self.resume_at = None
            self.scanned = False
        self._bytes_used += len(data)
        if self._bytes_used >= self.size:
            self.resume_at = self._slice_end
        lines = self._lines_used + data.count(b"\n")
        if lines <= self.lines:  # every read of a quiet engine
            self._lines_used = lines
            return self.buffer.feed(data)
        if self.keep is None:  # every line, and the reader waits for their share
            self._lines_used = lines
            self.resume_at = now + self.slice * lines / self.lines
            return self.buffer.feed(data)
        self._lines_used = self.lines
        self.scanned = True
        return self._scan(data, self.keep)

    def _scan(self, data: bytes | bytearray, keep: Keep) -> list[RawLine]:
        """The lines of ``data`` that ``keep`` matches, the first line (it may
        end one begun earlier) and the partial last one handled as usual."""
        buffer = self.buffer
        first = data.find(b"\n")
        if first < 0:
            return buffer.feed(data)
        last = data.rfind(b"\n")
        found: list[RawLine] = buffer.feed(data[: first + 1])
        body = bytes(data[first : last + 1])  # whole lines, each after an LF
        every = keep.pattern.finditer(body) if keep.pattern is not None else iter(())
        half = self.kept // 2  # the first ones (a turn's first tells) and the last (its move)
        matches = [*itertools.islice(every, half), *deque(every, maxlen=self.kept - half)]
        floor = 0
        kept = 0
        for match in matches:
            start = match.start()
            if keep.paired is not None:
                pair = _last_line_of(body, keep.paired, floor, start)
                if pair is not None:
                    found.append(buffer.line(pair))
                    kept += 1
            found.append(buffer.line(match.group()[1:]))
            kept += 1
            floor = match.end()
        self.dropped += body.count(b"\n") - 1 - kept
        found.extend(buffer.feed(data[last + 1 :]))
        return found


def _last_line_of(body: bytes, keyword: bytes, floor: int, end: int) -> bytes | None:
    """The last line of ``body`` after the LF at ``floor`` and before the one at
    ``end`` whose first word is ``keyword``."""
    sought = b"\n" + keyword
    at = end
    while (found := body.rfind(sought, floor, at)) >= 0:
        start = found + 1
        if body[start + len(keyword) : start + len(keyword) + 1] in _WORD_END:
            return body[start : body.find(b"\n", start)]
        at = found + len(keyword)
    return None


_WORD_END: Final = (b" ", b"\t", b"\r", b"\n")
