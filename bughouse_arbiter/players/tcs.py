"""An engine written for tinyChessServer (LazyBug, TandemTurtle, BughouseAlphaZero) at one seat.

It speaks the server's CECP dialect (``adapters/tcs.py``) over its standard
input and output, or, when its command has the ``{ws}`` placeholder, as a
WebSocket client of an endpoint served here for its seat
(``websocket_engine.py``). Its process is an ``EngineProcess`` either way:
own session, quit -> grace -> SIGTERM -> SIGKILL to its process group.
"""

from __future__ import annotations

from collections.abc import Sequence

import trio

from ..adapters.tcs import PLACE_QUERY, TcsAdapter
from ..core.game import PlayedMove
from ..core.model import Outcome
from ..errors import EngineFailed
from .base import MatchInfo, TableState
from .external import ExternalEnginePlayer
from .process import EngineProcess, Log
from .websocket_engine import WebSocketEngine, wants_websocket

#: Seconds a WebSocket engine has after a game to drop its connection (TandemTurtle
#: restarts itself after every game); if it does, the next game waits for it to
#: come back and say its features.
SETTLE = 0.5


class TcsPlayer(ExternalEnginePlayer):
    """Runs ``command`` and speaks tinyChessServer's dialect to it through ``TcsAdapter``."""

    protocol = "tcs"
    adapter_class = TcsAdapter

    #: A game was begun on this process (the next may have to wait for it).
    _played = False

    @property
    def tcs(self) -> TcsAdapter:
        adapter = self.adapter
        assert isinstance(adapter, TcsAdapter)
        return adapter

    def make_engine(
        self, command: Sequence[str], cwd: str | None, log: Log | None
    ) -> EngineProcess:
        if not wants_websocket(command):
            return super().make_engine(command, cwd, log)
        engine = WebSocketEngine(
            command,
            query=PLACE_QUERY[self.seat],
            cwd=cwd,
            label=self.seat.bpgn,
            log=log,
            keep=TcsAdapter.KEEP,
        )
        engine.on_reconnect = self._reconnected
        return engine

    def _reconnected(self) -> None:
        # A new connection is a new client to the server: greet it again.
        self.adapter.begin()
        self._flush()

    async def _handshake(self) -> None:
        adapter = self.adapter
        with trio.move_on_after(self.handshake_timeout) as scope:
            await self._until(lambda: adapter.handshake_done)
        if scope.cancelled_caught:
            where = (
                "no WebSocket connection and no 'feature' line"
                if isinstance(self.engine, WebSocketEngine) and not self.engine.connections
                else "no 'feature' line"
            )
            raise EngineFailed(f"{where} within {self.handshake_timeout:g} s")

    async def _come_back(self) -> None:
        """After a game, a WebSocket engine that drops its connection is waited for.

        Raises:
            EngineFailed: it did not connect again and say its features in time.
        """
        engine = self.engine
        if not isinstance(engine, WebSocketEngine):
            return
        with trio.move_on_after(SETTLE):
            while engine.connected:
                await engine.connection_changed()
        if engine.connected and not self.tcs.negotiating:
            return
        with trio.move_on_after(self.handshake_timeout):
            await self._until(lambda: engine.connected and not self.tcs.negotiating)
        if not engine.connected or self.tcs.negotiating:
            raise EngineFailed(
                f"its WebSocket did not come back within {self.handshake_timeout:g} s"
            )

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        if self._played:
            await self._come_back()
        self._played = True
        self.tells.new_game()
        self._turn_written.clear()
        board = self.seat.board
        self.tcs.new_game(
            info.rules,
            info.start_fens[board],
            state.clocks,
            info.opening,
            state.fens[board],
            other_fen=info.start_fens[board.other],
        )
        self._flush()

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        board = self.seat.board
        if played.board is board:
            self.tells.turn_over()
        self.tcs.moved(played, state.fens[board], state.clocks, other_fen=state.fens[board.other])
        self._flush()

    async def game_over(self, outcome: Outcome) -> None:
        if (summary := self.tells.summary()) is not None:
            self._note(summary)
        self.tcs.game_over(outcome)
        self._flush()
