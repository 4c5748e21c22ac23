"""Byte-level mutations of the corpus files: the reader, the replay and
``replay --check`` answer every one without a traceback.

The budget is bounded (a fixed number of examples on slices of at most a
few KB) so that the test runs in seconds in CI.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughouse_arbiter.bpgn import read as bpgn_read
from bughouse_arbiter.bpgn.read import BpgnGame, iter_games, read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.commands.replay import check, describe

CORPUS = sorted((Path(__file__).parent / "data" / "corpus").glob("*.bpgn"))
SAMPLES = [path.read_bytes() for path in CORPUS]
#: Bytes that matter to the reader, tried more often than the others.
SPECIAL = b'{}[]()";%\\\r\n\t .0123456789ABab@=+#-/*$\x00\x1b\xff\xc3'
WINDOW = 3000


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = draw(st.sampled_from(SAMPLES))
    start = draw(st.integers(0, max(0, len(data) - WINDOW)))
    data = bytearray(data[start : start + draw(st.integers(1, WINDOW))])
    for _ in range(draw(st.integers(1, 12))):
        if not data:
            data = bytearray(b"{")
        at = draw(st.integers(0, len(data) - 1))
        byte = draw(st.one_of(st.sampled_from(list(SPECIAL)), st.integers(0, 255)))
        kind = draw(st.sampled_from(["replace", "insert", "delete", "repeat", "cut"]))
        if kind == "replace":
            data[at] = byte
        elif kind == "insert":
            data.insert(at, byte)
        elif kind == "delete":
            del data[at]
        elif kind == "repeat":
            end = min(len(data), at + draw(st.integers(1, 40)))
            data[at:at] = data[at:end] * draw(st.integers(1, 5))
        else:
            del data[at : at + draw(st.integers(1, 200))]
    return bytes(data)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=mutated(), chunk=st.sampled_from([5, 97, 4096]))
def test_mutated_corpus_reads_replays_and_checks_without_a_traceback(
    data: bytes, chunk: int
) -> None:
    games = read_games(data, file="fuzz")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bpgn_read, "CHUNK", chunk)
        assert list(iter_games(io.BytesIO(data), file="fuzz")) == games
    for game in games:
        report = replay_game(game, frames=True)
        assert len(report.frames) in (0, report.replayed + 1)  # 0: no start position
        assert all(isinstance(line, str) for line in describe(report, "fuzz"))


def test_check_reports_a_mutated_file_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "broken.bpgn"
    data = bytearray(SAMPLES[0])
    data[100:100] = b"}}}{[%tell ZZ 1e999] \x1b" + bytes(range(256))
    path.write_bytes(bytes(data))
    out = io.StringIO()
    assert check([str(path)], [], strict=True, out=out) in (0, 1)
    assert out.getvalue().splitlines()[-1].startswith("checked ")


#: The reader's token pattern with the clock comment never read as part of
#: its move token: each clock is then read as a comment token of its own.
_UNFUSED = re.compile(
    bpgn_read._TOKEN.pattern.replace(r"(?:[ \t\r\n\f\v]*\{\s*(?P<mclock>", r"(?:(?!)(?P<mclock>"),
    bpgn_read._TOKEN.flags,
)


def _read_unfused(data: bytes) -> list[BpgnGame]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bpgn_read, "_TOKEN", _UNFUSED)
        return read_games(data, file="f")


def test_the_unfused_pattern_differs_only_in_the_clock_comment() -> None:
    assert _UNFUSED.pattern != bpgn_read._TOKEN.pattern
    assert bpgn_read._TOKEN.match("1A. e4 {12.5}").group("mclock") == "12.5"  # type: ignore[union-attr]
    assert _UNFUSED.match("1A. e4 {12.5}").group("mclock") is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "movetext",
    [
        "1A. e4 {12.5} 1a. e5{-3} 1B. d4\n{ 7 } 1b. d5 {7.} 2A. Nf3 {7 [%ts 1.5]} *",
        "1A. e4 {12.5} {second} 1a. e5 {x} {9} 2A. Nf3 {1234567.123456} 2a. Nc6 {12345678} *",
        "1A. e4 ( 1A. d4 {5} ) {6} 1a. e5 {\n 8\n} *",
    ],
)
def test_a_clock_read_with_its_move_is_read_as_a_comment_after_it(movetext: str) -> None:
    data = f'[Event "x"]\n\n{movetext}\n'.encode()
    assert read_games(data, file="f") == _read_unfused(data)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_the_corpus_reads_the_same_with_clocks_read_apart(path: Path) -> None:
    data = path.read_bytes()
    assert read_games(data, file="f") == _read_unfused(data)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=mutated())
def test_mutated_files_read_the_same_with_clocks_read_apart(data: bytes) -> None:
    assert read_games(data, file="f") == _read_unfused(data)
