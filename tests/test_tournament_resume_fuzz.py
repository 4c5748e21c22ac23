"""``--resume`` of a damaged tournament folder: one line, never a traceback, nothing lost.

The journal (``results.jsonl``) and ``tournament.json`` are fuzzed with
Hypothesis: lines that are JSON but not a game's record (``5``, ``null``,
``[1,2,3]``, ``{"report": 5}``...), good lines with a field replaced or
deleted, cut short, repeated, or plain text. A resume keeps every good line,
sets every other one aside (in ``results.set-aside.jsonl``, with its line
number) and says so in one line; a ``tournament.json`` that does not hold
the options is refused with one line naming it. A few examples go through
the real ``bughouse tournament --resume``.
"""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from cli_checks import run_bughouse

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bughouse_arbiter.cli import build_parser
from bughouse_arbiter.commands import tournament as command
from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import UsageError
from bughouse_arbiter.tournament import journal
from bughouse_arbiter.tournament.jobs import MatchReport, SeatIncident
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule

ROOT = Path(__file__).resolve().parent.parent
RULES = HouseRules(time=2.0, max_plies=6)
GAMES = 4


#: ``bughouse`` as a process, as every test here runs it.
bughouse = partial(run_bughouse, cwd=ROOT)


class Quiet:
    def begin(self, total: int, done: int) -> None: ...

    def game(self, job: object, report: MatchReport, status: str) -> None: ...

    def message(self, text: str) -> None: ...

    def end(self) -> None: ...


def plan_in(folder: Path) -> TournamentPlan:
    spec = builtin_engine("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    jobs = schedule(teams, format="gauntlet", games=GAMES, rules=RULES, openings=[], seed=1)
    return TournamentPlan(
        participants=tuple(teams),
        format="gauntlet",
        games=GAMES,
        rules=RULES,
        jobs=tuple(jobs),
        out=folder,
    )


def good_lines() -> list[str]:
    """A journal line per scheduled game, as ``Journal.append`` writes them."""
    lines = []
    for job in plan_in(Path(".")).jobs:
        report = MatchReport(
            job_id=job.job_id,
            result=Result.DRAW,
            termination="max_plies",
            reason="draw: 6 plies",
            bpgn=f'[Round "{job.number}"]\n\n1A. e4 *\n',
            plies=6,
            incidents=(
                SeatIncident(
                    seat=Seat.A_WHITE,
                    participant=job.participant_at(Seat.A_WHITE),
                    engine="random",
                    kind="time",
                    text="A-White lost on time",
                ),
            ),
            harness_delay={Seat.B_BLACK: 0.001},
        )
        lines.append(json.dumps(journal.entry(job, report), ensure_ascii=False))
    return lines


GOOD = good_lines()
TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\n"), max_size=30)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
REPORT_KEYS = [*json.loads(GOOD[0])["report"].keys(), "zzz"]
TOP_KEYS = [*json.loads(GOOD[0]).keys(), "zzz"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A good line with one field (at the top, in the report, or in an
    incident) replaced by any JSON value, or deleted."""
    data = json.loads(draw(st.sampled_from(GOOD)))
    where = draw(st.sampled_from(["top", "report", "incident"]))
    if where == "top":
        target, keys = data, TOP_KEYS
    elif where == "report":
        target, keys = data["report"], REPORT_KEYS
    else:
        target, keys = data["report"]["incidents"][0], ["seat", "participant", "kind", "text"]
    key = draw(st.sampled_from(keys))
    if draw(st.booleans()):
        target.pop(key, None)
    else:
        target[key] = draw(JSON)
    return json.dumps(data, ensure_ascii=False, allow_nan=True)


LINE = st.one_of(
    st.sampled_from(GOOD),
    st.sampled_from(GOOD),
    st.sampled_from(["5", "null", "[1,2,3]", '{"report": 5}', '{"job_id": ["x"]}', "{}", ""]),
    JSON.map(json.dumps),
    mutated(),
    st.tuples(st.sampled_from(GOOD), st.integers(1, 400)).map(lambda t: t[0][: t[1]]),
    TEXT,
)


def resume(folder: Path) -> Tournament:
    tournament = Tournament(plan_in(folder), Quiet())
    tournament.resume()
    tournament.journal.close()
    return tournament


def aside_texts(folder: Path) -> list[str]:
    path = folder / journal.SET_ASIDE
    if not path.exists():
        return []
    return [json.loads(row)["text"] for row in rows(path)]


#: Lines that are JSON but not a game's record, between two good ones.
NOT_RECORDS = [GOOD[0], "5", "null", "[1,2,3]", '{"report": 5}', '{"job_id": ["x"]}', GOOD[1]]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, max_size=10), end=st.sampled_from(["\n", ""]))
@example(lines=NOT_RECORDS, end="\n")
def test_a_resume_keeps_every_good_line_and_sets_the_others_aside_with_one_line(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], end: str
) -> None:
    folder = tmp_path_factory.mktemp("t")
    (folder / journal.JOURNAL).write_text("\n".join(lines) + end, "utf-8")
    tournament = resume(folder)
    written = [line for line in lines if line.strip()]
    kept = rows(folder / journal.JOURNAL)
    aside = aside_texts(folder)
    # Every line is kept or set aside, none twice, in order.
    assert len(kept) + len(aside) == len(written)
    assert sorted(kept + aside) == sorted(written)
    assert [line.text for line in tournament.set_aside] == aside
    # Every game a good line holds is kept (from that line or an earlier one).
    assert {json.loads(line)["job_id"] for line in written if line in GOOD} <= set(
        tournament.reports
    )
    assert len(tournament.reports) == len(kept)
    # One line says what was set aside, naming the journal and the lines.
    text = tournament.set_aside_text()
    if aside:
        assert text is not None and "\n" not in text
        assert text.startswith(f"{folder / journal.JOURNAL}: line")
        assert str(tournament.set_aside[0].number) in text
    else:
        assert text is None
    # What was kept reads back whole: a second resume sets nothing aside.
    again = resume(folder)
    assert again.set_aside == [] and again.reports == tournament.reports
    games = (folder / journal.GAMES).read_bytes().decode()
    for line in kept:
        assert json.loads(line)["report"].get("bpgn", "").rstrip("\n") in games


def rows(path: Path) -> list[str]:
    """The lines of a file, cut at LF only."""
    text = path.read_bytes().decode("utf-8")
    return text.split("\n")[:-1] if text else []


def saved_options() -> dict[str, Any]:
    args = build_parser(("tournament",)).parse_args(
        ["tournament", "--engine", "a=random", "--engine", "b=random", "--games", "4"]
    )
    return {key: getattr(args, key) for key in command._SAVED}


TEXTS = st.sampled_from(["", "x", "0", "-1", "4", "1e9", "10+0", "a=random", "=", "+", "none"])
VALUE = st.one_of(JSON, TEXTS, st.lists(TEXTS, max_size=3))


@st.composite
def damaged_config(draw: st.DrawFn) -> str:
    """``tournament.json`` with some options replaced, or not an options file at all."""
    kind = draw(st.sampled_from(["options", "options", "shape", "cut"]))
    options = saved_options()
    if kind == "options":
        for key in draw(st.lists(st.sampled_from(command._SAVED), min_size=1, max_size=3)):
            options[key] = draw(VALUE)
        return json.dumps({"options": options})
    if kind == "shape":
        return json.dumps(draw(st.one_of(JSON, st.builds(lambda v: {"options": v}, JSON))))
    text = json.dumps({"options": options}, indent=1)
    return text[: draw(st.integers(0, len(text) - 1))]


def prepare(folder: Path) -> TournamentPlan:
    args = build_parser(("tournament",)).parse_args(["tournament", "--resume", str(folder)])
    merged, out = command._prepare_out(args)
    return command._plan(merged, out)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=damaged_config())
@example(text='{"options":{"engine":5}}')
@example(text='{"options":{"order":[5]}}')
def test_a_damaged_tournament_json_is_refused_in_one_line_naming_it(
    tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    folder = tmp_path_factory.mktemp("t")
    (folder / journal.CONFIG).write_text(text, "utf-8")
    try:
        plan = prepare(folder)
    except UsageError as exc:
        message = str(exc)
        assert "\n" not in message
        assert str(folder / journal.CONFIG) in message, message
    else:
        assert plan.jobs  # options that still read: the tournament resumes


# -- the real command ------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished four-game tournament of random movers (6 plies a game)."""
    folder = tmp_path_factory.mktemp("played") / "t"
    done = bughouse(
        "tournament", "--engine", "a=random", "--engine", "b=random", "--games", str(GAMES),
        "--tc", "2+0", "--rule", "max_plies=6", "--seed", "1", "--out", str(folder),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder


@pytest.mark.slow
@settings(max_examples=2, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    damage=st.one_of(
        st.tuples(st.just("journal"), st.integers(0, GAMES - 1), LINE),
        st.tuples(st.just("config"), st.just(0), damaged_config()),
    )
)
@example(damage=("journal", 1, '{"report": 5}'))
@example(damage=("config", 0, '{"options":{"engine":5}}'))
def test_bughouse_tournament_resume_of_a_damaged_folder_says_one_line(
    played: Path, tmp_path_factory: pytest.TempPathFactory, damage: tuple[str, int, str]
) -> None:
    what, index, text = damage
    folder = tmp_path_factory.mktemp("damaged") / "t"
    shutil.copytree(played, folder)
    lines = rows(folder / journal.JOURNAL)
    if what == "journal":
        lines[index] = text
        (folder / journal.JOURNAL).write_text("\n".join(lines) + "\n", "utf-8")
    else:
        (folder / journal.CONFIG).write_text(text, "utf-8")
    done = bughouse("tournament", "--resume", str(folder))
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 2), done.stderr
    assert len(done.stderr.splitlines()) <= 1, done.stderr
    if done.returncode == 2:
        assert done.stderr.startswith("bughouse tournament: error: "), done.stderr
        return
    if what == "config":
        return  # options that still read: whatever they now schedule is played
    # Resumed: the good lines are still there, and every game is in the journal once.
    after = rows(folder / journal.JOURNAL)
    for number, line in enumerate(lines):
        if number != index:
            assert line in after
    assert sorted(json.loads(line)["job_id"] for line in after) == sorted(
        job.job_id for job in plan_in(folder).jobs
    )
