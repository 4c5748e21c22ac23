"""Stopping a match from outside: Ctrl+C, ``kill`` (SIGTERM), a closed terminal (SIGHUP).

All three are handled alike: ``stop_on_signals`` turns the first of them into
the cancellation of a scope, so the match in it ends the way a cancelled match
does (the game aborted with result ``*`` and the reason, every player told
and closed, every engine stopped). A second signal while that happens changes
nothing: the shutdown is shielded and bounded by its own timeouts.

The command then exits with ``exit_status(signal)``, 128 + the signal's number
as a shell reports it (130 for Ctrl+C, 143 for SIGTERM, 129 for SIGHUP).

    async with stop_on_signals() as stop:
        with stop.scope:
            await run_match(...)
    if stop.signal is not None:
        return exit_status(stop.signal)
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import AsyncIterator
from typing import Final

import trio

from ..exits import by_signal

#: The signals that stop a match.
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stop:
    """The scope the first stop signal cancels, and which signal it was."""

    def __init__(self) -> None:
        self.scope = trio.CancelScope()
        self.signal: signal.Signals | None = None

    @property
    def name(self) -> str:
        """``Ctrl+C``, ``SIGTERM``, ``SIGHUP`` (empty while no signal came)."""
        if self.signal is None:
            return ""
        return "Ctrl+C" if self.signal == signal.SIGINT else self.signal.name

    def reason(self) -> str:
        """The sentence a game stopped by the signal (or cancelled without one) is recorded with."""
        if self.signal is None:
            return "interrupted: the match was stopped before it ended"
        return f"interrupted by {self.name}: the match was stopped before it ended"


@contextlib.asynccontextmanager
async def stop_on_signals(
    signals: tuple[signal.Signals, ...] = STOP_SIGNALS,
) -> AsyncIterator[Stop]:
    """Watches ``signals`` for the duration of the block; the first cancels ``scope``."""
    stop = Stop()
    # A signal ignored when we started stays ignored: ``nohup`` (SIGHUP), a
    # background job of a script (SIGINT).
    signals = tuple(sig for sig in signals if signal.getsignal(sig) != signal.SIG_IGN)
    if not signals:
        yield stop
        return
    with trio.open_signal_receiver(*signals) as received:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                async for number in received:
                    if stop.signal is None:
                        stop.signal = signal.Signals(number)
                        stop.scope.cancel()

            nursery.start_soon(watch)
            try:
                yield stop
            finally:
                nursery.cancel_scope.cancel()


def exit_status(sig: signal.Signals) -> int:
    """The exit status a shell shows for a program ended by ``sig`` (``exits.by_signal``)."""
    return by_signal(sig)
