"""What the arbiter tells its observer, and what a match leaves behind.

Values only: ``run_match`` (``arbiter.py``) emits these events to its
``observer`` callback and returns a ``MatchRecord``. Every event carries
``now``, the arbiter's trio time when it happened: for an action, when the
player received it (its ``arrived_at``, within the turn). ``MovePlayed``
reaches the observer after the players have heard the move and the next
turns are open. ``arbiter`` re-exports
all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from ..core.clock import Clocks
from ..core.game import BughouseGame, PartnerMessage, PlayedMove
from ..core.model import Outcome, Seat
from ..core.rules import HouseRules
from ..players.base import Action

# -- what the observer sees ----------------------------------------------------


@attrs.frozen(kw_only=True)
class MatchStarted:
    """The clocks start now. ``game`` is live: read it, never change it."""

    game: BughouseGame
    names: Mapping[Seat, str]
    clocks: Clocks
    now: float


@attrs.frozen(kw_only=True)
class MovePlayed:
    """``played`` was accepted; its turn took ``used`` seconds on the arbiter's clock.

    ``clocks`` are taken once the next turns have opened: the mover's clock is
    stopped and every seat now to move has its clock running."""

    played: PlayedMove
    used: float
    clocks: Clocks
    now: float


@attrs.frozen(kw_only=True)
class MoveRefused:
    """``seat``'s move ``text`` was refused (``reason``); its turn stays open."""

    seat: Seat
    text: str
    reason: str
    now: float


@attrs.frozen(kw_only=True)
class ActionIgnored:
    """A harmless action was dropped, e.g. an answer to an old turn."""

    seat: Seat
    action: Action
    reason: str
    now: float


@attrs.frozen(kw_only=True)
class PlayerWaits:
    """``seat`` said it waits (sits, or has no move); its clock runs on."""

    seat: Seat
    reason: str
    now: float


@attrs.frozen(kw_only=True)
class PartnerTold:
    message: PartnerMessage
    now: float


@attrs.frozen(kw_only=True)
class DrawOffered:
    seat: Seat
    now: float


@attrs.frozen(kw_only=True)
class InfoReported:
    """Search information an engine sent (depth, score...)."""

    seat: Seat
    text: str
    now: float


@attrs.frozen(kw_only=True)
class SeatTakenOver:
    """A network seat's player did not come back and an engine took the seat
    (``leaver=computer``); ``names`` are every seat's names now, that seat's
    as the record gives it (``Alice / searcher``). Told by ``bughouse serve``
    to its front ends, not by the arbiter."""

    seat: Seat
    names: Mapping[Seat, str]
    now: float


@attrs.frozen(kw_only=True)
class MatchEnded:
    """The match is over (``outcome.aborted`` after a cancellation).

    Sent even when the match never started (a player failed to start), so
    ``game`` may have no moves.
    """

    game: BughouseGame
    names: Mapping[Seat, str]
    outcome: Outcome
    clocks: Clocks
    now: float


MatchEvent = (
    MatchStarted
    | MovePlayed
    | MoveRefused
    | ActionIgnored
    | PlayerWaits
    | PartnerTold
    | DrawOffered
    | InfoReported
    | SeatTakenOver
    | MatchEnded
)
Observer = Callable[[MatchEvent], None]


@attrs.define(kw_only=True)
class MatchRecord:
    """What ``run_match`` returns: the judged game and how the arbiter ran it.

    ``started`` is the trio time at which the clocks started (None if the
    match never started); ``PlayedMove.at`` counts from it. ``used`` holds the
    seconds each move's turn took, up to the move's arrival, for the moves
    played at the table in order (a book's opening moves, played before the
    clocks started, have none).
    ``overheads`` holds, per move, the seconds from taking the move off the
    action channel to having told every player about it; ``flag_latencies``
    the seconds between a flag's deadline and the arbiter declaring it.
    ``harness_delay`` sums, per seat, the seconds of its turns that ran on its
    clock while the harness, not the player, had them (``Player.harness_delay``:
    before the turn reached the engine, and its answer's wait to be read);
    ``harness_delay_max`` is the most of one turn. Seats whose players cannot
    tell are missing.
    """

    game: BughouseGame
    names: Mapping[Seat, str]
    game_id: str
    clocks: Clocks
    started: float | None = None
    ended: float | None = None
    used: list[float] = attrs.field(factory=list)
    overheads: list[float] = attrs.field(factory=list)
    flag_latencies: list[float] = attrs.field(factory=list)
    harness_delay: dict[Seat, float] = attrs.field(factory=dict)
    harness_delay_max: float = 0.0

    @property
    def rules(self) -> HouseRules:
        return self.game.rules

    @property
    def outcome(self) -> Outcome:
        assert self.game.outcome is not None, "the match has not ended"
        return self.game.outcome
