"""The lobby's state and transitions: members, tables, the queue, invitations, bots, chat.

Every method takes ``now`` where time matters and returns a list of
effects for the runtime: ``Send`` (one message to one member), ``StartGame``
(a table's next game, with who sits where) and ``EndSeries`` (a table's
players are let go: nobody asked for a rematch, or someone stood up).
``version`` grows with every change the lobby view shows, so the runtime
knows when to send everyone what changed: ``view`` is the whole ``lobby``
message (for a member that joins or asks), ``diff`` the ``lobby-diff`` since
the last one (``lobby.shown`` keeps what was shown).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import attrs

from ..config.specs import TimeControl
from ..core.model import SEATS, Seat
from ..core.rules import HouseRules
from .chat import ChatRate
from .identity import Identity, name_key, name_problem
from .messages import (
    TABLE_RULES,
    Answer,
    AskView,
    Chat,
    Command,
    Create,
    Hello,
    LeaveQueue,
    Mute,
    PlayNow,
    Rematch,
    Sit,
    Stand,
    Start,
    Watch,
    error,
)
from .pairing import Entry, Group, Queue
from .shown import Shown
from .tables import REMATCH_WINDOW, Table, TableSpec, seat_key, swapped

#: Seconds an invitation waits for its answer.
INVITE_TIMEOUT = 60.0
#: Tables at once (open or playing): past it, ``create`` is refused.
MAX_TABLES = 200
#: Open tables one member may have created and not yet seen played.
MAX_OWN_TABLES = 3
#: Seconds before a member asking for the whole view again is sent it again.
VIEW_AGAIN = 2.0


@attrs.frozen
class Send:
    name: str
    message: dict[str, object]


@attrs.frozen
class StartGame:
    table: str
    seats: Mapping[Seat, Identity]
    #: The same players as the last game (the runtime keeps their connections).
    rematch: bool


@attrs.frozen
class EndSeries:
    table: str


Effect = Send | StartGame | EndSeries


@attrs.frozen
class Invite:
    inviter: str
    invitee: str
    tc: TimeControl
    computers: bool
    since: float


@attrs.define
class Bot:
    identity: Identity
    tcs: frozenset[TimeControl]
    #: The table it sits at (None: idle, waiting to be placed).
    table: str | None = None

    def plays(self, tc: TimeControl) -> bool:
        """Whether it accepts ``tc`` (its hello's ``tc=``): the one check before a bot
        is seated, at a table, in a queue group or at an event's game."""
        return tc in self.tcs

    def shown_tcs(self) -> str:
        """The time controls it accepts, shortest first (``60+0, 180+0``)."""
        order = sorted(self.tcs, key=lambda tc: (tc.base or 0.0, tc.increment))
        return ", ".join(str(tc) for tc in order)


@attrs.define
class Lobby:
    """The whole lobby (see the module docstring)."""

    queue_fill_after: float = 15.0
    rematch_window: float = REMATCH_WINDOW
    max_tables: int = MAX_TABLES
    members: dict[str, Identity] = attrs.field(factory=dict)
    tables: dict[str, Table] = attrs.field(factory=dict)
    queue: Queue = attrs.field(init=False)
    invites: dict[str, Invite] = attrs.field(factory=dict)
    bots: dict[str, Bot] = attrs.field(factory=dict)
    chat_rate: ChatRate = attrs.field(factory=ChatRate)
    version: int = 0
    #: What members were last shown (``view`` and ``diff``); version 0 is the empty lobby.
    shown: Shown = attrs.field(factory=lambda: Shown(parts={"queue": [], "online": []}))
    #: The last reason each queued member was told, so it is told again only on change.
    _told: dict[str, str] = attrs.field(factory=dict)
    #: When each member was last sent the whole view it asked for.
    _asked: dict[str, float] = attrs.field(factory=dict)
    _next_id: int = 1

    def __attrs_post_init__(self) -> None:
        self.queue = Queue(fill_after=self.queue_fill_after)

    # -- members -------------------------------------------------------------------

    def join(self, identity: Identity) -> str | None:
        """Adds a member; the reason it cannot join, if it cannot."""
        if identity.kind == "guest" and (problem := name_problem(identity.name)):
            return problem
        if self.name_taken(identity.name):
            return f"the name {identity.name!r} is taken by someone connected now"
        self.members[identity.name] = identity
        self._changed()
        return None

    def name_taken(self, name: str) -> bool:
        """A member or bot online now has ``name``, in any letter case."""
        key = name_key(name)
        return any(name_key(n) == key for n in (*self.members, *self.bots))

    def leave(self, name: str, now: float) -> list[Effect]:
        """A member's connection ended: it leaves the queue and every open seat.

        A seat in a game being played stays its (the table waits for it within
        the house rules' ``reconnect_grace``).
        """
        if name not in self.members:
            return []
        effects = self._unqueue(name, now, why=f"{name} left the lobby")
        effects += self._drop_invites(name, now)
        for table in list(self.tables.values()):
            seat = table.seat_of(name)
            if seat is not None and table.state in ("open", "between"):
                effects += self._stand(table, seat, now)
        del self.members[name]  # its chat_rate stays: reconnecting does not refill it
        self._told.pop(name, None)
        self._asked.pop(name, None)
        effects += self._close_idle()
        self._changed()
        return effects

    def add_bot(self, identity: Identity, tcs: Collection[TimeControl], now: float) -> list[Effect]:
        """A bot that plays any of ``tcs``: it fills queue groups and open tables."""
        self.bots[identity.name] = Bot(identity, frozenset(tcs))
        self._changed()
        return self.tick(now)

    def remove_bot(self, name: str, now: float) -> list[Effect]:
        bot = self.bots.pop(name, None)
        if bot is None:
            return []
        effects: list[Effect] = []
        table = self.tables.get(bot.table or "")
        if table is not None and table.state in ("open", "between"):
            seat = table.seat_of(name)
            if seat is not None:
                effects += self._stand(table, seat, now)
        self._changed()
        return effects

    # -- commands -------------------------------------------------------------------

    def handle(self, name: str, command: Command, now: float) -> list[Effect]:
        """One member's command; a refusal is one ``error`` sent back."""
        if name not in self.members:
            return [Send(name, error("say hello first"))]
        result = self._handle(name, command, now)
        if isinstance(result, str):
            return [Send(name, error(result))]
        return result

    def _handle(self, name: str, command: Command, now: float) -> list[Effect] | str:
        if isinstance(command, Hello):
            return "you are already in the lobby"
        if isinstance(command, Create):
            return self._create(name, command.spec, now)
        if isinstance(command, AskView):
            if now < self._asked.get(name, -VIEW_AGAIN) + VIEW_AGAIN:
                return f"the whole view was sent a moment ago: ask again in {VIEW_AGAIN:g} s"
            self._asked[name] = now
            return [Send(name, self.view())]
        if isinstance(command, Chat):
            if not self.chat_rate.allow(name, now):
                return "too many chat messages: wait a moment"
            said = {"type": "chat", "from": name, "text": command.text, "at": now}
            return [Send(member, said) for member in self.members]
        if isinstance(command, PlayNow):
            return self._play_now(name, command, now)
        if isinstance(command, Answer):
            return self._answer(name, command, now)
        if isinstance(command, LeaveQueue):
            entry = self.queue.entry_of(name)
            invite = self.invites.get(name)
            if entry is None and invite is None:
                return "you are not in the queue"
            effects = self._drop_invites(name, now) if invite is not None else []
            return effects + self._unqueue(name, now, why=f"{name} left the queue")
        table = self.tables.get(command.table)
        if table is None or table.state == "closed":
            return f"no table {command.table!r}"
        if isinstance(command, Watch):
            return [Send(name, {"type": "watch", "table": table.id, "url": f"/table/{table.id}"})]
        if isinstance(command, Mute):
            if command.mute:
                table.mutes.setdefault(name, set()).add(command.name)
            else:
                table.mutes.get(name, set()).discard(command.name)
            what = "muted" if command.mute else "unmuted"
            return [
                Send(
                    name,
                    {
                        "type": "muted",
                        "table": table.id,
                        "name": command.name,
                        "muted": command.mute,
                        "text": f"{command.name} {what} at {table.id}",
                    },
                )
            ]
        if isinstance(command, Sit):
            return self._sit(name, table, command.seat, now)
        if isinstance(command, Stand):
            seat = table.seat_of(name)
            if seat is None:
                return f"you do not sit at {table.id}"
            if table.state == "playing":
                return "a game is on: resign or play it out first"
            return self._stand(table, seat, now) + self._close_idle()
        if isinstance(command, Start):
            return self._start(name, table, now)
        if isinstance(command, Rematch):
            return self.ask_rematch(table.id, name, now)
        return "unknown command"

    # -- tables ---------------------------------------------------------------------

    def _create(self, name: str, spec: TableSpec, now: float) -> list[Effect] | str:
        live = [t for t in self.tables.values() if t.state != "closed"]
        if len(live) >= self.max_tables:
            return f"the server holds {self.max_tables} tables already: join one, or play now"
        own = [t for t in live if t.creator == name and t.state == "open" and t.game == 0]
        if len(own) >= MAX_OWN_TABLES:
            return f"you have {len(own)} open tables already: play at one first"
        table = self._new_table(spec, creator=name)
        self._changed()
        return [Send(name, {"type": "created", "table": table.id})]

    def _new_table(self, spec: TableSpec, *, creator: str | None) -> Table:
        table = Table(id=f"t{self._next_id}", spec=spec, creator=creator)
        self._next_id += 1
        self.tables[table.id] = table
        return table

    def _sit(self, name: str, table: Table, seat: Seat, now: float) -> list[Effect] | str:
        if table.state != "open":
            return f"{table.id} is {table.state}: no seats now"
        if self.queue.entry_of(name) is not None or name in self.invites:
            return "you are in the queue: leave it first"
        elsewhere = self._seated(name)
        if elsewhere is not None and elsewhere is not table:
            return f"you sit at {elsewhere.id} already"
        who = table.seats[seat]
        if who is not None:
            return f"{seat_key(seat)} at {table.id} is taken by {who.name}"
        old = table.seat_of(name)
        if old is not None:
            table.seats[old] = None
        table.seats[seat] = self.members[name]
        if table.first_sat is None:
            table.first_sat = now
        self._changed()
        if table.full():
            return self._begin(table, now, rematch=False)
        return []

    def _stand(self, table: Table, seat: Seat, now: float) -> list[Effect]:
        table.seats[seat] = None
        effects: list[Effect] = []
        if table.state == "between":
            effects.append(EndSeries(table.id))
            self._free_bots(table)
            table.unseat_machines()
            table.state = "open"
            table.rematch, table.rematch_until = set(), None
            if table.paired:
                table.state = "closed"
                for other in table.people():
                    effects.append(
                        Send(
                            other, {"type": "error", "text": f"{table.id} closed: a player left it"}
                        )
                    )
        if not table.people():
            table.first_sat = None
        self._changed()
        return effects

    def _start(self, name: str, table: Table, now: float) -> list[Effect] | str:
        if table.state != "open":
            return f"{table.id} is {table.state}"
        if table.seat_of(name) is None and table.creator != name:
            return f"sit at {table.id} first"
        if not table.full() and not table.spec.computers:
            return f"{table.id} needs four players (computers may not fill its seats)"
        if not table.people():
            return f"nobody sits at {table.id} yet"
        return self._begin(table, now, rematch=False)

    def _begin(self, table: Table, now: float, *, rematch: bool) -> list[Effect]:
        """The table's next game, the empty seats filled with idle bots then computers."""
        if not rematch:
            self._hold_bots(table)  # those seated already are not idle
            table.fill_with([b.identity for b in self.idle_bots(table.spec.tc)])
            self._hold_bots(table)
        table.state = "playing"
        table.game += 1
        table.rematch, table.rematch_until = set(), None
        self._changed()
        seats = {seat: who for seat, who in table.seats.items() if who is not None}
        return [StartGame(table.id, seats, rematch)]

    def arrange(
        self, spec: TableSpec, seats: Mapping[Seat, Identity], now: float
    ) -> tuple[str, list[Effect]]:
        """A table the server sets up itself (an event's game): these four, one game, closed."""
        table = self._new_table(spec, creator=None)
        table.paired = table.single = True
        table.seats = {seat: seats.get(seat) for seat in SEATS}
        return table.id, self._begin(table, now, rematch=False)

    def game_over(self, table_id: str, now: float) -> list[Effect]:
        """The table's game ended (the runtime says so): the rematch window opens."""
        table = self.tables.get(table_id)
        if table is None or table.state != "playing":
            return []
        table.state = "between"
        table.rematch_until = now + self.rematch_window
        bots = {w.name for w in table.seats.values() if w is not None and w.kind == "bot"}
        table.rematch = bots & self.bots.keys()  # a bot still here accepts at once
        self._changed()
        if table.single:
            return self._end_series(table) + self._close_idle()
        if table.rematch != bots or any(name not in self.members for name in table.people()):
            return self._end_series(table) + self._close_idle()  # someone left: no rematch
        return self._rematch_ready(table, now)

    def game_failed(
        self, table_id: str, why: str, now: float, *, close: bool = False
    ) -> list[Effect]:
        """The table's game could not be played (a seat stayed empty; ``close``: the
        table itself failed and is closed): its players are told why."""
        table = self.tables.get(table_id)
        if table is None:
            return []
        effects: list[Effect] = [
            Send(name, error(f"{table.id}: {why}"))
            for name in table.named()
            if name in self.members
        ]
        self._free_bots(table)
        table.unseat_machines()
        table.state = "closed" if table.paired or close else "open"
        table.first_sat = now if table.people() else None
        table.rematch, table.rematch_until = set(), None
        self._changed()
        return effects + self._close_idle()

    def ask_rematch(self, table_id: str, name: str, now: float) -> list[Effect] | str:
        table = self.tables.get(table_id)
        if table is None or table.state != "between":
            return f"no game at {table_id} to rematch"
        if table.seat_of(name) is None:
            return f"only the players at {table.id} may ask for a rematch"
        if name in table.rematch:  # asking again tells nobody anything new
            return "you asked for a rematch already"
        table.rematch.add(name)
        self._changed()
        asked: dict[str, object] = {"type": "rematch", "table": table.id, "from": name}
        effects: list[Effect] = [
            Send(n, asked) for n in table.people() if n != name and n in self.members
        ]
        ready = self._rematch_ready(table, now)
        return effects + ready

    def _rematch_ready(self, table: Table, now: float) -> list[Effect]:
        if set(table.named()) - table.rematch:
            return []
        if table.spec.rematch_colours == "swap":
            current = {s: w for s, w in table.seats.items() if w is not None}
            table.seats = {seat: None for seat in SEATS} | swapped(current)
        return self._begin(table, now, rematch=True)

    def set_watchers(self, table_id: str, count: int) -> None:
        table = self.tables.get(table_id)
        if table is not None and table.watchers != count:
            table.watchers = count
            self._changed()

    def muted(self, table_id: str, listener: str, speaker: str) -> bool:
        """True if ``listener`` muted ``speaker`` at this table."""
        table = self.tables.get(table_id)
        return table is not None and speaker in table.mutes.get(listener, set())

    # -- quick pairing ---------------------------------------------------------------

    def _play_now(self, name: str, command: PlayNow, now: float) -> list[Effect] | str:
        if self.queue.entry_of(name) is not None or name in self.invites:
            return "you are in the queue already (leave_queue first)"
        if self._busy(name):
            return "you sit at a table: stand up first"
        partner = command.partner
        if partner is None:
            entry = Entry(
                who=(self.members[name],), tc=command.tc, computers=command.computers, since=now
            )
            self.queue.add(entry)
            self._changed()
            return self.tick(now)
        if partner == name:
            return "invite someone else as your partner"
        if partner not in self.members:
            return f"nobody called {partner!r} is in the lobby"
        if self._busy(partner) or self.queue.entry_of(partner) is not None:
            return f"{partner} is playing or queued already"
        if any(i.invitee == partner for i in self.invites.values()):
            return f"{partner} has an invitation to answer already"
        self.invites[name] = Invite(name, partner, command.tc, command.computers, now)
        self._changed()
        why = f"waiting for {partner} to accept your invitation ({command.tc})"
        self._told[name] = why
        return [
            Send(partner, {"type": "invited", "from": name, "tc": str(command.tc)}),
            Send(name, {"type": "queued", "tc": str(command.tc), "why": why}),
        ]

    def _answer(self, name: str, command: Answer, now: float) -> list[Effect] | str:
        invite = self.invites.get(command.inviter)
        if invite is None or invite.invitee != name:
            return f"no invitation from {command.inviter!r}"
        del self.invites[invite.inviter]
        self._told.pop(invite.inviter, None)
        self._changed()
        if not command.accept:
            return [Send(invite.inviter, {"type": "declined", "by": name})]
        if self._busy(name) or self.queue.entry_of(name) is not None:
            return "stand up or leave the queue first"
        pair = (self.members[invite.inviter], self.members[name])
        self.queue.add(
            Entry(who=pair, tc=invite.tc, computers=invite.computers, since=invite.since)
        )
        return self.tick(now)

    def _drop_invites(self, name: str, now: float) -> list[Effect]:
        effects: list[Effect] = []
        for inviter, invite in list(self.invites.items()):
            if name in (inviter, invite.invitee):
                del self.invites[inviter]
                self._told.pop(inviter, None)
                if invite.invitee == name and inviter in self.members:
                    effects.append(Send(inviter, {"type": "declined", "by": name}))
                elif invite.invitee in self.members:
                    effects.append(
                        Send(invite.invitee, {"type": "invite_withdrawn", "from": inviter})
                    )
        return effects

    def _unqueue(self, name: str, now: float, *, why: str) -> list[Effect]:
        """Takes ``name`` out of the queue; a partner queued with it stays, alone."""
        entry = self.queue.entry_of(name)
        if entry is None:
            return []
        self.queue.remove(entry)
        self._told.pop(name, None)
        effects: list[Effect] = (
            [Send(name, {"type": "left_queue", "why": why})] if name in self.members else []
        )
        rest = tuple(w for w in entry.who if w.name != name)
        if rest:
            self.queue.add(attrs.evolve(entry, who=rest))
            effects.append(
                Send(
                    rest[0].name,
                    {"type": "queued", "tc": str(entry.tc), "why": f"{why}: you are queued alone"},
                )
            )
        self._changed()
        return effects

    def idle_bots(self, tc: TimeControl) -> list[Bot]:
        """The bots not at a table that play ``tc``."""
        return [b for b in self.bots.values() if b.table is None and b.plays(tc)]

    def _plays(self, who: Identity, tc: TimeControl) -> bool:
        bot = self.bots.get(who.name)
        return bot is not None and bot.plays(tc)

    def _hold_bots(self, table: Table) -> None:
        """The bots seated at ``table`` are at it (a computer playing under a bot's
        name, at an event's game, leaves that bot free)."""
        for who in table.seats.values():
            if who is not None and who.kind == "bot" and who.name in self.bots:
                self.bots[who.name].table = table.id

    def _free_bots(self, table: Table) -> None:
        for bot in self.bots.values():
            if bot.table == table.id:
                bot.table = None

    def _busy(self, name: str) -> bool:
        return self._seated(name) is not None

    def _seated(self, name: str) -> Table | None:
        return next(
            (
                t
                for t in self.tables.values()
                if t.state != "closed" and t.seat_of(name) is not None
            ),
            None,
        )

    # -- time ------------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """When ``tick`` has something to do next (None: nothing is waiting)."""
        times = [self.queue.next_deadline()]
        times += [i.since + INVITE_TIMEOUT for i in self.invites.values()]
        for table in self.tables.values():
            times.append(table.fill_deadline())
            times.append(table.rematch_until if table.state == "between" else None)
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def tick(self, now: float) -> list[Effect]:
        """Everything due by ``now``: groups formed, computers seated, invitations and
        rematch windows run out; and every queued member told why it waits, if that changed."""
        effects: list[Effect] = []
        for inviter, invite in list(self.invites.items()):
            if now >= invite.since + INVITE_TIMEOUT:
                del self.invites[inviter]
                self._told.pop(inviter, None)
                effects.append(
                    Send(
                        inviter,
                        {"type": "declined", "by": invite.invitee, "why": "no answer in time"},
                    )
                )
                self._changed()
        idle = [b.identity for b in self.bots.values() if b.table is None]
        for group in self.queue.form(now, idle, self._plays):
            effects += self._seat_group(group, now)
        for table in list(self.tables.values()):
            deadline = table.fill_deadline()
            if deadline is not None and now >= deadline and table.people():
                effects += self._begin(table, now, rematch=False)
            if (
                table.state == "between"
                and table.rematch_until is not None
                and now >= table.rematch_until
            ):
                effects += self._end_series(table)
        effects += self._tell_queue(now)
        return effects + self._close_idle()

    def _seat_group(self, group: Group, now: float) -> list[Effect]:
        rules = _quick_rules(group.tc)
        spec = TableSpec(tc=group.tc, rules=rules, computers=group.computers, fill_after=0.0)
        table = self._new_table(spec, creator=None)
        table.paired = True
        table.seats = {seat: group.seats.get(seat) for seat in SEATS}
        for who in group.seats.values():
            self._told.pop(who.name, None)
        return self._begin(table, now, rematch=False)

    def _end_series(self, table: Table) -> list[Effect]:
        effects: list[Effect] = [EndSeries(table.id)]
        self._free_bots(table)
        table.unseat_machines()
        for seat, who in table.seats.items():
            if who is not None and who.name not in self.members:
                table.seats[seat] = None  # left the lobby during the game
        table.rematch, table.rematch_until = set(), None
        table.state = "closed" if table.paired else "open"
        self._changed()
        return effects

    def _tell_queue(self, now: float) -> list[Effect]:
        effects: list[Effect] = []
        for entry in self.queue.entries:
            bots = len(self.idle_bots(entry.tc))
            why = self.queue.why(entry, now, bots)
            key = why.split(";")[0] + str(entry.computers)
            for name in entry.names:
                if self._told.get(name) != key:
                    self._told[name] = key
                    effects.append(Send(name, {"type": "queued", "tc": str(entry.tc), "why": why}))
        return effects

    def _close_idle(self) -> list[Effect]:
        """Closes open tables nobody sits at whose creator has gone; forgets closed ones."""
        for table in list(self.tables.values()):
            if table.state == "open" and not table.people() and table.creator not in self.members:
                table.state = "closed"
                self._changed()
            if table.state == "closed":
                del self.tables[table.id]
        return []

    def _changed(self) -> None:
        self.version += 1

    # -- the view ---------------------------------------------------------------------

    def view(self) -> dict[str, object]:
        """The whole ``lobby`` message: every table, the queue, who is online."""
        return self.shown.whole(*self._showing())

    def diff(self) -> dict[str, object] | None:
        """The ``lobby-diff`` since the last one (or the first view); None: nothing changed."""
        return self.shown.diff(*self._showing())

    def _showing(self) -> tuple[dict[str, dict[str, object]], dict[str, object]]:
        tables = {t.id: t.shown() for t in self.tables.values() if t.state != "closed"}
        parts: dict[str, object] = {
            "queue": [
                {"tc": str(e.tc), "names": list(e.names), "since": e.since}
                for e in self.queue.entries
            ],
            "online": sorted(self.members),
        }
        return tables, parts


def _quick_rules(tc: TimeControl) -> HouseRules:
    from ..core.rules import apply_rules

    return apply_rules(
        apply_rules(HouseRules(), TABLE_RULES, keep_profile=True),
        tc.rule_pairs(),
        keep_profile=True,
    )
