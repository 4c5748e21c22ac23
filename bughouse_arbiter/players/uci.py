"""A UCI engine (Fairy-Stockfish with ``UCI_Variant bughouse``) at one seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..adapters.uci import UciAdapter
from ..model import Seat
from .external import ExternalEnginePlayer
from .process import Log


class UciPlayer(ExternalEnginePlayer):
    """Runs ``command`` and speaks UCI to it through ``UciAdapter``."""

    protocol = "uci"

    def __init__(
        self,
        seat: Seat,
        command: Sequence[str],
        *,
        name: str | None = None,
        cwd: str | None = None,
        options: Mapping[str, str] | None = None,
        init: Sequence[str] = (),
        handshake_timeout: float = 10.0,
        log: Log | None = None,
    ) -> None:
        super().__init__(
            seat,
            command,
            UciAdapter(seat, options=options, init=init),
            name=name,
            cwd=cwd,
            handshake_timeout=handshake_timeout,
            log=log,
        )
