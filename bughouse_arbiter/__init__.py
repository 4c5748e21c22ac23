"""bughouse-arbiter: seat four players at a bughouse table and judge the match."""

from typing import TYPE_CHECKING

from .errors import (
    ArbiterError,
    BpgnError,
    ConfigError,
    EngineFailed,
    MoveError,
    NotYourTurnError,
    PositionError,
    RemoteProtocolError,
    RuleError,
    UsageError,
)

if TYPE_CHECKING:
    from .core.board import BoardStatus, BughouseBoard
    from .core.game import BoardResult, BughouseGame, PartnerMessage, PlayedMove
    from .core.model import SEATS, BoardId, Outcome, Result, Seat, Team, Termination
    from .core.rules import PROFILES, HouseRules, parse_rule, profile

__version__ = "0.1.0"

#: The rules core is imported on first use, so that ``bughouse --help`` and
#: the errors do not pay for python-chess.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("BoardStatus", "BughouseBoard"), ".core.board"),
    **dict.fromkeys(("BoardResult", "BughouseGame", "PartnerMessage", "PlayedMove"), ".core.game"),
    **dict.fromkeys(
        ("SEATS", "BoardId", "Outcome", "Result", "Seat", "Team", "Termination"), ".core.model"
    ),
    **dict.fromkeys(("PROFILES", "HouseRules", "parse_rule", "profile"), ".core.rules"),
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "PROFILES",
    "SEATS",
    "ArbiterError",
    "BoardId",
    "BoardResult",
    "BoardStatus",
    "BpgnError",
    "BughouseBoard",
    "BughouseGame",
    "ConfigError",
    "EngineFailed",
    "HouseRules",
    "MoveError",
    "NotYourTurnError",
    "Outcome",
    "PartnerMessage",
    "PlayedMove",
    "PositionError",
    "RemoteProtocolError",
    "Result",
    "RuleError",
    "Seat",
    "Team",
    "Termination",
    "UsageError",
    "__version__",
    "parse_rule",
    "profile",
]
