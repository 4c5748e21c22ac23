"""``bughouse match --games N`` keeps its four engines alive between games."""

from __future__ import annotations

import argparse
import datetime
import io
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.commands import match
from bughouse_arbiter.tournament.keeper import EngineKeeper
from bughouse_arbiter.ui.render import RenderOptions


def _plan(tmp_path: Path, games: int, engine: list[str], team: list[str]) -> match.MatchPlan:
    args = argparse.Namespace(
        engine=engine,
        team=team,
        tc="60+0",  # instant movers never flag, however loaded the machine (a flag restarts one)
        rule=[],
        games=str(games),
        out=str(tmp_path / "m.bpgn"),
        seed="5",
        debug=False,
        engines_file=None,
    )
    return match.plan_from_args(args, today=datetime.datetime(2026, 1, 1))


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
    display = match.Display(io.StringIO(), live=False, options=RenderOptions())
    assert trio.run(match.play_matches, plan, display) == 0
    [keeper] = keepers
    assert keeper.engines_started == processes
    assert keeper.games_reusing == 2
    games = read_games((tmp_path / "m.bpgn").read_text())
    assert [g.tag("Round") for g in games] == ["1", "2", "3"]
    assert all(replay_game(g).ok for g in games)
