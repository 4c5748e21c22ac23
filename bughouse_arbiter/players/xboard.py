"""An xboard (CECP) engine (Sjeng, Fairy-Stockfish in xboard mode) at one seat."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..adapters.xboard import XboardAdapter
from ..model import Seat
from .external import ExternalEnginePlayer
from .process import Log


class XboardPlayer(ExternalEnginePlayer):
    """Runs ``command`` and speaks xboard to it through ``XboardAdapter``."""

    protocol = "xboard"

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
            XboardAdapter(seat, options=options, init=init),
            name=name,
            cwd=cwd,
            handshake_timeout=handshake_timeout,
            log=log,
        )
