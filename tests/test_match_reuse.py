"""``bughouse match --games N`` keeps its four engines alive between games."""

from __future__ import annotations

import argparse
import datetime
import io
import sys
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.commands import match
from bughouse_arbiter.commands.plans import MatchPlan, plan_from_args
from bughouse_arbiter.table.keeper import EngineKeeper
from bughouse_arbiter.ui import match_view
from bughouse_arbiter.ui.match_view import Display
from bughouse_arbiter.ui.render import RenderOptions

ROOT = Path(__file__).resolve().parent.parent


def _plan(
    tmp_path: Path, games: int, engine: list[str], team: list[str], rules: list[str] | None = None
) -> MatchPlan:
    args = argparse.Namespace(
        engine=engine,
        team=team,
        tc="60+0",  # instant movers never flag, however loaded the machine (a flag restarts one)
        rule=rules or [],
        games=str(games),
        out=str(tmp_path / "m.bpgn"),
        seed="5",
        debug=False,
        engines_file=None,
    )
    return plan_from_args(args, today=datetime.datetime(2026, 1, 1))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("engine", "team", "processes"),
    [
        (["WA=random", "BB=random", "BA=random", "WB=random"], [], 4),
        (["WA=random", "BB=random"], ["2=random"], 3),  # a team-mode engine follows its seats
    ],
)
def test_three_games_start_the_engines_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    engine: list[str],
    team: list[str],
    processes: int,
) -> None:
    keepers: list[EngineKeeper] = []

    class Counted(EngineKeeper):
        def __init__(self) -> None:
            super().__init__()
            keepers.append(self)

    monkeypatch.setattr(match, "EngineKeeper", Counted)
    plan = _plan(tmp_path, 3, engine, team)
    display = Display(io.StringIO(), live=False, options=RenderOptions())
    assert trio.run(match.play_matches, plan, display) == 0
    [keeper] = keepers
    assert keeper.engines_started == processes
    assert keeper.games_reusing == 2
    games = read_games((tmp_path / "m.bpgn").read_text())
    assert [g.tag("Round") for g in games] == ["1", "2", "3"]
    assert all(replay_game(g).ok for g in games)


class Flushes(io.StringIO):
    """An output that notes its text at every flush."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def flush(self) -> None:
        self.seen.append(self.getvalue())


@pytest.mark.slow
def test_kept_engines_games_still_flush_their_move_lines_during_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Output that is not a terminal gets its move lines a few times a second in
    every game, as in a one-game match (``Display.keep_flushed``), not only once
    ``HELD_CHARS`` of them are held or the game ends."""
    monkeypatch.setattr(match_view, "HELD_CHARS", 10**9)  # only a flush can hand lines on
    mover = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 25"
    engines = [f"{seat}={mover}" for seat in ("WA", "BA", "WB", "BB")]
    plan = _plan(tmp_path, 2, engines, [], rules=["max_plies=40"])
    out = Flushes()
    display = Display(out, live=False, options=RenderOptions())

    async def play() -> int:
        with trio.fail_after(60):
            return await match.play_matches(plan, display)

    assert trio.run(play) == 0
    games = read_games((tmp_path / "m.bpgn").read_text())
    assert len(games) == 2
    # A flush that ends on a move line came while that game was being played.
    during = {
        text.count("result: ") for text in out.seen if text.splitlines()[-1].startswith("ply")
    }
    long_games = {number for number, game in enumerate(games) if len(game.moves) >= 20}
    assert long_games  # 20 plies of 25 ms each outlast a flush's period, 1/REFRESH_HZ s
    assert long_games <= during
