"""The host's form and the event page's messages, checked: a value or one line of why not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..lobby.chat import clean_text
from ..lobby.identity import name_problem
from ..lobby.messages import timed_control
from .event import EventSpec

#: The longest title, in characters.
MAX_TITLE = 60
#: The latest a slot may start, and the longest check-in, in seconds from now.
MAX_AHEAD = 7 * 24 * 3600.0
MAX_ROUNDS = 20
MAX_GAMES = 4
#: Check-in opens this long before the slot unless the host says.
DEFAULT_CHECKIN = 900.0


def event_spec(form: Mapping[str, Any], now: float) -> EventSpec | str:
    """The host's form (``title``, ``tc``, ``format``, ``rounds``, ``games``,
    ``computers``, ``starts_in`` and ``checkin`` in seconds, ``auto_start``)."""
    title = clean_text(form.get("title", "Club evening"), MAX_TITLE)
    if title is None:
        return "give the event a title"
    tc = timed_control(str(form.get("tc", "180+0")), "an event")
    if isinstance(tc, str):
        return tc
    kind = form.get("format", "round-robin")
    if kind not in ("round-robin", "swiss"):
        return "format is round-robin or swiss"
    rounds = _number(form.get("rounds"), "rounds", 1, MAX_ROUNDS, none_ok=True)
    games = _number(form.get("games", 1), "games", 1, MAX_GAMES)
    starts_in = _seconds(form.get("starts_in", 0), "starts_in")
    checkin = _seconds(form.get("checkin", DEFAULT_CHECKIN), "checkin")
    for value in (rounds, games, starts_in, checkin):
        if isinstance(value, str):
            return value
    assert not isinstance(rounds, str) and not isinstance(games, str)
    assert isinstance(starts_in, float) and isinstance(checkin, float)
    if kind == "swiss" and rounds is None:
        return "a Swiss needs a number of rounds"
    flags = {}
    for name, default in (("computers", True), ("auto_start", True)):
        value = form.get(name, default)
        if not isinstance(value, bool):
            return f"{name} is true or false"
        flags[name] = value
    return EventSpec(
        title=title,
        starts=now + starts_in,
        checkin_from=now + starts_in - checkin,
        tc=tc,
        format=kind,
        rounds=rounds,
        games=int(games or 1),
        computers=flags["computers"],
        auto_start=flags["auto_start"],
    )


@attrs.frozen
class PageCommand:
    """One event page message: ``hello``, ``sign_up``, ``withdraw``, ``check_in``,
    and the host's ``start`` and ``add_bot``."""

    type: str
    name: str | None = None
    partner: str | None = None
    token: str | None = None


_TYPES = ("hello", "sign_up", "withdraw", "check_in", "start", "add_bot")


def page_command(message: object) -> PageCommand | str:
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "a message is an object with a 'type'"
    kind = message["type"]
    if kind not in _TYPES:
        return f"unknown message type {str(kind)[:30]!r}"
    name = message.get("name")
    if kind in ("hello", "add_bot") and (problem := name_problem(name)) is not None:
        return problem
    partner = message.get("partner") or None
    if partner is not None and (problem := name_problem(partner)) is not None:
        return f"partner: {problem}"
    token = message.get("token")
    if kind in ("start", "add_bot") and not isinstance(token, str):
        return "only the host may do that (the host's link holds its token)"
    return PageCommand(
        kind,
        name if isinstance(name, str) else None,
        partner,
        token if isinstance(token, str) else None,
    )


def _number(
    value: object, name: str, low: int, high: int, *, none_ok: bool = False
) -> int | str | None:
    if value is None or value == "":
        return None if none_ok else f"{name} is a whole number from {low} to {high}"
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"{name} is a whole number from {low} to {high}"
    return value


def _seconds(value: object, name: str) -> float | str:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return f"{name} is a number of seconds"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{name} is a number of seconds"
    if not 0 <= value <= MAX_AHEAD:
        return f"{name} is from 0 to {MAX_AHEAD:g} seconds"
    return float(value)
