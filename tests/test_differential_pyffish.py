"""Differential test: our legal moves against Fairy-Stockfish's (pyffish, test-only).

Seeded random play on two linked boards, captures passed to the partner board,
biased towards en passant, castling, promotions, double steps and drops. At
every position reached, the side to move's sorted legal moves must equal
pyffish's for the same FEN (pockets and ``~`` included); on a sample (and
wherever we allow castling) also pyffish's from the FEN at the board's last
arrival plus the moves played since, so that pyffish tracks castling rights
and en passant itself.

pyffish judges game end differently: with a check a
dropped piece could block but no piece to block with, it says mate where our
default rule says wait. So when the side to move has no legal move we ask
pyffish again with a full pocket: any legal move then means ``must_wait``,
none means ``checkmate``. With no move and no check, ours is ``stalemate_wait``
(pyffish would score a loss). Compared under the default rules only, where a
dropped pawn may double-step and a dropped rook never castles, as pyffish plays.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import chess
import pytest

pytest.importorskip("pyffish")

import pyffish as sf

from bughouse_arbiter.core.board import BoardStatus, BughouseBoard
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat

VARIANT = "bughouse"
FULL_POCKET = "QRBNPqrbnp"
POSITIONS = 10_000
SEED = 20_261_129


def with_full_pocket(fen: str) -> str:
    return re.sub(r"\[[^\]]*\]", f"[{FULL_POCKET}]", fen, count=1)


def is_special(board: BughouseBoard, move: chess.Move) -> bool:
    if move.drop or move.promotion or board.is_en_passant(move) or board.is_castling(move):
        return True
    pawn_double = board.pawns & chess.BB_SQUARES[move.from_square]
    return bool(pawn_double and abs(move.to_square - move.from_square) == 16)


def expected_status(board: BughouseBoard, fen: str) -> BoardStatus:
    """The status pyffish implies under our default rules, for a side with no move."""
    if not sf.gives_check(VARIANT, fen, []):
        return BoardStatus.STALEMATE_WAIT
    blocks = sf.legal_moves(VARIANT, with_full_pocket(fen), [])
    return BoardStatus.MUST_WAIT if blocks else BoardStatus.CHECKMATE


def compare(board: BughouseBoard, stats: Counter[str], mismatches: list[str]) -> list[chess.Move]:
    """Compares one position and returns our legal moves there."""
    fen = board.fen()
    legal = list(board.legal_moves)
    ours = sorted(move.uci() for move in legal)
    theirs = sorted(sf.legal_moves(VARIANT, fen, []))
    stats["positions"] += 1
    if ours != theirs:
        diff = sorted(set(ours) ^ set(theirs))
        mismatches.append(f"{fen}: differ in {diff}")
    if legal:
        in_check = board.is_check()
        drops = any(move.drop for move in legal)
        stats["in_check"] += in_check
        stats["drops"] += drops
        stats["check_blockable_by_drop_now"] += in_check and drops
        stats["en_passant"] += any(board.is_en_passant(move) for move in legal)
        stats["castling"] += any(board.is_castling(move) for move in legal)
        stats["promotion"] += any(move.promotion for move in legal)
        stats["promoted_on_board"] += bool(board.promoted)
        return legal
    status = board.status_of_side_to_move()
    stats[status.value] += 1
    want = expected_status(board, fen)
    if status is not want:
        mismatches.append(f"{fen}: status {status.value}, pyffish implies {want.value}")
    return legal


def compare_move_list(
    board: BughouseBoard, anchor: tuple[str, list[str]], stats: Counter[str], mismatches: list[str]
) -> None:
    """pyffish from the board's FEN at its last arrival plus the moves since,
    so pyffish tracks castling rights and en passant itself (a FEN written
    from our state could not show a castling right we wrongly granted)."""
    fen, moves = anchor
    ours = sorted(move.uci() for move in board.legal_moves)
    theirs = sorted(sf.legal_moves(VARIANT, fen, moves))
    stats["move_list_positions"] += 1
    if ours != theirs:
        diff = sorted(set(ours) ^ set(theirs))
        mismatches.append(f"{fen} moves {' '.join(moves)}: differ in {diff}")


def play_game(rng: random.Random, stats: Counter[str], mismatches: list[str]) -> None:
    game = BughouseGame()
    # Per board: the FEN after the last piece arrived, and the moves since.
    anchors = {board_id: (game.fen(board_id), []) for board_id in BoardId}
    while not game.is_over and stats["positions"] < POSITIONS:
        board_id = rng.choice((BoardId.A, BoardId.B))
        board = game.board(board_id)
        legal = compare(board, stats, mismatches)
        if anchors[board_id][1] and (
            stats["positions"] % 8 == 0 or any(board.is_castling(move) for move in legal)
        ):
            compare_move_list(board, anchors[board_id], stats, mismatches)
        if not legal:
            if game.status(board_id.other).waiting:
                return
            continue
        special = [move for move in legal if is_special(board, move)]
        move = rng.choice(special) if special and rng.random() < 0.5 else rng.choice(legal)
        played = game.push(Seat.of(board_id, board.turn), move)
        anchors[board_id][1].append(move.uci())
        if played.passed is not None:
            stats["passed"] += 1
            anchors[board_id.other] = (game.fen(board_id.other), [])
    if game.outcome is not None and game.outcome.board is not None:
        # The decided board's final position (a mate, say) is compared too.
        compare(game.board(game.outcome.board), stats, mismatches)
    stats["games"] += 1


@pytest.mark.slow
def test_legal_moves_equal_pyffish_on_random_linked_boards() -> None:
    rng = random.Random(SEED)
    stats: Counter[str] = Counter()
    mismatches: list[str] = []
    while stats["positions"] < POSITIONS:
        play_game(rng, stats, mismatches)
    print(dict(stats))
    assert mismatches == [], f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    assert stats["positions"] >= 10_000
    assert stats["move_list_positions"] >= 1_000
    # The random play must reach the cases worth comparing.
    for case in (
        "in_check",
        "drops",
        "check_blockable_by_drop_now",
        "en_passant",
        "castling",
        "promotion",
        "promoted_on_board",
        "passed",
    ):
        assert stats[case] >= 20, (case, dict(stats))
    assert stats["must_wait"] >= 5 and stats["checkmate"] >= 5, dict(stats)


def test_the_oracle_agrees_on_the_hand_made_wait_and_mate_cases() -> None:
    cases = {
        "7k/8/8/8/8/8/6PP/r6K[] w - - 0 1": BoardStatus.MUST_WAIT,
        "7k/8/8/8/8/8/6PP/r6K[P] w - - 0 1": BoardStatus.MUST_WAIT,
        "7k/8/8/8/8/8/6q1/6rK[] w - - 0 1": BoardStatus.CHECKMATE,
        "7k/8/8/8/8/8/5nPP/r6K[QRBNP] w - - 0 1": BoardStatus.CHECKMATE,
        "7k/8/8/8/8/8/5q2/7K[] w - - 0 1": BoardStatus.STALEMATE_WAIT,
    }
    for fen, status in cases.items():
        board = BughouseBoard(fen)
        assert sf.legal_moves(VARIANT, fen, []) == []
        assert expected_status(board, fen) is status
        assert board.status_of_side_to_move() is status
