"""Lines from a byte stream: one read at a time, cut by a ``LineBuffer``."""

from __future__ import annotations

import trio

from ..protocol import LineBuffer, RawLine

#: Bytes asked for per read.
READ_SIZE = 65536


async def read_lines(
    stream: trio.abc.ReceiveStream, buffer: LineBuffer
) -> tuple[list[RawLine], bool]:
    """Reads once: the lines completed, and whether the stream has ended (a
    broken or closed stream counts as ended; its unfinished last line is then
    among the lines)."""
    try:
        chunk = await stream.receive_some(READ_SIZE)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        chunk = b""
    if not chunk:
        return list(buffer.close()), True
    return list(buffer.feed(chunk)), False


async def first_line(
    stream: trio.abc.ReceiveStream, *, max_line: int, timeout: float, lines: int
) -> tuple[RawLine | None, LineBuffer, list[RawLine]] | None:
    """A connection's first non-blank line (``auth``, a lobby hello) within
    ``timeout`` seconds and ``lines`` lines (None if none came in time), the
    buffer and the lines read after it; None if the peer closed first."""
    buffer = LineBuffer(max_line)
    pending: list[RawLine] = []
    first: RawLine | None = None
    seen = 0
    with trio.move_on_after(timeout):
        while first is None and seen < lines:
            while not pending:
                try:
                    chunk = await stream.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    chunk = b""
                if not chunk:
                    return None
                pending.extend(buffer.feed(chunk))
            line = pending.pop(0)
            seen += 1
            if line.text.strip():
                first = line
    return first, buffer, pending
