"""One table's engines, kept alive from one game to the next.

An ``EngineKeeper`` owns the engine processes of one table (one game at a
time) in its own nursery (``serve``). For each job it seats the engines
the job names: an idle engine with the same ``Entrant.key`` that can play
again is moved to its new seats (``Player.reseat``); otherwise a new one is
started. After the game an engine that crashed, hung, failed to start, lost
on time or moved illegally is closed, so the next game gets a fresh one; the
others wait, idle, for the next job. ``play_on_table`` plays one job on a
keeper and turns the record into a ``MatchReport``.

Hangs. After every game each engine still alive is asked whether it
answers (``Player.ping``: ``isready``, or an xboard ``ping``), all at once,
and given ``ping_timeout`` seconds. No answer: it hung (a ``hang`` incident,
a failure of the engine, counted towards dropping it; for the engine that
lost on time it replaces the ``time`` incident), and it is closed, so its
next game gets a fresh one. An answer: an engine that lost on time was only
slow (a ``time`` incident). A notification not taken in time or no
``readyok`` at a game's start (the reason of a ``left``) is a hang too.

All the keeper's players answer into one action channel; it is drained
before each game, so a late answer to the previous game never reaches the
next one (its turn tokens are gone too).
"""

from __future__ import annotations

import contextlib
import datetime
import math
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence

import trio

from ..bpgn import GameHeader
from ..bpgn.write import format_game
from ..config.specs import BUILTIN_ENGINES
from ..core.board import STARTING_FEN
from ..core.game import PlayedMove
from ..core.model import SEATS, Outcome, Seat, Termination
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..players.base import Action, Gone, MatchInfo, Player, TableState
from ..players.factory import create_player, create_team_player
from ..players.reaper import starting_engine
from ..table.arbiter import MatchRecord, Observer, run_match
from .jobs import Entrant, MatchJob, MatchReport, SeatIncident, node_name

#: Seconds an engine gets to start (handshake, options).
START_TIMEOUT = 30.0
#: Idle engines a keeper holds at most between games (two tables' worth).
MAX_IDLE = 8
#: Seconds to close all engines when the keeper stops.
CLOSE_TIMEOUT = 10.0
#: Seconds an engine gets to answer the ping after each game.
PING_TIMEOUT = 5.0
#: A time loss counts as caused by the harness when the harness's delay on
#: that seat's clock came to this share of the seat's time (start + increments).
HARNESS_LOSS_SHARE = 0.01
#: Terminations after which the blamed engine is restarted before its next game.
_RESTART_AFTER = frozenset({Termination.LEFT, Termination.FLAG, Termination.ILLEGAL_MOVE})
#: Reasons for leaving that mean the engine stopped answering (a hang, not a crash):
#: a notification it did not take, no ``readyok`` at the start of a game.
_HANG_REASONS = ("stopped reading", "no 'readyok'", "not ready for the game")


#: What a player's ``start`` raises when it cannot start (``_start_failure`` says why).
_START_FAILURES = (EngineFailed, OSError, trio.TooSlowError)


def _start_failure(exc: BaseException, timeout: float) -> str:
    """Why a player could not start, from what its ``start`` raised within
    ``fail_after(timeout)``."""
    if isinstance(exc, trio.TooSlowError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def fit(entrants: Sequence[Entrant], idle: Collection[str]) -> int:
    """How many of ``entrants`` engines with the ``idle`` keys could play (one each)."""
    keys = list(idle)
    count = 0
    for entrant in entrants:
        if entrant.key in keys:
            keys.remove(entrant.key)
            count += 1
    return count


class EngineKeeper:
    """The live engines of one table. Use ``async with`` or ``nursery.start(keeper.serve)``."""

    def __init__(
        self, *, start_timeout: float = START_TIMEOUT, ping_timeout: float | None = None
    ) -> None:
        self.start_timeout = start_timeout
        #: None: ``PING_TIMEOUT`` (read when the ping is made).
        self.ping_timeout = ping_timeout
        #: Seats whose engine did not answer the ping after the last game, and why.
        self.hung: dict[Seat, str] = {}
        self._send, self._receive = trio.open_memory_channel[Action](math.inf)
        self._idle: list[tuple[str, Player]] = []
        self._nursery: trio.Nursery | None = None
        self._stopped = trio.Event()
        self._cm_scope: trio.CancelScope | None = None
        #: Engine processes started by this keeper, and games played with no new one.
        self.engines_started = 0
        self.games_reusing = 0

    # -- lifetime ----------------------------------------------------------------------

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Holds the engines' nursery until cancelled; then closes every engine."""
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                task_status.started()
                await trio.sleep_forever()
        finally:
            self._nursery = None
            with trio.CancelScope(shield=True):
                await self.close_all()

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, **kwargs: float) -> AsyncIterator[EngineKeeper]:
        """A serving keeper for the ``async with`` block; its engines are closed after."""
        keeper = cls(**kwargs)
        async with trio.open_nursery() as nursery:
            await nursery.start(keeper.serve)
            try:
                yield keeper
            finally:
                nursery.cancel_scope.cancel()

    async def close_all(self) -> None:
        """Closes every idle engine (quit, grace, SIGTERM, SIGKILL)."""
        idle, self._idle = self._idle, []
        with trio.move_on_after(CLOSE_TIMEOUT):
            async with trio.open_nursery() as closers:
                for _, player in idle:
                    closers.start_soon(player.aclose)

    # -- seating -------------------------------------------------------------------------

    async def seat(
        self, entrants: Sequence[Entrant], *, seed: int | None = None
    ) -> tuple[list[Player], int]:
        """Players for ``entrants`` (kept ones reseated, missing ones started at
        once) and how many were started. An engine that fails to start is
        stood in for by a player that leaves with the reason when the game begins.
        ``seed`` (for the built-in engines) is set once per process."""
        players: list[Player | None] = [self._take(entrant) for entrant in entrants]
        missing = [i for i, player in enumerate(players) if player is None]
        async with trio.open_nursery() as starters:
            for i in missing:
                starters.start_soon(self._start_into, players, i, entrants[i], seed)
        ready = [player for player in players if player is not None]
        assert len(ready) == len(entrants)
        return ready, len(missing)

    def stand_in(self, seats: tuple[Seat, ...], name: str, why: str) -> Player:
        """A player for ``seats`` that leaves with ``why`` as the game begins (its
        team forfeits): for an engine, or one of ``play``'s ``others``, that failed
        to start."""
        return _FailedPlayer(seats, name, why, self._send)

    def sender(self) -> trio.MemorySendChannel[Action]:
        """Where one of ``play``'s ``others`` answers: the keeper's action channel
        (each caller's own end, to close when its game ends)."""
        return self._send.clone()

    def _take(self, entrant: Entrant) -> Player | None:
        for index, (key, player) in enumerate(self._idle):
            if key == entrant.key and player.can_play_again():
                del self._idle[index]
                player.reseat(entrant.seats)
                return player
        return None

    async def _start_into(
        self, players: list[Player | None], index: int, entrant: Entrant, seed: int | None
    ) -> None:
        assert self._nursery is not None, "the keeper is not serving"
        spec = entrant.spec
        if seed is not None and spec.name in BUILTIN_ENGINES:
            # Set once per process: a kept engine keeps its random stream.
            spec = spec.with_options(Seed=str(seed + self.engines_started))
        if entrant.team_mode:
            player = create_team_player((entrant.seats[0], entrant.seats[1]), spec)
        else:
            player = create_player(entrant.seats[0], spec)
        self.engines_started += 1
        players[index] = await self.start_player(player, entrant.engine, self._nursery)

    async def start_player(self, player: Player, name: str, nursery: trio.Nursery) -> Player:
        """Starts ``player`` in ``nursery``, answering into this keeper's channel:
        ``player`` itself, or, if it does not start within ``start_timeout``,
        a stand-in for its seats (``player`` is closed)."""
        try:
            # Until its pid is live, the new process would pass for an orphan.
            with starting_engine(), trio.fail_after(self.start_timeout):
                await player.start(nursery, self.sender())
        except _START_FAILURES as exc:
            why = _start_failure(exc, self.start_timeout)
            with trio.CancelScope(shield=True):
                await player.aclose()
            return self.stand_in(player.seats, name, f"failed to start: {why}")
        return player

    async def play(
        self,
        entrants: Sequence[Entrant],
        rules: HouseRules,
        *,
        game_id: str,
        fen_a: str = STARTING_FEN,
        fen_b: str = STARTING_FEN,
        observer: Observer | None = None,
        seed: int | None = None,
        stop_reason: Callable[[], str] | None = None,
        others: Sequence[Player] = (),
        human_seats: Collection[Seat] = (),
    ) -> tuple[MatchRecord, int]:
        """Plays one game with kept (or new) engines; returns its record and how
        many engines were started for it. Cancellation closes this game's engines.

        ``others``: players at the seats no entrant holds, not the keeper's
        (``serve``'s remote players): started by the caller, answering into
        ``sender()``; the keeper neither pings, keeps nor closes them.
        ``human_seats``: as ``run_match``'s.
        """
        players, started = await self.seat(entrants, seed=seed)
        if started == 0:
            self.games_reusing += 1
        self.drain()
        try:
            record = await run_match(
                [*players, *others],
                rules,
                game_id=game_id,
                fen_a=fen_a,
                fen_b=fen_b,
                human_seats=human_seats,
                observer=observer,
                stop_reason=stop_reason,
                actions=self._receive,
            )
        except BaseException:
            # Abandoned (cancelled) or broken: none of these engines plays again.
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                for player in players:
                    await player.aclose()
            raise
        outcome = record.outcome
        blamed = {outcome.seat} if outcome.termination in _RESTART_AFTER and outcome.seat else set()
        self.hung = {}
        try:
            self.hung = await self.ping_all(players, outcome)
        finally:
            await self.release(players, entrants, blamed | set(self.hung))
        return record, started

    async def ping_all(self, players: Sequence[Player], outcome: Outcome) -> dict[Seat, str]:
        """Pings every engine still alive after the game, all at once; the seats
        of those that did not answer within the ping timeout, and why."""
        timeout = PING_TIMEOUT if self.ping_timeout is None else self.ping_timeout
        hung: dict[Seat, str] = {}

        async def ping(player: Player) -> None:
            if await player.ping(timeout) is not False or not player.can_play_again():
                return  # it answered, cannot be asked, or has exited meanwhile (not hung)
            flagged = outcome.termination is Termination.FLAG and outcome.seat in player.seats
            silent = f"did not answer a ping within {timeout:g} s"
            if flagged and outcome.seat is not None:
                seat, what = outcome.seat, f"{outcome.reason}, then {silent}"
            else:
                seat = player.seats[0]
                what = f"{seat.value} {silent} after the game"
            hung[seat] = f"{what}: hung (killed and restarted)"

        async with trio.open_nursery() as pings:
            for player in players:
                # One gone already (crashed, failed to start) is not hung.
                if not isinstance(player, _FailedPlayer) and player.can_play_again():
                    pings.start_soon(ping, player)
        return hung

    def drain(self) -> None:
        """Drops actions left over from an earlier game."""
        while True:
            try:
                self._receive.receive_nowait()
            except trio.WouldBlock:
                return

    async def release(
        self, players: Sequence[Player], entrants: Sequence[Entrant], blamed: Collection[Seat]
    ) -> None:
        """Takes ``players`` (holding ``entrants``) back after a game; closes
        those at the ``blamed`` seats and any that cannot play again."""
        for player, entrant in zip(players, entrants, strict=True):
            if isinstance(player, _FailedPlayer):
                continue
            if not player.can_play_again() or any(seat in blamed for seat in player.seats):
                with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                    await player.aclose()
            else:
                self._idle.append((entrant.key, player))
        # The least recently used beyond MAX_IDLE are closed (a round-robin of
        # many participants would otherwise keep every engine of every one).
        while len(self._idle) > MAX_IDLE:
            _, oldest = self._idle.pop(0)
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                await oldest.aclose()

    def matching(self, entrants: Sequence[Entrant]) -> int:
        """How many of ``entrants`` an idle engine of this keeper could play."""
        return fit(entrants, self.idle_keys)

    @property
    def idle_keys(self) -> tuple[str, ...]:
        """The ``Entrant.key`` of every idle engine (oldest first)."""
        return tuple(key for key, _ in self._idle)

    @property
    def receive(self) -> trio.MemoryReceiveChannel[Action]:
        return self._receive


class _FailedPlayer(Player):
    """Stands at the seats of an engine that failed to start: when the game
    begins it says it left (``Gone``, with the reason), so its team forfeits."""

    def __init__(
        self, seats: tuple[Seat, ...], name: str, why: str, actions: trio.MemorySendChannel[Action]
    ) -> None:
        self.name = name
        self.seats = seats
        self.why = why
        self.actions = actions

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        raise EngineFailed(self.why)

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.actions.send_nowait(Gone(seat=self.seats[0], reason=self.why))

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        pass

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        pass

    async def partner_says(self, seat: Seat, text: str) -> None:
        pass

    async def game_over(self, outcome: Outcome) -> None:
        pass

    async def aclose(self) -> None:
        pass


# -- one job -------------------------------------------------------------------------


async def play_on_table(job: MatchJob, keeper: EngineKeeper) -> MatchReport:
    """Plays ``job`` with ``keeper``'s engines and reports it (see ``jobs.py``)."""
    wall = time.monotonic()
    opening = job.opening
    now = datetime.datetime.now(datetime.UTC)
    record, started = await keeper.play(
        job.entrants,
        job.rules,
        game_id=job.job_id,
        fen_a=opening.fen_a if opening else STARTING_FEN,
        fen_b=opening.fen_b if opening else STARTING_FEN,
        seed=job.seed,
    )
    outcome = record.outcome
    time_losses = (
        (outcome.seat,)
        if outcome.termination is Termination.FLAG and outcome.seat is not None
        else ()
    )
    names = {seat: job.entrant_at(seat).engine for seat in SEATS}
    header = GameHeader(
        players=names,
        engines=dict(record.names),
        event=job.event,
        date=f"{now:%Y.%m.%d}",
        time=f"{now:%H:%M:%S}",
        round=str(job.number),
        extra=job.tags,
    )
    return MatchReport(
        job_id=job.job_id,
        result=outcome.result,
        termination=outcome.termination.value,
        reason=outcome.reason,
        bpgn=format_game(record.game, header),
        plies=record.game.plies,
        seconds=time.monotonic() - wall,
        incidents=_incidents(job, outcome, keeper.hung),
        time_losses=time_losses,
        overhead_max=max(record.overheads, default=0.0),
        harness_delay=dict(record.harness_delay),
        harness_delay_max=record.harness_delay_max,
        harness_time_losses=tuple(s for s in time_losses if harness_caused(record, s)),
        started_engines=started,
        node=node_name(),
    )


def harness_caused(record: MatchRecord, seat: Seat) -> bool:
    """Whether the harness's delay on ``seat``'s clock came to ``HARNESS_LOSS_SHARE``
    of the time the seat had (start time and the increments of its moves)."""
    rules = record.rules
    moves = sum(1 for move in record.game.moves if move.seat is seat)
    had = rules.time + rules.increment * moves
    return record.harness_delay.get(seat, 0.0) >= HARNESS_LOSS_SHARE * had


def _incidents(
    job: MatchJob, outcome: Outcome, hung: Mapping[Seat, str] | None = None
) -> tuple[SeatIncident, ...]:
    """What went wrong, per seat: the seat the game ended on (a crash, a failed
    start, an illegal move, a time loss), and every engine that did not answer
    the ping after the game (``hang``, which replaces a time loss)."""
    hung = dict(hung or {})
    found: list[tuple[Seat, str, str]] = []
    seat = outcome.seat
    kinds = {
        Termination.LEFT: "crash",
        Termination.FLAG: "time",
        Termination.ILLEGAL_MOVE: "illegal",
    }
    kind = kinds.get(outcome.termination)
    if seat is not None and kind is not None:
        if kind == "crash" and "failed to start" in outcome.reason:
            kind = "start"
        elif kind == "crash" and any(why in outcome.reason for why in _HANG_REASONS):
            kind = "hang"
        if seat in hung:
            found.append((seat, "hang", hung.pop(seat)))
        else:
            found.append((seat, kind, outcome.reason))
    found.extend((s, "hang", text) for s, text in sorted(hung.items()))
    return tuple(
        SeatIncident(
            seat=s,
            participant=job.participant_at(s),
            engine=job.entrant_at(s).engine,
            kind=k,
            text=text,
        )
        for s, k, text in found
    )
