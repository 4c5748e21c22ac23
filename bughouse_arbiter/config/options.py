"""The options several commands share, each defined once, and their readers.

An ``add_*`` function adds one option (its name, metavar, default and help)
to a command's parser; the reader next to it turns the parsed text into a
value, raising a ``UsageError`` subclass (one line, exit status 2) on a bad
one. ``house_rules`` is the one way from ``--rule`` and ``--tc`` to the
``HouseRules`` of a game, for every command. ``targeted`` reads every
``NAME.KEY=VALUE`` (``match --option``, ``tournament --set/--option``), and
``settings_of`` a tournament's engine settings.

Imported while a command's parser is built, so it imports neither trio nor
chess: ``core.rules`` (which brings chess) and ``config.specs`` are imported
by the functions that need them.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from ..core.rules import HouseRules
    from .specs import EngineSpec

#: ``--engines-file`` in every command's ``--help``: the format in one sentence.
ENGINES_FILE_HELP = (
    "a TOML file of named engines, one [engines.NAME] table each with protocol "
    '("native", "uci", "xboard" or "tcs"), command (a list, or a string split like a shell), '
    "and optional cwd (working folder), options (a table NAME = VALUE, set after the "
    "handshake; one the engine does not declare fails its start), init (lines sent "
    "after the handshake) and movetime (ms), depth and nodes (limits on every move); "
    "later files win over "
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
        "fairy-stockfish...), or a command line, optionally prefixed uci:, xboard: or "
        "tcs: (tinyChessServer's dialect; a {ws} in it makes it a WebSocket client)"
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


def port_number(option: str, text: str) -> int:
    """A ``--port``-style value: 0 (a free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a number, not {text!r}") from None
    if not 0 <= port < 65536:
        raise ConfigError(f"{option} {port} is out of range")
    return port


def targeted(text: str, flag: str, form: str) -> tuple[str, str, str]:
    """Reads ``NAME.KEY=VALUE`` (``match --option WA.Hash=64``, ``tournament
    --set sf.depth=8``): the target NAME, the KEY after its first dot, and
    the VALUE, each stripped. ``form`` says the expected form in the errors.

    Raises:
        ConfigError: not that form, an empty NAME or KEY, or a line break.
    """
    target, equals, value = text.partition("=")
    name, dot, key = target.partition(".")
    if not equals or not dot:
        raise ConfigError(f"{flag} {text!r} is not {form}")
    name, key, value = name.strip(), key.strip(), value.strip()
    if not name:
        raise ConfigError(f"{flag} {text!r}: no NAME before the dot ({form})")
    if not key:
        raise ConfigError(f"{flag} {text!r}: the option has no name ({form})")
    if any(c in key + value for c in "\r\n\0"):
        raise ConfigError(f"{flag} {text!r}: a name or value cannot hold a line break")
    return name, key, value


#: The limits a setting may give (``EngineSpec`` fields, ``SearchLimits``).
LIMIT_KEYS = ("movetime", "depth", "nodes")
#: What a SETTING of ``--each`` / ``--set`` is.
SETTING_FORM = "option.NAME=VALUE, movetime=MS, depth=N or nodes=N"
#: Why a time control cannot be one engine's.
NO_TC_PER_ENGINE = (
    "a time control per engine cannot be played: the four seats' clocks run "
    "under one time control (the rules' time and increment, and BPGN's one "
    "[TimeControl]), so --tc (or --each tc=BASE+INC) sets every engine's"
)


def engine_setting(key: str, value: str, flag: str, text: str) -> tuple[str, str]:
    """One SETTING's ``(key, value)``: ``option.NAME`` with any value, or a
    limit with a whole number above 0 (kept as its digits); ``tc`` with
    ``flag`` ``--each`` only (the caller reads it as ``--tc``). ``text`` is
    the setting as given, for the errors.

    Raises:
        ConfigError: an unknown key, a limit that is not a whole number above
            0, an option with no name, or ``tc`` for one engine.
    """
    head, dot, name = key.partition(".")
    if head == "option" and dot:
        if not name.strip():
            raise ConfigError(f"{flag} {text!r}: the option has no name")
        return f"option.{name.strip()}", value
    if key == "tc":
        if flag != "--each":
            raise ConfigError(f"{flag} {text!r}: {NO_TC_PER_ENGINE}")
        return key, value
    if key in LIMIT_KEYS:
        if not value.isdecimal() or int(value) <= 0:
            raise ConfigError(f"{flag} {text!r}: {key} must be a whole number above 0")
        return key, str(int(value))
    raise ConfigError(f"{flag} {text!r}: unknown setting {key!r} (one of {SETTING_FORM})")


def settings_of(
    each: Sequence[str], sets: Sequence[str], options: Sequence[str], names: Sequence[str]
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The settings of ``--each KEY=VALUE`` (for every engine) and ``--set
    NAME.KEY=VALUE`` / ``--option NAME.OPT=VALUE`` (``--set
    NAME.option.OPT=VALUE``) for each of ``names``: ``(every, by_name)``,
    keys as ``engine_setting`` gives them.

    Raises:
        ConfigError: a setting that does not read, a NAME not in ``names``,
            or one key given two values for the same engines.
    """
    every: dict[str, str] = {}
    given: dict[tuple[str, str], str] = {}
    for text in each:
        key, equals, value = text.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"--each {text!r} is not KEY=VALUE ({SETTING_FORM}, or tc=BASE+INC)")
        if any(c in text for c in "\r\n\0"):
            raise ConfigError(f"--each {text!r}: a name or value cannot hold a line break")
        key, value = engine_setting(key.strip(), value.strip(), "--each", text)
        _once(every, given, ("", key), value, f"--each {text!r}")
    by_name: dict[str, dict[str, str]] = {}
    flagged = [("--set", t) for t in sets] + [("--option", t) for t in options]
    for flag, text in flagged:
        form = (
            "NAME.OPT=VALUE (for example 'sf.Skill Level=3')"
            if flag == "--option"
            else f"NAME.KEY=VALUE (KEY=VALUE: {SETTING_FORM})"
        )
        name, key, value = targeted(text, flag, form)
        if name not in names:
            raise ConfigError(
                f"{flag} {text!r}: no participant {name!r} (those are: {', '.join(names)})"
            )
        key, value = engine_setting(
            f"option.{key}" if flag == "--option" else key, value, flag, text
        )
        _once(by_name.setdefault(name, {}), given, (name, key), value, f"{flag} {text!r}")
    return every, by_name


def _once(
    chosen: dict[str, str],
    given: dict[tuple[str, str], str],
    slot: tuple[str, str],
    value: str,
    said: str,
) -> None:
    """Sets ``chosen[key]``, refusing a second, other value for the same slot."""
    key = slot[1]
    if key in chosen and chosen[key] != value:
        raise ConfigError(f"{said}: {key} is already set to {chosen[key]!r} by {given[slot]}")
    chosen[key] = value
    given[slot] = said


def with_settings(spec: EngineSpec, settings: Mapping[str, str]) -> EngineSpec:
    """``spec`` with ``settings`` (``settings_of``'s keys; ``tc`` is not a spec's)."""
    import attrs

    options = {k[len("option.") :]: v for k, v in settings.items() if k.startswith("option.")}

    def limit(key: str, now: int | None) -> int | None:
        return int(settings[key]) if key in settings else now

    return attrs.evolve(
        spec.with_options(**options),
        movetime=limit("movetime", spec.movetime),
        depth=limit("depth", spec.depth),
        nodes=limit("nodes", spec.nodes),
    )
