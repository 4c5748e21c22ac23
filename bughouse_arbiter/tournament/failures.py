"""What went wrong in a tournament's games, per participant, each thing counted once.

Every incident of a game (``jobs.SeatIncident``) has one kind, and counts
once, under it: an illegal move, a failed start, a hang (no answer to the
ping after the game; it replaces the time loss of an engine that lost on
time and then did not answer), a crash (the process ended or broke the
protocol), or a time loss (an engine that lost on time and still answered).
So a hang is neither a crash nor a time loss too. The time losses the
harness may have caused are among the time losses. Which of these drop a
participant is ``SeatIncident.is_failure``'s (crashes, failed starts,
hangs). Pure: reports in, counts out.
"""

from __future__ import annotations

from collections.abc import Iterable

from .jobs import MatchReport

__all__ = ["COLUMNS", "HARNESS_KEY", "KINDS", "FailureCounts"]

#: The kinds, in the order the tables show them, with summary.json's key and
#: the tables' heading for each.
KINDS: tuple[tuple[str, str, str], ...] = (
    ("illegal", "illegal_moves", "illegal moves"),
    ("start", "failed_starts", "failed starts"),
    ("hang", "hangs", "hangs"),
    ("crash", "crashes", "crashes"),
    ("time", "time_losses", "time losses"),
)
#: summary.json's key for the time losses the harness may have caused.
HARNESS_KEY = "harness_time_losses"
#: Every count's summary key and heading, the harness's last.
COLUMNS: tuple[tuple[str, str], ...] = (
    *((key, heading) for _, key, heading in KINDS),
    (HARNESS_KEY, "by the harness"),
)


class FailureCounts:
    """The counts of one tournament's games, kept game by game."""

    def __init__(self, names: Iterable[str]) -> None:
        names = list(names)
        self.counts: dict[str, dict[str, int]] = {
            key: dict.fromkeys(names, 0) for key, _ in COLUMNS
        }
        self._keys = {kind: key for kind, key, _ in KINDS}

    def add(self, report: MatchReport) -> None:
        """Counts one game's incidents."""
        timed: dict[object, str] = {}
        for incident in report.incidents:
            key = self._keys.get(incident.kind)
            if key is not None:
                self._bump(key, incident.participant)
            if incident.kind == "time":
                timed[incident.seat] = incident.participant
        for seat in report.harness_time_losses:
            if seat in timed:  # not a seat that hung
                self._bump(HARNESS_KEY, timed[seat])

    def _bump(self, key: str, name: str) -> None:
        counts = self.counts[key]
        counts[name] = counts.get(name, 0) + 1

    def as_summary(self) -> dict[str, dict[str, int]]:
        """summary.json's ``illegal_moves`` ... ``harness_time_losses``, per participant."""
        return {key: dict(counts) for key, counts in self.counts.items()}

    def any(self) -> bool:
        return any(any(c.values()) for c in self.counts.values())
