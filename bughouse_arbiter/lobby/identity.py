"""Who is in the lobby: a named guest, a bot, an account (later) or the house computer."""

from __future__ import annotations

import re
from typing import Literal

import attrs

IdentityKind = Literal["guest", "bot", "account", "computer"]
#: A guest's name: 2 to 20 letters, digits and ``.-_`` (ASCII, shown as text everywhere).
_NAME = re.compile(r"[A-Za-z0-9._-]{2,20}")
#: Names nobody may take: they would read as the house or a seat.
RESERVED = frozenset({"computer", "server", "lobby", "system", "admin"})


@attrs.frozen
class Identity:
    """A player's identity: ``rating`` is None until accounts and ratings exist."""

    name: str
    kind: IdentityKind = "guest"
    rating: float | None = None

    @property
    def person(self) -> bool:
        """A person (a guest or an account), not a bot or the computer."""
        return self.kind in ("guest", "account")

    def shown(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "rating": self.rating}


#: The built-in engine at a seat a table let computers fill.
COMPUTER = Identity("computer", "computer")


def name_key(name: str) -> str:
    """The one form two names are compared in: ``FSF`` and ``fsf`` are one name."""
    return name.casefold()


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a guest's name (one line), or None if it can."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return "a name is 2 to 20 letters, digits or . - _"
    if name.lower() in RESERVED:
        return f"the name {name!r} is reserved"
    return None
