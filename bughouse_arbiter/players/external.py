"""A UCI, xboard or tinyChessServer-dialect engine at one seat, driven through a sans-IO adapter.

The process is an ``EngineProcess`` (own session, a reader that always
drains the output, one queued send path, quit -> grace -> SIGTERM -> SIGKILL).
Two tasks of ours run in the arbiter's nursery: a feeder that hands every
output line to the adapter, and a forwarder that turns adapter events into
actions for the arbiter. The arbiter's calls only feed the adapter and queue
lines; they never wait for the engine.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import ClassVar

import attrs
import trio

from ..adapters.common import (
    EngineDrawOffer,
    EngineEvent,
    EngineInfoLine,
    EngineMove,
    EngineNote,
    EngineResign,
    EngineTell,
    EngineWait,
)
from ..adapters.tcs import TcsAdapter
from ..adapters.uci import UciAdapter
from ..adapters.xboard import XboardAdapter
from ..config.specs import NO_LIMITS, SearchLimits
from ..core.game import PlayedMove
from ..core.model import Outcome, Seat
from ..errors import EngineFailed
from ..protocol.limits import NAME_LIMIT, TellQuota, engine_text
from .base import (
    Action,
    DrawOfferAction,
    Gone,
    InfoAction,
    MatchInfo,
    MoveAction,
    Player,
    ResignAction,
    TableState,
    TellAction,
    WaitAction,
)
from .latency import read_lag
from .process import EXIT_WAIT, EngineProcess, Log

Adapter = UciAdapter | XboardAdapter | TcsAdapter

#: Seconds an xboard engine gets to say ``feature ... done=1`` before it is
#: taken for a protocol-1 engine.
FEATURE_TIMEOUT = 2.0
#: Seconds an xboard engine gets to answer the set-up probe (a mate in one)
#: before it is taken for an engine that leaves bughouse after ``setboard``.
PROBE_TIMEOUT = 5.0


class ExternalEnginePlayer(Player):
    """An engine speaking UCI or xboard, seen by the arbiter as any other player."""

    protocol: ClassVar[str] = "external"
    prompt = True  # every call only feeds the adapter and queues its lines
    #: The sans-IO adapter class that speaks this engine's protocol.
    adapter_class: ClassVar[type[UciAdapter] | type[XboardAdapter] | type[TcsAdapter]]

    def __init__(
        self,
        seat: Seat,
        command: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
        handshake_timeout: float = 10.0,
        log: Log | None = None,
    ) -> None:
        self.seats = (seat,)
        self.seat = seat
        self.adapter: Adapter = self.adapter_class(
            seat, options=options, init=init, limits=limits
        )
        self.engine = self.make_engine(command, cwd, log)
        self.name = engine_text(name or self.engine.label, NAME_LIMIT) or self.engine.label
        #: Partner messages this engine may still send (protocol.md §6.6).
        self.tells = TellQuota()
        self.handshake_timeout = handshake_timeout
        self.log = log
        # Each event with the trio time its line was read (None: not from a line).
        self._events_out, self._events_in = trio.open_memory_channel[
            tuple[EngineEvent, float | None]
        ](math.inf)
        self._actions: trio.MemorySendChannel[Action] | None = None
        self._changed = trio.Event()
        self._failure: EngineFailed | None = None
        self._closing = False
        self._closed = False
        # When each turn (arbiter token) reached the engine's pipe; the last
        # move's wait to be read (see ``harness_delay``).
        self._turn_written: dict[int, float] = {}
        self._answer_lag = 0.0

    def make_engine(
        self, command: Sequence[str], cwd: str | None, log: Log | None
    ) -> EngineProcess:
        """The engine's process (a subclass may run it otherwise)."""
        return EngineProcess(
            command, cwd=cwd, label=self.seat.bpgn, log=log, keep=self.adapter_class.KEEP
        )

    # -- start -----------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self._actions = actions
        await self.engine.start(nursery)
        nursery.start_soon(self._feed)
        nursery.start_soon(self._forward)
        self.adapter.begin()
        self._flush()
        try:
            await self._handshake()
        except BaseException:
            self._closing = True
            await self.engine.aclose(quit_line=None, grace=0)
            raise
        if self.adapter.name:
            self.name = self.adapter.name

    async def _handshake(self) -> None:
        adapter = self.adapter
        if isinstance(adapter, XboardAdapter):
            # Protocol-2 engines answer "feature ... done=1" at once; others never do.
            with trio.move_on_after(min(FEATURE_TIMEOUT, self.handshake_timeout)):
                await self._until(lambda: adapter.handshake_done)
            if not adapter.handshake_done and adapter.features.get("done") == "0":
                with trio.move_on_after(self.handshake_timeout):
                    await self._until(lambda: adapter.handshake_done)
            if not adapter.handshake_done:
                adapter.handshake_timeout()
                self._flush()
            return
        with trio.move_on_after(self.handshake_timeout) as scope:
            await self._until(lambda: adapter.ready)
        if scope.cancelled_caught:
            what = "readyok" if adapter.handshake_done else "uciok"
            raise EngineFailed(f"no {what} within {self.handshake_timeout:g} s")

    async def _until(self, done: Callable[[], bool]) -> None:
        while not done():
            if self._failure is not None:
                raise self._failure
            if self.engine.eof:
                end = await self.engine.describe_end(EXIT_WAIT)
                raise EngineFailed(f"engine {end} during the handshake")
            await self._changed.wait()
        if self._failure is not None:
            raise self._failure

    # -- the two tasks -------------------------------------------------------------------

    async def _feed(self) -> None:
        try:
            async for line in self.engine:
                read_at = trio.current_time()
                try:
                    self.adapter.receive(line.text)
                except EngineFailed as exc:
                    self._failure = exc
                self._flush(read_at)
                self._wake()
        finally:
            self._wake()
            self._events_out.close()

    async def _forward(self) -> None:
        async with self._events_in:
            async for event, read_at in self._events_in:
                action = self._action(event)
                if action is not None and read_at is not None:
                    action = attrs.evolve(action, arrived_at=read_at)
                if action is not None and self._actions is not None and not self._closing:
                    try:
                        await self._actions.send(action)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        return
        if not self._closing and self._actions is not None:
            # Its output ends a moment before its exit status is there: wait for it.
            reason = f"engine {await self.engine.describe_end(EXIT_WAIT)}"
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await self._actions.send(Gone(seat=self.seat, reason=reason))

    def _action(self, event: EngineEvent) -> Action | None:
        seat = self.seat
        if isinstance(event, EngineMove):
            return MoveAction(seat=seat, token=event.token, move=event.move)
        if isinstance(event, EngineWait):
            return WaitAction(seat=seat, token=event.token, reason=event.reason)
        if isinstance(event, EngineResign):
            return ResignAction(seat=seat)
        if isinstance(event, EngineDrawOffer):
            return DrawOfferAction(seat=seat)
        if isinstance(event, EngineTell):
            allowed, note = self.tells.allow()
            if note is not None:
                self._note(note)
            return TellAction(seat=seat, text=event.text) if allowed else None
        if isinstance(event, EngineInfoLine):
            return InfoAction(seat=seat, text=event.text)
        if isinstance(event, EngineNote):
            self._note(event.text)
        return None

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log(f"{self.engine.label} : {text}")

    def _flush(self, read_at: float | None = None) -> None:
        lines, events = self.adapter.take()
        for line in lines:
            self.engine.send(line)
        for event in events:
            if isinstance(event, EngineMove) and read_at is not None:
                self._answer_lag = read_lag(read_at)
            # Broken: the forwarder stopped, the table having stopped taking actions.
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                self._events_out.send_nowait((event, read_at))

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def set_option(self, name: str, value: str | None, *, timeout: float = 10.0) -> None:
        """Sets an engine option between games and waits for the engine's
        acknowledgement (``readyok``, or ``pong`` for an xboard engine with ``ping``).

        Raises:
            EngineFailed: no acknowledgement within ``timeout`` seconds, or the engine left.
        """
        adapter = self.adapter
        adapter.set_option(name, value)
        self._flush()
        with trio.move_on_after(timeout) as scope:
            await self._until(lambda: adapter.option_done)
        if scope.cancelled_caught:
            raise EngineFailed(f"no answer within {timeout:g} s after setting option {name!r}")

    async def ping(self, timeout: float) -> bool | None:
        """``isready`` (UCI) or ``ping N`` (xboard): True if the answer comes within
        ``timeout`` seconds; None for an xboard engine without the ``ping`` feature."""
        if not self.can_play_again():
            return False
        ticket = self.adapter.ping()
        if ticket is None:
            return None
        self._flush()
        adapter = self.adapter
        try:
            with trio.move_on_after(timeout):
                await self._until(lambda: adapter.pinged(ticket))
        except EngineFailed:
            return False
        return adapter.pinged(ticket)

    # -- the arbiter's calls -------------------------------------------------------------

    def _fen(self, state: TableState) -> str:
        return state.fens[self.seat.board]

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.tells.new_game()
        self._turn_written.clear()
        start = info.start_fens[self.seat.board]
        self.adapter.new_game(info.rules, start, state.clocks, info.opening, self._fen(state))
        self._flush()
        await self._settle_probe()

    async def _settle_probe(self) -> None:
        """Waits for the xboard set-up probe's answer (a game from a set-up position).

        Raises:
            EngineFailed: the engine does not play bughouse after ``setboard``.
        """
        adapter = self.adapter
        if not isinstance(adapter, XboardAdapter) or not adapter.probing:
            return
        with trio.move_on_after(PROBE_TIMEOUT):
            await self._until(lambda: not adapter.probing)
        if adapter.probing:
            try:
                adapter.probe_answered(None)
            finally:
                self._flush()
        if self._failure is not None:
            raise self._failure

    def batched(self) -> AbstractContextManager[None]:
        return self.engine.batched()

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.adapter.your_turn(token, self._fen(state), state.clocks)
        self._answer_lag = 0.0
        self._flush()
        self.engine.when_written(partial(self._turn_reached, token))

    def _turn_reached(self, token: int, at: float) -> None:
        self._turn_written.setdefault(token, at)

    def turn_reached(self, seat: Seat, token: int) -> float | None:
        return self._turn_written.get(token)

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        reached = self._turn_written.pop(token, ended_at)  # never sent: all of it
        self._turn_written.clear()  # the turn's refreshes
        before = min(max(0.0, reached - opened_at), max(0.0, ended_at - opened_at))
        lag, self._answer_lag = self._answer_lag, 0.0
        return before + lag

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        if played.board is self.seat.board:
            self.tells.turn_over()
        self.adapter.moved(played, self._fen(state), state.clocks)
        self._flush()

    async def partner_says(self, seat: Seat, text: str) -> None:
        self.adapter.partner_says(text)
        self._flush()

    async def draw_offered(self, by: Seat) -> None:
        self.adapter.draw_offered()
        self._flush()

    async def game_over(self, outcome: Outcome) -> None:
        if (summary := self.tells.summary()) is not None:
            self._note(summary)
        self.adapter.game_over()
        self._flush()

    def can_play_again(self) -> bool:
        return not (self._closing or self._closed or self.engine.eof) and self._failure is None

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        if len(seats) != 1:
            raise ValueError("a UCI or xboard engine holds one seat")
        self.seats = (seats[0],)
        self.seat = self.adapter.seat = seats[0]

    # -- closing -------------------------------------------------------------------------

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._closing = True
        if not self.engine.eof:
            self.adapter.quit()
            self._flush()
        await self.engine.aclose(quit_line=None)
