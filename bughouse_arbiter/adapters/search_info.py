"""What an engine's ``info`` line says of its search: depth and score, for ``[%eval]``."""

from __future__ import annotations

from ..bpgn.write import SearchInfo
from ..protocol.limits import DEPTH_LIMIT, MATE_LIMIT, SCORE_CP_LIMIT, bounded_int

__all__ = ["parse_info"]


def parse_info(text: str) -> SearchInfo | None:
    """Reads ``depth``, ``score cp`` and ``score mate`` from UCI-style info tokens.

    Numbers are read into bounded values (``protocol.limits``): one that is not
    a plain integer, or is out of range, counts as absent.
    """
    words = text.split()
    depth = cp = mate = None
    for i, word in enumerate(words[:-1]):
        value = words[i + 1]
        if word == "depth":
            depth = bounded_int(value, DEPTH_LIMIT)
        elif word == "cp" and i and words[i - 1] == "score":
            cp = bounded_int(value, SCORE_CP_LIMIT)
        elif word == "mate" and i and words[i - 1] == "score":
            mate = bounded_int(value, MATE_LIMIT)
    if depth is None and cp is None and mate is None:
        return None
    return SearchInfo(score_cp=cp, mate=mate, depth=depth)

