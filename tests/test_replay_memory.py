"""Memory of ``bughouse replay`` on one huge game: flat for ``--check``, the
moves plus keyframes for stepping, a capped page for ``--html``; and the
parts a long game is read in replay as the whole game does.

Peak memory is the ``ru_maxrss`` of a child process (``os.wait4``); the
bounds are on how it grows with the game, with wide margins, never on time.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from cli_checks import BUGHOUSE

from bughouse_arbiter.bpgn import read as bpgn_read
from bughouse_arbiter.bpgn.frames import Frames
from bughouse_arbiter.bpgn.read import iter_game_parts, iter_games, read_games
from bughouse_arbiter.bpgn.replay import replay_game, replay_games
from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.replay import describe
from bughouse_arbiter.web import replay_page
from tests.huge_game import huge_game, write_huge_game

CORPUS = Path(__file__).parent / "data" / "corpus"
MB = 1_000_000


# Runs the command given and writes its peak RSS (KiB on Linux) to argv[1].
_MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(done.returncode)
"""


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    folder = tmp_path_factory.mktemp("huge")
    return {
        name: (folder / f"{name}.bpgn", write_huge_game(folder / f"{name}.bpgn", size, clocks=True))
        for name, size in (("1mb", MB), ("4mb", 4 * MB))
    }


@pytest.fixture(scope="module")
def check_peaks(games: dict[str, tuple[Path, int]]) -> dict[str, int]:
    peaks = {}
    for name, (path, plies) in games.items():
        status, peak, out = _run(["--check", str(path)])
        assert status == 0, out
        assert f"1 passed, 0 failed; {plies} moves replayed" in out
        peaks[name] = peak
    return peaks


def _run(args: list[str], stdin: bytes = b"") -> tuple[int, int, str]:
    """(exit status, peak RSS in bytes, output) of ``bughouse replay ARGS`` in a child."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = Path(folder) / "peak"
        command = [*BUGHOUSE, "replay", *args]
        done = subprocess.run(
            [sys.executable, "-c", _MEASURE, str(peak_file), *command],
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=300,
        )
        peak = int(peak_file.read_text()) * 1024
    return done.returncode, peak, done.stdout.decode("utf-8", "replace")


@pytest.mark.slow
def test_check_memory_is_flat_in_the_length_of_a_game(check_peaks: dict[str, int]) -> None:
    # Four times the game, 3 MB more file: before, the peak grew by about
    # 20 bytes of memory a byte of file (about 60 MB here); now it stays put.
    grown = check_peaks["4mb"] - check_peaks["1mb"]
    assert grown < 16 * 2**20, f"--check peak grew {grown / 2**20:.1f} MiB for 3 MB more game"


@pytest.mark.slow
def test_stepping_to_the_last_ply_of_a_huge_game_keeps_only_moves_and_keyframes(
    games: dict[str, tuple[Path, int]], check_peaks: dict[str, int]
) -> None:
    path, plies = games["1mb"]
    status, peak, out = _run([str(path), "--no-color"], stdin=b"e\nb\nq\n")
    assert status == 0, out[-500:]
    assert f"ply {plies}/{plies}]" in out
    assert f"ply {plies - 1}/{plies}]" in out
    assert f"after {plies // 4}b. N" in out and f"(ply {plies}) at {(plies - 1) / 10:.3f} s" in out
    # Before: a frame of FENs, pockets and dicts per ply, about 100 bytes of
    # memory a byte of file; now the moves and a keyframe every 256 plies.
    extra = peak - check_peaks["1mb"]
    assert extra < 25 * MB, f"stepping took {extra / 2**20:.1f} MiB more than --check"


@pytest.mark.slow
def test_the_page_of_a_huge_game_is_capped_and_says_so(
    games: dict[str, tuple[Path, int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(replay_page, "MAX_PLIES", 300)
    path, plies = games["1mb"]
    page = tmp_path / "game.html"
    assert main(["replay", str(path), "--html", str(page)]) == 0
    captured = capsys.readouterr()
    said = f"This page shows plies 0 to 300 of {plies}"
    assert said in captured.err
    assert f"the last {plies - 300} are left out" in captured.err
    text = page.read_text(encoding="utf-8")
    assert f'<p id="notice">{said}' in text
    assert f"the page ends here, at ply 300 of {plies}" in text
    assert text.count('"label":') == 300  # frames 1 to 300 name their move
    assert len(text) < 600_000


def test_a_short_page_has_no_notice(tmp_path: Path) -> None:
    game = read_games(huge_game(2000))[0]
    report = replay_game(game, frames=True)
    assert replay_page.notice(report) == ""
    assert 'id="notice"' not in replay_page.replay_page(report)


def test_a_game_read_in_parts_is_the_game_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\n\n".join(path.read_bytes() for path in sorted(CORPUS.glob("*.bpgn")))
    whole = list(iter_games(io.BytesIO(data)))
    monkeypatch.setattr(bpgn_read, "CHUNK", 1 << 10)
    monkeypatch.setattr(bpgn_read, "PART", 7)
    parts = list(iter_game_parts(io.BytesIO(data)))
    assert sum(part.partial for part in parts) > len(whole)  # long games came in parts
    for game in whole:
        pieces = [part for part in parts if part.number == game.number]
        assert [p.partial for p in pieces] == [True] * (len(pieces) - 1) + [False]
        last = pieces[-1]
        assert [m for p in pieces for m in p.moves] == list(game.moves)
        assert [m for p in pieces for m in p.messages] == list(game.messages)
        assert [e for p in pieces for e in p.board_ends] == list(game.board_ends)
        assert (last.closing, last.result_token, last.problems, last.tags) == (
            game.closing,
            game.result_token,
            game.problems,
            game.tags,
        )


@pytest.mark.slow
def test_check_judges_parts_as_it_judges_whole_games(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"\n\n".join(path.read_bytes() for path in sorted(CORPUS.glob("*.bpgn")))
    whole = [describe(replay_game(game), "f") for game in iter_games(io.BytesIO(data))]
    monkeypatch.setattr(bpgn_read, "CHUNK", 1 << 10)
    monkeypatch.setattr(bpgn_read, "PART", 7)
    streamed = [describe(report, "f") for report in replay_games(iter_game_parts(io.BytesIO(data)))]
    assert streamed == whole


@pytest.mark.slow
def test_frames_rebuilt_from_keyframes_are_the_frames_of_every_ply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = [g for path in sorted(CORPUS.glob("*.bpgn")) for g in read_games(path.read_bytes())]
    original = Frames.__init__
    monkeypatch.setattr(Frames, "__init__", _keyframes_every(original, 1))
    every_ply = [replay_game(game, frames=True).frames for game in games[::6]]
    monkeypatch.setattr(Frames, "__init__", _keyframes_every(original, 7))
    sparse = [replay_game(game, frames=True).frames for game in games[::6]]
    compared = 0
    for full, few in zip(every_ply, sparse, strict=True):
        assert len(full) == len(few)
        assert list(few) == list(full)  # walking forward
        for ply in (len(few) - 1, 3, 0, len(few) // 2, len(few) // 2 + 1, 1):
            if ply < len(few):
                assert few[ply] == full[ply]  # jumping about
                compared += 1
    assert compared > 100


def _keyframes_every(original: Any, every: int) -> Any:
    def init(self: Frames, *args: object, **kwargs: object) -> None:
        kwargs["every"] = every
        original(self, *args, **kwargs)

    return init
