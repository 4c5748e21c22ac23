"""The console seat's 80×24 screen, as styled lines and as terminal output.

Pure: ``compose`` lays out a ``ConsoleSession`` at one instant (both boards
side by side, the person's board on the left with their team at the bottom,
pockets, four clocks, last moves, check and waiting marks, the message area,
the state line and the input line). ``ScreenPainter`` turns frames into ANSI
output that rewrites only the rows that changed, each addressed absolutely,
and always leaves the cursor in the input line, so clock ticks never tear
the line being typed.

Layout (rows from 0)::

    0      titles of the two boards (0-14: the help page while it is open)
    1-2    top player (name, clock) and pocket
    3-11   eight ranks and the file letters
    12-13  bottom pocket and player
    14     last move and check/wait marks of each board
    15     rule, with the partner's current request
    16-20  message area (partner messages, events, help, legal moves);
           a taller terminal gives it every extra row
    21     feedback on the last input
    22     state: whose turn, premove, result
    23     the input line

A terminal under 80×24 gets ``too_small`` instead: what to do, the state,
the input line, nothing cut.
"""

from __future__ import annotations

import functools
import textwrap

from ..core.model import BoardId, Seat
from .console_input import HELP_LINES
from .console_session import ConsoleSession, LogLine, display_san
from .table_view import (
    PANEL,
    WIDTH,
    Line,
    PanelView,
    Style,
    board_panel,
    clip,
    format_clock,
    last_move_squares,
    plain,
    sgr,
    side_by_side,
    to_ansi,
    width_of,
)

__all__ = [
    "HEIGHT",
    "INPUT_ROW",
    "LOG_ROWS",
    "PANEL",
    "WIDTH",
    "ScreenPainter",
    "Style",
    "compose",
    "plain",
    "prompt_text",
    "sgr",
    "to_ansi",
    "too_small",
    "width_of",
]

HEIGHT = 24
LOG_ROWS = 5
INPUT_ROW = HEIGHT - 1


def compose(
    session: ConsoleSession,
    now: float,
    style: Style,
    prompt: str = "",
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> list[Line]:
    """The whole screen at ``now`` for a terminal of ``size`` (columns, rows).

    From 80×24 up: the table, with a message area as tall as the rows allow
    (at least LOG_ROWS). Smaller: ``too_small`` (nothing is cut).
    """
    columns, height = size
    if columns < WIDTH or height < HEIGHT:
        return too_small(session, now, style, prompt, size)
    log_rows = LOG_ROWS + height - HEIGHT
    left, right = session.seat.board, session.seat.board.other
    panels = [_panel(session, left, now, style), _panel(session, right, now, style)]
    rows = side_by_side(*panels)
    if session.help_open:
        shown = [[(text, "info")] for text in HELP_LINES[: len(rows)]]
        rows = [clip(line, WIDTH) for line in shown] + [[]] * (len(rows) - len(shown))
    rows.append(_request_line(session, style))
    rows.extend(_log_rows(session.log, log_rows))
    rows.append(clip([(" " + session.feedback.text, session.feedback.style)], WIDTH))
    rows.append(clip(_state_line(session, now, style), WIDTH))
    rows.append(clip([(prompt_text(session), "prompt"), (prompt, "input")], WIDTH))
    assert len(rows) == height
    return rows


def too_small(
    session: ConsoleSession, now: float, style: Style, prompt: str, size: tuple[int, int]
) -> list[Line]:
    """The screen of a terminal under 80×24: what to do, the state, the input line.

    Every line fits ``size``; the game goes on (the clocks run) meanwhile.
    """
    columns, height = max(1, size[0]), max(1, size[1])
    text = (
        f"The terminal is {size[0]}x{size[1]}: the boards need {WIDTH}x{HEIGHT}. "
        "Enlarge the window to see them. The game goes on meanwhile; you can still type."
    )
    wrap = max(columns - 1, 8)
    lines: list[Line] = [[(" " + piece, "ask")] for piece in textwrap.wrap(text, wrap)]
    lines.append([])
    lines.extend(
        [(" " + piece, "result" if session.outcome else "turn")]
        for piece in textwrap.wrap(plain(_state_line(session, now, style)).strip(), wrap)
    )
    if session.feedback.text:
        lines.extend(
            [(" " + piece, session.feedback.style)]
            for piece in textwrap.wrap(session.feedback.text, wrap)
        )
    room = height - 1
    body = lines[:room] + [[]] * (room - len(lines[:room]))
    body.append([(prompt_text(session), "prompt"), (prompt, "input")])
    return [clip(line, columns) for line in body]


def _request_line(session: ConsoleSession, style: Style) -> Line:
    """The rule under the boards, carrying the partner's current request."""
    rule = "─" if style.unicode else "-"
    request = session.partner_request_text()
    if not request:
        return [(rule * WIDTH, "dim")]
    head = f"{rule * 2} your partner asks: "
    text = clip([(head, "dim"), (request + " ", "partner")], WIDTH)
    return [*text, (rule * (WIDTH - width_of(text)), "dim")]


def prompt_text(session: ConsoleSession) -> str:
    if session.outcome is not None:
        return "game over> "
    if session.confirming is not None:
        return f"{session.confirming}? y/n> "
    return f"{session.seat.slug}> "


def _panel(session: ConsoleSession, board_id: BoardId, now: float, style: Style) -> list[Line]:
    """One board as the shared table view draws it, with the person's marks."""
    mine = board_id is session.seat.board
    who = f"you, {session.seat}" if mine else f"your partner, {session.seat.partner}"
    played = session.last_moves.get(board_id)
    view = PanelView(
        title=f"Board {board_id.value} ({who})",
        clocks={seat: session.clock(seat, now) for seat in Seat},
        running={seat for seat in Seat if session.is_running(seat)},
        names=session.names,
        you=session.seat,
        last=last_move_squares(played.move if played is not None else None),
        hints=frozenset(session.hints) if mine else frozenset(),
        origin=session.hint_from if mine else None,
        status=_status_line(session, board_id),
    )
    board = session.boards[board_id]
    return board_panel(board_id, board, session.bottom_color(board_id), view, style)


def _status_line(session: ConsoleSession, board_id: BoardId) -> Line:
    played = session.last_moves.get(board_id)
    line: Line = []
    if played is not None:
        board = session.boards[board_id]
        number = board.fullmove_number if played.seat.color else board.fullmove_number - 1
        dots = "." if played.seat.color else "..."
        line.append((f"last {number}{dots} {display_san(played.san)}", "dim"))
    status = session.status_text(board_id)
    if status:
        line.append(("  " + status, "check"))
    return line


def _log_rows(log: list[LogLine], count: int = LOG_ROWS) -> list[Line]:
    wrapped: list[LogLine] = []
    for entry in log[-count:]:
        wrapped.extend(LogLine(piece, entry.style) for piece in _wrapped(entry.text))
    shown = wrapped[-count:]
    rows: list[Line] = [[]] * (count - len(shown))
    rows.extend([[(" " + entry.text, entry.style)] for entry in shown])
    return rows


@functools.lru_cache(maxsize=256)
def _wrapped(text: str) -> tuple[str, ...]:
    return tuple(textwrap.wrap(text, WIDTH - 2, subsequent_indent="  ") or [""])


def _state_line(session: ConsoleSession, now: float, style: Style) -> Line:
    if session.outcome is not None:
        return [(" " + session.result_line(), "result")]
    if not session.started:
        return [(" waiting for the match to start", "dim")]
    parts: Line = []
    dot = " · " if style.unicode else " - "
    board = session.board
    if session.my_turn:
        parts.append((" Your move", "turn"))
    elif board.turn == session.seat.color:
        parts.append((" Move sent", "dim"))
    else:
        opponent = session.seat.opponent
        parts.append((f" {opponent} to move", "dim"))
    if session.premove is not None:
        parts.append((f"{dot}premove {session.premove}", "you"))
    parts.append((f"{dot}you {format_clock(session.clock(session.seat, now))}", "dim"))
    return parts


class ScreenPainter:
    """Turns frames into terminal output, rewriting only the rows that changed.

    Every row is written at an absolute position and cleared to its end; the
    cursor is hidden while painting and put back into the input line at
    ``cursor`` characters after the prompt.
    """

    def __init__(self, style: Style) -> None:
        self.style = style
        self.columns = WIDTH
        self.rows = HEIGHT
        self._shown: list[str | None] = []

    def resize(self, columns: int, rows: int) -> None:
        """The terminal's size changed: the next paint redraws everything."""
        self.columns, self.rows = max(1, columns), max(1, rows)
        self._shown = []

    def invalidate(self) -> None:
        self._shown = []

    def paint(self, frame: list[Line], cursor_column: int) -> str:
        """Output that brings the terminal from the last frame to ``frame``.

        ``cursor_column`` is the cursor's column in the input line (0-based).
        On a terminal with fewer rows than HEIGHT the bottom rows are kept
        (input, state, feedback) and the top of the screen is cut.
        """
        full = not self._shown
        out = ["\x1b[?25l"]
        if full:
            out.append("\x1b[H\x1b[2J")
            self._shown = [None] * self.rows
        visible = frame[-self.rows :] if len(frame) > self.rows else frame
        for row, line in enumerate(visible):
            text = to_ansi(clip(line, self.columns), self.style)
            if self._shown[row] == text:
                continue
            self._shown[row] = text
            out.append(f"\x1b[{row + 1};1H{text}\x1b[0m\x1b[K")
        column = min(cursor_column, self.columns - 1)
        out.append(f"\x1b[{len(visible)};{column + 1}H\x1b[?25h")
        return "".join(out)

    def leave(self) -> str:
        """Output that parks the cursor below the screen, colours reset."""
        return f"\x1b[0m\x1b[?25h\x1b[{self.rows};1H\r\n"
