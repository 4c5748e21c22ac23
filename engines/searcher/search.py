"""Alpha-beta search: iterative deepening negamax with quiescence on captures.

Principal-variation search with a transposition table, futility pruning one
ply from the horizon and late-move reductions; checks are extended near the
root only (drops give check all the time). Quiescence searches captures, the
checking drops at its first ply, and every evasion when in check, so a mate
by a drop shows at the horizon. A side with no legal move is mated only if no
drop could block the check; otherwise it waits, which scores badly but is not lost.

Move ordering: the transposition-table move, captures by MVV-LVA, killer
moves, then a history table; drops next to the enemy king come early. The
search stops when its deadline passes, its node limit is reached or the
``stop`` callable says so (checked every few hundred nodes), and then returns
the best move of the last finished iteration.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from .evaluation import (
    MATE,
    MATE_BOUND,
    MUST_WAIT_SCORE,
    NEUTRAL_STAKES,
    STUCK_SCORE,
    VALUE,
    Stakes,
    evaluate,
)
from .position import BugBoard, Situation

INFINITY = 10 * MATE
MAX_PLY = 48
_QUIESCENCE_CHECK_PLIES = 2
_TABLE_LIMIT = 300_000
_EXACT, _LOWER, _UPPER = 0, 1, 2
_FUTILITY_MARGIN = 220
# Quiet moves after this many are searched one ply shallower first.
_LATE_MOVE = 4


class SearchStopped(Exception):
    """Raised inside the search when time, nodes or the stop flag end it."""


@dataclass
class Limits:
    """When to stop: a deadline (``time.monotonic()``), a depth, a node count."""

    deadline: float | None = None
    depth: int = 64
    nodes: int | None = None
    # Do not start a new iteration after this instant (most of it would be wasted).
    soft_deadline: float | None = None


@dataclass
class Result:
    """The outcome of a search: best move (None if no legal move), score, depth."""

    move: chess.Move | None
    score: int
    depth: int
    nodes: int
    pv: list[chess.Move] = field(default_factory=list)
    situation: Situation = Situation.PLAYING

    @property
    def mates(self) -> bool:
        return self.score >= MATE_BOUND

    @property
    def mated(self) -> bool:
        return self.score <= -MATE_BOUND


def score_text(score: int) -> str:
    """A UCI score: ``cp 35`` or ``mate 2`` / ``mate -1`` (moves, not plies)."""
    if score >= MATE_BOUND:
        return f"mate {(MATE - score + 1) // 2}"
    if score <= -MATE_BOUND:
        return f"mate -{(MATE + score) // 2}"
    return f"cp {score}"


class Searcher:
    """One search over a private copy of a board."""

    def __init__(
        self,
        board: BugBoard,
        *,
        stakes: Stakes = NEUTRAL_STAKES,
        stop: Callable[[], bool] | None = None,
        on_iteration: Callable[[Result], None] | None = None,
        seed: int | None = None,
    ) -> None:
        self.board = board.copy(stack=False)
        # With a seed, moves of equal merit are tried (and chosen) in a shuffled order.
        self.seed = seed
        self.stakes = stakes
        self.stop = stop
        self.on_iteration = on_iteration
        self.nodes = 0
        self.table: dict[tuple[object, ...], tuple[int, int, int, chess.Move | None]] = {}
        self.killers: list[list[chess.Move | None]] = [[None, None] for _ in range(MAX_PLY + 8)]
        self.history: dict[tuple[bool, int, int, int], int] = {}
        self.limits = Limits()
        self._partial: tuple[int, chess.Move] | None = None
        # Checks are extended only this close to the root: drops check all the time.
        self.extend_plies = 2

    # -- driver ---------------------------------------------------------------

    def run(self, limits: Limits) -> Result:
        """Iterative deepening; always returns a move when one is legal."""
        self.limits = limits
        board = self.board
        root_moves = list(board.generate_legal_moves())
        if not root_moves:
            situation = board.situation_without_moves()
            return Result(None, _no_move_score(situation, 0), 0, 0, situation=situation)
        if self.seed is not None:
            random.Random(self.seed).shuffle(root_moves)
        root_moves = self._order(root_moves, None, 0)
        best = Result(root_moves[0], evaluate(board, self.stakes), 0, 0)
        scores: dict[chess.Move, int] = {}
        for depth in range(1, limits.depth + 1):
            self._partial = None
            try:
                score, move = self._root(depth, root_moves, scores)
            except SearchStopped:
                # Out of time in the first iteration: the best move searched so far.
                if depth == 1 and self._partial is not None:
                    best = Result(self._partial[1], self._partial[0], 0, self.nodes)
                break
            root_moves.sort(key=lambda m: scores.get(m, -INFINITY), reverse=True)
            best = Result(move, score, depth, self.nodes, pv=self._pv(move))
            if self.on_iteration is not None:
                self.on_iteration(best)
            if abs(score) >= MATE_BOUND or len(root_moves) == 1:
                break
            if limits.soft_deadline is not None and time.monotonic() >= limits.soft_deadline:
                break
        best.nodes = self.nodes
        return best

    def _root(
        self, depth: int, moves: list[chess.Move], scores: dict[chess.Move, int]
    ) -> tuple[int, chess.Move]:
        board = self.board
        alpha, beta = -INFINITY, INFINITY
        best_move = moves[0]
        for index, move in enumerate(moves):
            board.push(move)
            try:
                if index == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, 1)
                else:
                    score = -self._negamax(depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self._negamax(depth - 1, -beta, -alpha, 1)
            finally:
                board.pop()
            scores[move] = score
            if score > alpha:
                alpha = score
                best_move = move
                self._partial = (score, move)
        self._store(board.key(), depth, alpha, _EXACT, best_move)
        return alpha, best_move

    def _pv(self, first: chess.Move) -> list[chess.Move]:
        board = self.board
        line = [first]
        board.push(first)
        try:
            while len(line) < 8:
                entry = self.table.get(board.key())
                if entry is None or entry[3] is None or not board.is_legal(entry[3]):
                    break
                line.append(entry[3])
                board.push(entry[3])
        finally:
            for _ in line:
                board.pop()
        return line

    # -- the search proper ----------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes & 255:
            return
        limits = self.limits
        if limits.nodes is not None and self.nodes >= limits.nodes:
            raise SearchStopped
        if limits.deadline is not None and time.monotonic() >= limits.deadline:
            raise SearchStopped
        if self.stop is not None and self.stop():
            raise SearchStopped

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._tick()
        board = self.board
        in_check = board.is_check()
        if in_check and ply < self.extend_plies:
            depth += 1
        if depth <= 0 or ply >= MAX_PLY:
            return self._quiesce(alpha, beta, ply, 0)

        key = board.key()
        entry = self.table.get(key)
        hash_move = None
        if entry is not None:
            entry_depth, entry_score, flag, hash_move = entry
            if entry_depth >= depth:
                if flag == _EXACT:
                    return entry_score
                if flag == _LOWER and entry_score >= beta:
                    return entry_score
                if flag == _UPPER and entry_score <= alpha:
                    return entry_score

        moves = list(board.generate_legal_moves())
        if not moves:
            return _no_move_score(board.situation_without_moves(), ply)
        ordered = self._order(moves, hash_move, ply)

        original_alpha = alpha
        best_score = -INFINITY
        best_move: chess.Move | None = None
        # Futility: one ply from the horizon, a quiet move cannot lift a hopeless score.
        futile = (
            depth == 1 and not in_check and evaluate(board, self.stakes) + _FUTILITY_MARGIN <= alpha
        )
        enemy = board.occupied_co[not board.turn]
        for index, move in enumerate(ordered):
            quiet = not move.promotion and not chess.BB_SQUARES[move.to_square] & enemy
            if quiet and index and (futile or (depth >= 3 and index >= _LATE_MOVE)):
                if board.gives_check(move):
                    quiet = False
                elif futile:
                    best_score = max(best_score, alpha)
                    continue
            board.push(move)
            try:
                if index == 0:
                    score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
                else:
                    reduction = 1 if quiet and depth >= 3 and index >= _LATE_MOVE else 0
                    score = -self._negamax(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1)
                    if reduction and score > alpha:
                        score = -self._negamax(depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._negamax(depth - 1, -beta, -alpha, ply + 1)
            finally:
                board.pop()
            if score > best_score:
                best_score = score
                best_move = move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(move, depth, ply)
                        break

        if best_score <= original_alpha:
            flag = _UPPER
        elif best_score >= beta:
            flag = _LOWER
        else:
            flag = _EXACT
        self._store(key, depth, best_score, flag, best_move)
        return best_score

    def _quiesce(self, alpha: int, beta: int, ply: int, qply: int) -> int:
        self._tick()
        board = self.board
        if board.is_check() and qply < _QUIESCENCE_CHECK_PLIES and ply < MAX_PLY:
            # Every evasion, drops included, so that a mate at the horizon is seen.
            moves = list(board.generate_legal_moves())
            if not moves:
                return _no_move_score(board.situation_without_moves(), ply)
            best = -INFINITY
            for move in self._order(moves, None, ply):
                board.push(move)
                try:
                    score = -self._quiesce(-beta, -alpha, ply + 1, qply + 1)
                finally:
                    board.pop()
                if score > best:
                    best = score
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
            return best

        stand_pat = evaluate(board, self.stakes)
        if stand_pat >= beta or ply >= MAX_PLY:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        captures = self._order(list(board.generate_legal_captures()), None, ply)
        if qply == 0:
            captures += _checking_drops(board)
        if not captures:
            return stand_pat
        best = stand_pat
        for move in captures:
            victim = _victim(board, move)
            if (
                not move.drop
                and not move.promotion
                and stand_pat + VALUE[victim] * 1.5 + 200 < alpha
            ):
                continue
            board.push(move)
            try:
                score = -self._quiesce(-beta, -alpha, ply + 1, qply + 1)
            finally:
                board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    # -- ordering and tables --------------------------------------------------

    def _order(
        self, moves: list[chess.Move], hash_move: chess.Move | None, ply: int
    ) -> list[chess.Move]:
        board = self.board
        killers = self.killers[ply]
        history = self.history
        turn = board.turn
        enemy_king = board.king(not turn)
        king_zone = (
            chess.BB_KING_ATTACKS[enemy_king] | chess.BB_KNIGHT_ATTACKS[enemy_king]
            if enemy_king is not None
            else 0
        )
        occupied_them = board.occupied_co[not turn]

        def rank(move: chess.Move) -> int:
            if move == hash_move:
                return 10_000_000
            to_bit = chess.BB_SQUARES[move.to_square]
            if move.drop:
                score = history.get((turn, 0, move.drop, move.to_square), 0)
                if to_bit & king_zone:
                    score += 30_000 + 100 * move.drop
                return score
            if to_bit & occupied_them or move.promotion:
                victim = board.piece_type_at(move.to_square) or chess.PAWN
                attacker = board.piece_type_at(move.from_square) or chess.PAWN
                return 1_000_000 + 10 * VALUE[victim] - attacker + 100 * (move.promotion or 0)
            if move == killers[0]:
                return 900_000
            if move == killers[1]:
                return 800_000
            piece = board.piece_type_at(move.from_square) or chess.PAWN
            return history.get((turn, 1, piece, move.to_square), 0)

        return sorted(moves, key=rank, reverse=True)

    def _reward(self, move: chess.Move, depth: int, ply: int) -> None:
        board = self.board
        if not move.drop and board.piece_at(move.to_square) is not None:
            return  # captures are ordered by MVV-LVA already
        killers = self.killers[ply]
        if move != killers[0]:
            killers[1] = killers[0]
            killers[0] = move
        if move.drop:
            key = (board.turn, 0, move.drop, move.to_square)
        else:
            key = (board.turn, 1, board.piece_type_at(move.from_square) or 0, move.to_square)
        self.history[key] = min(self.history.get(key, 0) + depth * depth, 20_000)

    def _store(
        self, key: tuple[object, ...], depth: int, score: int, flag: int, move: chess.Move | None
    ) -> None:
        if len(self.table) >= _TABLE_LIMIT:
            self.table.clear()
        # Mate scores depend on the ply they were found at; keep them out of cutoffs.
        if abs(score) >= MATE_BOUND:
            depth = -1
        self.table[key] = (depth, score, flag, move)


def _checking_drops(board: BugBoard) -> list[chess.Move]:
    """Drops that check the enemy king and cannot simply be taken by it.

    Crazyhouse tactics are mostly drop checks; searching these at the first
    quiescence ply lets a mate or a fork by a drop show at the horizon.
    """
    us = board.turn
    king = board.king(not us)
    if king is None:
        return []
    pocket = board.pockets[us]
    occupied = board.occupied
    empty = ~occupied & chess.BB_ALL
    contact = chess.BB_KING_ATTACKS[king]
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied] & empty
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    ) & empty
    targets = {
        chess.KNIGHT: chess.BB_KNIGHT_ATTACKS[king] & empty,
        chess.PAWN: chess.BB_PAWN_ATTACKS[not us][king] & empty & ~chess.BB_BACKRANKS,
        chess.QUEEN: (diagonal | straight) & contact,
        chess.ROOK: straight & contact,
        chess.BISHOP: diagonal & contact,
    }
    drops = []
    for piece_type, squares in targets.items():
        if not pocket.count(piece_type):
            continue
        for square in chess.scan_forward(squares):
            # Next to the king the drop must be guarded, or the king just takes it.
            if chess.BB_SQUARES[square] & contact and not board.is_attacked_by(us, square):
                continue
            drops.append(chess.Move(square, square, drop=piece_type))
    if board.rules.restricts_drops:
        return [move for move in drops if board.drop_allowed(move)]
    return drops


def _victim(board: BugBoard, move: chess.Move) -> chess.PieceType:
    if board.is_en_passant(move):
        return chess.PAWN
    return board.piece_type_at(move.to_square) or chess.PAWN


def _no_move_score(situation: Situation, ply: int) -> int:
    if situation is Situation.MATED:
        return -MATE + ply
    if situation is Situation.MUST_WAIT:
        return MUST_WAIT_SCORE
    return STUCK_SCORE


def search(
    board: BugBoard,
    *,
    seconds: float | None = None,
    depth: int = 64,
    nodes: int | None = None,
    stakes: Stakes = NEUTRAL_STAKES,
    stop: Callable[[], bool] | None = None,
) -> Result:
    """Searches ``board`` within the given limits (a convenience for callers and tests)."""
    now = time.monotonic()
    limits = Limits(
        deadline=None if seconds is None else now + seconds,
        soft_deadline=None if seconds is None else now + seconds * 0.45,
        depth=depth,
        nodes=nodes,
    )
    return Searcher(board, stakes=stakes, stop=stop).run(limits)
