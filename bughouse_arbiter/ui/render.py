"""The table as text: both boards side by side, pockets, four clocks.

Pure: every function returns a ``str`` (or lines) and reads only its
arguments, so the live display of ``bughouse match``, the console player and
the tests all draw the same picture. Everything fits 80 columns.

Layout (``viewer=A-White``, the usual bughouse view), in the words and marks
of the ``play`` screen (``hand:``, ``>`` before the player whose clock runs,
seat names)::

    Board A                                  Board B
      A-Black  random             2:57.3   > B-White  random           2:58.0
      hand: -                                  hand: P
      8 r n b q k b n r                        1 R N B K Q B N R
      ...                                      ...
      1 R N B Q K B N R                        8 r n b k q b n r
        a b c d e f g h                          h g f e d c b a
      hand: -                                  hand: -
    > A-White  searcher           2:59.1       B-Black  searcher         2:59.9
      last: 3. Nf3                             last: 2... d5

The viewer's board is on the left with the viewer at the bottom; the partner
board is on the right with the partner at the bottom, so partners sit side by
side. ``>`` (and, in colour, a green clock) points at the player whose clock
runs; it stands at the start of that player's own column.

Public API:
    ``RenderOptions``: unicode pieces or ASCII, ANSI colour, the viewer's seat.
    ``render_table(game, clocks, ...)``: the whole table as one string.
    ``render_board(board, white_at_bottom=..., options=...)``: one board's lines.
    ``format_clock(seconds)``: ``2:59.4``, ``0:07.2``, ``1:02:03``.
    ``format_pocket(board, color, options)``: ``Q R2 P3`` (or glyphs).
    ``move_line(game, played, names=..., used=...)``: one line per move for
        logs and for output that is not a terminal.
    ``move_number(game, played)``: ``7.`` or ``7...``.

Names, the result's reason and the footer come from outside (engines, files):
they are shown through ``safe_text.printable``, never raw.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import attrs
import chess

from ..core.board import BughouseBoard
from ..core.game import BughouseGame, PlayedMove
from ..core.model import BoardId, Seat
from .safe_text import printable

COLUMN_WIDTH = 38
GAP = "   "

_UNICODE = {
    "K": "♔",
    "Q": "♕",
    "R": "♖",
    "B": "♗",
    "N": "♘",
    "P": "♙",
    "k": "♚",
    "q": "♛",
    "r": "♜",
    "b": "♝",
    "n": "♞",
    "p": "♟",
}
_RESET = "\x1b[0m"
# Both sides in black ink, told apart by shape (outlined White, filled Black,
# or upper/lower case letters); squares light enough for >= 4.5:1 contrast.
_LIGHT = "\x1b[48;5;223m"
_DARK = "\x1b[48;5;180m"
_PIECE_INK = "\x1b[38;5;16m"
_RUNNING = "\x1b[1;32m"
_LOW_TIME = "\x1b[1;31m"


@attrs.frozen(kw_only=True)
class RenderOptions:
    """How to draw.

    ``unicode``: chess glyphs (``♞``) instead of letters (``n``).
    ``color``: ANSI colours (square backgrounds, the running clock in green,
    under ten seconds in red). ``viewer``: whose view: that seat's board on the
    left seen from its side, the partner board on the right.
    """

    unicode: bool = False
    color: bool = False
    viewer: Seat = Seat.A_WHITE


def format_clock(seconds: float) -> str:
    """Remaining time for a clock face, rounded down: ``2:59.4``, ``1:02:03``.

    Negative or NaN input shows as ``0:00.0``; untimed play (infinite time) as ``--:--``.
    """
    if not seconds > 0:
        return "0:00.0"
    if math.isinf(seconds):
        return "--:--"
    if seconds >= 3600:
        whole = int(seconds)
        return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
    tenths = math.floor(seconds * 10 + 1e-9)
    return f"{tenths // 600}:{tenths % 600 // 10:02d}.{tenths % 10}"


def piece_text(piece: chess.Piece | None, options: RenderOptions) -> str:
    """One square's character: a glyph or letter, or ``·``/``.`` when empty."""
    if piece is None:
        return "·" if options.unicode else "."
    symbol = piece.symbol()
    return _UNICODE[symbol] if options.unicode else symbol


def format_pocket(board: chess.Board, color: chess.Color, options: RenderOptions) -> str:
    """``color``'s pocket as ``Q R2 P3`` (``q r2 p3`` for Black; strongest first),
    ``-`` when empty."""
    pocket = getattr(board, "pockets", None)
    if pocket is None:
        return "-"
    parts = []
    for piece_type in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
        count = pocket[color].count(piece_type)
        if count:
            # Outlined/filled glyphs or upper/lower case letters: the colour shows.
            glyph = piece_text(chess.Piece(piece_type, color), options)
            parts.append(glyph + (str(count) if count > 1 else ""))
    return " ".join(parts) if parts else "-"


def render_board(
    board: chess.Board,
    *,
    white_at_bottom: bool = True,
    options: RenderOptions | None = None,
) -> list[str]:
    """Eight rank lines and a file line, e.g. ``8 r n b q k b n r``.

    Each line is 18 visible characters wide (ANSI codes excluded).
    """
    options = options if options is not None else RenderOptions()
    ranks = range(7, -1, -1) if white_at_bottom else range(8)
    files = range(8) if white_at_bottom else range(7, -1, -1)
    lines = []
    for rank in ranks:
        cells = []
        for file in files:
            square = chess.square(file, rank)
            piece = board.piece_at(square)
            text = piece_text(piece, options)
            if options.color:
                background = _LIGHT if (file + rank) % 2 else _DARK
                ink = ""
                if piece is not None:
                    ink = _PIECE_INK
                cells.append(f"{background}{ink} {text}{_RESET}")
            else:
                cells.append(f" {text}")
        lines.append(f"{rank + 1}" + "".join(cells))
    lines.append(" " + "".join(f" {chess.FILE_NAMES[f]}" for f in files))
    return lines


def render_table(
    game: BughouseGame,
    clocks: Mapping[Seat, float],
    *,
    names: Mapping[Seat, str] | None = None,
    running: Collection[Seat] | None = None,
    options: RenderOptions | None = None,
    footer: str | None = None,
) -> str:
    """The whole table (both boards, pockets, names, clocks, last moves).

    Args:
        game: The match; only read.
        clocks: Remaining seconds of each seat (e.g. ``Clocks.snapshot(now)``).
        names: Player names by seat; seats without one show no name.
        running: Seats whose clock runs; by default the seats to move on
            boards still in play.
        options: Glyphs, colour, viewer.
        footer: An extra last line (a result, a prompt, a message).

    Returns:
        Lines joined with ``\\n``, without a trailing newline; no line is wider
        than 80 visible characters.
    """
    options = options if options is not None else RenderOptions()
    names = names or {}
    if running is None:
        running = set(game.seats_to_move())
    viewer = options.viewer
    left = _column(game, viewer.board, viewer.color, clocks, names, running, options)
    partner = viewer.partner
    right = _column(game, partner.board, partner.color, clocks, names, running, options)
    lines = [_pad(a, COLUMN_WIDTH) + GAP + b for a, b in zip(left, right, strict=True)]
    if game.outcome is not None:
        lines.append(printable(f"Result: {game.outcome}"))
    if footer:
        lines.append(printable(footer))
    return "\n".join(line.rstrip() for line in lines)


def move_line(
    game: BughouseGame,
    played: PlayedMove,
    *,
    names: Mapping[Seat, str] | None = None,
    used: float | None = None,
) -> str:
    """One line for one move of ``game``, for logs and non-terminal output.

    ``ply  12  A  7... Nxf7       A-Black (searcher)  clock 2:51.3  used 0.41s  passes N``
    """
    number = move_number(game, played)
    who = str(played.seat)
    if names and names.get(played.seat):
        who += f" ({printable(names[played.seat], 60)})"
    parts = [f"ply {played.ply:>3}", played.board.value, f"{number} {played.san}".ljust(14), who]
    if played.clock is not None:
        parts.append(f"clock {format_clock(played.clock)}")
    if used is not None:
        parts.append(f"used {used:.2f}s")
    if played.passed is not None:
        parts.append(f"passes {played.passed.symbol()}")
    return "  ".join(parts)


# -- pieces ------------------------------------------------------------------------


def _column(
    game: BughouseGame,
    board_id: BoardId,
    bottom: chess.Color,
    clocks: Mapping[Seat, float],
    names: Mapping[Seat, str],
    running: Collection[Seat],
    options: RenderOptions,
) -> list[str]:
    board: BughouseBoard = game.board(board_id)
    top_seat = Seat.of(board_id, not bottom)
    bottom_seat = Seat.of(board_id, bottom)
    state = "" if game.is_live(board_id) else "  (over)"
    lines = [f"Board {board_id.value}{state}"]
    lines.append(_player_line(top_seat, clocks, names, running, options))
    lines.append("  hand: " + format_pocket(board, top_seat.color, options))
    for row in render_board(board, white_at_bottom=bottom == chess.WHITE, options=options):
        lines.append("  " + row)
    lines.append("  hand: " + format_pocket(board, bottom_seat.color, options))
    lines.append(_player_line(bottom_seat, clocks, names, running, options))
    lines.append("  last: " + _last_move(game, board_id))
    return lines


def _player_line(
    seat: Seat,
    clocks: Mapping[Seat, float],
    names: Mapping[Seat, str],
    running: Collection[Seat],
    options: RenderOptions,
) -> str:
    seconds = clocks.get(seat, 0.0)
    clock = format_clock(seconds)
    is_running = seat in running
    marker = ">" if is_running else " "
    name_room = COLUMN_WIDTH - 2 - len("B-White") - 2 - len(clock) - 2
    name = printable(names.get(seat, ""), 200)
    if len(name) > name_room:
        name = name[: name_room - 1] + "…"
    text = f"{seat}  {name}".ljust(COLUMN_WIDTH - 2 - len(clock)) + clock
    if options.color and is_running:
        ink = _LOW_TIME if seconds < 10 else _RUNNING
        return f"{marker} " + text[: -len(clock)] + f"{ink}{clock}{_RESET}"
    return f"{marker} {text}"


def _last_move(game: BughouseGame, board_id: BoardId) -> str:
    for played in reversed(game.moves):
        if played.board is board_id:
            return f"{move_number(game, played)} {played.san}"
    return "-"


def move_number(game: BughouseGame, played: PlayedMove) -> str:
    """``7.`` for White's seventh move on its board, ``7...`` for Black's.

    Counted back from the board's position now, over the moves made after
    ``played`` only: the newest move costs the same at ply 10 and ply 10,000.
    """
    board = game.boards[played.board]
    later = 0
    for other in reversed(game.moves):
        if other.ply <= played.ply:
            break
        if other.board is played.board:
            later += 1
    # Half-moves from a position numbered 1 with White to move, before ``played``.
    serial = 2 * (board.fullmove_number - 1) + (0 if board.turn else 1) - 1 - later
    number = max(1, serial // 2 + 1)
    return f"{number}." if played.seat.color else f"{number}..."


def _pad(text: str, width: int) -> str:
    visible = _visible_len(text)
    return text + " " * max(0, width - visible)


def _visible_len(text: str) -> int:
    length = 0
    in_escape = False
    for char in text:
        if in_escape:
            if char == "m":
                in_escape = False
            continue
        if char == "\x1b":
            in_escape = True
            continue
        length += 1
    return length
