"""Before a tournament plays: does every engine take the options it is given?

An option an engine did not declare, or a value outside what it declared
(a spin's range, a check's words, a combo's choices), fails its start
(``adapters/declared.py``). Found in the first game, it would stop a run
whose folder already records the setting (or, as ``Skill Level=abc`` does
to Fairy-Stockfish, crash the engine); so each engine that is given options
is started once, all at once, before anything is written, and the first
refused option is said in one line. Any other start failure is left to the
games, which score it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import trio

from ..adapters.declared import RefusedOption
from ..config.specs import EngineSpec
from ..core.model import Seat
from ..errors import EngineFailed
from ..players.base import Action
from ..players.factory import create_player, create_team_player
from ..table.keeper import entrant_key
from .schedule import Participant

__all__ = ["refused_options"]

#: Seconds an engine gets for its handshake here.
CHECK_TIMEOUT = 10.0


async def refused_options(participants: Sequence[Participant]) -> str | None:
    """``participant NAME: engine has no option ...`` (or ``option ... takes
    ...``) for the first participant (in order) one of whose engines refuses
    an option it is given, else None."""
    wanted: dict[str, tuple[EngineSpec, bool, str]] = {}
    for p in participants:
        for spec in p.members:
            if spec.options:
                wanted.setdefault(entrant_key(spec, p.team_mode), (spec, p.team_mode, p.name))
    found: dict[str, str] = {}

    async def check(spec: EngineSpec, team_mode: bool, name: str) -> None:
        refusal = await _refusal(spec, team_mode)
        if refusal is not None:
            found.setdefault(name, refusal)

    async with trio.open_nursery() as nursery:
        for spec, team_mode, name in wanted.values():
            nursery.start_soon(check, spec, team_mode, name)
    for p in participants:
        if p.name in found:
            return f"participant {p.name}: {found[p.name]}"
    return None


async def _refusal(spec: EngineSpec, team_mode: bool) -> str | None:
    """Why ``spec`` refuses its options, or None (started, or failed otherwise)."""
    if team_mode:
        player = create_team_player((Seat.A_WHITE, Seat.B_BLACK), spec)
    else:
        player = create_player(Seat.A_WHITE, spec)
    send, receive = trio.open_memory_channel[Action](math.inf)
    refusal: str | None = None
    async with trio.open_nursery() as nursery:
        try:
            with trio.move_on_after(CHECK_TIMEOUT):
                await player.start(nursery, send)
        except RefusedOption as exc:
            refusal = str(exc)
        except (EngineFailed, OSError):
            pass
        finally:
            with trio.CancelScope(shield=True):
                await player.aclose()
            send.close()
            receive.close()
            nursery.cancel_scope.cancel()
    return refusal
