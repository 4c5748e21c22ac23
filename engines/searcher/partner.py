"""What the partner asked for, read from ``ptell`` lines (protocol.md §8 words).

Understood: ``sit``, ``go``/``move``, ``fast``/``slow``, ``dead``, ``x``,
``+n``/``++n``/``+++n`` (wants a piece), ``-q``/``--q``/``---q`` (do not let the
opponents get a piece), ``+trades``/``-trades``, ``move <uci>``, and the
machine forms ``need <pieces>`` / ``nogive <pieces>``. Everything else is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import chess

_REQUEST = re.compile(r"^(\+{1,3}|-{1,3})([pnbrq])$")
_LETTER_TYPE = {letter: chess.PIECE_SYMBOLS.index(letter) for letter in "pnbrq"}


@dataclass
class PartnerWishes:
    """The partner's standing requests; ``hear`` updates them from one message."""

    sit: bool = False
    fast: bool = False
    dead: bool = False
    # piece type -> 1..3 (good / very good / mates)
    wants: dict[chess.PieceType, int] = field(default_factory=dict)
    # piece type -> 1..3 (bad / very bad / mates me)
    nogive: dict[chess.PieceType, int] = field(default_factory=dict)
    trades: int = 0
    suggested: str | None = None
    # Set by "go": stop sitting at once (the engine resets it when it acts on it).
    go_now: bool = False

    def hear(self, text: str) -> bool:
        """Takes one partner message into account; True if a known word was in it."""
        tokens = text.lower().replace(",", " ").split()
        known = False
        index = 0
        while index < len(tokens):
            token = tokens[index]
            index += 1
            match = _REQUEST.match(token)
            if match:
                level = len(match.group(1))
                piece_type = _LETTER_TYPE[match.group(2)]
                if match.group(1)[0] == "+":
                    self.wants[piece_type] = level
                else:
                    self.nogive[piece_type] = level
                known = True
            elif token in ("sit", "sitting", "wait"):
                self.sit = True
                known = True
            elif token in ("go", "move"):
                self.sit = False
                self.dead = False
                self.go_now = True
                if token == "move" and index < len(tokens) and len(tokens[index]) >= 4:
                    self.suggested = tokens[index]
                    index += 1
                known = True
            elif token == "fast":
                self.fast = True
                known = True
            elif token == "slow":
                self.fast = False
                known = True
            elif token == "dead":
                self.dead = True
                known = True
            elif token == "x":
                self.clear()
                known = True
            elif token in ("+trades", "-trades"):
                self.trades = 1 if token[0] == "+" else -1
                known = True
            elif token in ("need", "nogive") and index < len(tokens):
                target = self.wants if token == "need" else self.nogive
                for letter in tokens[index]:
                    if letter in _LETTER_TYPE:
                        target[_LETTER_TYPE[letter]] = 2
                index += 1
                known = True
        return known

    def clear(self) -> None:
        """Forgets every request (the partner said ``x``)."""
        self.sit = False
        self.fast = False
        self.dead = False
        self.wants.clear()
        self.nogive.clear()
        self.trades = 0
        self.suggested = None


def request_word(level: int, piece_type: chess.PieceType, *, want: bool) -> str:
    """``++n`` style text: ``level`` signs, then the piece letter."""
    return ("+" if want else "-") * level + chess.piece_symbol(piece_type)
