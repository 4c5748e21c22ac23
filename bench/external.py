"""Sjeng + Sjeng against Fairy-Stockfish + Fairy-Stockfish, through the adapters.

    python bench/external.py [--games 20] [--tc 60+0] [--bpgn-dir DIR] [--log-dir DIR]

Team "sjeng" plays xboard (Debian ``sjeng``), team "fsf" UCI (Debian
``fairy-stockfish``, Threads 1, Hash 16). Partners stay partners; seats
rotate each game (colours, then boards). For every match it prints the
result, termination, plies and wall time, then totals: wins per team,
terminations, illegal moves that reached the table (0 expected), engine
moves the adapters caught and re-synced, waits, average plies, and whether
each BPGN replays to its recorded result.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path

import attrs
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.bpgn.write import GameHeader, format_game
from bughouse_arbiter.config.engines_file import builtin_external_engines
from bughouse_arbiter.config.specs import EngineSpec, TimeControl, rotate
from bughouse_arbiter.core.model import Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.external import ExternalEnginePlayer
from bughouse_arbiter.players.uci import UciPlayer
from bughouse_arbiter.players.xboard import XboardPlayer
from bughouse_arbiter.table.arbiter import MatchEvent, MoveRefused, PlayerWaits, run_match


def make_player(
    seat: Seat, spec: EngineSpec, log: collections.Counter[str], sink: list[str]
) -> ExternalEnginePlayer:
    def note(line: str) -> None:
        sink.append(line)
        label, _, text = line.partition(" : ")
        if len(label) == 2 and text:  # "WA : ..." is a note, "WA > ..." engine output
            for key in ("engine move rejected", "re-syncing", "discarded", "out of step"):
                if text.startswith(key):
                    log[key] += 1

    kind = UciPlayer if spec.protocol == "uci" else XboardPlayer
    return kind(seat, spec.command, name=spec.name, cwd=spec.cwd, options=spec.options, log=note)


@attrs.frozen(kw_only=True)
class Row:
    winner: str
    result: str
    termination: str
    reason: str
    plies: int
    wall: float
    illegal: int
    caught: int
    resyncs: int
    waits: int
    replay_ok: bool
    sjeng_team: Team

    def line(self, number: int) -> str:
        return (
            f"{number:3d}  sjeng=team{int(self.sjeng_team)}  {self.result:7s}  "
            f"winner={self.winner:5s}  {self.termination:12s}  plies={self.plies:3d}  "
            f"wall={self.wall:5.1f}s  illegal={self.illegal}  caught={self.caught}  "
            f"resyncs={self.resyncs}  waits={self.waits}  "
            f"replay={'ok' if self.replay_ok else 'FAILED'}  ({self.reason})"
        )


async def one_match(
    index: int, tc: TimeControl, bpgn_dir: Path | None, log_dir: Path | None
) -> Row:
    builtins = builtin_external_engines()
    base = {
        Seat.A_WHITE: builtins["sjeng"],
        Seat.B_BLACK: builtins["sjeng"],
        Seat.A_BLACK: builtins["fairy-stockfish"],
        Seat.B_WHITE: builtins["fairy-stockfish"],
    }
    seating = rotate(base, index)
    sjeng_team = next(seat.team for seat, spec in seating.items() if spec.name == "sjeng")
    counts: collections.Counter[str] = collections.Counter()
    lines: list[str] = []
    players = [make_player(seat, spec, counts, lines) for seat, spec in seating.items()]

    def observe(event: MatchEvent) -> None:
        if isinstance(event, MoveRefused):
            counts["refused"] += 1
        elif isinstance(event, PlayerWaits):
            counts["waits"] += 1

    rules = HouseRules(time=tc.base, increment=tc.increment)
    started = time.monotonic()
    record = await run_match(players, rules, game_id=str(index + 1), observer=observe)
    wall = time.monotonic() - started
    game = record.game
    outcome = game.outcome
    assert outcome is not None
    header = GameHeader(
        players={seat: spec.name for seat, spec in seating.items()}, round=str(index + 1)
    )
    text = format_game(game, header)
    if bpgn_dir is not None:
        (bpgn_dir / f"external-{index + 1:02d}.bpgn").write_text(text)
    if log_dir is not None:
        (log_dir / f"external-{index + 1:02d}.log").write_text("\n".join(lines) + "\n")
    reports = [replay_game(g) for g in read_games(text)]
    replay_ok = len(reports) == 1 and reports[0].ok
    illegal = counts["refused"] + (outcome.termination is Termination.ILLEGAL_MOVE)
    if outcome.winner is None:
        winner = "draw"
    else:
        winner = "sjeng" if outcome.winner is sjeng_team else "fsf"
    return Row(
        winner=winner,
        result=outcome.result.value,
        termination=outcome.termination.value,
        reason=outcome.reason,
        plies=game.plies,
        wall=wall,
        illegal=illegal,
        caught=counts["engine move rejected"],
        resyncs=counts["re-syncing"],
        waits=counts["waits"],
        replay_ok=replay_ok,
        sjeng_team=sjeng_team,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--tc", default="60+0", help="BASE+INC in seconds (default 60+0)")
    parser.add_argument("--bpgn-dir", type=Path, help="write each match's BPGN here")
    parser.add_argument("--log-dir", type=Path, help="write each match's engine transcript here")
    args = parser.parse_args()
    tc = TimeControl.parse(args.tc)
    for folder in (args.bpgn_dir, args.log_dir):
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    print(f"Sjeng+Sjeng (xboard) vs FSF+FSF (UCI), {args.games} matches at {tc}")
    rows: list[Row] = []
    for index in range(args.games):
        row = await one_match(index, tc, args.bpgn_dir, args.log_dir)
        rows.append(row)
        print(row.line(index + 1), flush=True)
    winners = collections.Counter(r.winner for r in rows)
    terminations = collections.Counter(r.termination for r in rows)
    plies = [r.plies for r in rows]
    print()
    print(
        f"matches: {len(rows)}  sjeng wins: {winners['sjeng']}  fsf wins: {winners['fsf']}  "
        f"draws: {winners['draw']}"
    )
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in terminations.most_common()))
    print(f"illegal moves at the table: {sum(r.illegal for r in rows)}")
    print(
        f"engine moves caught by the adapters: {sum(r.caught for r in rows)}  "
        f"re-syncs: {sum(r.resyncs for r in rows)}  waits: {sum(r.waits for r in rows)}"
    )
    print(f"average plies: {statistics.mean(plies):.1f} (min {min(plies)}, max {max(plies)})")
    print(f"average wall time: {statistics.mean(r.wall for r in rows):.1f} s")
    print(f"BPGN replays to the recorded result: {sum(r.replay_ok for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    trio.run(main)
