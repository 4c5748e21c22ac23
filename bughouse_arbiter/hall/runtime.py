"""The ``Hall``: the lobby's state, its timers, its members and its tables, in one trio task.

Every front end calls the same four methods: the web lobby socket
(``hall.app``), the line lobby (``hall.line_lobby``) and bots:

- ``join(identity, send) -> Member`` (raises ``JoinRefused`` with one line),
  ``leave(member)``;
- ``handle(member, message)``: a lobby socket message, a parsed JSON
  object (``lobby.messages`` checks it; a bad one is answered with one
  ``error``), or ``handle_text`` for the raw text;
- ``add_bot(identity, tcs) -> BotTicket``: ``await ticket.next_seat()``
  gives the ``LiveTable`` and the remote seat the bot is to take (it then
  ``await table.attach(seat, link)`` as ``serve``'s TCP front end does after
  ``auth``), or None once the bot was removed or the server stops.

``send`` never blocks and never raises (queue it); it gets the lobby
socket's server messages as dicts: the whole ``lobby`` view on joining (and
when it asks, ``{"type": "lobby"}``), then ``lobby-diff`` messages (what
changed, coalesced, at most ``VIEW_RATE`` a second; one ``Encoded`` dict for
every member, its JSON text made once), ``seat`` (with the token: show it only to that
member), ``queued``, ``invited``, ``declined``, ``chat``, ``error``... A
member that is seated gets ``seat``: a line-lobby member finds the table
with ``live_table(id)`` and authenticates with the token.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Collection, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import attrs
import trio

from ..config.specs import EngineSpec, TimeControl, builtin_engine
from ..core.model import Seat
from ..lobby.archive import Archive, GameFinished, GameStarted, NoArchive
from ..lobby.identity import Identity
from ..lobby.messages import command, error, parse
from ..lobby.model import Effect, EndSeries, Lobby, Send, StartGame
from ..lobby.tables import TableSpec, seat_key
from ..loop.lag import LagMonitor
from ..net.limits import Limits
from ..serve.seam import LiveTable
from .tables import JOIN_TIMEOUT, Finish, Log, TableHost
from .web.table_pages import TablePages, TablePageSession

Message = dict[str, Any]
Sender = Callable[[Message], None]
#: Lobby views a second, at most, per member.
VIEW_RATE = 10.0


class Encoded(dict[str, Any]):
    """A message sent to many members alike, with its JSON ``text`` made once."""

    def __init__(self, message: Mapping[str, Any]) -> None:
        super().__init__(message)
        self.text = json.dumps(message, separators=(",", ":"))


def encoded(message: Mapping[str, Any]) -> str:
    """The JSON text of a message sent to a member (an ``Encoded`` one's, made already)."""
    if isinstance(message, Encoded):
        return message.text
    return json.dumps(message, separators=(",", ":"))


class JoinRefused(Exception):
    """``Hall.join`` refused a name; ``reason`` is one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BotCheck(Protocol):
    """Checks a bot's token and a guest's name (``hall.web.accounts.Accounts``)."""

    async def bot_identity(self, name: str, token: str | None) -> Identity: ...

    async def guest(self, name: str) -> Identity: ...


class Member:
    """One connected member of the lobby (a person's page or console, or a bot)."""

    def __init__(self, identity: Identity, send: Sender) -> None:
        self.identity = identity
        self._send = send
        self.gone = False

    @property
    def name(self) -> str:
        return self.identity.name

    def send(self, message: Message) -> None:
        if not self.gone:
            self._send(message)


class BotTicket:
    """A bot's place in the hall: the seats it is given, one after another."""

    def __init__(self, hall: Hall, identity: Identity) -> None:
        self.hall = hall
        self.identity = identity
        self._seats, self._next = trio.open_memory_channel[tuple[LiveTable, Seat]](math.inf)

    async def next_seat(self) -> tuple[LiveTable, Seat] | None:
        """The next table and remote seat to take; None once removed or stopping."""
        try:
            return await self._next.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    def offer(self, table: LiveTable, seat: Seat) -> None:
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            self._seats.send_nowait((table, seat))

    def leave(self) -> None:
        """The bot is gone: it gets no more seats (one it holds plays out its grace)."""
        self._seats.close()
        self.hall._remove_bot(self)


def _speaker(host: TableHost, session: TablePageSession) -> str | None:
    """The lobby name of the player seated at a page (None: it watches)."""
    if session.player is None or session.seat is None:
        return None
    who = host.who.get(session.seat)
    return None if who is None else who.name


class _Kept:
    """The hall's archive, telling ``arrange``'s callers their game once it is kept."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall

    async def begin(self, game: GameStarted) -> None:
        await self.hall.archive.begin(game)

    async def record(self, game: GameFinished) -> None:
        ended = self.hall._arranged.pop(game.table, None)
        try:
            await self.hall.archive.record(game)
        finally:
            if ended is not None:
                ended(game, game.reason)


class Hall:
    """The lobby at run time (see the module docstring); ``await nursery.start(hall.run)``."""

    def __init__(
        self,
        out: Path,
        *,
        archive: Archive | None = None,
        computer: EngineSpec | None = None,
        log: Log = print,
        lobby: Lobby | None = None,
        join_timeout: float = JOIN_TIMEOUT,
        limits: Limits | None = None,
    ) -> None:
        self.out = out
        self.limits = limits or Limits()
        self.archive = archive or NoArchive()
        self.computer = computer or builtin_engine("searcher")
        self.log = log
        self.lobby = lobby or Lobby()
        self.join_timeout = join_timeout
        self.members: dict[str, Member] = {}
        self.bots: dict[str, BotTicket] = {}
        self.hosts: dict[str, TableHost] = {}
        self._tables: trio.Nursery | None = None
        self._poke = trio.Event()
        self._stopping = False
        #: Tables set up with ``arrange``: told how their one game ended.
        self._arranged: dict[str, Callable[[GameFinished | None, str], None]] = {}
        #: How late the loop wakes (``/api/server`` shows its figures; a stall is logged).
        self.lag = LagMonitor(log=log)
        #: The server's accounts (``hall.web.accounts.Accounts``); None: no accounts
        #: (every bot plays unrated under any free name).
        self.accounts: BotCheck | None = None

    # -- the API -------------------------------------------------------------------------

    def join(self, identity: Identity, send: Sender) -> Member:
        """A new member; raises ``JoinRefused`` (name taken or not a name)."""
        if self._stopping:
            raise JoinRefused("the server is stopping")
        problem = self.lobby.join(identity)
        if problem is not None:
            raise JoinRefused(problem)
        member = Member(identity, send)
        self.members[identity.name] = member
        member.send({"type": "welcome", "name": identity.name})
        member.send(self.lobby.view())
        # Back within the grace: the seats it holds in games being played, again.
        for host in list(self.hosts.values()):
            for seat, who in host.who.items():
                if who.name == identity.name and seat in host.live.tokens:
                    self._seated(host.id, who, seat, host.live.tokens[seat])
        self._wake()
        return member

    def leave(self, member: Member) -> None:
        if self.members.get(member.name) is not member:
            return
        member.gone = True
        del self.members[member.name]
        self._apply(self.lobby.leave(member.name, self._now()))

    def handle(self, member: Member, message: Mapping[str, Any]) -> None:
        """One parsed lobby-socket message of ``member``."""
        if self.members.get(member.name) is not member:
            return
        if not isinstance(message.get("type"), str):
            member.send(error("a message is an object with a 'type'"))
            return
        parsed = command(dict(message))
        if isinstance(parsed, str):
            member.send(error(parsed))
            return
        self._apply(self.lobby.handle(member.name, parsed, self._now()))

    def handle_text(self, member: Member, text: str) -> None:
        """One lobby-socket text message of ``member`` (JSON)."""
        parsed = parse(text)
        if isinstance(parsed, str):
            member.send(error(parsed))
            return
        if self.members.get(member.name) is member:
            self._apply(self.lobby.handle(member.name, parsed, self._now()))

    def add_bot(self, identity: Identity, tcs: Collection[TimeControl]) -> BotTicket:
        """A bot playing ``tcs``: it fills queue groups and open tables (before computers)."""
        if self.lobby.name_taken(identity.name):
            raise JoinRefused(f"the name {identity.name!r} is taken by someone connected now")
        ticket = BotTicket(self, identity)
        self.bots[identity.name] = ticket
        self._apply(self.lobby.add_bot(identity, tcs, self._now()))
        return ticket

    def arrange(
        self,
        spec: TableSpec,
        seats: Mapping[Seat, Identity],
        ended: Callable[[GameFinished | None, str], None],
    ) -> str:
        """A table for one game with these seats (an event's round); its id.

        ``ended`` gets the game once it is over (and archived), or None and
        why if it could not be played.
        """
        table_id, effects = self.lobby.arrange(spec, seats, self._now())
        self._arranged[table_id] = ended
        self._apply(effects)
        return table_id

    async def check_bot(self, name: str, token: str | None) -> Identity:
        """Who a bot connecting as ``name`` with ``token`` plays as, for ``add_bot``;
        ``JoinRefused`` when ``name`` is an account's and ``token`` is not its bot's."""
        if self.accounts is None:
            return Identity(name, "bot")
        return await self.accounts.bot_identity(name, token)

    async def check_guest(self, name: str) -> Identity:
        """A guest's identity for ``join`` (a console on the line port); ``JoinRefused``
        when ``name`` is an account's (its owner logs in on the web)."""
        if self.accounts is None:
            return Identity(name, "guest")
        return await self.accounts.guest(name)

    def rerate(self, ratings: Mapping[str, float]) -> None:
        """New ratings (after a rated game): the lobby shows them and pairs by them."""

        def new(who: Identity) -> Identity:
            rating = ratings.get(who.name)
            return who if rating is None else attrs.evolve(who, rating=round(rating, 1))

        lobby = self.lobby
        for name in ratings.keys() & lobby.members.keys():
            lobby.members[name] = new(lobby.members[name])
        for name in ratings.keys() & self.members.keys():
            self.members[name].identity = new(self.members[name].identity)
        for name in ratings.keys() & lobby.bots.keys():
            lobby.bots[name].identity = new(lobby.bots[name].identity)
        for name in ratings.keys() & self.bots.keys():
            self.bots[name].identity = new(self.bots[name].identity)
        for table in lobby.tables.values():
            for seat, who in table.seats.items():
                if who is not None:
                    table.seats[seat] = new(who)
        lobby.version += 1

    def live_table(self, table_id: str) -> LiveTable | None:
        """The running table of ``table_id`` (its games' seam), if there is one."""
        host = self.hosts.get(table_id)
        return None if host is None else host.live

    def host(self, table_id: str) -> TableHost | None:
        return self.hosts.get(table_id)

    def _remove_bot(self, ticket: BotTicket) -> None:
        if self.bots.get(ticket.identity.name) is ticket:
            del self.bots[ticket.identity.name]
            self._apply(self.lobby.remove_bot(ticket.identity.name, self._now()))

    # -- running ---------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The lobby's timers and views, and every table, until cancelled."""
        trio.lowlevel.add_instrument(self.lag)
        try:
            async with trio.open_nursery() as nursery:
                self._tables = nursery
                nursery.start_soon(self.lag.run)
                nursery.start_soon(self._timers)
                nursery.start_soon(self._views)
                task_status.started()
                await trio.sleep_forever()
        finally:
            trio.lowlevel.remove_instrument(self.lag)
            self._stopping = True
            self._tables = None
            for ticket in self.bots.values():
                ticket._seats.close()

    async def _timers(self) -> None:
        while True:
            poke = self._poke
            deadline = self.lobby.next_deadline()
            with trio.move_on_at(math.inf if deadline is None else deadline):
                await poke.wait()
            if self._poke is poke and poke.is_set():
                self._poke = trio.Event()
            self._apply(self.lobby.tick(self._now()), wake=False)

    async def _views(self) -> None:
        sent = -1
        while True:
            await trio.sleep(1 / VIEW_RATE)
            if self.lobby.version != sent:
                sent = self.lobby.version
                diff = self.lobby.diff()
                if diff is None:
                    continue
                message = Encoded(diff)
                for member in list(self.members.values()):
                    member.send(message)

    def _wake(self) -> None:
        self._poke.set()

    def _now(self) -> float:
        return trio.current_time()

    # -- effects -----------------------------------------------------------------------------

    def _apply(self, effects: list[Effect], *, wake: bool = True) -> None:
        """Carries out the lobby's effects; ``wake``: the timers look at the deadlines again
        (a change from outside may have added one; the timers' own tick needs no second look)."""
        for effect in effects:
            if isinstance(effect, Send):
                member = self.members.get(effect.name)
                if member is not None:
                    member.send(dict(effect.message))
            elif isinstance(effect, StartGame):
                self._start(effect)
            elif isinstance(effect, EndSeries):
                host = self.hosts.get(effect.table)
                if host is not None:
                    host.end_series()
        for table_id, host in list(self.hosts.items()):
            table = self.lobby.tables.get(table_id)
            if table is None or table.state == "closed":
                host.close()  # its engines are closed once its last game is over
        if wake:
            self._wake()

    def _start(self, effect: StartGame) -> None:
        host = self.host_for(effect.table)
        if host is not None:
            host.start_game(effect.seats, rematch=effect.rematch)

    def host_for(self, table_id: str) -> TableHost | None:
        """The host of a lobby table (started now if it had none); None: no such table."""
        host = self.hosts.get(table_id)
        if host is not None:
            return host
        table = self.lobby.tables.get(table_id)
        if table is None or table.state == "closed" or self._tables is None:
            return None
        host = TableHost(
            table_id,
            table.spec,
            out=self.out / f"{table_id}.bpgn",
            computer=self.computer,
            archive=_Kept(self),
            log=self.log,
            seated=self._seated,
            finished=self._finished,
            join_timeout=self.join_timeout,
        )
        host.pages = TablePages(
            host.live,
            self.limits,
            speaker_of=partial(_speaker, host),
            rematch=partial(self._rematch, table_id),
            muted=partial(self.lobby.muted, table_id),
            watchers=partial(self.lobby.set_watchers, table_id),
        )
        self.hosts[table_id] = host
        self._tables.start_soon(self._host, host)
        return host

    def _rematch(self, table_id: str, name: str) -> str | None:
        result = self.lobby.ask_rematch(table_id, name, self._now())
        if isinstance(result, str):
            return result
        self._apply(result)
        return None

    async def _host(self, host: TableHost) -> None:
        try:
            await host.run()
        finally:
            if self.hosts.get(host.id) is host:
                del self.hosts[host.id]

    def _seated(self, table_id: str, who: Identity, seat: Seat, token: str) -> None:
        """Tells a member (or offers a bot) the seat it is to take for the series."""
        host = self.hosts.get(table_id)
        if host is None:
            return
        bot = self.bots.get(who.name)
        if bot is not None:
            bot.offer(host.live, seat)
        member = self.members.get(who.name)
        if member is not None:
            # The seat held now: after a rematch's swap, not the one the token opened.
            key = seat_key(host.live.seat_of(seat))
            member.send(
                {
                    "type": "seat",
                    "table": table_id,
                    "seat": key,
                    "token": token,
                    "url": f"/table/{table_id}?seat={key}#token={token}",
                }
            )

    def _finished(self, table_id: str, how: Finish, why: str) -> None:
        """A table's game ended (``played``: told before its seats hear it, so a rematch
        asked on their gameover finds the table between games) or could not be played."""
        now = self._now()
        if how == "played":
            # An arranged table's caller is told once the archive has the game (_Kept).
            self._apply(self.lobby.game_over(table_id, now))
            return
        self._apply(self.lobby.game_failed(table_id, why, now, close=how == "failed"))
        ended = self._arranged.pop(table_id, None)
        if ended is not None:
            ended(None, why)
