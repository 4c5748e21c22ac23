"""Opening books: BPGN, PGN, EPD and FEN told apart by suffix, by content, or as
told; read as move sequences where they are moves; ordered and begun where told."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from cli_checks import expect_usage_error

from bughouse_arbiter.cli import build_parser
from bughouse_arbiter.commands.tournament import plan_from_args
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.tournament.openings import (
    Opening,
    book_format,
    format_book,
    load_book,
    ordered,
)

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
POCKETS = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[Nq] b KQkq - 0 1"
BPGN = (
    '[Event "x"]\n[Result "*"]\n\n1A. e4 {1} 1a. e5 {1} 1B. d4 {1} 1b. d5 {1} '
    "2A. Nf3 {1} 2a. Nc6 {1} *\n"
)
#: A chess game whose third move captures: the pawn goes to the partner board.
PGN = (
    '[Event "?"]\n[Opening "Scandinavian"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 *\n\n'
    '[Event "?"]\n\n1. d4 *\n'
)
SICILIAN_EPD = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"Sicilian\";"


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def test_the_default_book_is_move_sequences_and_reads_back_as_a_bpgn_file(
    tmp_path: Path,
) -> None:
    text = resources.files("bughouse_arbiter.tournament").joinpath("data/openings.bpgn")
    book = load_book(None)
    assert len(book) >= 50 and all(o.moves and not o.set_up for o in book)
    again = load_book(write(tmp_path, "book.bpgn", text.read_text("utf-8")))
    assert again == book
    assert load_book(write(tmp_path, "written.bpgn", format_book(book))) == book


def test_bpgn_openings_are_the_first_plies_of_both_boards_in_their_order(tmp_path: Path) -> None:
    [opening] = load_book(write(tmp_path, "b.bpgn", BPGN), plies=5)
    assert opening.moves == (
        (Seat.A_WHITE, "e2e4"),
        (Seat.A_BLACK, "e7e5"),
        (Seat.B_WHITE, "d2d4"),
        (Seat.B_BLACK, "d7d5"),
        (Seat.A_WHITE, "g1f3"),
    )
    assert not opening.set_up
    with pytest.raises(ConfigError, match="no BPGN game with 8 replayable plies"):
        load_book(write(tmp_path, "c.bpgn", BPGN))  # 8 plies by default: 6 are too few


def test_a_pgn_game_is_played_on_both_boards_and_its_captures_fill_the_pockets(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "chess.pgn", PGN)
    scandinavian, queens_pawn = load_book(path)
    assert scandinavian.name == "Scandinavian" and queens_pawn.name == "chess.pgn#2"
    assert [seat for seat, _ in scandinavian.moves[:4]] == [
        Seat.A_WHITE, Seat.B_WHITE, Seat.A_BLACK, Seat.B_BLACK
    ]  # fmt: skip
    assert len(scandinavian.moves) == 10
    game = scandinavian.game()
    # exd5 on A gave B-Black a pawn, Qxd5 on B gave A-White one (and the reverse).
    assert game.fen(BoardId.A).startswith("rnb1kbnr/ppp1pppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR[Pp] b")
    assert game.fen(BoardId.A) == game.fen(BoardId.B)
    [cut] = load_book(path, plies=2)  # the chess game's plies, on each board
    assert [move for _, move in cut.moves] == ["e2e4", "e2e4", "d7d5", "d7d5"]
    assert load_book(path, plies=3)[0].moves[-1] == (Seat.B_WHITE, "e4d5")


def test_epd_and_fen_lines_are_one_position_for_both_boards_or_a_pair(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "book.epd",
        f"# a comment\n{SICILIAN_EPD}\n{POCKETS} | {START}\nnamed | {START} | {POCKETS}\n"
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n",
    )
    sicilian, pair, named, fen = load_book(path)
    assert sicilian.name == "Sicilian" and sicilian.fen_a == sicilian.fen_b
    assert sicilian.fen_a == "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 1"
    assert (pair.fen_a, pair.fen_b, pair.name) == (POCKETS, STARTING_FEN, "book.epd:3")
    assert named.name == "named" and named.fen_b == POCKETS
    assert fen.fen_a.startswith("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR[] b")
    assert all(o.set_up and not o.moves for o in (sicilian, pair, named, fen))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"{POCKETS} | {START}\n", "fen"),
        (f"named [x] | {POCKETS} | {START}\n", "fen"),
        (f"# a header [with brackets]\n\n{START} | {START}\n", "fen"),
        (f"{SICILIAN_EPD}\n", "fen"),
        ('[Event "x"]\n1A. e4 *\n', "bpgn"),
        ('\n% escape\n  [WhiteA "FICS"]\n', "bpgn"),
        ("1A. e4 {1} 1a. e5 {1} *\n", "bpgn"),
        ("{a comment first} 1A. e4 *\n", "bpgn"),
        ('[Event "x"]\n\n1. e4 e5 *\n', "pgn"),
        ("1. d4 d5 2. c4 *\n", "pgn"),
        ("", "fen"),
    ],
)
def test_the_format_is_told_from_the_content(text: str, expected: str) -> None:
    assert book_format(text) == expected


def test_the_suffix_wins_over_the_content_and_pgn_is_told_from_bpgn() -> None:
    assert book_format(f"{START} | {START}\n", "book.pgn") == "pgn"
    assert book_format(BPGN, "book.pgn") == "bpgn"
    assert book_format('[Event "x"]\n', "book.FEN") == "fen"
    assert book_format('[Event "x"]\n', "book.epd") == "epd"
    assert book_format(f"{START} | {START}\n", "book.bpgn") == "bpgn"


def test_an_explicit_format_wins_over_suffix_and_content(tmp_path: Path) -> None:
    path = write(tmp_path, "book.bpgn", f"{POCKETS} | {START}\n")
    [opening] = load_book(path, book="fen")
    assert opening.fen_a == POCKETS
    games = write(tmp_path, "games.txt", BPGN)
    assert len(load_book(games, plies=4, book="bpgn")) == 1
    assert len(load_book(write(tmp_path, "chess.txt", PGN), book="pgn")) == 2
    with pytest.raises(ConfigError, match=r"games\.txt line 1: not a bughouse position"):
        load_book(games, book="epd")
    with pytest.raises(ConfigError, match="--openings-format 'xml' is not one of"):
        load_book(games, book="xml")


@pytest.mark.parametrize(
    ("name", "text", "argv", "message"),
    [
        ("b.txt", f"{START} | {START}\n", ["--openings-format", "bpgn"],
         "no BPGN game with 8 replayable plies"),
        ("b.pgn", "1. e4 *\n", ["--opening-plies", "4"],
         "no chess game with 4 plies that both boards can play"),
        ("b.epd", "rnbqkbnr/pppppppp/8/8 w KQkq -\n", [],
         "b.epd line 1: not a bughouse position"),
        ("b.fen", f"{START} | {START} | {START} | {START}\n", [], "b.fen line 1: expected"),
        ("b.fen", f"{START}\n", ["--opening-start", "2"],
         "--opening-start 2: the book has 1 openings (give 1 to 1)"),
        ("b.fen", f"{START}\n", ["--opening-start", "0"], "--opening-start must be at least 1"),
        ("b.fen", f"{START}\n", ["--opening-start", "x"], "--opening-start takes a whole number"),
        ("b.fen", f"{START}\n", ["--opening-plies", "-1"], "--opening-plies must be at least 0"),
        ("b.bpgn", "1A. e4 1a. f5 2A. exf5 1B. d4 1b. P@d2 *\n",
         ["--opening-plies", "5", "--rule", "drop_check=no-check"],
         "-b.bpgn#1' cannot be played under these house rules: "),
    ],
)  # fmt: skip
def test_bad_books_and_values_are_one_line_and_exit_2(
    name: str,
    text: str,
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    book = tmp_path.parent / f"{tmp_path.name}-{name}"
    book.write_text(text)
    monkeypatch.chdir(tmp_path)
    engines = ["--engine", "a=random", "--engine", "b=random", "--openings", str(book)]
    expect_usage_error("tournament", [*engines, *argv], message, capsys, tmp_path)


@pytest.mark.parametrize("argv", [["--openings-format", "xml"], ["--opening-order", "best"]])
def test_unknown_format_and_order_are_refused_by_the_parser(argv: list[str]) -> None:
    from bughouse_arbiter.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["tournament", "--engine", "a=random", "--engine", "b=random", *argv])
    assert exit_.value.code == 2


BOOK = [Opening(name=f"o{i}", moves=((Seat.A_WHITE, "e2e4"),)) for i in range(1, 6)]


def names(book: list[Opening]) -> list[str]:
    return [o.name for o in book]


def test_the_book_is_begun_at_the_start_given_and_wraps_around() -> None:
    assert names(ordered(BOOK, "sequential", None)) == ["o1", "o2", "o3", "o4", "o5"]
    assert names(ordered(BOOK, "sequential", None, 4)) == ["o4", "o5", "o1", "o2", "o3"]
    shuffled = names(ordered(BOOK, "random", 7))
    assert sorted(shuffled) == names(BOOK) and shuffled != names(BOOK)
    assert names(ordered(BOOK, "random", 7)) == shuffled  # the seed decides
    assert names(ordered(BOOK, "random", 7, 2)) == shuffled[1:] + shuffled[:1]
    with pytest.raises(ConfigError, match="--opening-start 6: the book has 5 openings"):
        ordered(BOOK, "sequential", None, 6)


def test_the_schedule_plays_the_book_from_opening_start_in_pairs(tmp_path: Path) -> None:
    book = write(tmp_path, "b.pgn", "".join(f"[Opening \"p{i}\"]\n\n1. {m} *\n\n" for i, m in
                                            enumerate(["e4", "d4", "c4", "Nf3"], 1)))
    argv = ["tournament", "--engine", "a=random", "--engine", "b=random", "--openings", book,
            "--games", "6", "--opening-start", "3"]  # fmt: skip
    plan = plan_from_args(build_parser().parse_args(argv), tmp_path / "out")
    played = [job.opening.name for job in plan.jobs if job.opening is not None]
    assert played == ["p3", "p3", "p4", "p4", "p1", "p1"]
    first = plan.jobs[0]
    assert first.opening is not None
    assert first.opening.moves == ((Seat.A_WHITE, "c2c4"), (Seat.B_WHITE, "c2c4"))
    assert ("OpeningPlies", "2") in first.tags
    random_argv = [*argv, "--opening-order", "random", "--seed", "5"]
    shuffled = plan_from_args(build_parser().parse_args(random_argv), tmp_path / "out")
    expected = names(ordered(load_book(book), "random", 5, 3))
    assert [j.opening.name for j in shuffled.jobs if j.opening][::2] == expected[:3]
