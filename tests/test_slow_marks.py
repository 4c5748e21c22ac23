"""A test that starts a process must be marked slow, and the check says so."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent

SPAWNING = """
import subprocess
import sys

import pytest


def test_quiet():
    assert 1 + 1 == 2


def test_unmarked_spawn():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.slow
def test_marked_spawn():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_spawning=SPAWNING)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    return pytester.runpytest_subprocess("-p", "slow_marks", "-p", "no:cacheprovider", *args)


@pytest.fixture
def on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(HERE))


@pytest.mark.slow
def test_an_unmarked_test_that_starts_a_process_fails_naming_the_command(
    pytester: pytest.Pytester, on_path: None
) -> None:
    result = _run(pytester)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*test_unmarked_spawn starts a process but is not marked slow*"])
    assert "test_marked_spawn starts a process" not in result.stdout.str()


@pytest.mark.slow
def test_the_quick_selection_leaves_the_marked_one_out(
    pytester: pytest.Pytester, on_path: None
) -> None:
    result = _run(pytester, "-m", "not slow")
    result.assert_outcomes(passed=2, errors=1, deselected=1)


@pytest.mark.slow
def test_the_record_mode_lists_every_test_that_starts_a_process(
    pytester: pytest.Pytester, on_path: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "spawns.txt"
    monkeypatch.setenv("BUGHOUSE_SPAWNS", str(record))
    result = _run(pytester)
    result.assert_outcomes(passed=3)
    names = sorted(line.split("::")[-1] for line in record.read_text().splitlines())
    assert names == ["test_marked_spawn", "test_unmarked_spawn"]
