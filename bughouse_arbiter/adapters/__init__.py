"""Sans-IO translators between the arbiter and external engine protocols.

Each adapter is a plain state machine: the arbiter's notifications and the
engine's output lines go in; lines for the engine and ``EngineEvent`` values
for the arbiter come out (``take()``). No trio, no clock, no process: the
players in ``bughouse_arbiter.players`` drive them over a pipe.
"""

from __future__ import annotations

from .common import (
    EngineDrawOffer,
    EngineEvent,
    EngineInfoLine,
    EngineMove,
    EngineNote,
    EngineResign,
    EngineTell,
    EngineWait,
)
from .tcs import TcsAdapter
from .uci import UciAdapter
from .xboard import XboardAdapter

__all__ = [
    "EngineDrawOffer",
    "EngineEvent",
    "EngineInfoLine",
    "EngineMove",
    "EngineNote",
    "EngineResign",
    "EngineTell",
    "EngineWait",
    "TcsAdapter",
    "UciAdapter",
    "XboardAdapter",
]
