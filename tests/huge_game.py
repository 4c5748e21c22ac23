"""A huge single bughouse game, written fast, for memory tests and bench/replay_memory.py.

``huge_game(size)`` is the text of one game of about ``size`` bytes: both
boards play a 16-ply cycle of legal knight moves (back to the start position
every cycle), about 12 bytes a ply as the bare moves of a long export
(``clocks=True``: each with a clock comment and a ``[%ts]`` time stamp, about
34 bytes a ply), a partner message every 1000 plies, and a ``*`` result (unfinished: what
the re-judging gives too, so ``replay --check`` passes it). No rules tag: the
game is read under the foreign rules, with no ply cap. Writing 5 MB takes
well under a second: the moves are formatted, not played.
"""

from __future__ import annotations

from pathlib import Path

#: One cycle on one board: White's and Black's knights out and back.
_CYCLE = (("Nf3", "Nc6"), ("Nc3", "Nf6"), ("Ng1", "Nb8"), ("Nb1", "Ng8"))

HEADER = (
    '[Event "huge"]\n[Site "generated"]\n[Date "2026.01.01"]\n'
    '[WhiteA "Anna"]\n[BlackA "Bert"]\n[WhiteB "Cleo"]\n[BlackB "Dirk"]\n'
    '[TimeControl "60+0"]\n[Result "*"]\n\n'
)


def huge_game(size: int, *, clocks: bool = False) -> str:
    """One game of about ``size`` bytes (at least one cycle of 16 plies)."""
    parts = [HEADER]
    written = len(HEADER)
    ply = 0
    number = 1
    while written < size or ply < 16:
        turn = (number - 1) % len(_CYCLE)
        for board in "AB":
            for white in (True, False):
                san = _CYCLE[turn][0 if white else 1]
                letter = board if white else board.lower()
                text = f"{number}{letter}. {san} "
                if clocks:
                    clock = 60.0 - (ply % 500) / 10
                    text += f"{{{clock:.1f}}} {{[%ts {ply / 10:.1f}]}} "
                if ply % 1000 == 999:
                    seat = "WA" if white and board == "A" else "BB"
                    text += f"{{[%tell {seat} {ply / 10:.1f}] ply {ply + 1}}} "
                parts.append(text)
                written += len(text)
                ply += 1
        parts.append("\n")
        number += 1
    parts.append("*\n")
    return "".join(parts)


def plies_of(text: str) -> int:
    """The plies ``huge_game`` wrote in ``text``."""
    return text.count(". N")


def write_huge_game(path: Path, size: int, *, clocks: bool = False) -> int:
    """Writes ``huge_game(size)`` to ``path``; returns its plies."""
    text = huge_game(size, clocks=clocks)
    path.write_text(text, encoding="utf-8")
    return plies_of(text)
