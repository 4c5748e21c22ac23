"""The BPGN output file from the command line: appended in place, locked for
the match, never a non-regular file, and readable after a SIGKILL."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_checks import BUGHOUSE, expect_usage_error, run_bughouse

from bughouse_arbiter.bpgn import BpgnFile
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.cli import main

ROOT = Path(__file__).resolve().parent.parent
MOVER = ROOT / "engines" / "random_mover.py"
MATCH = [*BUGHOUSE, "match"]
needs_engines = pytest.mark.skipif(not MOVER.is_file(), reason="engines/random_mover.py missing")


def _slow_engines(delay_ms: int = 20) -> list[str]:
    spec = f"{sys.executable} {MOVER} --delay {delay_ms}"
    return [f"--engine={seat}={spec}" for seat in ("WA", "BA", "WB", "BB")]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["match", "play"])
def test_a_locked_file_is_refused_in_one_line_and_left_alone(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "busy.bpgn"
    path.write_text('[Event "kept"]\n\n*\n')
    with BpgnFile.open(path):
        assert main([command, "--out", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bughouse {command}: error: ")
    assert "another process is writing this file" in err
    assert err.count("\n") == 1
    assert path.read_text() == '[Event "kept"]\n\n*\n'


@pytest.mark.parametrize("command", ["match", "play"])
def test_a_fifo_is_refused_at_once(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main([command, "--out", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "is a FIFO, not a regular file" in err
    assert err.count("\n") == 1


@pytest.mark.slow
@needs_engines
def test_two_matches_on_one_file_second_is_refused_first_keeps_every_game(
    tmp_path: Path,
) -> None:
    out = tmp_path / "shared.bpgn"
    out.write_text('[Event "earlier"]\n\n{kept} *\n')
    # Slow movers and a long clock: the first match still holds the file when the
    # second starts, however loaded the machine; it is stopped (SIGTERM) after.
    first = subprocess.Popen(
        [*MATCH, *_slow_engines(200), "--tc", "600+0", "--games", "2", "--out", str(out)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while "1A." not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = run_bughouse("match", "--tc", "2+0", "--out", str(out), cwd=tmp_path)
        assert second.returncode == 2
        assert "another process is writing this file" in second.stderr
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=120) == 128 + signal.SIGTERM
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    games = read_games(out.read_bytes())
    assert games[0].tag("Event") == "earlier"
    assert len(games) == 2
    assert "interrupted by SIGTERM" in out.read_text()
    assert len(games[1].moves) >= 1
    check = run_bughouse("replay", "--check", str(out), cwd=tmp_path)
    assert check.returncode == 0, check.stdout
    assert "checked 2 game(s) in 1 file(s): 2 passed, 0 failed" in check.stdout


@pytest.mark.slow
@needs_engines
@pytest.mark.parametrize("wait_for", ["header", "moves"])
def test_sigkill_mid_game_leaves_a_file_that_replays(tmp_path: Path, wait_for: str) -> None:
    out = tmp_path / "killed.bpgn"
    arbiter = subprocess.Popen(
        [*MATCH, *_slow_engines(20), "--tc", "60+0", "--out", str(out)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        marker = "[Result" if wait_for == "header" else "6a."
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and marker in out.read_text():
                break
            time.sleep(0.01)
        os.kill(arbiter.pid, signal.SIGKILL)
        arbiter.wait(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(arbiter.pid, signal.SIGKILL)  # the engines it started
    (game,) = read_games(out.read_bytes())
    assert not game.finished
    assert game.tag("Result") == "*"
    check = run_bughouse("replay", "--check", str(out), cwd=tmp_path)
    assert check.returncode == 0, check.stdout
    assert ": ok: " in check.stdout
    if wait_for == "moves":
        assert len(game.moves) >= 11


@pytest.mark.parametrize(
    "argv",
    [
        ["match"],
        ["play"],
        ["serve", "--remote", "WB"],
        ["tournament", "--engine", "a=random", "--engine", "b=random"],
    ],
)
def test_an_empty_out_is_refused_not_taken_for_the_default(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    command, *rest = argv
    message = "--out is empty: give a name, or omit --out for the default"
    expect_usage_error(command, [*rest, "--out", ""], message, capsys, tmp_path)
