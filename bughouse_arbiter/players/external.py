"""A UCI or xboard engine process at one seat, driven through a sans-IO adapter.

Three tasks per engine, all in the arbiter's nursery: a reader that always
drains the engine's output into the adapter (so floods never block the
engine), a writer that sends the adapter's lines in order, and a forwarder
that turns adapter events into actions for the arbiter. The arbiter's calls
only feed the adapter and queue lines; they never wait for the engine.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import subprocess
from collections.abc import Callable, Sequence

import trio

from ..adapters.common import (
    EngineDrawOffer,
    EngineEvent,
    EngineInfo,
    EngineMove,
    EngineNote,
    EngineResign,
    EngineTell,
    EngineWait,
)
from ..adapters.uci import UciAdapter
from ..adapters.xboard import XboardAdapter
from ..errors import EngineFailed
from ..game import PlayedMove
from ..model import Outcome, Seat
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

Adapter = UciAdapter | XboardAdapter
Log = Callable[[str], None]

#: Seconds an engine gets to exit after ``quit`` before SIGTERM, then SIGKILL.
QUIT_GRACE = 1.5
KILL_GRACE = 1.0


class ExternalEnginePlayer(Player):
    """An engine speaking UCI or xboard, seen by the arbiter as any other player."""

    protocol = "external"

    def __init__(
        self,
        seat: Seat,
        command: Sequence[str],
        adapter: Adapter,
        *,
        name: str | None = None,
        cwd: str | None = None,
        handshake_timeout: float = 10.0,
        log: Log | None = None,
    ) -> None:
        if not command:
            raise EngineFailed("empty engine command")
        self.seats = (seat,)
        self.seat = seat
        self.command = list(command)
        self.cwd = cwd
        self.adapter = adapter
        self.name = name or os.path.basename(self.command[0])
        self.handshake_timeout = handshake_timeout
        self.log = log
        self.process: trio.Process | None = None
        self._lines_out, self._lines_in = trio.open_memory_channel[str](math.inf)
        self._events_out, self._events_in = trio.open_memory_channel[EngineEvent](math.inf)
        self._actions: trio.MemorySendChannel[Action] | None = None
        self._changed = trio.Event()
        self._failure: EngineFailed | None = None
        self._eof = False
        self._closing = False
        self._closed = False

    # -- start -----------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self._actions = actions
        try:
            self.process = await trio.lowlevel.open_process(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise EngineFailed(f"cannot run {self.command[0]!r}: {exc.strerror or exc}") from exc
        nursery.start_soon(self._read)
        nursery.start_soon(self._write)
        nursery.start_soon(self._forward)
        self.adapter.begin()
        self._flush()
        try:
            await self._handshake()
        except BaseException:
            await self._kill()
            raise
        if self.adapter.name:
            self.name = self.adapter.name

    async def _handshake(self) -> None:
        adapter = self.adapter
        if isinstance(adapter, XboardAdapter):
            # Protocol-2 engines answer "feature ... done=1" at once; others never do.
            with trio.move_on_after(min(2.0, self.handshake_timeout)):
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
            if self._eof:
                raise EngineFailed("engine exited during the handshake")
            await self._changed.wait()
        if self._failure is not None:
            raise self._failure

    # -- the three tasks -----------------------------------------------------------------

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        buffer = b""
        try:
            while True:
                try:
                    chunk = await stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    chunk = b""
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                if len(buffer) > 65536:  # a line without end: keep reading, drop the excess
                    buffer = buffer[-4096:]
                for raw in lines:
                    self._line(raw.decode("utf-8", errors="replace").rstrip("\r"))
            if buffer:
                self._line(buffer.decode("utf-8", errors="replace"))
        finally:
            self._eof = True
            self._wake()
            self._events_out.close()

    def _line(self, line: str) -> None:
        if self.log is not None:
            self.log(f"{self.seat.bpgn} > {line[:300]}")
        try:
            self.adapter.receive(line)
        except EngineFailed as exc:
            self._failure = exc
        self._flush()
        self._wake()

    async def _write(self) -> None:
        assert self.process is not None and self.process.stdin is not None
        stdin = self.process.stdin
        async with self._lines_in:
            async for line in self._lines_in:
                if self.log is not None:
                    self.log(f"{self.seat.bpgn} < {line}")
                try:
                    await stdin.send_all((line + "\n").encode())
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    break
        with trio.CancelScope(shield=True):
            await stdin.aclose()

    async def _forward(self) -> None:
        async with self._events_in:
            async for event in self._events_in:
                action = self._action(event)
                if action is not None and self._actions is not None and not self._closing:
                    try:
                        await self._actions.send(action)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        return
        if not self._closing and self._actions is not None:
            code = self.process.returncode if self.process is not None else None
            await self._send_gone(
                f"engine exited (code {code})" if code is not None else "engine closed its output"
            )

    async def _send_gone(self, reason: str) -> None:
        assert self._actions is not None
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
            return TellAction(seat=seat, text=event.text)
        if isinstance(event, EngineInfo):
            return InfoAction(seat=seat, text=event.text)
        if isinstance(event, EngineNote) and self.log is not None:
            self.log(f"{seat.bpgn} : {event.text}")
        return None

    def _flush(self) -> None:
        lines, events = self.adapter.take()
        for line in lines:
            try:
                self._lines_out.send_nowait(line)
            except trio.ClosedResourceError:
                break
        for event in events:
            try:
                self._events_out.send_nowait(event)
            except trio.ClosedResourceError:
                break

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # -- the arbiter's calls -------------------------------------------------------------

    def _fen(self, state: TableState) -> str:
        return state.fens[self.seat.board]

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.adapter.new_game(info.rules, info.start_fens[self.seat.board], state.clocks)
        if info.start_fens[self.seat.board] != self._fen(state):
            self.adapter.reset_board(self._fen(state))
        self._flush()

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.adapter.your_turn(token, self._fen(state), state.clocks)
        self._flush()

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self.adapter.moved(played, self._fen(state), state.clocks)
        self._flush()

    async def partner_says(self, seat: Seat, text: str) -> None:
        self.adapter.partner_says(text)
        self._flush()

    async def game_over(self, outcome: Outcome) -> None:
        self.adapter.game_over()
        self._flush()

    # -- closing -------------------------------------------------------------------------

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._closing = True
        if self.process is None:
            return
        if self.process.returncode is None and not self._eof:
            self.adapter.quit()
            self._flush()
        self._lines_out.close()
        with trio.CancelScope(shield=True):
            with trio.move_on_after(QUIT_GRACE):
                await self.process.wait()
            await self._kill()

    async def _kill(self) -> None:
        """SIGTERM, then SIGKILL, to the engine's own process group, by pid."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with trio.CancelScope(shield=True):
            for sig, grace in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                with trio.move_on_after(grace):
                    await process.wait()
                if process.returncode is not None:
                    break
        self._lines_out.close()
