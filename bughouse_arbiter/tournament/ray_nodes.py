"""Which Ray node played what: per-node counts of a ``--ray`` run.

The driver counts, per node (by Ray's node id), the games its tables
reported, the failures there (games lost with a table's worker or the
node, harness errors, engines that crashed, hung or did not start) and the
games per second since its first table came up. ``summary.json`` holds
them as ``nodes``; the end of the run prints one line per node.
"""

from __future__ import annotations

import attrs

from .jobs import MatchReport

__all__ = ["NodeCount", "NodeCounts"]


@attrs.define
class NodeCount:
    """One node's counts; ``first`` and ``last`` are wall-clock seconds."""

    node_id: str
    ip: str
    host: str
    first: float
    last: float
    games: int = 0
    failures: int = 0

    def games_per_second(self) -> float:
        """Games reported from this node per second since its first table came up."""
        span = self.last - self.first
        return self.games / span if span > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "node_id": self.node_id,
            "address": self.ip,
            "host": self.host,
            "games": self.games,
            "failures": self.failures,
            "games_per_second": round(self.games_per_second(), 3),
        }

    def line(self) -> str:
        return (
            f"node {self.host} ({self.ip}, {self.node_id[:8]}): {self.games} games, "
            f"{self.failures} failures, {self.games_per_second():.2f} games/s"
        )


@attrs.define
class NodeCounts:
    """The counts of every node that had a table, in the order they came up."""

    nodes: dict[str, NodeCount] = attrs.field(factory=dict)

    def up(self, node_id: str, ip: str, host: str, now: float) -> None:
        """A table came up on ``node_id``."""
        if node_id not in self.nodes:
            self.nodes[node_id] = NodeCount(node_id, ip, host, first=now, last=now)

    def reported(self, node_id: str, report: MatchReport, now: float) -> None:
        """A report came from a table on ``node_id``."""
        count = self.nodes.get(node_id)
        if count is None:
            return
        count.last = now
        if report.played:
            count.games += 1
            count.failures += sum(1 for i in report.incidents if i.is_failure)
        else:
            count.failures += 1

    def lost(self, node_id: str | None, now: float) -> None:
        """A game was lost there with its table's worker or the node."""
        count = self.nodes.get(node_id or "")
        if count is not None:
            count.failures += 1
            count.last = now

    def as_list(self) -> list[dict[str, object]]:
        return [count.as_dict() for count in self.nodes.values()]

    def lines(self) -> list[str]:
        return [count.line() for count in self.nodes.values()]
