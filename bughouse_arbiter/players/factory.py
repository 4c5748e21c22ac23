"""From an ``EngineSpec`` to a ``Player``: the one place that picks the class.

``create_player(seat, spec)`` returns a player that is not started yet
(``run_match`` starts it). ``native`` specs speak our protocol
(``protocol.md``) through ``NativeEnginePlayer``; ``uci`` and ``xboard``
and ``tcs`` specs go through the adapters (``UciPlayer``, ``XboardPlayer``,
``TcsPlayer``).
``create_team_player(seats, spec)`` runs one engine for both seats of a team:
a native engine in team mode (protocol.md §7) or a team-UCI engine
(``TeamUciPlayer``, hivemind's dialect).
``check_command`` tells early, as a usage error, when a command cannot run.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..config.specs import TEAM_ONLY, EngineSpec, check_team_spec
from ..core.model import Seat
from ..errors import ConfigError
from .base import Player

if TYPE_CHECKING:
    from .native import NativeEnginePlayer
    from .tcs import TcsPlayer
    from .team_uci import TeamUciPlayer
    from .uci import UciPlayer
    from .xboard import XboardPlayer

#: A per-engine protocol log: called with each line (already marked with its
#: direction by the player).
Log = Callable[[str], None]


#: Seconds an engine gets for its protocol's handshake (``uciok``, ``bugok``, features).
HANDSHAKE_TIMEOUT = 10.0


def create_player(
    seat: Seat,
    spec: EngineSpec,
    *,
    log: Log | None = None,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
) -> Player:
    """A new, unstarted player for ``seat`` running ``spec``.

    Raises:
        ConfigError: the spec names a protocol no player speaks.
    """
    player_class = _player_class(spec)
    return player_class(
        seat,
        spec.command,
        name=spec.name,
        cwd=spec.cwd,
        options=spec.options,
        init=spec.init,
        limits=spec.limits,
        handshake_timeout=handshake_timeout,
        log=log,
    )


def create_team_player(
    seats: tuple[Seat, Seat],
    spec: EngineSpec,
    *,
    log: Log | None = None,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
) -> Player:
    """A new, unstarted player holding both ``seats`` (one team's): a native
    engine in team mode, or a team-UCI engine.

    Raises:
        ConfigError: ``spec`` speaks a protocol that holds one seat per process.
    """
    check_team_spec(spec, f"engine {spec.name!r}")
    player_class: type[NativeEnginePlayer | TeamUciPlayer]
    if spec.protocol == "team-uci":
        from .team_uci import TeamUciPlayer

        player_class = TeamUciPlayer
    else:
        from .native import NativeEnginePlayer

        player_class = NativeEnginePlayer
    return player_class(
        seats,
        spec.command,
        name=spec.name,
        cwd=spec.cwd,
        options=spec.options,
        init=spec.init,
        limits=spec.limits,
        handshake_timeout=handshake_timeout,
        log=log,
    )


def _player_class(
    spec: EngineSpec,
) -> type[NativeEnginePlayer | UciPlayer | XboardPlayer | TcsPlayer]:
    # Imported here so that the engines a match does not use cost nothing to start.
    if spec.protocol == "native":
        from .native import NativeEnginePlayer

        return NativeEnginePlayer
    if spec.protocol == "uci":
        from .uci import UciPlayer

        return UciPlayer
    if spec.protocol == "xboard":
        from .xboard import XboardPlayer

        return XboardPlayer
    if spec.protocol == "tcs":
        from .tcs import TcsPlayer

        return TcsPlayer
    if spec.protocol in TEAM_ONLY:
        raise ConfigError(
            f"engine {spec.name!r} speaks {spec.protocol}: it holds both seats of a team (--team)"
        )
    raise ConfigError(f"engine {spec.name!r}: unknown protocol {spec.protocol!r}")


def check_command(spec: EngineSpec) -> None:
    """Raises ConfigError unless ``spec``'s program exists and may be run.

    A bare name is looked up on PATH; a name with a slash is taken relative to
    ``spec.cwd`` (or the current folder).
    """
    program = spec.command[0]
    if program == sys.executable and len(spec.command) > 1 and spec.command[1].endswith(".py"):
        script = Path(spec.cwd or ".") / spec.command[1]
        if not script.is_file():
            raise ConfigError(f"engine {spec.name!r}: no such script {spec.command[1]!r}")
        return
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(spec.cwd or ".") / program
        if not path.is_file():
            raise ConfigError(f"engine {spec.name!r}: no such program {program!r}")
        if not os.access(path, os.X_OK):
            raise ConfigError(f"engine {spec.name!r}: {program!r} is not executable")
        return
    if shutil.which(program) is None:
        raise ConfigError(f"engine {spec.name!r}: command {program!r} not found on PATH")
