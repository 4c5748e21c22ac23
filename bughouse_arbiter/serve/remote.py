"""A seat played over the network: the same native player, another transport.

``RemoteSeat`` is a ``LineTransport`` (players/transport.py) whose other end
is whichever ``SeatLink`` holds the seat now. ``RemoteEnginePlayer`` is a
``NativeEnginePlayer`` over it, so every protocol rule, bound and log line is
exactly as for a subprocess engine. What the network adds:

- **Reconnects.** When the link drops during a game the seat waits
  ``reconnect_grace`` seconds (its clock keeps running; lines for it are
  dropped). A link that comes back with the seat's token is greeted like a
  new engine (``bug 1`` ... ``bugok``) and then told the whole game again:
  ``newgame``, ``player`` lines, ``rules``, the latest ``state`` (the running
  clocks run down to the moment of the greeting), and a fresh
  ``go`` (new turn number) for a turn still open.
- **Leavers.** When the grace runs out: ``leaver=lose`` ends the seat (the
  player reports ``Gone`` and its team loses, "left");
  ``leaver=computer`` starts the replacement engine (the searcher) on the
  same transport, greets it the same way, and it plays on;
  ``replaced_by`` names it for the record.
- **Several games.** A remote player stays connected between the games of
  one ``serve`` run: ``start`` greets it only the first time, ``aclose``
  after a game only ends that game's action channel, and ``shutdown`` says
  ``quit``. As seats rotate, ``serve`` moves the player (``reseat``) before
  each game; its ``newgame`` (and the one a newcomer is told) names that
  game's seat. The ``RemoteSeat`` stays the token's seat (``seat``, and the
  ``label`` of its log lines).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager

import attrs
import trio

from ..core.game import PlayedMove
from ..core.model import Outcome, Seat
from ..errors import EngineFailed
from ..players.base import Action, MatchInfo, TableState
from ..players.native import NativeEnginePlayer
from ..players.process import EngineProcess, LineSink, Log
from ..protocol import (
    COMMANDS_ALLOWED,
    MAX_LINE,
    BestMove,
    Bug,
    Command,
    EngineSession,
    Event,
    SessionState,
    SetOption,
)
from .seam import SeatLink

LEAVER_RULES = ("lose", "computer")


class RemoteSeat:
    """The transport of one remote seat (see the module docstring)."""

    def __init__(
        self,
        seat: Seat,
        *,
        grace: float,
        leaver: str = "lose",
        replacement: Callable[[], EngineProcess] | None = None,
        log: Log | None = None,
    ) -> None:
        self.seat = seat
        self.label = seat.bpgn
        self.grace = grace
        self.leaver = leaver
        self.replacement = replacement
        self.log = log
        #: Called (synchronously) when a new other end needs greeting: a reconnect or a replacement.
        self.on_rejoin: Callable[[], None] | None = None
        #: True while a game is on (disconnects then start the grace period).
        self.in_game = False
        #: The name of the engine that took over the seat (``leaver=computer``).
        self.replaced_by: str | None = None
        #: Called (synchronously) with that name once the engine has the seat.
        self.on_replaced: Callable[[str], None] | None = None
        #: How many times a link came back.
        self.reconnects = 0
        #: The last link that held the seat said a person plays (kept after it drops).
        self.was_human = False
        self._link: SeatLink | None = None
        self._engine: EngineProcess | None = None
        self._on_lines: LineSink | None = None
        self._nursery: trio.Nursery | None = None
        self._ever_attached = False
        self._changed = trio.Event()
        self._link_gone = trio.Event()
        self._ended = trio.Event()
        self._end_reason = "left"
        self._closing = False
        self._closed = trio.Event()

    # -- facts ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._link is not None

    @property
    def lost(self) -> bool:
        """No link may take the seat any more: it ended, or a computer holds it."""
        return self._ended.is_set() or self._closing or self._engine is not None

    @property
    def human(self) -> bool:
        """True while the link holding the seat said a person plays."""
        return getattr(self._link, "human", False) is True

    @property
    def lag(self) -> float | None:
        """The link's last measured round-trip in seconds, if it measures one."""
        value = getattr(self._link, "lag", None)
        return value if isinstance(value, float) else None

    async def wait_ready(self) -> None:
        """Returns once someone holds the seat (a link or the replacement), or it ended."""
        while self._link is None and self._engine is None and not self._ended.is_set():
            await self._changed.wait()

    # -- LineTransport -------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, *, on_lines: LineSink | None = None) -> None:
        self._nursery = nursery
        self._on_lines = on_lines

    def send(self, line: str) -> None:
        if self._engine is not None:
            self._engine.send(line)
        elif self._link is not None:
            self._link.send(line)

    def send_data(self, data: bytes) -> None:
        for line in data.decode(errors="replace").splitlines():
            self.send(line)

    def batched(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # each line goes out as it is sent

    async def wait_eof(self) -> None:
        await self._ended.wait()

    async def describe_end(self, timeout: float) -> str:
        return self._end_reason

    async def aclose(
        self, quit_line: str | None = "quit", *, grace: float = 1.0, term_grace: float = 1.0
    ) -> None:
        if self._closing:
            with trio.CancelScope(shield=True):
                await self._closed.wait()
            return
        self._closing = True
        self._wake()
        try:
            with trio.CancelScope(shield=True):
                if self._engine is not None:
                    await self._engine.aclose(quit_line, grace=grace, term_grace=term_grace)
                link = self._link
                if link is not None:
                    if quit_line is not None:
                        link.send(quit_line)
                    with trio.move_on_after(grace):
                        await self._link_gone.wait()
                    await link.aclose()
        finally:
            self._end("closed")
            self._closed.set()

    # -- the seam's side --------------------------------------------------------------------

    async def attach(self, link: SeatLink) -> None:
        """Carries ``link``'s lines to the seat's player until it ends (see ``seam``)."""
        if self.lost or self._link is not None:
            link.send(
                "auth refused seat taken" if self._link is not None else "auth refused token used"
            )
            return
        rejoin = self._ever_attached
        self._ever_attached = True
        self._link = link
        self.was_human = getattr(link, "human", False) is True
        self._link_gone = trio.Event()
        self._wake()
        if rejoin:
            self.reconnects += 1
            self._note(f"{link.peer} came back")
            if self.on_rejoin is not None:
                self.on_rejoin()
        try:
            while (line := await link.receive()) is not None:
                if self._on_lines is not None and self._engine is None:
                    self._on_lines([line], trio.current_time())
        finally:
            self._link = None
            self._link_gone.set()
            self._wake()
            await link.aclose()
            if not self._closing and not self._ended.is_set():
                self._note(f"{link.peer} dropped the connection")
                if self.in_game and self._nursery is not None:
                    self._nursery.start_soon(self._grace_period)

    async def _grace_period(self) -> None:
        with trio.move_on_after(self.grace):
            while self._link is None:
                if self._closing or self._ended.is_set():
                    return
                await self._changed.wait()
            return
        if self._closing or self._ended.is_set() or not self.in_game:
            return
        why = f"did not come back within {self.grace:g} s"
        if self.leaver == "computer" and self.replacement is not None:
            await self._replace(why)
        else:
            self._note(f"left: {why}")
            self._end(f"left the table ({why})")

    async def _replace(self, why: str) -> None:
        assert self.replacement is not None and self._nursery is not None
        engine = self.replacement()
        try:
            await engine.start(self._nursery, on_lines=self._on_lines)
        except EngineFailed as exc:
            self._end(f"left the table ({why}; the replacement failed: {exc})")
            return
        self._engine = engine
        self.replaced_by = engine.label
        self._note(f"{why}: {engine.label} takes the seat")
        self._wake()
        if self.on_replaced is not None:
            self.on_replaced(engine.label)
        self._nursery.start_soon(self._watch_engine, engine)
        if self.on_rejoin is not None:
            self.on_rejoin()

    async def _watch_engine(self, engine: EngineProcess) -> None:
        await engine.wait_eof()
        if not self._closing:
            self._end(f"its replacement {await engine.describe_end(0.5)}")

    def _end(self, reason: str) -> None:
        if not self._ended.is_set():
            self._end_reason = reason
            self._ended.set()
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log(f"{self.label} : {text}")


class RemoteEnginePlayer(NativeEnginePlayer):
    """A ``NativeEnginePlayer`` over a ``RemoteSeat`` that survives reconnects and games."""

    def __init__(
        self,
        remote: RemoteSeat,
        home: trio.Nursery,
        *,
        name: str = "remote",
        handshake_timeout: float = 10.0,
        log: Log | None = None,
        max_line: int = MAX_LINE,
    ) -> None:
        super().__init__(
            remote.seat,
            [],
            name=name,
            handshake_timeout=handshake_timeout,
            log=log,
            max_line=max_line,
            transport=remote,
        )
        self.remote = remote
        self._home = home  # outlives each game's nursery
        self._max_line = max_line
        self._started = False
        self._rejoining = False
        self._info: MatchInfo | None = None
        self._latest: TableState | None = None
        self._latest_at = 0.0  # trio time of that snapshot
        #: Per seat, the round-trip measured when its last move arrived (seconds).
        self.move_lag: dict[Seat, float | None] = {}

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        if not self._started:
            self._started = True
            self.remote.on_rejoin = self._schedule_rejoin
            await super().start(self._home, actions)
            return
        if self.remote.lost and self.remote.replaced_by is None:
            raise EngineFailed(f"the seat is empty: {await self.remote.describe_end(0)}")
        self._actions = actions
        self._actions_done = False
        self._outbox.clear()
        self._home.start_soon(self._forward)

    async def aclose(self) -> None:
        """Ends this game's action channel; the seat stays (``shutdown`` ends it)."""
        self._close_actions()
        self.remote.in_game = False

    async def shutdown(self) -> None:
        """Says ``quit`` and closes the seat for good."""
        await self._stop()

    def _who(self) -> str:
        # A person at the console or a page leaves as a person, not as an engine.
        if self.remote.was_human and self.remote.replaced_by is None:
            return "the person"
        return "the engine"

    # -- remember what a newcomer must be told --------------------------------------------

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        with trio.move_on_after(self.handshake_timeout):
            while self._rejoining:  # a client that came back between games is being greeted
                await self._next_change()
        self._info, self._latest, self._latest_at = info, state, trio.current_time()
        self.remote.in_game = True
        await super().new_game(info, state)

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self._latest, self._latest_at = state, trio.current_time()
        await super().your_turn(seat, token, state)

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self._latest, self._latest_at = state, trio.current_time()
        await super().moved(played, state)

    async def game_over(self, outcome: Outcome) -> None:
        await super().game_over(outcome)
        self.remote.in_game = False

    def _send(self, command: Command, data: bytes | None = None) -> None:
        if self._rejoining and command.KEYWORD not in COMMANDS_ALLOWED[self.session.state]:
            return  # the newcomer is still being greeted; it will get the whole state
        super()._send(command, data)

    def _handle(self, event: Event) -> None:
        if isinstance(event, BestMove) and event.token in self._turns:
            seat = self._turns[event.token][0]
            self.move_lag[seat] = self.remote.lag
        super()._handle(event)

    # -- a newcomer at the seat -----------------------------------------------------------

    def _schedule_rejoin(self) -> None:
        self._home.start_soon(self._rejoin_guarded)

    async def _rejoin_guarded(self) -> None:
        # A newcomer must never bring the server down: a failed greeting is
        # logged, and the seat stays as empty as it was.
        try:
            await self._rejoin()
        except Exception as exc:
            self._note(f"greeting the newcomer failed ({type(exc).__name__}: {exc})")

    async def _rejoin(self) -> None:
        self._rejoining = True
        try:
            self.session = EngineSession(max_line=self._max_line)
            self._last_state = None
            self._send(Bug())
            try:
                with trio.move_on_after(self.handshake_timeout) as scope:
                    await self._until(lambda: self.session.state is SessionState.READY)
            except EngineFailed as exc:
                self._note(f"greeting the newcomer failed: {exc}")
                return
            if scope.cancelled_caught:
                self._note(f"the newcomer sent no 'bugok' within {self.handshake_timeout:g} s")
                return
            for option, value in self.options.items():
                self._send(SetOption(option, value))
            if self._playing and self._info is not None and self._latest is not None:
                now = self._state_now(self._info, self._latest)
                self._announce_game(self._info, now)
                reopen = [self._turns.pop(wire) for wire in self._open_by_seat.values()]
                self._open_by_seat.clear()
                self._rejoining = False
                for seat, token in reopen:
                    await self.your_turn(seat, token, now)
        finally:
            self._rejoining = False
            self._wake()

    def _state_now(self, info: MatchInfo, state: TableState) -> TableState:
        """The last snapshot with the running clocks (side to move per board) run down to now."""
        elapsed = trio.current_time() - self._latest_at
        if not info.rules.clock or elapsed <= 0:
            return state
        clocks = dict(state.clocks)
        for board, fen in state.fens.items():
            fields = fen.split()
            seat = Seat.of(board, len(fields) < 2 or fields[1] == "w")
            clocks[seat] = max(0.0, clocks[seat] - elapsed)
        return attrs.evolve(state, clocks=clocks)


def taken_over(name: str, engine: str) -> str:
    """How the record and the pages name a seat ``engine`` took over from ``name``."""
    return f"{name} / {engine}"


def names_now(
    names: Mapping[Seat, str], playing: Mapping[Seat, RemoteEnginePlayer]
) -> dict[Seat, str]:
    """``names`` with each seat an engine took over named as the record names it."""
    shown = dict(names)
    for seat, player in playing.items():
        if player.remote.replaced_by is not None:
            shown[seat] = taken_over(shown.get(seat, player.name), player.remote.replaced_by)
    return shown
