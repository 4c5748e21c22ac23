"""What went wrong is counted once, under its kind (illegal move, failed start,
hang, crash, time loss), in summary.json, the final table and report.html;
a run that does not play what was asked says so (summary, exit status 4,
the page's banner)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trio
from test_tournament_clocks import Quiet, _plan

from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.tournament import report_text
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.exits import INCOMPLETE
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport, SeatIncident
from bughouse_arbiter.tournament.live import LiveTally
from bughouse_arbiter.tournament.report_page import PageView, tournament_page
from bughouse_arbiter.tournament.runner import Tournament
from bughouse_arbiter.tournament.scheduler import NextJob, OnReport, SchedulerStats
from bughouse_arbiter.tournament.stats import Sprt

GUARD = 20


def _seat_of(job: MatchJob, name: str) -> Seat:
    return next(s for s in (Seat.A_WHITE, Seat.A_BLACK) if job.participant_at(s) == name)


def _lost(job: MatchJob, name: str, kind: str, *, harness: bool = False) -> MatchReport:
    """``name`` lost game ``job`` by an incident of ``kind`` (a hang is a flag
    and then no answer to the ping, as ``tournament/play.py`` reports it)."""
    seat = _seat_of(job, name)
    flagged = kind in ("time", "hang")
    incident = SeatIncident(seat=seat, participant=name, engine="random", kind=kind, text=kind)
    return MatchReport(
        job_id=job.job_id,
        result=Result.TEAM_ONE if seat.team.value == 2 else Result.TEAM_TWO,
        termination="flag" if flagged else "left",
        incidents=(incident,),
        time_losses=(seat,) if flagged else (),
        harness_time_losses=(seat,) if flagged and harness else (),
        bpgn='[Event "x"]\n\n*\n',
    )


def _draw(job: MatchJob) -> MatchReport:
    return MatchReport(job_id=job.job_id, result=Result.DRAW, bpgn='[Event "x"]\n\n*\n')


async def _play(tournament: Tournament, report_of: object) -> None:
    class Scripted:
        concurrency = 1
        stats = SchedulerStats()

        async def run(self, next_job: NextJob, on_report: OnReport) -> None:
            while (job := next_job()) is not None:
                await on_report(report_of(job))  # type: ignore[operator]

    tournament.resume()
    with trio.fail_after(GUARD):
        await tournament.run(Scripted(), trio.CancelScope())


async def test_each_incident_counts_once_under_its_own_kind(tmp_path: Path) -> None:
    tournament = Tournament(_plan(tmp_path, 8, max_failures=10), Quiet())
    # b: a hang (on the flag, which the harness's delay might have caused), a
    # crash, a failed start, an illegal move, a time loss the harness may have
    # caused; a: one time loss.
    script = [
        ("b", "hang", True), ("b", "crash", False), ("b", "start", False),
        ("b", "illegal", False), ("b", "time", True), ("a", "time", False),
    ]  # fmt: skip
    games = iter(script)

    def report_of(job: MatchJob) -> MatchReport:
        step = next(games, None)
        return _draw(job) if step is None else _lost(job, step[0], step[1], harness=step[2])

    await _play(tournament, report_of)
    summary = tournament.summary()
    assert summary["illegal_moves"] == {"a": 0, "b": 1}
    assert summary["failed_starts"] == {"a": 0, "b": 1}
    assert summary["hangs"] == {"a": 0, "b": 1}
    assert summary["crashes"] == {"a": 0, "b": 1}  # the hang is not a crash too ...
    assert summary["time_losses"] == {"a": 1, "b": 1}  # ... nor a time loss
    assert summary["harness_time_losses"] == {"a": 0, "b": 1}  # among the time losses
    assert summary["shortfall"] is None and summary["dropped"] == {}
    # The final table: one column each, in that order.
    text = report_text(summary)
    assert re.search(r"\nincidents +moves +starts +hangs +crashes +losses +harness\n", text)
    assert re.search(r"\na +0 +0 +0 +0 +1 +0\n", text)
    assert re.search(r"\nb +1 +1 +1 +1 +1 +1\n", text)
    # The report page's table: the same columns.
    page = tournament_page(
        PageView(summary=summary, tally=LiveTally(), state="finished", updated="now")
    )
    heads = ["illegal moves", "failed starts", "hangs", "crashes", "time losses", "by the harness"]
    assert "".join(f"<th>{h}</th>" for h in heads) in page
    b_row = re.search(r'<span class="name">b</span></td>((?:<td>\d+</td>){6})', page)
    assert b_row is not None and b_row.group(1) == "<td>1</td>" * 6


async def test_a_dropped_participant_is_a_shortfall(tmp_path: Path) -> None:
    """The issue's run: b crashes 3 games in a row and is dropped; 3 of 8 played."""
    tournament = Tournament(_plan(tmp_path, 8, max_failures=3), Quiet())
    await _play(tournament, lambda job: _lost(job, "b", "crash"))
    summary = tournament.summary()
    assert summary["games_played"] == 3 and "b" in summary["dropped"]
    assert summary["shortfall"] == (
        "5 of 8 scheduled games not played (b dropped after 3 failures in a row: 5 games)"
    )
    page = tournament_page(
        PageView(summary=summary, tally=LiveTally(), state="incomplete", updated="now")
    )
    assert '<p class="banner" role="alert"><strong>Not what was asked:</strong> 5 of 8' in page
    assert '<span class="pill incomplete">incomplete</span>' in page


async def test_games_given_up_are_a_shortfall_and_a_decided_sprt_is_not(
    tmp_path: Path,
) -> None:
    tournament = Tournament(_plan(tmp_path / "given", 4), Quiet())
    first = tournament.plan.jobs[0].job_id

    def report_of(job: MatchJob) -> MatchReport:
        if job.job_id == first:  # the harness fails it every time
            return MatchReport(job_id=job.job_id, result=Result.UNFINISHED, error="broken")
        return _draw(job)

    await _play(tournament, report_of)
    assert tournament.summary()["shortfall"] == (
        "1 of 4 scheduled games not played (given up: 1 game)"
    )
    # An SPRT that decided stopped the run on purpose: the rest is not owed.
    sprt = Sprt(elo0=0, elo1=400, alpha=0.2, beta=0.2, model="logistic")
    decided = Tournament(_plan(tmp_path / "sprt", 400, sprt=sprt), Quiet())
    await _play(decided, lambda job: _lost(job, "b", "time"))
    summary = decided.summary()
    assert decided.decision is not None
    assert summary["shortfall"] is None


@pytest.mark.slow
def test_a_run_that_dropped_a_participant_exits_4_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament", "--engine", "good=random", "--engine", "bad=faulty-crash",
        "--games", "8", "--tc", "5+0", "--recover", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == INCOMPLETE
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        "bughouse tournament: error: incomplete: 5 of 8 scheduled games not played "
        "(bad dropped after 3 failures in a row: 5 games); exit status 4"
    )
    assert "Traceback" not in captured.err
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 3 and data["crashes"] == {"good": 0, "bad": 3}
    page = (out / "report.html").read_text()
    assert "<strong>Not what was asked:</strong> 5 of 8 scheduled games not played" in page
    assert '<span class="pill incomplete">' in page
