"""One look for the table: the board, pocket, clock and seat-label drawing
shared by the ``play`` screen (``console_screen.compose``) and the text table
of ``match`` and ``replay`` (``render.render_table``).

Pure: everything returns styled lines (``Line``: ``(text, style name)``
segments) from its arguments; ``to_ansi`` and ``plain`` turn a line into
terminal text. One board panel is at most ``PANEL`` (40) columns wide, so two
side by side fit 80::

     Board A (you, A-White)
     > A-Black random                2:58
       hand: -
     8  r  n  b  q  k  b  n  r
     ...
     1  R  N  B  Q  K  B  N  R
        a  b  c  d  e  f  g  h
       hand: N
       A-White you                  19.9
     last 2. exd5  check

White's pieces are outlined glyphs (``♘``) or upper-case letters, Black's
filled glyphs (``♞``) or lower case, in every mode; ``>`` stands before the
player whose clock runs; clocks read ``3:00`` and, under 20 s, ``19.9``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Mapping

import attrs
import chess
import chess.variant

from ..core.model import BoardId, Seat
from .safe_text import printable

WIDTH = 80
PANEL = 40
#: Below this many seconds a clock shows tenths (and the screen ticks ten times a second).
TENTHS_BELOW = 20.0

Segment = tuple[str, str]
Line = list[Segment]

_ASCII_PIECES = {t: chess.piece_symbol(t) for t in chess.PIECE_TYPES}
_SOLID = {1: "♟", 2: "♞", 3: "♝", 4: "♜", 5: "♛", 6: "♚"}
_OUTLINE = {1: "♙", 2: "♘", 3: "♗", 4: "♖", 5: "♕", 6: "♔"}
_POCKET_ORDER = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


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


def format_clock(seconds: float) -> str:
    """``3:00``, ``0:42``, ``19.9`` below 20 s, ``0.0`` at the flag; ``--:--``
    untimed (infinite). Truncated: it never shows more time than is left."""
    if math.isinf(seconds) and seconds > 0:
        return "--:--"
    seconds = max(0.0, seconds) if seconds == seconds else 0.0
    if seconds < TENTHS_BELOW:
        tenths = int(seconds * 10 + 1e-9)
        return f"{tenths // 10}.{tenths % 10}"
    whole = int(seconds + 1e-9)
    return f"{whole // 60}:{whole % 60:02d}"


def format_pocket(
    pocket: chess.variant.CrazyhousePocket | None, color: chess.Color, style: Style
) -> str:
    """A pocket as ``Q R2 P3`` (``q r2 p3`` or ``♛ ♜2 ♟3`` for Black), strongest
    first; ``-`` when empty."""
    if pocket is None:
        return "-"
    parts = []
    for piece_type in _POCKET_ORDER:
        count = pocket.count(piece_type)
        if count:
            parts.append(style.pocket_piece(piece_type, color) + (str(count) if count > 1 else ""))
    return " ".join(parts) if parts else "-"


def display_san(san: str) -> str:
    """SAN as people write it: a pawn drop as ``P@e4`` rather than ``@e4``."""
    return "P" + san if san.startswith("@") else san


def pocket_line(board: chess.Board, color: chess.Color, style: Style) -> Line:
    pockets = getattr(board, "pockets", None)
    text = format_pocket(pockets[color] if pockets is not None else None, color, style)
    return [("   hand: ", "dim"), (text, "pocket")]


def player_line(
    seat: Seat, seconds: float, *, running: bool, name: str, style: Style, you: bool = False
) -> Line:
    """`` > A-Black random           2:58``: the marker, seat, name and clock."""
    marker = "> " if running else "  "
    name = printable(name, 200)  # names come from engines and files
    if len(name) > 18:
        name = name[:17] + ("…" if style.unicode else "~")
    label = f"{seat.value:<8}{name:<18}"
    clock = format_clock(seconds).rjust(7)
    low = seconds < TENTHS_BELOW
    clock_style = "clock-low" if running and low else ("clock-run" if running else "clock")
    return [
        (" " + marker, "turn"),
        (label, "you" if you else "name"),
        (" ", ""),
        (clock, clock_style),
    ]


@attrs.frozen(kw_only=True)
class PanelView:
    """What one board's panel shows, apart from the position itself."""

    title: str
    clocks: Mapping[Seat, float]
    running: Collection[Seat]
    names: Mapping[Seat, str]
    you: Seat | None = None
    last: frozenset[chess.Square] = frozenset()
    hints: frozenset[chess.Square] = frozenset()
    origin: chess.Square | None = None
    status: Line = attrs.field(factory=list)


def board_panel(
    board_id: BoardId, board: chess.Board, bottom: chess.Color, view: PanelView, style: Style
) -> list[Line]:
    """One board's 15 lines: title, top player, pocket, ranks, files, pocket,
    bottom player, status (last move, check)."""
    top_seat, bottom_seat = Seat.of(board_id, not bottom), Seat.of(board_id, bottom)
    lines: list[Line] = [[(" " + view.title, "title")]]
    lines.append(_player(view, top_seat, style))
    lines.append(pocket_line(board, top_seat.color, style))
    placement = board.board_fen(promoted=False)
    lines.extend(drawn_board(placement, bottom, view.last, view.hints, view.origin, style))
    lines.append(pocket_line(board, bottom_seat.color, style))
    lines.append(_player(view, bottom_seat, style))
    lines.append([(" ", ""), *view.status])
    return lines


def _player(view: PanelView, seat: Seat, style: Style) -> Line:
    name = "you" if seat is view.you else view.names.get(seat, "")
    return player_line(
        seat,
        view.clocks.get(seat, 0.0),
        running=seat in view.running,
        name=name,
        style=style,
        you=seat is view.you,
    )


def side_by_side(left: list[Line], right: list[Line]) -> list[Line]:
    """Two panels as one 80-column block."""
    return [clip(pad(a, PANEL) + b, WIDTH) for a, b in zip(left, right, strict=True)]


def last_move_squares(move: chess.Move | None) -> frozenset[chess.Square]:
    """The squares a move's mark covers: its target, and its origin unless a drop."""
    if move is None:
        return frozenset()
    squares = {move.to_square}
    if move.drop is None:
        squares.add(move.from_square)
    return frozenset(squares)


@functools.lru_cache(maxsize=64)
def drawn_board(
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


# -- lines to text ------------------------------------------------------------------


def width_of(line: Line) -> int:
    return sum(len(text) for text, _ in line)


def plain(line: Line) -> str:
    """The line's text without styles."""
    return "".join(text for text, _ in line).rstrip()


def pad(line: Line, width: int) -> Line:
    line = clip(line, width)
    return [*line, (" " * (width - width_of(line)), "")]


def clip(line: Line, width: int) -> Line:
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
