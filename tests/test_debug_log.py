"""``--debug`` logs are capped in size and rate, with a note of what was
dropped: the rules under trio's MockClock, then a flooding engine's log."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.core.model import Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.capped_log import CappedLog
from bughouse_arbiter.players.debug_logs import DebugLogs
from bughouse_arbiter.players.native import NativeEnginePlayer
from bughouse_arbiter.table.arbiter import run_match

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "engines" / "hostile.py"
LINE = "x" * 90  # 100 bytes a line in the log: 8 digits, a space, the text, LF


def hostile(mode: str) -> list[str]:
    return [sys.executable, str(HOSTILE), mode, "--delay", "25", "--marker", "test-debug-log"]


def lines_of(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


async def test_lines_over_the_rate_are_dropped_and_counted_where_writing_resumes(
    autojump_clock: object,
) -> None:
    stream = io.StringIO()
    log = CappedLog(stream, rate=1000, burst=2000, max_bytes=10**6)
    for _ in range(100):
        log(LINE)
    assert len(lines_of(stream)) == 20 and log.dropped_lines == 80
    await trio.sleep(1.0)  # room for ten more
    for _ in range(12):
        log(LINE)
    assert lines_of(stream)[20:] == [
        "    1000 -- log: over 1000 B/s: 80 lines (7.81 KB) dropped",
        *[f"    1000 {LINE}"] * 10,
    ]
    log.close()
    assert lines_of(stream)[-2:] == [
        "    1000 -- log: over 1000 B/s: 2 lines (200 B) dropped",
        "    1000 -- log: in all 82 lines (8.01 KB) were dropped",
    ]


async def test_a_log_stops_at_its_size_cap_and_says_so(autojump_clock: object) -> None:
    stream = io.StringIO()
    log = CappedLog(stream, rate=10**9, burst=10**9, max_bytes=1000)
    for _ in range(30):
        log(LINE)
        await trio.sleep(0.001)
    log.close()
    written = lines_of(stream)
    assert written[:10] == [f"{ms:>8} {LINE}" for ms in range(10)]
    assert written[10:] == [
        "      10 -- log: the log reached its cap of 1000 B; the rest is dropped",
        "      30 -- log: after the cap: 20 lines (1.95 KB) dropped",
        "      30 -- log: in all 20 lines (1.95 KB) were dropped",
    ]
    assert log.written == len(stream.getvalue())


async def test_a_quiet_log_has_no_notes(autojump_clock: object) -> None:
    stream = io.StringIO()
    log = CappedLog(stream)
    log("WA > bugok")
    log.close()
    assert lines_of(stream) == ["       0 WA > bugok"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["ignored-flood", "stderr-flood"])
async def test_a_flooding_engines_debug_log_stays_within_its_caps(
    tmp_path: Path, mode: str
) -> None:
    logs = DebugLogs(tmp_path / "flood.bpgn", 1)
    players = [
        NativeEnginePlayer(
            seat,
            hostile(mode if seat is Seat.A_WHITE else "normal"),
            log=logs.for_seat(seat),
        )
        for seat in Seat
    ]
    started = trio.current_time()
    try:
        with trio.fail_after(60):
            record = await run_match(players, HouseRules(time=60.0, max_plies=80))
    finally:
        logs.close()
    took = trio.current_time() - started
    assert record.outcome.termination is Termination.MAX_PLIES
    path = logs.path(Seat.A_WHITE)
    size = path.stat().st_size
    # Within a burst of 1 MB and 256 KB a second (unbounded, it grew 3 MB a second),
    # and it says how much was dropped: by the reader (a flood past its read
    # budget is not even read) or by the log itself.
    assert size <= 1024 * 1024 + 256 * 1024 * took + 4096, (size, took)
    stream = "stderr" if mode == "stderr-flood" else "output"
    text = path.read_text()
    dropped = re.findall(rf"WA : ([0-9]+) {stream} lines dropped unread \(a flood\)", text)
    said = re.findall(r"-- log: in all ([0-9]+) lines", text)
    assert dropped or said
    assert int((dropped or said)[0]) > 10_000
