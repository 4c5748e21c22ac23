"""``--help`` texts and option values that start with a minus sign, from the real program."""

from __future__ import annotations

import pytest
from cli_checks import run_bughouse

COMMANDS = ["match", "play", "replay", "position", "check-engine"]


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_markup_or_internal_names(command: str) -> None:
    done = run_bughouse(command, "--help")
    assert done.returncode == 0
    assert "``" not in done.stdout
    for internal in (".py", "ui.render", "bughouse_arbiter"):
        assert internal not in done.stdout


@pytest.mark.slow
def test_play_help_gives_the_default_seat() -> None:
    text = " ".join(run_bughouse("play", "--help").stdout.split())
    assert "BA, WB, BB); default A-white" in text


@pytest.mark.slow
@pytest.mark.parametrize("command", ["play", "match"])
def test_a_negative_time_control_gets_a_clear_error(command: str) -> None:
    done = run_bughouse(command, "--tc", "-5+0")
    assert done.returncode == 2
    assert done.stderr == (
        f"bughouse {command}: error: time control '-5+0': the base time must be above 0 seconds\n"
    )
    assert "expected one argument" not in done.stderr


@pytest.mark.parametrize("columns", [None, "60", "0", "-3", "wide"])
def test_help_is_as_wide_as_argparse_would_make_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The help width is worked out without shutil, as argparse does it with shutil."""
    import shutil

    from bughouse_arbiter.cli import _help_width

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _help_width() == shutil.get_terminal_size().columns - 2


@pytest.mark.slow
@pytest.mark.parametrize("columns", ["50", "200"])
def test_the_help_text_wraps_at_the_terminal_width(columns: str) -> None:
    done = run_bughouse("position", "--help", env={"COLUMNS": columns})
    assert done.returncode == 0
    # The description is printed as written; the options are wrapped.
    options = done.stdout.split("\noptions:\n", 1)[1]
    widest = max(len(line) for line in options.splitlines())
    if columns == "50":
        assert widest <= 48
    else:
        assert widest > 78  # wider than the 80-column default: the width was read
