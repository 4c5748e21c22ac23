"""``bughouse match``: options, the BPGN written as the match goes, reports,
and real matches between engine processes (random mover, searcher, faults)."""

from __future__ import annotations

import argparse
import datetime
import io
import itertools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
import trio
from cli_checks import expect_usage_error, run_bughouse
from fakes import Info, Move, RandomFake, Tell, silent_table

from bughouse_arbiter.adapters.search_info import parse_info
from bughouse_arbiter.bpgn import BpgnFile
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.commands.plans import plan_from_args
from bughouse_arbiter.config.specs import builtin_engine
from bughouse_arbiter.core.clock import Clocks
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import Result, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import Player
from bughouse_arbiter.players.factory import create_player
from bughouse_arbiter.table.arbiter import (
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
    run_match,
)
from bughouse_arbiter.table.recording import GameWriter
from bughouse_arbiter.ui.match_view import (
    HELD_CHARS,
    MOVE_LINE_CHARS,
    Display,
    GameSummary,
    progress_line,
    summary_table,
)
from bughouse_arbiter.ui.render import RenderOptions, move_line

ROOT = Path(__file__).resolve().parent.parent

# -- options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tc", "0"], "base time must be above 0"),
        (["--tc", "fast"], "is not BASE+INC"),
        (["--games", "0"], "--games must be at least 1"),
        (["--games", "many"], "--games takes a whole number"),
        (["--seed", "1.5"], "--seed takes a whole number"),
        (["--engine", "random"], "is not SEAT=SPEC"),
        (["--engine", "C-white=random"], "unknown seat 'C-white'"),
        (["--engine", "WA=random", "--engine", "a-white=random"], "given an engine twice"),
        (["--engine", "WA=no-such-engine-here"], "not found on PATH"),
        (["--engine", "WA=./missing.sh"], "no such program"),
        (["--engine", "WA='unclosed"], "cannot be split"),
        (["--rule", "nonsense=1"], "unknown rule 'nonsense'"),
        (["--rule", "stalemate"], "is not NAME=VALUE"),
        (["--out", "/nonexistent-folder/x.bpgn"], "does not exist"),
        (["--out", "."], "is a folder"),
        (["--engines-file", "/nonexistent.toml"], "no such engines file"),
        (["--option", "WA.Hash"], "is not SEAT.NAME=VALUE"),
        (["--option", "Hash=16"], "is not SEAT.NAME=VALUE"),
        (["--option", "XA.Hash=16"], "unknown seat 'XA'"),
        (["--option", "WA.=16"], "the option has no name"),
        (["--option", "WA.Seed=1", "--option", "a-white.Seed=2"], "already set to '1'"),
        (["--team", "1=random", "--option", "WA.Seed=1", "--option", "BB.Seed=2"], "already set"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error("match", argv, message, capsys, tmp_path)


def _args(**overrides: object) -> argparse.Namespace:
    values: dict[str, object] = {
        "engine": [],
        "tc": None,
        "rule": [],
        "games": "1",
        "out": None,
        "seed": None,
        "debug": False,
        "engines_file": None,
        "option": [],
    }
    values.update(overrides)
    return argparse.Namespace(**values)


def test_defaults_are_searchers_at_60_0_and_a_dated_file_name() -> None:
    plan = plan_from_args(_args(), today=datetime.datetime(2026, 3, 4, 5, 6, 7))
    assert {spec.name for spec in plan.engines.values()} == {"searcher"}
    assert (plan.rules.time, plan.rules.increment) == (60.0, 0.0)
    assert plan.out == Path("games/bughouse-20260304-050607.bpgn")
    assert plan.games == 1


def test_options_go_to_the_engine_at_their_seat_and_to_team_engines() -> None:
    today = datetime.datetime(2026, 1, 1)
    plan = plan_from_args(
        _args(engine=["BA=random"], option=["BA.Seed=7", "WB.Hash=16", "ba.Mood=calm"]), today=today
    )
    assert plan.engines[Seat.A_BLACK].options == {"Seed": "7", "Mood": "calm"}
    assert plan.engines[Seat.B_WHITE].options == {"Hash": "16"}
    assert plan.engines[Seat.A_WHITE].options == {}
    plan = plan_from_args(_args(team=["1=random"], option=["WA.Seed=3", "BB.Seed=3"]), today=today)
    assert plan.teams[Team.ONE].options == {"Seed": "3"}
    assert plan.engines[Seat.B_BLACK].options == {"Seed": "3"}


@pytest.mark.slow
def test_an_option_reaches_the_engine(tmp_path: Path) -> None:
    done = run_bughouse(
        "match",
        "--engine=WA=random",
        "--option",
        "WA.Seed=12345",
        "--tc",
        "2",
        "--out",
        "o.bpgn",
        "--debug",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    logs = "".join(p.read_text() for p in tmp_path.glob("o.*.log"))
    assert "setoption name Seed value 12345" in logs


def test_tc_and_rules_combine() -> None:
    today = datetime.datetime(2026, 1, 1)
    plan = plan_from_args(_args(tc="10+2", rule=["profile=club"]), today=today)
    assert (plan.rules.time, plan.rules.increment) == (10.0, 2.0)
    assert plan.rules.repetition == "threefold"
    assert plan.rules.profile == "club"
    assert plan_from_args(_args(rule=["profile=club"]), today=today).rules.time == 60.0
    assert plan_from_args(_args(), today=today).rules.profile == "default"
    # A time rule without --tc is kept; --tc wins over it.
    assert plan_from_args(_args(rule=["time=30"]), today=today).rules.time == 30.0
    assert plan_from_args(_args(rule=["time=30"], tc="5"), today=today).rules.time == 5.0
    # --tc none is untimed play; a time control turns the clock back on.
    untimed = plan_from_args(_args(tc="none", rule=["profile=club"]), today=today).rules
    assert (untimed.clock, untimed.stalling, untimed.profile) == (False, 3, "club")
    assert not plan_from_args(_args(rule=["clock=off"]), today=today).rules.clock
    assert plan_from_args(_args(rule=["clock=off"], tc="5+0"), today=today).rules.clock


# -- the record -----------------------------------------------------------------


async def test_the_file_is_written_as_the_match_goes(
    autojump_clock: object, tmp_path: Path
) -> None:
    path = tmp_path / "live.bpgn"
    writer = GameWriter(path, game_number=1, games=1)
    snapshots: list[str] = []

    def observe(event: MatchEvent) -> None:
        writer.observe(event)
        if path.exists():
            snapshots.append(path.read_text())

    players = silent_table(
        a_white=[(Tell("++n", 0.5), Move("e2e4", 1))],
        a_black=[Move("d7d5", 1)],
    )
    players[0].script[Seat.A_WHITE].append(Move("e4d5", 1))
    record = await run_match(players, HouseRules(time=10.0), observer=observe)
    # After the second move, before the end: header + moves, no result token yet.
    middle = next(s for s in snapshots if "1a." in s)
    (game,) = read_games(middle)
    assert not game.finished
    assert [m.san for m in game.moves] == ["e4", "d5"]
    assert game.messages[0].text == "++n"
    final = path.read_text()
    (game,) = read_games(final)
    assert game.finished
    assert game.result_tag == record.outcome.result.value
    report = replay_game(game)
    assert report.ok, report.verdict


async def test_the_last_info_before_a_move_is_written_as_its_eval(
    autojump_clock: object, tmp_path: Path
) -> None:
    path = tmp_path / "eval.bpgn"
    writer = GameWriter(path, game_number=1, games=1)
    players = silent_table(
        a_white=[
            (Info("depth 5 score cp 10", 0.2), Info("depth 12 score cp 35", 0.3), Move("e2e4", 0.5))
        ],
        a_black=[(Info("string no score"), Move("e7e5", 1))],
        b_white=[(Info("depth 3 score mate -2"), Move("d2d4", 1))],
    )
    await run_match(players, HouseRules(time=10.0), observer=writer.observe)
    text = path.read_text()
    moves = {line.split(" ", 2)[1]: line for line in text.splitlines() if line[:1].isdigit()}
    assert "[%eval +0.35,12]" in moves["e4"] and "[%eval" not in moves["e5"]
    assert "[%eval #-2,3]" in moves["d4"]
    assert text.count("[%eval") == 2


async def test_a_random_match_replays_to_its_result(autojump_clock: object, tmp_path: Path) -> None:
    path = tmp_path / "random.bpgn"
    writer = GameWriter(path, game_number=1, games=1)
    players = [RandomFake(seat, seed=7 + i, think=0.3) for i, seat in enumerate(Seat)]
    record = await run_match(players, HouseRules(time=60.0), observer=writer.observe)
    (game,) = read_games(path.read_text())
    assert len(game.moves) == record.game.plies > 0
    report = replay_game(game)
    assert report.ok, report.verdict


async def test_a_cancelled_match_is_written_with_a_star(
    autojump_clock: object, tmp_path: Path
) -> None:
    path = tmp_path / "stopped.bpgn"
    writer = GameWriter(path, game_number=1, games=1)
    players = [RandomFake(seat, seed=i, think=1.0) for i, seat in enumerate(Seat)]
    with trio.move_on_after(5.5):
        await run_match(players, HouseRules(time=60.0), observer=writer.observe)
    (game,) = read_games(path.read_text())
    assert game.result_tag == "*"
    assert game.result_token == "*"
    assert len(game.moves) == 10  # both boards, one move a second for 5.5 s


async def test_a_match_that_never_started_is_still_written(
    autojump_clock: object, tmp_path: Path
) -> None:
    from fakes import FakePlayer

    path = tmp_path / "nostart.bpgn"
    writer = GameWriter(path, game_number=1, games=1)
    players = silent_table()
    players[3] = FakePlayer(Seat.B_BLACK, start_error="no bugok")
    await run_match(players, HouseRules(time=60.0), observer=writer.observe)
    (game,) = read_games(path.read_text())
    assert game.result_tag == "0-1"
    assert game.moves == ()


def test_parse_info_reads_depth_and_score() -> None:
    info = parse_info("depth 7 seldepth 9 score cp -35 nodes 1000 pv e2e4")
    assert info is not None and (info.depth, info.score_cp, info.mate) == (7, -35, None)
    mate = parse_info("score mate 3")
    assert mate is not None and mate.mate == 3
    assert parse_info("string hello") is None
    assert parse_info("depth x") is None


# -- reports --------------------------------------------------------------------


def _summary(number: int, result: Result, side_team: Team) -> GameSummary:
    names = {seat: ("S" if seat.team is side_team else "R") for seat in Seat}
    return GameSummary(
        number=number,
        names=names,
        result=result,
        reason="A-Black checkmated",
        plies=42,
        seconds=12.5,
        side_one_team=side_team,
    )


def test_summary_counts_points_for_the_sides_as_seated_in_game_one() -> None:
    games = [
        _summary(1, Result.TEAM_ONE, Team.ONE),  # side S wins as team 1
        _summary(2, Result.TEAM_ONE, Team.TWO),  # side S played as team 2 and lost
        _summary(3, Result.DRAW, Team.ONE),
        _summary(4, Result.UNFINISHED, Team.TWO),
    ]
    table = summary_table(games)
    lines = table.splitlines()
    assert lines[0] == "engines: S = S, R = R"
    head = ["game", "WA", "BA", "WB", "BB", "result", "won", "by", "plies", "reason"]
    assert lines[1].split() == head
    assert lines[2].split() == [
        "1",
        "S",
        "R",
        "R",
        "S",
        "1-0",
        "S+S",
        "42",
        "A-Black",
        "checkmated",
    ]
    assert lines[3].split()[:7] == ["2", "R", "S", "S", "R", "1-0", "R+R"]  # S as team 2 lost
    assert lines[4].split()[5:7] == ["1/2-1/2", "draw"]
    assert lines[5].split()[5:7] == ["*", "-"]
    assert len(lines) == 7
    assert lines[-1].startswith("score: S+S 1.5 - 1.5 R+R")
    assert max(len(line) for line in lines[:-1]) <= 80
    progress = progress_line(games[1], games[:2], 10)
    assert progress.startswith("game 2/10: 1-0 A-Black checkmated (42 plies, 12.5 s)")
    assert progress.endswith("score S+S 1 - 1 R+R")


def test_summary_of_identical_engines_says_which_side_won_and_why_in_full() -> None:
    one = _summary(1, Result.TEAM_TWO, Team.ONE)
    two = _summary(2, Result.TEAM_TWO, Team.TWO)
    same = {seat: "searcher" for seat in Seat}
    long = "B-White lost on time: the flag fell with 0.0 s left while waiting for a piece"
    games = [
        attrs.evolve(one, names=same),
        attrs.evolve(two, names=same, reason=long),
    ]
    lines = summary_table(games).splitlines()
    assert lines[2].split()[5:7] == ["0-1", "side"] and lines[2].split()[7] == "2"
    assert lines[3].split()[5:8] == ["0-1", "side", "1"]  # side 1 sat as team 2 in game 2
    assert " ".join(" ".join(lines[3:6]).split()).endswith(long)  # not cut, wrapped
    assert max(len(line) for line in lines[:-1]) <= 80
    assert lines[-1].startswith("score: side 1 (searcher+searcher) 1 - 1 side 2")


async def test_line_mode_prints_one_line_per_move(autojump_clock: object) -> None:
    out = io.StringIO()
    display = Display(out, live=False, options=RenderOptions())
    display.begin(1, 1, Path("x.bpgn"))
    players = silent_table(a_white=[Move("e2e4", 1)], b_white=[Move("d2d4", 2)])
    await run_match(players, HouseRules(time=10.0), observer=display.observe)
    lines = out.getvalue().splitlines()
    assert lines[0] == "match: starting engines"
    assert lines[1].startswith("start: A-White a_white, A-Black a_black")
    assert lines[2].startswith("ply   1  A  1. e4")
    assert lines[3].startswith("ply   2  B  1. d4")
    assert lines[4] == "result: 1-0 (A-Black lost on time)"


class FlushCounter(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[tuple[float, str]] = []  # (trio time, text so far)

    def flush(self) -> None:
        self.flushed.append((trio.current_time(), self.getvalue()))


async def test_line_mode_flushes_move_lines_a_few_times_a_second(autojump_clock: object) -> None:
    """No flush a move: the move lines wait at most 1/REFRESH_HZ s for ``keep_flushed``."""
    out = FlushCounter()
    display = Display(out, live=False, options=RenderOptions())
    display.begin(1, 1, Path("x.bpgn"))
    scope = trio.CancelScope()
    players = silent_table(
        a_white=[Move("e2e4", 1.0)], a_black=[Move("e7e5", 0.01)], b_white=[Move("d2d4", 3)]
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(display.keep_flushed, scope)
        await run_match(players, HouseRules(time=5.0), observer=display.observe)
        scope.cancel()
    moves_flushed = [(t, text.count("\nply ")) for t, text in out.flushed]
    # e4 (t=1) and e5 (t=1.01) are flushed together, by the 1.25 s tick, not each at once.
    assert (1.0, 1) not in moves_flushed
    assert (1.25, 2) in moves_flushed
    assert (3.0, 3) not in moves_flushed
    assert (3.25, 3) in moves_flushed
    assert out.getvalue().rstrip().splitlines()[-1].startswith("result:")
    assert out.flushed[-1][1] == out.getvalue()  # the result line is flushed at once


class WriteCounter(io.StringIO):
    """An output that counts its writes and flushes, and can break (``| head`` gone)."""

    def __init__(self, *, broken: bool = False) -> None:
        super().__init__()
        self.broken = broken
        self.writes = 0
        self.flushes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.broken:
            raise BrokenPipeError("gone")
        return super().write(text)

    def flush(self) -> None:
        self.flushes += 1


def knight_moves(display: Display) -> Iterator[str]:
    """Starts a game on ``display``, then plays knight moves on board A, telling
    ``display`` each; yields each move's line as ``move_line`` makes it."""
    game = BughouseGame(HouseRules(time=60.0))
    names = {seat: seat.slug for seat in Seat}
    clocks = Clocks.for_rules(game.rules)
    display.observe(MatchStarted(game=game, names=names, clocks=clocks, now=0.0))
    for ply in itertools.count():
        seat = Seat.A_WHITE if ply % 2 == 0 else Seat.A_BLACK
        move = ("g1f3", "g8f6", "f3g1", "f6g8")[ply % 4]
        played = game.push(seat, move, at=ply / 10, clock=59.0)
        display.observe(MovePlayed(played=played, used=0.25, clocks=clocks, now=ply / 10))
        yield move_line(game, played, names=names, used=0.25)


def test_line_mode_hands_held_move_lines_on_unflushed_once_they_fill_the_hold() -> None:
    out = WriteCounter()
    display = Display(out, live=False, options=RenderOptions())
    moves = knight_moves(display)
    fill = -(-HELD_CHARS // MOVE_LINE_CHARS)  # the move that fills the hold
    lines = [next(moves) for _ in range(fill - 1)]
    assert all(len(line) < MOVE_LINE_CHARS for line in lines)
    assert out.getvalue().count("\n") == 1  # the start line alone: the moves are held
    lines.append(next(moves))
    assert out.getvalue().splitlines()[1:] == lines  # handed on, in order, as text
    assert out.flushes == 1  # the start line's: the held lines wait for ``keep_flushed``
    lines.append(next(moves))
    display.close()
    assert out.getvalue().splitlines()[1:] == lines
    assert out.flushes == 2


def test_line_mode_holds_nothing_once_the_output_is_gone() -> None:
    out = WriteCounter(broken=True)
    display = Display(out, live=False, options=RenderOptions())
    display.line("match: starting engines")
    assert display.broken and out.writes == 1
    moves = knight_moves(display)
    for _ in range(3 * HELD_CHARS // MOVE_LINE_CHARS):  # plays on; writes and keeps nothing
        next(moves)
    display.close()
    assert out.writes == 1


async def test_live_mode_redraws_the_table(autojump_clock: object) -> None:
    out = io.StringIO()
    display = Display(out, live=True, options=RenderOptions())
    display.begin(1, 1, Path("x.bpgn"))
    scope = trio.CancelScope()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(display.refresh, scope)
        players = silent_table(a_white=[Move("e2e4", 1)])
        await run_match(players, HouseRules(time=3.0), observer=display.observe)
        scope.cancel()
    display.end_live()
    display.close()
    frames = out.getvalue().split("\x1b[H")
    # Four redraws a second for the three seconds of the match, at least.
    assert len(frames) >= 12
    assert "last 1. e4" in frames[-1]
    assert "Result: 1-0 (B-White lost on time)" in frames[-1]
    assert out.getvalue().endswith("\x1b[?25h")


# -- real engine processes --------------------------------------------------------

REAL_ENGINES = (ROOT / "engines" / "random_mover.py").is_file()
needs_engines = pytest.mark.skipif(not REAL_ENGINES, reason="engines/random_mover.py missing")


@pytest.mark.slow
@needs_engines
def test_cli_plays_random_movers_and_writes_a_replayable_file(tmp_path: Path) -> None:
    engines = [f"--engine={seat}=random" for seat in ("WA", "BA", "WB", "BB")]
    done = run_bughouse(
        "match", *engines, "--tc", "3+0", "--seed", "3", "--out", "m.bpgn", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "match: starting engines"
    assert lines[-2].startswith("result: ")
    assert lines[-1] == "written to m.bpgn"
    (game,) = read_games((tmp_path / "m.bpgn").read_text())
    assert game.finished
    assert replay_game(game).ok


@pytest.mark.slow
@needs_engines
def test_cli_games_rotate_seats_and_end_with_a_summary(tmp_path: Path) -> None:
    # Four different engines (random movers with their own seeds), so a
    # rotation can be seen: each process's log names the seed it was run with.
    mover = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --seed"
    seeds = {Seat.A_WHITE: 701, Seat.B_BLACK: 702, Seat.A_BLACK: 703, Seat.B_WHITE: 704}
    engines = [f"--engine={seat.slug}={mover} {seed}" for seat, seed in seeds.items()]
    done = run_bughouse(
        "match",
        *engines,
        "--games",
        "2",
        "--tc",
        "10",
        "--out",
        "g.bpgn",
        "--debug",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "game 1/2: " in out and "game 2/2: " in out
    assert "score: " in out
    games = read_games((tmp_path / "g.bpgn").read_text())
    # The summary names, for each game, its result, who won and why.
    table = out[out.index("engines: R = ") :].splitlines()
    assert table[1].split()[5:8] == ["result", "won", "by"]
    rows = [row for row in table[2:] if row[:4].strip().isdigit()]  # not wrapped reasons
    for row, game in zip(rows, games, strict=True):
        result = row.split()[5]
        assert result == game.tags["Result"]
        assert row.split()[6] in ("side", "draw", "-")
        assert game.tags["Termination"] != "" and row.rstrip()[-1] != "…"
    assert [g.tag("Round") for g in games] == ["1", "2"]
    logs = sorted(p.name for p in tmp_path.glob("g.g*.log"))
    assert len(logs) == 8
    assert "bug 1" in (tmp_path / "g.g1.a-white.log").read_text()

    def seed_in(game: int, seat: Seat) -> int:
        log = (tmp_path / f"g.g{game}.{seat.slug}.log").read_text()
        started = next(line for line in log.splitlines() if " : started pid " in line)
        return int(started.split("--seed ", 1)[1].split()[0])

    assert {seat: seed_in(1, seat) for seat in Seat} == seeds
    # Game 2 swaps colours on both boards; partners stay partners.
    assert {seat: seed_in(2, seat) for seat in Seat} == {
        Seat.A_BLACK: 701,
        Seat.B_WHITE: 702,
        Seat.A_WHITE: 703,
        Seat.B_BLACK: 704,
    }


def slow_movers() -> list[str]:
    """``--engine`` options seating random movers that take 50 ms a move, so a
    game is still on when a test interrupts it."""
    slow = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 50"
    return [f"--engine={seat}={slow}" for seat in ("WA", "BA", "WB", "BB")]


@pytest.mark.slow
@needs_engines
def test_ctrl_c_writes_the_game_so_far_with_a_star(tmp_path: Path) -> None:
    engines = slow_movers()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bughouse_arbiter",
            "match",
            *engines,
            "--tc",
            "600",
            "--rule",
            "max_plies=100000",
            "--out",
            "c.bpgn",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("ply   5"):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted" in out
    (game,) = read_games((tmp_path / "c.bpgn").read_text())
    assert game.result_tag == "*"
    assert len(game.moves) >= 5


# -- the arbiter with engine processes (no virtual clock; generous guards) -------

FAULT_SEAT = Seat.A_WHITE


async def engine_match(
    specs: dict[Seat, str], rules: HouseRules, *, handshake_timeout: float = 10.0
) -> tuple[MatchRecord, list[Player]]:
    players: list[Player] = []
    for index, seat in enumerate(Seat):
        spec = builtin_engine(specs.get(seat, "random")).with_options(Seed=str(11 + index))
        players.append(create_player(seat, spec, handshake_timeout=handshake_timeout))
    with trio.fail_after(90):
        record = await run_match(players, rules)
    return record, players


def assert_no_process_left(players: list[Player]) -> None:
    for player in players:
        process = getattr(player, "process", None)
        assert process is not None and process.returncode is not None, player.name
        with pytest.raises(ProcessLookupError):
            os.kill(process.pid, 0)


@pytest.mark.slow
@needs_engines
@pytest.mark.parametrize(
    ("mode", "termination", "reason"),
    [
        ("crash", Termination.LEFT, "A-White left: the engine exited with status 3"),
        ("close-pipe", Termination.LEFT, "A-White left: the engine closed its output"),
        ("hang", Termination.FLAG, "A-White lost on time"),
        ("illegal", Termination.ILLEGAL_MOVE, "A-White played an illegal move"),
        ("slow-start", Termination.LEFT, "A-White left: failed to start"),
    ],
)
async def test_a_faulty_engine_loses_with_the_right_reason(
    mode: str, termination: Termination, reason: str
) -> None:
    record, players = await engine_match(
        {FAULT_SEAT: f"faulty-{mode}"}, HouseRules(time=2.0), handshake_timeout=1.5
    )
    outcome = record.outcome
    assert outcome.termination is termination
    assert outcome.seat is FAULT_SEAT
    assert outcome.winner is FAULT_SEAT.team.other
    assert outcome.reason.startswith(reason)
    if mode == "hang":
        assert len(record.flag_latencies) == 1
    if mode == "slow-start":
        assert record.game.plies == 0
    assert_no_process_left(players)


@pytest.mark.slow
@needs_engines
@pytest.mark.parametrize("mode", ["garbage", "flood", "stale", "ignore-quit"])
async def test_harmless_faults_are_ignored_and_the_match_ends(mode: str) -> None:
    record, players = await engine_match({FAULT_SEAT: f"faulty-{mode}"}, HouseRules(time=2.0))
    outcome = record.outcome
    assert not outcome.aborted
    # Junk lines, stale answers and a flood cost the engine nothing but time.
    if outcome.seat is FAULT_SEAT:
        assert outcome.termination not in (Termination.LEFT, Termination.ILLEGAL_MOVE)
    assert record.game.plies > 0
    assert_no_process_left(players)


@pytest.mark.slow
@needs_engines
async def test_random_movers_play_a_full_match() -> None:
    record, players = await engine_match({}, HouseRules(time=5.0))
    assert record.outcome.termination not in (Termination.LEFT, Termination.ILLEGAL_MOVE)
    assert record.game.plies > 10
    assert len(record.used) == record.game.plies
    assert all(used >= 0 for used in record.used)
    assert_no_process_left(players)


@pytest.mark.slow
@needs_engines
async def test_searchers_beat_random_movers() -> None:
    specs = {Seat.A_WHITE: "searcher", Seat.B_BLACK: "searcher"}
    record, players = await engine_match(specs, HouseRules(time=5.0))
    assert record.outcome.winner is Team.ONE, record.outcome
    assert_no_process_left(players)


def test_a_closed_output_stops_the_display_not_the_match() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    out = os.fdopen(write_end, "w")
    display = Display(out, live=False, options=RenderOptions())
    display.line("first")  # EPIPE: swallowed, and nothing more is written
    assert display.broken
    display.line("second")
    out.close()


async def test_a_file_that_cannot_be_written_is_reported(
    autojump_clock: object, tmp_path: Path
) -> None:
    games_file = BpgnFile.open(tmp_path / "lost.bpgn")
    # The descriptor now reads a pipe: every write fails with EBADF.
    read_end, write_end = os.pipe()
    os.dup2(read_end, games_file.fd)
    os.close(read_end)
    os.close(write_end)
    writer = GameWriter(games_file, game_number=1, games=1)
    players = silent_table(a_white=[Move("e2e4", 1)])
    record = await run_match(players, HouseRules(time=5.0), observer=writer.observe)
    games_file.close()
    assert record.outcome.termination is Termination.FLAG  # the match itself went on
    assert writer.error is not None and "Bad file descriptor" in writer.error


@pytest.mark.slow
@needs_engines
def test_cli_writes_the_record_of_a_crashed_engines_match(tmp_path: Path) -> None:
    engines = ["--engine=WA=faulty-crash"] + [f"--engine={s}=random" for s in ("BA", "WB", "BB")]
    done = run_bughouse("match", *engines, "--tc", "5", "--out", "crash.bpgn", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "result: 0-1 (A-White left: the engine exited with status 3" in done.stdout
    (game,) = read_games((tmp_path / "crash.bpgn").read_text())
    assert game.result_tag == "0-1"
    assert game.tag("Termination") == "left"
    assert game.tag("TerminationSeat") == "WA"


@pytest.mark.slow
@needs_engines
def test_cli_seats_engines_named_in_an_engines_file(tmp_path: Path) -> None:
    mover = ROOT / "engines" / "random_mover.py"
    (tmp_path / "engines.toml").write_text(
        f'[engines.lucky]\nprotocol = "native"\ncommand = ["{sys.executable}", "{mover}"]\n'
    )
    engines = [f"--engine={seat}=lucky" for seat in ("WA", "BA", "WB", "BB")]
    done = run_bughouse(
        "match",
        "--engines-file",
        "engines.toml",
        *engines,
        "--tc",
        "2",
        "--out",
        "f.bpgn",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (game,) = read_games((tmp_path / "f.bpgn").read_text())
    assert game.finished
    bad = run_bughouse(
        "match", "--engines-file", "engines.toml", "--engine", "WA=unlucky x'", cwd=tmp_path
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("bughouse match: error: ")


@pytest.mark.slow
@needs_engines
def test_live_table_in_a_terminal_and_ctrl_c(tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    engines = slow_movers()
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "bughouse_arbiter",
            "match",
            *engines,
            "--tc",
            "600",
            "--out",
            "tty.bpgn",
            "--rule",
            "max_plies=100000",
        ],
        cwd=str(tmp_path),
        env={**os.environ, "TERM": "xterm", "LANG": "C.UTF-8"},
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=60,
    )
    child.expect("Board A")
    child.expect("last \\d")
    child.expect("Ctrl\\+C stops")
    child.sendintr()
    child.expect_exact("\x1b[?25h")  # the cursor is shown again
    child.expect("interrupted \\(Ctrl\\+C\\): the game so far is in tty.bpgn with result \\*")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    (game,) = read_games((tmp_path / "tty.bpgn").read_text())
    assert game.result_tag == "*"


def _marked_clocks(screen: str) -> tuple[list[str], list[str]]:
    """The clocks marked running on board A (left) and board B (right) of a
    live-table screen: the player lines are the table's 2nd and 14th lines."""
    lines = screen.split("\n")
    left: list[str] = []
    right: list[str] = []
    for row in (1, 13):
        line = lines[row].ljust(80)
        for side, text in ((left, line[:40]), (right, line[40:])):
            words = text.split()
            if words and words[0] == ">":
                side.append(words[1] + " " + words[-1])
    return left, right


@pytest.mark.slow
@needs_engines
def test_the_live_table_runs_both_boards_clocks(tmp_path: Path) -> None:
    """Every frame marks the side to move on both boards, and the marked clocks run."""
    pexpect = pytest.importorskip("pexpect")
    from console_vt import VirtualTerminal

    slow = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 700"
    engines = [f"--engine={seat}={slow}" for seat in ("WA", "BA", "WB", "BB")]
    child = pexpect.spawn(
        sys.executable,
        ["-m", "bughouse_arbiter", "match", *engines, "--tc", "600", "--out", "t.bpgn"],
        cwd=str(tmp_path),
        env={**os.environ, "TERM": "xterm", "LANG": "C.UTF-8"},
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=60,
    )
    screen = VirtualTerminal()
    frames: list[tuple[list[str], list[str]]] = []
    try:
        child.expect("last \\d")
        screen.feed(child.before + child.after)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            try:
                chunk = child.read_nonblocking(65536, timeout=0.3)
            except pexpect.TIMEOUT:
                continue
            screen.feed(chunk)
            if chunk.endswith("\x1b[J") and "last " in screen.text and "Result" not in screen.text:
                frames.append(_marked_clocks(screen.text))
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert len(frames) > 10
    for left, right in frames:
        assert len(left) == 1 and len(right) == 1, (left, right)
    # Each board's marked clock runs between moves (whole seconds from 20 s up,
    # as on the play screen): while one seat stays marked its clock never goes
    # up, and it ticks down within a turn at least once over the frames.
    for side in (0, 1):
        shown = [frame[side][0].split() for frame in frames]
        ticks = 0
        for (seat, before), (seat_after, after) in itertools.pairwise(shown):
            if seat == seat_after and before != after:
                assert _clock_seconds(after) < _clock_seconds(before), shown
                ticks += 1
        assert ticks >= 1, shown


def _clock_seconds(text: str) -> float:
    """``9:58`` -> 598.0, ``19.9`` -> 19.9 (the table's clock face)."""
    minutes, _, seconds = text.rpartition(":")
    return int(minutes or 0) * 60 + float(seconds)


@pytest.mark.slow
@needs_engines
def test_without_out_the_game_goes_under_games(tmp_path: Path) -> None:
    engines = [f"--engine={seat}=random" for seat in ("WA", "BA", "WB", "BB")]
    done = run_bughouse("match", *engines, "--tc", "10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["games"]  # nothing else in the folder
    (written,) = (tmp_path / "games").iterdir()
    assert written.name.startswith("bughouse-") and written.suffix == ".bpgn"
    assert read_games(written.read_text())[0].result_tag != "*"
