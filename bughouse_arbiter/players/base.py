"""What the arbiter says to a player, and what a player says back.

Every kind of player (a native engine over our protocol, a UCI or xboard
engine through an adapter, a person at the console, a scripted test double)
implements ``Player``. The arbiter calls its methods to tell it things; the
player answers by sending ``Action`` values into the channel it was given in
``start``. A player may hold more than one seat (team mode); every call and
every action names the seat it is about.

Contract:
- ``start`` does the handshake and returns when the player is ready (raise
  ``EngineFailed`` if it cannot start). It must not block on anything but its
  own start-up.
- The notification methods must return promptly: they only queue or write
  lines. Thinking happens elsewhere (in the engine process, or in a task the
  player started in the nursery it was given).
- A player that dies or closes its output sends ``Gone`` once.
- ``aclose`` releases everything (quit, grace, SIGTERM, SIGKILL for a
  process) and is safe to call twice.
- A player that can play several games in a row (an engine kept alive
  across a tournament) answers ``can_play_again()`` with True after
  ``game_over``; ``reseat`` then moves it to other seats before the next
  ``new_game``. Players that cannot do this keep the defaults (False).
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, ClassVar

import attrs
import trio

from ..core.game import BoardResult, PlayedMove
from ..core.model import BoardId, Outcome, Seat
from ..core.rules import HouseRules


@attrs.frozen(kw_only=True)
class MatchInfo:
    """Everything a player learns when a match begins."""

    game_id: str
    names: Mapping[Seat, str]
    rules: HouseRules
    start_fens: Mapping[BoardId, str]
    #: Seats held by people (the others are engines).
    human_seats: frozenset[Seat] = frozenset()
    #: The book moves played from ``start_fens`` before the clocks started
    #: (both boards, in order); the table's position is where they lead.
    opening: tuple[PlayedMove, ...] = ()


@attrs.frozen(kw_only=True)
class TableState:
    """A snapshot of the whole table at one instant.

    ``version`` grows by one with every move on either board. ``clocks`` are
    the remaining seconds of all four seats at the moment of the snapshot.
    ``turn_left`` (only under ``turn_time_limit``) is each seat's time left of
    its turn's limit (the whole limit for a turn not begun). ``no_double``
    (only under ``dropped_pawn_double_step=off``) names, per board, the
    squares of dropped pawns that may not double-step: a FEN cannot say it.

    The arbiter hands the same snapshot to every player it tells of one
    change; ``shared`` is where players keep what they derive from it (a
    formatted line, say) so that it is made once, not once per player. Keys
    are the deriving module's own; it takes no part in comparisons.
    """

    version: int
    fens: Mapping[BoardId, str]
    clocks: Mapping[Seat, float]
    turn_left: Mapping[Seat, float] = attrs.field(factory=dict)
    no_double: Mapping[BoardId, tuple[str, ...]] | None = None
    # Not an init argument: a copy made with attrs.evolve (other clocks, say)
    # starts with nothing shared.
    shared: dict[str, Any] = attrs.field(factory=dict, init=False, eq=False, repr=False)


# -- actions: player -> arbiter ------------------------------------------------
#
# Every action may carry ``arrived_at``: the trio time at which the player
# received it (an engine's line read off its pipe, a key pressed). The
# arbiter stops the mover's clock at that instant (never before the turn
# began, never after the arbiter took the action), so the time an action
# spends reaching the arbiter is charged to nobody. None: when the arbiter
# takes it. It takes no part in comparing actions.


@attrs.frozen(kw_only=True)
class MoveAction:
    """``seat`` plays ``move`` (text as the player wrote it) for turn ``token``."""

    seat: Seat
    token: int
    move: str
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class WaitAction:
    """``seat`` sits on turn ``token``: its clock keeps running."""

    seat: Seat
    token: int
    reason: str = ""
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class ResignAction:
    seat: Seat
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class DrawOfferAction:
    """``seat`` offers (or, when one is pending, accepts) a draw."""

    seat: Seat
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class TellAction:
    """``seat`` says ``text`` to its partner."""

    seat: Seat
    text: str
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class InfoAction:
    """Search information (score, depth, pv...) for logs and the BPGN."""

    seat: Seat
    text: str
    arrived_at: float | None = attrs.field(default=None, eq=False)


@attrs.frozen(kw_only=True)
class Gone:
    """``seat``'s player left: crashed, closed its pipe, failed the protocol, or quit."""

    seat: Seat
    reason: str
    arrived_at: float | None = attrs.field(default=None, eq=False)


Action = MoveAction | WaitAction | ResignAction | DrawOfferAction | TellAction | InfoAction | Gone


class Player(abc.ABC):
    """One player at the table, holding one seat (or two in team mode)."""

    #: Display name (engine id name, or the person's name).
    name: str
    #: The seats this player holds.
    seats: tuple[Seat, ...]
    #: True: when a piece reaches one of its seats while that seat waits (it
    #: answered ``wait``), the arbiter re-opens the turn with a new token and a
    #: fresh ``your_turn`` (the clock keeps running from the turn's start).
    refresh_waiting_turn: bool = False
    #: True when ``moved`` and ``your_turn`` return without waiting (they
    #: only queue what they send): the arbiter then makes those calls
    #: without a deadline, which costs a cancel scope each time.
    prompt: ClassVar[bool] = False

    @abc.abstractmethod
    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        """Starts the player (process, handshake) and keeps ``actions`` to answer on."""

    @abc.abstractmethod
    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        """A match begins."""

    @abc.abstractmethod
    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        """It is ``seat``'s turn; answers must carry ``token``."""

    @abc.abstractmethod
    async def moved(self, played: PlayedMove, state: TableState) -> None:
        """A move was made on either board (sent to every player, also mid-think)."""

    @abc.abstractmethod
    async def partner_says(self, seat: Seat, text: str) -> None:
        """``seat``'s partner said ``text`` to it."""

    async def draw_offered(self, by: Seat) -> None:  # noqa: B027 - optional hook
        """Someone offered a draw; answer with ``DrawOfferAction`` to accept."""

    async def move_refused(  # noqa: B027 - optional hook
        self, seat: Seat, token: int, move: str, reason: str
    ) -> None:
        """The move for turn ``token`` was refused (``illegal_move=reject``); a new turn follows."""

    async def board_ended(self, result: BoardResult) -> None:  # noqa: B027 - optional hook
        """One board finished and the other plays on (``board_end=continue``)."""

    def batched(self) -> AbstractContextManager[None]:
        """While the block runs, what the player sends may be held and sent at its end.

        The arbiter tells a move and opens the next turn inside one block, so
        an engine gets ``event``, ``state`` and ``go`` in one write.
        """
        return contextlib.nullcontext()

    @abc.abstractmethod
    async def game_over(self, outcome: Outcome) -> None:
        """The match ended."""

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Leaves the table for good; safe to call more than once."""

    def turn_reached(self, seat: Seat, token: int) -> float | None:
        """The trio time at which turn ``token`` of ``seat`` reached the player
        (its ``go`` written to the engine's pipe); None: not yet, or cannot tell."""
        return None

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        """Seconds of ``seat``'s turn ``token`` (the turn its clock started with,
        running from ``opened_at`` to ``ended_at``) that the harness, not the
        player, spent: until the turn was written to the player, and the time
        its answer may have waited to be read (``players.latency``). The arbiter
        asks once per turn, as the turn ends. None: this player cannot tell.
        """
        return None

    async def ping(self, timeout: float) -> bool | None:
        """Asks the player whether it still answers (between games, after ``game_over``).

        True: it answered within ``timeout`` seconds (``readyok`` to
        ``isready``, ``pong`` to an xboard ``ping``); False: it did not, or it
        is gone; None: this player cannot be asked (the default).
        """
        return None

    def can_play_again(self) -> bool:
        """True if, after ``game_over``, this player can start another game
        (its process is alive and between games)."""
        return False

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        """Moves the player to ``seats`` (as many as it holds) for its next game.

        Only between games, and only for a player that ``can_play_again``.
        """
        raise NotImplementedError(f"{type(self).__name__} plays one game only")
