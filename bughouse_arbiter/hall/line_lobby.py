"""The line lobby: bots and console players on the server's TCP line port.

Per connection (protocol.md §12.7): the first non-blank line, within
``Limits.auth_timeout`` seconds and ``Limits.auth_lines`` lines, is the hello
(``bot <name> [tc=...] [token=...] [ping]`` or ``guest <name> [ping]
[human]``), answered ``hello ok <name>`` or ``hello refused <reason>`` (then
closed). The Hall checks the name first (``check_bot``: a bot account's name
needs its token; ``check_guest``: an account's name is its owner's). A bot is
handed to the Hall with ``add_bot``; a guest joins as a lobby
member and its idle commands become the lobby socket's messages
(``lobby_lines.lobby_message``), so every rule is the Hall's. Whenever the
connection is seated for a game it gets ``seated <table> <seat>``, then its
link is attached to that ``LiveTable`` seat exactly as ``serve``'s TCP front
end attaches an authenticated one, and ``unseated <table>`` once the seat is
done with it; it is then idle in the lobby again (a bot waits for its next
seat). During a game (``newgame`` ... ``gameover``) the lobby's notices for
it wait until the game is over; between the games of a series its idle
commands are heard (``stand``, ``rematch``...) and answered.

The table's own ``quit`` never reaches the client: it ends the attachment
only. A client's ``quit`` ends the connection: at once when idle or between
a series' games, else after the game being played (or about to begin) has
sent its ``gameover`` and ``unseated``; a bot is taken out of the Hall's
offers at once. A dropped connection leaves the seat to the table's
reconnect rules and the member to ``Hall.leave``.

When the server stops (``serve`` cancelled), no connection is taken and no
line is read any more; every connection, all at once, gets what its table
says as its game is aborted (``gameover``, ``unseated``), then ``error the
server is stopping``, and is closed. ``STOP_WAIT`` seconds from the stop
bound the whole, however the peers behave: what is left then is cut.
"""

from __future__ import annotations

import contextlib
import math
import ssl
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol, cast

import trio

from ..config.specs import TimeControl
from ..core.model import Seat
from ..lobby.identity import Identity, name_problem
from ..lobby.messages import timed_control
from ..lobby.shown import apply_diff
from ..net.admission import Pool
from ..net.files import FileReserve
from ..net.limits import Limits
from ..net.tcp import TcpLink, open_connection, open_listeners, peer_name
from ..net.tls import close_quietly
from ..protocol import LineBuffer, RawLine
from ..protocol.lobby_lines import (
    USAGE,
    Hello,
    Quit,
    Tables,
    lobby_message,
    parse_hello,
    parse_idle,
    render_message,
    render_tables,
)
from ..serve.seam import LiveTable
from .runtime import JoinRefused

Log = Callable[[str], None]
#: Notices held for a seated connection (the oldest are dropped past it).
MAX_HELD = 100
#: The idle commands' verbs (as one-word lists), heard from a seat between games too.
LOBBY_VERBS = [[verb] for verb in USAGE if verb != "quit"]
#: First words of the engine lines a seat may still send after its game: dropped when idle.
ENGINE_WORDS = frozenset(
    {"bestmove", "wait", "resign", "draw", "ptell", "info", "readyok", "error"}
    | {"id", "option", "feature", "bugok"}
)
#: Seconds from the server's stop until every connection is closed, told or not.
STOP_WAIT = 2.0
#: Of those, the last seconds kept for the goodbye lines to go out.
GOODBYE_WAIT = 0.5
#: The last line of every connection when the server stops.
STOPPING = "error the server is stopping"


class Ticket(Protocol):
    async def next_seat(self) -> tuple[LiveTable, Seat] | None: ...

    def leave(self) -> None: ...


class HallApi(Protocol):
    """The part of ``hall.runtime.Hall`` the line lobby calls (lobby-spec)."""

    log: Log

    def join(self, identity: Identity, send: Callable[[dict[str, Any]], None]) -> Any: ...

    def leave(self, member: Any) -> None: ...

    def handle(self, member: Any, message: Mapping[str, Any]) -> None: ...

    def add_bot(self, identity: Identity, tcs: Collection[TimeControl]) -> Ticket: ...

    async def check_bot(self, name: str, token: str | None) -> Identity: ...

    async def check_guest(self, name: str) -> Identity: ...

    def live_table(self, table_id: str) -> LiveTable | None: ...


class LineLink(TcpLink):
    """The connection's ``TcpLink``, which can wait for its lines to go out before closing."""

    async def drain(self, timeout: float = 1.0) -> None:
        """Waits (at most ``timeout`` seconds) until every queued line was written."""
        with trio.move_on_after(timeout):
            while self._queued and not self._broken:
                await trio.sleep(0.01)


class LobbySeatLink:
    """The connection, as a ``SeatLink`` for one seating (see ``serve.seam``)."""

    def __init__(self, link: LineLink) -> None:
        self.link = link
        self.peer = link.peer
        self.human = link.human
        self.ended = False
        #: Between a ``newgame`` and its ``gameover``.
        self.in_game = False
        #: No ``newgame`` yet: the seating's first game is about to begin.
        self.starting = True
        #: The client said ``quit`` during the game: it ends with the game.
        self.leaving = False
        #: Called after a ``gameover`` went out (the held notices follow it).
        self.on_gameover: Callable[[], None] | None = None
        self._send, self._receive = trio.open_memory_channel[RawLine](math.inf)

    @property
    def lag(self) -> float | None:
        return self.link.lag

    def send(self, line: str) -> None:
        if self.ended:
            return
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        if word == "quit":  # the table is done with the seat: not with the connection
            self.end()
            return
        self.link.send(line)
        if word == "newgame":
            self.in_game, self.starting = True, False
        elif word == "gameover":
            self.in_game = False
            if self.leaving:
                self.end()
            if self.on_gameover is not None:
                self.on_gameover()

    def feed(self, line: RawLine) -> bool:
        """Hands a client line to the seat; False once the seating is over."""
        if self.ended:
            return False
        self._send.send_nowait(line)
        return True

    async def receive(self) -> RawLine | None:
        try:
            return await self._receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    def end(self) -> None:
        self.ended = True
        self._send.close()

    async def aclose(self) -> None:
        self.end()


class Connection:
    """One hello'd connection in the lobby (see the module docstring)."""

    def __init__(
        self,
        lobby: LineLobby,
        link: LineLink,
        hello: Hello,
    ) -> None:
        self.lobby = lobby
        self.link = link
        self.hello = hello
        self.seating: LobbySeatLink | None = None
        self.view: Mapping[str, Any] = {}
        self.held: list[str] = []
        self.quitting = False
        self.member: Any = None
        self.ticket: Ticket | None = None
        self._seats, self._offers = trio.open_memory_channel[dict[str, Any]](math.inf)
        #: The server is stopping (``stop``).
        self.stopping = False
        self._reading = trio.CancelScope()
        self._waiting = trio.CancelScope()
        self._seat_done = trio.Event()

    # -- from the Hall -------------------------------------------------------------------

    def on_message(self, message: dict[str, Any]) -> None:
        """The Hall's ``send`` for this member: never blocks, never raises."""
        kind = message.get("type")
        if kind == "lobby":
            self.view = message
            return
        if kind == "lobby-diff":  # a line client is never sent views: ``tables`` asks
            self.view = apply_diff(self.view, message) or self.view
            return
        if kind == "seat":
            with contextlib.suppress(trio.ClosedResourceError):
                self._seats.send_nowait(message)
            return
        for line in render_message(message):
            if self.seating is not None and self.seating.in_game:
                self.held = [*self.held[-(MAX_HELD - 1) :], line]
            else:
                self.link.send(line)

    # -- the connection ------------------------------------------------------------------

    async def run(self) -> None:
        """Reads the client's lines and seats it, until either side ends (or the
        server stops: then the seat being played ends as its table ends it, and
        the client is told, by the lobby's ``deadline``)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._seat_loop)
            with self._reading:
                await self._read_loop()
            if self.stopping:
                with trio.move_on_at(self.lobby.deadline - GOODBYE_WAIT):
                    await self._seat_done.wait()
            nursery.cancel_scope.cancel()
        if self.stopping:
            self.link.send(STOPPING)
            with trio.move_on_at(self.lobby.deadline):
                async with trio.open_nursery() as ending:
                    ending.start_soon(self._discard)
                    await self.link.drain(math.inf)
                    ending.cancel_scope.cancel()

    async def _discard(self) -> None:
        """Reads and drops what the client still sends: a socket closed with unread
        data resets the connection, and the client may lose the lines before it."""
        while await self.link.receive() is not None:
            pass

    def stop(self) -> None:
        """The server stops: no more lines are read and no more seats taken."""
        self.stopping = True
        self._reading.cancel()
        self._waiting.cancel()

    async def _read_loop(self) -> None:
        while (line := await self.link.receive()) is not None:
            seating = self.seating
            if line.text.strip() == "quit":
                if seating is None or seating.ended:
                    return
                self._leave_after_game(seating)
                continue
            # Between the games of a series a seat may stand or ask for a rematch.
            lobby_verb = line.text.split()[:1] in LOBBY_VERBS
            if seating is not None and not seating.ended and (seating.in_game or not lobby_verb):
                seating.feed(line)
                continue
            if self.quitting or not line.text.strip() or line.text.split()[0] in ENGINE_WORDS:
                continue
            if not self._idle(line):
                return
        if self.seating is not None:
            self.seating.end()  # a drop: the seat's grace period starts

    def _leave_after_game(self, seating: LobbySeatLink) -> None:
        """``quit`` while seated: the game being played (or about to begin) ends first."""
        self.quitting = True
        if self.ticket is not None:
            self.ticket.leave()  # offered nothing more
        if seating.in_game or seating.starting:
            seating.leaving = True
        else:
            seating.end()

    def _idle(self, line: RawLine) -> bool:
        """Handles one idle command; False for ``quit``."""
        command = parse_idle(line.text) if not line.overlong else "line too long"
        if isinstance(command, str):
            self.link.send(f"error {command}")
            return True
        if isinstance(command, Quit):
            return False
        if isinstance(command, Tables):
            view = self._view_now()
            tables = view.get("tables")
            for text in render_tables(tables if isinstance(tables, list) else []):
                self.link.send(text)
            return True
        message = lobby_message(command)
        if message is None:
            return True
        if self.member is None:
            self.link.send("error a bot is seated by the server; it has no lobby commands")
            return True
        self.lobby.hall.handle(self.member, message)
        return True

    def _view_now(self) -> Mapping[str, Any]:
        """The lobby as it is now: the Hall's model's view (the pushed views are
        coalesced, so one may lag a command just answered), else the last pushed."""
        model = getattr(self.lobby.hall, "lobby", None)
        view = getattr(model, "view", None)
        if callable(view):
            now = view()
            if isinstance(now, Mapping):
                return now
        return self.view

    async def _seat_loop(self) -> None:
        try:
            while not self.quitting and not self.stopping:
                offer = None
                with trio.CancelScope() as self._waiting:
                    offer = await self._next_offer()
                if offer is None or self.stopping:
                    break
                table_id, table, seat = offer
                await self._play(table_id, table, seat)
        finally:
            self._seat_done.set()
        if self.quitting and not self.stopping:
            await self.link.drain()
            await self.link.aclose()

    async def _next_offer(self) -> tuple[str, LiveTable, Seat] | None:
        if self.ticket is not None:
            got = await self.ticket.next_seat()
            if got is None:
                return None
            table, seat = got
            return str(getattr(table, "table_id", "-")), table, seat
        while True:
            try:
                message = await self._offers.receive()
            except trio.EndOfChannel:
                return None
            found = self.lobby.hall.live_table(str(message.get("table")))
            if found is None:
                self.link.send(f"error table {str(message.get('table'))[:40]} is gone")
                continue
            try:
                seat = found.authenticate(
                    str(message.get("seat")), str(message.get("token")), peer=self.link.peer
                )
            except Exception as exc:  # AuthRefused: the seat went meanwhile
                self.link.send(f"error cannot take that seat: {exc}")
                continue
            return str(message.get("table")), found, seat

    async def _play(self, table_id: str, table: LiveTable, seat: Seat) -> None:
        seating = LobbySeatLink(self.link)
        seating.on_gameover = self._flush_held
        self.seating = seating
        name = seat.slug[0].upper() + seat.slug[1:]
        self.link.send(f"seated {table_id} {name}")
        self.lobby.log(f"{self.link.peer}: {self.hello.name} seated at {table_id} {name}")
        try:
            await table.attach(seat, seating)
        finally:
            seating.end()
            self.seating = None
            self.link.send(f"unseated {table_id}")
            self._flush_held()

    def _flush_held(self) -> None:
        held, self.held = self.held, []
        for line in held:
            self.link.send(line)


class LineLobby:
    """The line port's front end: listens, says hello, hands connections to the Hall.

    ``await nursery.start(line_lobby.serve, host, port)`` gives the port it
    listens on; with ``ssl_context`` every connection is TLS.
    """

    def __init__(
        self,
        hall: HallApi,
        *,
        log: Log,
        limits: Limits | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.hall = hall
        self.log = log
        self.limits = limits or Limits()
        self.ssl_context = ssl_context
        self.waiting = Pool(self.limits.max_connections, self.limits.per_address, evict=True)
        self.port = 0
        self.connections = 0
        #: When every connection is closed, once the server stops (``trio.current_time``).
        self.deadline = math.inf
        self._stopping = False
        #: Each open connection's scope, and its ``Connection`` once it said hello.
        self._open: dict[trio.CancelScope, Connection | None] = {}
        #: Hello'd connections (identities in the lobby) per address: at most ``per_address``.
        self.identities: Counter[str] = Counter()
        self.files = FileReserve.raised()

    async def serve(
        self, host: str, port: int, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Listens on ``host:port`` (0: a free port, given to ``task_status``) until
        cancelled; then stops as the module docstring says, within ``STOP_WAIT``."""
        listeners = await open_listeners(host, port)
        self.port = listeners[0].socket.getsockname()[1]
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            await nursery.start(self._held, listeners, stop)
            task_status.started(self.port)
            try:
                await trio.sleep_forever()
            finally:
                stop.set()

    async def _held(
        self, listeners: list[trio.SocketListener], stop: trio.Event, *, task_status: Any
    ) -> None:
        """The listeners and connections, shielded from the caller's cancellation:
        ``stop`` stops them all at once, under one deadline."""
        with trio.CancelScope(shield=True) as held:
            async with trio.open_nursery() as connections:
                accepting = trio.CancelScope()

                async def accept() -> None:
                    with accepting:
                        await trio.serve_listeners(
                            self.handle, listeners, handler_nursery=connections
                        )

                connections.start_soon(accept)
                task_status.started()
                await stop.wait()
                self._stopping = True
                self.deadline = held.deadline = trio.current_time() + STOP_WAIT
                accepting.cancel()
                for listener in listeners:
                    await close_quietly(listener)
                for scope, connection in list(self._open.items()):
                    if connection is None:
                        scope.cancel()  # no hello yet: nothing to tell
                    else:
                        connection.stop()

    async def handle(self, stream: trio.SocketStream) -> None:
        """One connection, start to end; its failures end only it."""
        with trio.CancelScope() as scope:
            self._open[scope] = None
            try:
                if self._stopping:
                    scope.cancel()
                await self._handle(stream, scope)
            finally:
                del self._open[scope]

    async def _handle(self, stream: trio.SocketStream, scope: trio.CancelScope) -> None:
        peer = peer_name(stream)
        self.connections += 1
        wire: trio.abc.Stream = stream
        try:
            if not self.files.room(len(self._open) - 1):
                await _answer(wire, "error the server is full; try again later")
                return
            opening = await open_connection(stream, self.waiting, self.ssl_context, self.limits)
            wire = opening.stream
            if opening.refused is not None:
                self.log(f"{peer}: {opening.refused}; closed")
                return
            first = opening.first
            if opening.evicted:
                await _answer(wire, "error too many connections")
                return
            if first is not None:
                await self._session(wire, peer, scope, *first)
        except Exception as exc:  # one connection's trouble never reaches the others
            self.log(f"{peer}: line lobby connection failed ({type(exc).__name__}: {exc})")
        finally:
            self.connections -= 1
            await close_quietly(wire)

    async def _session(
        self,
        stream: trio.abc.Stream,
        peer: str,
        scope: trio.CancelScope,
        first: RawLine | None,
        buffer: LineBuffer,
        pending: list[RawLine],
    ) -> None:
        if first is None:
            await _answer(stream, "hello refused no hello line")
            return
        hello = parse_hello(first.text) if not first.overlong else "line too long"
        if isinstance(hello, str):
            await _answer(stream, f"hello refused {hello}")
            return
        link = LineLink(
            cast(trio.SocketStream, stream),
            peer,
            self.limits,
            buffer=buffer,
            pending=pending,
            pings=hello.ping,
            human=hello.human,
        )
        connection = Connection(self, link, hello)
        address = peer.rpartition(":")[0] or peer  # the stream may be TLS: the peer's host
        if self.identities[address] >= self.limits.per_address:
            await _answer(stream, "hello refused too many players from your address")
            return
        self.identities[address] += 1
        try:
            await self._entered(connection, stream, peer, scope)
        finally:
            self.identities[address] -= 1
            if not self.identities[address]:
                del self.identities[address]

    async def _entered(
        self, connection: Connection, stream: trio.abc.Stream, peer: str, scope: trio.CancelScope
    ) -> None:
        hello, link = connection.hello, connection.link
        try:
            await self._enter(connection)
        except JoinRefused as exc:
            await _answer(stream, f"hello refused {exc.reason}")
            return
        link.send(f"hello ok {hello.name}")
        self.log(f"{peer}: {hello.kind} {hello.name} joined the lobby")
        self._open[scope] = connection
        if self._stopping:
            connection.stop()
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(link.run_writer)
                nursery.start_soon(link.run_pinger)
                try:
                    await connection.run()
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            self._exit(connection)
            self.log(f"{peer}: {hello.name} left the lobby")

    async def _enter(self, connection: Connection) -> None:
        """Hands the connection to the Hall; raises ``JoinRefused`` with one line."""
        hello = connection.hello
        if hello.kind == "bot":
            problem = name_problem(hello.name)
            if problem is not None:
                raise JoinRefused(problem)
            if not hello.tcs:
                raise JoinRefused("a bot names the time controls it plays: tc=180+0,60+0")
            tcs = []
            for text in hello.tcs:
                # Any timed control: an event's may be shorter than a table's.
                tc = timed_control(text, "a bot")
                if isinstance(tc, str):
                    raise JoinRefused(tc)
                tcs.append(tc)
            # A bot account's name seats only the holder of its token.
            identity = await self.hall.check_bot(hello.name, hello.token)
            connection.ticket = self.hall.add_bot(identity, tcs)
        else:
            identity = await self.hall.check_guest(hello.name)
            connection.member = self.hall.join(identity, connection.on_message)

    def _exit(self, connection: Connection) -> None:
        if connection.ticket is not None:
            connection.ticket.leave()
        if connection.member is not None:
            self.hall.leave(connection.member)


async def serve_line_lobby(
    hall: HallApi,
    *,
    host: str,
    port: int,
    limits: Limits | None = None,
    ssl_context: ssl.SSLContext | None = None,
    log: Log | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """The line lobby of ``hall`` on ``host:port`` (0: any free port, given to
    ``task_status``), until cancelled; ``log`` defaults to the hall's."""
    lobby = LineLobby(
        hall, log=log if log is not None else hall.log, limits=limits, ssl_context=ssl_context
    )
    await lobby.serve(host, port, task_status=task_status)


async def _answer(stream: trio.abc.Stream, line: str) -> None:
    with trio.move_on_after(1):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all((line + "\n").encode())
