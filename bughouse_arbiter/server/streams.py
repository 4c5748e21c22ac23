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
