"""bughouse-arbiter: seat four players at a bughouse table and judge the match."""

from .core.board import BoardStatus, BughouseBoard
from .core.game import BoardResult, BughouseGame, PartnerMessage, PlayedMove
from .core.model import SEATS, BoardId, Outcome, Result, Seat, Team, Termination
from .core.rules import PROFILES, HouseRules, parse_rule, profile
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

__version__ = "0.1.0"

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
