"""A resume that reads the journal a line at a time ends in the state the
whole-file resume reached: the same reports, lines set aside, journal and games."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tournament_resume_fuzz import GOOD, LINE, Quiet, plan_in

from bughouse_arbiter.tournament import journal
from bughouse_arbiter.tournament.runner import Tournament


def whole_file_resume(folder: Path) -> Tournament:
    """The resume as it was: every line read into memory, then the files rewritten."""
    tournament = Tournament(plan_in(folder), Quiet())
    kept: dict[str, journal.Line] = {}
    for line in journal.read(folder):
        why = line.why or tournament._unfit(line, {k: v.number for k, v in kept.items()})
        if why:
            tournament.set_aside.append(line if line.why else line.set_aside(why))
        else:
            assert line.report is not None
            kept[line.report.job_id] = line
    in_schedule = [kept[j.job_id] for j in tournament.plan.jobs if j.job_id in kept]
    tournament.journal.open(in_schedule, tournament.set_aside)
    tournament.journal.close()
    for line in in_schedule:
        assert line.report is not None
        tournament._account(tournament.jobs[line.report.job_id], line.report)
    tournament.queue = deque(j for j in tournament.plan.jobs if j.job_id not in tournament.reports)
    return tournament


def _games(folder: Path) -> list[str]:
    text = (folder / journal.GAMES).read_text("utf-8")
    return sorted(game for game in text.split("\n\n") if game.strip())


def _aside(line: journal.Line) -> tuple[int, str, str]:
    return line.number, line.why, line.text


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.one_of(LINE, st.just(""), st.just("  ")), max_size=12),
    end=st.sampled_from(["\n", ""]),
    broken=st.booleans(),
    games=st.none() | st.binary(max_size=40),
)
def test_a_streamed_resume_reaches_the_whole_file_resumes_state(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    end: str,
    broken: bool,
    games: bytes | None,
) -> None:
    old, new = tmp_path_factory.mktemp("old"), tmp_path_factory.mktemp("new")
    data = ("\n".join(lines) + end).encode("utf-8")
    if broken and lines:
        data = data.replace(b"e", b"\xff", 1)  # a byte that is not UTF-8
    for folder in (old, new):
        (folder / journal.JOURNAL).write_bytes(data)
        if games is not None:
            (folder / journal.GAMES).write_bytes(games)
    before = whole_file_resume(old)
    after = Tournament(plan_in(new), Quiet())
    after.resume()
    after.journal.close()
    assert after.reports == before.reports
    assert list(after.reports) == list(before.reports)
    assert after.results() == before.results()
    assert [_aside(line) for line in after.set_aside] == [_aside(x) for x in before.set_aside]
    assert after.queue == before.queue
    assert after.summary()["pairings"] == before.summary()["pairings"]
    for name in (journal.JOURNAL, journal.SET_ASIDE):
        assert (new / name).exists() == (old / name).exists()
        if (old / name).exists():
            assert (new / name).read_bytes() == (old / name).read_bytes()
    assert _games(new) == _games(old)
    assert not list(new.glob("*.tmp"))


def test_a_clean_journal_is_not_rewritten_and_games_follow_the_journals_order(
    tmp_path: Path,
) -> None:
    lines = [GOOD[2], GOOD[0], GOOD[3]]
    path = tmp_path / journal.JOURNAL
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    inode = path.stat().st_ino
    tournament = Tournament(plan_in(tmp_path), Quiet())
    assert tournament.resume() == 3
    tournament.journal.close()
    assert path.stat().st_ino == inode  # appended to as it was, not replaced
    bpgn = [json.loads(line)["report"]["bpgn"] for line in lines]
    games = (tmp_path / journal.GAMES).read_text("utf-8")
    assert games == "".join(g.rstrip("\n") + "\n\n" for g in bpgn)
    # The games are counted in the schedule's order, as the whole-file resume did.
    assert [r.job_id for r in tournament.results()] == sorted(
        (json.loads(line)["job_id"] for line in lines),
        key=[j.job_id for j in tournament.plan.jobs].index,
    )


def test_games_bpgn_is_completed_where_the_run_stopped_and_left_alone_when_whole(
    tmp_path: Path,
) -> None:
    lines = GOOD[:3]
    (tmp_path / journal.JOURNAL).write_text("".join(line + "\n" for line in lines), "utf-8")
    bpgn = [json.loads(line)["report"]["bpgn"].rstrip("\n") + "\n\n" for line in lines]
    games = tmp_path / journal.GAMES
    games.write_text("".join(bpgn[:2]), "utf-8")  # stopped before the third game's BPGN
    tournament = Tournament(plan_in(tmp_path), Quiet())
    tournament.resume()
    tournament.journal.close()
    assert games.read_text("utf-8") == "".join(bpgn)
    inode = games.stat().st_ino
    again = Tournament(plan_in(tmp_path), Quiet())
    again.resume()
    again.journal.close()
    assert games.stat().st_ino == inode and games.read_text("utf-8") == "".join(bpgn)
