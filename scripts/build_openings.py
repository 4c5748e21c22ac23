"""Builds the default opening book (bughouse_arbiter/tournament/data/openings.bpgn).

Takes each human game of the project's BPGN corpus (tests/data/corpus; the
engine self-play and crazyhouse files are left out) and its first PLIES
moves (both boards, in the order played, from the standard start), and
writes them as BPGN, one opening a game (``[Opening]`` names it), so that
every engine is told them as moves. Openings that leave a board at the
start, and repeats of a position pair, are left out. Run from the
repository's root:

    python scripts/build_openings.py [PLIES]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.bpgn.read import decode  # noqa: E402
from bughouse_arbiter.core.model import BoardId  # noqa: E402
from bughouse_arbiter.tournament.openings import (  # noqa: E402
    DEFAULT_PLIES,
    format_book,
    openings_from_bpgn,
)

CORPUS = ROOT / "tests" / "data" / "corpus"
SKIPPED = {"hivemind_selfplay_engine.bpgn", "sunsetter_bench_crazyhouse.bpgn"}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
OUT = ROOT / "bughouse_arbiter" / "tournament" / "data" / "openings.bpgn"


def main() -> None:
    plies = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PLIES
    book = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(CORPUS.glob("*.bpgn")):
        if path.name in SKIPPED:
            continue
        for opening in openings_from_bpgn(decode(path.read_bytes()), plies, source=path.stem):
            if opening.set_up:
                continue
            game = opening.game()
            key = (game.fen(BoardId.A), game.fen(BoardId.B))
            # Both boards under way.
            if any(f.split(" ")[0].split("[")[0] == START for f in key):
                continue
            if key not in seen:
                seen.add(key)
                book.append(opening)
    header = (
        f"% Default opening book: the first {plies} plies (both boards) of the human games\n"
        "% in tests/data/corpus, as moves from the standard start. Made by\n"
        "% scripts/build_openings.py.\n"
    )
    OUT.write_text(header + format_book(book), "utf-8")
    print(f"{len(book)} openings written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
