"""An engine flooding its output spends its own clock, not the other three's
(protocol.md §9): real processes at one table, a flood against a quiet
control run of the same test, so both run under the same load."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.core.model import Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.native import NativeEnginePlayer
from bughouse_arbiter.players.process import open_engine_process
from bughouse_arbiter.table.arbiter import run_match

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "engines" / "hostile.py"
FLOODER = Seat.A_WHITE
PLIES = 60
#: How much more harness delay per move the others may get at a flooder's
#: table, at the median and the third quartile of their turns (a loaded
#: machine's hiccups move the mean and the top turns, in either run).
SLACK = (0.003, 0.005)


class Measured(NativeEnginePlayer):
    """A native player that keeps the harness delay of each of its turns."""

    def __init__(self, seat: Seat, mode: str, turns: list[float]) -> None:
        command = [sys.executable, str(HOSTILE), mode, "--marker", "test-flood"]
        super().__init__(seat, command, name=seat.slug)
        self.turns = turns

    def harness_delay(
        self, seat: Seat, token: int, opened_at: float, ended_at: float
    ) -> float | None:
        delay = super().harness_delay(seat, token, opened_at, ended_at)
        if delay is not None:
            self.turns.append(delay)
        return delay


async def others_delay(mode: str) -> list[float]:
    """The others' harness delay per move at a table where A-White runs ``mode``
    (a game or more: random movers may mate early)."""
    turns: list[float] = []
    for _ in range(4):
        players = [
            Measured(seat, mode if seat is FLOODER else "normal", [] if seat is FLOODER else turns)
            for seat in Seat
        ]
        with trio.fail_after(60):
            record = await run_match(players, HouseRules(time=60.0, max_plies=PLIES))
        assert record.outcome.termination not in (Termination.FLAG, Termination.LEFT)
        if len(turns) >= PLIES // 2:
            break
    return turns


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["ignored-flood", "info-flood"])
async def test_a_flooder_does_not_charge_the_other_engines(mode: str) -> None:
    quiet = await others_delay("normal")
    flooded = await others_delay(mode)
    # Before the read budget: 50-60 ms a move more at both.
    for slack, at_quiet, at_flood in zip(SLACK, quartiles(quiet), quartiles(flooded), strict=True):
        assert at_flood <= at_quiet + slack, (quartiles(quiet), quartiles(flooded))


def quartiles(turns: list[float]) -> tuple[float, float]:
    """The median and the third quartile."""
    _, median, third = statistics.quantiles(turns, n=4)
    return median, third


STDERR_FLOOD = """
import sys
for i in range(20):
    sys.stderr.write("".join(f"noise {i} {j}\\n" for j in range(10000)))
sys.stderr.write("last words\\n")
sys.stderr.flush()
sys.stdin.read()
"""


@pytest.mark.slow
async def test_past_a_stderr_flood_its_last_words_are_kept_and_the_rest_counted() -> None:
    log: list[str] = []
    command = [sys.executable, "-c", STDERR_FLOOD]
    async with open_engine_process(command, label="WA", log=log.append) as engine:
        with trio.fail_after(30):
            while list(engine.stderr_tail)[-1:] != ["last words"]:
                await trio.sleep(0.01)
    assert 0 < engine.stderr_dropped < 200_000
    assert len([line for line in log if line.startswith("WA !")]) + engine.stderr_dropped < 200_001
    assert [line for line in log if "dropped unread" in line] == [
        f"WA : stderr over 50 lines in 10 ms: lines that cannot matter are dropped unread"
        f" from now on ({_first_drop(log)} so far; the total comes at the end of output)",
        f"WA : {engine.stderr_dropped} stderr lines dropped unread (a flood)",
    ]


def _first_drop(log: list[str]) -> str:
    note = next(line for line in log if "so far; the total" in line)
    return note.split("(")[1].split()[0]
