"""The arbiter: seats four players, owns the clocks and judges every move.

``run_match`` is the only place where players, clocks and the rules meet. It
starts every player in one nursery, hands each a clone of one action channel,
and then loops: wait for the next action until the clocks' next deadline
(``trio.move_on_at``; no polling), judge it with ``BughouseGame``, press the
clock, tell everyone. A flag is declared at its deadline whether or not anyone
is writing.

Timing. The action channel is unbounded: a player never waits to hand over
an action (each player bounds what it sends). A move's clock stops at the
moment the player received it (``arrived_at``, clamped between the turn's
start and the moment the arbiter takes it), so neither the player's nor the
arbiter's processing is charged to the mover, and a move that arrived before
its deadline counts even if the arbiter takes it a little later. Per move the
arbiter tells the four players first (the partner may be waiting for the
piece), opens the next turns, and only then tells the observer (record,
display); inside ``Player.batched()`` blocks, so that an engine gets the move
and its turn in one write, the next mover's write first. A turn's clock
starts once its player was told: for an engine, when its ``go`` was written
to the pipe (``Player.turn_reached``; a batched write happens only as the
block ends), so time the harness spends before that (its own work, the
process being descheduled) is not charged to the engine. What the harness
still spent of each turn (``Player.harness_delay``) is summed per seat in
the record (``MatchRecord.harness_delay``). epoll sleeps in
whole milliseconds, rounded up, so to declare a flag on time the arbiter
wakes ``FLAG_EARLY`` seconds before a deadline and polls (still taking
actions) until it passes: at most that long of CPU per flag.

However the match ends (result, a player's fault, cancellation or
Ctrl+C), every player hears ``game_over`` and is closed, and the observer sees
a ``MatchEnded`` event, so a record can always be written.

Who must agree to a draw: house rule ``draw`` (``core.rules.draw_agreement``):
every seat held by a person (``human_seats``), or all four seats when no person
sits at the table; under ``draw=both-teams`` also both seats of a team
without a person (their engines must accept). An offer stands until the
match ends. An illegal move from a person is refused (the clock keeps
running); from an engine it loses under ``illegal_move=lose`` and is refused
under ``illegal_move=reject``. A refused move re-opens the turn with a new
token.

A seat that answered ``wait`` and then gets a piece from its partner's board
is given a fresh turn (new token, fresh state, its clock still running from
the turn's start) when its player asks for that (``refresh_waiting_turn``), so
an engine that reads only ``state`` + ``go`` sees every piece it could drop.

Clocks told to players are monotone per seat (apart from the increment): a
snapshot counts a seat whose move has already arrived, but is not judged yet,
only up to that arrival, which is where the move will stop its clock.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import (
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from functools import partial
from typing import NamedTuple

import chess
import trio

from ..core.board import STARTING_FEN
from ..core.clock import SAME_INSTANT, Clocks
from ..core.game import BughouseGame, PlayedMove
from ..core.model import BOARDS, SEATS, BoardId, Outcome, Seat
from ..core.rules import HouseRules, draw_agreement
from ..errors import EngineFailed, MoveError, NotYourTurnError
from ..players.base import (
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
from .match_events import (
    ActionIgnored,
    DrawOffered,
    InfoReported,
    MatchEnded,
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
    MoveRefused,
    Observer,
    PartnerTold,
    PlayerWaits,
)

__all__ = [
    "FLAG_EARLY",
    "NOTIFY_TIMEOUT",
    "ActionIgnored",
    "DrawOffered",
    "InfoReported",
    "MatchEnded",
    "MatchEvent",
    "MatchRecord",
    "MatchStarted",
    "MovePlayed",
    "MoveRefused",
    "Observer",
    "PartnerTold",
    "PlayerWaits",
    "run_match",
]

#: How long a player may take to accept one notification before it counts
#: as having left (it stopped reading its input).
NOTIFY_TIMEOUT = 10.0
#: Why a player that did not take a notification in time has left.
STOPPED_READING = f"stopped reading (a notification took over {NOTIFY_TIMEOUT:g} s)"
#: ... and why when that notification was the new game (an engine that never
#: said it was ready: no ``readyok`` to the ``isready`` after ``newgame``).
NOT_READY = f"not ready for the game (no answer to the new game within {NOTIFY_TIMEOUT:g} s)"
#: Seconds before a flag's deadline at which the arbiter stops sleeping and
#: polls, because epoll's timeout is whole milliseconds rounded up.
FLAG_EARLY = 0.0015
#: Most polls in one such final stretch (under a mock clock time does not pass).
_FLAG_POLLS = 2000


# -- the arbiter -----------------------------------------------------------------


async def run_match(
    players: Sequence[Player],
    rules: HouseRules | None = None,
    *,
    game_id: str = "1",
    fen_a: str = STARTING_FEN,
    fen_b: str = STARTING_FEN,
    opening: Sequence[tuple[Seat, str]] = (),
    human_seats: Collection[Seat] = (),
    observer: Observer | None = None,
    start_timeout: float = 30.0,
    close_timeout: float = 10.0,
    stop_reason: Callable[[], str] | None = None,
    actions: trio.MemoryReceiveChannel[Action] | None = None,
) -> MatchRecord:
    """Plays one match between ``players`` and returns its record.

    Args:
        players: Players holding the four seats between them, each seat once.
            They must not be started yet; ``run_match`` starts and closes them.
        rules: House rules (time control included); the default rules if None.
        game_id: Told to the players in ``MatchInfo``.
        fen_a, fen_b: Start positions of the two boards.
        opening: A book's first moves, both boards in the order played
            (``BughouseGame.play_opening``): part of the game and its record,
            played before the clocks start; players are told them as moves
            (``MatchInfo.opening``).
        human_seats: Seats held by people: their illegal moves are refused,
            and they must agree to a draw (under ``draw=humans``, only they).
        observer: Called (synchronously, keep it quick) with every
            ``MatchEvent``; the live display and the record writer use it.
        start_timeout: Seconds all players together get to start.
        close_timeout: Seconds to say game over and close every player.
        stop_reason: Says why, when the match is cancelled or interrupted
            (``table.stopping``: "interrupted by SIGTERM: ..."); the reason
            recorded with the aborted game.
        actions: None (the usual case): ``run_match`` starts the players and
            closes them at the end. Otherwise the players are already
            started, answering into the channel whose receiving end this is;
            they hear ``game_over`` but stay open, to play another game
            (``Player.can_play_again``). The caller drains the channel
            between games.

    Returns:
        The ``MatchRecord``; its ``game.outcome`` is set.

    Raises:
        ValueError: the players do not hold each seat exactly once.
        trio.Cancelled, KeyboardInterrupt: re-raised after the game was
            aborted (result ``*``), the observer told and every player closed.
            Like anything raised inside the match, they reach the caller
            wrapped in the ``ExceptionGroup`` of trio's (strict) nursery;
            ``bughouse match`` avoids that by turning Ctrl+C into a
            cancellation with ``trio.open_signal_receiver``.

    A player's fault never raises: it ends the match with a result and a
    reason (``Outcome``). A player that fails to start loses for its team
    (``Termination.LEFT``, "failed to start: ...").
    """
    seat_players = _seat_map(players)
    game = BughouseGame(rules, fen_a=fen_a, fen_b=fen_b)
    game.play_opening(opening)
    table = _Table(
        seat_players,
        game,
        game_id=game_id,
        human_seats=frozenset(human_seats),
        observer=observer,
    )
    kept = actions is not None
    async with trio.open_nursery() as nursery:
        send, receive = trio.open_memory_channel[Action](math.inf)
        if actions is not None:
            receive = actions
        try:
            failed = None if kept else await _start_players(players, nursery, send, start_timeout)
            if failed:
                seat, why = failed
                table.game.leave(seat, why)
            else:
                await table.play(receive)
        except BaseException as exc:
            if _is_interruption(exc):
                why = stop_reason() if stop_reason is not None else ""
                table.game.abort(why or "interrupted: the match was stopped before it ended")
            else:
                table.game.abort(f"aborted: internal error ({type(exc).__name__})")
            raise
        finally:
            with trio.CancelScope(shield=True):
                await table.finish(close_timeout, close=not kept)
            nursery.cancel_scope.cancel()
            send.close()
    return table.record


def _is_interruption(exc: BaseException) -> bool:
    """Cancelled or Ctrl+C, also as a group of them (a cancel that found players
    starting comes out of their nursery as a ``BaseExceptionGroup``)."""
    if isinstance(exc, BaseExceptionGroup):
        _stops, rest = exc.split((trio.Cancelled, KeyboardInterrupt))
        return rest is None
    return isinstance(exc, trio.Cancelled | KeyboardInterrupt)


def _seat_map(players: Sequence[Player]) -> dict[Seat, Player]:
    seats: dict[Seat, Player] = {}
    for player in players:
        for seat in player.seats:
            if seat in seats:
                raise ValueError(f"seat {seat} is held by two players")
            seats[seat] = player
    missing = [str(s) for s in SEATS if s not in seats]
    if missing:
        raise ValueError(f"nobody holds {', '.join(missing)}")
    return seats


async def _start_players(
    players: Sequence[Player],
    nursery: trio.Nursery,
    send: trio.MemorySendChannel[Action],
    timeout: float,
) -> tuple[Seat, str] | None:
    """Starts every player at once; returns the first seat that failed and why."""
    failures: dict[int, str] = {}
    ready: set[int] = set()

    async def start_one(index: int, player: Player) -> None:
        try:
            await player.start(nursery, send.clone())
        except EngineFailed as exc:
            failures[index] = f"failed to start: {exc}"
        except OSError as exc:
            failures[index] = f"failed to start: {exc.strerror or exc}"
        else:
            ready.add(index)

    with trio.move_on_after(timeout):
        async with trio.open_nursery() as starters:
            for index, player in enumerate(players):
                starters.start_soon(start_one, index, player)
    for index in range(len(players)):
        if index not in ready and index not in failures:
            failures[index] = f"failed to start: no answer within {timeout:g} s"
    if not failures:
        return None
    index = min(failures)
    return players[index].seats[0], failures[index]


class _Table:
    """The mutable state of one running match (owned by ``run_match``)."""

    def __init__(
        self,
        seats: dict[Seat, Player],
        game: BughouseGame,
        *,
        game_id: str,
        human_seats: frozenset[Seat],
        observer: Observer | None,
    ) -> None:
        self.seats = seats
        self.players: list[Player] = list(dict.fromkeys(seats.values()))
        self.game = game
        self.human_seats = human_seats
        self.observer = observer
        self.clocks = Clocks.for_rules(game.rules)
        # Untimed clocks stay untimed (infinite time minus anything is infinite).
        self.untimed = self.clocks.untimed
        self.tokens: dict[Seat, int] = {}
        # The token each seat last answered ``wait`` to (its turn stays open).
        self.waiting: dict[Seat, int] = {}
        self.next_token = 1
        # Per seat whose clock runs: the token and instant its turn's clock started.
        self.opened: dict[Seat, tuple[int, float]] = {}
        # Seats whose turn opened since ``start_clocks_when_told`` last ran.
        self.fresh: list[Seat] = []
        # Actions taken off the channel (to see their arrival) but not judged yet.
        self.pending: deque[Action] = deque()
        self.receive: trio.MemoryReceiveChannel[Action] | None = None
        self.draw_offers: set[Seat] = set()
        self.draw_needed = draw_agreement(game.rules, human_seats)
        self.boards_told: set[BoardId] = set()
        self.fens = _Fens(game)
        self._calling: Seat | None = None  # whose notification is being made
        self._move_orders: dict[Seat, _MoveOrders] = {}
        self.all_prompt = all(player.prompt for player in self.players)
        self.record = MatchRecord(
            game=game,
            names={seat: player.name for seat, player in seats.items()},
            game_id=game_id,
            clocks=self.clocks,
        )

    # -- the loop ----------------------------------------------------------------

    async def play(self, receive: trio.MemoryReceiveChannel[Action]) -> None:
        self.receive = receive
        # Engines may have told their own names during the handshake.
        self.record.names = {seat: player.name for seat, player in self.seats.items()}
        info = MatchInfo(
            game_id=self.record.game_id,
            names=self.record.names,
            rules=self.game.rules,
            start_fens=dict(self.game.start_fens),
            human_seats=self.human_seats,
            opening=tuple(self.game.moves[: self.game.opening_plies]),
        )
        state = self.state(trio.current_time())
        for player in self.players:
            await self.notify(
                player.seats[0], partial(player.new_game, info, state), stuck=NOT_READY
            )
        if self.game.is_over:
            return
        now = trio.current_time()
        self.record.started = now
        self.emit(
            MatchStarted(game=self.game, names=self.record.names, clocks=self.clocks, now=now)
        )
        await self.open_turns()
        while not self.game.is_over:
            flag = self.clocks.next_deadline()
            deadline = flag.deadline if flag is not None else math.inf
            if self.pending:
                action: Action | None = self.pending.popleft()
            else:
                action = await _next_action(receive, deadline)
            now = trio.current_time()
            at = now if action is None else self.arrival(action, now)
            if action is not None and at < deadline - SAME_INSTANT:
                await self.handle(action, at)
                continue
            if now >= deadline - SAME_INSTANT:
                # An action that arrived after the deadline is too late for it.
                await self.declare_flag(now)
            if action is not None and not self.game.is_over:
                await self.handle(action, at)

    def arrival(self, action: Action, now: float) -> float:
        """When ``action`` counts as made: its arrival, within its turn and not after ``now``."""
        at = action.arrived_at
        if at is None or at >= now:
            return now
        started = self.clocks.running.get(action.seat)
        return at if started is None or at > started else started

    async def handle(self, action: Action, now: float) -> None:
        """Judges ``action`` as made at ``now`` (its arrival time)."""
        if isinstance(action, MoveAction):
            await self.on_move(action, now)
        elif isinstance(action, WaitAction):
            if self.tokens.get(action.seat) != action.token:
                self.ignore(action, "an answer to a turn that is not open", now)
            else:
                self.waiting[action.seat] = action.token
                self.emit(PlayerWaits(seat=action.seat, reason=action.reason, now=now))
        elif isinstance(action, ResignAction):
            self.game.resign(action.seat)
            await self.after_change(now)
        elif isinstance(action, DrawOfferAction):
            await self.on_draw_offer(action.seat, now)
        elif isinstance(action, TellAction):
            message = self.game.tell(action.seat, action.text, at=self.since_start(now))
            partner = action.seat.partner
            await self.notify(
                partner, partial(self.seats[partner].partner_says, partner, action.text)
            )
            self.emit(PartnerTold(message=message, now=now))
        elif isinstance(action, InfoAction):
            self.emit(InfoReported(seat=action.seat, text=action.text, now=now))
        elif isinstance(action, Gone):
            self.game.leave(action.seat, action.reason)
            await self.after_change(now)

    async def on_move(self, action: MoveAction, now: float) -> None:
        """Plays the move made at ``now``: the four players first, the observer last."""
        taken = trio.current_time()
        seat = action.seat
        if self.tokens.get(seat) != action.token:
            self.ignore(action, f"turn {action.token} is not open", now)
            return
        clocks, used = self.clocks.press(seat, now)
        self.fens.freeze()  # the snapshots already handed out keep the position before
        left: float | None = None if self.untimed else clocks.banked[seat]
        try:
            played = self.game.push(seat, action.move, at=self.since_start(now), clock=left)
        except NotYourTurnError as exc:  # cannot happen while tokens track turns
            self.ignore(action, str(exc), now)  # (a MoveError, but not the mover's fault)
            return
        except MoveError as exc:
            await self.on_illegal(action, str(exc), now)
            return
        self.clocks = clocks
        del self.tokens[seat]
        self.note_harness_delay(seat, now)
        changed = (played.board,) if played.passed is None else BOARDS
        self.fens = self.fens.after(changed)
        state = self.state(taken)
        orders = self.move_orders(seat)
        if played.passed is None and self.game.is_live(played.board):
            await self.tell_next_first(orders, played, state, now)
        else:
            with _Batched(orders.batched):
                await self.tell_moved(orders.told, played, state)
                if played.passed is not None:
                    self.refresh_if_waiting(Seat.of(played.board.other, played.passed.color))
                await self.after_change(now, state)
        self.record.overheads.append(trio.current_time() - taken)
        self.start_clocks_when_told()
        self.record.used.append(used)
        # The clocks as they run now: the mover's stopped, the next turns' started.
        self.emit(MovePlayed(played=played, used=used, clocks=self.clocks, now=now))

    async def tell_next_first(
        self, orders: _MoveOrders, played: PlayedMove, state: TableState, now: float
    ) -> None:
        """Tells a move that passed nothing and left its board in play: the next
        to move on that board hears it and gets its turn in one write, before
        the other players are told (the mover last)."""
        following = orders.following
        ended = len(self.game.board_results)
        with following.batched():
            await self.tell_moved(orders.following_only, played, state)
            if len(self.game.board_results) == ended and not self.game.is_over:
                await self.open_turns(state)  # all after_change would do: nothing ended
        with _Batched(orders.batched_rest):
            await self.tell_moved(orders.rest, played, state)
        if len(self.game.board_results) != ended or self.game.is_over:
            # A player that could not be told has left: its board (or the match) ended.
            await self.after_change(now)

    def move_orders(self, seat: Seat) -> _MoveOrders:
        """Who is told of ``seat``'s move, in order, and the order of their
        ``batched()`` blocks (made once per seat: the players do not change).

        The mover is told last: it knows its move, the others may be waiting
        for it. Each player gets the move and, if its turn is next (or
        re-opened: a piece reached it while it waited), the turn in one write;
        the next to move on this board is written to first (its block ends last).
        """
        orders = self._move_orders.get(seat)
        if orders is None:
            mover = self.seats[seat]
            following = self.seats[seat.opponent]
            others = [p for p in self.players if p is not mover and p is not following]
            batched_rest = [mover, *others[::-1]]
            orders = self._move_orders[seat] = _MoveOrders(
                told=[p for p in self.players if p is not mover] + [mover],
                batched=[*batched_rest, following],
                following=following,
                following_only=[following],
                rest=[*others, mover],
                batched_rest=batched_rest,
            )
        return orders

    def refresh_if_waiting(self, seat: Seat) -> None:
        """Closes ``seat``'s turn if it is waiting (a piece just reached it) and its
        player wants a fresh one; ``open_turns`` then re-opens it with a new token."""
        token = self.tokens.get(seat)
        if token is None or self.waiting.get(seat) != token:
            return
        if self.seats[seat].refresh_waiting_turn:
            del self.tokens[seat]

    async def on_illegal(self, action: MoveAction, why: str, now: float) -> None:
        seat = action.seat
        if seat in self.human_seats or self.game.rules.illegal_move == "reject":
            self.emit(MoveRefused(seat=seat, text=action.move, reason=why, now=now))
            del self.tokens[seat]
            player = self.seats[seat]
            await self.notify(
                seat, partial(player.move_refused, seat, action.token, action.move, why)
            )
            await self.open_turns()
            return
        self.game.illegal(seat, action.move, why)
        await self.after_change(now)

    async def on_draw_offer(self, seat: Seat, now: float) -> None:
        if seat in self.draw_offers:
            return
        self.draw_offers.add(seat)
        self.game.offer_draw(seat, at=self.since_start(now))
        self.emit(DrawOffered(seat=seat, now=now))
        if self.draw_needed <= self.draw_offers:
            self.game.agree_draw()
            await self.after_change(now)
            return
        for player in self.players:
            if seat not in player.seats:
                await self.notify(player.seats[0], partial(player.draw_offered, seat))

    async def declare_flag(self, now: float) -> None:
        flag = self.clocks.next_deadline()
        assert flag is not None
        self.record.flag_latencies.append(now - flag.deadline)
        # The flagged clocks stop at zero, exactly at their deadline.
        for seat in flag.seats:
            self.clocks = self.clocks.stop(seat, flag.deadline)
            self.note_harness_delay(seat, flag.deadline)
        self.game.flag(flag.seats)
        await self.after_change(now)

    async def after_change(self, now: float, state: TableState | None = None) -> None:
        """Closes turns on boards that ended, opens the turns that are due
        (telling them ``state``, if given, else the table as it is now)."""
        for board in BOARDS:
            if not self.game.is_live(board):
                for seat in (Seat.of(board, True), Seat.of(board, False)):
                    self.tokens.pop(seat, None)
                    self.opened.pop(seat, None)
                    self.clocks = self.clocks.stop(seat, now)
        if self.game.is_over:
            return
        ended = len(self.game.board_results)
        for board, result in list(self.game.board_results.items()):
            if board not in self.boards_told:
                # board_end=continue: the other board plays on.
                self.boards_told.add(board)
                for player in self.players:
                    await self.notify(player.seats[0], partial(player.board_ended, result))
        if len(self.game.board_results) != ended:
            # A player that could not be told has left, ending its board too.
            await self.after_change(now)
            return
        await self.open_turns(state)

    async def open_turns(self, state: TableState | None = None) -> None:
        """Tells every seat whose turn is due, then starts their clocks together.

        ``state``: the table to tell them, if it was just made (a move's: the
        clocks in it are the ones the move's event told).
        """
        due = [s for s in self.game.seats_to_move() if s not in self.tokens]
        if not due:
            return
        if state is None:
            state = self.state(trio.current_time())
        for seat in due:
            self.tokens[seat] = self.next_token
            self.next_token += 1
        if self.all_prompt:  # every move's case: as notify_each, without its calls
            for seat in due:
                try:
                    await self.seats[seat].your_turn(seat, self.tokens[seat], state)
                except _LOST as exc:
                    self.lost(seat, exc)
        else:
            await self.notify_each(
                (
                    (seat, partial(self.seats[seat].your_turn, seat, self.tokens[seat], state))
                    for seat in due
                ),
                prompt=True,
            )
        if self.game.is_over:
            return
        now = trio.current_time()
        for seat in due:
            if seat not in self.clocks.running:  # a re-opened turn keeps its start
                self.opened[seat] = (self.tokens[seat], now)
                self.fresh.append(seat)
        self.clocks = self.clocks.start_all(due, now)

    def start_clocks_when_told(self) -> None:
        """Starts the clocks of the turns just opened when their players were
        really told: a batched ``go`` is written only as its block ends, after
        ``open_turns``, and the time between is the harness's, not the mover's."""
        fresh, self.fresh = self.fresh, []
        for seat in fresh:
            opened = self.opened.get(seat)
            if opened is None:
                continue
            token, at = opened
            reached = self.seats[seat].turn_reached(seat, token)
            if reached is not None and reached > at:
                self.clocks = self.clocks.start_later(seat, reached)
                self.opened[seat] = (token, reached)

    def note_harness_delay(self, seat: Seat, ended: float) -> None:
        """Adds what the harness spent of ``seat``'s turn, which ended at ``ended``
        (``Player.harness_delay``), to the record."""
        opened = self.opened.pop(seat, None)
        if opened is None:
            return
        token, at = opened
        delay = self.seats[seat].harness_delay(seat, token, at, ended)
        if delay is not None:
            record = self.record
            record.harness_delay[seat] = record.harness_delay.get(seat, 0.0) + delay
            if delay > record.harness_delay_max:
                record.harness_delay_max = delay

    # -- the end -------------------------------------------------------------------

    async def finish(self, timeout: float, *, close: bool) -> None:
        """Stops the clocks, says game over to everyone, closes every player
        (unless ``close`` is false: they stay open for another game)."""
        now = trio.current_time()
        if self.game.outcome is None:
            self.game.abort("aborted")
        outcome = self.game.outcome
        assert outcome is not None
        self.clocks = self.clocks.stop_all(now)
        self.record.clocks = self.clocks
        # Players that started told their names, even if another one failed.
        self.record.names = {seat: player.name for seat, player in self.seats.items()}
        self.record.ended = now
        self.tokens.clear()
        self.emit(
            MatchEnded(
                game=self.game,
                names=self.record.names,
                outcome=outcome,
                clocks=self.clocks,
                now=now,
            )
        )
        with trio.move_on_after(timeout):
            async with trio.open_nursery() as closers:
                for player in self.players:
                    closers.start_soon(self._close, player, outcome, close)

    @staticmethod
    async def _close(player: Player, outcome: Outcome, close: bool) -> None:
        try:
            with trio.move_on_after(2.0):
                await player.game_over(outcome)
        except Exception:  # a player that cannot hear game over is closed anyway
            pass
        if close:
            await player.aclose()

    # -- helpers -----------------------------------------------------------------

    async def tell_moved(
        self, players: Sequence[Player], played: PlayedMove, state: TableState
    ) -> None:
        """Tells ``players`` the move, in order: ``notify_each`` of their ``moved``."""
        if not self.all_prompt:
            await self.notify_each(
                [(p.seats[0], partial(p.moved, played, state)) for p in players], prompt=True
            )
            return
        for player in players:  # every move's case: as notify_each, without its calls
            try:
                await player.moved(played, state)
            except _LOST as exc:
                self.lost(player.seats[0], exc)

    async def notify(
        self, seat: Seat, call: Callable[[], Awaitable[None]], *, stuck: str = STOPPED_READING
    ) -> None:
        """Makes one notification (``call()``); see ``notify_each``."""
        await self.notify_each([(seat, call)], stuck=stuck)

    async def notify_each(
        self,
        calls: Iterable[tuple[Seat, Callable[[], Awaitable[None]]]],
        *,
        prompt: bool = False,
        stuck: str = STOPPED_READING,
    ) -> None:
        """Makes the notifications in order; a player that cannot take one has left.

        One deadline covers the whole batch (a cancel scope costs tens of
        microseconds, and a move is told to four players). ``prompt``: the
        calls are ``moved`` or ``your_turn``; if every player called is
        ``Player.prompt`` they cannot block, and no deadline is set.
        ``stuck``: the reason a player that outlasts the deadline leaves with.
        """
        batch = list(calls)
        if prompt and (self.all_prompt or all(self.seats[seat].prompt for seat, _ in batch)):
            await self._call_each(batch)
            return
        try:
            with trio.fail_after(NOTIFY_TIMEOUT):
                await self._call_each(batch)
        except trio.TooSlowError:
            seat = self._calling
            assert seat is not None
            self.game.leave(seat, stuck)

    async def _call_each(self, calls: Iterable[tuple[Seat, Callable[[], Awaitable[None]]]]) -> None:
        for seat, call in calls:
            self._calling = seat
            try:
                await call()
            except _LOST as exc:
                self.lost(seat, exc)

    def lost(self, seat: Seat, exc: Exception) -> None:
        """``seat``'s player could not be told something: it has left."""
        why = f"connection lost: {exc}" if str(exc) else "connection lost"
        self.game.leave(seat, why)

    def state(self, now: float) -> TableState:
        """The table at ``now``; see the module docstring for the clocks."""
        at = self.move_arrivals(now)
        clocks = self.clocks.snapshot(now, at)
        if self.untimed:
            clocks = dict.fromkeys(SEATS, 0.0)  # protocol.md §5.15: no clocks to tell
        turn_left: dict[Seat, float] = {}
        limit = self.clocks.turn_time_limit
        if limit is not None:
            turn_left = {
                seat: max(0.0, limit - self.clocks.turn_used(seat, at.get(seat, now)))
                for seat in SEATS
            }
        return TableState(
            version=self.game.plies,
            fens=self.fens,
            clocks=clocks,
            turn_left=turn_left,
            no_double=self.no_double(),
        )

    def move_arrivals(self, now: float) -> dict[Seat, float]:
        """When each seat's move that has arrived but is not judged yet counts as made.

        Takes every action already in the channel into ``pending`` (in order):
        all of them arrived before ``now``, as players stamp and hand over an
        action in one step.
        """
        receive = self.receive
        if receive is not None:
            while True:
                try:
                    self.pending.append(receive.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                    break
        found: dict[Seat, float] = {}
        for action in self.pending:
            if isinstance(action, MoveAction) and self.tokens.get(action.seat) == action.token:
                found.setdefault(action.seat, self.arrival(action, now))
        return found

    def no_double(self) -> dict[BoardId, tuple[str, ...]] | None:
        """Under ``dropped_pawn_double_step=off``: the dropped pawns that may not
        double-step, per board (square names); None when the rule is on."""
        if self.game.rules.dropped_pawn_double_step:
            return None
        found = {}
        for board_id in BoardId:
            board = self.game.board(board_id)
            squares = chess.scan_forward(board.dropped_pawns & board.pawns)
            found[board_id] = tuple(chess.square_name(square) for square in squares)
        return found

    def since_start(self, now: float) -> float:
        started = self.record.started
        return 0.0 if started is None else now - started

    def ignore(self, action: Action, reason: str, now: float) -> None:
        self.emit(ActionIgnored(seat=action.seat, action=action, reason=reason, now=now))

    def emit(self, event: MatchEvent) -> None:
        if self.observer is not None:
            self.observer(event)


class _Fens(Mapping[BoardId, str]):
    """The FENs of both boards at one version of the game, each made on first use.

    A FEN costs a few microseconds, and telling a move needs none, so they are made
    after the players heard the move, when a turn or a player asks. The table
    calls ``freeze`` before it changes the boards, so a snapshot handed out
    keeps its position.
    """

    def __init__(self, game: BughouseGame, known: Mapping[BoardId, str] | None = None) -> None:
        self._game = game
        self._known = dict(known or {})
        self._frozen = False

    def __getitem__(self, board: BoardId) -> str:
        fen = self._known.get(board)
        if fen is None:
            if self._frozen or not isinstance(board, BoardId):
                raise KeyError(board)
            fen = self._known[board] = self._game.fen(board)
        return fen

    def __iter__(self) -> Iterator[BoardId]:
        return iter(BOARDS)

    def __len__(self) -> int:
        return len(BoardId)

    def __repr__(self) -> str:
        return f"_Fens({dict(self)!r})"

    def freeze(self) -> None:
        """Makes every FEN now: the game is about to change."""
        if not self._frozen:
            for board in BOARDS:
                self[board]
            self._frozen = True

    def after(self, changed: Collection[BoardId]) -> _Fens:
        """The FENs once ``changed`` boards moved on (the others are kept)."""
        assert self._frozen, "freeze() before changing the game"
        kept = {board: fen for board, fen in self._known.items() if board not in changed}
        return _Fens(self._game, kept)


#: What a player raises when it cannot be told something: it has left.
_LOST = (EngineFailed, trio.BrokenResourceError, trio.ClosedResourceError)


class _MoveOrders(NamedTuple):
    """``_Table.move_orders``: who is told of one seat's moves, in which order."""

    told: list[Player]  # every player, the mover last
    batched: list[Player]  # their ``batched()`` blocks, entered in this order
    following: Player  # the next to move on the mover's board
    following_only: list[Player]  # [following]
    rest: list[Player]  # ``told`` without ``following``
    batched_rest: list[Player]


class _Batched:
    """Every player's ``batched()`` block; they end, and write, last player first."""

    def __init__(self, players: Sequence[Player]) -> None:
        self._blocks = [player.batched() for player in players]

    def __enter__(self) -> None:
        for block in self._blocks:
            block.__enter__()

    def __exit__(self, *exc_info: object) -> None:
        for block in reversed(self._blocks):
            block.__exit__(None, None, None)


async def _next_action(
    receive: trio.MemoryReceiveChannel[Action], deadline: float
) -> Action | None:
    """The next action, or None once ``deadline`` has passed without one.

    An action already waiting is returned even after the deadline (the caller
    compares its arrival with the deadline). Sleeps until ``FLAG_EARLY``
    before the deadline, then polls, so the deadline is not overslept by
    epoll's rounding.
    """
    try:
        return receive.receive_nowait()
    except trio.WouldBlock:
        pass
    with trio.move_on_at(deadline - FLAG_EARLY):
        return await receive.receive()
    for _ in range(_FLAG_POLLS):
        if trio.current_time() >= deadline:
            return None
        await trio.lowlevel.checkpoint()
        try:
            return receive.receive_nowait()
        except trio.WouldBlock:
            pass
    with trio.move_on_at(deadline):
        return await receive.receive()
    return None
