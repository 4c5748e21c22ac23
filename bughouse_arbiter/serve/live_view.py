"""The running table as the live page sees it: arbiter events in, JSON snapshots out.

``LiveView`` follows a ``LiveTable``'s events (``observe``) and keeps what
the page shows: the live ``BughouseGame`` (read only), the clocks, the
names, partner messages, each board's moves and the result. Pure: the
caller passes the trio time ``now`` and the snapshot is a plain dict that
``json.dumps`` takes.

A snapshot for a seat (``seat=``, the remote seat a page's token opened)
adds ``you``: the seat its player holds in the game shown (seats rotate
between the games of a ``serve`` run: ``seating``, taken when a game
begins), the token's seat (``joined``), whether it is to move, and every
legal move of that seat right now in UCI notation (drops as ``N@e4``),
computed by the rules code, so the page refuses illegal input without
knowing chess. The server still judges whatever arrives.

The snapshot (``"type": "state"``)::

    version   int, grows with every change the view takes
    run       text naming this view (the server's run), to tell its games
              from those of another run
    game      int, 1 for the first game of the run (0 before it): a new
              number means a new game, and the page forgets the last one's moves
    started   bool
    names     {"A-White": "sjeng", ...}, every seat (a network seat an engine
              took over, leaver=computer: "Alice / searcher", as the record)
    boards    {"A": BOARD, "B": BOARD}, or {} before the first game
    clocks    {"A-White": ms left, ...}, or {} when untimed
    running   seats whose clock runs, ["A-Black", ...]
    untimed   bool
    messages  the last 30 partner messages of the page's own team, [{"seat",
              "to", "text", "words"}] ("words": a message of protocol.md §8.2
              signals in words, "++n" -> "I want a knight: very good", else
              null): a seated page gets its team's (in this game),
              a page without a seat (a spectator) none, during the game and
              after it (signals go only to the partner, docs/rules.md; the
              game file keeps them all)
    result    null, or {"result": "1-0", "reason", "winners": [seats], "text"}
    drawOffer the seat whose draw offer stands, or null
    drawRule  who must agree to a draw (house rule ``draw``): "humans" (every
              person at the table) or "both-teams" (also the engines of a team
              without a person, which may never accept); null before the
              first game
    you       (for a seat) {"seat", "board", "color", "toMove", "legal": [uci],
              "joined"}: "seat" is where the player sits in this game,
              "joined" the seat its token opened (they differ when seats rotate)

    BOARD = {"fen", "turn": "white"|"black", "toMove": seat, "live", "check",
             "status", "waiting", "lastMove": [from, to] or [square] or [],
             "lastSan", "pockets": {"white": {"Q": 1, ...}, "black": {...}},
             "moves": MOVES}

Moves are sent by range, so that a snapshot does not grow with the game::

    MOVES = {"count": 57, "from": 50, "list": [[26, "w", "Nf3"], [26, "b", "P@e4"], ...]}

``count`` is how many moves the board has had in this game; ``list`` holds
the moves from index ``from`` (0 = the board's first move), each as
``[move number, "w" or "b", SAN]`` (a pawn drop written ``P@e4``, as the
console writes it), at most ``moves_per_snapshot`` of them. The caller
says how many moves of each board the page already has (``have=``): the
list starts there (past ``count``: at ``count``). The page appends a list
whose ``from`` is its own length; when ``from`` is less, it first drops its
moves from index ``from`` on; when ``from`` is more (a gap), it asks for
the moves again. While ``from + len(list) < count`` the server sends the
next range at once (``live_page``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chess

from ..core.clock import Clocks
from ..core.game import BughouseGame, PartnerMessage, PlayedMove
from ..core.model import SEATS, BoardId, Outcome, Seat
from ..protocol.signals import meaning
from ..table.match_events import (
    DrawOffered,
    MatchEnded,
    MatchEvent,
    MatchStarted,
    MovePlayed,
    PartnerTold,
    PlayerWaits,
    SeatTakenOver,
)
from ..ui.table_view import display_san

#: Partner messages kept for the page.
MESSAGES_KEPT = 30
#: Pocket order on the page, strongest first.
POCKET_ORDER = "QRBNP"
#: Moves of one board a snapshot carries at most.
MOVES_PER_SNAPSHOT = 200

#: One move as the page lists it: its number, "w" or "b", and its SAN.
MoveEntry = tuple[int, str, str]


class LiveView:
    """What the page shows of the table; ``version`` grows with every change."""

    def __init__(self, *, run: str = "", moves_per_snapshot: int = MOVES_PER_SNAPSHOT) -> None:
        self.run = run
        self.moves_per_snapshot = moves_per_snapshot
        self.version = 0
        self.game: BughouseGame | None = None
        self.game_id = 0
        self.names: dict[Seat, str] = {}
        self.clocks: Clocks | None = None
        self.messages: list[PartnerMessage] = []
        self.last: dict[BoardId, tuple[str, str]] = {}
        #: Each board's moves in this game, in order.
        self.moves: dict[BoardId, list[MoveEntry]] = {board: [] for board in BoardId}
        self.waits: dict[Seat, str] = {}
        self.outcome: Outcome | None = None
        #: The seat whose draw offer stands (until the next move).
        self.draw_offer: Seat | None = None
        #: Remote seat (its token's) -> the seat its player holds in the game shown.
        self.seating: dict[Seat, Seat] = {}

    def apply(self, event: MatchEvent, *, seating: Mapping[Seat, Seat] | None = None) -> bool:
        """Takes one arbiter event; True if the page has something new to show.

        ``seating``: with the event that begins a game (``MatchStarted``, or
        the ``MatchEnded`` of one that never started), where each remote
        seat's player sits in that game (``LiveTable.seating``); unchanged if
        None.
        """
        match event:
            case MatchStarted(game=game, names=names, clocks=clocks):
                self._new_game(game, seating)
                self.clocks, self.outcome = clocks, None
                self.names = dict(names)
            case MovePlayed(played=played, clocks=clocks):
                self.clocks = clocks
                self.last[played.board] = (played.uci, played.san)
                self.moves[played.board].append(_entry(played))
                self.waits.pop(played.seat, None)
                self.draw_offer = None
            case DrawOffered(seat=seat):
                self.draw_offer = seat
            case PlayerWaits(seat=seat, reason=reason):
                self.waits[seat] = reason or "waits"
            case PartnerTold(message=message):
                self.messages = [*self.messages, message][-MESSAGES_KEPT:]
            case SeatTakenOver(names=names):
                self.names = dict(names)
            case MatchEnded(game=game, names=names, clocks=clocks, outcome=outcome):
                if game is not self.game:  # a game that ended before it started
                    self._new_game(game, seating)
                self.clocks, self.outcome = clocks, outcome
                self.names = dict(names)
            case _:
                return False
        self.version += 1
        return True

    def seat_of(self, seat: Seat) -> Seat:
        """Where the player of remote seat ``seat`` sits in the game shown."""
        return self.seating.get(seat, seat)

    def _new_game(self, game: BughouseGame, seating: Mapping[Seat, Seat] | None) -> None:
        self.game = game
        if seating is not None:
            self.seating = dict(seating)
        self.game_id += 1
        self.messages, self.last, self.waits = [], {}, {}
        self.draw_offer = None
        self.moves = {board: [] for board in BoardId}
        for done in game.moves:  # none, unless the game came with some
            self.moves[done.board].append(_entry(done))

    def snapshot(
        self,
        now: float,
        *,
        seat: Seat | None = None,
        have: Mapping[BoardId, int] | None = None,
    ) -> dict[str, Any]:
        """The page's state at trio time ``now`` (with ``you`` for the player
        of remote seat ``seat``).

        ``have``: how many moves of each board of this game the page holds
        (none if left out); each board's ``moves`` range starts there.
        """
        game = self.game
        data: dict[str, Any] = {
            "type": "state",
            "version": self.version,
            "run": self.run,
            "game": self.game_id,
            "started": game is not None,
            "names": {s.value: self.names.get(s, s.value) for s in SEATS},
            "boards": {},
            "clocks": {},
            "running": [],
            "untimed": False,
            "messages": self._messages(seat),
            "result": _result(self.outcome),
            "drawOffer": self.draw_offer.value if self.draw_offer and not self.outcome else None,
            "drawRule": game.rules.draw if game is not None else None,
        }
        if game is not None:
            held = have or {}
            data["boards"] = {b.value: self._board(game, b, held.get(b, 0)) for b in BoardId}
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

    def _messages(self, seat: Seat | None) -> list[dict[str, str | None]]:
        """The partner messages the player of remote seat ``seat`` may read:
        its own team's in the game shown (none for a spectator)."""
        if seat is None:
            return []
        team = self.seat_of(seat).team
        return [
            {
                "seat": m.seat.value,
                "to": m.seat.partner.value,
                "text": m.text,
                "words": meaning(m.text),
            }
            for m in self.messages
            if m.seat.team is team
        ]

    def _board(self, game: BughouseGame, board_id: BoardId, have: int) -> dict[str, Any]:
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
            "moves": self._moves(board_id, have),
        }

    def _moves(self, board_id: BoardId, have: int) -> dict[str, Any]:
        moves = self.moves[board_id]
        start = min(max(have, 0), len(moves))
        chunk = moves[start : start + self.moves_per_snapshot]
        return {"count": len(moves), "from": start, "list": [list(m) for m in chunk]}


def moves_held(data: Mapping[str, Any]) -> dict[BoardId, int]:
    """How many moves of each board a page holds once it has taken snapshot ``data``."""
    return {
        board: info["moves"]["from"] + len(info["moves"]["list"])
        for board in BoardId
        if (info := data["boards"].get(board.value)) is not None
    }


def moves_behind(data: Mapping[str, Any]) -> bool:
    """True if ``data`` left some board's moves for a later snapshot."""
    return any(
        info["moves"]["from"] + len(info["moves"]["list"]) < info["moves"]["count"]
        for info in data["boards"].values()
    )


def _entry(played: PlayedMove) -> MoveEntry:
    return (played.number, "w" if played.seat.color else "b", display_san(played.san))


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
