"""A native engine (protocol.md, BUG/1) at one seat, or at both seats of a team.

The arbiter never waits on the engine, and an answer reaches the arbiter in
one task switch: the process's reader task (``EngineProcess``) hands every
read's lines straight to ``_on_lines``, which feeds them to the
``EngineSession`` and puts the resulting actions into the arbiter's channel
with ``send_nowait``, each stamped with the trio time its line was read
(``arrived_at``), so the arbiter charges the engine's clock up to that
instant and not for the time the action took to reach it.

Buffering: the reader never blocks. The arbiter's own channel is unbounded,
so actions normally go straight in. If the channel given to ``start`` has no
room, actions wait in this player's outbox (order kept) and a forwarder task
hands them on. The engine's output cannot flood the arbiter: it is read
within the engine's read budget (``protocol.flood``: past it only the lines
that can matter are read), search ``info`` is coalesced (below), and past
``MAX_PENDING`` actions waiting for the arbiter, further ``tell``, ``info``
and ``draw`` lines are dropped (counted in ``ignored`` and logged); moves,
waits, resignations and ``Gone`` always go.

What happens to engine lines (protocol.md §9): answers to open turns become
``MoveAction``/``WaitAction`` with the arbiter's token; stale, unknown,
malformed and over-long lines are logged and ignored; only the last ``info``
before a move is forwarded (as ``InfoAction``, just before the move), so a
flood of search output never floods the arbiter. The end of the engine's
output before ``aclose`` becomes one ``Gone`` with the exit status.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import TypeVar

import trio

from ..adapters.declared import native_declared, refuse_option
from ..config.specs import NO_LIMITS, SearchLimits
from ..core.game import BoardResult, PlayedMove
from ..core.model import SEATS, BoardId, Outcome, Result, Seat
from ..errors import EngineFailed
from ..protocol import (
    COMMANDS_ALLOWED,
    MAX_LINE,
    BestMove,
    BoardOver,
    Bug,
    Command,
    Draw,
    EngineError,
    EngineSession,
    Event,
    GameOver,
    Go,
    Ignored,
    Info,
    IsReady,
    LocalProtocolError,
    Marker,
    MoveEvent,
    NewGame,
    PartnerTell,
    PlayerInfo,
    Quit,
    RawLine,
    ReadyOk,
    Refused,
    RelayedDrawOffer,
    Resign,
    RulesInfo,
    SessionState,
    SetOption,
    State,
    Tell,
    Wait,
    clocks_ms,
    encode_command,
)
from ..protocol.flood import NATIVE_KEEP
from ..protocol.limits import NAME_LIMIT, TELL_LIMIT, TellQuota, engine_text
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
from .process import EXIT_WAIT, QUIT_GRACE, TERM_GRACE, EngineProcess, Log
from .transport import LineTransport

_C = TypeVar("_C", bound=Command)  # a command shared through TableState.shared

#: Ignored lines logged one by one before only every ``IGNORED_EVERY``-th is.
IGNORED_LOGGED = 100
IGNORED_EVERY = 1000
#: Actions waiting for the arbiter beyond which chatter (tell, info, draw) is dropped.
MAX_PENDING = 1000
_GAME_ID = re.compile(r"[^A-Za-z0-9._:-]")


class NativeEnginePlayer(Player):
    """An engine program speaking protocol.md, seen by the arbiter as any other player."""

    protocol = "native"
    # A waiting engine gets a fresh state + go when a piece reaches it (protocol.md §5.8).
    refresh_waiting_turn = True
    prompt = True  # every call only queues lines (``_send``)

    def __init__(
        self,
        seat: Seat | Sequence[Seat],
        command: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
        handshake_timeout: float = 10.0,
        ready_timeout: float = 10.0,
        quit_grace: float = QUIT_GRACE,
        term_grace: float = TERM_GRACE,
        log: Log | None = None,
        max_line: int = MAX_LINE,
        transport: LineTransport | None = None,
    ) -> None:
        self.seats = (seat,) if isinstance(seat, Seat) else tuple(seat)
        if not 1 <= len(self.seats) <= 2:
            raise ValueError("a native engine holds one seat, or two in team mode")
        if len(self.seats) == 2 and self.seats[0].team is not self.seats[1].team:
            raise ValueError("team mode needs the two seats of one team")
        self.seat = self.seats[0]
        self.command = [str(part) for part in command]
        given = name or (os.path.basename(self.command[0]) if self.command else "engine")
        self.name = engine_text(given, NAME_LIMIT) or "engine"
        self.options = dict(options or {})
        self.init = tuple(init)
        # Per-move bounds sent with every go (with the clocks, or instead of them untimed).
        self.limits = limits
        self._untimed = False
        self.handshake_timeout = handshake_timeout
        self.ready_timeout = ready_timeout
        self.quit_grace = quit_grace
        self.term_grace = term_grace
        self.log = log
        self.label = "+".join(s.bpgn for s in self.seats)
        self.session = EngineSession(max_line=max_line)
        #: Where the lines go: the engine's pipes, unless another transport is given.
        self.process: LineTransport = transport or EngineProcess(
            self.command,
            cwd=cwd,
            env=env,
            label=self.label,
            log=log,
            max_line=max_line,
            keep=NATIVE_KEEP,
        )
        if isinstance(self.process, EngineProcess) and self.process.keep is None:
            self.process.keep = NATIVE_KEEP  # past its read budget, only these are read
        # Looked up once: only some transports can say when a line reached the engine.
        self._when_written: Callable[[Callable[[float], None]], None] | None = getattr(
            self.process, "when_written", None
        )
        #: Engine lines ignored during games (unknown, malformed, stale...).
        self.ignored = 0
        self._ignored_logged = 0
        self._dropped = 0  # chatter dropped because the arbiter was behind
        self._turns: dict[int, tuple[Seat, int]] = {}  # wire token -> (seat, arbiter token)
        self._open_by_seat: dict[Seat, int] = {}  # seat -> wire token
        self._answered: dict[Seat, tuple[int, int]] = {}  # seat -> last (wire, arbiter) token
        self._next_token = 0
        self._last_info: dict[Seat, str] = {}
        self._readyoks = 0
        #: Partner messages this engine may still send (protocol.md §6.6).
        self.tells = TellQuota()
        self._changed = trio.Event()
        self._waiting = 0  # tasks in _until, waiting for _changed
        self._eof = False
        self._playing = False
        self._closing = False
        self._arrived_at: float | None = None  # when the lines being handled were read
        self._read_lag = 0.0  # how long they may have waited for the loop (``latency``)
        # The last state sent, while no event has followed it: a go then needs no new one.
        self._last_state: State | None = None
        self._actions: trio.MemorySendChannel[Action] | None = None
        self._outbox: deque[Action] = deque()  # waits here only when the channel is full
        self._outbox_kick = trio.Event()
        self._actions_done = False
        # When each seat's turn (by arbiter token) reached the engine's pipe, and
        # how long the harness may have kept its last answer waiting.
        self._turn_written: dict[tuple[Seat, int], float] = {}
        self._answer_lag: dict[Seat, float] = {}

    # -- start -----------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        """Runs the program and does the handshake (``bug 1`` ... ``bugok``), options, ``isready``.

        Raises ``EngineFailed`` with the reason if any of it fails; the process
        is then already stopped.
        """
        self._actions = actions
        await self.process.start(nursery, on_lines=self._on_lines)
        nursery.start_soon(self._watch_end)
        nursery.start_soon(self._forward)
        try:
            self._send(Bug())
            with trio.move_on_after(self.handshake_timeout) as scope:
                await self._until(lambda: self.session.state is SessionState.READY)
            if scope.cancelled_caught:
                raise EngineFailed(f"no 'bugok' within {self.handshake_timeout:g} s")
            if len(self.seats) == 2 and not self.session.supports_team:
                raise EngineFailed(
                    "it did not announce 'feature team', so it cannot hold two seats"
                )
            declared = {n: native_declared(spec) for n, spec in self.session.options.items()}
            for option, value in self.options.items():
                refuse_option(option, value, declared)
            for option, value in self.options.items():
                self._send(SetOption(option, value))
            for line in self.init:
                if "\n" in line or "\r" in line:
                    raise EngineFailed(f"init line {line!r} has a line break")
                self.process.send(line)
            if self.options or self.init:
                await self._barrier()
        except BaseException:
            await self._stop()
            raise
        if self.session.name:
            self.name = self.session.name

    async def set_option(self, name: str, value: str | None) -> None:
        """``setoption`` between games, then an ``isready`` barrier.

        Raises:
            EngineFailed: no ``readyok`` in time, or the engine left.
        """
        self._send(SetOption(name, value))
        await self._barrier()

    async def _barrier(self) -> None:
        """``isready`` and wait for its ``readyok``."""
        wanted = self._readyoks + 1
        self._send(IsReady())
        with trio.move_on_after(self.ready_timeout) as scope:
            await self._until(lambda: self._readyoks >= wanted)
        if scope.cancelled_caught:
            raise EngineFailed(f"no 'readyok' within {self.ready_timeout:g} s")

    async def ping(self, timeout: float) -> bool:
        """``isready``: True if its ``readyok`` comes within ``timeout`` seconds."""
        if self._closing or self._eof:
            return False
        wanted = self._readyoks + 1
        try:
            self._send(IsReady())
            with trio.move_on_after(timeout):
                await self._until(lambda: self._readyoks >= wanted)
        except EngineFailed:
            return False
        return self._readyoks >= wanted

    async def _until(self, done: Callable[[], bool]) -> None:
        while not done():
            if self._eof:
                raise EngineFailed(f"the engine {await self.process.describe_end(EXIT_WAIT)}")
            await self._next_change()

    async def _next_change(self) -> None:
        """Waits for the next read (``_wake`` sets the event only while someone waits)."""
        self._waiting += 1
        try:
            await self._changed.wait()
        finally:
            self._waiting -= 1

    # -- the arbiter's calls -------------------------------------------------------------

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self._turns.clear()
        self._turn_written.clear()
        self._answer_lag.clear()
        self._open_by_seat.clear()
        self._answered.clear()
        self._last_info.clear()
        self.tells.new_game()
        self._announce_game(info, state)
        self._playing = True
        await self._barrier()

    def _announce_game(self, info: MatchInfo, state: TableState) -> None:
        """``newgame``, the four ``player`` lines, ``rules``, a book's moves and the ``state``."""
        self._last_state = None
        rules = info.rules
        self._untimed = not rules.clock
        self._send(
            NewGame(
                game_id=_GAME_ID.sub("_", info.game_id) or "game",
                seats=self.seats,
                time_ms=0 if self._untimed else round(rules.time * 1000),
                inc_ms=0 if self._untimed else round(rules.increment * 1000),
            )
        )
        for seat in SEATS:
            human = seat in info.human_seats
            self._send(PlayerInfo(seat, "human" if human else "engine", info.names.get(seat, "?")))
        self._send(RulesInfo(tuple(rules.to_pairs())))
        if info.opening:
            self._send_opening(info, state)
        self._send_state(state)

    def _send_opening(self, info: MatchInfo, state: TableState) -> None:
        """A book's moves as they would have come: the ``state`` of the start
        (version 0), then one ``event`` a move, all at the full clocks."""
        clocks = _clocks(state)
        self._send(
            State(
                version=0,
                fen_a=info.start_fens[BoardId.A],
                fen_b=info.start_fens[BoardId.B],
                clocks=clocks,
                no_double=None if state.no_double is None else ((), ()),
            )
        )
        for played in info.opening:
            passed = played.passed.symbol() if played.passed is not None else None
            self._send(
                MoveEvent(
                    version=played.ply,
                    board=played.board,
                    move=played.uci,
                    passed=passed,
                    clocks=clocks,
                )
            )

    def batched(self) -> AbstractContextManager[None]:
        return self.process.batched()

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        old = self._open_by_seat.pop(seat, None)
        if old is not None:  # a new turn replaces one the arbiter took back
            self._turns.pop(old, None)
            self.session.close_turn(old)
        self._next_token += 1
        wire = self._next_token
        self._turns[wire] = (seat, token)
        self._open_by_seat[seat] = wire
        self._send_state(state)
        left = state.turn_left.get(seat)
        limit = None if left is None else (int(left * 1000) if left > 0 else 0)
        limits = self.limits.for_play(not self._untimed)
        self._send(
            Go(
                version=state.version,
                token=wire,
                board=seat.board,
                limit=limit,
                movetime=limits.movetime,
                depth=limits.depth,
                nodes=limits.nodes,
            )
        )
        self._answer_lag.pop(seat, None)
        if self._when_written is not None:
            self._when_written(partial(self._turn_reached, seat, token))

    def _turn_reached(self, seat: Seat, token: int, at: float) -> None:
        self._turn_written.setdefault((seat, token), at)

    def turn_reached(self, seat: Seat, token: int) -> float | None:
        return self._turn_written.get((seat, token))

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        if self._when_written is None:
            return None
        reached = self._turn_written.pop((seat, token), ended_at)  # never sent: all of it
        for key in [key for key in self._turn_written if key[0] is seat]:
            del self._turn_written[key]  # the turn's refreshes
        # Comparisons: min() and max() run 3.11's generic argument parser on every call.
        before = reached if reached < ended_at else ended_at
        before = before - opened_at if before > opened_at else 0.0
        return before + self._answer_lag.pop(seat, 0.0)

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        if played.board is self.seat.board:
            self.tells.turn_over()
        self._last_state = None
        shared: tuple[MoveEvent, bytes] | None = state.shared.get(_EVENT)
        self._send(*(shared or _share(state, _EVENT, _event(played, state))))

    async def partner_says(self, seat: Seat, text: str) -> None:
        if len(self.seats) == 1:
            self._send(PartnerTell(text[:TELL_LIMIT]))

    async def draw_offered(self, by: Seat) -> None:
        if by not in self.seats:
            self._send(RelayedDrawOffer(by))

    async def move_refused(self, seat: Seat, token: int, move: str, reason: str) -> None:
        """Says ``illegal`` for the answered turn; call it before the next ``your_turn``."""
        answered = self._answered.get(seat)
        if answered is not None and answered[1] == token:
            words = move.split()
            self._send(Refused(token=answered[0], move=words[0] if words else "-", reason=reason))

    async def board_ended(self, result: BoardResult) -> None:
        self._send(
            BoardOver(
                board=result.board,
                result=Result.won_by(result.winner),
                reason=result.termination,
                seat=result.seat,
                text=result.reason,
            )
        )

    async def game_over(self, outcome: Outcome) -> None:
        if (summary := self.tells.summary()) is not None:
            self._note(summary)
        self._playing = False
        self._turns.clear()
        self._open_by_seat.clear()
        if self.session.state is not SessionState.PLAYING:
            return  # the match ended before it began for this engine
        self._send(
            GameOver(
                result=outcome.result,
                reason=outcome.termination,
                board=outcome.board,
                seat=outcome.seat,
                text=outcome.reason,
            )
        )

    async def aclose(self) -> None:
        await self._stop()

    def can_play_again(self) -> bool:
        return (
            not (self._eof or self._closing or self._actions_done)
            and self.session.state is SessionState.READY
        )

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        if len(seats) != len(self.seats) or (
            len(seats) == 2 and seats[0].team is not seats[1].team
        ):
            raise ValueError(f"cannot move a player holding {self.label} to {seats}")
        self.seats = tuple(seats)
        self.seat = self.seats[0]

    async def _stop(self) -> None:
        if self._closing:
            await self.process.aclose(None)  # waits for the first call to finish
            return
        self._closing = True
        self._close_actions()
        quit_line = None
        if "quit" in COMMANDS_ALLOWED[self.session.state]:
            quit_line = self.session.send(Quit()).decode().rstrip("\n")
        await self.process.aclose(quit_line, grace=self.quit_grace, term_grace=self.term_grace)

    # -- lines out ---------------------------------------------------------------------

    def _send_state(self, state: TableState) -> None:
        """Sends ``state`` unless the engine's last one says exactly the same."""
        shared: tuple[State, bytes] | None = state.shared.get(_STATE)
        command, data = shared or _share(state, _STATE, _state(state))
        if command != self._last_state:
            self._send(command, data)
            self._last_state = command

    def _send(self, command: Command, data: bytes | None = None) -> None:
        """Queues one command; never blocks (the process's writer sends it).

        ``data``: the command already encoded (``encode_command``).
        """
        if self._closing or self._eof:
            return
        try:
            data = self.session.send(command, data)
        except (LocalProtocolError, ValueError) as exc:
            raise EngineFailed(f"cannot send {command.KEYWORD!r} now: {exc}") from exc
        self.process.send_data(data)

    # -- lines in ----------------------------------------------------------------------

    def _on_lines(self, lines: list[RawLine], arrived_at: float) -> None:
        """The reader's hand-off: one read's lines, read at ``arrived_at``."""
        self._arrived_at = arrived_at
        self._read_lag = read_lag(arrived_at)
        for line in lines:
            self.session.receive_line(line)
            self._drain_session()
        self._arrived_at = None
        self._wake()

    def _who(self) -> str:
        """Who plays the seat, as the reason of its leaving names them."""
        return "the engine"

    async def _watch_end(self) -> None:
        await self.process.wait_eof()
        self.session.receive_eof()
        self._drain_session()
        self._eof = True
        self._wake()
        if self._closing:
            return
        reason = f"{self._who()} {await self.process.describe_end(EXIT_WAIT)}"
        self._note(reason)
        if self._playing:
            self._post(Gone(seat=self.seat, reason=reason))
        self._close_actions()

    def _drain_session(self) -> None:
        while True:
            event = self.session.next_event()
            if isinstance(event, Marker):
                return
            self._handle(event)

    def _handle(self, event: Event) -> None:
        match event:
            case Ignored(line=line, reason=reason):
                # Counted only in a game: a banner, or a late answer after game
                # over, is normal. Logged either way, at a limited rate.
                self.ignored += self._playing
                self._ignored_logged += 1
                seen = self._ignored_logged
                if seen <= IGNORED_LOGGED or seen % IGNORED_EVERY == 0:
                    self._note(f"ignored ({reason}; {seen} so far): {line}")
            case BestMove(move=move, token=wire):
                if wire not in self._turns:  # the turn was taken back meanwhile
                    return
                seat, token = self._turns.pop(wire)
                self._open_by_seat.pop(seat, None)
                self._answered[seat] = (wire, token)
                self._answer_lag[seat] = self._read_lag
                at = self._arrived_at
                info = self._last_info.pop(seat, None)
                if info is not None:  # just before its move, which the record pairs it with
                    self._post(InfoAction(seat=seat, text=info, arrived_at=at), chatter=True)
                self._post(MoveAction(seat=seat, token=token, move=move, arrived_at=at))
            case Wait(token=wire, reason=reason):
                if wire not in self._turns:
                    return
                seat, token = self._turns[wire]
                at = self._arrived_at
                self._post(WaitAction(seat=seat, token=token, reason=reason, arrived_at=at))
            case Resign(board=board):
                self._post(ResignAction(seat=self._seat_on(board), arrived_at=self._arrived_at))
            case Draw(board=board):
                offer = DrawOfferAction(seat=self._seat_on(board), arrived_at=self._arrived_at)
                self._post(offer, chatter=True)
            case Tell(text=text):
                allowed, note = self.tells.allow()
                if note is not None:
                    self._note(note)
                if not allowed:
                    self.ignored += 1
                    return
                self._post(
                    TellAction(seat=self.seat, text=text, arrived_at=self._arrived_at), chatter=True
                )
            case Info(text=text, board=board):
                self._last_info[self._seat_on(board)] = text
            case EngineError(text=text):
                self._note(f"engine error: {text}")
            case ReadyOk():
                self._readyoks += 1

    def _seat_on(self, board: BoardId | None) -> Seat:
        if board is not None:
            seat = self.session.seat_on(board)
            if seat is not None:
                return seat
        return self.seat

    def _post(self, action: Action, *, chatter: bool = False) -> None:
        """Hands ``action`` to the arbiter without waiting (see the module docstring)."""
        actions = self._actions
        if actions is None or self._actions_done:
            return
        if chatter:  # only chatter is counted against MAX_PENDING (moves always go)
            try:
                waiting = len(self._outbox) + actions.statistics().current_buffer_used
            except trio.ClosedResourceError:
                return
        if chatter and waiting >= MAX_PENDING:
            self.ignored += 1
            self._dropped += 1
            dropped = self._dropped
            if dropped <= IGNORED_LOGGED or dropped % IGNORED_EVERY == 0:
                self._note(f"dropped ({waiting} actions wait; {dropped} so far): {action}")
            return
        if not self._outbox:
            try:
                actions.send_nowait(action)
                return
            except trio.WouldBlock:
                pass
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return
        self._outbox.append(action)
        self._outbox_kick.set()

    async def _forward(self) -> None:
        """Hands on, in order, the actions that found the arbiter's channel full."""
        while (actions := self._actions) is not None:
            if not self._outbox:
                await self._outbox_kick.wait()
                self._outbox_kick = trio.Event()
                continue
            try:
                await actions.send(self._outbox[0])
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._outbox.clear()
                self._actions = None
                return
            self._outbox.popleft()
            if not self._outbox and self._actions_done:
                self._close_actions()

    def _close_actions(self) -> None:
        """No more actions from this player; those in the outbox are still handed on."""
        self._actions_done = True
        if self._actions is not None and not self._outbox:
            self._actions.close()
            self._actions = None
            self._outbox_kick.set()

    def _wake(self) -> None:
        if self._waiting:  # in a game nobody is: a move's line makes no Event
            self._changed.set()
            self._changed = trio.Event()

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log(f"{self.label} : {text}")


def _share(state: TableState, key: str, command: _C) -> tuple[_C, bytes]:
    """``command`` and its bytes, kept under ``key`` in ``state.shared``: the
    first player told makes them, the others find them there."""
    try:
        shared = state.shared[key] = (command, encode_command(command))
    except (LocalProtocolError, ValueError) as exc:
        raise EngineFailed(f"cannot send {command.KEYWORD!r}: {exc}") from exc
    return shared


#: Keys of what native players share in ``TableState.shared``.
_STATE = "native:state"
_EVENT = "native:event"


def _event(played: PlayedMove, state: TableState) -> MoveEvent:
    return MoveEvent(
        version=state.version,
        board=played.board,
        move=played.uci,
        passed=played.passed.symbol() if played.passed is not None else None,
        clocks=_clocks(state),
    )


def _state(state: TableState) -> State:
    no_double = state.no_double
    return State(
        version=state.version,
        fen_a=state.fens[BoardId.A],
        fen_b=state.fens[BoardId.B],
        clocks=_clocks(state),
        no_double=None if no_double is None else (no_double[BoardId.A], no_double[BoardId.B]),
    )


def _clocks(state: TableState) -> tuple[int, int, int, int]:
    clocks = state.clocks
    return clocks_ms((clocks[_AW], clocks[_AB], clocks[_BW], clocks[_BB]))


_AW, _AB, _BW, _BB = SEATS  # the wire's clock order
