"""``bughouse tournament`` end to end: output folder, resume, SPRT, crashes, bad input."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_checks import expect_usage_error

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.cli import main
from bughouse_arbiter.exits import INCOMPLETE

ROOT = Path(__file__).resolve().parent.parent


def journal(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def summary(folder: Path) -> dict[str, object]:
    """summary.json without what describes the session rather than the games."""
    data = json.loads((folder / "summary.json").read_text())
    data.pop("written")
    data.pop("engines_this_session")
    data.pop("loop_lag_this_session")
    return data


def games_in(folder: Path) -> list[str]:
    games = read_games((folder / "games.bpgn").read_text())
    for game in games:
        assert replay_game(game).ok
    return [g.tag("Round") or "" for g in games]


def four_random_games(out: Path, *extra: str) -> list[str]:
    """``tournament`` argv: two random movers, four short games written to ``out``."""
    return [
        "tournament",
        "--engine",
        "a=random",
        "--engine",
        "b=random",
        "--games",
        "4",
        "--tc",
        "5+0",
        "--rule",
        "max_plies=150",
        *extra,
        "--out",
        str(out),
    ]


@pytest.mark.slow
def test_a_small_gauntlet_writes_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = four_random_games(out, "--seed", "1")
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "game 4 (4/4)" in printed and "a vs b: 4 games" in printed
    assert sorted(games_in(out), key=int) == ["1", "2", "3", "4"]
    lines = journal(out)
    assert len(lines) == 4 and len({line["job_id"] for line in lines}) == 4
    data = summary(out)
    assert data["games_played"] == 4 and data["complete"] is True
    standings = data["standings"]
    assert isinstance(standings, list)
    assert {row["name"]: row["games"] for row in standings} == {"a": 4, "b": 4}
    [pairing] = data["pairings"]  # type: ignore[misc]
    assert sum(pairing["pentanomial"].values()) == 2
    assert pairing["wins"] + pairing["losses"] + pairing["draws"] == 4
    # Every game says where it belongs.
    text = (out / "games.bpgn").read_text()
    assert text.count('[Tournament "bughouse-arbiter tournament"]') == 4
    assert text.count("[Opening ") == 4 and text.count("[OpeningPair ") == 4


@pytest.mark.slow
def test_interrupt_then_resume_gives_every_game_once(tmp_path: Path) -> None:
    out = tmp_path / "t"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [
        sys.executable,
        "-m",
        "bughouse_arbiter",
        "tournament",
        "--engine",
        "a=random",
        "--engine",
        "b=random",
        "--games",
        "10",
        "--tc",
        "4+0",
        "--concurrency",
        "2",
        "--force-concurrency",
        "--out",
        str(out),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        path = out / "results.jsonl"
        if path.exists() and len(path.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    assert f"--resume {out}" in stdout
    played = len(journal(out))
    assert 3 <= played < 10
    assert ">interrupted<" in (out / "report.html").read_text()
    with (out / "results.jsonl").open("a") as handle:
        handle.write('{"job_id": "p0-g9", "report": {"torn')  # a power loss mid-line
    assert main(["tournament", "--resume", str(out)]) == 0
    lines = journal(out)
    assert sorted(line["job_id"] for line in lines) == sorted(f"p0-g{g}" for g in range(10))
    assert sorted(games_in(out), key=int) == [str(n) for n in range(1, 11)]
    # The statistics are those of the ten games, whatever order they came in.
    first = summary(out)
    assert main(["tournament", "--resume", str(out)]) == 0  # nothing left to play
    assert summary(out) == first
    assert len(journal(out)) == 10


@pytest.mark.slow
def test_sprt_stops_early_with_h1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine",
        "searcher=searcher",
        "--engine",
        "random=random",
        "--sprt",
        "elo0=0,elo1=150",
        "--tc",
        "2+0",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    data = summary(out)
    sprt = data["sprt"]
    assert isinstance(sprt, dict)
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["upper"]
    assert isinstance(data["games_played"], int) and data["games_played"] < 40
    assert "H1 accepted" in capsys.readouterr().out


@pytest.mark.slow
def test_a_crashing_engine_forfeits_its_games_and_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine",
        "good=random",
        "--engine",
        "bad=faulty-crash",
        "--games",
        "4",
        "--tc",
        "5+0",
        "--max-failures",
        "10",
        "--recover",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    data = summary(out)
    assert data["crashes"] == {"good": 0, "bad": 4}
    assert data["hangs"] == data["time_losses"] == {"good": 0, "bad": 0}
    incidents = data["incidents"]
    assert isinstance(incidents, list) and len(incidents) == 4
    assert all("crashing on purpose" in i["text"] for i in incidents)
    assert data["standings"][0]["name"] == "good"  # type: ignore[index]
    assert data["standings"][0]["wins"] == 4  # type: ignore[index]
    assert re.search(r"\nbad +0 +0 +0 +4 +0 +0\n", capsys.readouterr().out)


@pytest.mark.slow
def test_a_participant_failing_too_often_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine",
        "good=random",
        "--engine",
        "bad=faulty-crash",
        "--engine",
        "other=random",
        "--format",
        "round-robin",
        "--games",
        "4",
        "--tc",
        "5+0",
        "--rule",
        "max_plies=150",
        "--max-failures",
        "2",
        "--recover",
        "--out",
        str(out),
    ]
    assert main(argv) == INCOMPLETE  # bad's remaining games are not played
    data = summary(out)
    assert "bad" in data["dropped"]  # type: ignore[operator]
    assert data["crashes"]["bad"] == 2  # type: ignore[index]
    assert data["games_played"] == 2 + 4  # bad's first two games, then good vs other
    assert "bad dropped: 2 failures in a row" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--engine", "a=random"], "at least two participants"),
        (["--engine", "a=random", "--engine", "a=random"], "'a' is given twice"),
        (["--engine", "a=random", "--engine", "b=random", "--games", "0"], "at least 1"),
        (
            ["--engine", "a=random", "--engine", "b=random", "--games", "3"],
            "--games 3: openings are played in pairs",
        ),
        (
            ["--engine", "a=random", "--engine", "b=random", "--games", "2", "--rounds", "1"],
            "not both",
        ),
        (
            ["--engine", "a=random", "--engine", "b=random", "--sprt", "elo0=5,elo1=0"],
            "elo0 must be below elo1",
        ),
        (["--engine", "a=random", "--engine", "b=random", "--sprt", "nonsense"], "expected elo0=X"),
        (["--engine", "a=random", "--team", "t=random"], "expected NAME=SPEC1+SPEC2"),
        (
            ["--engine", "a=random", "--team", "t=team:uci:stockfish"],
            "only a native or team-uci engine",
        ),
        (["--engine", "a=random", "--engine", "b=no-such-engine-here"], "not found"),
        (
            ["--engine", "a=random", "--engine", "b=random", "--openings", "missing.bpgn"],
            "--openings 'missing.bpgn'",
        ),
        (["--engine", "a=random", "--engine", "b=random", "--tc", "0"], "base time"),
        (["--engine", "a=random", "--engine", "b=random", "--concurrency", "0"], "at least 1"),
        (
            ["--engine", "a=random", "--engine", "b=random", "--report-every", "0"],
            "--report-every must be at least 1, not 0",
        ),
        (
            ["--engine", "a=random", "--engine", "b=random", "--report-every", "-1"],
            "--report-every must be at least 1, not -1",
        ),
        (
            ["--engine", "a=random", "--engine", "b=random", "--report-every", "x"],
            "--report-every takes a whole number, not 'x'",
        ),
        (["--resume", "nowhere"], "no such folder"),
        (["--resume", "nowhere", "--games", "8"], "no such folder"),
        (["--resume", "nowhere", "--tc", "8"], "--tc cannot be changed"),
        (
            [
                "--engine",
                "a=random",
                "--engine",
                "b=random",
                "--engine",
                "c=random",
                "--sprt",
                "elo0=0,elo1=5",
            ],
            "--sprt compares two participants; 3 were given",
        ),
    ],
)
def test_bad_options_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("tournament", argv, message, capsys, tmp_path)


def test_an_existing_tournament_is_not_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "results.jsonl").write_text("")
    argv = ["tournament", "--engine", "a=random", "--engine", "b=random", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "continue it with --resume" in capsys.readouterr().err
    assert (tmp_path / "results.jsonl").read_text() == ""


def test_the_live_progress_bar_draws_with_rich() -> None:
    import io

    from bughouse_arbiter.commands.tournament import RichProgress
    from bughouse_arbiter.config.specs import engine_spec
    from bughouse_arbiter.core.model import Result
    from bughouse_arbiter.core.rules import HouseRules
    from bughouse_arbiter.tournament.jobs import MatchReport
    from bughouse_arbiter.tournament.schedule import Participant, schedule

    spec = engine_spec("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    [job] = schedule(teams, format="gauntlet", games=1, rules=HouseRules(), openings=[])
    out = io.StringIO()
    progress = RichProgress(out)
    progress.begin(total=2, done=0)
    progress.game(job, MatchReport(job_id=job.job_id, result=Result.TEAM_ONE), "Elo +5 ± 3")
    progress.message("a message")
    progress.end()
    text = out.getvalue()
    assert "1/2" in text and "Elo +5 ± 3" in text and "a message" in text


@pytest.mark.slow
def test_participants_keep_the_command_line_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--team",
        "mix=b+random",
        "--engine",
        "b=random",
        "--games",
        "2",
        "--tc",
        "5+0",
        "--rule",
        "max_plies=150",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    data = summary(out)
    [pairing] = data["pairings"]  # type: ignore[misc]
    assert (pairing["first"], pairing["second"]) == ("mix", "b")
    printed = capsys.readouterr().out
    assert "mix vs b: 2 games" in printed
    # Resuming keeps the order too.
    assert main(["tournament", "--resume", str(out)]) == 0
    assert "mix vs b: 2 games" in capsys.readouterr().out


@pytest.mark.slow
def test_a_journal_that_cannot_be_written_stops_with_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from bughouse_arbiter.tournament import journal as journal_module

    real_append = journal_module.Journal.append_all
    calls = []

    def append_all(self: journal_module.Journal, games: object) -> None:
        calls.append(games)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_append(self, games)  # type: ignore[arg-type]

    monkeypatch.setattr(journal_module.Journal, "append_all", append_all)
    out = tmp_path / "t"
    argv = four_random_games(out)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.endswith(
        f"bughouse tournament: error: cannot write the journal in {out}: No space left on device\n"
    )
    assert len(journal(out)) == 1
