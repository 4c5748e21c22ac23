"""Reading opening books: text in, ``Opening`` values out (pure, no I/O).

An opening is where both boards start, pockets included, and the moves
played from there: an interleaved ply list over both boards, in the one
order in which they can be replayed (captures feed the partner board's
pocket, so a drop may need a capture on the other board first), as BPGN
writes a game. Openings that are moves from the standard start can be
played to every engine as moves; a set-up start (a FEN or EPD book) needs
engines that can set up a position.

- ``openings_from_bpgn``: each game's first ``plies`` moves (both boards
  together, in the order the replay played them), from the game's start;
- ``openings_from_pgn``: single-board chess games; both boards play each
  game's first ``plies`` moves (all of them by default), board A's move then
  board B's, so the pieces one board captures arrive in the other's pockets
  as in any game;
- ``parse_positions``: FEN or EPD positions, one opening a line:
  ``POS`` (both boards start from it), ``POS_A | POS_B`` or
  ``NAME | POS_A | POS_B``; blank lines and lines starting with ``#`` are
  skipped. A position is a bughouse FEN (``[pocket]`` optional), a chess FEN
  or an EPD (its ``id`` names a one-position line).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs
import chess

from ..core.board import STARTING_FEN, BughouseBoard
from ..core.game import BughouseGame
from ..core.model import BoardId, Seat
from ..core.rules import HouseRules
from ..errors import ArbiterError, ConfigError

if TYPE_CHECKING:
    from ..bpgn.read import BpgnGame

__all__ = [
    "Opening",
    "format_book",
    "openings_from_bpgn",
    "openings_from_pgn",
    "parse_positions",
]

#: Games of a PGN or BPGN book read at most (a book is not a database).
MAX_GAMES = 100_000
#: The standard start as our board writes it.
_STANDARD = BughouseBoard().fen()
#: Moves after a BPGN opening's that are replayed with it (the replay's lookahead).
_LOOKAHEAD = 16


@attrs.frozen(kw_only=True)
class Opening:
    """The start of both boards (FEN with pockets) and the moves played from it."""

    name: str
    fen_a: str = STARTING_FEN
    fen_b: str = STARTING_FEN
    #: The moves, both boards in the order played: (seat, UCI move).
    moves: tuple[tuple[Seat, str], ...] = ()

    @property
    def set_up(self) -> bool:
        """True when a board starts from a position other than the standard start."""
        return self.fen_a != STARTING_FEN or self.fen_b != STARTING_FEN

    def game(self, rules: HouseRules | None = None) -> BughouseGame:
        """A game at the end of the opening (under ``rules``, the default ones if None).

        Raises:
            ValueError: a start is no bughouse position, a move cannot be
                played, or the game ends within the moves.
        """
        try:
            game = BughouseGame(rules, fen_a=self.fen_a, fen_b=self.fen_b)
            game.play_opening(self.moves)
        except ArbiterError as exc:
            raise ValueError(str(exc)) from None
        return game


def _checked(opening: Opening) -> Opening | None:
    try:
        opening.game()
    except ValueError:
        return None
    return opening


def openings_from_bpgn(
    text: str, plies: int | None, *, source: str = "openings"
) -> list[Opening]:
    """The first ``plies`` moves (None: all) of each game in the BPGN ``text``;
    games that are too short or cannot be replayed that far are skipped."""
    from ..bpgn import read_games
    from ..bpgn.replay import replay_game

    openings: list[Opening] = []
    for index, game in enumerate(read_games(text), 1):
        if index > MAX_GAMES:
            break
        if plies is not None and len(game.moves) < plies:
            continue
        if not game.moves and not game.tag("FEN"):
            continue  # nothing to play (an empty game, say, of a file's comments)
        if plies is not None:
            # The moves after the opening are not needed, but for a few: a drop
            # may be written before the capture on the other board that supplied it.
            game = attrs.evolve(game, moves=game.moves[: plies + _LOOKAHEAD], board_ends=())
        report = replay_game(game)
        played = report.played if plies is None else report.played[:plies]
        if plies is not None and len(played) < plies:
            continue
        if plies is None and report.illegal is not None:
            continue
        start = _start_of(game)
        if start is None:
            continue
        name = game.tag("Opening") or f"{source}#{index}"
        moves = tuple((move.seat, move.uci) for move in played)
        opening = _checked(Opening(name=name, fen_a=start[0], fen_b=start[1], moves=moves))
        if opening is not None:
            openings.append(opening)
    return openings


def _start_of(game: BpgnGame) -> tuple[str, str] | None:
    from ..bpgn.positions import start_fens

    try:
        fen_a, fen_b = start_fens(game)
    except (ArbiterError, ValueError):
        return None
    return _plain(fen_a), _plain(fen_b)


def _plain(fen: str) -> str:
    """The standard start as ``STARTING_FEN`` says it (so ``set_up`` sees it)."""
    return STARTING_FEN if BughouseBoard(fen).fen() == _STANDARD else fen


def openings_from_pgn(
    text: str, plies: int | None, *, source: str = "openings"
) -> list[Opening]:
    """Both boards play the first ``plies`` moves (None: all) of each chess game
    in the PGN ``text``, board A then board B, move by move; games that are too
    short, or whose moves cannot be played so on a bughouse table, are skipped."""
    import chess.pgn

    openings: list[Opening] = []
    stream = io.StringIO(text)
    for index in range(1, MAX_GAMES + 1):
        game = chess.pgn.read_game(stream)
        if game is None:
            break
        if game.errors:
            continue
        try:
            start = _bughouse_fen(game.board().fen())
        except ValueError:
            continue
        mainline = list(game.mainline_moves())
        if plies is not None:
            if len(mainline) < plies:
                continue
            mainline = mainline[:plies]
        table = BughouseGame(fen_a=start, fen_b=start)
        moves: list[tuple[Seat, str]] = []
        try:
            for move in mainline:
                for board in (BoardId.A, BoardId.B):
                    seat = table.to_move(board)
                    table.push(seat, move)
                    moves.append((seat, move.uci()))
        except ArbiterError:
            continue
        name = game.headers.get("Opening") or f"{source}#{index}"
        opening = _checked(Opening(name=name, fen_a=start, fen_b=start, moves=tuple(moves)))
        if opening is not None:
            openings.append(opening)
    return openings


def _bughouse_fen(text: str) -> str:
    """A bughouse FEN (pockets ``[]`` if none) of a FEN, bughouse or chess.

    Raises:
        ValueError: not a position.
    """
    try:
        fen = BughouseBoard(text).fen()
    except (ArbiterError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    return _plain(fen)


def _epd_position(text: str) -> tuple[str, str | None]:
    """A bughouse FEN and the ``id`` of a FEN or EPD (an EPD has four fields,
    then its operations). Raises ValueError: not a position."""
    fields = text.split()
    if "[" in text or (len(fields) == 6 and fields[4].isdigit() and fields[5].isdigit()):
        return _bughouse_fen(text), None
    try:
        board, operations = chess.Board.from_epd(text)
    except ValueError as exc:
        raise ValueError(f"not a FEN or EPD: {exc}") from None
    name = operations.get("id")
    return _bughouse_fen(board.fen()), name if isinstance(name, str) else None


def parse_positions(text: str, *, source: str = "openings") -> list[Opening]:
    """Reads a file of FEN or EPD positions (see the module docstring).

    Raises:
        ConfigError: naming the first line that is not one.
    """
    openings: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) > 3 or not all(fields):
            raise ConfigError(
                f"{source} line {number}: expected 'POSITION', 'FEN_A | FEN_B' "
                "or 'NAME | FEN_A | FEN_B'"
            )
        name = fields[0] if len(fields) == 3 else f"{source}:{number}"
        try:
            found = [_epd_position(field) for field in fields[-2:]]
        except ValueError as exc:
            raise ConfigError(f"{source} line {number}: not a bughouse position: {exc}") from None
        if len(fields) == 1:
            [(fen, label)] = found
            opening = Opening(name=label or name, fen_a=fen, fen_b=fen)
        else:
            opening = Opening(name=name, fen_a=found[0][0], fen_b=found[1][0])
        try:
            opening.game()
        except ValueError as exc:
            raise ConfigError(f"{source} line {number}: not a bughouse position: {exc}") from None
        openings.append(opening)
    return openings


def format_book(openings: Sequence[Opening]) -> str:
    """The openings as BPGN, one short game each (``[Opening]`` names it, a set-up
    start is in ``[FEN]``, result ``*``), as ``openings_from_bpgn`` reads them back."""
    from ..bpgn.notation import escape_tag
    from ..bpgn.write import bpgn_san

    texts = []
    for opening in openings:
        game = opening.game()
        tags = [("Opening", opening.name)]
        if opening.set_up:
            tags += [("SetUp", "1"), ("FEN", f"{opening.fen_a} | {opening.fen_b}")]
        tags.append(("Result", "*"))
        words = [
            f"{p.number}{p.board.value if p.seat.color else p.board.value.lower()}. "
            f"{bpgn_san(p.san)}"
            for p in game.moves
        ]
        head = "".join(f'[{key} "{escape_tag(value)}"]\n' for key, value in tags)
        texts.append(f"{head}\n{' '.join([*words, '*'])}\n")
    return "\n".join(texts)
