"""Telling harness-caused time losses: when a turn reaches an engine's pipe
(``EngineProcess.when_written``), how late a line may be read (``LoopWatch``),
the keeper's attribution of a time loss, and the tournament's figures."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
import trio
from test_tournament_hangs import KeptFake, kept, one_job, table

from bughouse_arbiter.cli import main
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.players import latency
from bughouse_arbiter.players.process import open_engine_process
from bughouse_arbiter.table.keeper import EngineKeeper
from bughouse_arbiter.tournament.jobs import MatchReport
from bughouse_arbiter.tournament.play import HARNESS_LOSS_SHARE, play_on_table

ECHO = [sys.executable, "-u", "-c", "import sys\nfor line in sys.stdin: print(line, end='')"]


@pytest.mark.slow
async def test_when_written_waits_for_a_batch_to_be_written() -> None:
    seen: list[str] = []
    with trio.fail_after(30):
        async with open_engine_process(ECHO) as engine:
            engine.when_written(lambda at: seen.append("idle"))
            assert seen == ["idle"]  # nothing pending: at once
            with engine.batched():
                engine.send("one")
                engine.when_written(lambda at: seen.append("one"))
                assert seen == ["idle"]  # held in the batch, not in the pipe yet
            assert seen == ["idle", "one"]
            line = await engine.receive()
    assert line is not None and line.text == "one"


@pytest.mark.slow
async def test_when_written_waits_for_what_the_pipe_could_not_take() -> None:
    slow = [sys.executable, "-u", "-c", "import time, sys\ntime.sleep(0.5)\nsys.stdin.read()"]
    times: list[float] = []
    with trio.fail_after(30):
        async with open_engine_process(slow) as engine:
            engine.send("x" * 300_000)  # more than a pipe holds: the writer sends the rest
            engine.when_written(times.append)
            assert times == []
            sent = trio.current_time()
            while not times:
                await trio.sleep(0.01)
    assert times[0] >= sent


async def test_loop_watch_bounds_the_read_lag_by_the_waits(
    mock_clock: trio.testing.MockClock,
) -> None:
    watch = latency.watch()
    assert latency.watch() is watch  # one per loop
    now = trio.current_time
    # A busy loop: waits with a zero timeout. A line read now was not there at
    # the wait before the latest one: it waited at most since that one returned.
    watch.after_io_wait(0.0)
    first = now()
    mock_clock.jump(0.003)  # a batch of tasks runs
    watch.after_io_wait(0.0)
    mock_clock.jump(0.002)
    assert not watch.slept and watch.since() == first
    assert latency.read_lag(now()) == pytest.approx(0.005)
    assert latency.read_lag(first - 1.0) == 0.0  # read before: nothing
    # An idle loop: the wait slept until the line came; only the time since counts.
    mock_clock.jump(0.2)
    watch.after_io_wait(0.5)
    woke = now()
    mock_clock.jump(0.0004)
    assert watch.slept and watch.since() == woke
    assert latency.read_lag(now()) == pytest.approx(0.0004)
    # Busy again: back to the wait before the latest.
    mock_clock.jump(0.001)
    watch.after_io_wait(0.0)
    assert not watch.slept and watch.since() == woke


class Slowed(KeptFake):
    """A kept fake that says the harness spent ``delay`` seconds of each of its turns."""

    def __init__(self, seats: tuple[Seat, ...], *, moves: int, delay: float) -> None:
        super().__init__(seats, moves=moves)
        self.delay = delay

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        return self.delay


@pytest.mark.parametrize(("delay", "caused"), [(0.04, True), (0.03, False)])
async def test_a_time_loss_is_the_harness_s_when_its_delay_reached_the_share(
    autojump_clock: trio.abc.Clock, delay: float, caused: bool
) -> None:
    job = one_job()  # 10 s each, no increment: the share is 0.1 s
    assert HARNESS_LOSS_SHARE == 0.01
    slowed = Slowed((Seat.A_BLACK,), moves=2, delay=delay)  # two moves, then it flags
    async with EngineKeeper.open() as keeper:
        await kept(keeper, job, table(job, A_Black=slowed))
        report = await play_on_table(job, keeper)
    assert report.time_losses == (Seat.A_BLACK,)
    assert report.harness_delay[Seat.A_BLACK] == pytest.approx(3 * delay)  # three turns
    assert report.harness_delay_max == pytest.approx(delay)
    assert report.harness_time_losses == ((Seat.A_BLACK,) if caused else ())
    back = MatchReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert back.harness_delay == pytest.approx(report.harness_delay)
    assert back.harness_time_losses == report.harness_time_losses
    assert back.harness_delay_max == pytest.approx(delay)


@pytest.mark.slow
def test_the_tournament_reports_harness_delay_and_harness_caused_losses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine",
        "good=random",
        "--engine",
        "slow=faulty-hang",  # never moves: loses every game on time
        "--games",
        "2",
        "--tc",
        "1+0",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    data = json.loads((out / "summary.json").read_text())
    assert data["time_losses"] == {"good": 0, "slow": 2}
    assert data["harness_time_losses"] == {"good": 0, "slow": 0}
    delay = data["harness_delay"]
    assert delay["seat_games"] >= 4 and 0 <= delay["mean_ms"] <= delay["max_ms"]
    journal = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for line in journal:
        report = line["report"]
        assert set(report["harness_delay"]) >= set(report["time_losses"])
        assert report["harness_time_losses"] == []
    printed = capsys.readouterr().out
    # slow's row: no illegal move, failed start, hang or crash; 2 time losses, 0 by the harness.
    assert re.search(r"\nslow +0 +0 +0 +0 +2 +0\n", printed), printed
    assert "the harness's delay on an engine's clock per game: mean " in printed


def _harness_delay(reports: Iterable[MatchReport]) -> dict[str, float | int]:
    """The summary's ``harness_delay`` of these games, added one by one as a run does."""
    from bughouse_arbiter.tournament.runner import _Delays

    delays = _Delays()
    for report in reports:
        delays.add(report)
    return delays.shown()


def test_the_summarys_harness_delay_does_not_depend_on_the_order_games_came_in() -> None:
    # A resumed run gathers its games in another order; plain float sums of
    # these eight delays differ in the mean's last printed digit.
    from bughouse_arbiter.core.model import Result

    delays = [0.075512, 0.040783, 0.000775, 0.055524, 0.119633, 0.176333, 0.165884, 0.102192]
    reports = [
        MatchReport(job_id=f"g{n}", result=Result.DRAW, harness_delay={Seat.A_WHITE: d})
        for n, d in enumerate(delays)
    ]
    forward = _harness_delay(reports)
    backward = _harness_delay(reversed(reports))
    assert forward == backward
    assert forward["mean_ms"] == 92.079 and forward["seat_games"] == 8


def test_the_summarys_harness_delay_is_the_same_for_games_read_back_from_the_journal() -> None:
    # The journal keeps each delay to the microsecond; a run that played these
    # four games holds them whole. Unrounded, their mean is 12.371 ms, read
    # back 12.370 ms: the summary must not change when a run is resumed.
    from bughouse_arbiter.core.model import Result

    delays = [0.010939052, 0.022980173, 0.014489081, 0.001074485]
    played = {
        f"g{n}": MatchReport(
            job_id=f"g{n}",
            result=Result.DRAW,
            harness_delay={Seat.A_WHITE: d},
            harness_delay_max=d / 3,
        )
        for n, d in enumerate(delays)
    }
    read_back = {key: MatchReport.from_dict(r.to_dict()) for key, r in played.items()}
    now = _harness_delay(played.values())
    resumed = _harness_delay(read_back.values())
    assert now == resumed
    assert now == {"seat_games": 4, "mean_ms": 12.37, "max_ms": 22.98, "turn_max_ms": 7.66}
