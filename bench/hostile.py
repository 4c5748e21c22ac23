"""Time and peak memory of the long hostile cases (issue 9).

    python bench/hostile.py [--games N] [--tc BASE+INC] [--size MB] [--plies N] [--only CASE ...]

Cases (each runs ``bughouse`` as a child process, so its figures are the
command's own: wall time, peak RSS from ``wait4``, bytes printed):

- ``games``: ``bughouse match --games N`` with four random movers; prints the
  arbiter's RSS after game 10 and after game N (read from /proc while it
  runs) and its peak. Memory must not grow with N. ``--games 40`` for a
  short run; the default is 500.
- ``braces``: ``replay --check`` of ``--size`` MB of ``}``.
- ``plies``: ``replay --check`` of one game of ``--plies`` legal plies
  (knights going back and forth on both boards).
- ``comment``: one game with a comment of ``--size`` MB.
- ``line``: one game whose tag line is ``--size`` MB long.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MOVER = ROOT / "engines" / "random_mover.py"
BUGHOUSE = [sys.executable, "-m", "bughouse_arbiter"]
CASES = ("games", "braces", "plies", "comment", "line")


def run(
    argv: list[str], *, cwd: Path, on_line: object = None
) -> tuple[float, float, int, int, str]:
    """(seconds, CPU seconds, peak RSS in KiB, bytes printed, last line) of ``bughouse ARGV``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    child = subprocess.Popen(
        [*BUGHOUSE, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert child.stdout is not None
    printed = 0
    last = b""
    for line in child.stdout:
        printed += len(line)
        last = line
        if callable(on_line):
            on_line(child.pid, line.decode("utf-8", "replace"))
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss, printed, last.decode("utf-8", "replace").strip()


def rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def games_case(args: argparse.Namespace, folder: Path) -> None:
    engines = [f"--engine={seat}=random" for seat in ("WA", "BA", "WB", "BB")]
    marks: dict[int, int] = {}
    early = min(10, args.games)

    def on_line(pid: int, line: str) -> None:
        if line.startswith("game ") and "/" in line.split()[1] and " score " in line:
            number = int(line.split()[1].split("/")[0].rstrip(":"))
            if number in (early, args.games) or number % 50 == 0:
                marks[number] = rss_kib(pid)
                print(f"  (game {number}: RSS {marks[number] / 1024:.1f} MiB)", flush=True)

    argv = ["match", *engines, "--tc", args.tc, "--games", str(args.games), "--seed", "1"]
    seconds, cpu, peak, _, last = run(
        [*argv, "--out", "games.bpgn"], cwd=folder, on_line=on_line
    )
    size = (folder / "games.bpgn").stat().st_size
    print(
        f"games: {args.games} games of random movers at {args.tc} in {seconds:.1f} s "
        f"(arbiter CPU {cpu:.1f} s)"
    )
    for number in sorted(marks):
        print(f"  RSS after game {number:>4}: {marks[number] / 1024:7.1f} MiB")
    print(f"  peak RSS {peak / 1024:.1f} MiB; file {size / 1e6:.1f} MB; last line: {last[:70]}")


def write_plies(path: Path, plies: int) -> None:
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    with path.open("w") as out:
        out.write('[Event "plies"]\n[Variant "bughouse"]\n[Result "*"]\n\n')
        counts = {"A": 0, "B": 0}
        for ply in range(plies):
            board = "A" if ply % 2 == 0 else "B"
            n = counts[board]
            counts[board] += 1
            letter = board if n % 2 == 0 else board.lower()
            out.write(f"{n // 2 + 1}{letter}. {shuffle[n % 4]} {{179.5}}\n")
        out.write("*\n")


def bpgn_case(name: str, args: argparse.Namespace, folder: Path) -> None:
    path = folder / f"{name}.bpgn"
    size = int(args.size * 1_000_000)
    if name == "braces":
        path.write_bytes(b"}" * size)
        what = f"{args.size:g} MB of '}}'"
    elif name == "plies":
        write_plies(path, args.plies)
        what = f"one game of {args.plies} plies"
    elif name == "comment":
        path.write_bytes(b'[Event "c"]\n\n1A. e4 {' + b"a" * size + b"} 1a. e5 *\n")
        what = f"a comment of {args.size:g} MB"
    else:
        path.write_bytes(b'[Event "' + b"e" * size + b'"]\n\n1A. e4 *\n')
        what = f"a tag line of {args.size:g} MB"
    mb = path.stat().st_size / 1e6
    seconds, cpu, peak, printed, last = run(["replay", "--check", str(path)], cwd=folder)
    print(
        f"{name}: replay --check of {what} ({mb:.1f} MB): {seconds:.2f} s (CPU {cpu:.2f} s), "
        f"peak RSS {peak / 1024:.1f} MiB, printed {printed} bytes; {last[:60]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games for the memory run")
    parser.add_argument("--tc", default="2+0", help="time control of those games")
    parser.add_argument("--size", type=float, default=5.0, help="MB of the big inputs")
    parser.add_argument("--plies", type=int, default=1_000_000, help="plies of the long game")
    parser.add_argument("--only", nargs="*", choices=CASES, default=list(CASES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        folder = Path(tmp)
        for name in args.only:
            if name == "games":
                games_case(args, folder)
            else:
                bpgn_case(name, args, folder)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
