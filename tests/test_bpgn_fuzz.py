"""Byte-level mutations of the corpus files: the reader, the replay and
``replay --check`` answer every one without a traceback.

The budget is bounded (a fixed number of examples on slices of at most a
few KB) so that the test runs in seconds in CI.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughouse_arbiter.bpgn import read as bpgn_read
from bughouse_arbiter.bpgn.read import iter_games, read_games
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
