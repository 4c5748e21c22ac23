"""The README's first two commands are what a fresh machine runs; CI runs the second."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text().splitlines()
    return [line.strip() for line in lines[:12] if line.startswith("    ")]


def test_readme_opens_with_a_match_command_and_a_test_command() -> None:
    match_command, test_command = _readme_commands()[:2]
    assert "bughouse match" in match_command
    assert "pytest" in test_command


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _readme_commands()[1]
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines
