"""Bounds on everything an engine may say, applied where its words enter.

An engine is not trusted. Its name, author, option names, search
information, wait reasons, error text, partner messages and the move text
quoted in a reason are cleaned of control characters (line breaks included)
and cut to a fixed length as soon as they are read, so nothing an engine says
can make a line to another engine too long, break a line of the record, or
reach a terminal as a control sequence. Numbers an engine writes are read
into bounded values: a number out of range counts as absent.

The caps on partner messages (per turn and per game) are here too, so every
kind of seat applies the same ones (protocol.md §6.6).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Final, TypeVar

#: Characters of a display name (``id name``, xboard ``myname``, UCI ``id name``).
NAME_LIMIT: Final = 64
#: Characters of other short engine text: author, option names and values,
#: wait reasons, error text, reasons sent back in ``illegal`` / ``gameover``.
TEXT_LIMIT: Final = 200
#: Characters of the search information kept with a move (``info ...``).
INFO_LIMIT: Final = 500
#: Characters of one partner message (``ptell``).
TELL_LIMIT: Final = 500
#: Characters of a move as an engine wrote it (no legal move needs more than 5;
#: the rest is cut before the move is judged or quoted).
MOVE_LIMIT: Final = 32
#: Characters of a game's reason or a ``gameover`` / ``boardover`` text.
REASON_LIMIT: Final = 500
#: Options, ids and features kept from one engine's handshake (further ones are ignored).
MAX_ANNOUNCED: Final = 256

_V = TypeVar("_V")


def keep_announced(kept: MutableMapping[str, _V], name: str, value: _V) -> None:
    """Records an announced ``name`` unless ``MAX_ANNOUNCED`` others are kept already."""
    if name in kept or len(kept) < MAX_ANNOUNCED:
        kept[name] = value

#: Partner messages passed on from one seat between two moves on its board,
#: and in one game; the excess is dropped and logged once.
TELLS_PER_TURN: Final = 8
TELLS_PER_GAME: Final = 200

#: Ranges of the numbers read from ``info`` (anything outside counts as absent).
SCORE_CP_LIMIT: Final = 1_000_000
MATE_LIMIT: Final = 10_000
DEPTH_LIMIT: Final = 10_000

# C0 and C1 controls (line breaks included), DEL, the Unicode line and
# paragraph separators, and the bidirectional overrides and isolates (which
# can make a name read backwards on a terminal).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NUMBER = re.compile(r"[+-]?[0-9]{1,12}\Z")


def engine_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` made safe for one line: controls become spaces, outer blanks go,
    and it is cut to ``limit`` characters (``...`` marks a cut)."""
    cut = len(text) > limit
    if not cut and text.isprintable() and text[:1] != " " and text[-1:] != " ":
        return text  # the usual case, checked in C
    # Cut first, so a megabyte of text costs no more than ``limit`` characters.
    text = _CONTROL.sub(" ", text[: limit + 1]).strip(" ")
    if cut or len(text) > limit:
        text = text[: max(0, limit - 3)].rstrip(" ") + "..."
    return text


def bounded_int(text: str, limit: int) -> int | None:
    """``text`` as an integer if it is one (an optional sign, at most 12 digits)
    within ``-limit..limit``; None otherwise."""
    if not _NUMBER.match(text):
        return None
    value = int(text)
    return value if -limit <= value <= limit else None


class TellQuota:
    """Counts one seat's partner messages against the per-turn and per-game caps.

    ``turn_over()`` after each move on the seat's board, ``new_game()`` at the
    start of a game; ``allow()`` says whether the next message may pass.
    ``note`` gets one line the first time a game's message is dropped, and
    ``summary()`` one at the end of the game if any was.
    """

    def __init__(self, per_turn: int = TELLS_PER_TURN, per_game: int = TELLS_PER_GAME) -> None:
        self.per_turn = per_turn
        self.per_game = per_game
        self.in_turn = 0
        self.in_game = 0
        #: Messages dropped in this game.
        self.dropped = 0

    def new_game(self) -> None:
        self.in_turn = self.in_game = self.dropped = 0

    def turn_over(self) -> None:
        self.in_turn = 0

    def allow(self) -> tuple[bool, str | None]:
        """(may this message pass, a note to log or None)."""
        if self.in_turn < self.per_turn and self.in_game < self.per_game:
            self.in_turn += 1
            self.in_game += 1
            return True, None
        self.dropped += 1
        if self.dropped > 1:
            return False, None
        which = (
            f"{self.per_game} per game"
            if self.in_game >= self.per_game
            else f"{self.per_turn} per turn"
        )
        return False, (
            f"partner messages over the cap ({self.per_turn} per turn, {self.per_game} per"
            f" game) are dropped from now on (reached: {which})"
        )

    def summary(self) -> str | None:
        """The end-of-game note, if messages were dropped."""
        if not self.dropped:
            return None
        return f"{self.dropped} partner messages were dropped in this game"
