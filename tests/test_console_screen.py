"""The console screen: 80×24 layout, orientation, marks, ASCII fallback, painting."""

from __future__ import annotations

import re

import chess
import pytest

from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Outcome, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.ui.console_input import HELP_LINES
from bughouse_arbiter.ui.console_screen import (
    HEIGHT,
    INPUT_ROW,
    WIDTH,
    ScreenPainter,
    Style,
    compose,
    plain,
    sgr,
    to_ansi,
    width_of,
)
from bughouse_arbiter.ui.console_session import ConsoleSession

STYLES = [
    Style(unicode=False, color=False),
    Style(unicode=True, color=False),
    Style(unicode=True, color=True),
    Style(unicode=False, color=True, colors256=False),
]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def session_after(seat: Seat, moves: list[tuple[Seat, str]], **fens: str) -> ConsoleSession:
    game = BughouseGame(HouseRules(), **fens)
    session = ConsoleSession(seat)
    clocks = dict.fromkeys(Seat, 180.0)
    session.start(
        game_id="t",
        names={s: "a-very-long-engine-name-indeed" for s in Seat},
        rules=game.rules,
        fens={b: game.fen(b) for b in BoardId},
        clocks=clocks,
        now=0.0,
    )
    for mover, text in moves:
        played = game.push(mover, text)
        session.moved(played, {b: game.fen(b) for b in BoardId}, clocks, 0.0)
    return session


OPENING = [
    (Seat.A_WHITE, "e4"),
    (Seat.A_BLACK, "d5"),
    (Seat.A_WHITE, "exd5"),
    (Seat.B_WHITE, "e4"),
]


@pytest.mark.parametrize("style", STYLES)
def test_the_screen_fits_80_by_24(style: Style) -> None:
    session = session_after(Seat.B_BLACK, OPENING)
    session.on_line("tell " + "very long message " * 3)
    session.on_line("moves")
    session.on_line("e4 e5 and more words that make a long error " * 2)
    frame = compose(session, 3.0, style, prompt="x" * 60)
    assert len(frame) == HEIGHT
    assert all(width_of(line) <= WIDTH for line in frame)
    for line in frame:
        assert len(ANSI.sub("", to_ansi(line, style))) <= WIDTH


def test_ascii_fallback_has_only_ascii() -> None:
    session = session_after(Seat.B_BLACK, OPENING)
    frame = compose(session, 0.0, Style(unicode=False, color=False))
    text = "\n".join(plain(line) for line in frame)
    assert text.isascii()
    assert " r  n  b  k  q  b  n  r" in text  # board B from Black's side: h..a
    assert "hand: p" in text  # B-Black holds the pawn from board A


def test_unicode_pieces_and_pockets() -> None:
    session = session_after(Seat.B_BLACK, OPENING)
    text = "\n".join(plain(line) for line in compose(session, 0.0, Style(color=False)))
    assert "♜" in text and "♖" in text
    assert "hand: ♟" in text


@pytest.mark.parametrize(
    ("seat", "left_top_rank", "right_top_rank"),
    [
        (Seat.A_WHITE, " 8 ", " 1 "),
        (Seat.A_BLACK, " 1 ", " 8 "),
        (Seat.B_WHITE, " 8 ", " 1 "),
        (Seat.B_BLACK, " 1 ", " 8 "),
    ],
)
def test_own_board_left_with_the_team_at_the_bottom(
    seat: Seat, left_top_rank: str, right_top_rank: str
) -> None:
    session = session_after(seat, [])
    frame = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    assert frame[0].startswith(f" Board {seat.board.value} (you, {seat})")
    assert f"Board {seat.board.other.value} (your partner, {seat.partner})" in frame[0]
    assert frame[3].startswith(left_top_rank)
    assert frame[3][40:].startswith(right_top_rank)
    assert seat.value in frame[13][:40] and "you" in frame[13][:40]
    session.on_line("flip")
    flipped = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    assert flipped[3].startswith(right_top_rank)


def test_last_move_and_turn_and_check_marks() -> None:
    session = session_after(
        Seat.A_BLACK,
        [(Seat.A_WHITE, "e4"), (Seat.A_BLACK, "f6"), (Seat.A_WHITE, "Qh5+")],
    )
    frame = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    board = "\n".join(line[:40] for line in frame[3:11])
    assert "[Q]" in board and "[.]" in board  # Qd1-h5: both squares marked
    assert "last 2. Qh5+" in frame[14]
    assert "check" in frame[14]
    assert "> A-Black" in frame[13]  # whose turn: the person, at the bottom


def test_waiting_mark() -> None:
    session = session_after(Seat.A_WHITE, [], fen_a="4k3/8/8/8/8/8/r7/r3K3 w - - 0 1")
    frame = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    assert "waiting for a piece" in frame[14]


def test_state_line_premove_and_result() -> None:
    session = session_after(Seat.A_BLACK, [])
    session.on_line("e5")
    frame = [plain(line) for line in compose(session, 2.0, Style(unicode=False, color=False))]
    assert "A-White to move - premove e5 - you 3:00" in frame[22]
    session.game_over(
        Outcome(termination=Termination.RESIGNATION, winner=Team.ONE, reason="A-Black resigned")
    )
    frame = [plain(line) for line in compose(session, 2.0, Style(unicode=False, color=False))]
    assert frame[22] == " You lose: A-Black resigned (1-0)"
    assert frame[INPUT_ROW] == "game over>"


def test_painter_rewrites_only_changed_rows_and_parks_the_cursor_in_the_input_line() -> None:
    session = session_after(Seat.A_WHITE, [])
    style = Style(unicode=True, color=True)
    painter = ScreenPainter(style)
    first = painter.paint(compose(session, 0.0, style, "Nf"), 10)
    assert "\x1b[2J" in first
    assert first.endswith(f"\x1b[{HEIGHT};11H\x1b[?25h")
    assert (
        painter.paint(compose(session, 0.0, style, "Nf"), 10)
        == f"\x1b[?25l\x1b[{HEIGHT};11H\x1b[?25h"
    )
    # One second later only the two running clocks' rows (and the state line) change.
    update = painter.paint(compose(session, 1.0, style, "Nf"), 10)
    rows = sorted(int(r) for r in re.findall(r"\x1b\[(\d+);1H", update))
    assert rows == [1 + 1, 13 + 1, 22 + 1]  # 1-based: top player, bottom player, state
    assert "2:59" in update
    assert "\x1b[2J" not in update


@pytest.mark.parametrize("size", [(60, 20), (79, 24), (80, 23), (20, 5), (1, 1)])
def test_a_small_terminal_gets_an_uncut_enlarge_screen(size: tuple[int, int]) -> None:
    session = session_after(Seat.A_WHITE, [])
    frame = compose(session, 0.0, Style(unicode=False, color=False), "Nf", size)
    assert len(frame) == size[1]
    assert all(width_of(line) <= size[0] for line in frame)
    text = [plain(line) for line in frame]
    assert text[-1] == "a-white> Nf"[: size[0]]  # the input line, last
    if size[1] >= 5 and size[0] >= 20:
        assert "Enlarge the window" in " ".join(" ".join(text).split())


def test_a_taller_terminal_gets_a_taller_message_area() -> None:
    session = session_after(Seat.A_WHITE, [])
    for index in range(20):
        session.note_log(f"message {index}")
    style = Style(unicode=False, color=False)
    normal = [plain(line) for line in compose(session, 0.0, style)]
    tall = [plain(line) for line in compose(session, 0.0, style, "", (100, 32))]
    assert len(tall) == 32 and tall[0] == normal[0]
    assert sum("message" in line for line in normal) == 5
    assert sum("message" in line for line in tall) == 13


def test_painter_clips_to_a_small_terminal_and_redraws_after_a_resize() -> None:
    session = session_after(Seat.A_WHITE, [])
    style = Style(unicode=False, color=False)
    painter = ScreenPainter(style)
    painter.resize(60, 20)
    out = painter.paint(compose(session, 0.0, style, "", (60, 20)), 5)
    for chunk in out.split("\x1b[")[1:]:
        text = re.sub(r"^[0-9;?]*[A-Za-z]", "", chunk)
        assert len(text) <= 60
    assert "\x1b[21;" not in out  # nothing below row 20
    assert out.endswith("\x1b[20;6H\x1b[?25h")
    painter.resize(80, 24)
    assert "\x1b[2J" in painter.paint(compose(session, 0.0, style), 5)


def test_help_is_shown_whole_over_the_boards_until_the_next_line() -> None:
    session = session_after(Seat.A_WHITE, [])
    session.on_line("help")
    frame = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    assert frame[: len(HELP_LINES)] == list(HELP_LINES)
    assert len(frame) == 24
    session.on_line("")
    frame = [plain(line) for line in compose(session, 0.0, Style(unicode=False, color=False))]
    assert frame[0].startswith(" Board A")


def _xterm_rgb(index: int) -> tuple[int, int, int]:
    assert 16 <= index <= 231
    levels = (0, 95, 135, 175, 215, 255)
    index -= 16
    return levels[index // 36], levels[index // 6 % 6], levels[index % 6]


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: tuple[int, int, int], two: tuple[int, int, int]) -> float:
    high, low = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("shade", ["l", "d", "lm", "dm", "lh", "dh"])
@pytest.mark.parametrize("owner", ["w", "b"])
def test_pieces_have_at_least_4_5_contrast_on_every_square(shade: str, owner: str) -> None:
    codes = sgr(f"sq:{shade}:{owner}").split(";")
    background = int(codes[codes.index("48") + 2])
    ink = int(codes[codes.index("38") + 2])
    assert contrast(_xterm_rgb(background), _xterm_rgb(ink)) >= 4.5


@pytest.mark.parametrize(
    "style",
    [Style(unicode=True, color=True), Style(unicode=True, color=False)],
)
def test_the_sides_differ_by_shape_with_or_without_colour(style: Style) -> None:
    assert style.piece(chess.Piece(chess.KNIGHT, chess.WHITE)) == "♘"
    assert style.piece(chess.Piece(chess.KNIGHT, chess.BLACK)) == "♞"
    letters = Style(unicode=False, color=style.color)
    assert letters.piece(chess.Piece(chess.KNIGHT, chess.WHITE)) == "N"
    assert letters.piece(chess.Piece(chess.KNIGHT, chess.BLACK)) == "n"
