"""How a tournament's figures read: progress lines, their ETA, and the words (pure).

Numbers are rounded once, where they are shown, and never read ``-0``; an
interval the results cannot bound yet reads ``n/a`` (``Summary.interval_known``).
The ETA counts the games left: the schedule's, or with an SPRT its expected
length from the LLR's drift so far (``sprt_games_left``), shown as ``ETA ~``.
Progress lines are packed into ``WIDTH`` columns (``fit``).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence

import attrs

from .stats import Summary

#: Columns a progress line may take.
WIDTH = 80
#: What joins the parts of a progress line.
SEPARATOR = " · "


def signed(value: float, digits: int = 0) -> str:
    """``+12``, ``-3.5``, ``+0`` (never ``-0``), ``+inf``/``-inf``."""
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    if round(value, digits) == 0:
        value = 0.0
    return f"{value:+.{digits}f}"


def plural(count: int, word: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def percent(fraction: float, digits: int = 1) -> str:
    """``51.4%`` for 76/148 (rounded once, from the exact fraction)."""
    return f"{100 * fraction:.{digits}f}%"


def elo_text(summary: Summary, digits: int = 0) -> str:
    """``Elo +35 ± 20``; ``Elo -70 ± n/a`` while no interval is known; ``Elo +inf``."""
    elo = summary.elo
    if math.isinf(elo):
        return f"Elo {signed(elo)}"
    if not summary.interval_known:
        return f"Elo {signed(elo, digits)} ± n/a"
    margin = summary.elo_margin()
    shown = f"{margin:.{digits}f}" if math.isfinite(margin) else "inf"
    return f"Elo {signed(elo, digits)} ± {shown}"


def nelo_text(summary: Summary, digits: int = 0) -> str:
    """``nElo +40 ± 23`` (normalized Elo), or ``nElo n/a`` while it is unknown."""
    nelo, margin = summary.nelo, summary.nelo_margin()
    if nelo is None or margin is None:
        return "nElo n/a"
    return f"nElo {signed(nelo, digits)} ± {margin:.{digits}f}"


def status_text(
    first: str, second: str, summary: Summary, sprt: Mapping[str, object] | None = None
) -> str:
    """``a vs b: Elo +35 ± 20 · nElo +40 ± 23 · LOS 91.2%`` and the LLR with an SPRT."""
    parts = [
        f"{first} vs {second}: {elo_text(summary)}",
        nelo_text(summary),
        f"LOS {percent(summary.los)}",
    ]
    if sprt is not None:
        parts.append(
            f"LLR {_number(sprt['llr']):.2f} "
            f"({_number(sprt['lower']):.2f}, {_number(sprt['upper']):.2f})"
        )
    return SEPARATOR.join(parts)


def pairing_status(
    first: str, second: str, summary: Summary, sprt: Mapping[str, object] | None = None
) -> str:
    """``a vs b: +3 -1 =2 · 3 pairs · Elo +35 ± 20 · nElo +40 ± 23 · LOS 91.2%``,
    with an SPRT's ``LLR`` after it: one pairing's live record and figures."""
    record = f"{first} vs {second}: +{summary.wins} -{summary.losses} ={summary.draws}"
    rest = status_text(first, second, summary, sprt).split(SEPARATOR)
    rest[0] = rest[0].removeprefix(f"{first} vs {second}: ")
    return SEPARATOR.join([record, plural(summary.penta.pairs, "pair"), *rest])


def status_lines(statuses: Sequence[str], most: int, width: int = WIDTH) -> list[str]:
    """Each pairing's status packed into ``width`` columns, the first ``most``
    of them, then how many more there are."""
    lines = [line for status in statuses[:most] for line in fit(status.split(SEPARATOR), width)]
    if len(statuses) > most:
        lines.append(f"  … and {plural(len(statuses) - most, 'more pairing')}")
    return lines


def _number(value: object) -> float:
    assert isinstance(value, int | float)
    return float(value)


# -- what is left --------------------------------------------------------------------


@attrs.frozen
class Remaining:
    """Games still to play (None: no estimate yet); ``approximate`` for an SPRT's."""

    games: float | None
    approximate: bool = False


def sprt_games_left(llr: float, lower: float, upper: float, games: int) -> float | None:
    """The games an SPRT is expected to need yet: the distance to the bound its
    LLR drifts towards over the mean LLR change per game so far (None: no drift)."""
    if games <= 0 or llr == 0.0:
        return None
    drift = llr / games
    bound = upper if drift > 0 else lower
    return max(0.0, (bound - llr) / drift)


def remaining(
    scheduled_left: int,
    sprt: Mapping[str, object] | None = None,
    sprt_games: int = 0,
) -> Remaining:
    """Games left: ``scheduled_left``, or with an ``sprt`` state its expected
    length after ``sprt_games`` games (never more than the schedule's)."""
    if sprt is None:
        return Remaining(float(scheduled_left))
    expected = sprt_games_left(
        _number(sprt["llr"]), _number(sprt["lower"]), _number(sprt["upper"]), sprt_games
    )
    if expected is None:
        return Remaining(None, approximate=True)
    return Remaining(min(expected, float(scheduled_left)), approximate=True)


def clock_text(seconds: float) -> str:
    """``1:02:03``; ``0:00:59``."""
    whole = max(0, math.ceil(seconds))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def eta_text(left: Remaining, seconds_per_game: float | None) -> str:
    """``ETA 0:12:00``, ``ETA ~1:05:00`` (an SPRT's expected length), or ``ETA ?``."""
    mark = "~" if left.approximate else ""
    if left.games is None or seconds_per_game is None:
        return f"ETA {mark}?"
    return f"ETA {mark}{clock_text(left.games * seconds_per_game)}"


# -- lines ------------------------------------------------------------------------------


def fit(
    parts: Sequence[str],
    width: int = WIDTH,
    indent: str = "  ",
    separator: str = SEPARATOR,
    first: str = "",
) -> list[str]:
    """``parts`` joined by ``separator`` into lines of at most ``width`` columns,
    the first line led by ``first``, the following ones by ``indent``; a part
    too long for a line is wrapped at its spaces (cut with ``…`` only where a
    single word is too long)."""
    lines: list[str] = []
    line = ""
    for part in (p for p in parts if p):
        if line and len(line) + len(separator) + len(part) <= width:
            line += separator + part
            continue
        if line:
            lines.append(line)
        lead = indent if lines else first
        pieces = textwrap.wrap(
            part,
            width=width,
            initial_indent=lead,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [lead]
        pieces = [p if len(p) <= width else p[: width - 1] + "…" for p in pieces]
        lines += pieces[:-1]
        line = pieces[-1]
    if line:
        lines.append(line)
    return lines
