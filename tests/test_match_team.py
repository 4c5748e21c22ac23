"""``bughouse match --team``: one native engine process at both seats of a team,
through seat rotation, the BPGN names, the debug logs and the summary table."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import pytest
from cli_checks import expect_usage_error, run_bughouse

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.config.specs import rotated_seat, rotated_team, seat_engines, team_engines
from bughouse_arbiter.core.model import SEATS, Result, Seat, Team
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.ui.match_view import GameSummary, summary_table

ROOT = Path(__file__).resolve().parent.parent


#: ``bughouse`` as a process, as every test here runs it.
bughouse = partial(run_bughouse, timeout=60.0)


# -- options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--team", "1=uci:/usr/games/fairy-stockfish"], "only a native or team-uci engine"),
        (["--team", "2=xboard:/usr/games/sjeng"], "speaks xboard"),
        (["--team", "1=random", "--engine", "BB=random"], "seat B-Black belongs to team 1"),
        (["--team", "2=random", "--engine", "a-black=searcher"], "belongs to team 2"),
        (["--team", "3=random"], "unknown team '3'"),
        (["--team", "one=random"], "unknown team 'one'"),
        (["--team", "random"], "is not TEAM=SPEC"),
        (["--team", "1="], "cannot be empty"),
        (["--team", "1=random", "--team", "1=searcher"], "team 1 is given an engine twice"),
        (["--team", "1=./missing-engine"], "no such program"),
    ],
)
def test_bad_team_options_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("match", argv, message, capsys, tmp_path)


def test_a_team_engine_fills_both_seats_of_its_team() -> None:
    teams = team_engines(["2=random"])
    engines = seat_engines(["WA=searcher"], teams=teams)
    assert {seat: spec.name for seat, spec in engines.items()} == {
        Seat.A_WHITE: "searcher",
        Seat.A_BLACK: "random",
        Seat.B_WHITE: "random",
        Seat.B_BLACK: "searcher",
    }
    with pytest.raises(ConfigError, match="belongs to team 2"):
        seat_engines(["WB=searcher"], teams=teams)


@pytest.mark.parametrize("team", list(Team))
def test_a_team_follows_its_seats_as_they_rotate(team: Team) -> None:
    for index in range(8):
        moved = {rotated_seat(seat, index) for seat in team.seats}
        assert moved == set(rotated_team(team, index).seats)
    # A colour swap alone or a board swap alone changes the team; both together do not.
    assert [rotated_team(team, i) for i in range(4)] == [team, team.other, team.other, team]


def test_the_summary_marks_seats_held_by_a_team_engine() -> None:
    names = dict.fromkeys(SEATS, "R")
    games = [
        GameSummary(
            number=n,
            names=names,
            result=Result.TEAM_ONE,
            reason="A-Black checkmated",
            plies=10,
            seconds=1.0,
            side_one_team=side,
            team_seats=frozenset(side.seats),
        )
        for n, side in ((1, Team.ONE), (2, Team.TWO))
    ]
    lines = summary_table(games).splitlines()
    assert lines[0] == "engines: R = R (team), R2 = R"
    assert lines[2].split()[:5] == ["1", "R", "R2", "R2", "R"]
    assert lines[3].split()[:5] == ["2", "R2", "R", "R", "R2"]
    assert lines[-1].startswith("score: R (team) 1 - 1 R+R ")


# -- real matches ------------------------------------------------------------------


@pytest.mark.slow
def test_a_team_engine_plays_rotated_games_against_two_random_movers(tmp_path: Path) -> None:
    done = bughouse(
        "match",
        "--team",
        "1=random",
        "--engine",
        "BA=random",
        "--engine",
        "WB=random",
        "--games",
        "2",
        "--tc",
        "3",
        "--seed",
        "5",
        "--out",
        "t.bpgn",
        "--debug",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "engines: R = RandomMover 1.0 (team), R2 = RandomMover 1.0" in done.stdout
    assert "score: RandomMover 1.0 (team) " in done.stdout
    games = read_games((tmp_path / "t.bpgn").read_text())
    assert len(games) == 2
    for game in games:
        assert game.finished
        assert game.result_tag in {"1-0", "0-1", "1/2-1/2"}
        assert replay_game(game).ok
        assert {game.tag(tag) for tag in ("WhiteA", "BlackA", "WhiteB", "BlackB")} == {
            "RandomMover 1.0"
        }
    check = bughouse("replay", "--check", "t.bpgn", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "2 passed, 0 failed" in check.stdout
    # One log per process: in game 2 the team engine sits at team 2's seats.
    logs = sorted(p.name for p in tmp_path.glob("t.g*.log"))
    assert logs == [
        "t.g1.a-black.log",
        "t.g1.a-white+b-black.log",
        "t.g1.b-white.log",
        "t.g2.a-black+b-white.log",
        "t.g2.a-white.log",
        "t.g2.b-black.log",
    ]
    team_log = (tmp_path / "t.g2.a-black+b-white.log").read_text()
    assert "newgame id 2 seat a-black seat b-white " in team_log
    assert "bestmove" in team_log


@pytest.mark.slow
def test_an_engine_without_team_mode_is_refused_before_the_match(tmp_path: Path) -> None:
    solo = tmp_path / "solo.py"
    solo.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('bug'):\n"
        "        print('id name Solo', flush=True)\n"
        "        print('bugok', flush=True)\n"
    )
    done = bughouse(
        "match",
        "--team",
        f"2={sys.executable} solo.py",
        "--team",
        "1=random",
        "--tc",
        "3",
        "--out",
        "s.bpgn",
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1
    assert "it did not announce 'feature team', so it cannot hold two seats" in done.stderr
    assert done.stdout == ""  # nothing played, nothing scored
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solo.py"]  # no file written
