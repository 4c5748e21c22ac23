"""``bughouse`` with part of ``match``'s observer switched off, to weigh it.

    python bench/floor/bughouse_without.py record|observer match ARGS...

``record``: the BPGN writer hears nothing (the file keeps only its start);
``observer``: neither the writer nor the display hears anything. Only for
``bench/relay_ratio.py --without``: it tells how much of a ply's cost is the
observer's, and whose.
"""

from __future__ import annotations

import sys

from bughouse_arbiter.cli import main
from bughouse_arbiter.table.recording import GameWriter
from bughouse_arbiter.ui.match_view import Display


def _deaf(self: object, event: object) -> None:
    pass


if __name__ == "__main__":
    what = sys.argv[1]
    if what not in ("record", "observer"):
        sys.exit("first argument: record or observer")
    GameWriter.observe = _deaf  # type: ignore[method-assign]
    if what == "observer":
        Display.observe = _deaf  # type: ignore[method-assign]
    sys.exit(main(sys.argv[2:]))
