"""The participants as a tournament recorded them: every engine's command,
protocol, options and limits, kept in ``tournament.json`` so that
``--resume`` plays the engines the run started with, whatever the engines
file says now. Pure: JSON values in and out.

``record`` writes them, ``restore`` reads them back (``ValueError`` naming
what does not read), ``settled`` gives the participants the command line's settings (``--each``,
``--set``, ``--option``) before they are recorded, ``changes`` says, one
line a participant, how a
participant built from today's files differs from its record, and
``seat_tags`` gives a game's BPGN tags naming the options and limits each
seat's engine played with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..bpgn.notation import SEAT_TAGS
from ..config.options import with_settings
from ..config.specs import PROTOCOLS, EngineSpec
from ..table.keeper import Entrant
from .schedule import Participant

#: The spec fields said by ``changes`` and in what words.
_SAID = {
    "command": "command",
    "protocol": "protocol",
    "cwd": "folder",
    "options": "options",
    "init": "init lines",
    "movetime": "movetime",
    "depth": "depth",
    "nodes": "nodes",
}
_LIMITS = ("movetime", "depth", "nodes")


def _spec_json(spec: EngineSpec) -> dict[str, object]:
    return {
        field.name: _plain(getattr(spec, field.name)) for field in attrs.fields(EngineSpec)
    }


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, dict) or hasattr(value, "items"):
        return dict(value)  # type: ignore[call-overload]
    return value


def settled(
    participants: Iterable[Participant],
    every: Mapping[str, str],
    by_name: Mapping[str, Mapping[str, str]],
) -> list[Participant]:
    """``participants`` with the settings of ``config.options.settings_of``:
    ``every`` for each engine, then those of the participant a member was
    taken from (a ``--team``'s member named after an ``--engine``), then the
    participant's own, each later one winning."""
    given = list(participants)
    sources = {p.name for p in given if not p.mixed}  # what a --team member may name

    def member(spec: EngineSpec, name: str, own: str) -> EngineSpec:
        taken = by_name.get(name, {}) if name in sources else {}
        return with_settings(spec, {**every, **taken, **by_name.get(own, {})})

    return [
        attrs.evolve(
            p,
            members=(
                member(p.members[0], p.member_names[0], p.name),
                member(p.members[1], p.member_names[1], p.name),
            ),
        )
        for p in given
    ]


def record(participants: Iterable[Participant]) -> list[dict[str, object]]:
    """The participants as JSON values, in order."""
    return [
        {
            "name": p.name,
            "team_mode": p.team_mode,
            "member_names": list(p.member_names),
            "members": [_spec_json(spec) for spec in p.members],
        }
        for p in participants
    ]


def _spec(data: object) -> EngineSpec:
    if not isinstance(data, dict):
        raise ValueError("an engine is not an object")
    names = {field.name for field in attrs.fields(EngineSpec)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"an engine has an unknown field {unknown[0]!r}")
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    command = fields.get("command")
    if not isinstance(command, tuple) or not command or not all(
        isinstance(part, str) for part in command
    ):
        raise ValueError("an engine's command is not a list of texts")
    if fields.get("protocol", "native") not in PROTOCOLS:
        raise ValueError(f"an engine's protocol is not one of {', '.join(PROTOCOLS)}")
    if not isinstance(fields.get("options", {}), dict):
        raise ValueError("an engine's options are not an object")
    try:
        return EngineSpec(**fields)
    except TypeError as exc:
        raise ValueError(f"an engine does not read ({exc})") from None


def restore(data: object) -> tuple[Participant, ...]:
    """The participants ``record`` wrote (ValueError, one line, if they do not read)."""
    if not isinstance(data, list) or len(data) < 2:
        raise ValueError("not a list of two or more participants")
    participants = []
    for item in data:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ValueError("a participant is not an object with a name")
        members = item.get("members")
        names = item.get("member_names")
        if not isinstance(members, list) or len(members) != 2:
            raise ValueError(f"participant {item['name']!r} has not two members")
        if not isinstance(names, list) or len(names) != 2 or not all(
            isinstance(n, str) for n in names
        ):
            raise ValueError(f"participant {item['name']!r} has not two member names")
        participants.append(
            Participant(
                name=item["name"],
                members=(_spec(members[0]), _spec(members[1])),
                member_names=(names[0], names[1]),
                team_mode=bool(item.get("team_mode", False)),
            )
        )
    return tuple(participants)


def changes(
    recorded: Sequence[Participant], current: Sequence[Participant]
) -> list[str]:
    """One line per recorded participant that ``current`` (today's files) gives otherwise."""
    now = {p.name: p for p in current}
    lines = []
    for p in recorded:
        other = now.get(p.name)
        if other is None:
            lines.append(f"participant {p.name}: no longer given; playing its recorded engines")
            continue
        said = []
        for old, new in zip(p.members, other.members, strict=True):
            for field, words in _SAID.items():
                if getattr(old, field) != getattr(new, field) and words not in said:
                    said.append(words)
        if said:
            lines.append(
                f"participant {p.name}: the engines now give other {', '.join(said)} "
                f"({_short(other)}); playing the recorded ones ({_short(p)})"
            )
    return lines


def _short(p: Participant) -> str:
    texts = []
    members = p.members if p.members[0] != p.members[1] else p.members[:1]
    for spec in members:
        text = " ".join(spec.command)
        if spec.options:
            text += " " + _options_text(spec)
        limits = _limits_text(spec)
        if limits:
            text += " " + limits
        texts.append(text if len(text) <= 100 else text[:97] + "...")
    return " + ".join(texts)


def _options_text(spec: EngineSpec) -> str:
    return "; ".join(f"{name}={value}" for name, value in spec.options.items())


def _limits_text(spec: EngineSpec) -> str:
    return " ".join(
        f"{name} {getattr(spec, name)}" for name in _LIMITS if getattr(spec, name) is not None
    )


def seat_tags(entrants: Iterable[Entrant]) -> list[tuple[str, str]]:
    """``[WhiteAEngineOptions "Skill Level=3; Hash=16"]`` and ``[WhiteAEngineLimits
    "depth 3"]`` per seat whose engine has options or limits, in seat order."""
    by_seat = {seat: e.spec for e in entrants for seat in e.seats}
    tags = []
    for seat, tag in SEAT_TAGS.items():
        spec = by_seat.get(seat)
        if spec is None:
            continue
        if spec.options:
            tags.append((f"{tag}EngineOptions", _options_text(spec)))
        limits = _limits_text(spec)
        if limits:
            tags.append((f"{tag}EngineLimits", limits))
    return tags
