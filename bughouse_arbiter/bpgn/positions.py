"""Positions and moves as BPGN dialects write them, read onto ``BughouseBoard``.

``start_fens`` reads ``[FEN "A | B"]`` in its three spellings; ``parse_san``
reads a move token, SAN first. Pure.
"""

from __future__ import annotations

import functools
import re

import chess

from ..core.board import STARTING_FEN, BughouseBoard
from .read import BpgnGame

_PAWN_CAPTURE = re.compile(r"x([a-h][1-8])(?:=?([QRBNqrbn]))?[+#]?")
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbnk]?")


def start_fens(game: BpgnGame) -> tuple[str, str]:
    """Both start positions from ``[FEN "A | B"]`` (BFEN ``/holdings``, ``[holdings]``
    or plain FEN), or the standard start."""
    text = game.tag("FEN")
    if not text:
        return STARTING_FEN, STARTING_FEN
    halves = text.split("|")
    if len(halves) != 2:
        raise ValueError(f"[FEN] should hold two positions separated by '|', got {text!r}")
    return _one_fen(halves[0]), _one_fen(halves[1])


def _one_fen(text: str) -> str:
    """One board's FEN in any of the three spellings, as ``BughouseBoard`` writes it
    (cached when short: the games of one file usually share their start)."""
    return _cached_fen(text) if len(text) <= 200 else _read_fen(text)


@functools.lru_cache(maxsize=64)
def _cached_fen(text: str) -> str:
    return _read_fen(text)


def _read_fen(text: str) -> str:
    # python-chess reads BFEN's ninth rank ("/holdings") as the pocket itself.
    fields = text.split()
    if not fields:
        raise ValueError("empty FEN")
    return BughouseBoard(" ".join(fields)).fen()


def parse_san(board: BughouseBoard, san: str) -> chess.Move:
    """A move written in a BPGN file: SAN first (``B8d7`` is a bishop, not UCI),
    then whatever ``BughouseBoard.parse_move`` reads; MoveError if neither."""
    return read_move(board, san)[0]


def read_move(board: BughouseBoard, san: str) -> tuple[chess.Move, bool]:
    """``parse_san``, and whether the text was plain SAN (True) rather than a
    dialect's spelling that the replay should write again in SAN (False)."""
    try:
        move = board.parse_san(san)
    except ValueError:
        return _read_dialect(board, san), False
    if not move:
        return board.parse_move(san), False
    # python-chess's SAN parser takes UCI too: "g1f3" is a dialect's spelling.
    return move, _UCI.fullmatch(san) is None


def _read_dialect(board: BughouseBoard, san: str) -> chess.Move:
    """The spellings python-chess's SAN parser does not take (or UCI)."""
    pawn_capture = _PAWN_CAPTURE.fullmatch(san)
    if pawn_capture is None:
        return board.parse_move(san)
    # bughouse.pro writes pawn captures without the file: ``xd5``.
    target = chess.parse_square(pawn_capture.group(1))
    letter = pawn_capture.group(2)
    promotion = chess.Piece.from_symbol(letter).piece_type if letter else None
    moves = [
        m
        for m in board.legal_moves
        if m.to_square == target
        and m.drop is None
        and board.piece_type_at(m.from_square) == chess.PAWN
        and board.is_capture(m)
        and m.promotion == promotion
    ]
    if len(moves) == 1:
        return moves[0]
    return board.parse_move(san)
