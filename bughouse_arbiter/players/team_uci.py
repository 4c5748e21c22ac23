"""A team-UCI engine (hivemind's dialect) at both seats of one team.

One process, one ``TeamUciAdapter`` (``adapters/team_uci.py``); the process
and its two tasks are ``ExternalEnginePlayer``'s. Each answer names the seat
it is for: a board's move or ``pass`` goes to the team's seat on that board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

from ..adapters.team_uci import SeatInfo, SeatMove, SeatWait, TeamEvent, TeamUciAdapter
from ..config.specs import NO_LIMITS, SearchLimits
from ..core.game import PlayedMove
from ..core.model import Seat
from .base import Action, InfoAction, MatchInfo, MoveAction, TableState, WaitAction
from .external import ExternalEnginePlayer
from .process import Log


class TeamUciPlayer(ExternalEnginePlayer):
    """Runs ``command`` for both ``seats`` of a team and speaks team UCI to it."""

    protocol = "team-uci"
    # It has every method the base class calls (handshake, ping, options, quit);
    # the arbiter's calls, which differ, are this class's own.
    adapter_class = TeamUciAdapter  # type: ignore[assignment]

    def __init__(
        self,
        seats: tuple[Seat, Seat],
        command: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        limits: SearchLimits = NO_LIMITS,
        handshake_timeout: float = 10.0,
        log: Log | None = None,
    ) -> None:
        if len(seats) != 2 or seats[0].team is not seats[1].team:
            raise ValueError("a team-UCI engine holds the two seats of one team")
        super().__init__(
            seats[0],
            command,
            name=name,
            cwd=cwd,
            options=options,
            init=init,
            limits=limits,
            handshake_timeout=handshake_timeout,
            log=log,
        )
        self.seats = tuple(seats)
        # When each seat's turn reached the engine (``harness_delay``): tokens by seat.
        self._reached: dict[tuple[Seat, int], float] = {}

    @property
    def team_adapter(self) -> TeamUciAdapter:
        adapter = self.adapter
        assert isinstance(adapter, TeamUciAdapter)
        return adapter

    def _action(self, event: TeamEvent) -> Action | None:
        if isinstance(event, SeatMove):
            return MoveAction(seat=event.seat, token=event.token, move=event.move)
        if isinstance(event, SeatWait):
            return WaitAction(seat=event.seat, token=event.token, reason=event.reason)
        if isinstance(event, SeatInfo):
            return InfoAction(seat=event.seat, text=event.text)
        return super()._action(event)

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self._reached.clear()
        self.team_adapter.new_game(
            info.rules, info.start_fens, state.clocks, info.opening, state.fens
        )
        self._flush()

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.team_adapter.your_turn(seat, token, state.fens, state.clocks)
        self._flush()
        self.engine.when_written(partial(self._seat_reached, seat, token))

    def _seat_reached(self, seat: Seat, token: int, at: float) -> None:
        self._reached.setdefault((seat, token), at)

    def turn_reached(self, seat: Seat, token: int) -> float | None:
        return self._reached.get((seat, token))

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        reached = self._reached.pop((seat, token), ended_at)  # never sent: all of it
        for key in [key for key in self._reached if key[0] is seat]:
            del self._reached[key]  # the turn's refreshes
        return min(max(0.0, reached - opened_at), max(0.0, ended_at - opened_at))

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self.team_adapter.moved(played, state.fens, state.clocks)
        self._flush()

    async def game_over(self, outcome: object) -> None:
        self.team_adapter.game_over()
        self._flush()

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        if len(seats) != 2 or seats[0].team is not seats[1].team:
            raise ValueError("a team-UCI engine holds the two seats of one team")
        self.seats = tuple(seats)
        self.seat = self.team_adapter.seat = seats[0]
