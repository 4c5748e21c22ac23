"""``bughouse tournament``'s folder across runs: its lock, the participants it
records, a participant that never plays, and a resume that plays more games."""

from __future__ import annotations

from pathlib import Path

import pytest

from bughouse_arbiter.cli import main


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


def test_a_uci_engine_that_dies_at_once_is_said_to_have_exited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its output closes a moment before it exits: the status is waited for.
    boom = script(tmp_path, "boom.sh", "exec >&-\necho boom >&2\nsleep 0.2\nexit 3\n")
    argv = random_pair(tmp_path / "t", "--max-failures", "5")
    argv[4] = f"b=uci:{boom}"
    main(argv)
    printed = " ".join(capsys.readouterr().out.split())
    assert "engine exited with status 3 (stderr: boom)" in printed
    assert "still running" not in printed
