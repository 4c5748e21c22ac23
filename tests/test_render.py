"""The table as text: exact pictures, 80 columns, both orientations."""

from __future__ import annotations

import re

import chess
import pytest

from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.ui.render import (
    RenderOptions,
    format_clock,
    move_line,
    move_number,
    render_table,
)
from bughouse_arbiter.ui.table_view import Style, drawn_board, format_pocket, plain

ANSI = RenderOptions(color=True, unicode=True)


def small_game() -> BughouseGame:
    game = BughouseGame()
    game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
    game.push(Seat.A_BLACK, "d5", at=2.0, clock=179.0)
    game.push(Seat.A_WHITE, "exd5", at=3.0, clock=177.5)  # B-Black gets a pawn
    game.push(Seat.B_WHITE, "d4", at=3.5, clock=176.5)
    return game


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (180, "3:00"),
        (179.99, "2:59"),
        (20.0, "0:20"),
        (19.99, "19.9"),
        (7.25, "7.2"),
        (0.05, "0.0"),
        (0, "0.0"),
        (-3, "0.0"),
        (float("nan"), "0.0"),
        (float("inf"), "--:--"),
        (3723.9, "62:03"),
    ],
)
def test_the_table_clock_is_the_play_screen_clock(seconds: float, text: str) -> None:
    assert format_clock(seconds) == text


def _board(placement: str, bottom: chess.Color, style: Style) -> list[str]:
    rows = drawn_board(placement, bottom, frozenset(), frozenset(), None, style)
    return [plain(row) for row in rows]


def test_board_from_white_and_from_black() -> None:
    placement = chess.STARTING_BOARD_FEN
    ascii_style = Style(unicode=False, color=False)
    white = _board(placement, chess.WHITE, ascii_style)
    assert white[0] == " 8  r  n  b  q  k  b  n  r"
    assert white[7] == " 1  R  N  B  Q  K  B  N  R"
    assert white[8] == "    a  b  c  d  e  f  g  h"
    black = _board(placement, chess.BLACK, ascii_style)
    assert black[0] == " 1  R  N  B  K  Q  B  N  R"
    assert black[8] == "    h  g  f  e  d  c  b  a"
    glyphs = _board(placement, chess.WHITE, Style(unicode=True, color=False))
    assert glyphs[0] == " 8  ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜"
    assert glyphs[6] == " 2  ♙  ♙  ♙  ♙  ♙  ♙  ♙  ♙"
    assert glyphs[4] == " 4  .  .  .  .  .  .  .  ."


def test_pockets_strongest_first_with_counts() -> None:
    game = small_game()
    board = game.board(Seat.B_BLACK.board)
    letters = Style(unicode=False, color=False)
    assert format_pocket(board.pockets[chess.BLACK], chess.BLACK, letters) == "p"  # Black's
    assert format_pocket(board.pockets[chess.WHITE], chess.WHITE, letters) == "-"
    board.receive(chess.Piece(chess.PAWN, chess.BLACK))
    board.receive(chess.Piece(chess.QUEEN, chess.BLACK))
    assert format_pocket(board.pockets[chess.BLACK], chess.BLACK, letters) == "q p2"
    assert format_pocket(board.pockets[chess.BLACK], chess.BLACK, Style()) == "♛ ♟2"
    assert format_pocket(None, chess.WHITE, letters) == "-"


def test_the_table_as_a_picture() -> None:
    game = small_game()
    clocks = {Seat.A_WHITE: 177.5, Seat.A_BLACK: 178.95, Seat.B_WHITE: 176.5, Seat.B_BLACK: 18.25}
    names = {seat: "random" for seat in Seat}
    text = render_table(game, clocks, names=names)
    expected = """\
 Board A                                 Board B
 > A-Black random                2:58      B-White random                2:56
   hand: -                                 hand: -
 8  r  n  b  q  k  b  n  r               1  R  N  B  K  Q  B  N  R
 7  p  p  p  .  p  p  p  p               2  P  P  P  P [.] P  P  P
 6  .  .  .  .  .  .  .  .               3  .  .  .  .  .  .  .  .
 5  .  .  . [P] .  .  .  .               4  .  .  .  . [P] .  .  .
 4  .  .  .  . [.] .  .  .               5  .  .  .  .  .  .  .  .
 3  .  .  .  .  .  .  .  .               6  .  .  .  .  .  .  .  .
 2  P  P  P  P  .  P  P  P               7  p  p  p  p  p  p  p  p
 1  R  N  B  Q  K  B  N  R               8  r  n  b  k  q  b  n  r
    a  b  c  d  e  f  g  h                  h  g  f  e  d  c  b  a
   hand: -                                 hand: p
   A-White random                2:57    > B-Black random                18.2
 last 2. exd5                            last 1. d4"""
    assert text == expected


def test_the_viewer_sits_bottom_left_with_the_partner_beside() -> None:
    text = render_table(small_game(), {}, options=RenderOptions(viewer=Seat.B_WHITE))
    lines = text.splitlines()
    assert lines[0].split() == ["Board", "B", "Board", "A"]
    assert lines[1].lstrip(" >").startswith("B-Black")
    assert lines[13].lstrip(" >").startswith("B-White")
    assert "A-Black" in lines[13][40:]  # the partner, bottom right
    assert lines[3].endswith("1  R  N  B  K  Q  B  N  R")  # board A from Black's side


def test_everything_fits_80_columns_even_with_long_names_and_colour() -> None:
    game = small_game()
    names = {seat: "x" * 200 for seat in Seat}
    clocks = {seat: 5000.0 for seat in Seat}
    for options in (RenderOptions(), RenderOptions(unicode=True), ANSI):
        text = render_table(game, clocks, names=names, options=options, footer="f" * 10)
        plain = _strip_ansi(text)
        assert max(len(line) for line in plain.splitlines()) <= 80
        assert ("…" if options.unicode else "~") in plain  # cut names say so


def test_colour_marks_squares_and_a_running_low_clock() -> None:
    text = render_table(small_game(), {Seat.A_BLACK: 5.0}, options=ANSI)
    assert "\x1b[48;5;" in text
    assert "\x1b[1;37;41m    5.0" in text  # under twenty seconds, running: red
    assert "\x1b" not in render_table(small_game(), {})


def test_running_clocks_can_be_given() -> None:
    text = render_table(small_game(), {}, running={Seat.A_WHITE})
    lines = text.splitlines()
    assert lines[13].startswith(" > A-White")
    assert not lines[1].startswith(" >")


def test_a_finished_match_shows_its_result_and_the_footer() -> None:
    game = small_game()
    game.resign(Seat.B_WHITE)
    text = render_table(game, {}, footer="saved to x.bpgn")
    assert text.splitlines()[-2] == "Result: 1-0 (B-White resigned)"
    assert text.splitlines()[-1] == "saved to x.bpgn"
    assert ">" not in text  # nobody's clock runs


def test_move_numbers_and_move_lines() -> None:
    game = small_game()
    assert [move_number(game, m) for m in game.moves] == ["1.", "1...", "2.", "1."]
    names = {Seat.A_WHITE: "searcher"}
    line = move_line(game, game.moves[2], names=names, used=1.0)
    assert (
        line == "ply   3  A  2. exd5         A-White (searcher)  clock 2:57.5  used 1.00s  passes p"
    )
    assert move_line(game, game.moves[3]).endswith("B-White  clock 2:56.5")


def test_a_move_line_shows_a_name_escaped_and_cut() -> None:
    """The display writes move lines as ``move_line`` makes them: an engine's
    name with control characters is escaped there, and cut to 60 characters."""
    game = small_game()
    names = {Seat.A_WHITE: "evil\x1b[2J\u202ename", Seat.B_WHITE: "n" * 80}
    line = move_line(game, game.moves[2], names=names)
    assert "A-White (evil\\x1b[2J\\u202ename)" in line
    assert "\x1b" not in line and "\u202e" not in line
    line = move_line(game, game.moves[3], names=names)
    assert f"B-White ({'n' * 59}…)" in line
    assert move_line(game, game.moves[3], names={Seat.B_WHITE: ""}).endswith(
        "B-White  clock 2:56.5"
    )


def test_a_pawn_drop_is_written_with_its_letter_in_a_move_line() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[P] w KQkq - 0 1"
    game = BughouseGame(fen_a=fen)
    played = game.push(Seat.A_WHITE, "P@e4")
    assert played.san == "@e4"  # python-chess's SAN for a pawn drop
    assert move_line(game, played).startswith("ply   1  A  1. P@e4  ")


def test_move_numbers_follow_a_start_position_with_black_to_move() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 7"
    game = BughouseGame(fen_a=fen)
    played = game.push(Seat.A_BLACK, "e5")
    game.push(Seat.A_WHITE, "Nf3")
    assert move_number(game, played) == "7..."
    assert move_number(game, game.moves[1]) == "8."


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_colour_keeps_the_sides_apart_by_shape_in_black_ink() -> None:
    text = render_table(small_game(), {}, options=ANSI)
    rows = text.splitlines()
    white_rank, black_rank = _plain_cells(rows[9]), _plain_cells(rows[4])  # board A
    assert set(white_rank[1:]) == {"♙"} and set(black_rank[1:]) == {"♟"}
    assert "1;97" not in text  # no white ink on tan (2:1)
    assert "38;5;16m" in rows[3]


def _plain_cells(line: str) -> list[str]:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)[:40].split()
