"""Shared checks for the command line: bad input is one line and exit status 2."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from bughouse_arbiter.cli import main


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
