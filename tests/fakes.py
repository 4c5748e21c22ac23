"""In-memory players for arbiter tests: scripted answers at exact virtual times.

A ``FakePlayer`` answers each turn of a seat with the next entry of that
seat's script. An entry is one step or a tuple of steps run in order; each
step waits ``after`` seconds (on trio's clock, so virtual under
``autojump_clock``) and then sends its action, stamped with that moment as
``arrived_at``; a ``Move`` with ``late`` reaches the arbiter that many
seconds after its stamp (a slow hand-over). When a seat's script runs out
the player stays silent. Everything the arbiter says is recorded.
"""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Iterator, Mapping, Sequence

import attrs
import trio

from bughouse_arbiter.core.board import BughouseBoard
from bughouse_arbiter.core.game import BoardResult, PlayedMove
from bughouse_arbiter.core.model import BoardId, Outcome, Seat
from bughouse_arbiter.errors import EngineFailed
from bughouse_arbiter.players.base import (
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


@attrs.frozen
class Move:
    """Play ``text`` for the open turn; handed over ``late`` seconds after it
    arrived. ``stamp`` overrides the arrival time (a line stamped wrongly)."""

    text: str
    after: float = 0.0
    late: float = 0.0
    stamp: float | None = None


@attrs.frozen
class Stale:
    """Play ``text`` with the token of this seat's previous turn (or ``token``)."""

    text: str
    after: float = 0.0
    token: int | None = None


@attrs.frozen
class Wait:
    """Wait on the open turn, or (``stale``) with the token of this seat's previous turn."""

    after: float = 0.0
    reason: str = "sit"
    stale: bool = False


@attrs.frozen
class Resign:
    after: float = 0.0


@attrs.frozen
class Offer:
    after: float = 0.0


@attrs.frozen
class Tell:
    text: str
    after: float = 0.0


@attrs.frozen
class Info:
    text: str
    after: float = 0.0


@attrs.frozen
class Leave:
    reason: str = "crashed"
    after: float = 0.0


Step = Move | Stale | Wait | Resign | Offer | Tell | Info | Leave
Entry = Step | tuple[Step, ...]


class FakePlayer(Player):
    """A scripted player for one or more seats.

    Args:
        seats: The seats it holds.
        script: Per seat, the entries answering its turns in order.
        start_error: If set, ``start`` raises ``EngineFailed`` with it.
        start_delay: Seconds ``start`` takes.
        stuck_on_moves: ``moved`` never returns (a player that stopped reading).
        slow_moves: ``moved`` takes this many seconds (keeps the arbiter busy).
        broken_on_turn: ``your_turn`` raises ``EngineFailed`` (a closed pipe).
        broken_on: Other notifications (method names) that raise ``EngineFailed``.
        broken_text: What that ``EngineFailed`` says.
        start_os_error: If set, ``start`` raises it (an engine that cannot be run).
        slow_turns: ``your_turn`` takes this many seconds.
        hang_on: ``new_game``, ``game_over`` and/or ``aclose`` (method names) never
            return (``new_game``: an engine that never says it is ready).
    """

    def __init__(
        self,
        seats: Seat | Sequence[Seat],
        script: Mapping[Seat, Sequence[Entry]] | None = None,
        *,
        name: str = "fake",
        start_error: str | None = None,
        start_delay: float = 0.0,
        stuck_on_moves: bool = False,
        slow_moves: float = 0.0,
        broken_on_turn: bool = False,
        broken_on: Sequence[str] = (),
        broken_text: str = "pipe closed",
        start_os_error: OSError | None = None,
        slow_turns: float = 0.0,
        hang_on: Sequence[str] = (),
    ) -> None:
        self.seats = (seats,) if isinstance(seats, Seat) else tuple(seats)
        self.name = name
        self.script = {seat: list((script or {}).get(seat, ())) for seat in self.seats}
        self.start_error = start_error
        self.start_delay = start_delay
        self.stuck_on_moves = stuck_on_moves
        self.slow_moves = slow_moves
        self.broken_on_turn = broken_on_turn
        self.broken_on = frozenset(broken_on)
        self.broken_text = broken_text
        self.start_os_error = start_os_error
        self.slow_turns = slow_turns
        self.hang_on = frozenset(hang_on)
        #: The trio time ``aclose`` was called at.
        self.closed_at: float | None = None
        self.starts = 0
        self.turns: list[tuple[Seat, int, float]] = []
        self.states: list[TableState] = []
        # Every snapshot told, in order: new game, turns and moves.
        self.snapshots: list[TableState] = []
        self.heard: list[PlayedMove] = []
        self.heard_states: list[TableState] = []
        self.heard_fens: list[dict[BoardId, str]] = []
        self.told: list[tuple[Seat, str]] = []
        self.offers: list[Seat] = []
        self.refused: list[tuple[Seat, int, str]] = []
        self.refusals: list[str] = []
        self.boards_ended: list[BoardResult] = []
        self.info: MatchInfo | None = None
        self.first_state: TableState | None = None
        #: The name the player tells once started (as an engine does in its handshake).
        self.told_name: str | None = None
        self.outcome: Outcome | None = None
        self.closed = 0
        self.last_token: dict[Seat, int] = {}
        #: ("begin",) / ("end", n) around each ``batched()`` block (n counts the
        #: ends of every fake player's blocks), ("moved", ply), ("turn", seat),
        #: ("board_ended", board).
        self.journal: list[tuple[object, ...]] = []
        self._nursery: trio.Nursery | None = None
        self._actions: trio.MemorySendChannel[Action] | None = None

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self.starts += 1
        await trio.sleep(self.start_delay)
        if self.start_error is not None:
            raise EngineFailed(self.start_error)
        if self.start_os_error is not None:
            raise self.start_os_error
        self._nursery = nursery
        self._actions = actions
        if self.told_name is not None:
            self.name = self.told_name

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self._maybe_broken("new_game")
        if "new_game" in self.hang_on:
            await trio.sleep_forever()
        self.info = info
        self.first_state = state
        self.snapshots.append(state)

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        if self.broken_on_turn:
            raise EngineFailed(self.broken_text)
        if self.slow_turns:
            await trio.sleep(self.slow_turns)
        self.turns.append((seat, token, trio.current_time()))
        self.journal.append(("turn", seat))
        self.states.append(state)
        self.snapshots.append(state)
        previous = self.last_token.get(seat)
        self.last_token[seat] = token
        entry = self.next_entry(seat, state)
        if entry is None:
            return
        steps = entry if isinstance(entry, tuple) else (entry,)
        assert self._nursery is not None
        self._nursery.start_soon(self._run, seat, token, previous, steps)

    def next_entry(self, seat: Seat, state: TableState) -> Entry | None:
        entries = self.script[seat]
        return entries.pop(0) if entries else None

    async def _run(
        self, seat: Seat, token: int, previous: int | None, steps: tuple[Step, ...]
    ) -> None:
        for step in steps:
            await trio.sleep(step.after)
            action = self.action(seat, token, previous, step)
            if isinstance(step, Move) and step.late:
                await trio.sleep(step.late)
            await self.send(action)

    @staticmethod
    def action(seat: Seat, token: int, previous: int | None, step: Step) -> Action:
        """The action ``step`` stands for, stamped as arriving now."""
        now = trio.current_time()
        if isinstance(step, Move) and step.stamp is not None:
            now = step.stamp
        action = FakePlayer._action(seat, token, previous, step)
        return attrs.evolve(action, arrived_at=now)

    @staticmethod
    def _action(seat: Seat, token: int, previous: int | None, step: Step) -> Action:
        if isinstance(step, Move):
            return MoveAction(seat=seat, token=token, move=step.text)
        if isinstance(step, Stale):
            old = step.token if step.token is not None else previous
            return MoveAction(seat=seat, token=old if old is not None else -1, move=step.text)
        if isinstance(step, Wait):
            old = previous if previous is not None else -1
            return WaitAction(seat=seat, token=old if step.stale else token, reason=step.reason)
        if isinstance(step, Resign):
            return ResignAction(seat=seat)
        if isinstance(step, Offer):
            return DrawOfferAction(seat=seat)
        if isinstance(step, Tell):
            return TellAction(seat=seat, text=step.text)
        if isinstance(step, Info):
            return InfoAction(seat=seat, text=step.text)
        return Gone(seat=seat, reason=step.reason)

    async def send(self, action: Action) -> None:
        assert self._actions is not None
        await self._actions.send(action)

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self._maybe_broken("moved")
        if self.stuck_on_moves:
            await trio.sleep_forever()  # breaks the contract: never blocks
        if self.slow_moves:
            await trio.sleep(self.slow_moves)
        self.heard.append(played)
        self.heard_states.append(state)
        self.heard_fens.append(dict(state.fens))  # read now, as a player would
        self.snapshots.append(state)
        self.journal.append(("moved", played.ply))

    @contextlib.contextmanager
    def batched(self) -> Iterator[None]:
        self.journal.append(("begin",))
        try:
            yield
        finally:
            self.journal.append(("end", next(_BATCH_ENDS)))

    async def partner_says(self, seat: Seat, text: str) -> None:
        self._maybe_broken("partner_says")
        self.told.append((seat, text))

    def _maybe_broken(self, method: str) -> None:
        if method in self.broken_on:
            raise EngineFailed(self.broken_text)

    async def draw_offered(self, by: Seat) -> None:
        self._maybe_broken("draw_offered")
        self.offers.append(by)

    async def move_refused(self, seat: Seat, token: int, move: str, reason: str) -> None:
        self._maybe_broken("move_refused")
        self.refused.append((seat, token, move))
        self.refusals.append(reason)

    async def board_ended(self, result: BoardResult) -> None:
        self._maybe_broken("board_ended")
        self.boards_ended.append(result)
        self.journal.append(("board_ended", result.board))

    async def game_over(self, outcome: Outcome) -> None:
        await trio.lowlevel.checkpoint()  # as a real player writes its line
        if "game_over" in self.hang_on:
            await trio.sleep_forever()
        self.outcome = outcome

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()
        self.closed_at = trio.current_time()
        if "aclose" in self.hang_on:
            await trio.sleep_forever()
        self.closed += 1


class PromptFake(FakePlayer):
    """A FakePlayer that says it is ``prompt``: its ``moved`` and ``your_turn``
    are called without a deadline (its ``slow_moves``/``slow_turns`` break that
    contract on purpose, to show no deadline is set)."""

    prompt = True


class RandomFake(FakePlayer):
    """Plays a random legal move ``think`` seconds after each turn (waits if it has none)."""

    def __init__(self, seats: Seat | Sequence[Seat], *, seed: int = 0, think: float = 1.0) -> None:
        super().__init__(seats, name=f"random-{seed}")
        self.random = random.Random(seed)
        self.think = think

    def next_entry(self, seat: Seat, state: TableState) -> Entry | None:
        board = BughouseBoard(state.fens[seat.board])
        moves = sorted(move.uci() for move in board.legal_moves)
        if not moves:
            return Wait(self.think, "no move")
        return Move(self.random.choice(moves), self.think)


_BATCH_ENDS = itertools.count()


def silent_table(
    kind: type[FakePlayer] = FakePlayer, /, **scripts: Sequence[Entry]
) -> list[FakePlayer]:
    """One player of ``kind`` per seat; keyword names are seat slugs with ``_``
    (``a_white=[...]``)."""
    players = []
    for seat in Seat:
        key = seat.slug.replace("-", "_")
        players.append(kind(seat, {seat: scripts.get(key, ())}, name=key))
    return players
