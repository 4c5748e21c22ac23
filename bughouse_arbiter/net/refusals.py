"""Refusals in the log, bounded: the first few one by one, then a count per period.

A flood of wrong tokens, junk connections or evictions must not flood the
server's log. ``RefusalLog.note`` says which lines to write now: while the
port is quiet, the first ``first`` refusals of a period each get their line;
the rest are counted by kind, and ``due`` (called at least once a period)
sums them up in one line once the period is over. While a flood goes on
every period ends with that one line only; after a period without a
refusal, refusals are logged one by one again. ``flush`` writes what is
counted at once (the server stopping). Pure: the clock is passed in.
"""

from __future__ import annotations

from collections import Counter

import attrs

#: Refusal kinds named in a summary line (the most frequent first).
KINDS_SHOWN = 4


@attrs.define
class RefusalLog:
    period: float = 10.0
    first: int = 10
    _start: float | None = None
    _logged: int = 0
    _flooding: bool = False
    _counted: Counter[str] = attrs.field(factory=Counter)

    def note(self, now: float, text: str, kind: str) -> list[str]:
        """The lines to write for one refusal (``text``), counted as ``kind`` when not written."""
        lines = self.due(now)
        if self._start is None:
            self._start = now
        if not self._flooding and self._logged < self.first:
            self._logged += 1
            lines.append(text)
        else:
            self._counted[kind] += 1
        return lines

    def due(self, now: float) -> list[str]:
        """The summary line once the period is over (nothing before, or if nothing was counted)."""
        if self._start is None or now - self._start < self.period:
            return []
        self._flooding = bool(self._counted)
        lines = self.flush(now - self._start)
        self._start = now if self._flooding else None
        return lines

    def flush(self, seconds: float | None = None) -> list[str]:
        """The summary of what was counted, now; the count starts again."""
        lines = []
        total = sum(self._counted.values())
        if total:
            kinds = ", ".join(f"{kind}: {n}" for kind, n in self._counted.most_common(KINDS_SHOWN))
            span = f" in the last {seconds:.0f} s" if seconds is not None else ""
            lines.append(f"{total} more refusals{span}, not logged one by one ({kinds})")
        self._counted.clear()
        self._logged = 0
        return lines
