"""One table's engines, kept alive from one game to the next.

An ``EngineKeeper`` owns the engine processes of one table (one game at a
time) in its own nursery (``serve``). For each job it seats the engines
the job names: an idle engine with the same ``Entrant.key`` that can play
again is moved to its new seats (``Player.reseat``); otherwise a new one is
started. After the game an engine that crashed, hung, failed to start, lost
on time or moved illegally is closed, so the next game gets a fresh one; the
others wait, idle, for the next job. ``match``, ``serve`` and a tournament's
tables (local or Ray) all keep their engines so.

An ``Entrant`` is one engine process at the table (one seat, or both seats
of a team in team mode); ``entrants`` is the one way to list a game's.

Seeds. The project's own engines take a ``Seed`` option, set once when the
process starts (a kept engine keeps its random stream). It is derived from
the game's seed and the entrant's seat (``config.specs.seeded``), never from
the order engines happen to start in, so one ``--seed`` seats the same seeds.

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
import math
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from typing import Any

import attrs
import trio

from ..config.specs import EngineSpec, seeded
from ..core.board import STARTING_FEN
from ..core.game import PlayedMove
from ..core.model import Outcome, Seat, Team, Termination
from ..core.rules import HouseRules
from ..errors import EngineFailed
from ..players.affinity import pinned
from ..players.base import Action, Gone, MatchInfo, Player, TableState
from ..players.debug_logs import DebugLogs
from ..players.factory import HANDSHAKE_TIMEOUT, create_player, create_team_player
from ..players.reaper import starting_engine
from .arbiter import MatchRecord, Observer, run_match

__all__ = ["EngineKeeper", "Entrant", "entrant_key", "entrants", "fit", "fit_keys"]

#: Seconds an engine gets to start (handshake, options).
START_TIMEOUT = 30.0
#: Idle engines a keeper holds at most between games (two tables' worth).
MAX_IDLE = 8
#: Seconds to close all engines when the keeper stops.
CLOSE_TIMEOUT = 10.0
#: Seconds an engine gets to answer the ping after each game.
PING_TIMEOUT = 5.0
#: Terminations after which the blamed engine is restarted before its next game.
_RESTART_AFTER = frozenset({Termination.LEFT, Termination.FLAG, Termination.ILLEGAL_MOVE})


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


def entrant_key(spec: EngineSpec, team_mode: bool) -> str:
    """Equal keys mean interchangeable engine processes (same program, options, mode)."""
    options = ",".join(f"{k}={v}" for k, v in sorted(spec.options.items()))
    mode = "team" if team_mode else "seat"
    return f"{mode}|{spec.protocol}|{spec.cwd or ''}|{' '.join(spec.command)}|{options}|" + (
        "\n".join(spec.init)
    )


@attrs.frozen(kw_only=True)
class Entrant:
    """One engine process at the table: one seat, or both seats of a team (team mode)."""

    seats: tuple[Seat, ...]
    spec: EngineSpec
    #: The side this process plays for (a tournament's participant, or ``team N``).
    participant: str
    #: The engine's own name within the participant (for per-engine ratings of mixed teams).
    engine: str

    @property
    def team_mode(self) -> bool:
        return len(self.seats) == 2

    @property
    def key(self) -> str:
        return entrant_key(self.spec, self.team_mode)


def entrants(
    engines: Mapping[Seat, EngineSpec],
    *,
    teams: Mapping[Team, EngineSpec] | None = None,
    participants: Mapping[Team, str] | None = None,
    names: Mapping[Seat, str] | None = None,
) -> list[Entrant]:
    """The entrants of one game: each of ``teams`` as one team-mode process at
    both its seats, then one per seat of ``engines`` (by the seats of this
    game, in the order given) not held by a team.

    ``participants`` names the side each team's seats play for (default
    ``team N``); ``names`` the engine at a seat (default its spec's name).
    """
    teams = teams or {}

    def side(team: Team) -> str:
        return (participants or {}).get(team, f"team {team.value}")

    def name(seat: Seat, spec: EngineSpec) -> str:
        return (names or {}).get(seat, spec.name)

    found = [
        Entrant(
            seats=team.seats, spec=spec, participant=side(team), engine=name(team.seats[0], spec)
        )
        for team, spec in teams.items()
    ]
    found += [
        Entrant(seats=(seat,), spec=spec, participant=side(seat.team), engine=name(seat, spec))
        for seat, spec in engines.items()
        if seat.team not in teams
    ]
    return found


def fit(entrants: Sequence[Entrant], idle: Collection[str]) -> int:
    """How many of ``entrants`` engines with the ``idle`` keys could play (one each)."""
    return fit_keys([entrant.key for entrant in entrants], idle)


def fit_keys(keys: Sequence[str], idle: Collection[str]) -> int:
    """``fit`` for entrants whose keys are ``keys`` (a caller that works them out once)."""
    left = list(idle)
    count = 0
    for key in keys:
        if key in left:
            left.remove(key)
            count += 1
    return count


class EngineKeeper:
    """The live engines of one table. Use ``async with`` or ``nursery.start(keeper.serve)``."""

    def __init__(
        self,
        *,
        start_timeout: float = START_TIMEOUT,
        ping_timeout: float | None = None,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
        cpus: frozenset[int] | None = None,
    ) -> None:
        self.start_timeout = start_timeout
        #: Seconds of the start an engine gets for its protocol's handshake.
        self.handshake_timeout = handshake_timeout
        #: None: ``PING_TIMEOUT`` (read when the ping is made).
        self.ping_timeout = ping_timeout
        #: The cores this table's engines are pinned to (None: not pinned).
        self.cpus = cpus
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
    async def open(cls, **kwargs: Any) -> AsyncIterator[EngineKeeper]:
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
        self,
        entrants: Sequence[Entrant],
        *,
        seed: int | None = None,
        logs: DebugLogs | None = None,
    ) -> tuple[list[Player], int]:
        """Players for ``entrants`` (kept ones reseated, missing ones started at
        once) and how many were started. An engine that fails to start is
        stood in for by a player that leaves with the reason when the game begins.
        ``seed`` is the game's: an engine started gets ``seeded(spec, seed, 0,
        seat)`` for its (first) seat. With ``logs`` every engine is started,
        each with its protocol log."""
        players: list[Player | None] = [
            None if logs is not None else self._take(entrant) for entrant in entrants
        ]
        missing = [i for i, player in enumerate(players) if player is None]
        async with trio.open_nursery() as starters:
            for i in missing:
                starters.start_soon(self._start_into, players, i, entrants[i], seed, logs)
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
        self,
        players: list[Player | None],
        index: int,
        entrant: Entrant,
        seed: int | None,
        logs: DebugLogs | None,
    ) -> None:
        assert self._nursery is not None, "the keeper is not serving"
        # Set once per process: a kept engine keeps its random stream.
        spec = seeded(entrant.spec, seed, 0, entrant.seats[0])
        log = logs.for_seats(entrant.seats) if logs is not None else None
        if entrant.team_mode:
            player = create_team_player(
                (entrant.seats[0], entrant.seats[1]),
                spec,
                log=log,
                handshake_timeout=self.handshake_timeout,
            )
        else:
            player = create_player(
                entrant.seats[0], spec, log=log, handshake_timeout=self.handshake_timeout
            )
        self.engines_started += 1
        players[index] = await self.start_player(player, entrant.engine, self._nursery)

    async def start_player(self, player: Player, name: str, nursery: trio.Nursery) -> Player:
        """Starts ``player`` in ``nursery``, answering into this keeper's channel:
        ``player`` itself, or, if it does not start within ``start_timeout``,
        a stand-in for its seats (``player`` is closed)."""
        try:
            # Until its pid is live, the new process would pass for an orphan.
            with (
                starting_engine(),
                pinned(self.cpus),
                trio.fail_after(self.start_timeout),
            ):
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
        opening: Sequence[tuple[Seat, str]] = (),
        observer: Observer | None = None,
        seed: int | None = None,
        stop_reason: Callable[[], str] | None = None,
        others: Sequence[Player] = (),
        human_seats: Collection[Seat] = (),
        logs: DebugLogs | None = None,
    ) -> tuple[MatchRecord, int]:
        """Plays one game with kept (or new) engines; returns its record and how
        many engines were started for it. Cancellation closes this game's engines.
        With ``logs`` (``--debug``) its engines are new, each with its log, and
        closed after it, so that a log holds one game.

        ``others``: players at the seats no entrant holds, not the keeper's
        (``serve``'s remote players): started by the caller, answering into
        ``sender()``; the keeper neither pings, keeps nor closes them.
        ``human_seats``: as ``run_match``'s.
        """
        players, started = await self.seat(entrants, seed=seed, logs=logs)
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
                opening=opening,
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
        if logs is not None:
            blamed = {seat for entrant in entrants for seat in entrant.seats}
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
