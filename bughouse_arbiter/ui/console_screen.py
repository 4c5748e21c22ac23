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

import attrs
import chess

from ..core.model import BoardId, Seat
from .console_input import HELP_LINES
from .console_session import ConsoleSession, LogLine, display_san, format_clock

WIDTH = 80
HEIGHT = 24
PANEL = 40
LOG_ROWS = 5
INPUT_ROW = HEIGHT - 1

Segment = tuple[str, str]
Line = list[Segment]

_ASCII_PIECES = {t: chess.piece_symbol(t) for t in chess.PIECE_TYPES}
_SOLID = {1: "♟", 2: "♞", 3: "♝", 4: "♜", 5: "♛", 6: "♚"}
_OUTLINE = {1: "♙", 2: "♘", 3: "♗", 4: "♖", 5: "♕", 6: "♔"}


@attrs.frozen(kw_only=True)
class Style:
    """How the terminal can draw: Unicode pieces or ASCII, colour or none."""

    unicode: bool = True
    color: bool = True
    colors256: bool = True

    def piece(self, piece: chess.Piece) -> str:
        """White outlined (``♘``), Black filled (``♞``), or letters (``N``/``n``):
        the sides differ by shape in every mode, never by colour alone."""
        if not self.unicode:
            return piece.symbol()
        return (_OUTLINE if piece.color else _SOLID)[piece.piece_type]

    def pocket_piece(self, piece_type: chess.PieceType, color: chess.Color) -> str:
        if not self.unicode:
            letter = _ASCII_PIECES[piece_type]
            return letter.upper() if color else letter
        return (_OUTLINE if color else _SOLID)[piece_type]


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
    rows: list[Line] = []
    for row in range(len(panels[0])):
        line = _pad(panels[0][row], PANEL) + panels[1][row]
        rows.append(_clip(line, WIDTH))
    if session.help_open:
        shown = [[(text, "info")] for text in HELP_LINES[: len(rows)]]
        rows = [_clip(line, WIDTH) for line in shown] + [[]] * (len(rows) - len(shown))
    rows.append(_request_line(session, style))
    rows.extend(_log_rows(session.log, log_rows))
    rows.append(_clip([(" " + session.feedback.text, session.feedback.style)], WIDTH))
    rows.append(_clip(_state_line(session, now, style), WIDTH))
    rows.append(_clip([(prompt_text(session), "prompt"), (prompt, "input")], WIDTH))
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
    return [_clip(line, columns) for line in body]


def _request_line(session: ConsoleSession, style: Style) -> Line:
    """The rule under the boards, carrying the partner's current request."""
    rule = "─" if style.unicode else "-"
    request = session.partner_request_text()
    if not request:
        return [(rule * WIDTH, "dim")]
    head = f"{rule * 2} your partner asks: "
    text = _clip([(head, "dim"), (request + " ", "partner")], WIDTH)
    return [*text, (rule * (WIDTH - width_of(text)), "dim")]


def prompt_text(session: ConsoleSession) -> str:
    if session.outcome is not None:
        return "game over> "
    if session.confirming is not None:
        return f"{session.confirming}? y/n> "
    return f"{session.seat.slug}> "


def _panel(session: ConsoleSession, board_id: BoardId, now: float, style: Style) -> list[Line]:
    board = session.boards[board_id]
    bottom = session.bottom_color(board_id)
    mine = board_id is session.seat.board
    who = f"you, {session.seat}" if mine else f"your partner, {session.seat.partner}"
    title = f"Board {board_id.value} ({who})"
    lines: list[Line] = [[(" " + title, "title")]]
    top_seat = Seat.of(board_id, not bottom)
    bottom_seat = Seat.of(board_id, bottom)
    lines.append(_player_line(session, top_seat, now))
    lines.append(_pocket_line(board, not bottom, style))
    lines.extend(_board_rows(session, board_id, bottom, style))
    lines.append(_pocket_line(board, bottom, style))
    lines.append(_player_line(session, bottom_seat, now))
    lines.append(_status_line(session, board_id))
    return lines


def _player_line(session: ConsoleSession, seat: Seat, now: float) -> Line:
    running = session.is_running(seat)
    left = session.clock(seat, now)
    marker = "> " if running else "  "
    name = "you" if seat is session.seat else session.names.get(seat, "")
    label = f"{seat.value:<8}{name[:18]:<18}"
    clock = format_clock(left).rjust(7)
    clock_style = "clock-low" if running and left < 20 else ("clock-run" if running else "clock")
    me = "you" if seat is session.seat else "name"
    return [(" " + marker, "turn"), (label, me), (" ", ""), (clock, clock_style)]


def _pocket_line(board: chess.variant.CrazyhouseBoard, color: chess.Color, style: Style) -> Line:
    pocket = board.pockets[color]
    parts = []
    for piece_type in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
        count = pocket.count(piece_type)
        if count:
            glyph = style.pocket_piece(piece_type, color)
            parts.append(glyph + (str(count) if count > 1 else ""))
    text = " ".join(parts) if parts else "-"
    return [("   hand: ", "dim"), (text, "pocket")]


def _board_rows(
    session: ConsoleSession, board_id: BoardId, bottom: chess.Color, style: Style
) -> list[Line]:
    played = session.last_moves.get(board_id)
    last: frozenset[chess.Square] = frozenset()
    if played is not None:
        last = frozenset({played.move.to_square})
        if played.move.drop is None:
            last |= {played.move.from_square}
    mine = board_id is session.seat.board
    hints = frozenset(session.hints) if mine else frozenset()
    origin = session.hint_from if mine else None
    placement = session.fens[board_id].split(" ", 1)[0].split("[", 1)[0]
    return list(_drawn_board(placement, bottom, last, hints, origin, style))


@functools.lru_cache(maxsize=64)
def _drawn_board(
    placement: str,
    bottom: chess.Color,
    last: frozenset[chess.Square],
    hints: frozenset[chess.Square],
    origin: chess.Square | None,
    style: Style,
) -> tuple[Line, ...]:
    """The board's rows; cached, since a board only changes when a move is made."""
    board = chess.BaseBoard(placement.replace("~", ""))
    ranks = range(7, -1, -1) if bottom == chess.WHITE else range(8)
    files = list(range(8)) if bottom == chess.WHITE else list(range(7, -1, -1))
    rows: list[Line] = []
    for rank in ranks:
        line: Line = [(f" {rank + 1} ", "dim")]
        for file in files:
            square = chess.square(file, rank)
            hinted = square in hints or square == origin
            line.append(_cell(board, square, square in last, hinted, style))
        rows.append(line)
    letters = "".join(f" {chess.FILE_NAMES[f]} " for f in files)
    rows.append([("   " + letters, "dim")])
    return tuple(rows)


def _cell(
    board: chess.BaseBoard, square: chess.Square, last: bool, hint: bool, style: Style
) -> Segment:
    piece = board.piece_at(square)
    if style.color:
        shade = "l" if (chess.square_file(square) + chess.square_rank(square)) % 2 else "d"
        mark = "h" if hint else ("m" if last else "")
        glyph = style.piece(piece) if piece else ("·" if hint and style.unicode else " ")
        if hint and not piece and not style.unicode:
            glyph = "*"
        owner = "w" if piece and piece.color else "b"
        return (f" {glyph} ", f"sq:{shade}{mark}:{owner}")
    glyph = style.piece(piece) if piece else "."
    if hint:
        return (f"({glyph})" if piece else " * ", "")
    if last:
        return (f"[{glyph}]", "")
    return (f" {glyph} ", "")


def _status_line(session: ConsoleSession, board_id: BoardId) -> Line:
    played = session.last_moves.get(board_id)
    line: Line = [(" ", "")]
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


# -- lines to text ------------------------------------------------------------------


def width_of(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def plain(line: Line) -> str:
    """The line's text without styles."""
    return "".join(text for text, _ in line).rstrip()


def _pad(line: Line, width: int) -> Line:
    line = _clip(line, width)
    return [*line, (" " * (width - width_of(line)), "")]


def _clip(line: Line, width: int) -> Line:
    out: Line = []
    room = width
    for text, style in line:
        if room <= 0:
            break
        out.append((text[:room], style))
        room -= len(text[:room])
    return out


_SGR_256 = {
    "title": "1",
    "dim": "2",
    "turn": "1;33",
    "you": "32",
    "name": "",
    "clock": "",
    "clock-run": "1;7",
    "clock-low": "1;37;41",
    "check": "1;31",
    "partner": "1;36",
    "error": "1;31",
    "ask": "1;33",
    "result": "1",
    "info": "",
    "prompt": "1",
    "input": "",
    "pocket": "1",
}
# Both sides' pieces are drawn in black ink (they differ by shape) on squares
# light enough for a contrast of at least 4.5:1 (WCAG) on every square.
_SQUARES_256 = {"l": "48;5;223", "d": "48;5;180", "lm": "48;5;229", "dm": "48;5;186"}
_SQUARES_256 |= {"lh": "48;5;158", "dh": "48;5;114"}
_SQUARES_8 = {"l": "47", "d": "43", "lm": "46", "dm": "46", "lh": "42", "dh": "42"}
_PIECE_FG_256 = {"w": "38;5;16", "b": "38;5;16"}
_PIECE_FG_8 = {"w": "30", "b": "30"}


def sgr(style: str, colors256: bool = True) -> str:
    """The SGR parameters for a style name ("" for none)."""
    if style.startswith("sq:"):
        _, shade, owner = style.split(":")
        squares = _SQUARES_256 if colors256 else _SQUARES_8
        fg = _PIECE_FG_256 if colors256 else _PIECE_FG_8
        return f"{squares[shade]};{fg[owner]}"
    return _SGR_256.get(style, "")


def to_ansi(line: Line, style: Style) -> str:
    """The line with colour escapes (none without colour)."""
    if not style.color:
        return "".join(text for text, _ in line)
    out = []
    for text, name in line:
        code = sgr(name, style.colors256) if name else ""
        out.append(f"\x1b[{code}m{text}\x1b[0m" if code else text)
    return "".join(out)


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
            text = to_ansi(_clip(line, self.columns), self.style)
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
