"""A test's meaning on a busy machine: the time margin (a grace past a clock's
zero, ``--time-margin``) and the warning when many games are lost on time
while the harness's own delay explains few of them."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
import trio
from cli_checks import expect_usage_error
from fakes import Move, silent_table
from test_tournament_report_page import _summary as page_summary

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.tournament import LineProgress, report_text
from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.model import Result, Seat, Team, Termination
from bughouse_arbiter.core.rules import RULE_NAMES, HouseRules
from bughouse_arbiter.errors import RuleError
from bughouse_arbiter.table.arbiter import run_match
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.live import LiveTally
from bughouse_arbiter.tournament.machine import WARN_MIN_GAMES, clock_warning
from bughouse_arbiter.tournament.report_page import PageView, tournament_page
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import NextJob, OnReport, SchedulerStats

# -- the margin on the clocks ------------------------------------------------------------


def test_a_margin_moves_the_flag_past_zero() -> None:
    clocks = Clocks.new(10.0, margin=0.5).start(Seat.A_WHITE, 0.0)
    flag = clocks.next_deadline()
    assert flag is not None and flag.deadline == 10.5
    assert clocks.flagged(10.2) == ()
    assert clocks.flagged(10.5) == (Seat.A_WHITE,)
    assert Clocks.new(10.0).start(Seat.A_WHITE, 0.0).flagged(10.2) == (Seat.A_WHITE,)


def test_a_move_within_the_margin_leaves_the_increment_only() -> None:
    clocks = Clocks.new(10.0, 2.0, margin=0.5).start(Seat.A_WHITE, 0.0)
    pressed, used = clocks.press(Seat.A_WHITE, 10.3)
    assert used == pytest.approx(10.3)
    assert pressed.banked[Seat.A_WHITE] == 2.0  # 0, not -0.3, plus the increment
    # Without a margin the overrun stays on the clock, as before.
    late, _ = Clocks.new(10.0, 2.0).start(Seat.A_WHITE, 0.0).press(Seat.A_WHITE, 10.3)
    assert late.banked[Seat.A_WHITE] == pytest.approx(1.7)


def test_the_turn_limit_gets_the_margin_too() -> None:
    rules = HouseRules(time=60.0, turn_time_limit=5.0, time_margin=0.25)
    flag = Clocks.for_rules(rules).start(Seat.B_BLACK, 1.0).next_deadline()
    assert flag is not None and flag.deadline == 6.25 and flag.turn_limit


def test_the_margin_is_no_rule_told_to_engines_and_cannot_be_negative() -> None:
    assert "time_margin" not in RULE_NAMES
    rules = HouseRules(time_margin=0.1)
    assert ("time_margin", "0.1") not in rules.to_pairs()
    with pytest.raises(RuleError, match="time_margin must be >= 0"):
        HouseRules(time_margin=-1.0)
    with pytest.raises(ValueError, match="margin"):
        Clocks.new(10.0, margin=-0.1)


async def test_a_move_within_the_margin_plays_on_under_the_arbiter(
    autojump_clock: object,
) -> None:
    # Both White clocks run from 0 with 10 s. A-White moves at 10.3: without a
    # margin both Whites flagged at 10 (a draw); with 0.5 s only the silent
    # B-White flags, at 10.5, and team 1 (A-White + B-Black) wins.
    rules = HouseRules(time=10.0, time_margin=0.5)
    record = await run_match(silent_table(a_white=[Move("e2e4", 10.3)]), rules)
    assert record.outcome.termination is Termination.FLAG
    assert record.outcome.seat is Seat.B_WHITE and record.outcome.winner is Team.ONE
    assert record.ended == 10.5
    assert record.game.plies == 1
    plain = await run_match(silent_table(a_white=[Move("e2e4", 10.3)]), HouseRules(time=10.0))
    assert plain.outcome.result is Result.DRAW and plain.ended - plain.started == 10.0


# -- the warning -------------------------------------------------------------------------


def _report(number: int, *, flag: bool, harness: bool = False) -> MatchReport:
    seats = (Seat.A_BLACK,) if flag else ()
    return MatchReport(
        job_id=f"p0-g{number}",
        result=Result.TEAM_ONE if flag else Result.DRAW,
        termination="flag" if flag else "checkmate",
        time_losses=seats,
        harness_time_losses=seats if harness else (),
        bpgn='[Event "x"]\n\n*\n',
    )


def test_many_time_losses_the_harness_did_not_cause_are_warned_of() -> None:
    reports = [_report(n, flag=n < 8) for n in range(10)]
    warning = clock_warning(reports)
    assert warning is not None
    assert warning.startswith("8 of 10 games (80%) were lost on time")
    assert "caused at most 0 of them" in warning and "--use-affinity" in warning


@pytest.mark.parametrize(
    ("reports", "why"),
    [
        ([_report(n, flag=True) for n in range(WARN_MIN_GAMES - 1)], "too few games"),
        ([_report(n, flag=n < 2) for n in range(10)], "few time losses"),
        ([_report(n, flag=n < 8, harness=n < 4) for n in range(10)], "the harness's own"),
    ],
)
def test_no_warning(reports: list[MatchReport], why: str) -> None:
    assert clock_warning(reports) is None, why


def _plan(folder: Path, games: int, **fields: object) -> TournamentPlan:
    folder.mkdir(parents=True, exist_ok=True)
    spec = builtin_engine("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    rules = HouseRules(time=2.0)
    jobs = schedule(teams, format="gauntlet", games=games, rules=rules, openings=[])
    return TournamentPlan(
        participants=tuple(teams), format="gauntlet", games=games, rules=rules,
        jobs=tuple(jobs), out=folder, **fields,  # type: ignore[arg-type]
    )  # fmt: skip


class Quiet:
    """A progress that shows nothing."""

    def begin(self, total: int, done: int) -> None: ...
    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: object = None
    ) -> None: ...
    def message(self, text: str) -> None: ...
    def end(self) -> None: ...


async def played(plan: TournamentPlan, report_of: Callable[[MatchJob], MatchReport]) -> Tournament:
    """``plan``'s tournament, each job reported at once as ``report_of`` says."""
    tournament = Tournament(plan, Quiet())
    tournament.resume()

    class Reports:
        concurrency = 1
        stats = SchedulerStats()

        async def run(self, next_job: NextJob, on_report: OnReport) -> None:
            while (job := next_job()) is not None:
                await on_report(attrs.evolve(report_of(job), job_id=job.job_id))

    with trio.fail_after(20):
        await tournament.run(Reports(), trio.CancelScope())
    return tournament


async def test_the_summary_and_its_report_carry_the_warning(tmp_path: Path) -> None:
    tournament = await played(
        _plan(tmp_path, 12), lambda job: _report(job.game, flag=job.game % 4 != 0)
    )
    summary = tournament.summary()
    warning = summary["clock_warning"]
    assert isinstance(warning, str) and warning.startswith("9 of 12 games (75%)")
    text = report_text(summary)
    assert "warning: 9 of 12 games (75%) were lost on time" in text
    assert all(len(line) <= 80 for line in text.splitlines())


# -- the command line --------------------------------------------------------------------

TWO = ["--engine", "a=random", "--engine", "b=random"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--time-margin", "x"], "--time-margin takes milliseconds, not 'x'"),
        (["--time-margin", "-1"], "--time-margin takes milliseconds from 0, not '-1'"),
        (["--time-margin", "inf"], "--time-margin takes milliseconds from 0, not 'inf'"),
    ],
)
def test_bad_margins_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("tournament", [*TWO, *argv], message, capsys, tmp_path)


@pytest.mark.slow
def test_the_margin_is_a_setting_of_the_tournament_in_every_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = ["tournament", *TWO, "--games", "2", "--tc", "5+0", "--rule", "max_plies=40"]
    assert main([*argv, "--time-margin", "150", "--out", str(out)]) == 0
    games = read_games((out / "games.bpgn").read_text())
    assert [g.tag("TimeMargin") for g in games] == ["150", "150"]
    # Saved with the tournament: a resume cannot change it.
    assert main(["tournament", "--resume", str(out), "--time-margin", "300"]) == 2


def test_the_warning_is_said_once_while_the_run_goes_on() -> None:
    out = io.StringIO()
    progress = LineProgress(out)
    jobs = schedule(
        _plan(Path("."), 2).participants, format="gauntlet", games=14, rules=HouseRules(),
        openings=[],
    )  # fmt: skip
    progress.begin(len(jobs), 0)
    said: list[int] = []
    for job in jobs:
        report = attrs.evolve(_report(job.game, flag=True), job_id=job.job_id)
        progress.game(job, report, "a vs b")
        said.append(out.getvalue().count("warning: "))
    # From the 10th game on, once; the final report (not printed here) says it at the end.
    assert said == [0] * 9 + [1] * 5
    assert "warning: 10 of 10 games (100%) were lost on time" in out.getvalue()
    assert all(len(line) <= 80 for line in out.getvalue().splitlines())


def test_the_report_page_lists_the_warning_first_among_the_problems() -> None:
    summary = {**page_summary(), "clock_warning": "9 of 12 games <were> lost on time"}
    summary["dropped"] = {"b": "3 failures in a row"}
    page = tournament_page(
        PageView(summary=summary, tally=LiveTally(), state="running", updated="")
    )
    problems = page[page.index("Problems") :]
    assert problems.index("clocks: 9 of 12 games &lt;were&gt; lost") < problems.index("dropped: b")
    quiet = tournament_page(
        PageView(summary=page_summary(), tally=LiveTally(), state="running", updated="")
    )
    assert "clocks:" not in quiet
