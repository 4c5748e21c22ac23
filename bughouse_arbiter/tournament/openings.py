"""Two-board starting positions for tournaments (pure values; reading comes later)."""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Opening:
    """The start of both boards (FEN with pockets, as ``BughouseGame`` takes them)."""

    name: str
    fen_a: str
    fen_b: str
