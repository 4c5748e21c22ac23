"""Shared checks for the command line: ``bughouse`` run as a real process, and
bad input answered in one line with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from bughouse_arbiter.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: ``bughouse`` under this interpreter (the venv's package, whatever is on PATH).
BUGHOUSE = [sys.executable, "-m", "bughouse_arbiter"]


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment with the source tree first on PYTHONPATH (the
    engines under ``engines/`` and ``tests/`` import from it), then ``extra``."""
    path = os.environ.get("PYTHONPATH", "")
    root = f"{ROOT}{os.pathsep}{path}" if path else str(ROOT)
    return {**os.environ, "PYTHONPATH": root, **(extra or {})}


def run_bughouse(
    *argv: str,
    cwd: Path | None = None,
    timeout: float = 120.0,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    stdout: int = subprocess.PIPE,
    stderr: int = subprocess.PIPE,
) -> subprocess.CompletedProcess[str]:
    """``bughouse ARGV`` in ``cwd`` to its end: its exit status and its output as
    text. Standard input is ``input``, or empty; ``env`` adds to the environment;
    a run longer than ``timeout`` seconds is killed and fails the test."""
    return subprocess.run(
        [*BUGHOUSE, *argv],
        cwd=cwd,
        env=environment(env),
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=True,
        timeout=timeout,
        check=False,
    )


def expect_usage_error(
    command: str,
    argv: Sequence[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    folder: Path,
) -> None:
    """``bughouse COMMAND ARGV`` run in ``folder`` exits 2 with one line on
    stderr containing ``message``, and writes nothing there."""
    assert main([command, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bughouse {command}: error: ")
    assert message in err
    assert err.count("\n") == 1
    assert list(folder.iterdir()) == []  # nothing written
