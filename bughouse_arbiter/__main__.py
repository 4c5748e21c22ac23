"""``python -m bughouse_arbiter``: the ``bughouse`` command."""

import sys

from .cli import main

sys.exit(main())
