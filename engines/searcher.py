#!/usr/bin/env python3
"""Searcher: the project's alpha-beta bughouse engine, speaking BUG/1 (protocol.md).

Run it as ``python engines/searcher.py``. It needs only the standard library
and python-chess; the code lives in the ``searcher/`` package beside this file.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from searcher.protocol import main

if __name__ == "__main__":
    sys.exit(main())
