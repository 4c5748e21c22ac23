"""bughouse-arbiter: seat four players at a bughouse table and judge the match.

The layers, lowest first; each imports only from those below it
(``tests/test_layering.py`` checks it):

- ``errors``, ``exits``: the exceptions and the exit statuses.
- ``core``: the rules (boards, the four-seat game, clocks, house rules). Sans-IO.
- ``config`` (engine specs, time controls, the engines file), ``protocol``
  (protocol.md's lines), ``bpgn`` (the game format: write, read, replay),
  ``ratings`` (Glicko team ratings). Sans-IO.
- ``adapters`` (UCI and xboard engines behind protocol.md; an info line's
  score, ``adapters.search_info``) and ``ui``'s text (the table drawn, the
  console's input), ``lobby`` (the server's lobby: tables, seats, pairing,
  chat, its messages). Sans-IO.
- ``players`` (one ``Player`` per seat: engine processes, the console, and
  ``players.driver``, a local player driven by protocol.md's lines),
  ``environment`` (what the terminal can do), ``events`` (a club evening:
  sign-up, teams, rounds, standings; sans-IO, on the lobby's identities) and
  ``net`` (the network's bounds and plumbing both servers share: limits,
  admission, TLS, TCP, the ASGI host, the web gate).
- ``table``: the trio arbiter (``arbiter.run_match``), one game played
  (``games.play_game``), engines kept between games (``keeper.EngineKeeper``),
  a game recorded (``recording.GameWriter``); ``storage`` (the server's
  database: accounts, bots, the game archive, ratings; SQLite); ``web`` (the
  page files and the self-contained replay page).
- ``serve`` (the one-table server: the table seam, remote seats, the TCP
  front end, the live page), ``clients`` (what dials a server: ``connect``,
  bots, the console in the lobby) and ``ui.match_view`` (the live match
  display and the summary of a run).
- ``tournament``: schedules, the journal, statistics, local and Ray tables;
  ``hall``: the lobby server, ``bughouse server`` (its runtime, tables, events,
  line port, and its web side in ``hall.web``).
- ``commands``: one module per ``bughouse`` verb; no command imports another.
- ``cli``: the argument parser and ``main``.
"""

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
