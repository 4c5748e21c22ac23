"""``bughouse tournament``'s folder across runs: its lock, the participants it
records, a participant that never plays, and a resume that plays more games."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bughouse_arbiter.cli import main
from bughouse_arbiter.exits import INCOMPLETE
from bughouse_arbiter.tournament.lock import hold

ROOT = Path(__file__).resolve().parent.parent


def script(folder: Path, name: str, body: str) -> Path:
    """An executable shell script ``name`` in ``folder``."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def random_pair(out: Path, *extra: str, games: str = "2") -> list[str]:
    """``tournament`` argv: two random movers, short games, written to ``out``."""
    return [
        "tournament",
        "--engine",
        "a=random",
        "--engine",
        "b=random",
        "--games",
        games,
        "--tc",
        "5+0",
        "--rule",
        "max_plies=60",
        "--out",
        str(out),
        *extra,
    ]


def journal_text(folder: Path) -> str:
    return (folder / "results.jsonl").read_text()


@pytest.mark.slow
def test_a_second_driver_of_one_folder_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "bughouse_arbiter", *random_pair(out, games="200")]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
            (out / "results.jsonl").exists() and journal_text(out).count("\n") >= 1
        ):
            time.sleep(0.05)
        capsys.readouterr()
        assert main(["tournament", "--resume", str(out)]) == 2
        [line] = capsys.readouterr().err.splitlines()
        assert f"{out} is in use by another bughouse tournament (pid {first.pid})" in line
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    assert first.returncode == 143
    with hold(out):  # its lock went with it
        pass


@pytest.mark.slow
def test_a_uci_engine_that_dies_at_once_is_said_to_have_exited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its output closes a moment before it exits: the status is waited for.
    boom = script(tmp_path, "boom.sh", "exec >&-\necho boom >&2\nsleep 0.2\nexit 3\n")
    argv = random_pair(tmp_path / "t", "--max-failures", "5", "--recover")
    argv[4] = f"b=uci:{boom}"
    main(argv)
    printed = " ".join(capsys.readouterr().out.split())
    assert "engine exited with status 3 (stderr: boom)" in printed
    assert "still running" not in printed


@pytest.mark.slow
def test_an_engine_that_never_starts_stops_the_run_until_it_is_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    engine = script(tmp_path, "b.sh", "echo boom >&2\nexit 3\n")
    argv = random_pair(out)
    argv[4] = f"b={engine}"
    assert main(argv) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert "error: b failed in game 1 without having completed a game" in line
    assert "exited with status 3 (stderr: boom)" in line
    assert f"continue with --resume {out}, or give --recover" in line
    assert journal_text(out) == ""  # the game is not scored
    # Fixed, it plays every game.
    mover = ROOT / "engines" / "random_mover.py"
    script(tmp_path, "b.sh", f"exec {sys.executable} {mover}\n")
    assert main(["tournament", "--resume", str(out)]) == 0
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 2 and data["crashes"] == {"a": 0, "b": 0}


def place(line: dict[str, Any]) -> tuple[object, ...]:
    """A journal line's place in the schedule: number, game, sides, round and opening tags."""
    tags = [t for t in line["report"]["bpgn"].splitlines() if t.startswith(("[Round", "[Open"))]
    return line["number"], line["job_id"], line["sides"], tags


@pytest.mark.slow
def test_resume_plays_more_games_and_keeps_the_first_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    assert main(random_pair(out, "--seed", "5", games="2")) == 0
    first = journal_text(out)
    assert main(["tournament", "--resume", str(out), "--games", "4"]) == 0
    assert journal_text(out).startswith(first)  # the first games as they were
    lines = [json.loads(line) for line in journal_text(out).splitlines()]
    assert [(line["number"], line["job_id"]) for line in lines] == [
        (1, "p0-g0"), (2, "p0-g1"), (3, "p0-g2"), (4, "p0-g3")
    ]
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == data["games_scheduled"] == 4
    # The new length is kept; the same schedule as a run of four games from the start.
    assert main(["tournament", "--resume", str(out)]) == 0
    assert "4 of 4 games already played" in capsys.readouterr().out
    assert main(random_pair(tmp_path / "u", "--seed", "5", games="4")) == 0
    again = [json.loads(line) for line in journal_text(tmp_path / "u").splitlines()]
    assert [place(line) for line in again] == [place(line) for line in lines]
    capsys.readouterr()
    assert main(["tournament", "--resume", str(out), "--games", "2"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "--games 2: the tournament in" in line and "has 4 games per pairing" in line


@pytest.mark.slow
def test_a_dropped_participant_comes_back_with_readmit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    mover = ROOT / "engines" / "random_mover.py"
    broken = tmp_path / "broken"
    engine = script(
        tmp_path,
        "b.sh",
        f"if [ -e {broken} ]; then echo boom >&2; exit 3; fi\nexec {sys.executable} {mover}\n",
    )
    argv = random_pair(out, "--max-failures", "1")
    argv[4] = f"b={engine}"
    assert main(argv) == 0
    broken.touch()
    assert main(["tournament", "--resume", str(out), "--games", "6"]) == INCOMPLETE
    assert "b dropped: 1 failure in a row" in capsys.readouterr().out
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 3 and list(data["dropped"]) == ["b"]
    broken.unlink()
    assert main(["tournament", "--resume", str(out), "--readmit", "b"]) == 0
    assert "b readmitted: its remaining games are played" in capsys.readouterr().out
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 6 and data["dropped"] == {}
    # It exited before its game began: a failed start, not also a crash.
    assert data["failed_starts"] == {"a": 0, "b": 1} and data["crashes"] == {"a": 0, "b": 0}
    # Still back on the next resume (the readmission is in tournament.json).
    assert main(["tournament", "--resume", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["dropped"] == {}
    capsys.readouterr()
    assert main(["tournament", "--resume", str(out), "--readmit", "b"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"bughouse tournament: error: --readmit 'b': b is not dropped in {out}"
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--readmit", "zz"], "--readmit 'zz': no such participant (those are: a, b)"),
        (["--games", "5"], "--games 5: openings are played in pairs"),
    ],
)
def test_bad_resume_values_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    out = tmp_path / "t"
    assert main(random_pair(out)) == 0
    before = journal_text(out)
    capsys.readouterr()
    assert main(["tournament", "--resume", str(out), *extra]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert message in line
    assert journal_text(out) == before


def test_readmit_goes_with_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(random_pair(tmp_path / "t", "--readmit", "a")) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "--readmit NAME brings back a participant of a --resume DIR" in line


@pytest.mark.slow
def test_resume_plays_the_recorded_engines_and_says_what_the_file_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    mover = ROOT / "engines" / "random_mover.py"
    engines = tmp_path / "engines.toml"
    engines.write_text(
        f'[engines.mover]\ncommand = ["{sys.executable}", "{mover}"]\nmovetime = 50\n'
    )
    argv = random_pair(out, "--engines-file", str(engines))
    argv[4] = "b=mover"
    assert main(argv) == 0
    [a, b] = json.loads((out / "tournament.json").read_text())["options"]["participants"]
    assert b["name"] == "b" and b["members"][0]["command"] == [sys.executable, str(mover)]
    assert b["members"][0]["movetime"] == 50 and a["members"][0]["movetime"] is None
    played = json.loads((out / "summary.json").read_text())["participants"]
    assert played[1]["members"][1]["movetime"] == 50
    games = (out / "games.bpgn").read_text()
    # b holds team 2's seats in game 1 and team 1's in game 2.
    assert games.count('EngineLimits "movetime 50"]') == 4
    assert '[WhiteBEngineLimits "movetime 50"]' in games.split("\n\n[Event")[0]
    # The file now points b at an engine that crashes: the recorded one plays on.
    boom = script(tmp_path, "boom.sh", "echo boom >&2\nexit 3\n")
    engines.write_text(f'[engines.mover]\ncommand = ["{boom}"]\n')
    capsys.readouterr()
    assert main(["tournament", "--resume", str(out), "--games", "4"]) == 0
    [line] = capsys.readouterr().err.splitlines()
    assert "warning: participant b: the engines now give other command, movetime" in line
    assert f"({boom}); playing the recorded ones ({sys.executable} {mover} movetime 50)" in line
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 4 and data["crashes"] == {"a": 0, "b": 0}


@pytest.mark.slow
def test_a_recorded_participant_that_does_not_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    assert main(random_pair(out)) == 0
    config = json.loads((out / "tournament.json").read_text())
    config["options"]["participants"][1]["members"][0]["command"] = "not a list"
    (out / "tournament.json").write_text(json.dumps(config))
    capsys.readouterr()
    assert main(["tournament", "--resume", str(out)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert "tournament.json: its 'participants': an engine's command is not a list" in line
