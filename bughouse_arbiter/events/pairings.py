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
    order, strongest first). The round is the maximum-weight perfect matching
    of every team (and a bye, with an odd count) where each possible pairing
    weighs what ``costs`` says, most important first: no repeat pairing and no
    second bye (allowed only when nothing else pairs everyone, as in a long
    Swiss of few teams), the bye to the lowest-ranked team, teams of equal
    points together, and teams near each other in rank. In each pairing the
    higher-ranked team is first; the pairings come in rank order, the bye last.
    """
    import networkx as nx

    rank = {team: i for i, team in enumerate(seeds)}
    order = sorted(seeds, key=lambda t: (-points.get(t, 0.0), rank[t]))
    costs = SwissCosts(order, points, played, byes)
    graph: nx.Graph[str] = nx.Graph()
    nodes: list[str | None] = [*order, *([None] if len(order) % 2 else [])]
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            graph.add_edge(_node(a), _node(b), weight=costs.ceiling - costs.cost(a, b))
    matched = nx.max_weight_matching(graph, maxcardinality=True)
    place = {team: i for i, team in enumerate(order)}
    pairs: list[Pairing] = []
    for x, y in matched:
        a, b = _team(x), _team(y)
        if a is None or (b is not None and place[b] < place[a]):
            a, b = b, a
        assert a is not None
        pairs.append((a, b))
    pairs.sort(key=lambda p: (p[1] is None, place[p[0]]))
    return pairs


class SwissCosts:
    """What one pairing of a Swiss round costs (lower is better), as integers in tiers
    that each outweigh every tier below summed over the round: repeats, the bye's
    place, score gaps, rank distance. Refine the rules here; ``swiss`` only matches."""

    def __init__(
        self,
        order: Sequence[str],
        points: Mapping[str, float],
        played: Collection[frozenset[str]],
        byes: Collection[str],
    ) -> None:
        n = len(order) + 1
        self.place = {team: i for i, team in enumerate(order)}
        # Points in half units: integers, so the matching works in exact arithmetic.
        self.halves = {team: round(2 * points.get(team, 0.0)) for team in order}
        self.played = {p for p in played if len(p) == 2}
        self.byes = set(byes)
        spread = max(self.halves.values(), default=0) - min(self.halves.values(), default=0)
        self.rank_unit = 1
        self.gap_unit = n * n * self.rank_unit
        self.bye_unit = (spread * spread * n + 1) * self.gap_unit
        self.repeat_unit = (n + 1) * self.bye_unit
        self.ceiling = self.repeat_unit * 2

    def cost(self, a: str | None, b: str | None) -> int:
        if a is None or b is None:
            team = b if a is None else a
            assert team is not None
            again = team in self.byes
            # The lowest-ranked team costs nothing; each place higher costs one unit more.
            above = len(self.place) - 1 - self.place[team]
            return again * self.repeat_unit + above * self.bye_unit
        gap = self.halves[a] - self.halves[b]
        return (
            (frozenset((a, b)) in self.played) * self.repeat_unit
            + gap * gap * self.gap_unit
            + abs(self.place[a] - self.place[b]) * self.rank_unit
        )


_BYE = "\0bye"


def _node(team: str | None) -> str:
    return _BYE if team is None else team


def _team(node: str) -> str | None:
    return None if node == _BYE else node
