"""What ``match`` (and ``serve``, which seats its engines as ``match`` does) was
asked to play: the arguments read into a checked ``MatchPlan``.

Not a command: the commands that take ``match``'s options share it.
"""

from __future__ import annotations

import argparse
import datetime
from collections.abc import Mapping
from pathlib import Path

import attrs

from ..bpgn.file import check_output_path
from ..config.engines_file import known_engines
from ..config.options import TABLE_TC, house_rules, out_text
from ..config.specs import (
    EngineSpec,
    seat_engines,
    team_engines,
    with_seat_options,
)
from ..core.model import Seat, Team
from ..core.rules import HouseRules
from ..errors import ConfigError
from ..players.factory import check_command
from ..table.recording import default_out

__all__ = ["DEFAULT_TC", "MatchPlan", "plan_from_args"]

DEFAULT_TC = TABLE_TC


@attrs.frozen(kw_only=True)
class MatchPlan:
    """Everything ``bughouse match`` was asked to do, checked."""

    engines: Mapping[Seat, EngineSpec]
    rules: HouseRules
    #: Game-0 teams held by one engine process (their seats are in ``engines`` too).
    teams: Mapping[Team, EngineSpec] = attrs.field(factory=dict)
    games: int = 1
    out: Path
    seed: int | None = None
    debug: bool = False


def plan_from_args(args: argparse.Namespace, *, today: datetime.datetime) -> MatchPlan:
    """Reads and checks the options; raises ConfigError (or RuleError) on bad input."""
    rules = house_rules(args.rule, args.tc, default_tc=DEFAULT_TC)
    games = _positive_int(args.games, "--games")
    seed = _int(args.seed, "--seed") if args.seed is not None else None
    known = known_engines(getattr(args, "engines_file", None))
    teams = team_engines(getattr(args, "team", []), known=known)
    engines = seat_engines(args.engine, known=known, teams=teams)
    engines, teams = with_seat_options(engines, getattr(args, "option", []), teams=teams)
    for spec in engines.values():
        check_command(spec)
    given = out_text(args)
    out = Path(given) if given else default_out(today)
    # The default folder (games/) is made when the match starts.
    if given or out.parent.exists():
        check_output_path(out)
    return MatchPlan(
        engines=engines,
        teams=teams,
        rules=rules,
        games=games,
        out=out,
        seed=seed,
        debug=args.debug,
    )


def _int(text: str, option: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a whole number, not {text!r}") from None


def _positive_int(text: str, option: str) -> int:
    value = _int(text, option)
    if value < 1:
        raise ConfigError(f"{option} must be at least 1, not {value}")
    return value


