"""The running table as the live page sees it: arbiter events in, JSON snapshots out.

``LiveView`` follows a ``LiveTable``'s events (``observe``) and keeps what
the page shows: the live ``BughouseGame`` (read only), the clocks, the
names, partner messages, the last move per board and the result. Pure: the
caller passes the trio time ``now`` and the snapshot is a plain dict that
``json.dumps`` takes.

A snapshot for a seat (``seat=``, the remote seat a page's token opened)
adds ``you``: the seat its player holds in the game shown (seats rotate
between the games of a ``serve`` run: ``seating``, taken at each
``MatchStarted``), the token's seat (``joined``), whether it is to move, and
every legal move of that seat right now in UCI notation (drops as ``N@e4``),
computed by the rules code, so the page refuses illegal input without
knowing chess. The server still judges whatever arrives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chess

from ..core.clock import Clocks
from ..core.game import BughouseGame, PartnerMessage
from ..core.model import SEATS, BoardId, Outcome, Seat
from ..table.match_events import (
    DrawOffered,
    MatchEnded,
    MatchEvent,
    MatchStarted,
    MovePlayed,
    PartnerTold,
    PlayerWaits,
)

#: Partner messages kept for the page.
MESSAGES_KEPT = 30
#: Pocket order on the page, strongest first.
POCKET_ORDER = "QRBNP"


class LiveView:
    """What the page shows of the table; ``version`` grows with every change."""

    def __init__(self) -> None:
        self.version = 0
        self.game: BughouseGame | None = None
        self.game_id = 0
        self.names: dict[Seat, str] = {}
        self.clocks: Clocks | None = None
        self.messages: list[PartnerMessage] = []
        self.last: dict[BoardId, tuple[str, str]] = {}
        self.waits: dict[Seat, str] = {}
        self.outcome: Outcome | None = None
        #: The seat whose draw offer stands (until the next move).
        self.draw_offer: Seat | None = None
        #: Remote seat (its token's) -> the seat its player holds in the game shown.
        self.seating: dict[Seat, Seat] = {}

    def apply(self, event: MatchEvent, *, seating: Mapping[Seat, Seat] | None = None) -> bool:
        """Takes one arbiter event; True if the page has something new to show.

        ``seating``: with ``MatchStarted``, where each remote seat's player
        sits in that game (``LiveTable.seating``); unchanged if None.
        """
        match event:
            case MatchStarted(game=game, names=names, clocks=clocks):
                self.game, self.clocks, self.outcome = game, clocks, None
                self.game_id += 1
                if seating is not None:
                    self.seating = dict(seating)
                self.names = dict(names)
                self.messages, self.last, self.waits = [], {}, {}
                self.draw_offer = None
            case MovePlayed(played=played, clocks=clocks):
                self.clocks = clocks
                self.last[played.board] = (played.uci, played.san)
                self.waits.pop(played.seat, None)
                self.draw_offer = None
            case DrawOffered(seat=seat):
                self.draw_offer = seat
            case PlayerWaits(seat=seat, reason=reason):
                self.waits[seat] = reason or "waits"
            case PartnerTold(message=message):
                self.messages = [*self.messages, message][-MESSAGES_KEPT:]
            case MatchEnded(game=game, names=names, clocks=clocks, outcome=outcome):
                self.game, self.clocks, self.outcome = game, clocks, outcome
                self.names = dict(names)
            case _:
                return False
        self.version += 1
        return True

    def seat_of(self, seat: Seat) -> Seat:
        """Where the player of remote seat ``seat`` sits in the game shown."""
        return self.seating.get(seat, seat)

    def snapshot(self, now: float, *, seat: Seat | None = None) -> dict[str, Any]:
        """The page's whole state at trio time ``now`` (with ``you`` for the
        player of remote seat ``seat``)."""
        game = self.game
        data: dict[str, Any] = {
            "type": "state",
            "version": self.version,
            "game": self.game_id,
            "started": game is not None,
            "names": {s.value: self.names.get(s, s.value) for s in SEATS},
            "boards": {},
            "clocks": {},
            "running": [],
            "untimed": False,
            "messages": [
                {"seat": m.seat.value, "to": m.seat.partner.value, "text": m.text}
                for m in self.messages
            ],
            "result": _result(self.outcome),
            "drawOffer": self.draw_offer.value if self.draw_offer and not self.outcome else None,
        }
        if game is not None:
            data["boards"] = {b.value: self._board(game, b) for b in BoardId}
        clocks = self.clocks
        if clocks is not None:
            data["untimed"] = clocks.untimed
            if not clocks.untimed:
                remaining = clocks.snapshot(now)
                data["clocks"] = {s.value: round(remaining[s] * 1000) for s in SEATS}
            data["running"] = [
                s.value for s in SEATS if clocks.is_running(s) and self.outcome is None
            ]
        if seat is not None:
            data["you"] = _you(game, self.seat_of(seat), self.outcome is None)
            data["you"]["joined"] = seat.value
        return data

    def _board(self, game: BughouseGame, board_id: BoardId) -> dict[str, Any]:
        board = game.board(board_id)
        to_move = game.to_move(board_id)
        last = self.last.get(board_id)
        status = game.status(board_id)
        return {
            "fen": board.board_fen(),
            "turn": "white" if board.turn else "black",
            "toMove": to_move.value,
            "live": game.is_live(board_id),
            "check": board.is_check(),
            "status": status.value,
            "waiting": (status.waiting or to_move in self.waits) and game.is_live(board_id),
            "lastMove": _squares(last[0]) if last else [],
            "lastSan": last[1] if last else "",
            "pockets": {
                "white": _pocket(board, chess.WHITE),
                "black": _pocket(board, chess.BLACK),
            },
        }


def _pocket(board: chess.variant.CrazyhouseBoard, color: chess.Color) -> dict[str, int]:
    pocket = board.pockets[color]
    counts = {
        symbol: pocket.count(chess.Piece.from_symbol(symbol).piece_type) for symbol in POCKET_ORDER
    }
    return {symbol: n for symbol, n in counts.items() if n}


def _squares(uci: str) -> list[str]:
    """Chessground's ``lastMove``: from and to (a drop: just the square)."""
    if "@" in uci:
        return [uci[2:4]]
    return [uci[0:2], uci[2:4]]


def _you(game: BughouseGame | None, seat: Seat, playing: bool) -> dict[str, Any]:
    to_move = game is not None and playing and game.is_to_move(seat)
    legal: list[str] = []
    if game is not None and to_move:
        legal = sorted(move.uci() for move in game.board(seat.board).legal_moves)
    return {
        "seat": seat.value,
        "board": seat.board.value,
        "color": "white" if seat.color else "black",
        "toMove": to_move,
        "legal": legal,
    }


def _result(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    winner = outcome.winner
    return {
        "result": outcome.result.value,
        "reason": outcome.reason,
        "winners": [s.value for s in winner.seats] if winner is not None else [],
        "text": str(outcome),
    }
