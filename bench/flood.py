"""What one flooding engine costs the other three: harness delay and CPU.

    python bench/flood.py [--games 3] [--tc 10+0] [--delay 50] [--plies 300]
                          [--only quiet info ignored stderr] [--logs]

Four native engines (``engines/hostile.py``, a random mover thinking
``--delay`` ms a move) play ``--games`` games of at most ``--plies`` plies at
``--tc``, in this process (``run_match``), for each case: ``quiet`` (no
attack), then A-White writing valid ``info`` lines, lines the protocol does not
know, or lines on standard error, as fast as it can (``info-flood``,
``ignored-flood``, ``stderr-flood``).

Per case it prints, for the three other seats: the harness delay per seat and
game (``MatchRecord.harness_delay``: min and max over seats and games), per
move (mean and p95 of ``Player.harness_delay``), their time used per move
(mean, p95), how the games ended, and the arbiter's CPU share (this process's
CPU time over the wall time of the games). With ``--logs`` every engine has
its ``--debug`` protocol log (``DebugLogs``), and the size of the flooder's
and of a quiet seat's log is printed too. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bughouse_arbiter.core.model import Seat  # noqa: E402
from bughouse_arbiter.core.rules import HouseRules  # noqa: E402
from bughouse_arbiter.players.debug_logs import DebugLogs  # noqa: E402
from bughouse_arbiter.players.native import NativeEnginePlayer  # noqa: E402
from bughouse_arbiter.table.arbiter import run_match  # noqa: E402

HOSTILE = ROOT / "engines" / "hostile.py"
CASES = {
    "quiet": "normal",
    "info": "info-flood",
    "ignored": "ignored-flood",
    "stderr": "stderr-flood",
}
FLOODER = Seat.A_WHITE


class Measured(NativeEnginePlayer):
    """A native player that keeps the harness delay of each of its turns."""

    def __init__(self, *args: object, turns: list[float], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.turns = turns

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        delay = super().harness_delay(seat, token, opened_at, ended_at)
        if delay is not None:
            self.turns.append(delay)
        return delay


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


async def one_game(
    mode: str, rules: HouseRules, delay: int, game: int, logs: DebugLogs | None
) -> dict[str, object]:
    turns: dict[Seat, list[float]] = {seat: [] for seat in Seat}
    players = [
        Measured(
            seat,
            [
                sys.executable,
                str(HOSTILE),
                mode if seat is FLOODER else "normal",
                "--delay",
                str(delay),
                "--marker",
                "bench-flood",
            ],
            name=f"{seat.slug}",
            options={"Seed": str(game * 4 + index + 1)},
            turns=turns[seat],
            log=logs.for_seat(seat) if logs is not None else None,
        )
        for index, seat in enumerate(Seat)
    ]
    cpu, wall = time.process_time(), time.perf_counter()
    record = await run_match(players, rules, game_id=str(game))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    sizes = {}
    if logs is not None:
        logs.close()
        sizes = {seat: logs.path(seat).stat().st_size for seat in Seat}
    used: dict[Seat, list[float]] = {seat: [] for seat in Seat}
    for move, spent in zip(record.game.moves, record.used, strict=False):
        used[move.seat].append(spent)
    return {
        "record": record,
        "turns": turns,
        "used": used,
        "cpu": cpu,
        "wall": wall,
        "sizes": sizes,
    }


async def run_case(name: str, args: argparse.Namespace, rules: HouseRules) -> None:
    games = []
    with tempfile.TemporaryDirectory(prefix="flood-") as folder:
        for g in range(args.games):
            logs = DebugLogs(Path(folder) / f"{name}.bpgn", g + 1) if args.logs else None
            games.append(await one_game(CASES[name], rules, args.delay, g, logs))
    others = [seat for seat in Seat if seat is not FLOODER]
    per_game = [g["record"].harness_delay.get(s, 0.0) for g in games for s in others]  # type: ignore[attr-defined]
    per_move = [d for g in games for s in others for d in g["turns"][s]]  # type: ignore[index]
    used = [u for g in games for s in others for u in g["used"][s]]  # type: ignore[index]
    flooder_used = [u for g in games for u in g["used"][FLOODER]]  # type: ignore[index]
    cpu = sum(g["cpu"] for g in games)  # type: ignore[misc]
    wall = sum(g["wall"] for g in games)  # type: ignore[misc]
    plies = sum(len(g["record"].game.moves) for g in games)  # type: ignore[attr-defined]
    print(f"{name} (A-White {CASES[name]}): {args.games} games, {plies} plies, {wall:.1f} s")
    print(
        f"  others' harness delay per seat and game: {min(per_game) * 1000:.0f}"
        f"-{max(per_game) * 1000:.0f} ms"
    )
    print(
        f"  per move: mean {statistics.fmean(per_move) * 1000:.2f} ms,"
        f" p95 {p95(per_move) * 1000:.2f} ms, max {max(per_move) * 1000:.1f} ms"
        f" ({len(per_move)} turns)"
    )
    print(
        f"  others' time used per move: mean {statistics.fmean(used) * 1000:.1f} ms,"
        f" p95 {p95(used) * 1000:.1f} ms; the flooder's: mean"
        f" {statistics.fmean(flooder_used) * 1000 if flooder_used else float('nan'):.1f} ms"
    )
    print(f"  arbiter CPU: {cpu:.1f} s of {wall:.1f} s ({100 * cpu / wall:.0f}% of a core)")
    if args.logs:
        flooder = sum(g["sizes"][FLOODER] for g in games)  # type: ignore[index]
        quiet = sum(g["sizes"][Seat.B_BLACK] for g in games)  # type: ignore[index]
        print(
            f"  --debug logs: A-White's {flooder / 1e6:.2f} MB ({flooder / 1e6 / wall:.2f} MB/s),"
            f" B-Black's {quiet / 1e6:.2f} MB"
        )
    for g in games:
        outcome = g["record"].outcome  # type: ignore[attr-defined]
        print(f"  game: {outcome.result.value} {outcome.termination.value} {outcome.reason}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per case")
    parser.add_argument("--tc", default="10+0", help="time control BASE+INC in seconds")
    parser.add_argument("--delay", type=int, default=50, help="each engine's ms per move")
    parser.add_argument("--plies", type=int, default=300, help="ply cap of a game")
    parser.add_argument("--only", nargs="*", choices=list(CASES), default=list(CASES))
    parser.add_argument("--logs", action="store_true", help="give every engine a --debug log")
    args = parser.parse_args()
    base, _, inc = args.tc.partition("+")
    rules = HouseRules(time=float(base), increment=float(inc or 0), max_plies=args.plies)

    async def run_all() -> None:
        for name in args.only:
            await run_case(name, args, rules)

    trio.run(run_all)


if __name__ == "__main__":
    main()
