"""Every number read from a user or a file is range-checked (issue: no traceback, one line)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_checks import run_bughouse

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "tc", "message"),
    [
        ("match", "1e307+0", "at most 604800 seconds"),
        ("match", "60+1e400", "finite numbers"),
        ("match", "-5+0", "above 0 seconds"),
        ("play", "nan+0", "finite numbers"),
        ("tournament", "1e307+0", "at most 604800 seconds"),
        ("serve", "inf+0", "finite numbers"),
    ],
)
def test_an_absurd_time_control_is_one_line_and_exit_2(
    tmp_path: Path, command: str, tc: str, message: str
) -> None:
    extra = {
        "tournament": ["--engine", "a=random", "--engine", "b=random", "--out", "t"],
        "serve": ["--remote", "A-white"],
        "match": ["--out", "m.bpgn"],
        "play": ["--out", "p.bpgn"],
    }[command]
    done = run_bughouse(command, "--tc", tc, *extra, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_400_digit_time_control_in_a_file_is_a_note_not_a_traceback() -> None:
    digits = "9" * 400
    text = f'[Event "x"]\n[TimeControl "{digits}+0"]\n[Result "*"]\n\n1A. e4 *\n'
    game = read_games(text.encode(), file="tc.bpgn")[0]
    report = replay_game(game, frames=True)
    assert report.ok and report.replayed == 1
    assert any("beyond 604800 seconds" in note.message for note in report.notes)
