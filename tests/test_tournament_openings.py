"""Opening books: FEN pairs and BPGN told apart by suffix, by content, or as told."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from cli_checks import expect_usage_error

from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.tournament.openings import book_format, load_book

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
POCKETS = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[Nq] b KQkq - 0 1"
BPGN = (
    '[Event "x"]\n[Result "*"]\n\n1A. e4 {1} 1a. e5 {1} 1B. d4 {1} 1b. d5 {1} '
    "2A. Nf3 {1} 2a. Nc6 {1} *\n"
)


def default_lines() -> str:
    """The shipped book's opening lines, without its comment header."""
    text = resources.files("bughouse_arbiter.tournament").joinpath("data/openings.txt")
    return "".join(
        line + "\n" for line in text.read_text("utf-8").splitlines() if not line.startswith("#")
    )


def test_the_default_books_own_lines_read_as_fen_pairs(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    path.write_text(default_lines())
    assert len(load_book(str(path))) == len(load_book(None))


def test_a_fen_with_a_pocket_on_the_first_line_is_no_tag(tmp_path: Path) -> None:
    path = tmp_path / "book"
    path.write_text(f"{POCKETS} | {START}\n")
    [opening] = load_book(str(path))
    assert opening.fen_a == POCKETS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{POCKETS} | {START}\n", "fen"),
        (f"named [x] | {POCKETS} | {START}\n", "fen"),
        (f"# a header [with brackets]\n\n{START} | {START}\n", "fen"),
        ('[Event "x"]\n1A. e4 *\n', "bpgn"),
        ('\n% escape\n  [Site "FICS"]\n', "bpgn"),
        ("1A. e4 {1} 1a. e5 {1} *\n", "bpgn"),
        ("{a comment first} 1A. e4 *\n", "bpgn"),
        ("", "fen"),
    ],
)
def test_the_format_is_told_from_the_first_line(text: str, expected: str) -> None:
    assert book_format(text) == expected


def test_the_suffix_wins_over_the_content() -> None:
    assert book_format(f"{START} | {START}\n", "book.pgn") == "bpgn"
    assert book_format('[Event "x"]\n', "book.FEN") == "fen"
    assert book_format('[Event "x"]\n', "book.epd") == "fen"
    assert book_format(f"{START} | {START}\n", "book.bpgn") == "bpgn"


def test_an_explicit_format_wins_over_suffix_and_content(tmp_path: Path) -> None:
    path = tmp_path / "book.bpgn"
    path.write_text(f"{POCKETS} | {START}\n")
    [opening] = load_book(str(path), book="fen")
    assert opening.fen_a == POCKETS
    games = tmp_path / "games.txt"
    games.write_text(BPGN)
    assert len(load_book(str(games), plies=4, book="bpgn")) == 1
    with pytest.raises(ConfigError, match=r"line 1: expected 'FEN_A \| FEN_B'"):
        load_book(str(games), book="fen")
    with pytest.raises(ConfigError, match="--openings-format 'xml' is not one of"):
        load_book(str(games), book="xml")


def test_the_tournament_command_takes_openings_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    book = tmp_path.parent / f"{tmp_path.name}-book.txt"
    book.write_text(f"{START} | {START}\n")
    monkeypatch.chdir(tmp_path)
    engines = ["--engine", "a=random", "--engine", "b=random", "--openings", str(book)]
    expect_usage_error(
        "tournament",
        [*engines, "--openings-format", "bpgn"],
        "no game with 8 replayable plies",
        capsys,
        tmp_path,
    )
    with pytest.raises(SystemExit) as exit_:
        from bughouse_arbiter.cli import main

        main(["tournament", *engines, "--openings-format", "xml"])
    assert exit_.value.code == 2
