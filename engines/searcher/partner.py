"""What the partner asked for, read from ``ptell`` lines (protocol.md §8 words).

Understood: ``sit``, ``go``/``move``, ``fast``/``slow``, ``dead``, ``x``,
``+n``/``++n``/``+++n`` (wants a piece), ``-q``/``--q``/``---q`` (do not let the
opponents get a piece), ``+trades``/``---trades`` (one to three signs),
``move <uci>``, when the whole message is made of them; in a sentence, only a
few of Sjeng's phrases. Everything else is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import chess

_REQUEST = re.compile(r"^(\+{1,3}|-{1,3})([pnbrq])$")
_TRADES = re.compile(r"^(\+{1,3}|-{1,3})trades$")
_WORDS = {"sit", "sitting", "wait", "go", "fast", "slow", "dead", "x", "="}
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
        """Takes one partner message into account; True if it said something known.

        A message is a list of signals when every word is one (``++n ---q``,
        ``sit``, ``move e2e4``); anything else is a sentence for people, read
        only for a few known phrases (Sjeng's ``I am forcedly mated (dead).``),
        never picked apart for signal words (its ``Tell me 'go' ...`` asks
        nothing). protocol.md §8.
        """
        tokens = text.lower().replace(",", " ").split()
        if tokens and all(_is_signal(token) for token in _words(tokens)):
            self._signals(tokens)
            return True
        return self._sentence(" ".join(tokens))

    def _signals(self, tokens: list[str]) -> None:
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
            elif token in ("sit", "sitting", "wait"):
                self.sit = True
            elif token in ("go", "move"):
                self.sit = False
                self.dead = False
                self.go_now = True
                if token == "move" and index < len(tokens):
                    self.suggested = tokens[index]
                    index += 1
            elif token == "fast":
                self.fast = True
            elif token == "slow":
                self.fast = False
            elif token == "dead":
                self.dead = True
            elif token in ("x", "="):
                self.clear()
            elif _TRADES.match(token):
                self.trades = 1 if token[0] == "+" else -1

    def _sentence(self, text: str) -> bool:
        if "forcedly mated" in text or "(dead)" in text:
            self.dead = True
            return True
        if "trade freely" in text:
            self.trades = 0
            self.nogive.clear()
            return True
        if "give him no more pieces" in text:
            self.trades = -1
            return True
        return False

    def clear(self) -> None:
        """Forgets every request (the partner said ``x``)."""
        self.sit = False
        self.fast = False
        self.dead = False
        self.wants.clear()
        self.nogive.clear()
        self.trades = 0
        self.suggested = None


def _words(tokens: list[str]) -> list[str]:
    """The tokens that must be signals: not the argument of ``move``."""
    words = []
    skip = False
    for token in tokens:
        if not skip:
            words.append(token)
        skip = not skip and token == "move"
    return words


def _is_signal(token: str) -> bool:
    return (
        token in _WORDS
        or token == "move"
        or bool(_REQUEST.match(token) or _TRADES.match(token))
    )


def request_word(level: int, piece_type: chess.PieceType, *, want: bool) -> str:
    """``++n`` style text: ``level`` signs, then the piece letter."""
    return ("+" if want else "-") * level + chess.piece_symbol(piece_type)
