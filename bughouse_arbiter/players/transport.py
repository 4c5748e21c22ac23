"""The line transport under a native player: a pipe to a subprocess, or a network seat.

``NativeEnginePlayer`` speaks protocol.md through any ``LineTransport``:
``EngineProcess`` (process.py) for a local engine, ``RemoteSeat``
(``serve/remote.py``) for a seat played over the network. The player never
learns which: lines go out with ``send``, come in through the ``on_lines``
callback given to ``start``, and ``wait_eof`` / ``describe_end`` say when and
why the other side is gone for good. ``send_data`` takes lines already
encoded and ``batched()`` lets a transport send a block's lines together
(``EngineProcess``: one write).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

import trio

from ..protocol import RawLine
from .process import LineSink

__all__ = ["LineSink", "LineTransport", "RawLine"]


class LineTransport(Protocol):
    """Lines in and out of one engine (or remote player), as ``EngineProcess`` does them."""

    label: str

    async def start(self, nursery: trio.Nursery, *, on_lines: LineSink | None = None) -> None:
        """Opens the transport; incoming lines go to ``on_lines`` with their arrival time."""

    def send(self, line: str) -> None:
        """Sends one line (no line break); never blocks; dropped once the other side is gone."""

    def send_data(self, data: bytes) -> None:
        """Sends whole lines already encoded, each ending with LF; as ``send`` otherwise."""

    def batched(self) -> AbstractContextManager[None]:
        """A block whose lines may be held and sent together when it ends."""

    async def wait_eof(self) -> None:
        """Returns once the other side is gone for good (no more lines will come)."""

    async def describe_end(self, timeout: float) -> str:
        """Why it is gone, e.g. ``exited with status 3`` (waits up to ``timeout`` s for it)."""

    async def aclose(
        self, quit_line: str | None = "quit", *, grace: float = ..., term_grace: float = ...
    ) -> None:
        """Says ``quit_line`` and closes for good; safe to call more than once."""
