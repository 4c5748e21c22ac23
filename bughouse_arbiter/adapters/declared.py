"""An option the engine did not declare: the one line that refuses it.

Every protocol has the engine declare its options at the handshake (native
and UCI ``option name ...``, xboard ``feature option="..."``). An option set
for an engine that did not declare it would be sent, ignored, and the engine
would play as if it had never been set (a misspelt ``Skil Level`` plays at
full strength), so the start fails instead, naming the closest declared
name (``UndeclaredOption``, an ``EngineFailed``, so that a caller can tell
a setting to correct from an engine that broke). Pure: names in, a line
(or None) out.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from ..errors import EngineFailed

__all__ = ["UndeclaredOption", "undeclared_option"]


class UndeclaredOption(EngineFailed):
    """An option set for an engine that did not declare it (the start fails)."""

#: Declared names listed when none is close to the one asked for.
_LISTED = 8


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
    listed = ", ".join(repr(d) for d in names[:_LISTED])
    more = f" and {len(names) - _LISTED} more" if len(names) > _LISTED else ""
    return f"engine has no option {name!r}; it declares {listed}{more}"
