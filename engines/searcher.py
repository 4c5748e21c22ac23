#!/usr/bin/env python3
"""Searcher: the project's alpha-beta bughouse engine, speaking BUG/1 (protocol.md).

Run it as ``python engines/searcher.py`` (``bughouse match`` does, for the
built-in name ``searcher``). It needs only the standard library and
python-chess; the code lives in the ``searcher/`` package beside this file:

- ``position``: its own board (captures go to the partner, not the pocket;
  a check a drop could block is not mate), "which piece would mate" helpers;
- ``evaluation``: material on the board and in hand, king safety against
  drops, what a capture hands to the other board, piece placement;
- ``search``: iterative deepening negamax, quiescence with checking drops;
- ``plan``: time from the four clocks, sitting, what to tell the partner;
- ``partner``: the partner's words (``sit``, ``go``, ``++n``, ``--q``, ...);
- ``protocol``: the BUG/1 loop (reader thread, controller, search thread).

Option: ``Seed`` (0 = off) shuffles moves of equal merit.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from searcher.protocol import main

if __name__ == "__main__":
    sys.exit(main())
