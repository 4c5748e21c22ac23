"""The options several commands share, each defined once, and their readers.

An ``add_*`` function adds one option (its name, metavar, default and help)
to a command's parser; the reader next to it turns the parsed text into a
value, raising a ``UsageError`` subclass (one line, exit status 2) on a bad
one. ``house_rules`` is the one way from ``--rule`` and ``--tc`` to the
``HouseRules`` of a game, for every command.

Imported while a command's parser is built, so it imports neither trio nor
chess: ``core.rules`` (which brings chess) and ``config.specs`` are imported
by the functions that need them.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..core.rules import HouseRules

#: ``--engines-file`` in every command's ``--help``: the format in one sentence.
ENGINES_FILE_HELP = (
    "a TOML file of named engines, one [engines.NAME] table each with protocol "
    '("native", "uci" or "xboard"), command (a list, or a string split like a shell), '
    "and optional cwd (working folder), options (a table NAME = VALUE, set after the "
    "handshake), init (lines sent after the handshake) and movetime (ms), depth and nodes "
    "(limits on every move); later files win over "
    "~/.config/bughouse-arbiter/engines.toml and the built-ins. See engines.example.toml "
    "and protocol.md appendix A"
)

#: The time control of ``match`` and ``serve`` when none is given.
TABLE_TC = "60+0"

#: The house rules a time control sets: naming one with ``--rule`` replaces
#: the command's default time control.
CLOCK_RULES = frozenset({"time", "increment", "clock"})

UNTIMED_HELP = (
    "'none' plays untimed, with the stalling rule and a time per move for each engine "
    "(engines file: movetime, depth, nodes; timed play sends them beside the clocks)"
)


def add_rule(parser: argparse.ArgumentParser, *, note: str = "") -> None:
    """``--rule NAME=VALUE`` (repeatable); ``note`` says what it means for this command."""
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house rule, e.g. stalemate=draw, wait_for_block=off or profile=club "
        f"(repeatable; the rules and profiles: docs/rules.md){note}",
    )


def add_tc(parser: argparse.ArgumentParser, *, default: str, untimed: bool = True) -> None:
    """``--tc BASE+INC`` (with ``untimed``, also ``none``); ``default`` is the command's."""
    parser.add_argument(
        "--tc",
        metavar="BASE+INC|none" if untimed else "BASE+INC",
        help=f"time control in seconds (default {default}, unless a --rule sets time, "
        "increment or clock); the profile keeps its name"
        + (f"; {UNTIMED_HELP}" if untimed else ""),
    )


def house_rules(
    rule_texts: Sequence[str],
    tc_text: str | None = None,
    *,
    default_tc: str | None = None,
    untimed: bool = True,
    table: Iterable[tuple[str, str]] = (),
    base: HouseRules | None = None,
) -> HouseRules:
    """The rules of ``--rule`` (each ``NAME=VALUE``, in order, on ``base``) and ``--tc``.

    ``--tc`` (or, when no rule names time, increment or clock, ``default_tc``)
    sets the clock last and keeps the profile's name: a time control is not
    a house-rule variant, so ``--tc 60+5`` plays the ``default`` profile at
    60+5, as ``--rule profile=club --tc 60+5`` plays ``club``. ``table`` are
    the command's own rules (``serve``'s ``draw=both-teams``), applied the
    same way unless a ``--rule`` names them. Without ``untimed``, untimed
    play (``--tc none``, ``--rule clock=off``) is refused.
    """
    from ..core.rules import HouseRules, apply_rules, parse_rule

    pairs = [parse_rule(text) for text in rule_texts]
    rules = apply_rules(base if base is not None else HouseRules(), pairs)
    named = {name for name, _ in pairs}
    if tc_text is None and not named & CLOCK_RULES:
        tc_text = default_tc
    if tc_text is not None:
        from .specs import TimeControl  # attrs: not for position's start-up

        rules = apply_rules(rules, TimeControl.parse(tc_text).rule_pairs(), keep_profile=True)
    if not untimed and not rules.clock:
        raise ConfigError(
            "untimed play (--tc none, --rule clock=off) is for engine matches (bughouse match)"
        )
    given = [(name, value) for name, value in table if name not in named]
    return apply_rules(rules, given, keep_profile=True)


def add_engines_file(parser: argparse.ArgumentParser) -> None:
    """``--engines-file FILE``: named engines, read by ``engines_file.known_engines``."""
    parser.add_argument("--engines-file", metavar="FILE", help=ENGINES_FILE_HELP)


def spec_help() -> str:
    """What a SPEC may be (built-in, engines-file name, command line), for ``--engine``'s help."""
    from .specs import BUILTIN_ENGINES

    builtins = ", ".join(name for name in BUILTIN_ENGINES if "-" not in name)
    return (
        f"a built-in engine ({builtins}), a name from the engines file (sjeng, "
        "fairy-stockfish...), or a command line, optionally prefixed uci: or xboard:"
    )


def add_seat_engine(parser: argparse.ArgumentParser, *, default: str, note: str = "") -> None:
    """``--engine SEAT=SPEC`` (repeatable): who plays a seat."""
    parser.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="SEAT=SPEC",
        help="who plays a seat (A-white, A-black, B-white, B-black or WA, BA, WB, BB): "
        f"{spec_help()} (repeatable; default {default}){note}",
    )


def add_out(parser: argparse.ArgumentParser, *, metavar: str = "FILE", help: str) -> None:
    """``--out``; read it with ``out_text``, which refuses an empty name."""
    parser.add_argument("--out", metavar=metavar, help=help)


def out_text(args: argparse.Namespace, option: str = "--out") -> str | None:
    """``--out``'s text, None when it was left out; an empty name (``--out ""``)
    is refused: it is not the default (which is what leaving the option out
    gives), nor the folder ``.``."""
    text: str | None = getattr(args, option.removeprefix("--").replace("-", "_"), None)
    if text is not None and not text:
        raise ConfigError(f"{option} is empty: give a name, or omit {option} for the default")
    return text
