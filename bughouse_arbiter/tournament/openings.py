"""Opening books for tournaments: which file, which format, which order.

An opening (``Opening``, read by ``book_formats``) is where both boards
start and the moves played from there, both boards in one interleaved
order. A game from it starts at the standard start (or the book's set-up
position) and plays those moves first, before the clocks start: they are
the game's first moves in its record, and the engines are told them as
moves (UCI ``position startpos moves ...``, xboard moves after ``new``, the
native protocol's ``event`` lines), so an engine that cannot set up a
position (an xboard engine without ``setboard``) plays every opening that
is moves from the standard start. Only a FEN or EPD book is set up.

Books: the default book shipped with the package (``data/openings.bpgn``,
move sequences built from the project's BPGN corpus by
``scripts/build_openings.py``), or a file (``load_book``) in one of
``FORMATS``: ``bpgn`` (each game's first ``--opening-plies`` plies, both
boards), ``pgn`` (single-board chess games, played on both boards), ``fen``
and ``epd`` (positions: one for both boards, or a pair). The format is the
one given (``--openings-format``), else by the file's suffix, else by its
content (``book_format``). ``book_identity`` names a book with the CRC-32
of its bytes (as fastchess and cutechess-cli print), so two runs can tell
they played the same file.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import attrs

from ..core.rules import HouseRules
from ..errors import ConfigError
from .book_formats import (
    Opening,
    format_book,
    openings_from_bpgn,
    openings_from_pgn,
    parse_positions,
)

__all__ = [
    "DEFAULT_PLIES",
    "FORMATS",
    "ORDERS",
    "BookChoice",
    "Opening",
    "book_format",
    "format_book",
    "load_book",
    "openings_from_bpgn",
    "openings_from_pgn",
    "ordered",
    "parse_fen_pairs",
    "parse_positions",
]

#: Plies (both boards) taken from each game of a BPGN book unless told.
DEFAULT_PLIES = 8
#: The book formats ``--openings-format`` takes (``auto``: by suffix, else content).
FORMATS = ("auto", "bpgn", "pgn", "fen", "epd")
#: ``--opening-order``: the book's order, or shuffled with the seed.
ORDERS = ("sequential", "random")
_SUFFIXES = {".bpgn": "bpgn", ".fen": "fen", ".epd": "epd"}
#: A PGN tag pair: ``[Event "x"]`` (a FEN's pocket ``[Nq] w`` has no quoted value).
_TAG = re.compile(r'^\[\s*[A-Za-z0-9_]+\s+"')
#: The start of PGN movetext: ``1.``, ``1A.``, ``1...``, or a comment.
_MOVETEXT = re.compile(r"^(\d+[ABab]?\.|\{)")
#: A bughouse move number (``12A.``, ``3b.``) or tag (``[WhiteA "..."]``): BPGN, not PGN.
_BUGHOUSE = re.compile(r'(^|\s)\d+[ABab]\.|^\s*\[\s*(White|Black)[AB]\s+"', re.MULTILINE)
#: Characters of a file's start that tell PGN from BPGN.
_SNIFF = 65536


@attrs.frozen(kw_only=True)
class BookChoice:
    """The book as the command line chose it: ``--openings FILE`` (None: the
    default book), ``--openings-format``, ``--opening-plies``, ``--opening-order``
    and ``--opening-start``."""

    file: str | None = None
    format: str = "auto"
    plies: int | None = None
    order: str = "sequential"
    start: int = 1


#: The reader of FEN pair files under its old name.
parse_fen_pairs = parse_positions


def book_format(text: str, name: str = "") -> str:
    """``bpgn``, ``pgn``, ``fen`` or ``epd``: by the suffix of ``name``, else by
    ``text``'s first line that is not blank, a ``#`` comment (positions) or a
    ``%`` escape (PGN). Games (``.pgn`` or content) are BPGN when board
    letters show (``1A.``, ``[WhiteA ...]``), else PGN."""
    suffix = Path(name).suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    games = suffix == ".pgn"
    if not games:
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", "%")):
                continue
            games = bool(_TAG.match(line) or _MOVETEXT.match(line))
            break
    if not games:
        return "fen"
    return "bpgn" if _BUGHOUSE.search(text[:_SNIFF]) else "pgn"


def load_book(
    path: str | None,
    plies: int | None = None,
    book: str = "auto",
    rules: HouseRules | None = None,
) -> list[Opening]:
    """The book in ``path`` (format ``book``: one of ``FORMATS``), or the default
    book. ``plies`` cuts each game of a BPGN or PGN book (a BPGN book's default
    is ``DEFAULT_PLIES``, a PGN book's its whole games); the default book's
    openings are whole unless it is given. With ``rules``, every opening must
    be playable under them (one with a checking drop is not under ``drop_check=no-check``).

    Raises:
        ConfigError: the file cannot be read, holds no usable opening, or
            one that the rules do not let be played.
    """
    openings = _read_book(path, plies, book)
    if rules is not None:
        for opening in openings:
            try:
                opening.game(rules)
            except ValueError as exc:
                where = "the default book" if path is None else f"--openings {path!r}"
                raise ConfigError(
                    f"{where}: opening {opening.name!r} cannot be played under these "
                    f"house rules: {exc}"
                ) from None
    return openings


@attrs.frozen
class BookIdentity:
    """Which book a tournament plays: its file, its openings and the CRC-32 of its bytes."""

    file: str
    openings: int
    crc32: int

    @property
    def text(self) -> str:
        """``book.epd: 120 openings, CRC32 1a2b3c4d``."""
        return f"{self.file}: {self.openings} openings, CRC32 {self.crc32:08x}"

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "openings": self.openings, "crc32": f"{self.crc32:08x}"}


def book_identity(path: str | None, openings: int) -> BookIdentity:
    """The identity of the book at ``path`` (None: the default book) of ``openings``.

    Raises:
        ConfigError: the file cannot be read.
    """
    if path is None:
        data = resources.files(__package__).joinpath(_DEFAULT_BOOK).read_bytes()
        return BookIdentity(file="default book", openings=openings, crc32=zlib.crc32(data))
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"--openings {path!r}: {exc.strerror or exc}") from None
    return BookIdentity(file=path, openings=openings, crc32=zlib.crc32(data))


#: The default book, in this package.
_DEFAULT_BOOK = "data/openings.bpgn"


def _read_book(path: str | None, plies: int | None, book: str) -> list[Opening]:
    if book not in FORMATS:
        raise ConfigError(f"--openings-format {book!r} is not one of {', '.join(FORMATS)}")
    if path is None:
        text = resources.files(__package__).joinpath(_DEFAULT_BOOK).read_text("utf-8")
        return openings_from_bpgn(text, plies, source="default book")
    file = Path(path)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise ConfigError(f"--openings {path!r}: {exc.strerror or exc}") from None
    from ..bpgn.read import decode

    text = decode(data)
    name = file.name
    kind = book if book != "auto" else book_format(text, name)
    if kind == "bpgn":
        cut = DEFAULT_PLIES if plies is None else plies
        openings = openings_from_bpgn(text, cut, source=name)
        if not openings:
            raise ConfigError(
                f"--openings {path!r}: no BPGN game with {cut} replayable plies "
                "(see --opening-plies)"
            )
    elif kind == "pgn":
        openings = openings_from_pgn(text, plies, source=name)
        if not openings:
            least = "" if plies is None else f" with {plies} plies"
            raise ConfigError(
                f"--openings {path!r}: no chess game{least} that both boards can play "
                "(see --opening-plies)"
            )
    else:
        openings = parse_positions(text, source=name)
        if not openings:
            raise ConfigError(f"--openings {path!r}: no opening in the file")
    return openings


def ordered(
    openings: Sequence[Opening], order: str, seed: int | None, start: int = 1
) -> list[Opening]:
    """``sequential`` keeps the book's order, ``random`` shuffles it with ``seed``;
    then the book is begun at its ``start``-th opening (1-based, as fastchess's
    ``-openings start=N``) and wraps around.

    Raises:
        ConfigError: ``order`` is unknown or ``start`` is not in the book.
    """
    if order not in ORDERS:
        raise ConfigError(f"--opening-order {order!r} is not one of {', '.join(ORDERS)}")
    if not 1 <= start <= max(1, len(openings)):
        raise ConfigError(
            f"--opening-start {start}: the book has {len(openings)} openings "
            f"(give 1 to {len(openings)})"
        )
    result = list(openings)
    if order == "random":
        random.Random(seed).shuffle(result)
    return result[start - 1 :] + result[: start - 1]
