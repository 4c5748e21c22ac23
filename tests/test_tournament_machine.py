"""A tournament on a busy machine: the concurrency its cores bear, engines
pinned to cores (``--use-affinity``), a table's rest between games
(``--wait``) and the engines' start and ping timeouts as options."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio
from cli_checks import expect_usage_error
from fakes import FakePlayer

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.players.process import live_engine_pids
from bughouse_arbiter.table.keeper import EngineKeeper
from bughouse_arbiter.tournament import machine
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.play import play_job_async
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import LocalScheduler, TableSettings

TWO = ["--engine", "a=random", "--engine", "b=random"]


def _jobs(games: int) -> list[MatchJob]:
    spec = engine_spec("random")
    people = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    return schedule(people, format="gauntlet", games=games, rules=HouseRules(time=3.0), openings=[])


# -- the concurrency the cores bear ------------------------------------------------------


def test_one_game_a_core_pair_is_fine() -> None:
    assert machine.concurrency_check(1, 2, force=False) is None
    assert machine.concurrency_check(2, 4, force=False) is None


def test_more_games_than_the_cores_bear_are_refused_unless_forced() -> None:
    with pytest.raises(ConfigError, match=r"--concurrency 1 \(what 2 CPUs bear\)"):
        machine.concurrency_check(2, 2, force=False)
    warning = machine.concurrency_check(2, 2, force=True)
    assert warning is not None and "4 thinking engines on 2 CPUs" in warning


def test_one_game_on_one_core_warns_but_runs() -> None:
    warning = machine.concurrency_check(1, 1, force=False)
    assert warning is not None and "on 1 CPU:" in warning


def test_each_table_gets_two_cores_of_its_own() -> None:
    assert machine.table_cpus(2, (0, 1, 4, 5)) == [frozenset({0, 1}), frozenset({4, 5})]
    with pytest.raises(ConfigError, match="--concurrency 2 needs 4, and this process may use 2"):
        machine.table_cpus(2, (0, 1))


def test_affinity_is_refused_where_it_is_not_supported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_setaffinity")
    with pytest.raises(ConfigError, match="does not have"):
        machine.table_cpus(1, (0, 1))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--concurrency", "2"], "--concurrency 2 runs up to 4 thinking engines on 2 CPUs"),
        (["--wait", "x"], "--wait takes milliseconds, not 'x'"),
        (["--wait", "-5"], "--wait takes milliseconds from 0, not '-5'"),
        (["--wait", "nan"], "--wait takes milliseconds from 0, not 'nan'"),
        (["--start-timeout", "0"], "--start-timeout must be above 0 ms"),
        (["--ping-timeout", "soon"], "--ping-timeout takes milliseconds, not 'soon'"),
        (["--ping-timeout", "inf"], "--ping-timeout takes milliseconds from 0, not 'inf'"),
        (["--concurrency", "2", "--force-concurrency", "--use-affinity"], "needs 4"),
        (["--wait", "10", "--ray", "local"], "--wait is for games played here; leave out --ray"),
        (["--use-affinity", "--ray", "local"], "--use-affinity is for games played here"),
    ],
)
def test_bad_machine_options_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    # The machine the checks see: two cores, whatever this one has.
    monkeypatch.setattr("bughouse_arbiter.commands.tournament.usable_cpus", lambda: (0, 1))
    expect_usage_error("tournament", [*TWO, *argv], message, capsys, tmp_path)


# -- a table's rest between games --------------------------------------------------------


async def test_a_table_rests_wait_seconds_between_its_games(autojump_clock: object) -> None:
    todo = _jobs(4)
    started: list[tuple[str, float]] = []

    async def play(job: MatchJob, keeper: EngineKeeper) -> MatchReport:
        started.append((job.job_id, trio.current_time()))
        await trio.sleep(1.0)  # the game
        return MatchReport(job_id=job.job_id, result=Result.DRAW)

    reports: list[MatchReport] = []

    async def on_report(report: MatchReport) -> None:
        reports.append(report)

    scheduler = LocalScheduler(1, settings=TableSettings(wait=2.5), play=play)
    begun = trio.current_time()
    await scheduler.run(lambda: todo.pop(0) if todo else None, on_report)
    # Each game starts 1 s (the game) + 2.5 s (the rest) after the one before.
    assert [round(at - begun, 6) for _, at in started] == [0.0, 3.5, 7.0, 10.5]
    assert len(reports) == 4


async def test_without_wait_the_next_game_starts_at_once(autojump_clock: object) -> None:
    todo = _jobs(2)
    started: list[float] = []

    async def play(job: MatchJob, keeper: EngineKeeper) -> MatchReport:
        started.append(trio.current_time())
        await trio.sleep(1.0)
        return MatchReport(job_id=job.job_id, result=Result.DRAW)

    async def on_report(report: MatchReport) -> None:
        pass

    begun = trio.current_time()
    await LocalScheduler(1, play=play).run(lambda: todo.pop(0) if todo else None, on_report)
    assert [round(at - begun, 6) for at in started] == [0.0, 1.0]


def test_table_settings_make_keepers_with_the_timeouts_and_cores() -> None:
    settings = TableSettings(start_timeout=45.0, ping_timeout=0.5, cpus=(frozenset({3}),))
    keeper = settings.keeper(0)
    assert keeper.start_timeout == 45.0 and keeper.handshake_timeout == 45.0
    assert keeper.ping_timeout == 0.5 and keeper.cpus == frozenset({3})
    default = TableSettings().keeper(0)
    assert default.start_timeout == 30.0 and default.handshake_timeout == 10.0
    assert default.ping_timeout is None and default.cpus is None


# -- real engines --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not machine.affinity_supported(), reason="sched_setaffinity is Linux's")
async def test_a_pinned_table_plays_with_its_engines_on_its_cores() -> None:
    core = machine.usable_cpus()[-1]
    job = _jobs(1)[0]
    before = live_engine_pids()
    with trio.fail_after(120):
        async with EngineKeeper.open(cpus=frozenset({core})) as keeper:
            report = await play_job_async(job, keeper)
            kept = live_engine_pids() - before
            assert report.started_engines == 4 and len(kept) == 4
            assert all(os.sched_getaffinity(pid) == {core} for pid in kept)


async def test_the_start_timeout_of_the_settings_is_the_tables(autojump_clock: object) -> None:
    slow = FakePlayer(Seat.A_WHITE, start_delay=3.0)
    quick = FakePlayer(Seat.A_BLACK, start_delay=1.0)
    keeper = TableSettings(start_timeout=2.0).keeper(0)
    async with trio.open_nursery() as nursery:
        await nursery.start(keeper.serve)
        assert await keeper.start_player(quick, "quick", nursery) is quick
        stood_in = await keeper.start_player(slow, "slow", nursery)
        assert stood_in is not slow and slow.closed == 1
        assert getattr(stood_in, "why", "") == "failed to start: no answer within 2 s"
        nursery.cancel_scope.cancel()
    # By default the start gets 30 s: the same player starts.
    late = FakePlayer(Seat.B_WHITE, start_delay=3.0)
    async with EngineKeeper.open() as default:
        assert default._nursery is not None
        assert await default.start_player(late, "late", default._nursery) is late
