"""What a match is made of: time control, engine specs, who sits where.

Pure: parsing and values only. Nothing here starts a process or reads a file;
``players/factory.py`` turns an ``EngineSpec`` into a running player.

An engine spec on the command line (``--engine SEAT=SPEC``) is one of:

- a built-in name: ``searcher``, ``random`` (and the fault engines used by
  the tests, ``faulty-crash`` ...), run as ``[python, engines/<file>.py]``;
- a name from ``known`` (the hook for an engines file: a mapping of names to
  specs that the caller loaded, e.g. from TOML);
- a command line, split as a shell would (``shlex``) but never run through
  one, optionally prefixed by its protocol: ``uci:/usr/games/fairy-stockfish``,
  ``xboard:sjeng``, ``native:./my-engine --fast``, ``tcs:python3 -u run.py``
  (tinyChessServer's dialect; a ``{ws}`` in the command makes it a WebSocket
  client of an endpoint served for its seat), ``team-uci:./hivemind`` (one
  process for both seats of a team, hivemind's dialect, only with ``--team``).
  Without a prefix the command speaks our own protocol (``protocol.md``).

``--team TEAM=SPEC`` seats one native or team-UCI engine at both seats of a
team (team mode, protocol.md §7): team 1 is A-White + B-Black, team 2
A-Black + B-White.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import attrs

from ..core.model import SEATS, Seat, Team
from ..core.rules import MAX_SECONDS
from ..errors import ConfigError
from .options import targeted

Protocol = Literal["native", "uci", "xboard", "tcs", "team-uci"]
PROTOCOLS: tuple[Protocol, ...] = ("native", "uci", "xboard", "tcs", "team-uci")
#: The protocols one process speaks for both seats of a team.
TEAM_PROTOCOLS: tuple[Protocol, ...] = ("native", "team-uci")
#: The protocols that hold only a whole team, never one seat.
TEAM_ONLY: tuple[Protocol, ...] = ("team-uci",)


def _engines_dir() -> Path:
    """The project's own engines: ``bughouse_arbiter/engines`` in an installed
    wheel, else ``engines/`` beside the package (a source tree or editable install)."""
    package = Path(__file__).resolve().parents[1]
    shipped = package / "engines"
    return shipped if (shipped / "searcher.py").is_file() else package.parent / "engines"


#: Where the project's own engines live (see ``_engines_dir``).
ENGINES_DIR = _engines_dir()

#: Fault modes of ``engines/faulty.py`` (built-in names ``faulty-<mode>``).
FAULT_MODES: tuple[str, ...] = (
    "crash",
    "hang",
    "freeze",
    "garbage",
    "flood",
    "illegal",
    "slow-start",
    "stale",
    "ignore-quit",
    "close-pipe",
)

#: Built-in engine names and the script (plus arguments) each runs.
BUILTIN_ENGINES: Mapping[str, tuple[str, ...]] = {
    "searcher": ("searcher.py",),
    "random": ("random_mover.py",),
    **{f"faulty-{mode}": ("faulty.py", mode) for mode in FAULT_MODES},
}

DEFAULT_ENGINE = "searcher"


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error line, cut when long."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


@attrs.frozen
class TimeControl:
    """``base`` seconds per player plus ``increment`` seconds per move;
    ``base`` None is untimed play (``--tc none``)."""

    base: float | None
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Reads ``BASE+INC`` or ``BASE`` in seconds (``180+2``, ``10``, ``0.5+0.1``),
        or ``none`` for untimed play.

        Raises:
            ConfigError: not that form, a base that is not positive, a
                negative increment, or a number that is not finite or
                above ``MAX_SECONDS`` (a week).
        """
        if text.strip().lower() in ("none", "untimed"):
            return cls(None)
        base_text, plus, inc_text = text.strip().partition("+")
        try:
            base = float(base_text)
            increment = float(inc_text) if plus else 0.0
        except ValueError:
            raise ConfigError(
                f"time control {_shown(text)} is not BASE+INC in seconds "
                "(for example 180+2 or 10+0) or none"
            ) from None
        if not all(abs(v) < float("inf") for v in (base, increment)):
            raise ConfigError(f"time control {_shown(text)} must use finite numbers")
        if not base > 0:
            raise ConfigError(f"time control {_shown(text)}: the base time must be above 0 seconds")
        if not increment >= 0:
            raise ConfigError(f"time control {_shown(text)}: the increment cannot be negative")
        if base > MAX_SECONDS or increment > MAX_SECONDS:
            raise ConfigError(
                f"time control {_shown(text)}: at most {MAX_SECONDS:g} seconds (a week) "
                "for the base and for the increment"
            )
        return cls(base, increment)

    def __str__(self) -> str:
        if self.base is None:
            return "none"
        return f"{self.base:g}+{self.increment:g}"

    def rule_pairs(self) -> list[tuple[str, str]]:
        """The house rules this time control sets (``clock=off`` when untimed)."""
        if self.base is None:
            return [("clock", "off")]
        return [("clock", "on"), ("time", f"{self.base!r}"), ("increment", f"{self.increment!r}")]


#: ms per move in untimed play when an engine's spec gives no limit at all.
UNTIMED_MOVETIME = 1000


@attrs.frozen(kw_only=True)
class SearchLimits:
    """How long, how deep or how far an engine searches each move (None: no bound).

    In timed play they go with the clock words (an engine stops at whichever
    ends first); in untimed play they replace the clock, and an engine with
    none of them thinks ``UNTIMED_MOVETIME`` ms a move (``for_play``).
    """

    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None

    def __bool__(self) -> bool:
        return not (self.movetime is None and self.depth is None and self.nodes is None)

    def for_play(self, clock: bool) -> SearchLimits:
        """The limits a ``go`` carries: these, or ``UNTIMED_MOVETIME`` untimed with none."""
        if clock or self:
            return self
        return SearchLimits(movetime=UNTIMED_MOVETIME)


#: No bound at all (the default of every player and adapter).
NO_LIMITS = SearchLimits()


@attrs.frozen(kw_only=True)
class EngineSpec:
    """How to start one engine.

    ``name`` is how the match calls it (until the engine tells its own).
    ``command`` is the argv, run without a shell, in ``cwd`` (None: the
    current folder). ``options`` are set before the first game (``setoption``
    in our protocol and UCI); ``init`` lines are sent verbatim after the
    handshake (for engines that need a private command). ``movetime`` (ms),
    ``depth`` and ``nodes`` bound each move (``SearchLimits``): beside the
    clock in timed play, instead of it in untimed play (``--tc none``).
    """

    name: str
    command: tuple[str, ...]
    protocol: Protocol = "native"
    cwd: str | None = None
    options: Mapping[str, str] = attrs.field(factory=dict)
    init: tuple[str, ...] = ()
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None

    @property
    def limits(self) -> SearchLimits:
        return SearchLimits(movetime=self.movetime, depth=self.depth, nodes=self.nodes)

    def with_options(self, **options: str) -> EngineSpec:
        return attrs.evolve(self, options={**self.options, **options})


def builtin_engine(name: str) -> EngineSpec:
    """The spec of a built-in engine (``searcher``, ``random``, ``faulty-hang``...)."""
    try:
        script, *args = BUILTIN_ENGINES[name]
    except KeyError:
        known = ", ".join(BUILTIN_ENGINES)
        raise ConfigError(f"unknown built-in engine {name!r} (known: {known})") from None
    return EngineSpec(name=name, command=(sys.executable, str(ENGINES_DIR / script), *args))


def engine_spec(text: str, known: Mapping[str, EngineSpec] | None = None) -> EngineSpec:
    """Reads one SPEC: a built-in name, a name in ``known``, or a command line.

    Raises:
        ConfigError: an empty spec, unbalanced quotes, or an unknown protocol.
    """
    spec = text.strip()
    if not spec:
        raise ConfigError("an engine spec cannot be empty (a built-in name or a command line)")
    if known and spec in known:
        return known[spec]
    if spec in BUILTIN_ENGINES:
        return builtin_engine(spec)
    protocol: Protocol = "native"
    head, colon, rest = spec.partition(":")
    if colon and head in PROTOCOLS:
        protocol = head
        spec = rest.strip()
    try:
        argv = tuple(shlex.split(spec))
    except ValueError as exc:
        raise ConfigError(f"engine command {text!r} cannot be split: {exc}") from None
    if not argv:
        raise ConfigError(f"engine spec {text!r} has no command")
    return EngineSpec(name=Path(argv[0]).name, command=argv, protocol=protocol)


def seat_assignment(
    text: str, known: Mapping[str, EngineSpec] | None = None
) -> tuple[Seat, EngineSpec]:
    """Reads ``SEAT=SPEC``: ``A-white=random``, ``WB=uci:fairy-stockfish``."""
    seat_text, equals, spec = text.partition("=")
    if not equals:
        raise ConfigError(f"engine {text!r} is not SEAT=SPEC (for example A-white=random)")
    try:
        seat = Seat.parse(seat_text)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    engine = engine_spec(spec, known)
    if engine.protocol in TEAM_ONLY:
        raise ConfigError(
            f"seat {seat}: engine {engine.name!r} speaks {engine.protocol}, which holds both "
            f"seats of a team (match and tournament: --team {seat.team.value}={spec.strip()})"
        )
    return seat, engine


def team_assignment(
    text: str, known: Mapping[str, EngineSpec] | None = None
) -> tuple[Team, EngineSpec]:
    """Reads ``TEAM=SPEC`` (``1=random``, ``2=team-uci:./hivemind``): one
    native or team-UCI engine for both seats of a team.

    Raises:
        ConfigError: not that form, a team other than 1 or 2, a bad spec, or a
            UCI, xboard or tcs spec (those protocols hold one seat per process).
    """
    team_text, equals, spec_text = text.partition("=")
    if not equals:
        raise ConfigError(
            f"team {text!r} is not TEAM=SPEC (for example 1=random; "
            "team 1 is A-White + B-Black, team 2 A-Black + B-White)"
        )
    try:
        team = Team(int(team_text.strip()))
    except ValueError:
        raise ConfigError(
            f"unknown team {team_text!r} (1 is A-White + B-Black, 2 is A-Black + B-White)"
        ) from None
    spec = engine_spec(spec_text, known)
    check_team_spec(spec, f"team {team.value}")
    return team, spec


def check_team_spec(spec: EngineSpec, where: str) -> None:
    """Raises ConfigError unless ``spec``'s protocol can hold both seats of a team."""
    if spec.protocol not in TEAM_PROTOCOLS:
        raise ConfigError(
            f"{where}: engine {spec.name!r} speaks {spec.protocol}; only a native or "
            "team-uci engine can hold both seats of a team"
        )


def team_engines(
    assignments: Sequence[str], known: Mapping[str, EngineSpec] | None = None
) -> dict[Team, EngineSpec]:
    """The teams held by one engine each, from ``TEAM=SPEC`` texts.

    Raises:
        ConfigError: a bad assignment, or one team given twice.
    """
    chosen: dict[Team, EngineSpec] = {}
    for text in assignments:
        team, spec = team_assignment(text, known)
        if team in chosen:
            raise ConfigError(f"team {team.value} is given an engine twice")
        chosen[team] = spec
    return chosen


def seat_engines(
    assignments: Sequence[str],
    *,
    default: str = DEFAULT_ENGINE,
    known: Mapping[str, EngineSpec] | None = None,
    teams: Mapping[Team, EngineSpec] | None = None,
) -> dict[Seat, EngineSpec]:
    """Every seat's engine: the ``SEAT=SPEC`` texts, the ``teams`` engine at
    both seats of its team, ``default`` for the rest.

    Raises:
        ConfigError: a bad assignment, one seat given twice, or a seat of a
            team that ``teams`` already gives to one engine.
    """
    teams = teams or {}
    chosen: dict[Seat, EngineSpec] = {}
    for text in assignments:
        seat, spec = seat_assignment(text, known)
        if seat in chosen:
            raise ConfigError(f"seat {seat} is given an engine twice")
        if seat.team in teams:
            raise ConfigError(
                f"seat {seat} belongs to team {seat.team.value}, "
                f"which --team already gives to {teams[seat.team].name!r}"
            )
        chosen[seat] = spec
    for team, spec in teams.items():
        chosen.update(dict.fromkeys(team.seats, spec))
    return {seat: chosen.get(seat) or engine_spec(default, known) for seat in SEATS}


def rotated_seat(seat: Seat, game_index: int) -> Seat:
    """Where the player who sits at ``seat`` in game 0 sits in game ``game_index``.

    Partners stay partners: odd games swap colours on both boards, games 2
    and 3 (mod 4) swap the boards, so in four games everyone plays every seat.
    """
    board = seat.board.other if game_index % 4 >= 2 else seat.board
    color = (not seat.color) if game_index % 2 else seat.color
    return Seat.of(board, color)


def rotate(engines: Mapping[Seat, EngineSpec], game_index: int) -> dict[Seat, EngineSpec]:
    """The seating of game ``game_index`` (from 0) for the game-0 seating ``engines``."""
    return {rotated_seat(seat, game_index): spec for seat, spec in engines.items()}


def rotated_team(team: Team, game_index: int) -> Team:
    """The team whose seats the game-0 ``team`` holds in game ``game_index``."""
    return rotated_seat(team.seats[0], game_index).team


#: The largest ``Seed`` the built-in engines declare (``option name Seed ... max``).
SEED_MAX = 2**31 - 1


def seeded(spec: EngineSpec, seed: int | None, game_index: int, seat: Seat) -> EngineSpec:
    """``spec`` with the ``Seed`` option of game ``game_index`` at ``seat``, if it is a
    built-in engine and ``seed`` is set: four seeds a game, one per seat, never repeated."""
    base = game_seed(seed, game_index)
    if base is None or spec.name not in BUILTIN_ENGINES:
        return spec
    value = base + SEATS.index(seat)
    if not 0 <= value <= SEED_MAX:
        # Into the range the built-ins declare (a seed out of it fails their
        # start); never to 0, which means a fresh random seed.
        value = value % SEED_MAX + 1
    return spec.with_options(Seed=str(value))


def game_seed(seed: int | None, game_index: int) -> int | None:
    """The seed of game ``game_index`` of a run seeded ``seed`` (its seats add 0-3)."""
    return None if seed is None else seed + 4 * game_index


#: What ``--option`` says, for its help text and error messages.
OPTION_FORM = "SEAT.NAME=VALUE (for example WA.Hash=64 or B-black.Threads=1)"


def seat_option(text: str) -> tuple[Seat, str, str]:
    """Reads ``SEAT.NAME=VALUE``: an engine option for the engine at SEAT.

    Raises:
        ConfigError: not that form, an unknown seat, an empty name, or a line break.
    """
    seat_text, name, value = targeted(text, "--option", OPTION_FORM)
    try:
        seat = Seat.parse(seat_text)
    except ValueError as exc:
        raise ConfigError(f"--option {text!r}: {exc}") from None
    return seat, name, value


def with_seat_options(
    engines: Mapping[Seat, EngineSpec],
    texts: Sequence[str],
    *,
    teams: Mapping[Team, EngineSpec] | None = None,
) -> tuple[dict[Seat, EngineSpec], dict[Team, EngineSpec]]:
    """``engines`` (and ``teams``) with the ``SEAT.NAME=VALUE`` options added.

    An option for a seat held by a team engine goes to that engine.

    Raises:
        ConfigError: a bad option, a seat no engine holds, or one option
            given two values for the same engine.
    """
    seats = dict(engines)
    team_specs = dict(teams or {})
    given: dict[tuple[object, str], tuple[str, str]] = {}
    for text in texts:
        seat, name, value = seat_option(text)
        if seat not in seats:
            raise ConfigError(f"--option {text!r}: no engine sits at {seat}")
        owner: object = seat.team if seat.team in team_specs else seat
        previous = given.get((owner, name))
        if previous is not None and previous[1] != value:
            raise ConfigError(
                f"--option {text!r}: {name} is already set to {previous[1]!r} "
                f"by --option {previous[0]!r}"
            )
        given[(owner, name)] = (text, value)
        if seat.team in team_specs:
            spec = team_specs[seat.team].with_options(**{name: value})
            team_specs[seat.team] = spec
            seats.update(dict.fromkeys(seat.team.seats, spec))
        else:
            seats[seat] = seats[seat].with_options(**{name: value})
    return seats, team_specs
