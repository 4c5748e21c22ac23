"""Two-board starting positions for tournaments.

An opening is the start of both boards, pockets included (FEN with the
``[...]`` pocket field, as ``BughouseGame`` takes them). Books come from:

- a BPGN file: each game's position after its first ``plies`` moves (both
  boards together, in the order they were played; pieces passed between the
  boards are in the pockets). Games that are too short or cannot be replayed
  are skipped;
- a file of FEN pairs, one opening a line: ``FEN_A | FEN_B`` or
  ``NAME | FEN_A | FEN_B``; blank lines and lines starting with ``#`` are
  skipped;
- the default book shipped with the package (``data/openings.txt``, a FEN
  pair file built from the project's BPGN corpus by
  ``scripts/build_openings.py``).

Reading is pure (text in, openings out); ``load_book`` reads a file. Its
format is ``fen`` or ``bpgn`` as given (``--openings-format``), else by the
file's suffix (``.bpgn``/``.pgn``, ``.fen``/``.epd``), else by its content
(``book_format``): a BPGN file's first line is a tag pair ``[Name "value"]``
or movetext; a FEN with a pocket (``.../PPPPPPPP[Nq] w KQkq - 0 1``) also
holds a ``[`` but is no tag.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import attrs

from ..core.game import BughouseGame
from ..errors import ArbiterError, ConfigError

DEFAULT_PLIES = 8
#: The book formats ``--openings-format`` takes (``auto``: by suffix, else content).
FORMATS = ("auto", "fen", "bpgn")
_SUFFIXES = {".bpgn": "bpgn", ".pgn": "bpgn", ".fen": "fen", ".epd": "fen"}
#: A PGN tag pair: ``[Event "x"]`` (a FEN's pocket ``[Nq] w`` has no quoted value).
_TAG = re.compile(r'^\[\s*[A-Za-z0-9_]+\s+"')
#: The start of PGN movetext: ``1.``, ``1A.``, ``1...``, or a comment.
_MOVETEXT = re.compile(r"^(\d+[ABab]?\.|\{)")


@attrs.frozen(kw_only=True)
class Opening:
    """The start of both boards (FEN with pockets, as ``BughouseGame`` takes them)."""

    name: str
    fen_a: str
    fen_b: str


def parse_fen_pairs(text: str, *, source: str = "openings") -> list[Opening]:
    """Reads a FEN pair file; raises ConfigError naming the first bad line."""
    openings: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("|")]
        if len(fields) == 2:
            name, fen_a, fen_b = f"{source}:{number}", fields[0], fields[1]
        elif len(fields) == 3:
            name, fen_a, fen_b = fields
        else:
            raise ConfigError(
                f"{source} line {number}: expected 'FEN_A | FEN_B' or 'NAME | FEN_A | FEN_B'"
            )
        try:
            BughouseGame(fen_a=fen_a, fen_b=fen_b)
        except (ArbiterError, ValueError) as exc:
            raise ConfigError(f"{source} line {number}: not a bughouse position: {exc}") from None
        openings.append(Opening(name=name, fen_a=fen_a, fen_b=fen_b))
    return openings


def openings_from_bpgn(text: str, plies: int, *, source: str = "openings") -> list[Opening]:
    """The position after ``plies`` moves of each game in the BPGN ``text``."""
    from ..bpgn import read_games
    from ..bpgn.replay import replay_game

    openings: list[Opening] = []
    for index, game in enumerate(read_games(text), 1):
        if len(game.moves) < plies:
            continue
        report = replay_game(game, frames=True)
        if report.replayed < plies or len(report.frames) <= plies:
            continue
        frame = report.frames[plies]
        fens = frame.fens
        from ..core.model import BoardId

        opening = Opening(name=f"{source}#{index}", fen_a=fens[BoardId.A], fen_b=fens[BoardId.B])
        try:
            BughouseGame(fen_a=opening.fen_a, fen_b=opening.fen_b)
        except (ArbiterError, ValueError):
            continue
        openings.append(opening)
    return openings


def format_fen_pairs(openings: Sequence[Opening]) -> str:
    return "".join(f"{o.name} | {o.fen_a} | {o.fen_b}\n" for o in openings)


def book_format(text: str, name: str = "") -> str:
    """``bpgn`` or ``fen``: by the suffix of ``name``, else by ``text``'s first
    line that is not blank, a ``#`` comment (FEN pairs) or a ``%`` escape (PGN)."""
    suffix = Path(name).suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "%")):
            continue
        return "bpgn" if _TAG.match(line) or _MOVETEXT.match(line) else "fen"
    return "fen"


def load_book(
    path: str | None, plies: int = DEFAULT_PLIES, book: str = "auto"
) -> list[Opening]:
    """The book in ``path`` (format ``book``: ``fen``, ``bpgn``, or ``auto`` for
    ``book_format``'s guess), or the default book.

    Raises:
        ConfigError: the file cannot be read or holds no usable opening.
    """
    if book not in FORMATS:
        raise ConfigError(f"--openings-format {book!r} is not one of {', '.join(FORMATS)}")
    if path is None:
        text = resources.files(__package__).joinpath("data/openings.txt").read_text("utf-8")
        return parse_fen_pairs(text, source="default book")
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ConfigError(f"--openings {path!r}: {exc.strerror or exc}") from None
    from ..bpgn.read import decode

    text = decode(data)
    name = file.name
    if (book if book != "auto" else book_format(text, name)) == "bpgn":
        openings = openings_from_bpgn(text, plies, source=name)
        if not openings:
            raise ConfigError(
                f"--openings {path!r}: no game with {plies} replayable plies (see --opening-plies)"
            )
    else:
        openings = parse_fen_pairs(text, source=name)
        if not openings:
            raise ConfigError(f"--openings {path!r}: no opening in the file")
    return openings


def ordered(openings: Sequence[Opening], order: str, seed: int | None) -> list[Opening]:
    """``sequential`` keeps the file's order; ``random`` shuffles it with ``seed``."""
    result = list(openings)
    if order == "random":
        random.Random(seed).shuffle(result)
    return result
