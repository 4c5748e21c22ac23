"""One turn's decision: how long to think, what captures are worth, move or sit.

``decide`` runs the search and then applies the bughouse judgement around it:
sit (answer ``wait``) when a piece from the partner would mate, when every
move loses to mate, or when the partner asked for it, but only while the
clocks allow it; tell the partner what to send and what not to give away.
Clocks are in milliseconds, as on the wire; the deadline is ``time.monotonic()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from .evaluation import GIFT_SHARE, VALUE, Stakes
from .partner import PartnerWishes, request_word
from .position import DROPPABLE, BugBoard, mates_with, parse_move, with_piece
from .search import Limits, Result, Searcher, score_text

SEAT_INDEX = {("a", True): 0, ("a", False): 1, ("b", True): 2, ("b", False): 3}
# A piece that mates on the other board is worth about this much to the team.
DECISIVE_GIFT = 1200
_REQUEST_BONUS = (0, 150, 400, DECISIVE_GIFT)
# Below this, never think: play the first decent move at once.
PANIC_MS = 2000
MAX_THINK_MS = 2000


@dataclass
class Table:
    """What the engine knows at the moment of deciding."""

    board: str  # "a" or "b": the engine's board
    color: chess.Color
    mine: BugBoard
    other: BugBoard
    clocks: tuple[int, int, int, int]
    increment_ms: int = 0
    base_ms: int = 180_000

    @property
    def my_ms(self) -> int:
        return self.clocks[SEAT_INDEX[(self.board, self.color)]]

    @property
    def opponent_ms(self) -> int:
        return self.clocks[SEAT_INDEX[(self.board, not self.color)]]

    @property
    def partner_ms(self) -> int:
        other = "b" if self.board == "a" else "a"
        return self.clocks[SEAT_INDEX[(other, not self.color)]]

    @property
    def partner_opponent_ms(self) -> int:
        other = "b" if self.board == "a" else "a"
        return self.clocks[SEAT_INDEX[(other, self.color)]]


@dataclass
class Decision:
    """``move`` to play, or None to sit (``reason`` says why); ``tells`` go to the partner."""

    move: chess.Move | None
    reason: str = ""
    tells: list[str] = field(default_factory=list)
    # While sitting: move anyway once the own clock is down to this.
    sit_floor_ms: int = 0
    info: str = ""


def think_seconds(table: Table, wishes: PartnerWishes, movetime_ms: int | None = None) -> float:
    """The time to spend on this move, from the four clocks."""
    if movetime_ms is not None:
        return max(movetime_ms, 1) / 1000
    mine = table.my_ms
    if mine < PANIC_MS:
        return 0.02
    budget = mine / 40 + 0.8 * table.increment_ms
    if mine > table.opponent_ms * 1.1:
        budget *= 1.25
    elif mine < table.opponent_ms * 0.8:
        budget *= 0.6  # behind on time: catch up, or the opponent can sit on us
    if wishes.fast or wishes.dead or table.partner_ms < table.partner_opponent_ms * 0.7:
        budget *= 0.6
    # Time in hand is worth more than depth in bughouse: it is what lets us sit.
    budget = min(budget, mine * 0.08, MAX_THINK_MS)
    return max(budget, 20) / 1000


def sitting_floor(table: Table, *, dead: bool = False) -> int:
    """How low the own clock may fall while sitting (ms): keep up with the opponent."""
    reserve = max(3000, table.base_ms // 10)
    if dead:
        return max(reserve, table.opponent_ms)
    return max(reserve, table.opponent_ms * 9 // 10)


def build_stakes(table: Table, wishes: PartnerWishes) -> Stakes:
    """What each capture on this board hands to the other board is worth."""
    stakes = Stakes()
    us, them = table.color, not table.color
    # On the other board the partner plays the opposite colour: ``them``.
    for piece_type in mates_with(table.other, them):
        stakes.raise_gift(us, piece_type, DECISIVE_GIFT)
    # ... and the partner's opponent plays our colour: what mates the partner.
    for piece_type in mates_with(table.other, us):
        stakes.raise_gift(them, piece_type, DECISIVE_GIFT)
    for piece_type, level in wishes.wants.items():
        stakes.raise_gift(us, piece_type, GIFT_SHARE * VALUE[piece_type] + _REQUEST_BONUS[level])
    for piece_type, level in wishes.nogive.items():
        stakes.raise_gift(them, piece_type, GIFT_SHARE * VALUE[piece_type] + _REQUEST_BONUS[level])
    if wishes.trades:
        side = us if wishes.trades > 0 else them
        for piece_type in DROPPABLE:
            stakes.raise_gift(side, piece_type, (GIFT_SHARE + 0.2) * VALUE[piece_type])
    return stakes


def _cheapest(piece_types: frozenset[chess.PieceType]) -> chess.PieceType:
    return min(piece_types, key=lambda pt: VALUE[pt])


def decide(
    table: Table,
    wishes: PartnerWishes,
    *,
    seconds: float,
    may_sit: bool = True,
    depth: int = 64,
    nodes: int | None = None,
    stop: Callable[[], bool] | None = None,
    seed: int | None = None,
) -> Decision:
    """Searches the engine's board and decides between a move and sitting."""
    started = time.monotonic()
    board = table.mine
    us = table.color
    panic = table.my_ms < PANIC_MS
    # Short of time, skip the look at the other board: only the move counts.
    stakes = Stakes() if panic else build_stakes(table, wishes)
    limits = Limits(
        deadline=started + seconds,
        soft_deadline=started + seconds * 0.35,
        depth=depth,
        nodes=nodes,
    )
    result = Searcher(board, stakes=stakes, stop=stop, seed=seed).run(limits)
    decision = Decision(move=result.move, info=_info(result, time.monotonic() - started))

    # What would let the opponent mate me at once: ask the partner not to give it.
    danger = frozenset() if panic else threats_after(board, result.move, us)
    if danger:
        decision.tells.append(" ".join(request_word(3, pt, want=False) for pt in sorted(danger)))
        if len(danger) >= 2 or chess.PAWN in danger:
            # Almost any trade on the other board would mate me: ask the partner to hold.
            decision.tells.append("sit")

    if result.move is None:
        # Any piece gives a move (a pawn only off the back ranks): ask for all of them.
        decision.reason = "no legal move"
        decision.tells.append(" ".join(request_word(3, pt, want=True) for pt in unblocking(board)))
        return decision

    if wishes.suggested and not result.mates:
        try:
            decision.move = parse_move(board, wishes.suggested)
            decision.reason = "partner's move"
        except ValueError:
            pass

    if not may_sit or result.mates or panic:
        return decision

    if wishes.sit and not wishes.dead and table.my_ms > sitting_floor(table):
        decision.move = None
        decision.reason = "partner asked me to sit"
        decision.sit_floor_ms = sitting_floor(table)
        return decision

    # Partner sitting or dead: our team must not sit on both boards.
    partner_stuck = wishes.dead
    mating = mates_with(board, us) if board.turn == us else frozenset()
    if mating and not partner_stuck and table.my_ms > sitting_floor(table):
        piece_type = _cheapest(mating)
        decision.move = None
        decision.reason = f"waiting for a {chess.piece_name(piece_type)} that mates"
        decision.tells.append(request_word(3, piece_type, want=True))
        decision.sit_floor_ms = sitting_floor(table)
        return decision

    if result.mated:
        saver = saving_piece(board, us, result.depth, started + seconds * 1.5, stakes, stop)
        if saver is None:
            decision.tells.append("dead")
        else:
            decision.tells.append(request_word(2, saver, want=True))
        if not partner_stuck and table.my_ms > sitting_floor(table, dead=True):
            decision.move = None
            decision.reason = (
                "every move is mated"
                if saver is None
                else f"mated unless I get a {chess.piece_name(saver)}"
            )
            decision.sit_floor_ms = sitting_floor(table, dead=True)
    return decision


def saving_piece(
    board: BugBoard,
    us: chess.Color,
    depth: int,
    deadline: float,
    stakes: Stakes,
    stop: Callable[[], bool] | None = None,
) -> chess.PieceType | None:
    """The cheapest piece that, in hand, would get ``us`` out of a forced mate."""
    for piece_type in DROPPABLE:
        if time.monotonic() >= deadline:
            return None
        trial = with_piece(board, us, piece_type)
        limits = Limits(deadline=deadline, depth=max(depth, 1))
        result = Searcher(trial, stakes=stakes, stop=stop).run(limits)
        if result.depth >= max(depth, 1) and not result.mated:
            return piece_type
    return None


def unblocking(board: BugBoard) -> list[chess.PieceType]:
    """The piece types that would give the side to move a legal move if it had one."""
    found = []
    for piece_type in DROPPABLE:
        trial = with_piece(board, board.turn, piece_type)
        if any(trial.generate_legal_drops()):
            found.append(piece_type)
    return found


def threats_after(
    board: BugBoard, move: chess.Move | None, us: chess.Color
) -> frozenset[chess.PieceType]:
    """Piece types the opponent does not hold that would mate us after ``move``."""
    trial = board.copy(stack=False)
    if move is not None:
        trial.push(move)
    them = not us
    threats = mates_with(trial, them)
    held = {pt for pt in DROPPABLE if trial.pockets[them].count(pt)}
    return frozenset(threats - held)


def _info(result: Result, elapsed: float) -> str:
    parts = [f"depth {result.depth}", f"score {score_text(result.score)}", f"nodes {result.nodes}"]
    parts.append(f"time {int(elapsed * 1000)}")
    if elapsed > 0:
        parts.append(f"nps {int(result.nodes / elapsed)}")
    if result.pv:
        parts.append("pv " + " ".join(move.uci() for move in result.pv))
    return " ".join(parts)
