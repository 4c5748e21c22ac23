"""External engines through the adapters: games per engine, rejected moves and re-syncs.

    python bench/external.py [--games 20] [--tc 60+0] [--engine NAME ...]
                             [--bpgn-dir DIR] [--log-dir DIR]

Each ``--engine`` (a built-in name such as ``sjeng`` or
``fairy-stockfish-xboard``, a name from the engines file, or
``xboard:COMMAND``/``uci:COMMAND``) plays its own series: two copies of it
hold one team, two copies of Fairy-Stockfish over UCI the other
(``--opponent`` changes that). Partners stay partners; seats rotate each game
(colours, then boards). Without ``--engine`` it runs ``sjeng`` and
``fairy-stockfish-xboard``.

Per game it prints the result, termination, plies and wall time, and for the
engine under test: moves refused at the table (0 expected), moves its adapter
caught before they reached the table ("rejected"), re-syncs, waits. Then per
engine the totals, and whether each BPGN replays to its recorded result.
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
from bughouse_arbiter.config.engines_file import known_engines
from bughouse_arbiter.config.specs import EngineSpec, TimeControl, engine_spec, rotate
from bughouse_arbiter.core.model import Seat, Team
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.external import ExternalEnginePlayer
from bughouse_arbiter.players.uci import UciPlayer
from bughouse_arbiter.players.xboard import XboardPlayer
from bughouse_arbiter.table.arbiter import MatchEvent, MoveRefused, PlayerWaits, run_match

DEFAULT_ENGINES = ("sjeng", "fairy-stockfish-xboard")
#: Adapter notes counted, by the words they start with.
NOTES = {"engine move rejected": "rejected", "re-syncing": "resyncs"}


def make_player(
    seat: Seat, spec: EngineSpec, counts: collections.Counter[str], sink: list[str]
) -> ExternalEnginePlayer:
    def note(line: str) -> None:
        sink.append(line)
        label, _, text = line.partition(" : ")
        if len(label) == 2 and text:  # "WA : ..." is a note, "WA > ..." engine output
            for words, key in NOTES.items():
                if text.startswith(words):
                    counts[f"{seat.bpgn} {key}"] += 1

    kind = UciPlayer if spec.protocol == "uci" else XboardPlayer
    return kind(
        seat,
        spec.command,
        name=spec.name,
        cwd=spec.cwd,
        options=spec.options,
        init=spec.init,
        log=note,
    )


@attrs.frozen(kw_only=True)
class Row:
    result: str
    termination: str
    reason: str
    tested_won: bool | None
    plies: int
    wall: float
    refused: int
    rejected: int
    resyncs: int
    waits: int
    replay_ok: bool

    def line(self, number: int) -> str:
        won = {True: "won ", False: "lost", None: "draw"}[self.tested_won]
        return (
            f"{number:3d}  {won}  {self.result:7s}  {self.termination:12s}  plies={self.plies:3d}  "
            f"wall={self.wall:5.1f}s  refused={self.refused}  rejected={self.rejected}  "
            f"resyncs={self.resyncs}  waits={self.waits}  "
            f"replay={'ok' if self.replay_ok else 'FAILED'}  ({self.reason})"
        )


async def one_match(
    index: int,
    tested: EngineSpec,
    opponent: EngineSpec,
    tc: TimeControl,
    bpgn_dir: Path | None,
    log_dir: Path | None,
) -> Row:
    base = {
        Seat.A_WHITE: tested,
        Seat.B_BLACK: tested,
        Seat.A_BLACK: opponent,
        Seat.B_WHITE: opponent,
    }
    seating = rotate(base, index)
    tested_seats = {seat for seat in seating if seating[seat] is tested}
    tested_team: Team = next(iter(tested_seats)).team
    counts: collections.Counter[str] = collections.Counter()
    lines: list[str] = []
    players = [make_player(seat, spec, counts, lines) for seat, spec in seating.items()]

    def observe(event: MatchEvent) -> None:
        if isinstance(event, MoveRefused) and event.seat in tested_seats:
            counts["refused"] += 1
        elif isinstance(event, PlayerWaits) and event.seat in tested_seats:
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
    stem = f"{tested.name}-{index + 1:02d}".replace("/", "_")
    if bpgn_dir is not None:
        (bpgn_dir / f"{stem}.bpgn").write_text(text)
    if log_dir is not None:
        (log_dir / f"{stem}.log").write_text("\n".join(lines) + "\n")
    reports = [replay_game(g) for g in read_games(text)]
    return Row(
        result=outcome.result.value,
        termination=outcome.termination.value,
        reason=outcome.reason,
        tested_won=None if outcome.winner is None else outcome.winner is tested_team,
        plies=game.plies,
        wall=wall,
        refused=counts["refused"],
        rejected=sum(counts[f"{s.bpgn} rejected"] for s in tested_seats),
        resyncs=sum(counts[f"{s.bpgn} resyncs"] for s in tested_seats),
        waits=counts["waits"],
        replay_ok=len(reports) == 1 and reports[0].ok,
    )


async def series(
    tested: EngineSpec,
    opponent: EngineSpec,
    games: int,
    tc: TimeControl,
    bpgn_dir: Path | None,
    log_dir: Path | None,
) -> list[Row]:
    print(
        f"\n{tested.name} ({tested.protocol}) x2 vs {opponent.name} ({opponent.protocol}) x2, "
        f"{games} games at {tc}"
    )
    rows: list[Row] = []
    for index in range(games):
        row = await one_match(index, tested, opponent, tc, bpgn_dir, log_dir)
        rows.append(row)
        print(row.line(index + 1), flush=True)
    return rows


def summary(name: str, rows: list[Row]) -> str:
    won = sum(r.tested_won is True for r in rows)
    lost = sum(r.tested_won is False for r in rows)
    terminations = collections.Counter(r.termination for r in rows)
    return (
        f"{name}: games {len(rows)}  won {won}  lost {lost}  drawn {len(rows) - won - lost}  "
        f"refused at the table {sum(r.refused for r in rows)}  "
        f"rejected by the adapter {sum(r.rejected for r in rows)}  "
        f"re-syncs {sum(r.resyncs for r in rows)}  waits {sum(r.waits for r in rows)}  "
        f"avg plies {statistics.mean(r.plies for r in rows):.1f}  "
        f"replays ok {sum(r.replay_ok for r in rows)}/{len(rows)}  "
        f"({', '.join(f'{k} {v}' for k, v in terminations.most_common())})"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="games per engine (default 20)")
    parser.add_argument("--tc", default="60+0", help="BASE+INC in seconds (default 60+0)")
    parser.add_argument("--engine", action="append", default=[], help="an engine to test")
    parser.add_argument("--opponent", default="fairy-stockfish", help="the other team's engine")
    parser.add_argument("--engines-file", help="a TOML file of named engines")
    parser.add_argument("--bpgn-dir", type=Path, help="write each match's BPGN here")
    parser.add_argument("--log-dir", type=Path, help="write each match's engine transcript here")
    args = parser.parse_args()
    tc = TimeControl.parse(args.tc)
    known = known_engines(args.engines_file)
    tested = [engine_spec(text, known) for text in args.engine or DEFAULT_ENGINES]
    opponent = engine_spec(args.opponent, known)
    for folder in (args.bpgn_dir, args.log_dir):
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[Row]] = {}
    for spec in tested:
        results[spec.name] = await series(
            spec, opponent, args.games, tc, args.bpgn_dir, args.log_dir
        )
    print()
    for name, rows in results.items():
        print(summary(name, rows))


if __name__ == "__main__":
    trio.run(main)
