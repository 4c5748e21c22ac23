"""The partner signals of protocol.md §8.2: one table, code -> words.

Every signal a person can send (the console, the live page) comes from
``SIGNALS``, so what people send is what engines read (the project's
searcher, Sjeng, Fairy-Stockfish). ``meaning`` puts a message of signals
into words for people (``++n ---q`` -> "I want a knight: very good; don't
let them get a queen: it mates me"); a message that is not made only of
signals (§8.3: a sentence for people) has no meaning here. Pure.
"""

from __future__ import annotations

import re

import attrs

#: The piece letters of §8.2, in the page's order, and their names.
PIECES: dict[str, str] = {"p": "pawn", "n": "knight", "b": "bishop", "r": "rook", "q": "queen"}
#: One to three signs: how strongly (§8.2's good / very good / it mates).
WANT_LEVELS = ("good", "very good", "it mates")
AVOID_LEVELS = ("bad", "very bad", "it mates me")


@attrs.frozen
class Signal:
    """One signal: ``code`` as sent, ``words`` for people.

    ``kind`` is ``word`` (``sit``, ``go``...), ``want`` (``++n``, ``+trades``:
    I want it) or ``avoid`` (``--q``, ``-trades``: do not let it happen);
    ``subject`` is the piece letter (``p n b r q``) or ``trades`` of a
    ``want``/``avoid`` signal, else ""; ``level`` how many signs (1: good /
    bad, 2: very, 3: it mates), 0 for a word.
    """

    code: str
    words: str
    kind: str
    subject: str = ""
    level: int = 0

    def as_json(self) -> dict[str, str | int]:
        return {
            "code": self.code,
            "words": self.words,
            "kind": self.kind,
            "subject": self.subject,
            "level": self.level,
        }


_WANT_TRADES = ("trades are good for me", "trades are very good for me", "trades win for me")
_AVOID_TRADES = ("trades are bad for me", "trades are very bad for me", "any trade mates me")


def _signed(kind: str, subject: str, level: int) -> Signal:
    sign = "+" if kind == "want" else "-"
    if subject == "trades":
        words = (_WANT_TRADES if kind == "want" else _AVOID_TRADES)[level - 1]
    elif kind == "want":
        words = f"I want a {PIECES[subject]}: {WANT_LEVELS[level - 1]}"
    else:
        words = f"don't let them get a {PIECES[subject]}: {AVOID_LEVELS[level - 1]}"
    return Signal(sign * level + subject, words, kind, subject, level)


def _table() -> tuple[Signal, ...]:
    words = [
        Signal("sit", "wait: do not move until I say go", "word"),
        Signal("go", "move now", "word"),
        Signal("fast", "play faster", "word"),
        Signal("slow", "you may take your time", "word"),
        Signal("dead", "I am lost unless something changes", "word"),
        Signal("x", "cancel my requests", "word"),
    ]
    signed = [
        _signed(kind, subject, level)
        for kind in ("want", "avoid")
        for subject in (*PIECES, "trades")
        for level in (1, 2, 3)
    ]
    return (*words, *signed)


#: Every signal, in the order a page or help lists them: the words, then
#: per kind (want, avoid) and subject (p n b r q trades) the three levels.
SIGNALS: tuple[Signal, ...] = _table()
BY_CODE: dict[str, Signal] = {signal.code: signal for signal in SIGNALS}
#: Another spelling §8.2 allows (Sjeng's), read as the signal it names.
ALIASES: dict[str, str] = {"=": "x"}

_MOVE = re.compile(r"^([a-h][1-8][a-h][1-8][qrbn]?|[pnbrq]@[a-h][1-8])$")


def signal(code: str) -> Signal | None:
    """The signal ``code`` names (any case, an alias included), or None."""
    word = code.strip().lower()
    return BY_CODE.get(ALIASES.get(word, word))


def codes_of(text: str) -> list[str] | None:
    """The signals of a message, each as its own text (``++n sit`` -> ``["++n",
    "sit"]``, ``move e2e4`` one of them), lower-cased; None unless every word
    is a signal of §8.2."""
    tokens = text.lower().replace(",", " ").split()
    if not tokens:
        return None
    codes: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "move":
            if index < len(tokens) and _MOVE.match(tokens[index]):
                codes.append(f"move {tokens[index]}")
                index += 1
                continue
            return None
        if signal(token) is None:
            return None
        codes.append(token)
    return codes


def words_of(text: str) -> list[str] | None:
    """Each signal of a message in words, in order; None unless every word is
    a signal of §8.2 (``move <move>`` counting as one)."""
    codes = codes_of(text)
    if codes is None:
        return None
    return [
        f"please play {code[5:]}" if code.startswith("move ") else _words(code) for code in codes
    ]


def _words(code: str) -> str:
    found = signal(code)
    assert found is not None  # codes_of checked it
    return found.words


def meaning(text: str) -> str | None:
    """A message of signals in words (``--q`` -> "don't let them get a queen:
    very bad"); None for anything else."""
    said = words_of(text)
    return None if said is None else "; ".join(said)


def signals_message() -> dict[str, object]:
    """The table as the live page gets it: ``{"type": "signals", "signals": [...]}``."""
    return {"type": "signals", "signals": [s.as_json() for s in SIGNALS]}
