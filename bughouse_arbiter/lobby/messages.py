"""The lobby socket's messages: client JSON to commands (or one error line), and back.

``parse`` never raises: any text at all gives a command value or the one
line to answer with (``{"type": "error", "text": ...}``).
"""

from __future__ import annotations

import json
import math
from typing import Any

import attrs

from ..config.specs import TimeControl
from ..core.model import Seat
from ..core.rules import HouseRules, apply_rules
from ..errors import ConfigError, RuleError
from .chat import clean_text
from .tables import DEFAULT_FILL_AFTER, MAX_FILL_AFTER, TableSpec

#: The longest lobby socket message, in characters.
MAX_MESSAGE = 4096
#: House rules a table's creator may not set (the time control sets the clock).
_FIXED_RULES = frozenset({"time", "increment", "clock"})
#: Time controls a table may have: at least this much base time, at most a day.
MIN_BASE, MAX_BASE = 10.0, 86400.0
#: What every table plays unless its creator says (as ``serve``: strangers may sit).
TABLE_RULES = (("draw", "both-teams"),)


@attrs.frozen
class Hello:
    name: str


@attrs.frozen
class Create:
    spec: TableSpec


@attrs.frozen
class Sit:
    table: str
    seat: Seat


@attrs.frozen
class Stand:
    table: str


@attrs.frozen
class Start:
    table: str


@attrs.frozen
class PlayNow:
    tc: TimeControl
    computers: bool
    partner: str | None


@attrs.frozen
class Answer:
    """``accept`` or ``decline`` of an invitation from ``inviter``."""

    inviter: str
    accept: bool


@attrs.frozen
class LeaveQueue:
    pass


@attrs.frozen
class Watch:
    table: str


@attrs.frozen
class AskView:
    """``{"type": "lobby"}``: the whole lobby view again (a diff's version was not the next)."""


@attrs.frozen
class Chat:
    text: str


@attrs.frozen
class Mute:
    table: str
    name: str
    mute: bool = True


@attrs.frozen
class Rematch:
    table: str


Command = (
    Hello
    | Create
    | Sit
    | Stand
    | Start
    | PlayNow
    | Answer
    | LeaveQueue
    | Watch
    | AskView
    | Chat
    | Mute
    | Rematch
)


def parse(text: str) -> Command | str:
    """The command in one client message, or the one-line answer to a bad one."""
    if len(text) > MAX_MESSAGE:
        return f"a message is at most {MAX_MESSAGE} characters"
    try:
        message = json.loads(text)
    except RecursionError:
        return "not JSON (nested too deeply)"
    except ValueError:
        return "not JSON"
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "a message is an object with a 'type'"
    try:
        return command(message)
    except RecursionError:
        return "not JSON (nested too deeply)"


def command(message: dict[str, Any]) -> Command | str:
    """The command of a parsed message (a dict with a text ``type``), or an error line."""
    kind = message["type"]
    if kind == "hello":
        name = message.get("name")
        return Hello(name) if isinstance(name, str) else "hello needs a name"
    if kind == "create":
        spec = table_spec(message)
        return spec if isinstance(spec, str) else Create(spec)
    if kind == "chat":
        said = clean_text(message.get("text"))
        return Chat(said) if said is not None else "a chat message needs some text"
    if kind == "leave_queue":
        return LeaveQueue()
    if kind == "lobby":
        return AskView()
    if kind == "play_now":
        tc = time_control(message.get("tc"))
        if isinstance(tc, str):
            return tc
        partner = message.get("partner")
        if partner is not None and not isinstance(partner, str):
            return "partner is a name"
        computers = message.get("computers", True)
        if not isinstance(computers, bool):
            return "computers is true or false"
        return PlayNow(tc, computers, partner[:40] if partner else None)
    if kind in ("accept", "decline"):
        who = message.get("from")
        if not isinstance(who, str) or not who:
            return f"{kind} needs the name of whoever invited you ('from')"
        return Answer(who[:40], kind == "accept")
    table = message.get("table")
    if kind in ("sit", "stand", "start", "watch", "mute", "unmute", "rematch"):
        if not isinstance(table, str) or not table:
            return f"{kind} needs a table"
        table = table[:20]
        if kind == "sit":
            seat_text = message.get("seat")
            try:
                seat = Seat.parse(seat_text) if isinstance(seat_text, str) else None
            except ValueError:
                seat = None
            if seat is None:
                return "sit needs a seat: A-white, A-black, B-white or B-black"
            return Sit(table, seat)
        if kind in ("mute", "unmute"):
            name = message.get("name")
            if not isinstance(name, str) or not name:
                return f"{kind} needs a name"
            return Mute(table, name[:40], kind == "mute")
        if kind == "stand":
            return Stand(table)
        if kind == "start":
            return Start(table)
        return Watch(table) if kind == "watch" else Rematch(table)
    return f"unknown message type {kind[:20]!r}"


def timed_control(value: object, what: str = "a table") -> TimeControl | str:
    """Any timed control from its text (``3+0``): an event's, or one a bot accepts
    (a table's is narrower: ``time_control``); or an error line naming ``what``."""
    if not isinstance(value, str):
        return "tc is a time control in seconds, BASE+INC, such as 180+0"
    try:
        tc = TimeControl.parse(value[:40])
    except ConfigError as exc:
        return str(exc)
    if tc.base is None:
        return f"{what} needs a timed control (for example 180+2)"
    return tc


def time_control(value: object) -> TimeControl | str:
    """A table's time control from its text (``180+0``), or an error line."""
    tc = timed_control(value)
    if isinstance(tc, str):
        return tc
    if tc.base is None or not MIN_BASE <= tc.base <= MAX_BASE or tc.increment > 60:
        return (
            f"a table's time control is BASE+INC in seconds, base {MIN_BASE:g} to "
            f"{MAX_BASE:g}, increment at most 60 (for example 180+0)"
        )
    return tc


def table_spec(message: dict[str, Any]) -> TableSpec | str:
    """The settings of a ``create`` message, or an error line."""
    tc = time_control(message.get("tc", "180+0"))
    if isinstance(tc, str):
        return tc
    rules = house_rules(message.get("rules", {}), tc)
    if isinstance(rules, str):
        return rules
    flags = {}
    for name, default in (("computers", True), ("rated", False)):
        value = message.get(name, default)
        if not isinstance(value, bool):
            return f"{name} is true or false"
        flags[name] = value
    fill_after = message.get("fill_after", DEFAULT_FILL_AFTER)
    if (
        not isinstance(fill_after, int | float)
        or isinstance(fill_after, bool)
        or not math.isfinite(fill_after)
        or not 0 <= fill_after <= MAX_FILL_AFTER
    ):
        return f"fill_after is a number of seconds from 0 to {MAX_FILL_AFTER:g}"
    colours = message.get("rematch_colours", "swap")
    if colours not in ("swap", "keep"):
        return "rematch_colours is swap or keep"
    return TableSpec(
        tc=tc,
        rules=rules,
        rated=flags["rated"],
        computers=flags["computers"],
        fill_after=float(fill_after),
        rematch_colours=colours,
    )


def house_rules(value: object, tc: TimeControl) -> HouseRules | str:
    """A table's rules from ``{"profile": "club", "repetition": "threefold", ...}``."""
    if not isinstance(value, dict) or len(value) > 30:
        return 'rules is an object of rule names and values, such as {"profile": "club"}'
    pairs: list[tuple[str, str]] = []
    for name, raw in value.items():
        if name in _FIXED_RULES:
            return f"rule {name[:20]} comes from the time control"
        if isinstance(raw, bool):
            text = "on" if raw else "off"
        elif isinstance(raw, int | float | str):
            text = str(raw)[:40]
        else:
            return f"rule {name[:20]!r} takes a text, number or true/false value"
        pairs.append((str(name)[:40], text))
    pairs.sort(key=lambda pair: pair[0] != "profile")  # the profile first, then its changes
    try:
        rules = apply_rules(HouseRules(), pairs)
        named = {name for name, _ in pairs}
        rules = apply_rules(rules, [p for p in TABLE_RULES if p[0] not in named], keep_profile=True)
        return apply_rules(rules, tc.rule_pairs(), keep_profile=True)
    except (RuleError, ValueError) as exc:
        return str(exc).splitlines()[0][:200]


def error(text: str) -> dict[str, object]:
    return {"type": "error", "text": text}
