"""House rules: one frozen value holding every option of docs/rules.md.

A rules value is written into every game file (``to_pairs``) and read back
from it (``from_pairs``), so a replay judges a game by the rules it was played
under. Named profiles bundle options; ``parse_rule`` reads ``NAME=VALUE``.
A frozen dataclass (not attrs: see ``core.game``); ``dataclasses.replace``
makes a changed copy, checked like a new one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Literal

from ..errors import RuleError
from .model import Seat, Team

StalemateRule = Literal["wait", "draw"]
DropCheckRule = Literal["allowed", "no-check", "no-mate"]
RepetitionRule = Literal["none", "threefold"]
BoardEndRule = Literal["match", "continue"]
IllegalMoveRule = Literal["lose", "reject"]
LeaverRule = Literal["lose", "computer"]
DrawRule = Literal["humans", "both-teams"]


_CHOICES: dict[str, tuple[str, ...]] = {
    "stalemate": ("wait", "draw"),
    "drop_check": ("allowed", "no-check", "no-mate"),
    "repetition": ("none", "threefold"),
    "board_end": ("match", "continue"),
    "illegal_move": ("lose", "reject"),
    "leaver": ("lose", "computer"),
    "draw": ("humans", "both-teams"),
}


def _positive(name: str, value: float) -> None:
    if not value > 0:
        raise RuleError(f"rule {name} must be > 0, not {value!r}")


def _positive_or_none(name: str, value: float | None) -> None:
    if value is not None and not value > 0:
        raise RuleError(f"rule {name} must be > 0 or none, not {value!r}")


def _not_negative(name: str, value: float) -> None:
    if not value >= 0:
        raise RuleError(f"rule {name} must be >= 0, not {value!r}")


def _one_of(name: str, value: str) -> None:
    choices = _CHOICES[name]
    if value not in choices:
        raise RuleError(f"rule {name} takes one of {', '.join(choices)}, not {value!r}")


#: Each checked option and its check, in field order (run on every new value,
#: ``dataclasses.replace`` included).
_CHECKS: tuple[tuple[str, Callable[[str, Any], None]], ...] = (
    ("time", _positive),
    ("increment", _not_negative),
    ("stalemate", _one_of),
    ("drop_check", _one_of),
    ("repetition", _one_of),
    ("board_end", _one_of),
    ("turn_time_limit", _positive_or_none),
    ("stalling", _not_negative),
    ("max_plies", _not_negative),
    ("illegal_move", _one_of),
    ("reconnect_grace", _not_negative),
    ("leaver", _one_of),
    ("draw", _one_of),
    ("time_margin", _not_negative),
)


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class HouseRules:
    """Every option in force for one match (docs/rules.md, "House rules").

    Times are in seconds. ``turn_time_limit`` None means no per-move limit;
    ``max_plies`` 0 means no ply cap. ``clock`` False is untimed play: no
    clocks run (``time``, ``increment`` and ``turn_time_limit`` do not apply)
    and the stalling rule does: a player to move that could move loses once
    its partner has made ``stalling`` moves meanwhile (0: never).
    ``reconnect_grace`` and ``leaver`` apply to seats played over the
    network (``bughouse serve``): how long a dropped seat may take to come
    back, and what happens if it does not (its team loses, or the computer
    takes the seat). ``draw`` says who must agree to a draw
    (``draw_agreement``): ``humans``, every person at the table (all four
    seats when nobody is one); ``both-teams``, also both seats of a team
    without a person, so that a person alone cannot draw against engines.

    ``time_margin`` is not a rule of the game but the arbiter's grace (seconds)
    past a clock's zero before the seat flags (``core.clock``; a tournament's
    ``--time-margin``). Like ``profile`` it has no pair in ``to_pairs``: the
    engines are not told it, and the tournament records it in each game's
    ``[TimeMargin]`` tag.
    """

    profile: str = "default"
    time: float = 180.0
    increment: float = 0.0
    clock: bool = True
    wait_for_block: bool = True
    stalemate: StalemateRule = "wait"
    dropped_pawn_double_step: bool = True
    dropped_rook_castles: bool = False
    drop_check: DropCheckRule = "allowed"
    repetition: RepetitionRule = "none"
    board_end: BoardEndRule = "match"
    turn_time_limit: float | None = None
    stalling: int = 3
    max_plies: int = 800
    illegal_move: IllegalMoveRule = "lose"
    reconnect_grace: float = 30.0
    leaver: LeaverRule = "lose"
    draw: DrawRule = "humans"
    time_margin: float = 0.0

    def __post_init__(self) -> None:
        for name, check in _CHECKS:
            check(name, getattr(self, name))

    def with_rule(self, name: str, value: str) -> HouseRules:
        """A copy with one option set from its text form (``on``, ``draw``, ``30``...)."""
        return apply_rules(self, [(name, value)])

    def to_pairs(self) -> list[tuple[str, str]]:
        """Every option as ``(name, text)``, in the order of docs/rules.md."""
        return [(name, _format_value(getattr(self, name))) for name in RULE_NAMES]

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> HouseRules:
        """Reads what ``to_pairs`` wrote; a ``profile`` pair is applied first.

        A profile name this version does not know (``custom``, or one from a
        newer version) is kept as a label when the pairs state every option,
        since they then say everything; otherwise it is a RuleError. Pairs
        without ``draw`` were written before that rule existed, when every
        table drew as ``draw=humans`` (the ``server`` profile included).
        """
        pairs = list(pairs)
        options = [(n, v) for n, v in pairs if n != "profile"]
        if not any(name == "draw" for name, _ in options):
            options.insert(0, ("draw", "humans"))
        base = cls()
        for name, value in pairs:
            if name != "profile":
                continue
            label = value.strip().lower()
            if label in PROFILES:
                base = PROFILES[label]
            elif set(RULE_NAMES) - _LATER <= {n for n, _ in options}:
                base = cls(profile=label)
            else:
                base = profile(value)  # raises, naming the known profiles
        return apply_rules(base, options, keep_profile=True)

    @property
    def differences(self) -> dict[str, str]:
        """The options that differ from the default profile, as text."""
        default = HouseRules()
        return {
            name: _format_value(getattr(self, name))
            for name in RULE_NAMES
            if getattr(self, name) != getattr(default, name)
        }


RULE_NAMES: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(HouseRules) if f.name not in ("profile", "time_margin")
)
# Rules added after game files were first written: a file may leave them out.
_LATER = frozenset({"clock", "stalling", "reconnect_grace", "leaver", "draw"})

#: The longest time or increment a rule takes, in seconds (a week): beyond
#: it, clocks and deadlines would lose their precision or overflow.
MAX_SECONDS = 7 * 24 * 3600.0

_SWITCHES = ("wait_for_block", "dropped_pawn_double_step", "dropped_rook_castles", "clock")
_ON = {"on", "true", "yes", "1"}
_OFF = {"off", "false", "no", "0"}

PROFILES: Mapping[str, HouseRules] = {
    "default": HouseRules(),
    # Seed 002's arena: a dropped pawn never double-steps.
    "arena": HouseRules(profile="arena", dropped_pawn_double_step=False),
    # Seed 004's club play: dropped corner rooks castle, threefold repetition draws.
    "club": HouseRules(profile="club", dropped_rook_castles=True, repetition="threefold"),
    # Seed 004's alternative: the other board plays on, boards are summed.
    "club-continue": HouseRules(
        profile="club-continue",
        dropped_rook_castles=True,
        repetition="threefold",
        board_end="continue",
    ),
    # The "no dropped checks" variant seed 004 mentions.
    "no-drop-check": HouseRules(profile="no-drop-check", drop_check="no-check"),
    # A server that refuses an illegal move instead of scoring it, where a
    # draw needs both teams (a person alone cannot draw against engines).
    "server": HouseRules(profile="server", illegal_move="reject", draw="both-teams"),
}


def draw_agreement(rules: HouseRules, human_seats: Collection[Seat]) -> frozenset[Seat]:
    """The seats that must offer (or accept) a draw for it to be agreed.

    ``draw=humans``: every seat held by a person, or all four when nobody is
    one (seed 000: "only by agreement of all the human players").
    ``draw=both-teams``: every person's seat, and both seats of each team
    that has no person at the table, whose engines must accept.
    """
    people = frozenset(human_seats)
    if rules.draw == "humans" or not people:
        return people or frozenset(Seat)
    needed = set(people)
    for team in Team:
        if not people & set(team.seats):
            needed.update(team.seats)
    return frozenset(needed)


def to_pairs(rules: HouseRules) -> list[tuple[str, str]]:
    """``("profile", name)`` then every option as text: what a game header records."""
    return [("profile", rules.profile), *rules.to_pairs()]


def from_pairs(pairs: Iterable[tuple[str, str]]) -> HouseRules:
    """Reads what ``to_pairs`` wrote (see ``HouseRules.from_pairs``)."""
    return HouseRules.from_pairs(pairs)


def profile(name: str) -> HouseRules:
    """The named profile, or RuleError listing the known names."""
    try:
        return PROFILES[name.strip().lower()]
    except KeyError:
        known = ", ".join(PROFILES)
        raise RuleError(f"unknown rules profile {name!r} (known: {known})") from None


def parse_rule(text: str) -> tuple[str, str]:
    """Splits ``NAME=VALUE``; the name may use ``-`` for ``_``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise RuleError(f"rule {text!r} is not NAME=VALUE (for example wait_for_block=off)")
    return name.strip().lower().replace("-", "_"), value.strip()


def apply_rules(
    base: HouseRules, pairs: Iterable[tuple[str, str]], *, keep_profile: bool = False
) -> HouseRules:
    """``base`` with each ``(name, value)`` applied in order.

    ``profile=NAME`` resets to that profile. Any other change renames the
    profile to ``custom`` unless ``keep_profile`` (used when reading a file
    that states both its profile and every option).
    """
    rules = base
    for name, value in pairs:
        if name == "profile":
            rules = profile(value)
            continue
        changes = {name: _parse_value(name, value)}
        if not keep_profile and getattr(rules, name) != changes[name]:
            changes["profile"] = "custom"
        rules = dataclasses.replace(rules, **changes)
    return rules


def _parse_value(name: str, value: str) -> Any:
    text = value.strip().lower()
    if name in _SWITCHES:
        if text in _ON:
            return True
        if text in _OFF:
            return False
        raise RuleError(f"rule {name} takes on or off, not {value!r}")
    if name in _CHOICES:
        if text in _CHOICES[name]:
            return text
        raise RuleError(f"rule {name} takes one of {', '.join(_CHOICES[name])}, not {value!r}")
    if name in ("time", "increment", "reconnect_grace"):
        return _parse_seconds(name, text, allow_zero=name != "time")
    if name == "turn_time_limit":
        if text in ("none", "off", "0"):
            return None
        return _parse_seconds(name, text, allow_zero=False)
    if name in ("max_plies", "stalling"):
        if text in ("none", "off"):
            return 0
        try:
            plies = int(text)
        except ValueError:
            raise RuleError(f"rule {name} takes a whole number, not {value!r}") from None
        if plies < 0:
            raise RuleError(f"rule {name} cannot be negative")
        return plies
    known = ", ".join(("profile", *RULE_NAMES))
    raise RuleError(f"unknown rule {name!r} (known: {known})")


def _parse_seconds(name: str, text: str, *, allow_zero: bool) -> float:
    try:
        seconds = float(text.removesuffix("s"))
    except ValueError:
        raise RuleError(f"rule {name} takes seconds, not {text!r}") from None
    if not seconds == seconds or seconds in (float("inf"), float("-inf")):
        raise RuleError(f"rule {name} takes a finite number of seconds")
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise RuleError(f"rule {name} must be {'>= 0' if allow_zero else '> 0'} seconds")
    if seconds > MAX_SECONDS:
        raise RuleError(f"rule {name} takes at most {MAX_SECONDS:g} seconds (a week)")
    return seconds


def _format_value(value: object) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    if value is None:
        return "none"
    if isinstance(value, float):
        # Whole seconds without ".0"; anything else exactly (repr round-trips).
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
