"""Time and peak memory of ``bughouse replay`` on one huge game.

    python bench/replay_memory.py [--sizes 1,5,50] [--modes check,html,step]
                                  [--code DIR] [--cap-gib 6]

For each size (MB) it writes one game of that size (``tests/huge_game.py``:
knight moves on both boards, about 12 bytes a ply) and runs, each in a child
process of its own: ``replay --check FILE``; ``replay FILE --html OUT``;
stepping (``replay FILE`` with ``e`` then ``q`` on standard input: to the
last ply and out). It prints the CPU and wall time, the child's peak RSS
(``ru_maxrss`` from ``wait4``) and that peak over the file's size.

``--code DIR`` runs the ``bughouse_arbiter`` package found in DIR (another
checkout, for a before/after figure). ``--cap-gib`` sets the child's address
space limit (``RLIMIT_AS``): a run past it ends in MemoryError, reported as
failed, instead of taking the machine's memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.huge_game import write_huge_game  # noqa: E402

# The package of ``--code``, not the one an editable install points at.
_LAUNCH = """
import sys
code = sys.argv.pop(1)
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f)]
sys.path.insert(0, code)
sys.argv[0] = "bughouse"
from bughouse_arbiter.cli import main
sys.exit(main())
"""


def run(
    args: list[str], *, code: Path, stdin: bytes = b"", cap: int
) -> tuple[float, float, int, int, str]:
    """(CPU seconds, wall seconds, peak RSS in bytes, exit status, last line of
    output) of one child."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(code), "replay", *args],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
        )
        assert child.stdin is not None
        child.stdin.write(stdin)
        child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0)
        lines = out.read().decode("utf-8", "replace").strip().splitlines()
    tail = lines[-1] if lines else ""
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, seconds, usage.ru_maxrss * 1024, child.returncode, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,5,50", help="game sizes in MB, comma-separated")
    parser.add_argument("--modes", default="check,html,step")
    parser.add_argument("--code", type=Path, default=ROOT, help="folder holding bughouse_arbiter")
    parser.add_argument("--cap-gib", type=float, default=6.0)
    args = parser.parse_args()
    try:
        sizes = [float(size) for size in args.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: give sizes in MB such as 1,5,50")
    modes = args.modes.split(",")
    unknown = set(modes) - {"check", "html", "step"}
    if unknown or any(size <= 0 for size in sizes):
        parser.error("--modes takes check, html, step; --sizes positive numbers")
    if not (args.code / "bughouse_arbiter").is_dir():
        parser.error(f"--code {args.code}: no bughouse_arbiter package there")
    cap = int(args.cap_gib * 2**30)
    print(f"code: {args.code}; address space cap {args.cap_gib:g} GiB")
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"huge{size:g}.bpgn"
            plies = write_huge_game(path, int(size * 1e6))
            file_size = path.stat().st_size
            print(f"{size:g} MB game: {plies} plies, {file_size / 1e6:.1f} MB")
            for mode in modes:
                page = Path(folder) / "page.html"
                if mode == "check":
                    call, stdin = ["--check", str(path)], b""
                elif mode == "html":
                    call, stdin = [str(path), "--html", str(page)], b""
                else:
                    call, stdin = [str(path), "--no-color"], b"e\nq\n"
                cpu, seconds, peak, status, tail = run(call, code=args.code, stdin=stdin, cap=cap)
                shown = "" if mode == "step" else f"; {tail[-140:]}"
                # --check exits 1 for a failed game; the others only 0 succeed.
                ok = status in (0, 1) if mode == "check" else status == 0
                failed = "" if ok else f" FAILED, exit {status} ({tail[-60:]})"
                extra = ""
                if mode == "html" and page.exists() and not failed:
                    extra = f", page {page.stat().st_size / 1e6:.1f} MB"
                    page.unlink()
                print(
                    f"  {mode:5} CPU {cpu:6.1f} s (wall {seconds:6.1f} s)  "
                    f"peak {peak / 2**20:7.1f} MiB "
                    f"({peak / file_size:5.1f}x the file){extra}{failed}"
                    + ("" if failed else shown)
                )


if __name__ == "__main__":
    main()
