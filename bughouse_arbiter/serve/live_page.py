"""``bughouse serve --web``: the live page, a front end on the table seam.

``WebFrontEnd`` is a Starlette app served by Hypercorn's trio worker
(``asgi_host.serve_asgi``, in the server's own trio run) on its own port
(``--web PORT``, next to the TCP listener's; TLS with ``serve --certfile
--keyfile``). It serves ``/`` (the page), ``/assets/...`` (its script, styles
and the vendored chessground board) and ``/ws`` (one WebSocket per open
page). Every page gets a JSON snapshot of the table (``LiveView``) whenever
it changes; nobody needs a token to watch.

The transport ends at ``PageSocket`` (whole text messages in and out, and
``close``): ``PageSession``, the page's side of a table (snapshots, ``sit``,
the seat's actions through ``WebPlayer`` and its in-memory ``MemoryLink``),
knows nothing of HTTP. A server with many tables can keep one
``WebFrontEnd`` per table without serving it: ``observe(table)`` keeps its
``view`` up with the table's events, ``await page(table, websocket)`` runs
one page's socket from its own Starlette route (pools, limits and messages
exactly as here), and ``close_pages()`` closes them when it stops.

A page takes a remote seat by sending ``{"type": "sit", "seat": ...,
"token": ...}``. The seat is then a remote seat like any other: the front
end attaches an in-memory ``SeatLink`` to it (``LiveTable.attach``) and
plays the seat's protocol.md side with ``PlayerDriver`` and a ``WebPlayer``
whose moves, partner messages, resignation and draw offers come from the
page. The WebSocket's life is the link's: a page that closes or reloads
drops the link, and may sit again within ``reconnect_grace``. Snapshots sent
to a seated page carry the seat's legal moves (``LiveView.snapshot``).

Messages from the page: ``sit`` (``seat``, ``token``, and ``name``: how the
table names the person, cut to 30 characters of letters, digits, spaces and
``.-_``; "web B-White" without one), ``move`` (``uci``), ``tell``
(``text``), ``resign``, ``draw``, ``moves``. To the page: ``state``
(snapshots, see ``live_view`` for their shape), ``seated`` (``seat``: where
the player sits in this game, ``joined``: its token's seat, ``name``, and
``signals``: protocol.md §8.2's signals, ``[{"code": "++n", "words": "I want
a knight: very good", "kind": "want", "subject": "n", "level": 2}, ...]``,
``protocol.signals``, for the page's signal buttons), ``error`` (``text``:
one line), ``refused`` (a move the table refused).

Move lists go by range (``live_view``): the session remembers how many
moves of each board it has sent the page in the current game and sends
only the rest, a bounded range per snapshot, the next range at once while
the page is behind. A page that reconnects says what it holds in the
WebSocket's address (``/ws?run=5f0c1d2e&game=3&A=120&B=118``: ``run``
tells this server's games from those of a server that was restarted under
the open page); one that finds a gap
says it with ``{"type": "moves", "game": 3, "have": {"A": 120, "B": 118}}``.
Either way the session sends the moves from there.

Who may connect (``net.limits``, ``net.admission``, ``net.gate``): a
request and a page must name this server (``Host``; a WebSocket's
``Origin`` must be this server's page or a name of ``serve
--allow-origin``), else 403. HTTP requests being answered share an evicting
pool (a newcomer past it makes the oldest request go, with a 503 and one
line); a connection that sends no request is closed after the timeout
(Hypercorn's keep-alive). Pages watching share a pool that admits no more
than ``pages`` (``per_address`` from one address). A page past it is an
*overflow* page: told the table is full, sent no snapshot, and closed
(1013) unless it sits with a valid token within the timeout, so a player
coming back always gets in however many strangers watch or stall. A seated
page counts in no pool. A page that does not read (no answer to a ping, or
sends that wait) is closed (``asgi_host``). Any failure of one connection
is logged once (``LiveTable.refused``) and ends only that connection. When
the server stops, every page is closed with 1001.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import secrets
import socket as sockets
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from functools import partial
from typing import Any, Protocol, TypeGuard

import trio

from ..core.game import BoardResult, PlayedMove
from ..core.model import BoardId, Outcome, Seat
from ..net.admission import Pool, Ticket
from ..net.asgi_host import WebBounds, serve_asgi
from ..net.gate import (
    TextSocket,
    client_host,
    client_name,
    gated_app,
    page_response,
    plain_response,
)
from ..net.limits import Limits, RateLimiter
from ..net.tcp import ServeError
from ..players.base import (
    Action,
    DrawOfferAction,
    MatchInfo,
    MoveAction,
    Player,
    ResignAction,
    TableState,
    TellAction,
)
from ..players.driver import PlayerDriver
from ..protocol import RawLine
from ..protocol.signals import signals_message
from ..table.match_events import MatchEvent
from ..web.assets import asset
from .live_view import LiveView, moves_behind, moves_held
from .seam import AuthRefused, LiveTable

#: Bytes of one message from a page (Hypercorn closes the socket with 1009 past it).
MAX_MESSAGE = 8 * 1024

#: The files the page may load, by URL name, with their content types.
ASSETS = {
    "live.js": "text/javascript; charset=utf-8",
    "live.css": "text/css; charset=utf-8",
    "chessground.min.js": "text/javascript; charset=utf-8",
    "chessground.base.css": "text/css; charset=utf-8",
    "chessground.brown.css": "text/css; charset=utf-8",
    "chessground.cburnett.css": "text/css; charset=utf-8",
}
#: Messages per second a page may send (after a burst).
MESSAGE_RATE = 20.0
MESSAGE_BURST = 40
#: Partner messages are one line of at most this many characters.
MAX_TELL = 120
#: Seconds a page that closed gets for its seat link to wind down.
DETACH_TIMEOUT = 5.0
#: Seconds between looks at a seat another connection holds, for a page waiting to sit.
SEAT_RETRY = 0.25
#: Seconds the last snapshot gets to reach every page once the games are over.
FLUSH_TIMEOUT = 2.0
_NAME = re.compile(r"[^\w .\-]")
#: A move count in a page's WebSocket address: digits, nine at most.
_COUNT = re.compile(r"[0-9]{1,9}")
_RUN = re.compile(r"[0-9a-f]{1,32}")
#: What an overflow page is told at once, and when it is closed.
TABLE_FULL = "the table is full: no more watchers for now; a seat's player may still sit"
FULL_CLOSED = "the table is full: closed (try again later)"
_BENIGN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)


class PageSocket(Protocol):
    """What a ``PageSession`` needs of its transport (``gate.TextSocket`` is one)."""

    closed: bool
    #: Why it ended without a close from the peer (it went silent), or None.
    gone: str | None

    async def receive(self) -> str | None: ...
    async def send(self, text: str) -> None: ...
    async def close(self, code: int = 1000, reason: str = "") -> None: ...


def web_bounds(limits: Limits) -> WebBounds:
    """The web connections' bounds (``asgi_host``) from ``serve --limit``."""
    return WebBounds(
        max_message=MAX_MESSAGE,
        idle_timeout=limits.auth_timeout,
        ping_every=limits.ping_every,
        send_timeout=limits.ping_every,
        handshake_timeout=limits.auth_timeout,
    )


class WebFrontEnd:
    """The live page's Starlette app on ``serve_asgi`` (a ``seam.FrontEnd``)."""

    def __init__(
        self,
        host: str,
        port: int,
        limits: Limits | None = None,
        *,
        allow_origin: Collection[str] = (),
        certfile: str | None = None,
        keyfile: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.limits = limits = limits or Limits()
        self.allow_origin = tuple(allow_origin)
        self.certfile, self.keyfile = certfile, keyfile
        self.view = LiveView(run=secrets.token_hex(4))
        self.requests = Pool(limits.requests, limits.per_address, evict=True)
        self.pages = Pool(limits.pages, limits.per_address, evict=False)
        self.overflow = Pool(limits.overflow_pages, limits.per_address, evict=True)
        #: Watchers' snapshots of the current view version, by the moves they hold.
        self._watched: dict[tuple[int, tuple[tuple[str, int], ...]], tuple[Any, str]] = {}
        self._sessions: set[PageSession] = set()
        self._sent = trio.Event()
        self._hostname = sockets.gethostname()

    async def serve(
        self, table: LiveTable, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        unsubscribe = self.observe(table)
        failed: ServeError | None = None
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(table.report_refusals)
                host = partial(
                    serve_asgi,
                    self.app(table),
                    host=self.host,
                    port=self.port,
                    certfile=self.certfile,
                    keyfile=self.keyfile,
                    bounds=web_bounds(self.limits),
                    on_stop=self.close_pages,
                )
                try:
                    self.port = await nursery.start(host)
                except ServeError as exc:
                    failed = exc  # raised below, alone: the caller says it in one line
                    nursery.cancel_scope.cancel()
                else:
                    task_status.started()
        finally:
            unsubscribe()
        if failed is not None:
            raise failed

    def app(self, table: LiveTable) -> Any:
        """The Starlette app: the page, its files and ``/ws``, behind the gates."""
        from starlette.routing import Route, WebSocketRoute

        async def page(request: Any) -> Any:
            return page_response(asset("live.html"), "text/html; charset=utf-8")

        async def assets(request: Any) -> Any:
            name = request.path_params["name"]
            if name not in ASSETS:
                return plain_response(404, "not found")
            return page_response(asset(name), ASSETS[name])

        async def favicon(request: Any) -> Any:
            return page_response(b"", "image/x-icon", status=204)

        async def socket(websocket: Any) -> None:
            await self.page(table, websocket)

        return gated_app(
            [
                Route("/", page),
                Route("/assets/{name}", assets),
                Route("/favicon.ico", favicon),
                WebSocketRoute("/ws", socket),
            ],
            hosts=(self.host, self._hostname),
            allowed=self.allow_origin,
            requests=self.requests,
            command="serve",
            note=table.refused,
        )

    def observe(self, table: LiveTable) -> Callable[[], None]:
        """Keeps ``view`` up with ``table``'s events; returns the unsubscribe function."""
        return table.observe(partial(self._on_event, table))

    def _on_event(self, table: LiveTable, event: MatchEvent) -> None:
        # ``serve`` seats the players before each game starts: this game's seating.
        if self.view.apply(event, seating=table.seating):
            for session in self._sessions:
                session.kick()

    async def page(self, table: LiveTable, websocket: Any) -> None:
        """One page's socket (a Starlette ``WebSocket``, not yet accepted) to its end."""
        peer = client_name(websocket.scope)
        try:
            socket = TextSocket(websocket)
            session = self.new_session(table, socket, peer)
            address = client_host(websocket.scope)
            ticket = self.pages.admit(address, session.evict)
            if ticket is None:
                session.overflow = True
                ticket = self.overflow.admit(address, session.evict)
            session.ticket = ticket
            try:
                await socket.accept()
                query = bytes(websocket.scope.get("query_string", b"")).decode("ascii", "replace")
                session.holds(*held_in_query(query))
                await session.run()
            finally:
                self.release(session)
                self.page_closed()
        except Exception as exc:  # one connection's trouble never reaches the others
            why = failure(exc)
            if why is not None:
                table.refused(f"web {peer}: connection failed ({why})", "failed connection")

    def new_session(self, table: LiveTable, socket: PageSocket, peer: str) -> PageSession:
        """The session of a new page (a server of many tables makes its own kind)."""
        return PageSession(self, table, socket, peer)

    def page_closed(self) -> None:
        """Called once a page has closed (after it left its pool)."""

    def release(self, session: PageSession) -> None:
        """The page leaves its pool (it sat, or it closed)."""
        if session.ticket is not None:
            (self.overflow if session.overflow else self.pages).release(session.ticket)
            session.ticket = None

    async def close_pages(self) -> None:
        """Closes every open page (1001: the server is stopping); returns once they are closed."""
        for session in list(self._sessions):
            session.stop()
        while self._sessions:
            await self._sent.wait()

    async def flush(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Waits (at most ``timeout`` s) until every open page has the latest snapshot.

        ``serve`` calls it after the last game, before it stops the front ends,
        so that every watcher sees the result.
        """
        with trio.move_on_after(timeout):
            while any(s.sent < self.view.version for s in self._sessions if not s.overflow):
                await self._sent.wait()

    def _note_sent(self) -> None:
        self._sent.set()
        self._sent = trio.Event()

    def watcher_snapshot(self, have: Mapping[BoardId, int]) -> tuple[dict[str, Any], str]:
        """A page without a seat: the snapshot and its JSON text, made once per view
        version for all the watchers that hold the same moves (they differ only in
        when they ask: the clocks are as of the first ask of that version)."""
        version = self.view.version
        key = (version, tuple(sorted((board.value, count) for board, count in have.items())))
        made = self._watched.get(key)
        if made is None:
            if any(seen != version for seen, _ in self._watched) or len(self._watched) >= 64:
                self._watched.clear()
            data = self.view.snapshot(trio.current_time(), have=have)
            made = self._watched[key] = (data, json.dumps(data, separators=(",", ":")))
        return made


class PageSession:
    """One open page: snapshots out; ``sit`` and a seat's actions in (any ``PageSocket``)."""

    def __init__(self, front: WebFrontEnd, table: LiveTable, socket: PageSocket, peer: str):
        self.front = front
        self.table = table
        self.socket = socket
        self.peer = peer
        self.seat: Seat | None = None
        self.player: WebPlayer | None = None
        #: Its place in the pages' (or overflow) pool; None once it sat.
        self.ticket: Ticket | None = None
        #: Past the pages' limit: no snapshots, and closed unless it sits in time.
        self.overflow = False
        #: Closed to make room, or for not sitting in time (``FULL_CLOSED`` is sent).
        self.evicted = False
        #: Closed because the server stops.
        self.stopping = False
        self._scope = trio.CancelScope()
        self._waiting = False  # for a seat another connection holds
        self._kick = trio.Event()  # the view changed, or a seated page's turn opened
        self._limiter = RateLimiter(MESSAGE_RATE, MESSAGE_BURST)
        #: The view version of the last snapshot sent (with every move then).
        self.sent = -1
        #: The run and game whose moves the page holds, and how many of each board.
        self.have_game = ("", 0)
        self.have: dict[BoardId, int] = {}

    def holds(self, run: str, game: int, have: Mapping[BoardId, int]) -> None:
        """The page says it holds ``have`` moves per board of game ``game`` of ``run``."""
        self.have_game, self.have = (run, game), dict(have)

    def evict(self) -> None:
        """Closes the page (it holds no seat) with ``FULL_CLOSED``."""
        self.front.release(self)
        self.evicted = True
        self._scope.cancel()

    def stop(self) -> None:
        """Closes the page: the server is stopping."""
        self.stopping = True
        self._scope.cancel()

    async def run(self) -> None:
        self.front._sessions.add(self)
        try:
            with self._scope:
                await self._run()
            if self.stopping:
                with trio.move_on_after(1):
                    await self.socket.close(1001, "the server is stopping")
            elif self.evicted:
                self.table.refused(
                    f"web {self.peer}: page closed, the table is full "
                    f"({len(self.front.pages)} watching)",
                    "table full",
                )
                with trio.move_on_after(1):
                    await self._error(FULL_CLOSED)
                    await self.socket.close(1013, "the table is full")
        finally:
            self.front._sessions.discard(self)
            self.front._note_sent()

    async def _run(self) -> None:
        async with trio.open_nursery() as nursery:
            if self.overflow:
                nursery.start_soon(self._sit_in_time)
                await self._error(TABLE_FULL)
            else:
                nursery.start_soon(self._push)
            try:
                while (text := await self.socket.receive()) is not None:
                    delay = self._limiter.delay(trio.current_time())
                    if delay:
                        await trio.sleep(delay)
                    await self._on_message(nursery, text)
            finally:
                if self.player is not None:
                    self.player.link.close()
                    with trio.move_on_after(DETACH_TIMEOUT):
                        await self.player.detached.wait()
                nursery.cancel_scope.cancel()
        if self.socket.gone is not None:
            self.table.refused(f"web {self.peer}: page closed, {self.socket.gone}", "went silent")
        await self.socket.close()

    async def _sit_in_time(self) -> None:
        await trio.sleep(self.front.limits.auth_timeout)
        if self.player is None and not self._waiting:  # a waiting page holds the seat's token
            self.evict()

    async def _push(self) -> None:
        while not self.socket.closed:
            # The players' lines of the change that woke this task go out first:
            # their writers woke with it, and run before this task's next step.
            await trio.lowlevel.checkpoint()
            kick = self._kick
            version = self.front.view.version
            if self.player is not None and self.player.refused is not None:
                note, self.player.refused = self.player.refused, None
                await self._error(note)
            view = self.front.view
            have = self.have if self.have_game == (view.run, view.game_id) else {}
            if self.seat is None:
                data, text = self.front.watcher_snapshot(have)
            else:
                data = view.snapshot(trio.current_time(), seat=self.seat, have=have)
                text = json.dumps(data, separators=(",", ":"))
            await self.socket.send(text)
            self.have_game, self.have = (view.run, data["game"]), moves_held(data)
            if moves_behind(data):
                continue  # the next range of moves, at once
            self.sent = version
            self.front._note_sent()
            if self.front.view.version == version:
                await kick.wait()  # a change of the view kicks every page (``_on_event``)

    def kick(self) -> None:
        """Wakes the page's sender: the view changed, or its snapshot must be re-sent."""
        self._kick.set()
        self._kick = trio.Event()

    async def _error(self, text: str) -> None:
        await self.socket.send(json.dumps({"type": "error", "text": text}))

    async def _on_message(self, nursery: trio.Nursery, text: str) -> None:
        message = page_message(text)
        if isinstance(message, str):
            await self._error(message)
            return
        kind = message["type"]
        if kind == "sit":
            await self._sit(nursery, message)
            return
        if kind == "moves":
            held = held_in_message(message)
            if held is None:
                await self._error(
                    "moves needs the game and a count per board, such as "
                    '{"game": 1, "have": {"A": 12, "B": 9}}'
                )
                return
            self.holds(self.front.view.run, *held)
            self.kick()
            return
        player = self.player
        if player is None:
            await self._error(f"take a seat first ({kind!r} needs one)")
            return
        if kind == "move":
            uci = message.get("uci")
            if not isinstance(uci, str) or not 4 <= len(uci) <= 5:
                await self._error("a move is UCI text such as e2e4, e7e8q or N@f3")
                return
            problem = player.play(uci)
            if problem:
                await self._error(problem)
        elif kind == "tell":
            said = message.get("text")
            if not isinstance(said, str) or not said.strip():
                await self._error("a tell needs some text")
                return
            player.say(" ".join(said.split())[:MAX_TELL])
        elif kind == "resign":
            player.act(ResignAction(seat=player.seat, arrived_at=trio.current_time()))
        elif kind == "draw":
            player.act(DrawOfferAction(seat=player.seat, arrived_at=trio.current_time()))
        else:
            await self._error(f"unknown message type {kind[:20]!r}")

    async def _sit(self, nursery: trio.Nursery, message: dict[str, Any]) -> None:
        if self.player is not None:
            await self._error(f"already seated at {self.player.seat}")
            return
        seat_text, token = message.get("seat"), message.get("token")
        if not isinstance(seat_text, str) or not isinstance(token, str):
            await self._error("sit needs a seat and a token")
            return
        try:
            seat = self.table.authenticate(seat_text[:20], token[:100], peer=f"web {self.peer}")
        except AuthRefused as exc:
            if exc.reason == "seat taken" and not self._waiting:
                # Another page or engine holds it: maybe this player's own, gone
                # without a word (a reload, a new network), which pings will close.
                self._waiting = True
                nursery.start_soon(self._sit_when_free, nursery, message)
                await self._error(f"waiting for {seat_text[:20]}: another connection holds it")
                return
            await self._error(f"cannot sit at {seat_text[:20]}: {exc.reason}")
            return
        await self._take(nursery, seat, message)

    async def _sit_when_free(self, nursery: trio.Nursery, message: dict[str, Any]) -> None:
        """Sits once the connection that holds the seat is gone (at most two pings away)."""
        seat_text, token = str(message["seat"])[:20], str(message["token"])[:100]
        reason = "seat taken"
        with trio.move_on_after(2 * self.front.limits.ping_every + DETACH_TIMEOUT):
            while reason == "seat taken" and self.player is None:
                await trio.sleep(SEAT_RETRY)
                try:
                    seat = self.table.authenticate(seat_text, token, quiet=True)
                except AuthRefused as exc:
                    reason = exc.reason
                    continue
                self._waiting = False
                await self._take(nursery, seat, message)
                return
        self._waiting = False
        if self.player is None:
            await self._error(f"cannot sit at {seat_text}: {reason}")

    async def _take(self, nursery: trio.Nursery, seat: Seat, message: dict[str, Any]) -> None:
        # A seated page counts in no pool: strangers cannot push it out.
        self.front.release(self)
        if self.overflow:
            self.overflow = False
            nursery.start_soon(self._push)
        name = message.get("name")
        clean = _NAME.sub("", name)[:30].strip() if isinstance(name, str) else ""
        # The player sits where the table has it now (seats rotate between games).
        at = self.table.seat_of(seat)
        player = WebPlayer(at, clean or f"web {seat.value}", on_turn=self.kick)
        self.player, self.seat = player, seat
        await nursery.start(player.run, self.table, seat, f"web {self.peer}")
        self.table.log(f"web {self.peer}: took seat {seat.bpgn}")
        shown = self.front.view.seat_of(seat)
        seated = {"type": "seated", "seat": shown.value, "joined": seat.value, "name": player.name}
        await self.socket.send(json.dumps({**seated, "signals": signals_message()["signals"]}))
        self.kick()


def page_message(text: str) -> dict[str, Any] | str:
    """A page's message as a dict with a text ``type``, or the one-line answer to a bad one.

    Any JSON text is taken without harm: nesting deeper than Python's
    parser goes, and strings holding a lone surrogate (``\\ud800``, which
    no UTF-8 line, log or file can carry), are refused here, at the edge.
    """
    try:
        message = json.loads(text)
    except RecursionError:
        return "not JSON (nested too deeply)"
    except ValueError:
        return "not JSON"
    try:
        json.dumps(message, ensure_ascii=False).encode()
    except RecursionError:
        return "not JSON (nested too deeply)"
    except UnicodeEncodeError:
        return "not valid Unicode text (a lone surrogate)"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "a message is an object with a 'type'"
    return message


def failure(exc: BaseException) -> str | None:
    """The first failure in ``exc`` that is more than the peer going away, as text; else None."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (why := failure(inner)) is not None:
                return why
        return None
    if isinstance(exc, _BENIGN) or not isinstance(exc, Exception):
        return None
    return f"{type(exc).__name__}: {exc}"


def held_in_query(query: str) -> tuple[str, int, dict[BoardId, int]]:
    """The moves a page holds, from its WebSocket address (``run=…&game=3&A=120&B=118``).

    A count that is not plain digits counts as none held (the page gets those moves again).
    """
    fields: dict[str, str] = {}
    for part in query.split("&")[:8]:
        key, _, value = part.partition("=")
        fields[key] = value
    counts = {key: int(value) for key, value in fields.items() if _COUNT.fullmatch(value)}
    run = fields.get("run", "")
    return (
        run if _RUN.fullmatch(run) else "",
        counts.get("game", 0),
        {board: counts[board.value] for board in BoardId if board.value in counts},
    )


def held_in_message(message: Mapping[str, Any]) -> tuple[int, dict[BoardId, int]] | None:
    """The moves a page holds, from a ``moves`` message; None if it is malformed."""
    game, have = message.get("game"), message.get("have")
    if not _count(game) or not isinstance(have, dict):
        return None
    held: dict[BoardId, int] = {}
    for key, value in have.items():
        board = next((b for b in BoardId if b.value == key), None)
        if board is None or not _count(value):
            return None
        held[board] = value
    return game, held


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9


class MemoryLink:
    """A ``SeatLink`` inside the server: lines to and from a ``PlayerDriver``."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        #: A person plays here (seam): the table refuses their illegal moves
        #: rather than ending the game, and asks them about draw offers.
        self.human = True
        self._to_driver_send, self.to_driver = trio.open_memory_channel[RawLine](math.inf)
        self._from_driver, self._from_driver_receive = trio.open_memory_channel[RawLine](math.inf)

    # -- the table's side (SeatLink) ------------------------------------------------

    def send(self, line: str) -> None:
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            self._to_driver_send.send_nowait(RawLine(line, len(line.encode())))

    async def receive(self) -> RawLine | None:
        try:
            return await self._from_driver_receive.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            return None

    async def aclose(self) -> None:
        self.close()

    # -- the driver's side -------------------------------------------------------------

    def answer(self, lines: list[str]) -> None:
        for line in lines:
            try:
                self._from_driver.send_nowait(RawLine(line, len(line.encode())))
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return

    def close(self) -> None:
        """Ends the link: the table sees the peer leave."""
        self._from_driver.close()
        self._to_driver_send.close()


class WebPlayer(Player):
    """The person at a page's seat, as the ``PlayerDriver`` of that seat sees them."""

    def __init__(self, seat: Seat, name: str, *, on_turn: Any) -> None:
        self.seat = seat
        self.seats = (seat,)
        self.name = name
        self.on_turn = on_turn
        self.token: int | None = None
        self.pending: str | None = None
        #: The table's last refusal of a move, for the page (once).
        self.refused: str | None = None
        self.link = MemoryLink(name)
        self.detached = trio.Event()
        self._actions: trio.MemorySendChannel[Action] | None = None

    async def run(
        self,
        table: LiveTable,
        joined: Seat,
        peer: str,
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Attaches the link to remote seat ``joined`` and drives it until the link is over."""
        self.link.peer = peer
        driver = PlayerDriver(self, self.link.answer, log=table.log)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(driver.run, nursery, self._lines())
                task_status.started()
                await table.attach(joined, self.link)
                nursery.cancel_scope.cancel()
        finally:
            self.detached.set()

    async def _lines(self) -> AsyncIterator[RawLine]:
        async for line in self.link.to_driver:
            yield line

    # -- from the page -------------------------------------------------------------------

    def play(self, uci: str) -> str | None:
        """Sends the move for the open turn, or keeps it for the next one.

        The page learns of a turn from the arbiter's event, which can reach it
        before this seat's ``go`` has gone through the driver: the move waits
        for it (and the table judges it then).
        """
        if self.token is None:
            self.pending = uci
            return None
        self.act(MoveAction(seat=self.seat, token=self.token, move=uci))
        self.token = None
        return None

    def say(self, text: str) -> None:
        self.act(TellAction(seat=self.seat, text=text))

    def act(self, action: Action) -> None:
        if self._actions is not None:
            with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
                self._actions.send_nowait(action)

    # -- Player: the driver's calls --------------------------------------------------------

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self._actions = actions

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        """Moves the person to the seat of the next game (``serve`` rotates seats)."""
        if len(seats) != 1:
            raise ValueError("a person at the page holds one seat")
        self.seat = seats[0]
        self.seats = (seats[0],)

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.token = self.pending = None

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        self.token = token
        if self.pending is not None:
            move, self.pending = self.pending, None
            self.play(move)
        self.on_turn()

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        pass

    async def partner_says(self, seat: Seat, text: str) -> None:
        pass

    async def move_refused(self, seat: Seat, token: int, move: str, reason: str) -> None:
        self.refused = f"the table refused {move[:12]}: {reason[:80]}"
        self.on_turn()

    async def board_ended(self, result: BoardResult) -> None:
        self.token = None

    async def game_over(self, outcome: Outcome) -> None:
        self.token = None
        self.on_turn()

    async def aclose(self) -> None:
        self.link.close()
