"""The same ``--rule``/``--tc`` give the same ``[Rules]`` tag in every command that
writes games: real runs of ``play``, ``match``, ``serve`` and ``tournament``,
short games between random movers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bughouse_arbiter.bpgn.read import read_games

TIMEOUT = 120
RANDOM = [f"--engine={seat}=random" for seat in ("WA", "BA", "WB", "BB")]


def commands(folder: Path, options: list[str]) -> dict[str, tuple[list[str], Path, str]]:
    """Each command's argv (with ``options``), where it writes, and what it reads on stdin."""
    return {
        "play": (["play", *RANDOM[1:], "--out", "p.bpgn"], folder / "p.bpgn", "resign\ny\n"),
        "match": (["match", *RANDOM, "--seed", "1", "--out", "m.bpgn"], folder / "m.bpgn", ""),
        "serve": (
            ["serve", "--web", "0", "--port", "0", *RANDOM, "--seed", "1", "--out", "s.bpgn"],
            folder / "s.bpgn",
            "",
        ),
        "tournament": (
            ["tournament", "--engine", "a=random", "--engine", "b=random", "--out", "t"],
            folder / "t" / "games.bpgn",
            "",
        ),
    }


def rules_tags(folder: Path, options: list[str]) -> dict[str, str]:
    """The ``[Rules]`` tag each command wrote, all four run at once."""
    runs = {}
    for name, (argv, out, stdin) in commands(folder, options).items():
        process = subprocess.Popen(
            [sys.executable, "-m", "bughouse_arbiter", *argv, *options],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        runs[name] = (process, out, stdin)
    tags = {}
    for name, (process, out, stdin) in runs.items():
        _, err = process.communicate(stdin, timeout=TIMEOUT)
        assert process.returncode == 0, (name, err)
        tags[name] = {game.tag("Rules") for game in read_games(out.read_text())}.pop()
    return tags


@pytest.mark.slow
def test_every_command_writes_the_same_rules_for_a_time_control(tmp_path: Path) -> None:
    """``--tc`` keeps the profile's name (``default`` here) in every command."""
    tags = rules_tags(tmp_path, ["--tc", "60+5"])
    expected = tags["match"]
    assert expected.startswith("profile=default time=60 increment=5 clock=on ")
    assert tags["play"] == tags["tournament"] == expected
    # A served table's own rule: strangers may join, a draw needs both teams.
    assert tags["serve"] == expected.replace("draw=humans", "draw=both-teams")
