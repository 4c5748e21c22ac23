"""One engine's read budget (protocol.flood): within it every line is read;
past it only the lines that can matter, the rest dropped and counted; past
its bytes the reader waits for the next slice."""

from __future__ import annotations

from bughouse_arbiter.adapters.uci import UciAdapter
from bughouse_arbiter.adapters.xboard import XboardAdapter
from bughouse_arbiter.protocol.flood import NATIVE_KEEP, ReadBudget, keep_lines
from bughouse_arbiter.protocol.session import LineBuffer

NOISE = b"not a protocol line\n"


def budget(**kwargs: int) -> ReadBudget:
    return ReadBudget(LineBuffer(100), NATIVE_KEEP, **kwargs)  # type: ignore[arg-type]


def texts(budget: ReadBudget, data: bytes, now: float = 0.0) -> list[str]:
    return [line.text for line in budget.take(data, now)]


def test_within_the_budget_every_line_is_read_and_partial_lines_are_kept() -> None:
    reader = budget(lines=5)
    assert texts(reader, b"info 1\nhello\nbest") == ["info 1", "hello"]
    assert texts(reader, b"move e2e4 turn 1\r\n") == ["bestmove e2e4 turn 1"]
    assert reader.dropped == 0 and not reader.scanned and reader.resume_at is None


def test_past_the_budget_only_the_lines_that_matter_are_read() -> None:
    reader = budget(lines=3)
    data = (
        b"end of a line\n"
        + NOISE * 50
        + b"info depth 3 score cp 1\n"
        + NOISE * 5
        + b"info depth 4 score cp 2\n"
        + NOISE * 5
        + b"  bestmove e2e4 turn 7\n"
        + b"informal\n"
        + b"readyok\n"
        + NOISE * 5
        + b"bestmoves are not a keyword\n"
        + b"draw offer\nwai"
    )
    # The first line (it may end one begun earlier), the last info before the
    # move, the move, what else matters; the partial line waits for its end.
    assert texts(reader, data) == [
        "end of a line",
        "info depth 4 score cp 2",
        "  bestmove e2e4 turn 7",
        "readyok",
        "draw offer",
    ]
    assert reader.scanned
    assert reader.dropped == 50 + 1 + 5 + 5 + 1 + 5 + 1
    assert texts(reader, b"t turn 8\n") == ["wait turn 8"]  # still past it: kept


def test_the_budget_is_per_slice() -> None:
    reader = budget(lines=3)
    assert texts(reader, NOISE * 4, now=0.0) == ["not a protocol line"]  # a read's first
    assert reader.dropped == 3
    assert texts(reader, NOISE * 3, now=0.011) == ["not a protocol line"] * 3
    assert reader.dropped == 3


def test_past_its_bytes_the_reader_waits_for_the_next_slice() -> None:
    reader = budget(size=100)
    reader.take(NOISE * 4, 1.0)
    assert reader.resume_at is None
    reader.take(NOISE * 2, 1.004)
    assert reader.resume_at == 1.01
    reader.take(NOISE, 1.01)  # a new slice
    assert reader.resume_at is None


def test_one_read_keeps_the_first_and_the_last_lines_that_matter() -> None:
    reader = budget(lines=1, kept=4)
    data = b"x\n" + b"".join(b"ptell %d\n" % i for i in range(100)) + b"bestmove a1a2 turn 3\n"
    assert texts(reader, data) == ["x", "ptell 0", "ptell 1", "ptell 99", "bestmove a1a2 turn 3"]
    assert reader.dropped == 97


def test_an_over_long_line_that_matters_is_still_marked() -> None:
    reader = budget(lines=1)
    lines = reader.take(b"x\n" + NOISE * 3 + b"bestmove " + b"e" * 200 + b"\n", 0.0)
    assert lines[-1].overlong and lines[-1].length == 209


def test_without_lines_that_matter_every_line_is_read_at_a_pace() -> None:
    reader = ReadBudget(LineBuffer(), None, lines=10)
    assert len(reader.take(NOISE * 40, 2.0)) == 40
    assert reader.dropped == 0
    assert reader.resume_at == 2.0 + 0.01 * 40 / 10  # the time 40 lines take of the budget


def test_a_keep_of_no_words_keeps_nothing() -> None:
    reader = ReadBudget(LineBuffer(), keep_lines(()), lines=1)
    assert texts(reader, b"a\nbestmove x turn 1\nb\nc\n") == ["a"]
    assert reader.dropped == 3


def test_the_adapters_keep_what_they_act_on() -> None:
    uci = ReadBudget(LineBuffer(), UciAdapter.KEEP, lines=1)
    data = b"x\n" + NOISE * 3 + b"info depth 9 score cp 3\nbestmove e2e4 ponder e7e5\nuciok\n"
    kept = ["x", "info depth 9 score cp 3", "bestmove e2e4 ponder e7e5", "uciok"]
    assert texts(uci, data) == kept
    xboard = ReadBudget(LineBuffer(), XboardAdapter.KEEP, lines=1)
    data = (
        b"x\n" + NOISE * 3 + b"12 35 100 9999 e2e4\nSjeng: Sjeng: move e2e4\n"
        b"1-0 {White mates}\noffer draw\npong 3\nIllegal move: x\n"
    )
    assert texts(xboard, data) == [
        "x",
        "Sjeng: Sjeng: move e2e4",
        "1-0 {White mates}",
        "offer draw",
        "pong 3",
        "Illegal move: x",
    ]
