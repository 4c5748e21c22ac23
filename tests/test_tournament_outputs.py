"""What a tournament writes besides ``games.bpgn``: tags of the author's own
(``--tag``), one file per game (``--game-files``), the games' last positions
(``--final-positions``) and the book's CRC-32, printed and recorded."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from cli_checks import expect_usage_error
from test_tournament_rotation import _jobs

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.cli import main
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.tournament import journal
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.openings import book_identity, load_book

TWO = ["--engine", "a=random", "--engine", "b=random"]
MIDDLE = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3"


def _played(job: MatchJob, *, fens: tuple[str, ...] = (STARTING_FEN, MIDDLE)) -> MatchReport:
    return MatchReport(
        job_id=job.job_id,
        result=Result.DRAW,
        bpgn=f'[Event "t"]\n[Round "{job.number}"]\n\n*\n',
        final_fens=fens,
    )


# -- --tag -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        (["Engine"], "--tag 'Engine' is not NAME=VALUE"),
        (["1st=x"], "--tag '1st=x' is not NAME=VALUE"),
        (["with space=x"], "is not NAME=VALUE"),
        (["Event=mine"], "--tag Event: the games have a [Event] tag of their own"),
        (["whitea=x"], "--tag whitea: the games have a [whitea] tag of their own"),
        (["WhiteAEngineOptions=x"], "the games have a [WhiteAEngineOptions] tag"),
        (["Team1=x"], "--tag Team1: the games have a [Team1] tag of their own"),
        (["TimeMargin=5"], "the games have a [TimeMargin] tag"),
        (["Build=1", "build=2"], "--tag build is given twice"),
        (["Build=" + "x" * 1001], "a value is one line of at most 1000 characters"),
        (["Build=a\nb"], "a value is one line"),
    ],
)
def test_bad_tags_exit_2_with_one_line(
    tags: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [*TWO, *(item for tag in tags for item in ("--tag", tag))]
    expect_usage_error("tournament", argv, message, capsys, tmp_path)


# -- one file per game, the last positions -----------------------------------------------------


def test_each_game_journaled_also_gets_a_file_of_its_own(tmp_path: Path) -> None:
    jobs = _jobs()[:3]
    kept = journal.Journal(tmp_path, game_files=True)
    kept.open()
    kept.append_all([(job, _played(job)) for job in jobs[:2]])
    kept.append(jobs[2], _played(jobs[2]))
    kept.close()
    files = sorted(p.name for p in (tmp_path / journal.GAME_FILES).iterdir())
    assert files == ["game-1.bpgn", "game-2.bpgn", "game-3.bpgn"]
    [game] = read_games((tmp_path / journal.GAME_FILES / "game-2.bpgn").read_text())
    assert game.tag("Round") == "2"
    plain = journal.Journal(tmp_path / "plain")
    (tmp_path / "plain").mkdir()
    plain.open()
    plain.append(jobs[0], _played(jobs[0]))
    plain.close()
    assert not (tmp_path / "plain" / journal.GAME_FILES).exists()


def test_the_last_positions_are_a_book_of_position_pairs(tmp_path: Path) -> None:
    jobs = _jobs()[:3]
    games = [
        (jobs[0], _played(jobs[0])),
        (jobs[1], _played(jobs[1], fens=())),
        (jobs[2], _played(jobs[2])),
    ]
    assert journal.write_final_positions(tmp_path, games) == 2  # an older journal's game has none
    lines = (tmp_path / journal.FINAL_POSITIONS).read_text().splitlines()
    assert lines == [f"game-1 | {STARTING_FEN} | {MIDDLE}", f"game-3 | {STARTING_FEN} | {MIDDLE}"]
    book = load_book(str(tmp_path / journal.FINAL_POSITIONS))
    assert [(o.name, o.fen_b) for o in book] == [("game-1", MIDDLE), ("game-3", MIDDLE)]


def test_the_last_positions_go_through_the_journal() -> None:
    report = _played(_jobs()[0])
    assert MatchReport.from_dict(report.to_dict()).final_fens == (STARTING_FEN, MIDDLE)
    older = {k: v for k, v in report.to_dict().items() if k != "final_fens"}
    assert MatchReport.from_dict(older).final_fens == ()
    for bad in (["one"], "a | b", [STARTING_FEN, 3], [STARTING_FEN, "x\ny"]):
        with pytest.raises(TypeError):
            MatchReport.from_dict({**report.to_dict(), "final_fens": bad})


# -- the book's CRC ------------------------------------------------------------------------------


def test_a_book_is_named_with_the_crc32_of_its_bytes(tmp_path: Path) -> None:
    book = tmp_path / "book.fen"
    book.write_bytes(f"{MIDDLE}\n".encode())
    identity = book_identity(str(book), 1)
    assert identity.crc32 == zlib.crc32(book.read_bytes())
    assert identity.text == f"{book}: 1 openings, CRC32 {zlib.crc32(book.read_bytes()):08x}"
    assert identity.as_dict()["crc32"] == f"{identity.crc32:08x}"
    default = book_identity(None, 5)
    assert default.file == "default book" and default.crc32 != 0
    with pytest.raises(ConfigError, match="--openings"):
        book_identity(str(tmp_path / "gone.fen"), 1)


# -- end to end ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_run_writes_its_tags_game_files_last_positions_and_book_crc(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "book.fen"
    book.write_text(f"{STARTING_FEN}\n")
    out = tmp_path / "t"
    argv = [
        "tournament", *TWO, "--games", "2", "--tc", "5+0", "--rule", "max_plies=30",
        "--openings", str(book), "--tag", "Build=abc123", "--tag", "Tester=me",
        "--game-files", "--final-positions", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 0
    crc = f"{zlib.crc32(book.read_bytes()):08x}"
    assert f"book {book}: 1 openings, CRC32 {crc}" in capsys.readouterr().out
    games = read_games((out / "games.bpgn").read_text())
    assert [(g.tag("Build"), g.tag("Tester")) for g in games] == [("abc123", "me")] * 2
    for number in (1, 2):
        [own] = read_games((out / "games" / f"game-{number}.bpgn").read_text())
        assert own.tag("Round") == str(number) and own.tag("Build") == "abc123"
    positions = load_book(str(out / "final.epd"))
    assert [o.name for o in positions] == ["game-1", "game-2"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["book"] == {"file": str(book), "openings": 1, "crc32": crc}
    # The book changed under a resumed run: said in one warning line.
    book.write_text(f"{MIDDLE}\n")
    assert main(["tournament", "--resume", str(out), "--games", "4"]) == 0
    err = capsys.readouterr().err
    assert f"has changed since the run started (CRC32 {crc}, now " in err
    assert len(load_book(str(out / "final.epd"))) == 4
    assert sorted(p.name for p in (out / "games").iterdir()) == [
        f"game-{n}.bpgn" for n in (1, 2, 3, 4)
    ]
