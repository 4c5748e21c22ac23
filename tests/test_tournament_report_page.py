"""What a tournament shows as it runs: the live tally, each pairing's status,
``--report-every``, and ``report.html`` (bounded, escaped, self-contained,
rewritten atomically and not too often)."""

from __future__ import annotations

import io
import itertools
import math
import re
from pathlib import Path

import pytest

from bughouse_arbiter.commands.tournament import LineProgress
from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.display import WIDTH
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.live import MAX_POINTS, LiveTally, Point, Trajectory
from bughouse_arbiter.tournament.report_file import REPORT, ReportFile
from bughouse_arbiter.tournament.report_page import PageView, tournament_page
from bughouse_arbiter.tournament.results import GameResult, pairing_summary
from bughouse_arbiter.tournament.runner import Tournament, TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant, schedule, side_of
from bughouse_arbiter.tournament.stats import Sprt


def _jobs(names: str, games: int, format: str = "gauntlet") -> list[MatchJob]:
    spec = engine_spec("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in names]
    return schedule(teams, format=format, games=games, rules=HouseRules(), openings=[])


def _report(job: MatchJob, first_points: float, **fields: object) -> MatchReport:
    """The pairing's first participant scores ``first_points``."""
    team = side_of(job.game)
    if first_points == 0.5:
        result = Result.DRAW
    else:
        winner = team if first_points == 1.0 else team.other
        result = Result.TEAM_ONE if winner.value == 1 else Result.TEAM_TWO
    return MatchReport(job_id=job.job_id, result=result, reason="r", plies=10, **fields)  # type: ignore[arg-type]


POINTS = [1.0, 0.5, 0.0, 1.0, 1.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.0, 0.5]


# -- the tally ---------------------------------------------------------------------------


def test_a_trajectory_stays_bounded_and_ends_where_the_run_is() -> None:
    trajectory = Trajectory()
    for games in range(1, 100_001):
        trajectory.add(Point(games, float(games)))
        assert len(trajectory._kept) < MAX_POINTS
    points = trajectory.points()
    assert len(points) <= MAX_POINTS + 1
    assert points[-1].games == 100_000 and points[0].games <= 256
    steps = {b.games - a.games for a, b in itertools.pairwise(points[:-1])}
    assert len(steps) == 1  # evenly spaced


def test_the_tally_counts_as_the_summary_does() -> None:
    jobs = _jobs("ab", len(POINTS))
    tally = LiveTally(Sprt(elo0=0, elo1=10))
    results = []
    for job, points in zip(reversed(jobs), POINTS, strict=True):  # any order
        tally.add(job, _report(job, points))
        team = side_of(job.game)
        results.append(
            GameResult(
                job_id=job.job_id,
                pairing=0,
                game=job.game,
                first=job.sides[team],
                second=job.sides[team.other],
                points=points,
            )
        )
    expected = pairing_summary(results)
    assert tally.pairings[0].summary() == expected
    sprt = Sprt(elo0=0, elo1=10)
    llrs = tally.pairings[0].llr_points(sprt)
    assert len(llrs) == len(POINTS) and llrs[-1].value == sprt.llr(expected.penta)
    assert tally.pairings[0].llr_now(sprt) == llrs[-1].value
    elo = tally.pairings[0].elo.points()[-1]
    assert (elo.value, (elo.low, elo.high)) == (expected.elo, expected.elo_interval())


def test_the_tally_keeps_each_participants_harness_delay() -> None:
    [job] = _jobs("ab", 1)
    report = _report(
        job,
        1.0,
        time_losses=(Seat.A_BLACK,),
        harness_delay={Seat.A_WHITE: 0.002, Seat.B_BLACK: 0.004, Seat.A_BLACK: 0.001},
    )
    tally = LiveTally()
    tally.add(job, report)
    one, two = job.sides[Seat.A_WHITE.team], job.sides[Seat.A_BLACK.team]
    assert tally.engines[one].delay_mean == pytest.approx(0.003)
    assert tally.engines[one].delay_max == pytest.approx(0.004)
    assert tally.engines[two].seat_games == 1


# -- progress ----------------------------------------------------------------------------


class _Quiet:
    def begin(self, total: int, done: int) -> None: ...
    def game(self, *args: object) -> None: ...
    def message(self, text: str) -> None: ...
    def end(self) -> None: ...


def _progress(tmp_path: Path, jobs: list[MatchJob], names: str, every: int = 0) -> LineProgress:
    spec = engine_spec("random")
    teams = tuple(Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in names)
    plan = TournamentPlan(
        participants=teams,
        format="gauntlet",
        games=2,
        rules=HouseRules(),
        jobs=tuple(jobs),
        out=tmp_path,
    )
    tournament = Tournament(plan, _Quiet())
    progress = LineProgress(io.StringIO(), clock=lambda: 0.0)
    progress.report_every = every
    progress.attach(ReportFile(tmp_path, None), tournament.summary, None)
    progress.begin(len(jobs), 0)
    progress._tournament = tournament  # type: ignore[attr-defined]
    return progress


def _play(progress: LineProgress, job: MatchJob, points: float) -> None:
    report = _report(job, points)
    progress._tournament._account(job, report)  # type: ignore[attr-defined]
    progress.game(job, report, "ignored")


def test_each_game_shows_its_own_pairings_record_in_80_columns(tmp_path: Path) -> None:
    jobs = _jobs("abc", 2)
    progress = _progress(tmp_path, jobs, "abc")
    for job, points in zip(jobs, (1.0, 0.5, 0.0, 0.0), strict=True):
        _play(progress, job, points)
    out = progress.out.getvalue()  # type: ignore[attr-defined]
    assert "a vs b: +1 -0 =1 · 1 pair · Elo" in out
    assert "a vs c: +0 -2 =0 · 1 pair · Elo -inf" in out
    assert all(len(line) <= WIDTH for line in out.splitlines())
    firsts = [line.split(":")[0] for line in progress.status_lines() if line[0] != " "]
    assert firsts == ["a vs b", "a vs c"]  # every pairing, in schedule order


def test_report_every_n_games_prints_the_full_report(tmp_path: Path) -> None:
    jobs = _jobs("abc", 4)
    progress = _progress(tmp_path, jobs, "abc", every=3)
    for job in jobs[:7]:
        _play(progress, job, 1.0)
    out = progress.out.getvalue()  # type: ignore[attr-defined]
    assert out.count("-- report after") == 2
    assert "-- report after 3 games --" in out and "-- report after 6 games --" in out
    after_six = out.split("-- report after 6 games --")[1]
    assert "games: 6 of 8 scheduled" in after_six and " 1  a " in after_six
    assert all(len(line) <= WIDTH for line in out.splitlines())
    page = (tmp_path / REPORT).read_text()  # written after the first game, then throttled
    assert ">running<" in page and 'id="game-1"' in page


def test_the_live_bar_shows_every_pairings_status(tmp_path: Path) -> None:
    from bughouse_arbiter.commands.tournament import RichProgress

    jobs = _jobs("abc", 2)
    out = io.StringIO()
    progress = RichProgress(out)
    tournament = _progress(tmp_path, jobs, "abc")._tournament  # type: ignore[attr-defined]
    progress.attach(ReportFile(tmp_path, None), tournament.summary, None)
    progress.begin(len(jobs), 0)
    for job, points in zip(jobs, (1.0, 0.0, 0.5, 1.0), strict=True):
        report = _report(job, points)
        tournament._account(job, report)
        progress.game(job, report, "ignored")
    progress.end()
    text = out.getvalue()
    assert "a vs b: +1 -1 =0" in text and "a vs c: +1 -0 =1" in text


# -- the page ----------------------------------------------------------------------------


def _summary(first: str = "a", second: str = "b", sprt: bool = False) -> dict[str, object]:
    summary: dict[str, object] = {
        "event": "an <event>",
        "format": "gauntlet",
        "time_control": "5+0",
        "games_played": 12,
        "games_scheduled": 20,
        "standings": [
            {"name": n, "games": 12, "wins": 5, "losses": 4, "draws": 3, "points": 6.5,
             "elo": 10.0, "elo_margin": 90.0}
            for n in (first, second)
        ],
        "pairings": [
            {"first": first, "second": second, "wins": 5, "losses": 4, "draws": 3,
             "pentanomial": {"LL": 1, "LD": 1, "DD+WL": 2, "WD": 1, "WW": 1}}
        ],
        "crosstable": {},
        "crashes": {},
        "time_losses": {first: 2},
        "harness_time_losses": {},
        "dropped": {},
        "given_up": {},
    }
    if sprt:
        summary["sprt"] = {"elo0": 0, "elo1": 10, "model": "normalized", "llr": 0.5,
                           "lower": -2.94, "upper": 2.94, "decision": None, "pairs": 6}
    return summary


def test_the_page_escapes_the_runs_texts_and_needs_no_network() -> None:
    hostile = "</style><script>alert(1)</script>"
    jobs = _jobs("ab", 4)
    tally = LiveTally()
    for job in jobs:
        tally.add(job, _report(job, 1.0))
    page = tournament_page(
        PageView(summary=_summary(first=hostile), tally=tally, state="running", updated="now")
    )
    assert "<script" not in page and "alert(1)" in page.replace("&lt;", "<")
    assert not re.search(r"(src|href)=\"(https?:)?//", page) and "<link" not in page
    assert "&lt;event&gt;" in page


def test_the_page_stays_small_however_long_the_run(tmp_path: Path) -> None:
    sprt = Sprt(elo0=0, elo1=10, model="logistic")  # the faster model: same plot
    jobs = _jobs("ab", 3000)
    tally = LiveTally(sprt)
    for job, points in zip(jobs, [1.0, 0.5, 0.0, 0.5] * 750, strict=True):
        tally.add(job, _report(job, points))
    page = tournament_page(
        PageView(summary=_summary(sprt=True), tally=tally, state="running", updated="now")
    )
    paths = re.findall(r'<path class="line[^"]*" d="([^"]*)"', page)
    assert len(paths) == 2  # Elo and LLR
    for d in paths:
        assert 100 < d.count("L") <= MAX_POINTS
    assert '<path class="band"' in page
    assert len(page) < 150_000
    assert page.count("<tr>") < 70  # the last games only


def test_an_infinite_elo_is_drawn_at_the_edge_not_lost() -> None:
    jobs = _jobs("ab", 4)
    tally = LiveTally()
    for job in jobs:
        tally.add(job, _report(job, 1.0))  # +inf all along
    page = tournament_page(PageView(summary=_summary(), tally=tally, state="finished", updated=""))
    [d] = re.findall(r'<path class="line" d="([^"]*)"', page)
    assert "nan" not in d and "inf" not in d
    assert all(math.isfinite(float(v)) for v in re.findall(r"-?\d+\.\d", d))


def test_the_report_file_is_replaced_whole_and_not_too_often(tmp_path: Path) -> None:
    now = [0.0]
    page = ReportFile(tmp_path, None, clock=lambda: now[0])
    [job] = _jobs("ab", 1)
    page.game(job, _report(job, 1.0))
    calls: list[float] = []

    def summary() -> dict[str, object]:
        calls.append(now[0])
        return _summary()

    for t in (0.0, 1.0, 1.9, 2.0, 3.0, 4.5):
        now[0] = t
        page.update(summary)
    assert calls == [0.0, 2.0, 4.5]
    assert page.writes == 3
    assert [p.name for p in tmp_path.iterdir()] == [REPORT]  # no temporary file left
    page.finish(_summary(), "finished")
    assert "finished" in (tmp_path / REPORT).read_text()


def test_a_report_that_cannot_be_written_is_said_once(tmp_path: Path) -> None:
    said: list[str] = []
    page = ReportFile(tmp_path / "gone", None, clock=lambda: 0.0, warn=said.append)
    page.finish(_summary(), "finished")
    page.finish(_summary(), "finished")
    assert len(said) == 1 and "cannot write" in said[0]


def test_a_page_that_cannot_be_made_is_said_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bughouse_arbiter.tournament.report_file as report_file

    def broken(view: PageView) -> str:
        raise KeyError("standings")

    monkeypatch.setattr(report_file, "tournament_page", broken)
    said: list[str] = []
    now = [0.0]
    page = ReportFile(tmp_path, None, clock=lambda: now[0], warn=said.append)
    for t in (0.0, 5.0):
        now[0] = t
        page.update(_summary)
    assert said == [f"cannot make {tmp_path / REPORT}: KeyError: 'standings'"]


def test_the_standings_keep_to_80_columns_with_long_names() -> None:
    from bughouse_arbiter.commands.tournament import report_text

    names = ("champion-engine-v2", "champion-engine-v3")
    summary = {
        **_summary(*names),
        "crashes": {},
        "games_played": 12,
        "games_scheduled": 20,
    }
    text = report_text(summary)
    assert all(len(line) <= WIDTH for line in text.splitlines())
    assert " champi…ine-v2 " in text and " champi…ine-v3 " in text  # told apart
