"""``bughouse position``: the rules core on the command line.

Applies moves to board A (and, with ``--board-b``, judges the two-board
match), then prints the side to move's status and legal moves. A token
``+X`` among the moves puts piece X (a FEN letter; its case is the colour)
into that colour's pocket, as if it arrived from the partner board.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import chess

from ..config.options import add_rule, house_rules
from ..core.board import STARTING_FEN, BughouseBoard
from ..core.game import BughouseGame
from ..core.model import BoardId, Seat
from ..environment import Environment
from ..errors import MoveError, PositionError, UsageError
from ..exits import OK
from . import SUMMARIES


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "position",
        help=SUMMARIES["position"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("fen", metavar="FEN", help="board A as FEN with [pocket] and ~ marks")
    parser.add_argument(
        "--moves",
        nargs="*",
        default=[],
        metavar="M",
        help="moves in UCI (or SAN) to apply to board A; +X adds piece X to a pocket",
    )
    parser.add_argument("--board-b", metavar="FEN", help="board B, to judge the whole match")
    add_rule(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, env: Environment) -> int:
    rules = house_rules(args.rule)
    fen_a = _checked_fen(args.fen, "FEN")
    fen_b = _checked_fen(args.board_b, "--board-b") if args.board_b else None
    # Without --board-b, board B is only where passed pieces go: the starting
    # position, which can neither end the match nor deadlock it.
    game = BughouseGame(rules, fen_a=fen_a, fen_b=fen_b or STARTING_FEN)
    board = game.board(BoardId.A)
    passed: list[str] = []
    for index, token in enumerate(args.moves, start=1):
        where = f"--moves token {index} ({token!r})"
        if token.startswith("+"):
            _receive(game, token, where)
            continue
        if game.is_over:
            raise UsageError(f"{where}: the match is already over ({game.outcome})")
        seat = Seat.of(BoardId.A, board.turn)
        try:
            played = game.push(seat, token)
        except MoveError as exc:
            raise MoveError(f"{where}: {exc}") from None
        if played.passed is not None:
            passed.append(played.passed.symbol())
    status = board.status_of_side_to_move()
    legal = sorted(move.uci() for move in board.legal_moves)
    if args.json:
        out: dict[str, Any] = {
            "status": status.value,
            "in_check": board.is_check(),
            "legal_moves": legal,
            "passed": passed,
        }
        if fen_b is not None:
            outcome = game.outcome
            out["match"] = {
                "over": outcome is not None,
                "result": outcome.result.value if outcome else None,
                "termination": outcome.termination.value if outcome else None,
                "board": outcome.board.value if outcome and outcome.board else None,
            }
        print(json.dumps(out), file=env.stdout)
        return OK
    print(f"fen: {board.fen()}", file=env.stdout)
    print(f"to move: {'white' if board.turn else 'black'}", file=env.stdout)
    print(f"status: {status.value}" + (" (in check)" if board.is_check() else ""), file=env.stdout)
    print(f"legal moves ({len(legal)}): {' '.join(legal)}", file=env.stdout)
    if passed:
        print(f"passed to the partner board: {' '.join(passed)}", file=env.stdout)
    if fen_b is not None:
        print(f"match: {game.outcome if game.outcome else 'in play'}", file=env.stdout)
    return OK


def _checked_fen(fen: str, what: str) -> str:
    try:
        board = BughouseBoard(fen)
    except PositionError as exc:
        raise PositionError(f"{what}: {exc}") from None
    try:
        board.check_valid()
    except PositionError as exc:
        raise PositionError(f"{what} {fen!r}: {exc}") from None
    return board.fen()


def _receive(game: BughouseGame, token: str, where: str) -> None:
    letter = token[1:]
    if len(letter) != 1 or letter not in "PNBRQpnbrq":
        raise MoveError(f"{where}: +X takes one piece letter of PNBRQ (upper case white), e.g. +N")
    game.receive(BoardId.A, chess.Piece.from_symbol(letter))
