"""Teams of two from the players that checked in.

The method (documented in docs/events.md): pairs that signed up together
(each named the other as partner) stay together. Everyone else is sorted by
rating, strongest first (no rating counts as ``DEFAULT_RATING``; equal
ratings keep sign-up order), and the strongest is paired with the weakest,
the second strongest with the second weakest, and so on, so the teams'
rating sums come out as even as such a ladder allows. With an odd count the
player in the middle of the ladder is left over: with a computer partner if
the host allows it, otherwise that player sits out (and is told so).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..lobby.identity import COMPUTER, Identity

#: The rating an unrated player counts as when teams are balanced.
DEFAULT_RATING = 1500.0


@attrs.frozen
class Entrant:
    """One sign-up: who, the partner they named (if any), in sign-up order."""

    who: Identity
    partner: str | None = None

    @property
    def name(self) -> str:
        return self.who.name

    @property
    def rating(self) -> float:
        return DEFAULT_RATING if self.who.rating is None else self.who.rating


@attrs.frozen
class Team:
    """Two players; ``players[1]`` may be the house computer."""

    id: str
    players: tuple[Identity, Identity]
    #: The two signed up together (not formed by the event).
    together: bool = False

    @property
    def name(self) -> str:
        return " & ".join(p.name for p in self.players)

    @property
    def rating(self) -> float:
        """The team's mean rating (the computer counts as ``DEFAULT_RATING``)."""
        values = [DEFAULT_RATING if p.rating is None else p.rating for p in self.players]
        return sum(values) / 2

    def shown(self) -> dict[str, object]:
        return {
            "id": self.id,
            "name": self.name,
            "players": [p.shown() for p in self.players],
            "together": self.together,
            "rating": round(self.rating),
        }


@attrs.frozen
class Formation:
    teams: tuple[Team, ...]
    #: Who sits out (an odd player when no computer partner is allowed).
    sits_out: tuple[str, ...]
    #: One line per decision worth saying (kept pairs, a computer partner, who sits out).
    notes: tuple[str, ...]


def form_teams(entrants: Sequence[Entrant], *, computer_partner: bool) -> Formation:
    """Teams from ``entrants`` (those who checked in, in sign-up order); see the module doc."""
    by_name = {e.name: e for e in entrants}
    notes: list[str] = []
    kept: list[tuple[Entrant, Entrant]] = []
    taken: set[str] = set()
    for entrant in entrants:
        mate = by_name.get(entrant.partner or "")
        if entrant.name in taken or mate is None or mate.name in taken:
            continue
        if mate.partner == entrant.name and mate.name != entrant.name:
            kept.append((entrant, mate))
            taken.update((entrant.name, mate.name))
            notes.append(f"{entrant.name} and {mate.name} play together, as they signed up")
    single = [e for e in entrants if e.name not in taken]
    order = {e.name: i for i, e in enumerate(entrants)}
    ladder = sorted(single, key=lambda e: (-e.rating, order[e.name]))
    formed: list[tuple[Entrant, Entrant | None]] = []
    sits_out: list[str] = []
    middle = None
    if len(ladder) % 2:
        middle = ladder.pop(len(ladder) // 2)
    for i in range(len(ladder) // 2):
        formed.append((ladder[i], ladder[-1 - i]))
    if middle is not None:
        if computer_partner:
            formed.append((middle, None))
            notes.append(f"{middle.name} plays with a computer partner (an odd number came)")
        else:
            sits_out.append(middle.name)
            notes.append(f"{middle.name} sits out: an odd number came and no computer may partner")
    teams: list[Team] = []
    for a, b in kept:
        teams.append(Team(f"T{len(teams) + 1}", (a.who, b.who), together=True))
    for strong, weak in formed:
        partner = COMPUTER if weak is None else weak.who
        teams.append(Team(f"T{len(teams) + 1}", (strong.who, partner)))
    return Formation(tuple(teams), tuple(sits_out), tuple(notes))
