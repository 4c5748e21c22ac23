"""Club evenings at run time: the events, their timers, their rounds' tables and pages.

``EventHall`` owns the server's events (``events.event.Event`` values) and
runs them on the ``Hall``: at the slot's start (or the host's word) the
teams are formed, and each round's games are set up with
``Hall.arrange``, so they are played by the same ``TableHost`` table code
as every lobby table (a computer in a missing player's seat where the host
allows it). When a game ends its result goes into the event; once every
game of the round is in, the next round is set up. Each event is written
to ``events/ID.json`` in the server's games folder after every change (its
games are in the tables' BPGN files and the hall's archive, as any game).

A page of the event (``hall.web.events``) is a ``Viewer``: it gets the
event view (coalesced, at most ``VIEW_RATE`` a second) and, once its person
said hello, joins the Hall as that person, so the ``seat`` message of their
game comes to that page.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio

from ..config.specs import TimeControl
from ..core.rules import HouseRules, apply_rules
from ..events.event import Event, EventSpec, GameKey, SwissQuestion
from ..events.forms import PageCommand
from ..lobby.archive import GameFinished
from ..lobby.identity import Identity
from ..lobby.messages import TABLE_RULES
from ..lobby.tables import TableSpec
from ..loop.workers import Refused, WorkerPool
from .runtime import Hall, JoinRefused, Member

Message = dict[str, Any]
#: Event views a second, at most, per page.
VIEW_RATE = 10.0
#: Events at once (not finished).
MAX_EVENTS = 50
#: Events not yet finished that one address may have made (so one cannot fill ``MAX_EVENTS``).
EVENTS_PER_ADDRESS = 3


class Viewer:
    """One page of an event: its ``send`` and, after hello, its person in the hall."""

    def __init__(self, send: Callable[[Message], None]) -> None:
        self.send = send
        self.member: Member | None = None


class EventHall:
    """The server's events (see the module docstring); ``await nursery.start(events.run)``."""

    def __init__(self, hall: Hall, out: Path) -> None:
        self.hall = hall
        self.out = out
        self.events: dict[str, Event] = {}
        self.tokens: dict[str, str] = {}
        self.viewers: dict[str, set[Viewer]] = {}
        self._next = 1
        #: The address each event was made from.
        self.makers: dict[str, str] = {}
        self._poke = trio.Event()
        self._shown: dict[str, int] = {}
        self._kept: dict[str, int] = {}
        self._states: dict[str, str] = {}
        #: The open pages' scopes (``close`` ends them when the server stops).
        self.pages: set[trio.CancelScope] = set()
        self.stopping = False
        #: Swiss rounds are paired here, off the loop (threads: a round takes milliseconds
        #: and the GIL is let go every few of them).
        self.pairing = WorkerPool("pairing", workers=1, queue=MAX_EVENTS)
        self._pairing: set[str] = set()
        self._nursery: trio.Nursery | None = None

    # -- the host's side -------------------------------------------------------------------

    def create(
        self, spec: EventSpec, host: str | None = None, *, address: str = "?"
    ) -> tuple[Event, str] | str:
        """A new event and its host's token, or why not (``address``: whose it is)."""
        live = [e for e in self.events.values() if e.state != "finished"]
        if len(live) >= MAX_EVENTS:
            return f"the server holds {MAX_EVENTS} events already"
        if sum(self.makers.get(e.id) == address for e in live) >= EVENTS_PER_ADDRESS:
            return f"your address has {EVENTS_PER_ADDRESS} events open already"
        event = Event(f"e{self._next}", spec, host=host, defer_pairing=True)
        self._next += 1
        self.events[event.id] = event
        self.tokens[event.id] = secrets.token_urlsafe(12)
        self.makers[event.id] = address
        self.viewers[event.id] = set()
        self.hall.log(f"event {event.id}: {spec.title!r} created ({spec.format}, {spec.tc})")
        self._wake()
        return event, self.tokens[event.id]

    # -- a page's side ---------------------------------------------------------------------

    def watch(self, event_id: str, viewer: Viewer) -> bool:
        event = self.events.get(event_id)
        if event is None:
            return False
        self.viewers[event_id].add(viewer)
        viewer.send(event.shown(self._now()))
        return True

    def unwatch(self, event_id: str, viewer: Viewer) -> None:
        self.viewers.get(event_id, set()).discard(viewer)
        if viewer.member is not None:
            self.hall.leave(viewer.member)
            viewer.member = None

    def handle(self, event_id: str, viewer: Viewer, command: PageCommand) -> str | None:
        """One page message; why it was refused (one line), if it was."""
        event = self.events.get(event_id)
        if event is None:
            return "no such event"
        now = self._now()
        if command.type == "hello":
            return self._hello(viewer, command.name or "")
        if command.type in ("start", "add_bot"):
            if command.token is None or not secrets.compare_digest(
                command.token, self.tokens[event_id]
            ):
                return "only the host may do that (the host's link holds its token)"
            if command.type == "start":
                problem = event.start(now)
            else:
                bot = Identity(command.name or "", "bot")
                problem = event.sign_up(bot, None, now) or event.check_in(bot.name, now)
            self._wake()
            return problem
        if viewer.member is None:
            return "say who you are first"
        name = viewer.member.name
        if command.type == "sign_up":
            problem = event.sign_up(viewer.member.identity, command.partner, now)
        elif command.type == "withdraw":
            problem = event.withdraw(name)
        else:
            problem = event.check_in(name, now)
        self._wake()
        return problem

    def _hello(self, viewer: Viewer, name: str) -> str | None:
        if viewer.member is not None:
            return f"you are {viewer.member.name} on this page already"

        def passed(message: Message) -> None:
            if message.get("type") in ("seat", "error", "welcome"):
                viewer.send(message)

        try:
            viewer.member = self.hall.join(Identity(name), passed)
        except JoinRefused as exc:
            return exc.reason
        return None

    async def close(self) -> None:
        """The server is stopping: every event page's socket is ended (told so); returns
        once they are closed."""
        self.stopping = True
        for scope in list(self.pages):
            scope.cancel()
        with trio.move_on_after(5):
            while self.pages:
                await trio.sleep(0.01)

    # -- running ---------------------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The events' timers, rounds and views, until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            nursery.start_soon(self._views)
            task_status.started()
            while True:
                poke = self._poke
                due = [e.next_deadline() for e in self.events.values()]
                deadline = min((d for d in due if d is not None), default=math.inf)
                with trio.move_on_at(deadline):
                    await poke.wait()
                if self._poke is poke:
                    self._poke = trio.Event()
                for event in list(self.events.values()):
                    self._step(event)

    def _step(self, event: Event) -> None:
        now = self._now()
        event.tick(now)
        question = event.wanted
        if question is not None and event.id not in self._pairing and self._nursery:
            self._pairing.add(event.id)
            self._nursery.start_soon(self._pair, event, question)
        present, refused = self._present(event.spec.tc)
        for game in event.next_games(present, now, refused):
            spec = TableSpec(
                tc=event.spec.tc,
                rules=_rules(event.spec.tc),
                computers=True,
                fill_after=0.0,
            )
            ended = partial(self._ended, event, game.key)
            table = self.hall.arrange(spec, game.seats, ended)
            event.tables[game.key] = table
            event.version += 1
            names = ", ".join(f"{s.bpgn} {w.name}" for s, w in game.seats.items())
            self.hall.log(f"event {event.id}: round {game.key.round} at {table}: {names}")
        if self._states.get(event.id) != event.state:
            self._states[event.id] = event.state
            self.hall.log(f"event {event.id}: {event.state}")
        if self._kept.get(event.id) != event.version:
            self._kept[event.id] = event.version
            self._keep(event)

    def _present(self, tc: TimeControl) -> tuple[set[str], dict[str, str]]:
        """Who can be seated at ``tc`` now: members, and bots that play it, connected
        and not at a table; and why each other idle bot cannot (for the event's log)."""
        lobby = self.hall.lobby
        busy = {
            who.name
            for table in lobby.tables.values()
            if table.state != "closed"
            for who in table.seats.values()
            if who is not None
        }
        bots = {name: lobby.bots[name] for name in self.hall.bots if name in lobby.bots}
        refused = {
            name: f"{name} accepts {bot.shown_tcs()} only, not this event's {tc}"
            for name, bot in bots.items()
            if name not in busy and not bot.plays(tc)
        }
        here = set(self.hall.members) | set(bots)
        return here - busy - refused.keys(), refused

    async def _pair(self, event: Event, question: SwissQuestion) -> None:
        """Pairs the event's next Swiss round in the pool, then wakes the timers to seat it."""
        try:
            pairs = await self.pairing.run(question.answer)
        except Refused as exc:
            self.hall.log(f"event {event.id}: round not paired yet ({exc})")
            await trio.sleep(1.0)  # then _step asks again
        else:
            event.paired(question, pairs)
        finally:
            self._pairing.discard(event.id)
            self._wake()

    def _ended(self, event: Event, key: GameKey, game: GameFinished | None, why: str) -> None:
        now = self._now()
        if game is None:
            self.hall.log(f"event {event.id}: a game of round {key.round} failed: {why}")
            event.failed(key, why, now)
        else:
            event.result(key, game.result, now)
        self._wake()

    def _keep(self, event: Event) -> None:
        """Writes the event's record (best effort: a full disk must not stop the evening)."""
        folder = self.out / "events"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            record = event.shown(self._now())
            record.pop("starts_in", None)
            (folder / f"{event.id}.json").write_text(json.dumps(record, indent=1) + "\n")
        except OSError as exc:
            self.hall.log(f"event {event.id}: its record could not be written ({exc})")

    async def _views(self) -> None:
        while True:
            await trio.sleep(1 / VIEW_RATE)
            for event in list(self.events.values()):
                if self._shown.get(event.id) == event.version:
                    continue
                self._shown[event.id] = event.version
                view = event.shown(self._now())
                for viewer in list(self.viewers.get(event.id, ())):
                    viewer.send(view)

    def _wake(self) -> None:
        self._poke.set()

    def _now(self) -> float:
        return trio.current_time()


def _rules(tc: TimeControl) -> HouseRules:
    """The lobby's table rules at this time control."""
    base = apply_rules(HouseRules(), TABLE_RULES, keep_profile=True)
    return apply_rules(base, tc.rule_pairs(), keep_profile=True)
