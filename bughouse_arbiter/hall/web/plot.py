"""A rating history drawn as an inline SVG (no script, no network): the rating after each
rated game, its deviation as a band around it, the axes labelled."""

from __future__ import annotations

import datetime
import math
from collections.abc import Sequence

from ...storage import HistoryPoint

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 60, 12, 14, 30


def rating_plot(history: Sequence[HistoryPoint], *, start: float) -> str:
    """The plot of ``history`` (oldest first), from the rating ``start`` before it."""
    if not history:
        return '<p class="note">No rated games yet: the plot starts with the first.</p>'
    values = [start, *(p.rating for p in history)]
    bands = [0.0, *(p.rd for p in history)]
    low = min(v - b for v, b in zip(values, bands, strict=True))
    high = max(v + b for v, b in zip(values, bands, strict=True))
    step = _nice((high - low) / 4 or 50)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    if high <= low:
        high = low + step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * i / max(1, len(values) - 1)

    def y(v: float) -> float:
        return TOP + inner_h * (high - v) / (high - low)

    parts = [
        f'<svg class="plot" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="rating after each of {len(history)} rated games">'
    ]
    tick = low
    while tick <= high + 1e-9:
        parts.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            'stroke="#3a3e45" stroke-width="1"/>'
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.0f}</text>'
        )
        tick += step
    pairs = list(enumerate(zip(values, bands, strict=True)))
    upper = [f"{x(i):.1f},{y(v + b):.1f}" for i, (v, b) in pairs]
    lower = [f"{x(i):.1f},{y(v - b):.1f}" for i, (v, b) in pairs]
    parts.append(
        f'<polygon points="{" ".join(upper + lower[::-1])}" fill="#f2c14e" fill-opacity="0.15"/>'
    )
    line = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<polyline points="{line}" fill="none" stroke="#f2c14e" stroke-width="2.5"/>')
    for i, point in enumerate(history, start=1):
        parts.append(
            f'<circle cx="{x(i):.1f}" cy="{y(point.rating):.1f}" r="3.5" fill="#f2c14e">'
            f"<title>game {point.game_id}: {point.rating:.0f} ± {point.rd:.0f}</title></circle>"
        )
    first, last = history[0].ended, history[-1].ended
    parts.append(
        f'<text x="{LEFT}" y="{HEIGHT - 8}">{_day(first)}</text>'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{_day(last)}</text>'
        "</svg>"
    )
    return "".join(parts)


def _nice(span: float) -> float:
    """A round step near ``span`` (1, 2 or 5 times a power of ten)."""
    power = 10 ** math.floor(math.log10(max(span, 1e-9)))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= span))


def _day(seconds: float) -> str:
    return f"{datetime.datetime.fromtimestamp(seconds, datetime.UTC):%Y-%m-%d}"
