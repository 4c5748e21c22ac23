"""One lobby table's games, run as ``serve`` runs its table, in a nursery of its own.

A *series* is the games the same players play in a row (the first game and
its rematches): for it the host makes a ``RemoteSeat`` (and a
``RemoteEnginePlayer`` over it) per seat a guest or bot holds, gives them
fresh tokens on the host's one ``HallTable`` (a ``LiveTable`` whose remote
seats change from series to series, so a page watching the table stays on
it), and waits for every such seat to be taken (``join_timeout``). The
other seats are the built-in engine's, started by the table's
``EngineKeeper`` and kept from game to game. Every game is written with a
``GameWriter`` to the table's BPGN file and handed to the ``Archive``; a
rematch reseats the same players (colours swapped, as the lobby says) with
``seat_players``, exactly as ``serve --games`` rotates them.

Whatever goes wrong in one table (an engine that fails, a bug, a hostile
client's effect) is logged with the table's id and ends that table's
series only: ``run`` never raises.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs
import trio

from ..config.specs import EngineSpec, builtin_engine, game_seed
from ..core.model import SEATS, Outcome, Seat
from ..core.rules import HouseRules, to_pairs
from ..lobby.archive import Archive, GameFinished, GameStarted
from ..lobby.identity import Identity
from ..lobby.tables import TableSpec
from ..players.process import EngineProcess
from ..serve.remote import RemoteEnginePlayer, RemoteSeat, names_now, taken_over
from ..serve.seam import LiveTable, SeatHolder, new_tokens
from ..table.arbiter import MatchEnded, MatchEvent, MatchStarted, MovePlayed
from ..table.games import play_game
from ..table.keeper import EngineKeeper, entrants
from ..table.match_events import SeatTakenOver
from ..table.recording import GameWriter

if TYPE_CHECKING:
    from .web.table_pages import TablePages

Log = Callable[[str], None]
Finish = Literal["played", "not started", "failed"]
#: Seconds a remote player's game over waits for the archive to keep the game.
RECORD_WAIT = 1.5
#: Seconds the players of a series get, all at once, to be told ``quit`` and let go.
SHUTDOWN_WAIT = 2.0
#: Seconds every seated player gets to take its seat before the game is called off.
JOIN_TIMEOUT = 60.0
#: The engine that takes a seat whose player did not come back (``leaver=computer``).
REPLACEMENT = "searcher"


class HallTable(LiveTable):
    """A ``LiveTable`` whose remote seats (and tokens) are set per series."""

    def __init__(self, table_id: str, rules: HouseRules, *, log: Log) -> None:
        self.names_now: dict[Seat, str] = {}
        super().__init__(rules, {}, names=lambda: dict(self.names_now), log=log)
        self.table_id = table_id

    def new_series(self, holders: Mapping[Seat, SeatHolder]) -> None:
        """Seats ``holders`` for the next games, each with a fresh token."""
        self._holders = dict(holders)
        self.remote_seats = tuple(s for s in SEATS if s in holders)
        self.tokens = new_tokens(self.remote_seats)
        self.seating = {seat: seat for seat in self.remote_seats}

    def end_series(self) -> None:
        self.new_series({})


@attrs.frozen
class Request:
    """The lobby's word to the host: a game with these seats, or the series' end."""

    seats: Mapping[Seat, Identity] | None
    rematch: bool = False


class TableHost:
    """Runs one table (see the module docstring)."""

    def __init__(
        self,
        table_id: str,
        spec: TableSpec,
        *,
        out: Path,
        computer: EngineSpec,
        archive: Archive,
        log: Log,
        seated: Callable[[str, Identity, Seat, str], None],
        finished: Callable[[str, Finish, str], None],
        join_timeout: float = JOIN_TIMEOUT,
    ) -> None:
        self.id = table_id
        self.spec = spec
        self.out = out
        self.computer = computer
        self.archive = archive
        self.join_timeout = join_timeout
        self._log = log
        #: Called with (table id, identity, remote seat, token) as each player is seated.
        self._seated = seated
        #: Called with (table id, how, why) once per game: ``played`` (once the archive
        #: has it, before any seat or page hears its end: ``GameEnd``), ``not started``
        #: (a seat stayed empty) or ``failed`` (the table is closed).
        self._finished = finished
        self.live = HallTable(table_id, spec.rules, log=self.log)
        self._requests, self._incoming = trio.open_memory_channel[Request](math.inf)
        self.games = 0
        #: The table's pages (``hall.pages.TablePages``), set by the ``Hall``.
        self.pages: TablePages | None = None
        #: Who holds each remote seat (its token's seat) in the series being played.
        self.who: dict[Seat, Identity] = {}

    def log(self, text: str) -> None:
        self._log(f"table {self.id}: {text}")

    # -- the lobby's side ----------------------------------------------------------------

    def start_game(self, seats: Mapping[Seat, Identity], *, rematch: bool) -> None:
        self._requests.send_nowait(Request(dict(seats), rematch))

    def end_series(self) -> None:
        self._requests.send_nowait(Request(None))

    def close(self) -> None:
        self._requests.close()

    # -- running -------------------------------------------------------------------------

    async def run(self) -> None:
        """Plays whatever the lobby asks until closed; never raises an ``Exception``."""
        try:
            async with EngineKeeper.open() as keeper:
                request: Request | None = await self._next()
                while request is not None:
                    if request.seats is None:
                        request = await self._next()
                        continue
                    request = await self._series(keeper, request.seats)
        except Exception as exc:  # one table's failure never reaches the others
            leaf = _leaf(exc)
            self.log(f"failed ({type(leaf).__name__}: {leaf}); the table is closed")
            self._finished(self.id, "failed", "the table failed and was closed")
        finally:
            self.live.end_series()

    async def _next(self) -> Request | None:
        try:
            return await self._incoming.receive()
        except trio.EndOfChannel:
            return None

    async def _series(self, keeper: EngineKeeper, seats: Mapping[Seat, Identity]) -> Request | None:
        """Plays the series that starts with ``seats``; returns the request after it."""
        async with trio.open_nursery() as home:
            remote = {s: who for s, who in seats.items() if who.kind != "computer"}
            holders = {
                seat: RemoteSeat(
                    seat,
                    grace=self.spec.rules.reconnect_grace,
                    leaver=self.spec.rules.leaver,
                    replacement=_replacement,
                    log=self.log,
                )
                for seat in remote
            }
            players = {
                seat: HeldRemotePlayer(holder, home, name=remote[seat].name, log=self.log)
                for seat, holder in holders.items()
            }
            for seat, holder in holders.items():
                holder.on_replaced = partial(self._taken_over, seat)
            self.live.new_series(holders)
            #: Remote seat (token's) -> who holds it.
            joined = self.who = dict(remote)
            try:
                for seat, who in joined.items():
                    self._seated(self.id, who, seat, self.live.tokens[seat])
                request: Request | None = Request(dict(seats), False)
                while request is not None and request.seats is not None:
                    by_name = {who.name: seat for seat, who in request.seats.items()}
                    seating = {s: by_name.get(who.name, s) for s, who in joined.items()}
                    if not await self._ready(holders):
                        missing = [joined[s].name for s, h in holders.items() if not h.connected]
                        why = f"{', '.join(missing)} did not take the seat in time"
                        self.log(f"game not started: {why}")
                        self._finished(self.id, "not started", f"the game did not start: {why}")
                        return await self._next()
                    await self._play(keeper, request.seats, seating, players)
                    request = await self._next()
                    if request is not None and request.seats is not None and not request.rematch:
                        return request  # new players: a new series
                return request
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(SHUTDOWN_WAIT):
                    async with trio.open_nursery() as closing:
                        for player in players.values():
                            closing.start_soon(player.shutdown)
                self.live.end_series()
                self.who = {}
                home.cancel_scope.cancel()

    def _taken_over(self, joined: Seat, engine: str) -> None:
        """Tells the pages that ``engine`` took the seat of ``joined``'s player (as ``serve``)."""
        seat = self.live.seat_of(joined)
        names = self.live.names_now
        who = self.who.get(joined)
        names[seat] = taken_over(names.get(seat, who.name if who else seat.value), engine)
        self.live.emit(SeatTakenOver(seat=seat, names=dict(names), now=trio.current_time()))

    async def _ready(self, holders: Mapping[Seat, RemoteSeat]) -> bool:
        with trio.move_on_after(self.join_timeout):
            for holder in holders.values():
                await holder.wait_ready()
        return all(h.connected or h.replaced_by is not None for h in holders.values())

    async def _play(
        self,
        keeper: EngineKeeper,
        seats: Mapping[Seat, Identity],
        seating: Mapping[Seat, Seat],
        players: Mapping[Seat, HeldRemotePlayer],
    ) -> None:
        self.games += 1
        index = self.games
        for joined, player in players.items():
            player.reseat((seating[joined],))
        self.live.seat_players(dict(seating))
        playing = {player.seat: player for player in players.values()}
        local = [seat for seat in SEATS if seat not in playing]
        names = {seat: who.name for seat, who in seats.items()}
        writer = GameWriter(self.out, game_number=index, games=index + 1)
        #: The same game kept as text, for the archive.
        kept = GameWriter(None, game_number=index, games=index + 1)
        rules = " ".join(f"{n}={v}" for n, v in to_pairs(self.spec.rules))
        began: list[bool] = []
        moved: set[Seat] = set()  # an aborted game (someone never moved) is not rated
        begun = trio.Event()
        end = GameEnd(partial(self._finished, self.id, "played"))
        for player in players.values():
            player.end = end

        async def begin(header: str) -> None:
            start = GameStarted(
                table=self.id,
                game=index,
                tc=str(self.spec.tc),
                rules=rules,
                rated=self.spec.rated,
                seats=dict(seats),
                header=header,
            )
            try:
                await self.archive.begin(start)
            except Exception as exc:  # storage is not the table's business
                self.log(f"the archive failed ({type(exc).__name__}: {exc})")
            finally:
                begun.set()

        async def record(event: MatchEnded) -> None:
            """Keeps the game, then tells its end: pages here, players in ``game_over``."""
            outcome = event.outcome
            self.log(f"game {index} ended: {outcome.result.value} ({outcome.reason})")
            if writer.error is not None:
                self.log(writer.error)
            finished = GameFinished(
                table=self.id,
                game=index,
                tc=str(self.spec.tc),
                rated=self.spec.rated,
                seats=dict(seats),
                result=outcome.result.value,
                reason=outcome.reason,
                termination=outcome.termination.value,
                path=None if writer.error is not None else self.out,
                bpgn=kept.text,
                moved=frozenset(moved),
            )
            try:
                await begun.wait()
                await self.archive.record(finished)
            except Exception as exc:  # storage is not the table's business
                self.log(f"the archive failed ({type(exc).__name__}: {exc})")
            finally:
                end.recorded()
                self.live.emit(event)

        def observe(event: MatchEvent) -> None:
            if isinstance(event, MovePlayed):
                moved.add(event.played.seat)
                player = playing.get(event.played.seat)
                lag = None if player is None else player.move_lag.pop(event.played.seat, None)
                if lag is not None:
                    writer.add_lag(event.played.seat, round(lag * 1000))
            if isinstance(event, MatchEnded):  # the final tags name who took a seat over
                writer.rename(names_now(names, playing))
            writer.observe(event)
            kept.observe(event)
            if isinstance(event, MatchStarted):
                writer.rename(names)
                kept.rename(names)
                header = "" if kept.recorder is None else kept.recorder.header_text()
                began.append(True)
                books.start_soon(begin, header)
            if isinstance(event, MatchStarted | MatchEnded):
                event = attrs.evolve(event, names=names_now(names, playing))
                self.live.names_now = dict(event.names)
            if isinstance(event, MatchEnded):
                end.reason = event.outcome.reason
                if not began:  # no start: the archive is told of it once, at the end
                    begun.set()
                books.start_soon(record, event)
                return
            self.live.emit(event)

        humans = [seat for seat, player in playing.items() if player.remote.human]
        self.log(f"game {index} starts: {', '.join(f'{s.bpgn} {n}' for s, n in names.items())}")
        async with trio.open_nursery() as books:
            await play_game(
                entrants({seat: self.computer for seat in local}),
                self.spec.rules,
                game_id=f"{self.id}.{index}",
                keeper=keeper,
                seed=game_seed(None, index),
                others=list(players.values()),
                human_seats=humans,
                observer=observe,
            )
        end.tell_lobby()  # a no-op once told (every game ends with a MatchEnded)


class GameEnd:
    """The order in which a game's end is told: the archive keeps it, then the lobby
    hears (so a rematch asked on a seat's ``gameover`` finds the table between games),
    then the seats and pages. A stuck archive holds the seats ``RECORD_WAIT`` at most,
    and the lobby is told no later than they are."""

    def __init__(self, tell: Callable[[str], None]) -> None:
        self._tell = tell
        self._told = False
        self._recorded = trio.Event()
        #: Why the game ended (the outcome's reason), once it has.
        self.reason = "not played"

    def recorded(self) -> None:
        """The archive has the game (or failed to keep it): the lobby, then the seats."""
        self.tell_lobby()
        self._recorded.set()

    def tell_lobby(self) -> None:
        if not self._told:
            self._told = True
            self._tell(self.reason)

    async def before_gameover(self) -> None:
        """Waits until a seat may hear the end (``RECORD_WAIT`` at most); the lobby knows."""
        with trio.move_on_after(RECORD_WAIT):
            await self._recorded.wait()
        self.tell_lobby()


class HeldRemotePlayer(RemoteEnginePlayer):
    """A remote seat's player that hears game over only once the archive has the game
    and the lobby knows (``GameEnd``)."""

    end: GameEnd | None = None

    async def game_over(self, outcome: Outcome) -> None:
        if self.end is not None:
            await self.end.before_gameover()
        await super().game_over(outcome)


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside ``exc``'s groups (the one to name in the log)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _replacement() -> EngineProcess:
    """The engine that takes a seat under ``leaver=computer`` (as ``serve``'s)."""
    spec = builtin_engine(REPLACEMENT)
    return EngineProcess(spec.command, cwd=spec.cwd, label=REPLACEMENT)


__all__ = ["HallTable", "HeldRemotePlayer", "TableHost"]
