"""``--debug``: one capped protocol log file per engine process of a game."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import trio

from ..core.model import Seat
from .capped_log import CappedLog
from .process import ProtocolLog

__all__ = ["DebugLogs"]


class DebugLogs:
    """One protocol log per engine process, ``<out>.g<N>.<seat>.log`` (a team-mode
    engine's is ``<out>.g<N>.<seat>+<seat>.log``): milliseconds since the
    engines were started, then each line in (``>``) or out (``<``). Each log
    is capped in size and rate (``CappedLog``), with a note of what it dropped."""

    def __init__(self, out: Path, game_number: int) -> None:
        self.files: dict[tuple[Seat, ...], TextIO] = {}
        self.logs: list[CappedLog] = []
        self.out = out
        self.game_number = game_number
        self.start = trio.current_time()

    def path(self, seats: Seat | tuple[Seat, ...]) -> Path:
        seats = (seats,) if isinstance(seats, Seat) else seats
        slug = "+".join(seat.slug for seat in seats)
        return self.out.with_name(f"{self.out.stem}.g{self.game_number}.{slug}.log")

    def for_seat(self, seat: Seat) -> ProtocolLog:
        return self.for_seats((seat,))

    def for_seats(self, seats: tuple[Seat, ...]) -> ProtocolLog:
        """The log of the one process holding ``seats``."""
        handle = self.path(seats).open("w", encoding="utf-8")
        self.files[seats] = handle
        log = CappedLog(handle, start=self.start)
        self.logs.append(log)
        return log

    def close(self) -> None:
        for log in self.logs:
            log.close()
        for handle in self.files.values():
            handle.close()

