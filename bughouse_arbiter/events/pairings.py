"""Which team meets which in a round: round robin (circle method) or Swiss.

A pairing is ``(first, second)`` team ids; ``second`` None is a bye. The
first team of a pairing takes White on board A (``event`` seats it).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

Pairing = tuple[str, str | None]


def round_robin(teams: Sequence[str]) -> list[list[Pairing]]:
    """Every round of a single round robin by the circle method.

    The first team stays put and the others turn one place a round; with an
    odd count a bye joins the circle (whoever meets it rests that round).
    The fixed team's colour alternates, so nobody has White every round.
    """
    circle: list[str | None] = list(teams)
    if len(circle) % 2:
        circle.append(None)
    n = len(circle)
    rounds: list[list[Pairing]] = []
    for r in range(n - 1):
        pairs: list[Pairing] = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a
            if a is None:
                a, b = b, None
            if a is not None:
                pairs.append((a, b))
        pairs.sort(key=lambda p: p[1] is None)  # the bye last
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return rounds


def swiss(
    seeds: Sequence[str],
    points: Mapping[str, float],
    played: Collection[frozenset[str]],
    byes: Collection[str],
) -> list[Pairing]:
    """One Swiss round: score groups, no repeat pairing, a bye for an odd count.

    Teams are ranked by points, then by seed (``seeds`` is the starting
    order, strongest first). With an odd count the lowest-ranked team that
    has not had a bye gets it. Then, top down, each team meets the
    highest-ranked team it has not met (in its score group when one is left,
    else floating down), backtracking when the rest cannot be paired. Only
    when no pairing without a repeat exists (a long Swiss of few teams) are
    repeats allowed, still top down.
    """
    rank = {team: i for i, team in enumerate(seeds)}
    order = sorted(seeds, key=lambda t: (-points.get(t, 0.0), rank[t]))
    for allow_repeat in (False, True):
        if len(order) % 2 == 0:
            bye_for: list[str | None] = [None]
        else:
            fresh: list[str | None] = [t for t in reversed(order) if t not in byes]
            again: list[str | None] = [t for t in reversed(order) if t in byes]
            bye_for = fresh + again if allow_repeat or not fresh else fresh
        for bye in bye_for:
            rest = [t for t in order if t != bye]
            pairs = _pair(rest, played, allow_repeat)
            if pairs is not None:
                return pairs + ([(bye, None)] if bye is not None else [])
    raise AssertionError("a pairing always exists when repeats are allowed")


def _pair(
    rest: list[str], played: Collection[frozenset[str]], allow_repeat: bool
) -> list[Pairing] | None:
    if not rest:
        return []
    first, others = rest[0], rest[1:]
    for i, other in enumerate(others):
        if not allow_repeat and frozenset((first, other)) in played:
            continue
        tail = _pair(others[:i] + others[i + 1 :], played, allow_repeat)
        if tail is not None:
            return [(first, other), *tail]
    return None
