"""What an engine declared of its options, and the one line that refuses a setting.

Every protocol has the engine declare its options at the handshake (native
and UCI ``option name ... type spin min 1 max 20``, xboard ``feature
option="NAME -spin 16 1 1024"``). An option set for an engine that did not
declare it would be sent, ignored, and the engine would play as if it had
never been set (a misspelt ``Skil Level`` plays at full strength); a value
it did not declare is as bad: Fairy-Stockfish ignores ``Skill Level`` 99
(its max is 20) without a word and aborts on ``abc``. So the start fails
instead, in one line: naming the closest declared name, or the values the
option takes. ``RefusedOption`` is an ``EngineFailed``, so that a caller can
tell a setting to correct from an engine that broke. Pure: declarations and
settings in, a ``Declared`` value or a line out.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping

import attrs

from ..errors import EngineFailed
from ..protocol.messages import OptionSpec

__all__ = [
    "BadOptionValue",
    "Declared",
    "RefusedOption",
    "UndeclaredOption",
    "bad_value",
    "native_declared",
    "refuse_option",
    "uci_declared",
    "undeclared_option",
    "xboard_declared",
]


class RefusedOption(EngineFailed):
    """A setting the engine's declarations refuse (the start fails)."""


class UndeclaredOption(RefusedOption):
    """An option set for an engine that did not declare it."""


class BadOptionValue(RefusedOption):
    """A value outside what the engine declared for the option."""


#: Declared names (or a combo's choices) listed when none is close to the one asked for.
_LISTED = 8


@attrs.frozen
class Declared:
    """One declared option, in the protocols' common terms.

    ``kind`` is ``spin`` (a whole number from ``min`` to ``max``, either bound
    optional), ``check`` (``truth``: the words for on and off), ``combo`` (one
    of ``choices``), ``string``, ``button``, or a kind this harness does not
    know (then any value goes, as for ``string``). ``default`` is as declared.
    """

    kind: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    truth: tuple[str, str] = ("true", "false")


def _whole(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def uci_declared(fields: Mapping[str, list[str]]) -> Declared:
    """A UCI ``option`` line's fields (``adapters.uci_talk.parse_option``)."""
    first = {key: values[0] if values else None for key, values in fields.items()}
    return Declared(
        kind=(first.get("type") or "").lower(),
        default=" ".join(fields.get("default", [])) or None,
        min=_whole(first.get("min")),
        max=_whole(first.get("max")),
        choices=tuple(fields.get("var", [])),
    )


def native_declared(spec: OptionSpec) -> Declared:
    """A native ``option`` line (UCI syntax, protocol.md)."""
    return Declared(
        kind=spec.type.lower(),
        default=spec.default,
        min=_whole(spec.min),
        max=_whole(spec.max),
        choices=spec.vars,
    )


#: xboard's option kinds in the common terms (``-slider`` is a spin, ``-save``
#: and ``-reset`` are buttons, ``-file`` and ``-path`` strings).
_XBOARD_KINDS = {
    "spin": "spin",
    "slider": "spin",
    "check": "check",
    "combo": "combo",
    "string": "string",
    "file": "string",
    "path": "string",
    "button": "button",
    "save": "button",
    "reset": "button",
}


def xboard_declared(text: str) -> tuple[str, Declared]:
    """``Hash -spin 16 1 1024`` -> ("Hash", a spin from 1 to 1024); a combo's
    default is its ``*``-marked choice (else its first). Without a kind, the
    text is the name and any value goes."""
    head, sep, rest = text.partition(" -")
    if not sep:
        return head.strip(), Declared("")
    word, _, values = rest.partition(" ")
    kind = _XBOARD_KINDS.get(word, word)
    name = head.strip()
    if kind == "combo":
        marked = [c.strip() for c in values.split("///")]
        choices = tuple(c.removeprefix("*") for c in marked)
        default = next((c[1:] for c in marked if c.startswith("*")), choices[0])
        return name, Declared(kind, default=default, choices=choices)
    if kind == "spin":
        default, low, high = [*values.split(), "", "", ""][:3]
        return name, Declared(kind, default=default or None, min=_whole(low), max=_whole(high))
    if kind == "check":
        return name, Declared(kind, default=values.strip() or None, truth=("1", "0"))
    if kind == "button":
        return name, Declared(kind)
    return name, Declared(kind, default=values.strip() or None)


def undeclared_option(
    name: str, declared: Collection[str], *, any_case: bool = False
) -> str | None:
    """None when ``name`` is one of ``declared`` (whatever its letter case with
    ``any_case``, as UCI has it), else why it cannot be set, in one line."""
    names = list(dict.fromkeys(declared))
    if name in names or (any_case and name.lower() in {d.lower() for d in names}):
        return None
    if not names:
        return f"engine has no option {name!r}: it declares no options"
    folded = {d.lower(): d for d in names}
    close = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
    if close:
        return f"engine has no option {name!r} (did you mean {folded[close[0]]!r}?)"
    return f"engine has no option {name!r}; it declares {_listed(names)}"


def bad_value(name: str, value: str, declared: Declared, *, any_case: bool = False) -> str | None:
    """None when ``value`` is one ``declared`` takes (a combo's choice whatever
    its letter case with ``any_case``), else why not, in one line."""
    takes: str | None = None
    if declared.kind == "spin":
        number = _whole(value.strip())
        low, high = declared.min, declared.max
        if (
            number is None
            or (low is not None and number < low)
            or (high is not None and number > high)
        ):
            takes = "a whole number" + _range(low, high)
    elif declared.kind == "check":
        if value not in declared.truth:
            takes = " or ".join(declared.truth)
    elif declared.kind == "combo":
        choices = declared.choices
        if value not in choices and not (
            any_case and value.lower() in {c.lower() for c in choices}
        ):
            takes = f"one of {_listed(choices)}"
    if takes is None:
        return None
    return f"option {name!r} takes {takes}, not {value!r}"


def refuse_option(
    name: str, value: str, declared: Mapping[str, Declared], *, any_case: bool = False
) -> None:
    """Raises the ``RefusedOption`` that setting ``name`` to ``value`` meets:
    a name not ``declared`` (in any letter case with ``any_case``), or a value
    the declaration does not take."""
    refusal = undeclared_option(name, declared, any_case=any_case)
    if refusal is not None:
        raise UndeclaredOption(refusal)
    found = declared.get(name)
    if found is None:
        found = next(d for n, d in declared.items() if n.lower() == name.lower())
    refusal = bad_value(name, value, found, any_case=any_case)
    if refusal is not None:
        raise BadOptionValue(refusal)


def _range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    if high is not None:
        return f" of at most {high}"
    return ""


def _listed(names: Collection[str]) -> str:
    shown = list(names)
    listed = ", ".join(repr(d) for d in shown[:_LISTED])
    return listed + (f" and {len(shown) - _LISTED} more" if len(shown) > _LISTED else "")
