"""Who plays whom, where they sit, with which opening: the list of ``MatchJob`` values.

Pure. A participant is a team: two instances of one engine (``--engine``),
two different engines (``--team NAME=SPEC1+SPEC2``, a mixed team), or one
team-mode process holding both seats (``--team NAME=team:SPEC``).

Fairness. Within a pairing, games ``2k`` and ``2k+1`` play opening ``k`` with
the teams swapped (the side that had team 1's seats, A-White + B-Black, takes
team 2's, so each side plays each colour of that opening on each board).
Seats rotate as ``config.specs.rotated_seat``: over four games every member
sits at every seat (partners stay partners), so each side plays each colour
on each board equally often. Games are ordered pair by pair across the
pairings, so a round-robin stopped early has played every pairing about
equally. ``--noswap`` and ``--reverse`` change which rotation seats a game
(``rotation``), not its opening.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from ..config.specs import EngineSpec, rotated_seat
from ..core.model import Seat, Team
from ..core.rules import HouseRules
from ..table.keeper import Entrant, entrants
from .jobs import MatchJob
from .openings import Opening


@attrs.frozen(kw_only=True)
class Participant:
    """One side of a bughouse game: a team of two engines, or one team-mode engine."""

    name: str
    #: The engines of the two seats (the same spec twice for ``--engine``).
    members: tuple[EngineSpec, EngineSpec]
    #: The members' names for per-engine ratings (``NAME`` twice for ``--engine``).
    member_names: tuple[str, str]
    #: One process holds both seats (team mode).
    team_mode: bool = False

    @property
    def mixed(self) -> bool:
        return self.member_names[0] != self.member_names[1]


def pairings(participants: Sequence[Participant], format: str) -> list[tuple[int, int]]:
    """Index pairs: ``gauntlet`` (the first against each other one) or ``round-robin``."""
    n = len(participants)
    if format == "gauntlet":
        return [(0, j) for j in range(1, n)]
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def seating(first: Participant, second: Participant, game: int) -> tuple[Entrant, ...]:
    """The entrants of game ``game`` of a pairing (``first`` sits as team 1 in game 0)."""
    found: list[Entrant] = []
    for participant, home in ((first, Team.ONE), (second, Team.TWO)):
        seats = tuple(rotated_seat(seat, game) for seat in home.seats)
        team = seats[0].team  # partners stay partners: one team of this game
        members = dict(zip(seats, participant.members, strict=True))
        found += entrants(
            members,
            teams={team: participant.members[0]} if participant.team_mode else None,
            participants={team: participant.name},
            names=dict(zip(seats, participant.member_names, strict=True)),
        )
    return tuple(found)


def side_of(game: int) -> Team:
    """The team whose seats the pairing's first participant holds in game ``game``."""
    return rotated_seat(Seat.A_WHITE, game).team


def rotation(game: int, *, noswap: bool = False, reverse: bool = False) -> int:
    """The seat rotation (``rotated_seat``'s index) that seats game ``game`` of a pairing.

    By default game ``g`` is seated by rotation ``g``: the second game of a pair
    swaps the teams. ``noswap`` (fastchess's ``-noswap``) keeps the first
    participant on team 1's seats in both games of a pair (rotation 0, or 3 for
    the pairs whose members change boards), ``reverse`` (``-reverse``) seats a
    pair's two games the other way round, starting on team 2's seats.
    """
    # noswap: team 1's seats, the members changing boards every pair.
    index = (0 if game % 4 < 2 else 3) if noswap else game
    return index ^ 1 if reverse else index


def schedule(
    participants: Sequence[Participant],
    *,
    format: str,
    games: int,
    rules: HouseRules,
    openings: Sequence[Opening],
    seed: int | None = None,
    event: str = "bughouse-arbiter tournament",
    noswap: bool = False,
    reverse: bool = False,
) -> list[MatchJob]:
    """Every game of the tournament, in playing order (``noswap``, ``reverse``:
    the colour rotation, ``rotation``)."""
    plan = pairings(participants, format)
    jobs: list[MatchJob] = []
    number = 0
    for pair in range((games + 1) // 2):
        for pairing, (i, j) in enumerate(plan):
            first, second = participants[i], participants[j]
            for game in (2 * pair, 2 * pair + 1):
                if game >= games:
                    continue
                number += 1
                opening = openings[pair % len(openings)] if openings else None
                turn = rotation(game, noswap=noswap, reverse=reverse)
                one = side_of(turn)
                sides: Mapping[Team, str] = {one: first.name, one.other: second.name}
                tags = [
                    ("Tournament", event),
                    ("Team1", sides[Team.ONE]),
                    ("Team2", sides[Team.TWO]),
                    ("Pairing", f"{first.name} vs {second.name}"),
                    ("OpeningPair", str(pair + 1)),
                ]
                if opening is not None:
                    tags.append(("Opening", opening.name))
                    if opening.moves:
                        tags.append(("OpeningPlies", str(len(opening.moves))))
                jobs.append(
                    MatchJob(
                        job_id=f"p{pairing}-g{game}",
                        number=number,
                        pairing=pairing,
                        game=game,
                        sides=sides,
                        entrants=seating(first, second, turn),
                        rules=rules,
                        opening=opening,
                        seed=None if seed is None else seed + 1000 * number,
                        event=event,
                        tags=tuple(tags),
                        rotation=None if turn == game else turn,
                    )
                )
    return jobs
