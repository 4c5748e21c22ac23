"""One replayed game as a self-contained HTML page (``bughouse replay --html``).

The page needs no network: the boards are python-chess's ``chess.svg``
drawings, the piece artwork is defined once in the page, and a small script
steps through the frames the replay produced (both boards, pockets, the four
clocks rebuilt from the file, the last move and check of each board, partner
messages, a move list for each board). Keys: → / ← step, Home / End jump.

Each board is stored once as data (its placement, last move, check and
side: about 70 bytes) and shared by every frame that shows it (a ply changes
one board); the page's script draws it, with the artwork of ``chess.svg``
defined once in the page. So the page grows with the game by a board and a
frame per ply, about 250 bytes; ``MAX_PLIES`` caps it (a replay made with
``frame_limit=MAX_PLIES`` keeps no more), and the page then says which
plies it shows and how many it leaves out.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Mapping
from typing import Any

import chess
import chess.svg

from ..bpgn.replay import Frame, ReplayReport
from ..core.board import BughouseBoard
from ..core.model import BoardId, Seat
from ..errors import ArbiterError
from .assets import asset_text

#: Pocket order on the page, strongest first.
POCKET_ORDER = "QRBNP"
#: Which seat sits at the top and bottom of each board: board B is drawn
#: from Black's side so that partners (A-White, B-Black) both sit at the bottom.
LAYOUT = {
    BoardId.A: (Seat.A_BLACK, Seat.A_WHITE, chess.WHITE),
    BoardId.B: (Seat.B_WHITE, Seat.B_BLACK, chess.BLACK),
}
_DESC = re.compile(r"<desc>.*?</desc>", re.S)
_DEFS = re.compile(r"<defs>(.*?)</defs>", re.S)
_SIZE = re.compile(r' width="\d+" height="\d+"')
_PLAIN_SQUARE = re.compile(r'<rect [^>]*class="square (?:light|dark) [a-h][1-8]"[^>]*/>')
_OPEN = re.compile(r"<svg [^>]*>")
_XLINK = re.compile(r' xlink:href="[^"]*"')
#: The most plies one page embeds (about 300 bytes of page a ply).
MAX_PLIES = 10_000


def replay_page(report: ReplayReport, *, title: str | None = None) -> str:
    """The whole page for ``report`` (made with ``replay_game(..., frames=True)``)."""
    if not report.frames:
        raise ValueError("the report holds no frames: replay with frames=True")
    drawings = _Drawings()
    builder = _FrameBuilder(drawings)
    frames = []
    previous: Frame | None = None
    for frame in itertools.islice(report.frames, MAX_PLIES + 1):
        frames.append(builder.data(frame, previous))
        previous = frame
    source = report.game
    data = {
        "names": {seat.value: source.name_of(seat) or seat.value for seat in Seat},
        "layout": {
            board.value: [top.value, bottom.value] for board, (top, bottom, _) in LAYOUT.items()
        },
        "boards": drawings.svgs,
        "frames": frames,
        "messages": [
            {"seat": m.seat.value, "text": m.text, "at": m.at}
            for m in source.messages[: frames[-1]["said"]]
        ],
        "pieces": {letter: _piece_svg(letter) for letter in POCKET_ORDER + POCKET_ORDER.lower()},
        "ending": _ending(report, len(frames) - 1),
        "event": source.tag("Event") or "",
        "date": source.tag("Date") or "",
    }
    heading = title or _title(report)
    return _TEMPLATE.format(
        title=html.escape(heading),
        style=asset_text("replay.css"),
        script=page_script(),
        defs=drawings.defs,
        notice=f'<p id="notice">{html.escape(said)}</p>' if (said := notice(report)) else "",
        data=_json_for_script(data),
    )


def page_script() -> str:
    """The page's one inline script (a server sending the page names it in its CSP)."""
    return asset_text("replay.js")


def notice(report: ReplayReport) -> str:
    """What the page leaves out of the game ("" when it shows it all)."""
    shown = min(len(report.frames), MAX_PLIES + 1) - 1
    left = report.replayed - shown
    if left <= 0:
        return ""
    return (
        f"This page shows plies 0 to {shown} of {report.replayed}: a page holds at most "
        f"{MAX_PLIES} plies, so the last {left} are left out (step through them with "
        "bughouse replay FILE)."
    )


class _Drawings:
    """Board drawings by content, each stored once, and the shared piece artwork."""

    def __init__(self) -> None:
        self.svgs: list[str] = []
        self._index: dict[str, int] = {}
        full = chess.svg.board(chess.Board(), check=chess.E1, lastmove=chess.Move.from_uci("e2e4"))
        found = _DEFS.search(full)
        squares = []
        for side, orientation in (("white", chess.WHITE), ("black", chess.BLACK)):
            empty = chess.svg.board(orientation=orientation, coordinates=False)
            squares.append(f'<g id="squares-{side}">{"".join(_PLAIN_SQUARE.findall(empty))}</g>')
        self.defs = (found.group(1) if found else "") + "".join(squares)

    def index(
        self, board_fen: str, lastmove: chess.Move | None, check: int | None, flipped: bool
    ) -> int:
        """The number of this drawing: ``"PLACEMENT FROMTO|- CHECK|- w|b"``, which the
        page's script draws (``drawBoard`` in replay.js) the way ``chess.svg`` does."""
        last = (
            chess.square_name(lastmove.from_square) + chess.square_name(lastmove.to_square)
            if lastmove is not None
            else "-"
        )
        checked = chess.square_name(check) if check is not None else "-"
        key = f"{board_fen} {last} {checked} {'b' if flipped else 'w'}"
        known = self._index.get(key)
        if known is not None:
            return known
        self._index[key] = len(self.svgs)
        self.svgs.append(key)
        return self._index[key]


class _FrameBuilder:
    """Frames as the page's script reads them, in order."""

    def __init__(self, drawings: _Drawings) -> None:
        self.drawings = drawings
        # Each board's last move, kept for the frames in which the other board moves.
        self.last_move: dict[BoardId, chess.Move | None] = {}

    def data(self, frame: Frame, previous: Frame | None) -> dict[str, Any]:
        move = frame.move
        if move is not None and move.board in frame.marks:
            self.last_move[move.board] = frame.marks[move.board]
        elif move is not None and previous is not None:
            self.last_move[move.board] = _parse(previous.fens[move.board], move.san)
        boards: dict[str, int] = {}
        checks: list[str] = []
        for board_id, (_, _, orientation) in LAYOUT.items():
            fen = frame.fens[board_id]
            position = _board(fen)
            check = None
            if position is not None and position.is_check():
                check = position.king(position.turn)
                checks.append(board_id.value)
            board_fen = position.board_fen(promoted=False) if position else fen.split()[0]
            boards[board_id.value] = self.drawings.index(
                board_fen,
                self.last_move.get(board_id),
                check,
                flipped=orientation == chess.BLACK,
            )
        return {
            "a": boards["A"],
            "b": boards["B"],
            "pockets": {seat.value: _pocket_counts(frame.pockets[seat]) for seat in Seat},
            "clocks": {seat.value: frame.clocks[seat] for seat in Seat},
            "running": sorted(seat.value for seat in frame.running),
            "check": checks,
            "at": frame.at,
            "move": None
            if move is None
            else {"label": move.label, "board": move.board.value, "seat": move.seat.value},
            "said": len(frame.messages),
        }


def _parse(fen: str, san: str) -> chess.Move | None:
    """``san`` played from ``fen``, for the highlight; None where it cannot be read."""
    before = _board(fen)
    if before is None:
        return None
    try:
        return before.parse_san(san)
    except ValueError:
        return None


def _board(fen: str) -> BughouseBoard | None:
    try:
        return BughouseBoard(fen)
    except (ArbiterError, ValueError):
        return None


def _pocket_counts(pocket: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for char in pocket:
        if char.upper() in POCKET_ORDER:
            counts[char] = counts.get(char, 0) + 1
    return counts


def _piece_svg(letter: str) -> str:
    color = "white" if letter.isupper() else "black"
    name = chess.piece_name(chess.Piece.from_symbol(letter).piece_type)
    return f'<svg viewBox="0 0 45 45" class="piece"><use href="#{color}-{name}" /></svg>'


def _ending(report: ReplayReport, shown: int) -> str:
    if shown < report.replayed:
        return f"the page ends here, at ply {shown} of {report.replayed} (see the note above)"
    if report.illegal is not None:
        return f"the replay stops here: next is {report.illegal.located()}"
    if report.outcome is not None:
        return f"result {report.rejudged}: {report.outcome.reason}"
    if report.recorded:
        return f"recorded result {report.recorded}; {report.verdict}"
    return report.verdict


def _title(report: ReplayReport) -> str:
    source = report.game
    names: Mapping[Seat, str] = {seat: source.name_of(seat) or "?" for seat in Seat}
    return (
        f"{names[Seat.A_WHITE]} & {names[Seat.B_BLACK]} vs "
        f"{names[Seat.A_BLACK]} & {names[Seat.B_WHITE]} — game {source.number}"
    )


def _json_for_script(data: object) -> str:
    # '<' only occurs inside JSON strings, where \u003c means the same: no
    # '</script>' in a name or message can end the script element early.
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="bughouse-arbiter">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>{defs}</defs></svg>
<header><h1 id="title">{title}</h1><p id="subtitle"></p></header>
{notice}
<main id="table"></main>
<nav id="controls" aria-label="step through the game">
<button id="first" title="start (Home)" aria-label="start">|◀</button>
<button id="prev" title="back (←)" aria-label="back">◀</button>
<span id="where" aria-live="polite"></span>
<button id="next" title="forward (→)" aria-label="forward">▶</button>
<button id="last" title="end (End)" aria-label="end">▶|</button>
</nav>
<p id="ending" hidden></p>
<section id="lists">
<div class="list"><h2>Board A</h2><ol id="moves-A"></ol></div>
<div class="list"><h2>Board B</h2><ol id="moves-B"></ol></div>
<div class="list"><h2>Partner messages</h2><ul id="messages"></ul></div>
</section>
<script type="application/json" id="game-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
