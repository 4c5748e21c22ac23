"""Builds the default opening book (bughouse_arbiter/tournament/data/openings.txt).

Takes each human game of the project's BPGN corpus (tests/data/corpus; the
engine self-play and crazyhouse files are left out), the position of both
boards after its first PLIES moves (pockets included), and writes them as
FEN pairs, one opening a line. Run from the repository's root:

    python scripts/build_openings.py [PLIES]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.bpgn.read import decode  # noqa: E402
from bughouse_arbiter.tournament.openings import (  # noqa: E402
    DEFAULT_PLIES,
    format_fen_pairs,
    openings_from_bpgn,
)

CORPUS = ROOT / "tests" / "data" / "corpus"
SKIPPED = {"hivemind_selfplay_engine.bpgn", "sunsetter_bench_crazyhouse.bpgn"}
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
OUT = ROOT / "bughouse_arbiter" / "tournament" / "data" / "openings.txt"


def main() -> None:
    plies = int(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PLIES
    book = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(CORPUS.glob("*.bpgn")):
        if path.name in SKIPPED:
            continue
        for opening in openings_from_bpgn(decode(path.read_bytes()), plies, source=path.stem):
            key = (opening.fen_a, opening.fen_b)
            # From the standard start, with both boards under way.
            if not all(f.endswith((" 1", " 2", " 3", " 4", " 5", " 6", " 7")) for f in key):
                continue
            if any(f.split(" ")[0].split("[")[0] == START for f in key):
                continue
            if key not in seen:
                seen.add(key)
                book.append(opening)
    header = (
        f"# Default opening book: the first {plies} plies (both boards) of the human games\n"
        "# in tests/data/corpus. Made by scripts/build_openings.py; NAME | FEN_A | FEN_B.\n"
    )
    OUT.write_text(header + format_fen_pairs(book), encoding="utf-8")
    print(f"{len(book)} openings written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
