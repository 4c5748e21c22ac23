"""Text from engines and files reaches the terminal with its control characters escaped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.replay import step
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.ui.match_view import Display
from bughouse_arbiter.ui.render import RenderOptions, move_line, render_table
from bughouse_arbiter.ui.safe_text import printable

TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J"


def test_printable_escapes_controls_and_invisible_format_characters() -> None:
    assert printable("searcher 1.0 ♞") == "searcher 1.0 ♞"
    assert printable(TITLE) == "\\x1b]0;owned\\x07"
    assert printable("a\rb\nc\x9bd\x7f") == "a\\x0db\\x0ac\\x9bd\\x7f"
    assert printable("abc\u202edef\u200b") == "abc\\u202edef\\u200b"
    assert printable("x" * 1000, 10) == "x" * 9 + "…"


def test_render_and_move_line_escape_names_and_reasons() -> None:
    game = BughouseGame()
    names = {seat: f"evil{TITLE}" for seat in Seat}
    played = game.push(Seat.A_WHITE, "e4")
    game.leave(Seat.A_BLACK, f"stderr: {CLEAR}")
    table = render_table(game, dict.fromkeys(Seat, 60.0), names=names, footer=CLEAR)
    line = move_line(game, played, names=names)
    for text in (table, line):
        assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[2J" in table


def test_the_match_display_escapes_every_line() -> None:
    out = io.StringIO()
    display = Display(out, live=False, options=RenderOptions())
    display.line(f"result: A-White left (stderr: {CLEAR}{TITLE})")
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().endswith("\\x1b]0;owned\\x07)\n")


BPGN = (
    '[Event "x"]\n[WhiteA "bad%1Bname\x1b[2J"]\n[Result "*"]\n\n'
    "1A. e4 {[%ts 1.0]}\n{[%tell WA 1.5] hi%1B]0;owned%07}\n1a. e5 *\n"
)


def test_replay_check_and_stepping_escape_what_the_file_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "evil.bpgn"
    path.write_text(BPGN + "\x1b[2J junk\n")
    main(["replay", "--check", str(path)])
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed
    assert "\\x1b[2J" in printed
    (game,) = read_games(BPGN)
    assert game.messages[0].text == "hi\x1b]0;owned\x07"  # read as written...
    out = io.StringIO()
    step(replay_game(game, frames=True), io.StringIO("n\nn\nzz\x1b[2J\n"), out)
    shown = out.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown  # ...shown escaped
    assert "hi\\x1b]0;owned\\x07" in shown


def test_an_error_line_escapes_what_the_user_typed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--tc", f"fast{CLEAR}"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.count("\n") == 1
