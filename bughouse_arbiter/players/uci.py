"""A UCI engine (Fairy-Stockfish with ``UCI_Variant bughouse``) at one seat."""

from __future__ import annotations

from ..adapters.uci import UciAdapter
from .external import ExternalEnginePlayer


class UciPlayer(ExternalEnginePlayer):
    """Runs ``command`` and speaks UCI to it through ``UciAdapter``."""

    protocol = "uci"
    adapter_class = UciAdapter
