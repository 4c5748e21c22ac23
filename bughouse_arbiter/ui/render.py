"""The table as text for ``bughouse match`` (live) and ``bughouse replay``.

Pure: every function returns a ``str`` and reads only its arguments. The
boards, pockets, clocks and seat labels are drawn by ``table_view``, the same
code that draws the ``play`` screen, so the three commands show one table.
Everything fits 80 columns.

Layout (``viewer=A-White``, the usual bughouse view)::

     Board A                                 Board B
     > A-Black random                2:58      B-White random                2:56
       hand: -                                 hand: -
     8  r  n  b  q  k  b  n  r              1  R  N  B  K  Q  B  N  R
     ...                                     ...
     1  R  N  B  Q  K  B  N  R              8  r  n  b  k  q  b  n  r
        a  b  c  d  e  f  g  h                 h  g  f  e  d  c  b  a
       hand: -                                 hand: p
       A-White random                2:57    > B-Black random                3:00
     last 2. exd5                            last 1. d4

The viewer's board is on the left with the viewer at the bottom; the partner
board is on the right with the partner at the bottom, so partners sit side by
side. ``>`` (and, in colour, a highlighted clock) marks the player whose clock
runs; the last move's squares are bracketed (``[P]``) or, in colour, shaded.

Public API:
    ``RenderOptions``: unicode pieces or ASCII, ANSI colour, the viewer's seat.
    ``render_table(game, clocks, ...)``: the whole table as one string.
    ``format_clock(seconds)``: the table's clock face, ``2:59`` / ``19.9``.
    ``move_line(game, played, names=..., used=...)``: one line per move for
        logs and for output that is not a terminal (clocks to the tenth).
    ``move_number(game, played)``: ``7.`` or ``7...``.

Names, the result's reason and the footer come from outside (engines, files):
they are shown through ``safe_text.printable``, never raw.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Collection, Mapping

import attrs
import chess

from ..core.game import BughouseGame, PlayedMove
from ..core.model import BoardId, Seat
from .safe_text import printable
from .table_view import (
    Line,
    PanelView,
    Style,
    board_panel,
    display_san,
    last_move_squares,
    plain,
    side_by_side,
    to_ansi,
)
from .table_view import format_clock as format_clock


@attrs.frozen(kw_only=True)
class RenderOptions:
    """How to draw.

    ``unicode``: chess glyphs (``♞``) instead of letters (``n``).
    ``color``: ANSI colours (square backgrounds, the running clock
    highlighted, under twenty seconds in red). ``viewer``: whose view: that
    seat's board on the left seen from its side, the partner board on the right.
    """

    unicode: bool = False
    color: bool = False
    viewer: Seat = Seat.A_WHITE

    @property
    def style(self) -> Style:
        """The shared table view's drawing style for these options."""
        return Style(unicode=self.unicode, color=self.color)


def render_table(
    game: BughouseGame,
    clocks: Mapping[Seat, float],
    *,
    names: Mapping[Seat, str] | None = None,
    running: Collection[Seat] | None = None,
    options: RenderOptions | None = None,
    footer: str | None = None,
    last: Mapping[BoardId, str] | None = None,
    marks: Mapping[BoardId, chess.Move] | None = None,
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
        last: Each board's last move as text (``2A. exd5``), for a table
            drawn from positions; by default taken from ``game.moves``.
        marks: Each board's last move whose squares are marked, for a table
            drawn from positions; by default taken from ``game.moves``.

    Returns:
        Lines joined with ``\\n``, without a trailing newline; no line is wider
        than 80 visible characters.
    """
    options = options if options is not None else RenderOptions()
    running = set(game.seats_to_move()) if running is None else set(running)
    style = options.style
    panels = [
        _panel(game, seat.board, seat.color, clocks, names or {}, running, style, last, marks)
        for seat in (options.viewer, options.viewer.partner)
    ]
    drawn = side_by_side(*panels)
    lines = [to_ansi(line, style).rstrip() if style.color else plain(line) for line in drawn]
    if game.outcome is not None:
        lines.append(printable(f"Result: {game.outcome}"))
    if footer:
        lines.append(printable(footer))
    return "\n".join(lines)


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
    who = _who(played.seat, names.get(played.seat) if names else None)
    parts = [
        f"ply {played.ply:>3}",
        _BOARD_LETTER[played.board],
        f"{number} {display_san(played.san)}".ljust(14),
        who,
    ]
    if played.clock is not None:
        parts.append(f"clock {_log_clock(played.clock)}")
    if used is not None:
        parts.append(f"used {used:.2f}s")
    if played.passed is not None:
        parts.append(f"passes {played.passed.symbol()}")
    return "  ".join(parts)


@functools.lru_cache(maxsize=64)
def _who(seat: Seat, name: str | None) -> str:
    """``A-Black (searcher)``: the seat and its player's name, made printable (once
    per name: a display writes it on every move)."""
    return f"{seat} ({printable(name, 60)})" if name else str(seat)


#: Board names read once (``Enum.value`` is a Python property).
_BOARD_LETTER = {board: board.value for board in BoardId}


def move_number(game: BughouseGame, played: PlayedMove) -> str:
    """``7.`` for White's seventh move on its board, ``7...`` for Black's."""
    return f"{played.number}." if played.seat.color else f"{played.number}..."


# -- pieces ------------------------------------------------------------------------


def _panel(
    game: BughouseGame,
    board_id: BoardId,
    bottom: chess.Color,
    clocks: Mapping[Seat, float],
    names: Mapping[Seat, str],
    running: Collection[Seat],
    style: Style,
    last: Mapping[BoardId, str] | None,
    marks: Mapping[BoardId, chess.Move] | None,
) -> list[Line]:
    played = _last_played(game, board_id)
    status: Line = []
    if last is not None:
        status = [(f"last {last[board_id]}", "dim")] if board_id in last else []
    elif played is not None:
        status = [(f"last {move_number(game, played)} {display_san(played.san)}", "dim")]
    view = PanelView(
        title=f"Board {board_id.value}" + ("" if game.is_live(board_id) else " (over)"),
        clocks=clocks,
        running=running,
        names=names,
        last=last_move_squares(
            marks.get(board_id) if marks is not None else played.move if played else None
        ),
        status=status,
    )
    return board_panel(board_id, game.board(board_id), bottom, view, style)


def _last_played(game: BughouseGame, board_id: BoardId) -> PlayedMove | None:
    for played in reversed(game.moves):
        if played.board is board_id:
            return played
    return None


def _log_clock(seconds: float) -> str:
    """A clock to the tenth for move logs: ``2:59.4``, ``0:07.2``, ``1:02:03``."""
    if not seconds > 0:
        return "0:00.0"
    if math.isinf(seconds):
        return "--:--"
    if seconds >= 3600:
        whole = int(seconds)
        return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
    tenths = math.floor(seconds * 10 + 1e-9)
    return f"{tenths // 600}:{tenths % 600 // 10:02d}.{tenths % 10}"
