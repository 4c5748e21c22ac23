"""An xboard (CECP) engine (Sjeng, Fairy-Stockfish in xboard mode) at one seat."""

from __future__ import annotations

from ..adapters.xboard import XboardAdapter
from .external import ExternalEnginePlayer


class XboardPlayer(ExternalEnginePlayer):
    """Runs ``command`` and speaks xboard to it through ``XboardAdapter``."""

    protocol = "xboard"
    adapter_class = XboardAdapter
