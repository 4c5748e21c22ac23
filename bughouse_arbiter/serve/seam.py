"""The table seam: what a running ``bughouse serve`` hands to its front ends.

A *front end* is anything that lets people or engines elsewhere reach the
table: the TCP listener (``listener.TcpFrontEnd``) and, with ``--web``, the
web page. ``serve`` builds one ``LiveTable``, starts every front end in its
nursery with ``await nursery.start(front_end.serve, table)`` (``serve`` calls
``task_status.started()`` once it accepts connections) and then plays the
games; when the last game is over it cancels the front ends.

The contract of ``LiveTable`` (everything a front end may use):

- ``remote_seats``: the seats that wait for a network player, in seat order.
- ``tokens``: the secret per remote seat. Show a token only to whoever is to
  sit there; never send it to another client.
- ``rules``, ``names()``: the house rules, and the name at each seat now.
- ``seating`` / ``seat_of(seat)``: where the player of each remote seat (the
  seat its token opens, where it sat in the first game) sits in the game being
  played, or about to be. ``serve`` rotates the seats between games as
  ``match`` does (``seat_players``, called before each game starts, so a front
  end that reads it on ``MatchStarted`` gets that game's seating); with
  ``--fixed-seats`` every remote seat maps to itself.
- ``observe(callback)``: ``callback(event)`` gets every ``MatchEvent`` of the
  arbiter (``MatchStarted`` ... ``MatchEnded``) of every game, synchronously,
  in order, until the returned function is called. Same rules as
  ``run_match``'s observer: return quickly, never raise (an exception is
  logged and the callback dropped), read ``event.game`` but never change it;
  to do I/O, copy what you need into your own queue.
- ``authenticate(seat_text, token, peer=...)``: the remote seat the token opens
  (a key of ``seating``), if it opens it now; ``seat_text`` names that seat,
  or the seat its player sits at in the current game. Otherwise raises
  ``AuthRefused`` with a one-line reason (``unknown seat``, ``not a remote
  seat``, ``wrong token``, ``seat taken``, ``token used``). Every refusal is
  logged through ``refused``. Comparison is constant-time; any text is
  taken (a lone surrogate too) and refused if it opens nothing.
- ``attach(seat, link)``: hands an authenticated ``SeatLink`` to the seat and
  returns when the link is over (the peer left, the game series ended, or the
  seat was lost for good). While attached, every line the table has for the
  seat goes to ``link.send`` and every line from ``link.receive`` goes to the
  seat's native-protocol player: the link carries protocol.md lines exactly
  as a pipe does. A link that drops within the game may be replaced by a new
  one with the same token within ``reconnect_grace`` seconds; the new one is
  told the whole state again (handshake, newgame, state, and go if it is to
  move).
- ``log(text)``: one line to the server's log (stderr).
- ``refused(text, kind)``: a refused or dropped connection's line, through a
  ``refusals.RefusalLog`` (the first few of a period each, then a count by
  ``kind``); a front end runs ``report_refusals`` in its nursery so that
  the counts are written once a period and when the server stops.

``SeatLink`` is what a front end provides per connection: ``peer`` (for logs),
optionally ``lag`` (the last measured round-trip in seconds, or None; it is
written with each move of the seat as ``[%lag ms]``) and ``human`` (True: a
person plays, so the arbiter refuses their illegal moves instead of scoring
them and asks them about draws; read when each game starts),
``send(line)`` (never blocks; queues; silently drops once the connection is
broken), ``receive()`` (the next line as a ``RawLine``, capped at the line
limit, or None once the connection ended) and ``aclose()``. The front end
enforces its own limits (line length, lines per second) before lines reach
the seat; the seat's protocol session then treats them like engine output
(anything unknown, malformed or stale is logged and ignored).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

import trio

from ..core.model import SEATS, Seat
from ..core.rules import HouseRules
from ..net.refusals import RefusalLog
from ..protocol import RawLine
from ..table.match_events import MatchEvent

Observer = Callable[[MatchEvent], None]
Log = Callable[[str], None]


class AuthRefused(Exception):
    """An ``auth`` line did not open a seat; ``reason`` is one short phrase."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SeatLink(Protocol):
    """One authenticated connection that carries a remote seat's protocol lines."""

    peer: str

    def send(self, line: str) -> None:
        """Queues one line (no line break in it); never blocks."""

    async def receive(self) -> RawLine | None:
        """The next line from the peer, or None once the connection ended."""

    async def aclose(self) -> None:
        """Closes the connection; safe to call more than once."""


class SeatHolder(Protocol):
    """What ``LiveTable`` needs of a remote seat (``remote.RemoteSeat``)."""

    @property
    def connected(self) -> bool: ...

    @property
    def lost(self) -> bool:
        """True once the seat can no longer be taken (left for good, or the series ended)."""

    async def attach(self, link: SeatLink) -> None: ...


class FrontEnd(Protocol):
    """A way in to the table (TCP listener, web page)."""

    async def serve(
        self, table: LiveTable, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None: ...


def seat_from_text(text: str) -> Seat | None:
    """``WA``, ``A-white``, ``a_white``... as a Seat, or None."""
    try:
        return Seat.parse(text)
    except ValueError:
        return None


class LiveTable:
    """The running table as front ends see it (see the module docstring)."""

    def __init__(
        self,
        rules: HouseRules,
        holders: Mapping[Seat, SeatHolder],
        *,
        names: Callable[[], Mapping[Seat, str]],
        log: Log,
        tokens: Mapping[Seat, str] | None = None,
    ) -> None:
        self.rules = rules
        self.remote_seats: tuple[Seat, ...] = tuple(s for s in SEATS if s in holders)
        self.tokens: Mapping[Seat, str] = (
            dict(tokens) if tokens is not None else new_tokens(self.remote_seats)
        )
        self.names = names
        self.log = log
        #: Remote seat (its token's) -> the seat its player holds in the current game.
        self.seating: dict[Seat, Seat] = {seat: seat for seat in self.remote_seats}
        self._holders = dict(holders)
        self._observers: list[Observer] = []
        self.refusals = RefusalLog()
        self._reporting = False

    # -- the log ------------------------------------------------------------------------

    def refused(self, text: str, kind: str) -> None:
        """Logs a refusal, or counts it (a flood): see ``refusals``."""
        for line in self.refusals.note(_now(), text, kind):
            self.log(line)

    async def report_refusals(self) -> None:
        """Writes the counted refusals once a period, and at the end; runs once per table."""
        if self._reporting:
            return
        self._reporting = True
        try:
            while True:
                await trio.sleep(self.refusals.period / 2)
                for line in self.refusals.due(trio.current_time()):
                    self.log(line)
        finally:
            for line in self.refusals.flush():
                self.log(line)

    # -- events ------------------------------------------------------------------------

    def observe(self, callback: Observer) -> Callable[[], None]:
        """Subscribes ``callback`` to every arbiter event; returns the unsubscribe function."""
        self._observers.append(callback)

        def remove() -> None:
            if callback in self._observers:
                self._observers.remove(callback)

        return remove

    def emit(self, event: MatchEvent) -> None:
        """Called by ``serve`` (the arbiter's observer) for every event."""
        for callback in list(self._observers):
            try:
                callback(event)
            except Exception as exc:  # a front end's bug must not stop the game
                self.log(f"observer {callback!r} failed ({type(exc).__name__}: {exc}); dropped")
                if callback in self._observers:
                    self._observers.remove(callback)

    # -- seats ---------------------------------------------------------------------------

    def seat_players(self, seating: Mapping[Seat, Seat]) -> None:
        """Says where each remote seat's player sits from the next game on."""
        if set(seating) != set(self.remote_seats):
            raise ValueError("seat_players needs every remote seat, and only those")
        self.seating = dict(seating)

    def seat_of(self, seat: Seat) -> Seat:
        """Where the player of remote seat ``seat`` sits in the current game."""
        return self.seating.get(seat, seat)

    def authenticate(
        self, seat_text: str, token: str, *, peer: str = "?", quiet: bool = False
    ) -> Seat:
        """The remote seat ``token`` opens now; raises ``AuthRefused`` (and logs) otherwise.

        ``seat_text`` names that seat or the one its player sits at in the
        current game; ``peer`` names the connection in the log line
        (``quiet``: none, for a caller that asks again and again).
        """
        named = seat_from_text(seat_text)
        try:
            if named is None:
                raise AuthRefused("unknown seat")
            # The remote seat named, and the one whose player sits there now.
            candidates = [s for s in self.remote_seats if named in (s, self.seating[s])]
            if not candidates:
                raise AuthRefused("not a remote seat")
            opened = [
                s
                for s in candidates
                if hmac.compare_digest(self.tokens[s].encode(), _bytes(token))
            ]
            if not opened:
                raise AuthRefused("wrong token")
            seat = opened[0]
            holder = self._holders[seat]
            if holder.lost:
                raise AuthRefused("token used")
            if holder.connected:
                raise AuthRefused("seat taken")
        except AuthRefused as exc:
            if not quiet:
                text = f"{peer}: auth refused for seat {seat_text[:20]!r}: {exc.reason}"
                self.refused(text, exc.reason)
            raise
        return seat

    async def attach(self, seat: Seat, link: SeatLink) -> None:
        """Seats ``link`` at ``seat`` (authenticated) until the link is over."""
        await self._holders[seat].attach(link)


def _now() -> float:
    try:
        return trio.current_time()
    except RuntimeError:  # outside trio (a synchronous caller): a quiet log
        return 0.0


def _bytes(text: str) -> bytes:
    # A JSON string may hold a lone surrogate (\ud800), which UTF-8 cannot encode.
    return text.encode("utf-8", "surrogatepass")


def new_tokens(seats: Iterable[Seat]) -> dict[Seat, str]:
    """One fresh secret per seat (``secrets.token_urlsafe``)."""
    return {seat: _token() for seat in seats}


def _token() -> str:
    # Never starting with "-", so that "--token TOKEN" cannot read as an option.
    while (token := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return token
