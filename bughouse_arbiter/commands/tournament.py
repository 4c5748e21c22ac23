"""``bughouse tournament``: many games between engines, with Elo, SPRT and resume.

Participants are teams: ``--engine NAME=SPEC`` is two instances of one engine
(X+X), ``--team NAME=SPEC1+SPEC2`` a mixed team (a SPEC may be the NAME of an
``--engine``), ``--team NAME=team:SPEC`` one team-mode process for both seats
(a native engine, or a team engine: ``--team NAME=team-uci:CMD``).
``gauntlet`` plays the first participant against each other one,
``round-robin`` everyone against everyone. Each opening is played twice with
the teams swapped, and seats rotate so every side plays each colour on each
board equally. ``--concurrency K`` games run at once; engines stay alive
between games (restarted after a crash, which is counted). The folder
``--out DIR`` gets ``results.jsonl`` (one fsynced line per game),
``games.bpgn``, ``summary.json``, ``tournament.json`` and ``report.html``
(a page of the figures and plots, rewritten as games finish); Ctrl+C, SIGTERM or
SIGHUP loses at most the games in flight (exit status 130, 143, 129), and
``--resume DIR`` continues (one driver at a time: the folder is locked),
with the engines recorded when the run started; ``--resume DIR --games N``
plays a run on to N games, ``--readmit NAME`` brings back a dropped
participant. A participant that fails before completing any game stops the
run (exit 1) unless ``--recover`` scores such failures as losses. With
``--sprt elo0=0,elo1=5`` (two participants) the run stops once the SPRT
(GSPRT on the pentanomial counts) has decided.
``--each KEY=VALUE`` sets every engine's option (``option.Hash=16``) or
limit (``movetime=MS``, ``depth=N``, ``nodes=N``), ``--set NAME.KEY=VALUE``
and ``--option NAME.OPT=VALUE`` one participant's; they are recorded with
the participants. An option an engine does not declare stops the run with
one line. ``--debug DIR`` keeps each game's protocol logs.
``--concurrency`` above what the cores bear (two thinking engines a game)
is refused unless ``--force-concurrency``; ``--use-affinity`` pins each
game's engines to two cores, ``--time-margin MS`` gives every clock a grace
past zero, and a run whose games were lost on time more than the harness
explains says so. ``--wait``, ``--noswap``, ``--reverse``, ``--start-timeout``,
``--ping-timeout``, ``--tag``, ``--game-files`` and ``--final-positions`` are
as fastchess's (docs/tournament.md compares the two).
Formats, statistics and files: docs/tournament.md. ``--ray ADDRESS`` (or
``--ray local``) plays the games on a cluster instead, one Ray actor per
game slot keeping its engines from game to game (``pip install
'bughouse-arbiter[ray]'``; see docs/distributed.md); everything else is the
same.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import attrs
import trio

from ..bpgn.notation import SEAT_TAGS
from ..config.engines_file import known_engines
from ..config.options import (
    SETTING_FORM,
    add_engines_file,
    add_out,
    add_rule,
    add_tc,
    house_rules,
    out_text,
    settings_of,
    spec_help,
)
from ..config.specs import TEAM_ONLY, check_team_spec, engine_spec
from ..environment import Environment, OutputGone
from ..errors import ConfigError, UsageError
from ..exits import FAILED, INCOMPLETE, OK, USAGE
from ..players.factory import check_command
from ..players.process import live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..table.stopping import exit_status, stop_on_signals
from ..tournament import conditions, journal, lock, roster
from ..tournament.display import (
    SEPARATOR,
    WIDTH,
    Remaining,
    elo_text,
    eta_text,
    fit,
    nelo_text,
    pairing_status,
    percent,
    plural,
    signed,
    status_lines,
)
from ..tournament.engine_options import refused_options
from ..tournament.extension import extended
from ..tournament.failures import COLUMNS
from ..tournament.jobs import MatchJob, MatchReport
from ..tournament.machine import ClockCounts, concurrency_check, table_cpus, usable_cpus
from ..tournament.openings import (
    DEFAULT_PLIES,
    FORMATS,
    ORDERS,
    BookChoice,
    BookIdentity,
    book_identity,
    load_book,
    ordered,
)
from ..tournament.report_file import ReportFile, ReportShown
from ..tournament.runner import Tournament, TournamentPlan
from ..tournament.schedule import Participant, schedule
from ..tournament.scheduler import LocalScheduler, Scheduler, TableSettings
from ..tournament.stats import Pentanomial, Sprt, Summary
from ..ui.safe_text import printable
from . import SUMMARIES

if TYPE_CHECKING:
    from ..tournament.ray_backend import RayScheduler

DEFAULT_TC = "10+0"
#: Games per pairing when an SPRT decides when to stop.
SPRT_GAMES = 20000
#: The options that define a tournament (saved for ``--resume``).
_SAVED = (
    "order",
    "engine",
    "team",
    "format",
    "games",
    "rounds",
    "tc",
    "time_margin",
    "rule",
    "engines_file",
    "openings",
    "openings_format",
    "opening_plies",
    "opening_order",
    "opening_start",
    "noswap",
    "reverse",
    "seed",
    "tag",
    "game_files",
    "final_positions",
    "sprt",
    "max_failures",
    "event",
    "each",
    "set",
    "option",
)


#: Saved options a --resume may give again to play more games per pairing.
_GROWING = ("order", "games", "rounds")
#: The games per pairing of a tournament --resume extended (beside its first ``games``).
_EXTENDED = "extended_games"

#: The participants as recorded (``tournament/roster.py``): a resume plays those.
_PARTICIPANTS = "participants"
#: The CRC-32 of the book the run started with (a resume warns if it changed).
_BOOK_CRC = "book_crc32"
#: Participants brought back by --readmit, with their game counts then.
_READMITTED = "readmitted"

#: The parser's defaults of the saved options (an option given with --resume is refused).
_DEFAULTS: dict[str, object] = {}
#: The choices of the saved options that have some.
_CHOICES: dict[str, tuple[str, ...]] = {}


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "tournament",
        help=SUMMARIES["tournament"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add(
        "--engine",
        action=_InOrder,
        default=[],
        metavar="NAME=SPEC",
        help=f"a participant: two instances of SPEC, {spec_help()} (repeatable)",
    )
    add(
        "--team",
        action=_InOrder,
        default=[],
        metavar="NAME=SPEC1+SPEC2|NAME=team:SPEC|NAME=team-uci:CMD",
        help="a mixed team, or one team-mode engine holding both seats (repeatable)",
    )
    _add_engine_settings(add)
    add(
        "--format",
        choices=("gauntlet", "round-robin"),
        default="gauntlet",
        help="gauntlet: the first participant against each other one (default); "
        "round-robin: everyone against everyone",
    )
    add(
        "--games",
        metavar="N",
        help=f"games per pairing, an even number: each opening is played twice, the teams "
        f"swapped (default 2; with --sprt, up to {SPRT_GAMES}); with --resume, more games "
        "for a run (its first games as they were, the new ones after them)",
    )
    add("--rounds", metavar="R", help="opening pairs per pairing (2R games; instead of --games)")
    add_tc(parser, default=DEFAULT_TC)
    add(
        "--time-margin",
        metavar="MS",
        help="milliseconds past zero before a clock's flag counts, for all four seats "
        "(cutechess's timemargin; default 0); a move within it leaves that clock at 0 plus "
        "the increment; recorded in each game's [TimeMargin] tag",
    )
    add_rule(parser)
    add_engines_file(parser)
    add(
        "--openings",
        metavar="FILE",
        help="opening book: BPGN (each game's first --opening-plies plies), PGN (chess games, "
        "played on both boards), EPD or FEN lines ('POS' for both boards, 'FEN_A | FEN_B'); "
        "default: move sequences from the project's corpus",
    )
    add(
        "--openings-format",
        choices=FORMATS,
        default="auto",
        help="how --openings is read: bpgn, pgn, fen, epd, or auto (default): by the suffix "
        "(.bpgn, .pgn, .fen, .epd), else by the content (games with board letters such as "
        "1A. are BPGN, other games PGN, anything else positions)",
    )
    add(
        "--opening-plies",
        default=None,
        metavar="K",
        help=f"plies taken from each game of the book: both boards for BPGN (default "
        f"{DEFAULT_PLIES}), the chess game's for PGN (default: all of it)",
    )
    add(
        "--opening-order",
        choices=ORDERS,
        default="sequential",
        help="the book's order, or shuffled with --seed (default sequential)",
    )
    add(
        "--opening-start",
        default="1",
        metavar="N",
        help="begin at the book's N-th opening (after --opening-order; 1-based, default 1) "
        "and wrap around",
    )
    add(
        "--noswap",
        action="store_true",
        help="keep the first participant of a pairing on team 1's seats (A-White + B-Black) "
        "in both games of an opening pair, instead of swapping the teams",
    )
    add(
        "--reverse",
        action="store_true",
        help="play each opening pair the other way round: the first participant on team "
        "2's seats first",
    )
    add("--seed", metavar="N", help="seed for --opening-order random and the built-in engines")
    add("--concurrency", metavar="K", help="games at once (default 1)")
    _add_machine_options(add)
    add(
        "--sprt",
        metavar="elo0=0,elo1=5,alpha=0.05,beta=0.05[,model=normalized|logistic|bayesian]",
        help="stop when the SPRT of the first participant against the second decides "
        "(exactly two participants)",
    )
    add(
        "--max-failures",
        default="3",
        metavar="N",
        help="drop a participant after N crashes/hangs/failed starts in a row, or among "
        "its last 2N-1 games (default 3)",
    )
    add(
        "--recover",
        action="store_true",
        help="score a participant's failures as losses even before it completed a game "
        "(a flaky engine); by default the run stops with an error there",
    )
    add(
        "--readmit",
        action="append",
        default=[],
        metavar="NAME",
        help="with --resume: bring back participant NAME, dropped for its failures, to "
        "play its remaining games (its engine fixed) (repeatable)",
    )
    add("--event", default="bughouse-arbiter tournament", help="the [Event] tag")
    add(
        "--tag",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a tag of your own in every game, after the tournament's (repeatable)",
    )
    add(
        "--game-files",
        action="store_true",
        help="also write each game to a file of its own, DIR/games/game-N.bpgn",
    )
    add(
        "--final-positions",
        action="store_true",
        help="write every game's last positions to DIR/final.epd, 'game-N | FEN_A | FEN_B' "
        "a line (a book of position pairs), when a session ends",
    )
    add(
        "--report-every",
        metavar="N",
        help="print the full report (standings, pairings, SPRT) every N games, as well as "
        "at the end (may be given with --resume)",
    )
    add_out(parser, metavar="DIR", help="new folder for the results (default tournament-<time>)")
    add("--resume", metavar="DIR", help="continue the tournament in DIR (its options are kept)")
    add(
        "--ray",
        metavar="ADDRESS",
        help="play the games on a Ray cluster: HOST:PORT of its head, 'auto', or 'local' "
        "(a Ray runtime on this machine); needs pip install 'bughouse-arbiter[ray]'",
    )
    add(
        "--ray-cpus-per-match",
        default=None,
        metavar="N",
        help="CPUs each game reserves on a Ray node (default 2: two engines think at once)",
    )
    parser.set_defaults(run=run, order=[])
    _DEFAULTS.update({key: parser.get_default(key) for key in _SAVED})
    for action in parser._actions:
        if action.dest in _SAVED and action.choices is not None:
            _CHOICES[action.dest] = tuple(action.choices)


def _add_engine_settings(add: Callable[..., Any]) -> None:
    """``--each``, ``--set``, ``--option`` (``config.options.settings_of``) and ``--debug``."""
    add(
        "--each",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a setting for every engine: {SETTING_FORM}, or tc=BASE+INC (as --tc) "
        "(repeatable)",
    )
    add(
        "--set",
        action="append",
        default=[],
        metavar="NAME.KEY=VALUE",
        help="a setting for participant NAME's engines, as for --each but tc (one clock "
        "for all: see docs/tournament.md), e.g. sf.depth=8; it wins over --each (repeatable)",
    )
    add(
        "--option",
        action="append",
        default=[],
        metavar="NAME.OPT=VALUE",
        help="an engine option for participant NAME's engines, as --set NAME.option.OPT=VALUE "
        "(e.g. 'sf.Skill Level=3'); an option the engine does not declare stops the run "
        "(repeatable)",
    )
    add(
        "--debug",
        metavar="DIR",
        help="write each game's protocol logs, one per engine, capped in size, to "
        "DIR/game.g<ROUND>.<seat>.log (each game then starts its own engines); not with --ray",
    )


def _add_machine_options(add: Callable[..., Any]) -> None:
    """What keeps a run's clocks fair on a busy machine, and the tables' pace
    (``tournament/machine.py``, ``scheduler.TableSettings``); none is saved."""
    add(
        "--force-concurrency",
        action="store_true",
        help="run --concurrency K games even when 2K thinking engines exceed the CPUs "
        "(refused by default)",
    )
    add(
        "--use-affinity",
        action="store_true",
        help="pin each game's engines to two CPU cores of their own (Linux)",
    )
    add("--wait", metavar="MS", help="milliseconds a table rests between two games (default 0)")
    add(
        "--start-timeout",
        metavar="MS",
        help="milliseconds an engine gets to start, its handshake included (default 30000)",
    )
    add(
        "--ping-timeout",
        metavar="MS",
        help="milliseconds an engine gets to answer the ping after a game before it counts "
        "as hung (default 5000)",
    )


class _InOrder(argparse.Action):
    """``append``, also noting ``(option, value)`` in ``order``: participants keep
    the command line's order across --engine and --team (the first one leads a
    gauntlet and its SPRT)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), values])
        namespace.order = [*getattr(namespace, "order", []), [self.dest, values]]


# -- reading the options ------------------------------------------------------------------


def _int(text: str, option: str, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{option} takes a whole number, not {text!r}") from None
    if value < minimum:
        raise ConfigError(f"{option} must be at least {minimum}, not {value}")
    return value


def parse_sprt(text: str) -> Sprt:
    values: dict[str, str] = {}
    for item in text.split(","):
        key, equals, value = item.partition("=")
        key = key.strip().lower()
        if not equals or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise ConfigError(
                f"--sprt {text!r}: expected elo0=X,elo1=Y[,alpha=A,beta=B,model=M], "
                f"not {item.strip()!r}"
            )
        values[key] = value.strip()
    try:
        numbers = {k: float(v) for k, v in values.items() if k != "model"}
        return Sprt(
            elo0=numbers.get("elo0", 0.0),
            elo1=numbers.get("elo1", 5.0),
            alpha=numbers.get("alpha", 0.05),
            beta=numbers.get("beta", 0.05),
            model=values.get("model", "normalized"),
        )
    except ValueError as exc:
        raise ConfigError(f"--sprt {text!r}: {exc}") from None


def _name_and_spec(text: str, option: str) -> tuple[str, str]:
    name, equals, spec = text.partition("=")
    name = name.strip()
    if not equals:
        if option == "--engine":
            return text.strip(), text.strip()
        raise ConfigError(f"{option} {text!r} is not NAME=SPEC")
    if not name or "+" in name or "|" in name:
        raise ConfigError(f"{option} {text!r}: a name cannot be empty or hold '+' or '|'")
    return name, spec


def participants_from(
    engines: Sequence[str],
    teams: Sequence[str],
    known: Mapping[str, Any],
    order: Sequence[Sequence[str]] = (),
    *,
    check_commands: bool = True,
) -> list[Participant]:
    """The participants, in ``order`` (``[option, value]`` pairs as given) if known.

    ``check_commands`` checks that each engine's program is here; off when the
    games run on other machines (``--ray``), which report an engine missing there.
    """
    participants: list[Participant] = []
    by_name: dict[str, Participant] = {}

    def add(participant: Participant) -> None:
        if participant.name in by_name:
            raise ConfigError(f"participant {participant.name!r} is given twice")
        by_name[participant.name] = participant
        participants.append(participant)

    for text in engines:
        name, spec_text = _name_and_spec(text, "--engine")
        spec = engine_spec(spec_text, known)
        if spec.protocol in TEAM_ONLY:
            raise ConfigError(
                f"--engine {text!r}: a {spec.protocol} engine holds both seats of a team; "
                f"give it as --team {name}={spec_text.strip()}"
            )
        add(Participant(name=name, members=(spec, spec), member_names=(name, name)))
    for text in teams:
        name, spec_text = _name_and_spec(text, "--team")
        whole = spec_text.strip()
        if whole.startswith("team:") or whole.partition(":")[0] in TEAM_ONLY:
            spec = engine_spec(whole.removeprefix("team:"), known)
            check_team_spec(spec, f"--team {text!r}")
            add(
                Participant(
                    name=name, members=(spec, spec), member_names=(name, name), team_mode=True
                )
            )
            continue
        parts = spec_text.split("+")
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise ConfigError(f"--team {text!r}: expected NAME=SPEC1+SPEC2 or NAME=team:SPEC")
        specs = []
        names = []
        for part in parts:
            part = part.strip()
            known_participant = by_name.get(part)
            if known_participant is not None and not known_participant.mixed:
                specs.append(known_participant.members[0])
                names.append(known_participant.name)
            else:
                spec = engine_spec(part, known)
                if spec.protocol in TEAM_ONLY:
                    raise ConfigError(
                        f"--team {text!r}: {part!r} holds both seats of a team on its own "
                        f"(--team {name}={part})"
                    )
                specs.append(spec)
                names.append(spec.name)
        add(Participant(name=name, members=(specs[0], specs[1]), member_names=(names[0], names[1])))
    if len(participants) < 2:
        raise ConfigError(
            "a tournament needs at least two participants (--engine NAME=SPEC, --team ...)"
        )
    given = [tuple(item) for item in order]
    texts = [("engine", t) for t in engines] + [("team", t) for t in teams]
    if sorted(given) == sorted(texts):
        participants = [participants[texts.index(item)] for item in given]  # type: ignore[arg-type]
    for participant in participants:
        for spec in participant.members:
            if check_commands:
                check_command(spec)
    return participants


def _participants(args: argparse.Namespace, *, check_commands: bool) -> list[Participant]:
    """The participants the command line names, with --each, --set and --option
    (absent from older folders)."""
    participants = participants_from(
        args.engine,
        args.team,
        known_engines(args.engines_file),
        getattr(args, "order", ()),
        check_commands=check_commands,
    )
    every, by_name = settings_of(
        getattr(args, "each", ()),
        getattr(args, "set", ()),
        getattr(args, "option", ()),
        [p.name for p in participants],
    )
    return roster.settled(participants, every, by_name)


def _tc(args: argparse.Namespace) -> str | None:
    """--tc, or --each tc=BASE+INC (refused if both give different ones)."""
    every, _ = settings_of(getattr(args, "each", ()), (), (), ())
    each = every.get("tc")
    if each is not None and args.tc is not None and each != args.tc:
        raise ConfigError(f"--each tc={each} and --tc {args.tc} give two time controls")
    return each if each is not None else args.tc


def plan_from_args(args: argparse.Namespace, out: Path) -> TournamentPlan:
    recorded = getattr(args, "saved_options", {}).get(_PARTICIPANTS)
    if recorded is None:
        participants = _participants(args, check_commands=getattr(args, "ray", None) is None)
    else:
        participants = _recorded_participants(args, recorded, out)
    rules = house_rules(args.rule, _tc(args), default_tc=DEFAULT_TC)
    margin = _ms(args, "time_margin")
    if margin:
        rules = dataclasses.replace(rules, time_margin=margin)
    sprt = parse_sprt(args.sprt) if args.sprt else None
    if sprt is not None and len(participants) != 2:
        raise ConfigError(f"--sprt compares two participants; {len(participants)} were given")
    if args.games is not None and args.rounds is not None:
        raise ConfigError("give --games or --rounds, not both")
    if args.rounds is not None:
        games = 2 * _int(args.rounds, "--rounds", 1)
    elif args.games is not None:
        games = _int(args.games, "--games", 1)
        if games % 2 and getattr(args, "resume", None) is None:
            raise ConfigError(
                f"--games {games}: openings are played in pairs (the second game with the "
                f"teams swapped), so give an even number (--games {games + 1} is "
                f"--rounds {(games + 1) // 2})"
            )
    else:
        games = SPRT_GAMES if sprt else 2
    seed = _int(args.seed, "--seed", -(2**62)) if args.seed is not None else None
    plies = None if args.opening_plies is None else _int(args.opening_plies, "--opening-plies", 0)
    book_format = getattr(args, "openings_format", "auto")  # absent from older folders
    start = _int(getattr(args, "opening_start", "1"), "--opening-start", 1)
    loaded = load_book(args.openings, plies, book_format, rules)
    identity = book_identity(args.openings, len(loaded))
    book = ordered(loaded, args.opening_order, seed, start)
    def jobs_of(games: int) -> list[MatchJob]:
        return schedule(
            participants,
            format=args.format,
            games=games,
            rules=rules,
            openings=book,
            seed=seed,
            event=args.event,
            noswap=getattr(args, "noswap", False),  # absent from older folders
            reverse=getattr(args, "reverse", False),
        )

    jobs = jobs_of(games)
    # A --resume with more --games: the first schedule, then the games it adds.
    grown: int | None = getattr(args, "grown", None)
    more: int | None = getattr(args, "more_games", None)
    now = max(games, grown or 0)
    if more is not None and more < now:
        raise ConfigError(
            f"--games {more}: the tournament in {str(out)!r} has {now} games per "
            "pairing; --resume can add games, not take them away"
        )
    total = max(now, more or 0)
    if total != games:
        jobs = extended(jobs, jobs_of(total), seed)
        games = total
    # The options and limits each seat's engine plays with, in the game's tags.
    margin_tag = (("TimeMargin", f"{1000 * margin:g}"),) if margin else ()
    own = _own_tags(getattr(args, "tag", []), jobs[0].tags if jobs else ())
    jobs = [
        attrs.evolve(j, tags=(*j.tags, *margin_tag, *roster.seat_tags(j.entrants), *own))
        for j in jobs
    ]
    return TournamentPlan(
        participants=tuple(participants),
        format=args.format,
        games=games,
        rules=rules,
        jobs=tuple(jobs),
        out=out,
        sprt=sprt,
        max_failures=_int(args.max_failures, "--max-failures", 1),
        event=args.event,
        stop_on_never_played=not getattr(args, "recover", False),
        readmitted=_readmitted(args, participants, out),
        seed=seed,
        book_choice=BookChoice(
            file=args.openings,
            format=book_format,
            plies=plies,
            order=args.opening_order,
            start=start,
        ),
        book=identity,
        game_files=getattr(args, "game_files", False),
        final_positions=getattr(args, "final_positions", False),
    )


#: Tags the game's writer gives every game (``bpgn/write.py``): not for --tag.
_WRITTEN_TAGS = frozenset(
    name.lower()
    for name in (
        "Event", "Site", "Date", "Round", "TimeControl", "Time", "Variant", "SetUp", "FEN",
        "Rules", "Result", "Termination", "TerminationBoard", "TerminationSeat",
        "TerminationReason", "TimeMargin", *SEAT_TAGS.values(),
    )
)  # fmt: skip
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")


def _own_tags(texts: Sequence[str], ours: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """--tag NAME=VALUE, each checked: a tag name, once, no tag the games have already."""
    taken = _WRITTEN_TAGS | {name.lower() for name, _ in ours}
    found: dict[str, tuple[str, str]] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or not _TAG_NAME.fullmatch(name):
            raise ConfigError(
                f"--tag {printable(text, 80)!r} is not NAME=VALUE with a tag name "
                "(a letter, then letters, digits or _)"
            )
        lower = name.lower()
        if lower in taken or any(lower.startswith(s.lower()) for s in SEAT_TAGS.values()):
            raise ConfigError(f"--tag {name}: the games have a [{name}] tag of their own")
        if lower in found:
            raise ConfigError(f"--tag {name} is given twice")
        if len(value) > 1000 or any(c in value for c in "\r\n\0"):
            raise ConfigError(f"--tag {name}: a value is one line of at most 1000 characters")
        found[lower] = (name, value)
    return tuple(found.values())


def _prepare_out(args: argparse.Namespace) -> tuple[argparse.Namespace, Path]:
    """The options and folder: a new one for --out, the saved ones for --resume."""
    if args.resume is not None:
        if args.out is not None:
            raise ConfigError("--resume DIR writes to DIR; leave out --out")
        given = [
            k
            for k in _SAVED
            if k not in _GROWING and getattr(args, k, None) != _DEFAULTS.get(k)
        ]
        if given:
            option = "--" + given[0].replace("_", "-")
            raise ConfigError(
                f"--resume keeps the tournament's own options; {option} cannot be changed "
                "(only --concurrency, --report-every, --recover, --readmit, --debug, how the "
                "tables here run (--wait, --use-affinity, the timeouts) and more --games can)"
            )
        if args.games is not None and args.rounds is not None:
            raise ConfigError("give --games or --rounds, not both")
        more = _games_given(args)
        folder = Path(args.resume)
        if not folder.is_dir():
            raise ConfigError(f"--resume {args.resume!r}: no such folder")
        saved = journal.load_config(folder)
        merged = argparse.Namespace(**vars(args))
        for key, value in saved.items():
            if key in _SAVED:
                _check_saved(key, value, folder)
                setattr(merged, key, value)
        grown = saved.get(_EXTENDED)
        if grown is not None and (not isinstance(grown, int) or isinstance(grown, bool)):
            raise ConfigError(
                f"--resume {str(folder)!r}: {folder / journal.CONFIG}: option {_EXTENDED!r} "
                f"is {json.dumps(grown)[:60]}, not a whole number"
            )
        merged.saved_options = saved
        merged.more_games = more
        merged.grown = grown
        return merged, folder
    folder = Path(out_text(args) or f"tournament-{datetime.datetime.now():%Y%m%d-%H%M%S}")
    if (folder / journal.JOURNAL).exists() or (folder / journal.CONFIG).exists():
        raise ConfigError(
            f"--out {str(folder)!r} already holds a tournament; continue it with --resume {folder}"
        )
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out {str(folder)!r} is a file, not a folder")
    return args, folder


def _readmitted(
    args: argparse.Namespace, participants: Sequence[Participant], folder: Path
) -> dict[str, tuple[int, ...]]:
    """The saved readmissions (``Tournament.readmit``), checked with --readmit's names."""
    names = {p.name for p in participants}
    for name in getattr(args, "readmit", []):
        if getattr(args, "resume", None) is None:
            raise ConfigError("--readmit NAME brings back a participant of a --resume DIR")
        if name not in names:
            known = ", ".join(sorted(names))
            raise ConfigError(f"--readmit {name!r}: no such participant (those are: {known})")
    saved = getattr(args, "saved_options", {}).get(_READMITTED, {})
    fits = isinstance(saved, dict) and all(
        name in names
        and isinstance(counts, list)
        and all(isinstance(c, int) and not isinstance(c, bool) for c in counts)
        for name, counts in saved.items()
    )
    if not fits:
        raise ConfigError(
            f"--resume {str(folder)!r}: {folder / journal.CONFIG}: option {_READMITTED!r} is "
            f"{json.dumps(saved)[:60]}, not an object of participants' game counts"
        )
    return {name: tuple(counts) for name, counts in saved.items()}


def _recorded_participants(
    args: argparse.Namespace, recorded: object, folder: Path
) -> list[Participant]:
    """The participants tournament.json recorded; how today's engines differ
    from them goes to ``args.roster_notes`` (one warning line each)."""
    try:
        participants = list(roster.restore(recorded))
    except ValueError as exc:
        raise ConfigError(
            f"--resume {str(folder)!r}: {folder / journal.CONFIG}: its {_PARTICIPANTS!r}: {exc}"
        ) from None
    try:
        current = _participants(args, check_commands=False)
        args.roster_notes = roster.changes(participants, current)
    except UsageError as exc:
        args.roster_notes = [f"the engines no longer read ({exc}); playing the recorded ones"]
    if getattr(args, "ray", None) is None:
        for participant in participants:
            for spec in participant.members:
                check_command(spec)
    return participants


def _games_given(args: argparse.Namespace) -> int | None:
    """The games per pairing --games or --rounds asks a --resume for (None if neither)."""
    if args.rounds is not None:
        return 2 * _int(args.rounds, "--rounds", 1)
    if args.games is None:
        return None
    games = _int(args.games, "--games", 1)
    if games % 2:
        raise ConfigError(
            f"--games {games}: openings are played in pairs (the second game with the "
            f"teams swapped), so give an even number"
        )
    return games


def _check_saved(key: str, value: object, folder: Path) -> None:
    """ConfigError (one line, naming the file and the option) unless ``value``
    is what the parser would have saved for ``key``."""
    default = _DEFAULTS.get(key)
    if key == "order":
        fits = isinstance(value, list) and all(
            isinstance(item, list)
            and len(item) == 2
            and item[0] in ("engine", "team")
            and isinstance(item[1], str)
            for item in value
        )
        wanted = "a list of [option, value] pairs"
    elif isinstance(default, list):
        fits = isinstance(value, list) and all(isinstance(item, str) for item in value)
        wanted = "a list of texts"
    elif isinstance(default, bool):
        fits = isinstance(value, bool)
        wanted = "true or false"
    elif key in _CHOICES:
        fits = value in _CHOICES[key]
        wanted = " or ".join(repr(choice) for choice in _CHOICES[key])
    else:
        fits = isinstance(value, str) or (value is None and default is None)
        wanted = "text" if default is not None else "text or null"
    if not fits:
        shown = json.dumps(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ConfigError(
            f"--resume {str(folder)!r}: {folder / journal.CONFIG}: option {key!r} is {shown}, "
            f"not {wanted}"
        )


def _plan(args: argparse.Namespace, folder: Path) -> TournamentPlan:
    """``plan_from_args``; with --resume, an option that does not read names the file."""
    try:
        return plan_from_args(args, folder)
    except UsageError as exc:
        if args.resume is None:
            raise
        # A saved option that no longer reads (an edited file, another version).
        raise ConfigError(
            f"--resume {str(folder)!r}: the options in {folder / journal.CONFIG}: {exc}"
        ) from None


def run(args: argparse.Namespace, env: Environment) -> int:
    _ray_options_without_ray(args)
    args, folder = _prepare_out(args)
    plan = _plan(args, folder)
    debug = _debug_folder(args)
    if args.ray is None:  # on a cluster the engines start elsewhere: their games say it
        refusal = trio.run(refused_options, plan.participants)
        if refusal is not None:
            raise ConfigError(refusal)
    concurrency = _int(args.concurrency, "--concurrency", 1) if args.concurrency else 1
    settings = _table_settings(args, concurrency, env)
    every = _int(args.report_every, "--report-every", 1) if args.report_every is not None else 0
    out = env.stdout
    progress: LineProgress = RichProgress(out) if env.live else LineProgress(out)
    progress.report_every = every
    # Joined before anything is written: a cluster that is not there costs nothing.
    on_ray = _ray_scheduler(args, progress) if args.ray is not None else None
    try:
        with contextlib.ExitStack() as held:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                if debug is not None:
                    debug.mkdir(parents=True, exist_ok=True)
                held.enter_context(lock.hold(folder))
                players = {_PARTICIPANTS: roster.record(plan.participants)}
                test = _test_settings(args, plan, concurrency, on_ray, settings)
                if args.resume is None:
                    crc = {_BOOK_CRC: f"{plan.book.crc32:08x}"} if plan.book else {}
                    journal.save_config(
                        folder,
                        {**{k: getattr(args, k) for k in _SAVED}, **players, **crc, **test},
                    )
                elif (
                    (args.more_games is not None and plan.games != args.grown)
                    or _PARTICIPANTS not in args.saved_options
                    or conditions.SETTINGS not in args.saved_options
                ):
                    # Kept beside the first --games: its schedule stays the first part.
                    journal.save_config(
                        folder,
                        {**args.saved_options, _EXTENDED: plan.games, **players, **test},
                    )
            except OSError as exc:
                raise ConfigError(
                    f"cannot write to {str(folder)!r}: {exc.strerror or exc}"
                ) from None
            except lock.FolderInUse as exc:
                # As a second match on one BPGN file: a usage error, exit 2.
                raise ConfigError(str(exc)) from None
            for note in getattr(args, "roster_notes", ()):
                env.warning(printable(note, 2000))
            if plan.book is not None and args.resume is None:
                progress.message(f"book {printable(plan.book.text, 300)}")
            elif plan.book is not None:  # a resume: the book it started with, checked
                note = _book_change(args.saved_options, plan.book)
                if note:
                    env.warning(note)
            shown = _shown(test, args, concurrency, on_ray, settings)
            return _play(
                plan, settings, concurrency, progress, on_ray, env, args.readmit, debug, shown
            )
    finally:
        if on_ray is not None:
            on_ray.shutdown()


def _test_settings(
    args: argparse.Namespace,
    plan: TournamentPlan,
    concurrency: int,
    on_ray: RayScheduler | None,
    tables: TableSettings,
) -> dict[str, object]:
    """``{SETTINGS: ...}``: those a resumed run recorded, else this run's, made now."""
    recorded = getattr(args, "saved_options", {}).get(conditions.SETTINGS)
    if isinstance(recorded, dict):
        return {conditions.SETTINGS: recorded}
    count: int | None = concurrency
    if on_ray is None:
        where = "this machine"
    else:
        where = f"Ray cluster {args.ray}, {on_ray.cpus_per_match:g} CPUs a game"
        count = concurrency if args.concurrency else None
    colours = [name for name in ("noswap", "reverse") if getattr(args, name, False)]
    made = conditions.settings(
        plan,
        concurrency=count,
        where=where,
        started=_now(),
        host=conditions.machine(),
        tables=_tables_here(args, on_ray, tables),
        colours=", ".join(colours) or "swapped",
        tags=list(getattr(args, "tag", None) or ()),
    )
    return {conditions.SETTINGS: made}


def _tables_here(
    args: argparse.Namespace, on_ray: RayScheduler | None, tables: TableSettings
) -> dict[str, object] | None:
    """``conditions.local_tables`` of games played here (None on a cluster)."""
    if on_ray is not None:
        return None
    concurrency = _int(args.concurrency, "--concurrency", 1) if args.concurrency else 1
    shared = concurrency_check(concurrency, len(usable_cpus()), force=True) is not None
    forced = shared and bool(getattr(args, "force_concurrency", False))
    return conditions.local_tables(tables, forced=forced)


def _shown(
    test: Mapping[str, object],
    args: argparse.Namespace,
    concurrency: int,
    on_ray: RayScheduler | None,
    tables: TableSettings,
) -> ReportShown:
    """The recorded settings for the page, and a resumed session's own."""
    session = None
    if args.resume is not None:
        session = conditions.session(
            started=_now(),
            concurrency=concurrency,
            host=conditions.machine(),
            tables=_tables_here(args, on_ray, tables),
        )
    settings = test[conditions.SETTINGS]
    assert isinstance(settings, dict)
    return ReportShown(settings=settings, session=session)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _play(
    plan: TournamentPlan,
    settings: TableSettings,
    concurrency: int,
    progress: LineProgress,
    on_ray: RayScheduler | None,
    env: Environment,
    readmit: Sequence[str],
    debug: Path | None = None,
    shown: ReportShown | None = None,
) -> int:
    """Plays the tournament here or on the cluster (the folder is ours)."""
    if on_ray is not None:
        # The engines run on the cluster's workers, not under this process.
        return trio.run(
            play_tournament, plan, concurrency, progress, on_ray, env, readmit, shown
        )
    become_subreaper()
    try:
        scheduler = LocalScheduler(concurrency, debug=debug, settings=settings)
        return trio.run(
            play_tournament, plan, concurrency, progress, scheduler, env, readmit, shown
        )
    finally:
        # What engines left re-parented to us: cleared after every game
        # (tournament/leftovers.py), and once more here for an interrupted one.
        kill_orphans(keep=live_engine_pids())


def _ms(args: argparse.Namespace, key: str) -> float | None:
    """Option ``key`` in milliseconds, as seconds (None when not given)."""
    text = getattr(args, key, None)
    if text is None:
        return None
    option = "--" + key.replace("_", "-")
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{option} takes milliseconds, not {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise ConfigError(f"{option} takes milliseconds from 0, not {text!r}")
    return value / 1000


def _table_settings(
    args: argparse.Namespace, concurrency: int, env: Environment
) -> TableSettings:
    """How the tables here play (``--wait``, the timeouts, ``--use-affinity``),
    with the concurrency checked against the cores (``machine.concurrency_check``)."""
    local = ("wait", "start_timeout", "ping_timeout", "use_affinity", "force_concurrency")
    if args.ray is not None:
        for key in local:
            if getattr(args, key, None) not in (None, False):
                option = "--" + key.replace("_", "-")
                raise ConfigError(f"{option} is for games played here; leave out --ray")
        return TableSettings()
    wait, start, ping = (_ms(args, key) for key in local[:3])
    for option, value in (("--start-timeout", start), ("--ping-timeout", ping)):
        if value is not None and value <= 0:
            raise ConfigError(f"{option} must be above 0 ms")
    cpus = usable_cpus()
    pinned = tuple(table_cpus(concurrency, cpus)) if args.use_affinity else ()
    warning = concurrency_check(concurrency, len(cpus), force=args.force_concurrency)
    if warning:
        env.warning(warning)
    return TableSettings(wait=wait or 0.0, start_timeout=start, ping_timeout=ping, cpus=pinned)


def _book_change(saved: Mapping[str, object], book: BookIdentity) -> str | None:
    """A warning when a resumed run's book is not the file it started with."""
    first = saved.get(_BOOK_CRC)
    now = f"{book.crc32:08x}"
    if first is None or first == now:
        return None
    return (
        f"the book {printable(book.file, 200)} has changed since the run started "
        f"(CRC32 {printable(str(first), 20)}, now {now}): the games left play its openings now"
    )


def _debug_folder(args: argparse.Namespace) -> Path | None:
    """--debug DIR (not saved: a --resume may give it or not), checked."""
    text = getattr(args, "debug", None)
    if text is None:
        return None
    if not text:
        raise ConfigError("--debug is empty: give a folder for the protocol logs")
    if args.ray is not None:
        raise ConfigError("--debug keeps the logs of games played here; leave out --ray")
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--debug {text!r} is a file, not a folder")
    return folder


def _ray_options_without_ray(args: argparse.Namespace) -> None:
    if args.ray is None and args.ray_cpus_per_match is not None:
        raise ConfigError("--ray-cpus-per-match goes with --ray ADDRESS")


def _ray_scheduler(args: argparse.Namespace, progress: LineProgress) -> RayScheduler:
    """Joins the Ray cluster of ``--ray`` (ConfigError, one line, if it cannot)."""
    from ..tournament.ray_backend import DEFAULT_CPUS_PER_MATCH, RayScheduler

    cpus = DEFAULT_CPUS_PER_MATCH
    if args.ray_cpus_per_match is not None:
        try:
            cpus = float(args.ray_cpus_per_match)
        except ValueError:
            raise ConfigError(
                f"--ray-cpus-per-match takes a number of CPUs, not {args.ray_cpus_per_match!r}"
            ) from None
    concurrency = _int(args.concurrency, "--concurrency", 1) if args.concurrency else None
    return RayScheduler.connect(
        args.ray, cpus_per_match=cpus, concurrency=concurrency, notice=progress.message
    )


def _save_readmission(folder: Path, name: str, games: int) -> None:
    """Notes in tournament.json that ``name`` came back after ``games`` of its games."""
    options = journal.load_config(folder)
    readmitted = dict(options.get(_READMITTED) or {})  # type: ignore[call-overload]
    readmitted[name] = [*readmitted.get(name, []), games]
    journal.save_config(folder, {**options, _READMITTED: readmitted})


async def play_tournament(
    plan: TournamentPlan,
    concurrency: int,
    progress: LineProgress,
    scheduler: Scheduler | None = None,
    env: Environment | None = None,
    readmit: Sequence[str] = (),
    shown: ReportShown | None = None,
) -> int:
    errors = env or Environment.detect("tournament")
    tournament = Tournament(plan, progress)
    try:
        done = tournament.resume()
        for name in readmit:
            if name not in tournament.dropped:
                tournament.journal.close()
                errors.error(f"--readmit {name!r}: {name} is not dropped in {plan.out}")
                return USAGE
            _save_readmission(plan.out, name, tournament.readmit(name))
            progress.message(f"{name} readmitted: its remaining games are played")
    except OSError as exc:
        where = exc.filename if exc.filename is not None else plan.out
        errors.error(f"cannot prepare {where}: {exc.strerror or exc}")
        return FAILED
    set_aside = tournament.set_aside_text()
    if set_aside is not None:
        errors.warning(printable(set_aside, 2000))
    page = ReportFile(plan.out, plan.sprt, warn=errors.warning, shown=shown or ReportShown())
    for job_id, report in tournament.reports.items():
        page.game(tournament.jobs[job_id], report)
        progress.clocks.add(report)
    progress.attach(page, tournament.summary, plan.sprt)
    if done:
        progress.message(f"resuming: {done} of {len(plan.jobs)} games already played")
        progress.write("".join(line + "\n" for line in progress.status_lines()))
    async with stop_on_signals() as stop:
        with stop.scope:
            await tournament.run(
                scheduler if scheduler is not None else LocalScheduler(concurrency),
                trio.CancelScope(),
            )
    progress.end()
    if tournament.failed is not None:
        errors.error(tournament.failed)
        return FAILED
    summary = {**tournament.summary(), _PARTICIPANTS: roster.record(plan.participants)}
    if shown is not None and shown.settings:
        summary[conditions.SETTINGS] = dict(shown.settings)
    counts = getattr(scheduler, "node_counts", None)
    if counts is not None:  # on Ray: which node played what
        summary["nodes"] = counts.as_list()
    try:
        journal.write_summary(plan.out, summary)
    except OSError as exc:
        errors.error(f"cannot write summary: {exc}")
        return FAILED
    if plan.final_positions:
        try:
            journal.write_final_positions(
                plan.out, ((tournament.jobs[i], r) for i, r in tournament.reports.items())
            )
        except OSError as exc:
            errors.error(f"cannot write {journal.FINAL_POSITIONS}: {exc.strerror or exc}")
            return FAILED
    progress.write(report_text(summary))
    if summary.get("clock_warning"):  # also in the report above: said on stderr too
        errors.warning(str(summary["clock_warning"]))
    state = "stopped" if tournament.decision else "finished"
    if summary.get("shortfall"):
        state = "incomplete"
    page.finish(summary, "interrupted" if stop.signal is not None else state)
    if counts is not None:
        progress.write("".join(f"{line}\n" for line in counts.lines()))
    lost = getattr(scheduler, "head_lost", None)
    if lost:
        where = getattr(scheduler, "address", "ADDRESS")
        again = f"bughouse tournament --resume {plan.out} --ray {where}"
        errors.error(
            f"{lost}: {len(tournament.reports)} of {len(plan.jobs)} games are in {plan.out}; "
            f"start the cluster again and continue with: {again}"
        )
        return FAILED
    if stop.signal is not None:
        progress.write(
            f"interrupted ({stop.name}): {len(tournament.reports)} of {len(plan.jobs)} games "
            f"are in {plan.out}; continue with: bughouse tournament --resume {plan.out}\n"
        )
        return exit_status(stop.signal)
    if not tournament.reports and tournament.given_up:
        last = next(reversed(tournament.given_up.values()))
        errors.error(
            f"no game could be played: all {len(tournament.given_up)} were given up "
            f"(the last: {last}); see {plan.out}/summary.json"
        )
        return FAILED
    progress.write(
        f"written to {plan.out}/ (games.bpgn, results.jsonl, summary.json, report.html)\n"
    )
    shortfall = summary.get("shortfall")
    if shortfall:
        errors.error(f"incomplete: {shortfall}; exit status {INCOMPLETE}")
        return INCOMPLETE
    return OK


# -- reports ----------------------------------------------------------------------------


def _fmt(value: object, spec: str = "") -> str:
    if value is None:
        return "inf" if spec else "-"
    if isinstance(value, float | int):
        return format(value, spec)
    return str(value)


def _interval_text(s: Summary) -> str:
    """``Elo +35.1 [-10.2, +80.3]``, ``Elo -70.0 [n/a]`` while unknown, ``Elo +inf``."""
    if math.isinf(s.elo) or not s.interval_known:
        return elo_text(s, 1).replace("± n/a", "[n/a]")
    low, high = s.elo_interval()
    return f"Elo {signed(s.elo, 1)} [{signed(low, 1)}, {signed(high, 1)}]"


def _cut(name: str, width: int) -> str:
    """``name``, or its start and end around ``…`` in ``width`` columns."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def report_text(summary: Mapping[str, Any]) -> str:
    """The final standings, crosstable, pairings, SPRT and incidents, as plain text."""
    lines: list[str] = []
    rows = summary["standings"]
    # The other columns take 67: a longer name is cut in its middle (its end
    # tells versions apart), so the table keeps to 80 columns.
    width = min(max([len(r["name"]) for r in rows] + [4]), WIDTH - 67)
    lines.append(
        f"{'#':>2}  {'name':<{width}}  {'games':>5}  {'W':>4} {'L':>4} {'D':>4}  "
        f"{'points':>6}  {'score':>6}  {'Elo':>7} {'±':>6}  {'LOS':>6}"
    )
    for rank, r in enumerate(rows, 1):
        elo = r["elo"]
        record = Summary(wins=r["wins"], losses=r["losses"], draws=r["draws"])
        lines.append(
            f"{rank:>2}  {_cut(r['name'], width):<{width}}  {r['games']:>5}  "
            f"{r['wins']:>4} {r['losses']:>4} "
            f"{r['draws']:>4}  {r['points']:>6g}  {percent(record.score):>6}  "
            f"{signed(elo, 1) if elo is not None else '-':>7} "
            f"{_fmt(r['elo_margin'], '6.1f'):>6}  {percent(record.los):>6}"
        )
    names = [r["name"] for r in rows]
    cross = summary["crosstable"]
    if len(names) > 2:
        lines.append("")
        lines.append(f"{'':<{width}}  " + " ".join(f"{n[:7]:>7}" for n in names))
        for a in names:
            cells = []
            for b in names:
                cell = cross.get(a, {}).get(b)
                if a == b:
                    text = "—"
                elif cell is None:
                    text = ""
                else:
                    text = f"{cell['points']:g}/{cell['games']}"
                cells.append(f"{text:>7}")
            lines.append(f"{a:<{width}}  " + " ".join(cells))
    lines.append("")
    for p in summary["pairings"]:
        penta = " ".join(f"{k}={v}" for k, v in p["pentanomial"].items())
        # From the counts: every figure rounded once, here.
        s = Summary(
            wins=p["wins"],
            losses=p["losses"],
            draws=p["draws"],
            penta=Pentanomial(tuple(p["pentanomial"].values())),
        )
        parts = [
            f"{p['first']} vs {p['second']}: {plural(s.games, 'game')}",
            f"+{s.wins} -{s.losses} ={s.draws}",
            f"score {percent(s.score)}",
            _interval_text(s),
            nelo_text(s, 1),
            f"LOS {percent(s.los)}",
            f"draws {percent(s.draw_ratio)}",
            f"pairs {penta}",
        ]
        lines += fit(parts, separator=", ")
    if "engine_ratings" in summary:
        ratings = ", ".join(
            f"{n} {r['elo']:+.1f} ± {_fmt(r['margin'], '.1f')}"
            for n, r in summary["engine_ratings"].items()
        )
        lines.append(f"per-engine ratings (team = sum of its members): {ratings}")
    sprt = summary.get("sprt")
    if sprt:
        decision = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)"}.get(
            sprt["decision"], "undecided"
        )
        lines.append(
            f"SPRT [{sprt['elo0']:g}, {sprt['elo1']:g}] ({sprt['model']}): LLR {sprt['llr']:.2f} "
            f"({sprt['lower']:.2f}, {sprt['upper']:.2f}) after {plural(sprt['pairs'], 'pair')}: "
            f"{decision}"
        )
    lines += _incidents_text(summary, names, width)
    if summary.get("clock_warning"):
        lines += fit([f"warning: {summary['clock_warning']}"])
    for name, why in summary["dropped"].items():
        lines.append(f"dropped: {name}: {why}")
    lines.append(f"games: {summary['games_played']} of {summary['games_scheduled']} scheduled")
    return "\n".join(lines) + "\n"


def _incidents_text(summary: Mapping[str, Any], names: Sequence[str], width: int) -> list[str]:
    """Per participant, its illegal moves, failed starts, hangs, crashes, time
    losses and those the harness may have caused, each counted once
    (``tournament/failures.py``); then the harness's delay."""
    lines: list[str] = []
    counts = [[summary.get(key, {}).get(n, 0) for key, _ in COLUMNS] for n in names]
    if any(any(row) for row in counts):
        width = max(width, len("incidents"))
        # Headings over two lines, right-aligned over their columns.
        halves = [heading.rpartition(" ") for _, heading in COLUMNS]
        lines.append(f"{'':<{width}}  " + " ".join(f"{h[0]:>8}" for h in halves))
        lines.append(f"{'incidents':<{width}}  " + " ".join(f"{h[2]:>8}" for h in halves))
        for name, row in zip(names, counts, strict=True):
            lines.append(f"{_cut(name, width):<{width}}  " + " ".join(f"{c:>8}" for c in row))
    else:
        lines.append("incidents: none (no illegal move, failed start, hang, crash or time loss)")
    delay = summary.get("harness_delay")
    if delay and delay.get("seat_games"):
        lines += fit(
            [
                f"the harness's delay on an engine's clock per game: mean "
                f"{delay['mean_ms']:.1f} ms, max {delay['max_ms']:.1f} ms; one turn at most "
                f"{delay['turn_max_ms']:.1f} ms"
            ]
        )
    return lines


# -- progress ----------------------------------------------------------------------------


def game_line(job: MatchJob, report: MatchReport) -> str:
    """``searcher beat random (B-White checkmated, 42 plies)``."""
    winner = report.result.winner
    detail = f"({report.reason}, {report.plies} plies)"
    if winner is None:
        one, two = (job.sides[team] for team in sorted(job.sides))
        return f"{one} drew with {two} {detail}"
    return f"{job.sides[winner]} beat {job.sides[winner.other]} {detail}"


class LineProgress:
    """One finished game per entry, its parts packed into 80-column lines
    (output that is not a terminal), with the record and figures of the
    game's pairing and the ETA of the games left; every ``report_every``
    games the full report. Once ``attach``ed, it also keeps ``report.html``."""

    def __init__(self, out: TextIO, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.out = out
        self.total = 0
        self.done = 0
        self.broken = False
        self.clock = clock
        self._started = clock()
        self._done_at_start = 0
        self.report_every = 0
        self.page: ReportFile | None = None
        self.summary: Callable[[], Mapping[str, Any]] | None = None
        self.sprt: Sprt | None = None
        #: The run's games for the clock warning, said once when it first holds.
        self.clocks = ClockCounts()
        self._clocks_warned = False

    def attach(
        self, page: ReportFile, summary: Callable[[], Mapping[str, Any]], sprt: Sprt | None
    ) -> None:
        """Status from ``page``'s live tally, reports and the page from ``summary``."""
        self.page, self.summary, self.sprt = page, summary, sprt

    def pairing_status(self, pairing: int) -> str:
        """One pairing's live record and figures (``display.pairing_status``)."""
        assert self.page is not None
        tally = self.page.tally.pairings[pairing]
        summary = tally.summary()
        sprt = None
        if self.sprt is not None and pairing == 0:
            sprt = {
                "llr": tally.llr_now(self.sprt),
                "lower": self.sprt.lower,
                "upper": self.sprt.upper,
            }
        return pairing_status(tally.first, tally.second, summary, sprt)

    def status_lines(self, most: int = 12, width: int = WIDTH) -> list[str]:
        """Every pairing's status (the first ``most``), packed into lines."""
        if self.page is None:
            return []
        statuses = [self.pairing_status(index) for index, _ in self.page.tally.in_order()]
        return status_lines(statuses, most, width)

    def _after_game(self, job: MatchJob, report: MatchReport, left: Remaining | None) -> None:
        """The clock warning when it first holds, the page and, every
        ``report_every`` games, the full report."""
        self.clocks.add(report)
        # The last game's report says it: not twice in a row.
        last = self.done >= self.total
        if not (self._clocks_warned or last) and (warning := self.clocks.warning()) is not None:
            self._clocks_warned = True
            self.write("".join(line + "\n" for line in fit([f"warning: {warning}"])))
        if self.page is None or self.summary is None:
            return
        # The last game's report is the final one, printed once.
        if self.report_every and self.done % self.report_every == 0 and self.done < self.total:
            self.write(f"-- report after {plural(self.done, 'game')} --\n")
            self.write(report_text(self.summary()))
        self.page.update(self.summary, "running", self.eta(left))

    def begin(self, total: int, done: int) -> None:
        self.total, self.done = total, done
        self._started, self._done_at_start = self.clock(), done

    def seconds_per_game(self) -> float | None:
        """Wall-clock seconds per game finished in this session (None before the first)."""
        played = self.done - self._done_at_start
        return (self.clock() - self._started) / played if played > 0 else None

    def eta(self, left: Remaining | None) -> str:
        return "" if left is None else eta_text(left, self.seconds_per_game())

    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: Remaining | None = None
    ) -> None:
        self.done += 1
        if self.page is not None:
            self.page.game(job, report)
            status = self.pairing_status(job.pairing)
        count = f"{self.done}, SPRT" if left is not None and left.approximate else (
            f"{self.done}/{self.total}"
        )
        lines = fit([f"game {job.number} ({count}): {game_line(job, report)}"])
        lines += fit([*status.split(SEPARATOR), self.eta(left)], first="  ")
        self.write("".join(line + "\n" for line in lines))
        self._after_game(job, report, left)

    def message(self, text: str) -> None:
        self.write(text + "\n")

    def end(self) -> None:
        pass

    def write(self, text: str) -> None:
        if self.broken:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (OSError, ValueError, OutputGone):
            self.broken = True


class RichProgress(LineProgress):
    """A live ``rich`` progress bar (games done/total, elapsed, ETA of the games
    left) with every pairing's status below it (the first 8): W/L/D, pairs,
    Elo ±, nElo ±, LOS and the SPRT's LLR."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        from rich.console import Console, Group, RenderableType
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.text import Text

        status = self

        class _Bar(Progress):
            def get_renderable(self) -> RenderableType:
                lines = [Text(line, no_wrap=True, overflow="ellipsis") for line in status.lines]
                return Group(*self.get_renderables(), *lines)

        self.console = Console(file=out)
        self.lines: list[str] = []
        self.bar = _Bar(
            TextColumn("games"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[eta]}"),
            console=self.console,
            transient=False,
        )
        self.task = self.bar.add_task("games", total=1, eta="")

    def begin(self, total: int, done: int) -> None:
        super().begin(total, done)
        self.bar.update(self.task, total=total, completed=done)
        self.bar.start()

    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: Remaining | None = None
    ) -> None:
        self.done += 1
        width = min(WIDTH, self.console.width)
        if self.page is not None:
            self.page.game(job, report)
            self.lines = self.status_lines(8, width)
        else:
            self.lines = fit(status.split(SEPARATOR), width=width)
        self.bar.update(self.task, completed=self.done, eta=self.eta(left))
        self._after_game(job, report, left)

    def write(self, text: str) -> None:
        if self.broken:
            return
        try:
            self.bar.console.print(text, end="", markup=False, highlight=False, soft_wrap=True)
        except (OSError, ValueError, OutputGone):
            self.broken = True

    def message(self, text: str) -> None:
        self.bar.console.print(text, markup=False, highlight=False)

    def end(self) -> None:
        self.bar.stop()
