"""``--help`` texts and option values that start with a minus sign, from the real program."""

from __future__ import annotations

import subprocess
import sys

import pytest

COMMANDS = ["match", "play", "replay", "position", "check-engine"]


def bughouse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bughouse_arbiter", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_markup_or_internal_names(command: str) -> None:
    done = bughouse(command, "--help")
    assert done.returncode == 0
    assert "``" not in done.stdout
    for internal in (".py", "ui.render", "bughouse_arbiter"):
        assert internal not in done.stdout


def test_play_help_gives_the_default_seat() -> None:
    text = " ".join(bughouse("play", "--help").stdout.split())
    assert "BA, WB, BB); default A-white" in text


@pytest.mark.parametrize("command", ["play", "match"])
def test_a_negative_time_control_gets_a_clear_error(command: str) -> None:
    done = bughouse(command, "--tc", "-5+0")
    assert done.returncode == 2
    assert done.stderr == (
        f"bughouse {command}: error: time control '-5+0': the base time must be above 0 seconds\n"
    )
    assert "expected one argument" not in done.stderr
