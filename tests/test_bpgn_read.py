"""The tolerant reader: every dialect quirk, strict mode, and fuzzing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughouse_arbiter import BoardId, BpgnError, Seat
from bughouse_arbiter.bpgn.read import BpgnGame, read_games

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="BPGN corpus not present")


def test_several_tags_on_one_line_crlf_and_whole_second_clocks() -> None:
    text = (
        '[Event "fics rated bughouse match"]\r\n'
        '[WhiteA "raven"][WhiteAElo "2165"]\r\n'
        '[Result "0-1"]\r\n'
        "1A. d4 {298} 1a. e6 {298} \r\n1B. e4 {290}\r\n{death checkmated} 0-1\r\n"
    )
    (game,) = read_games(text)
    assert game.tags == {
        "Event": "fics rated bughouse match",
        "WhiteA": "raven",
        "WhiteAElo": "2165",
        "Result": "0-1",
    }
    assert [(m.label, m.clock, m.clock_text) for m in game.moves] == [
        ("1A. d4", 298.0, "298"),
        ("1a. e6", 298.0, "298"),
        ("1B. e4", 290.0, "290"),
    ]
    assert [(m.line, m.column) for m in game.moves] == [(4, 1), (4, 14), (5, 1)]
    assert game.closing == "death checkmated"
    assert (game.result_token, game.problems) == ("0-1", ())


def test_glued_clocks_comments_lag_and_no_final_newline() -> None:
    text = (
        '[Event "FICS rated bughouse match"]\n[Lag "178 284"]\n[Result "*"]\n'
        "{C: This is game number 1283326 at http://www.bughousedb.com}\n"
        "1A. e4{118.585} 1B. e4{117.9} {C: x whispers: hi} {R: y requests to abort the game.}\n"
        "{Game aborted on move 1} *"
    )
    (game,) = read_games(text)
    assert game.tag("lag") == "178 284"
    assert game.comments == ("C: This is game number 1283326 at http://www.bughousedb.com",)
    assert [(m.san, m.clock) for m in game.moves] == [("e4", 118.585), ("e4", 117.9)]
    assert game.moves[1].comments == (
        "C: x whispers: hi",
        "R: y requests to abort the game.",
        "Game aborted on move 1",
    )
    assert game.closing == "Game aborted on move 1"
    assert game.result_token == "*"


def test_chesscom_drops_clk_comments_and_numbers_split_from_moves() -> None:
    text = (
        '[Event "Live Chess - Bughouse"]\n[Result "0-1"]\n\n'
        "1B. e4 {[%clk\n0:00:01.6]} 1b. $146@g4 {[%clk 0:00:00.8]} 2B. Nf3 2b.\n@e3 0-1\n"
    )
    (game,) = read_games(text)
    assert [m.san for m in game.moves] == ["e4", "N@g4", "Nf3", "@e3"]
    assert game.moves[1].written == "$146@g4"
    assert game.moves[0].commands == {"clk": "0:00:01.6"}
    assert game.moves[0].clock is None
    assert game.moves[3].line == 5


def test_glued_move_numbers_annotations_nags_and_variations() -> None:
    text = '[Event "x"]\n1A.e4!? $1 1a...e5 (1a. c5 {2} (1a. d5)) 2A. Nf3 1-0\n'
    (game,) = read_games(text)
    assert [(m.label, m.san) for m in game.moves] == [
        ("1A. e4!?", "e4"),
        ("1a. e5", "e5"),
        ("2A. Nf3", "Nf3"),
    ]
    assert [p.message for p in game.problems] == ["variation skipped (only the main line is read)"]
    assert game.moves[1].seat is Seat.A_BLACK and game.moves[0].board is BoardId.A


def test_game_boundaries_without_blank_lines_and_a_truncated_last_game() -> None:
    text = (
        '[Event "one"]\n1A. e4 {10} 1-0\n{after the result}\n'
        '[Event "two"]\n1B. d4 {9}\n'
        '[Event "three"]\n1A. e4 {1'
    )
    one, two, three = read_games(text, file="x.bpgn")
    assert (one.tag("Event"), one.comments, one.problems) == ("one", ("after the result",), ())
    assert two.tag("Event") == "two" and not two.finished
    assert [p.located() for p in two.problems] == [
        "x.bpgn: game 2: line 6, column 1: game ends without a result token (truncated?)"
    ]
    assert three.moves[0].san == "e4" and three.moves[0].clock is None
    assert [p.message for p in three.problems] == [
        "comment '{' never closed (truncated?)",
        "game ends without a result token (truncated?)",
    ]


def test_our_extensions_are_read() -> None:
    text = (
        '[Event "x"]\n[Result "*"]\n\n'
        "1A. P@e4 {179.500} {[%ts 0.500] [%eval +0.35,12]}\n"
        "{[%tell BB 0.750] need %7Bany%7D%0Apiece 100%25}\n"
        "{[%boardend A 0-1 resignation WA] A-White resigned}\n*\n"
    )
    (game,) = read_games(text, strict=True)
    (move,) = game.moves
    assert (move.san, move.clock, move.at) == ("P@e4", 179.5, 0.5)
    assert move.commands == {"ts": "0.500", "eval": "+0.35,12"}
    (message,) = game.messages
    assert (message.seat, message.text, message.at, message.after) == (
        Seat.B_BLACK,
        "need {any}\npiece 100%",
        0.75,
        1,
    )
    (end,) = game.board_ends
    assert (end.board, end.result, end.termination, end.seat, end.reason) == (
        BoardId.A,
        "0-1",
        "resignation",
        Seat.A_WHITE,
        "A-White resigned",
    )


def test_strict_mode_raises_with_file_game_line_and_column() -> None:
    text = '[Event "a"]\n1A. e4 1-0\n\n[Event "b"]\n1A. e4 e5 1-0\n'
    with pytest.raises(BpgnError) as caught:
        read_games(text, strict=True, file="f.bpgn")
    error = caught.value
    assert (error.file, error.game, error.line, error.column) == ("f.bpgn", 2, 5, 8)
    assert str(error) == (
        "f.bpgn: game 2: line 5, column 8: 'e5' has no move number with a board letter: skipped"
    )
    (_, tolerant) = read_games(text)
    assert [m.san for m in tolerant.moves] == ["e4"]


def test_streams_bytes_and_latin1() -> None:
    text = '[Event "caf\xe9"]\n1A. e4 *\n'
    for source in (
        text,
        text.encode("latin-1"),
        text.encode("utf-8"),
        io.StringIO(text),
        io.BytesIO(text.encode("latin-1")),
    ):
        (game,) = read_games(source)
        assert game.tag("Event") == "caf\xe9"


def test_empty_and_tagless_input() -> None:
    assert read_games("") == []
    assert read_games("\n\n  \n") == []
    (game,) = read_games("1A. e4 *")
    assert game.tags == {}
    assert [p.message for p in game.problems] == ["movetext without a tag section"]


@needs_corpus
@pytest.mark.parametrize(
    ("name", "games", "moves"),
    [
        ("bpgn_standard_examples.bpgn", 2, 101),
        ("chesscom_sample.bpgn", 1, 79),
        ("fics_2005_fatics.bpgn", 11, 1293),
        ("fics_bughouse-db-org_2012_crlf.bpgn", 1, 173),
        ("fics_bughousedb_com_2010-2022.bpgn", 11, 1062),
        ("hivemind_selfplay_engine.bpgn", 14, 1579),
        ("sunsetter_bench_crazyhouse.bpgn", 1, 60),
        ("tinychessserver_tu_darmstadt_2019_sample.bpgn", 200, 17929),
    ],
)
def test_corpus_reads_without_problems(name: str, games: int, moves: int) -> None:
    read = read_games((CORPUS / name).read_bytes(), strict=True, file=name)
    assert len(read) == games
    assert sum(len(g.moves) for g in read) == moves
    # bughousedb.com's [Lag] has one value per move token.
    for game in read:
        lag = game.tag("Lag")
        if lag is not None:
            assert len(lag.split()) == len(game.moves)


ALPHABET = st.sampled_from(
    [*'[]{}()"\\ \n\r\t;%$@+#=.-/*01289ABabKQRNBPxeO~?!', '[Event "', "1A. ", "{1", "e4"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ALPHABET, max_size=200).map("".join))
def test_fuzz_never_crashes(text: str) -> None:
    games = read_games(text)
    for game in games:
        for problem in game.problems:
            assert problem.line >= 1 and problem.column >= 1
    try:
        read_games(text, strict=True)
    except BpgnError as exc:
        assert exc.line is not None and exc.game is not None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text(text: str) -> None:
    read_games(text)
    read_games(text.encode("utf-8", "surrogatepass"))


def test_a_tag_ends_an_unclosed_variation() -> None:
    first, second = read_games('[Event "a"]\n1A. e4 (1A. d4 {x}\n[Event "b"]\n1A. d4 *\n')
    assert [m.san for m in first.moves] == ["e4"]
    assert [p.message for p in first.problems] == [
        "variation skipped (only the main line is read)",
        "unclosed variation '('",
        "game ends without a result token (truncated?)",
    ]
    assert (second.tag("Event"), [m.san for m in second.moves], second.problems) == (
        "b",
        ["d4"],
        (),
    )


def test_bughouse_pro_time_stamps_are_read_as_ts() -> None:
    (game,) = read_games('[Site "bughouse.pro"]\n1A. e4 {[ts=1.250]} 1B. d4 {[ts=2.5]} *\n')
    assert [(m.at, m.clock, m.comments) for m in game.moves] == [(1.25, None, ()), (2.5, None, ())]


def _moves_and_problems(text: str) -> tuple[list[str], list[str]]:
    (game,) = read_games(text)
    return [m.san for m in game.moves], [p.message for p in game.problems]


def test_a_double_parenthesis_closes_two_nested_variations() -> None:
    assert _moves_and_problems('[Event "t"]\n1A. e4 (1A. d4 (1A. c4)) 1a. e5 *\n') == (
        ["e4", "e5"],
        ["variation skipped (only the main line is read)"],
    )


def test_parentheses_closing_more_variations_than_are_open_close_them_all() -> None:
    assert _moves_and_problems('[Event "t"]\n1A. e4 (1A. d4))) 1a. e5 *\n') == (
        ["e4", "e5"],
        ["variation skipped (only the main line is read)"],
    )


def test_a_run_of_closing_parentheses_is_one_problem() -> None:
    assert _moves_and_problems('[Event "t"]\n1A. e4 ' + ")" * 100_000 + " 1a. e5 *\n") == (
        ["e4", "e5"],
        [f"cannot read {')' * 20!r}: skipped"],
    )


def _problems(text: str) -> list[tuple[str, int, int]]:
    (game,) = read_games(text)
    return _located(game)


def _located(game: BpgnGame) -> list[tuple[str, int, int]]:
    """Each of ``game``'s problems as (message, line, column)."""
    return [(p.message, p.line, p.column) for p in game.problems]


def test_a_problem_is_located_by_file_game_line_and_column() -> None:
    (_, game) = read_games('[Event "a"]\n*\n[Event "b"]\n  zz *\n', file="m.bpgn")
    (problem,) = game.problems
    assert problem.located() == (
        "m.bpgn: game 2: line 4, column 3: 'zz' has no move number with a board letter: skipped"
    )
    (unnamed,) = read_games('[Event "b"]\nzz *\n')[0].problems
    assert unnamed.located().startswith("game 1: line 2, column 1: 'zz' ")


def test_a_problem_message_is_cut_to_300_characters() -> None:
    (message,) = [m for m, _, _ in _problems('[Event "t"]\n' + "\x01" * 200 + " *\n")]
    assert len(message) == 300
    assert message.startswith("'\\x01\\x01") and message.endswith("…")


def test_a_black_move_s_label_has_a_lower_case_board_letter() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 1a. e5!? 1B. d4 1b. N@f6 *\n')
    assert [m.label for m in game.moves] == ["1A. e4", "1a. e5!?", "1B. d4", "1b. N@f6"]
    assert [m.seat for m in game.moves] == [Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE, Seat.B_BLACK]
    assert [m.san for m in game.moves] == ["e4", "e5", "d4", "N@f6"]


def test_tags_are_found_without_regard_to_case() -> None:
    (game,) = read_games('[event "x"]\n[WHITEA "alice"]\n[BlackB "dan"]\n*\n')
    assert game.tag("Event") == "x"
    assert game.tag("EVENT") == "x"
    assert game.tag("Site") is None
    assert game.tag("Site", "?") == "?"
    assert game.name_of(Seat.A_WHITE) == "alice"
    assert game.name_of(Seat.B_BLACK) == "dan"
    assert game.name_of(Seat.A_BLACK) is None


def test_a_tag_given_twice_keeps_the_last_value_and_says_so() -> None:
    text = '[Event "t"]\n[Site "one"]\n[Site "two"]\n*\n'
    (game,) = read_games(text)
    assert game.tag("Site") == "two"
    assert [p.message for p in game.problems] == ["tag Site given twice (the last value is kept)"]


def test_a_second_result_is_ignored_with_a_problem() -> None:
    assert _problems('[Event "t"]\n1A. e4 1-0 0-1\n') == [
        ("result 0-1 after the game's result: ignored", 2, 12)
    ]


def test_comments_and_glyphs_after_the_result_belong_to_that_game() -> None:
    first, second = read_games('[Event "a"]\n1A. e4 1-0 {well played} $1\n[Event "b"]\n*\n')
    assert first.comments == ("well played",)
    assert first.problems == () and second.problems == ()


@pytest.mark.parametrize(
    ("stamp", "at"),
    [("12.5", 12.5), ("-3", -3.0), ("1e9", 1e9), ("1.1e9", None), ("soon", None), ("1" * 41, None)],
)
def test_a_time_stamp_is_read_when_it_is_a_number_within_bounds(
    stamp: str, at: float | None
) -> None:
    (game,) = read_games(f'[Event "t"]\n1A. e4 {{[%ts {stamp}]}} *\n')
    assert game.moves[0].at == at
    assert game.moves[0].commands["ts"] == stamp


def test_a_tell_without_a_time_or_text_is_read() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {[%tell WB]} {[%tell bb 2.5] hi} *\n')
    assert [(m.seat, m.at, m.text, m.after) for m in game.messages] == [
        (Seat.B_WHITE, None, "", 1),
        (Seat.B_BLACK, 2.5, "hi", 1),
    ]


@pytest.mark.parametrize(
    ("comment", "problem"),
    [
        ("{[%tell XX 1.0] hi}", "[%tell XX 1.0]: unknown seat"),
        ("{[%tell] hi}", "[%tell ]: unknown seat"),
        ("{[%boardend C 1-0 flag WA] x}", "[%boardend C 1-0 flag WA]: cannot read it"),
        ("{[%boardend A 1-0 flag] x}", "[%boardend A 1-0 flag]: cannot read it"),
        ("{[%boardend A 1-0 flag QQ] x}", "[%boardend A 1-0 flag QQ]: cannot read it"),
    ],
)
def test_an_extension_that_cannot_be_read_is_a_problem(comment: str, problem: str) -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 ' + comment + " *\n")
    assert [p.message for p in game.problems] == [problem]
    assert game.messages == () and game.board_ends == ()


def test_a_board_end_with_no_seat_and_an_escaped_reason() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {[%boardend b 1/2-1/2 max_plies -] 100%25 done} *\n')
    (end,) = game.board_ends
    assert (end.board, end.result, end.termination, end.seat, end.reason, end.after) == (
        BoardId.B,
        "1/2-1/2",
        "max_plies",
        None,
        "100% done",
        1,
    )


def test_a_move_number_without_its_move_is_a_problem_where_the_number_stands() -> None:
    assert _problems('[Event "t"]\n1A. e4\n  2A. 2a. e5 *\n') == [
        ("move number without a move", 3, 3)
    ]
    assert _problems('[Event "t"]\n1A. e4 2A. *\n') == [("move number without a move", 2, 8)]


def test_chess_com_knight_drop_glyph_is_read_as_a_knight_drop() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 1a. $146@f6 2A. e5 2a. $146@e4 *\n')
    assert [m.san for m in game.moves] == ["e4", "N@f6", "e5", "N@e4"]
    assert [m.written for m in game.moves][1] == "$146@f6"


def test_a_byte_order_mark_is_not_part_of_the_first_tag_or_its_column() -> None:
    (game,) = read_games('\ufeff[Event "t"]\nzz *\n'.encode())
    assert game.tag("Event") == "t"
    assert [(p.line, p.column) for p in game.problems] == [(2, 1)]
    (game,) = read_games("\ufeffzz *\n")
    assert _located(game)[:2] == [
        ("movetext without a tag section", 1, 2),
        ("'zz' has no move number with a board letter: skipped", 1, 2),
    ]


def test_a_line_comment_is_kept_with_the_game() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 ; a line comment\n1a. e5 *\n')
    assert game.comments == ("a line comment",)
    assert [m.san for m in game.moves] == ["e4", "e5"]


def test_move_comments_other_than_the_clock_are_kept_with_the_move() -> None:
    (game,) = read_games(
        '[Event "t"]\n1A. e4 {179.5} {a good move} {[%eval 0.3] deep} 1a. e5 {no clock} *\n'
    )
    first, second = game.moves
    assert (first.clock, first.clock_text, first.comments) == (
        179.5,
        "179.5",
        ("a good move", "deep"),
    )
    assert first.commands == {"eval": "0.3"}
    assert (second.clock, second.comments, second.commands) == (None, ("no clock",), {})


def test_a_variation_inside_a_variation_is_closed_one_parenthesis_at_a_time() -> None:
    text = '[Event "t"]\n1A. e4 (1A. d4 (1A. c4) 1A. b4) 1a. e5 *\n'
    assert _moves_and_problems(text) == (
        ["e4", "e5"],
        ["variation skipped (only the main line is read)"],
    )


def test_a_run_of_braces_inside_a_variation_does_not_close_it() -> None:
    text = '[Event "t"]\n1A. e4 (1A. d4 }} ]] 1A. c4) 1a. e5 *\n'
    assert _moves_and_problems(text) == (
        ["e4", "e5"],
        ["variation skipped (only the main line is read)"],
    )


def test_text_after_an_extension_is_read_whole_even_with_brackets_in_it() -> None:
    (game,) = read_games(
        '[Event "t"]\n1A. e4 {[%tell WB 1.0] take [this] one]} '
        "{[%boardend A 0-1 resignation WA] resigned [sic] ]here} *\n"
    )
    assert [m.text for m in game.messages] == ["take [this] one]"]
    assert [e.reason for e in game.board_ends] == ["resigned [sic] ]here"]


def test_an_unreadable_extension_is_quoted_up_to_40_characters() -> None:
    value = "A 1-0 flag " + "x" * 60
    (game,) = read_games('[Event "t"]\n1A. e4 {[%boardend ' + value + "] y} *\n")
    assert [p.message for p in game.problems] == [f"[%boardend {value[:40]}]: cannot read it"]
    (game,) = read_games('[Event "t"]\n1A. e4 {[%tell ' + "Q" * 60 + "] y} *\n")
    assert [p.message for p in game.problems] == [f"[%tell {'Q' * 40}]: unknown seat"]


def test_a_message_knows_the_line_it_is_on() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4\n\n  {[%tell WB 1.0] a}\n1a. e5 {[%tell BA] b} *\n')
    assert [(m.text, m.line) for m in game.messages] == [("a", 4), ("b", 5)]


@pytest.mark.parametrize(("letters", "cut"), [(2, False), (3, True)])
def test_a_problem_message_of_300_characters_is_kept_whole(letters: int, cut: bool) -> None:
    word = "a" * letters + "\x01" * 62  # quoted, each \x01 takes four characters
    whole = f"{word!r} has no move number with a board letter: skipped"
    assert len(whole) == 300 + (1 if cut else 0)
    (message,) = [m for m, _, _ in _problems('[Event "t"]\n' + word + " *\n")]
    assert message == (whole[:299] + "…" if cut else whole)


@pytest.mark.parametrize(("stamp", "at"), [("0" * 37 + "1.5", 1.5), ("0" * 38 + "1.5", None)])
def test_a_time_stamp_of_up_to_40_characters_is_read(stamp: str, at: float | None) -> None:
    (game,) = read_games(f'[Event "t"]\n1A. e4 {{[%ts {stamp}]}} *\n')
    assert game.moves[0].at == at


def test_a_comment_followed_by_a_move_number_is_no_closing_comment() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {nice} 1a. *\n')
    assert game.closing is None
    (game,) = read_games('[Event "t"]\n1A. e4 {nice} *\n')
    assert game.closing == "nice"


def test_each_line_is_decoded_on_its_own_utf8_or_latin1() -> None:
    data = '[WhiteA "Müller"]\n'.encode() + '[BlackA "café"]\n1A. e4 *\n'.encode("latin-1")
    (game,) = read_games(data)
    assert (game.tag("WhiteA"), game.tag("BlackA")) == ("Müller", "café")


def test_a_clock_comment_before_the_result_is_no_closing_comment() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {59.5} *\n')
    assert game.closing is None
    assert game.moves[0].clock == 59.5


def test_a_message_right_before_the_result_is_the_last_comment() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {[%tell WB 1.0] hi} *\n')
    assert game.closing == "[%tell WB 1.0] hi"


def test_a_game_knows_its_first_line_and_its_file() -> None:
    first, second = read_games('[Event "a"]\n1A. e4 *\n\n\n[Event "b"]\n*\n', file="m.bpgn")
    assert (first.line, second.line) == (1, 5)
    assert (first.file, second.file) == ("m.bpgn", "m.bpgn")


def test_the_count_of_problems_left_off_stands_where_the_last_listed_one_does() -> None:
    (game,) = read_games('[Event "t"]\n' + "".join(f"zz{i} " for i in range(25)) + "*\n")
    listed = game.problems[:-1]
    assert len(listed) == 20
    more = game.problems[-1]
    assert more.message == "5 more problem(s) in this game not listed"
    assert (more.line, more.column) == (listed[-1].line, listed[-1].column)


def test_a_move_without_commands_keeps_none_when_the_next_has_some() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 1a. e5 {[%ts 1.5]} *\n')
    assert [dict(m.commands) for m in game.moves] == [{}, {"ts": "1.5"}]
    assert [m.at for m in game.moves] == [None, 1.5]


def test_a_result_before_any_game_is_a_problem_of_a_game_without_tags() -> None:
    (game,) = read_games("1-0\n")
    assert _located(game)[:2] == [
        ("movetext without a tag section", 1, 1),
        ("result 1-0 after the game's result: ignored", 1, 1),
    ]


def test_a_long_tag_name_given_twice_is_quoted_up_to_40_characters() -> None:
    name = "T" * 50
    (game,) = read_games(f'[{name} "1"]\n[{name} "2"]\n*\n')
    assert [p.message for p in game.problems] == [
        f"tag {'T' * 40} given twice (the last value is kept)"
    ]


@pytest.mark.parametrize("after", ["$1", "1a. e5", "2A."])
def test_a_comment_followed_by_a_glyph_or_a_move_is_no_closing_comment(after: str) -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {a comment} ' + after + " *\n")
    assert game.closing is None


def test_a_word_starting_with_a_dollar_that_is_no_glyph_is_kept_as_written() -> None:
    (game,) = read_games('[Event "t"]\n1A. $xyz *\n')
    assert [(m.san, m.written) for m in game.moves] == [("$xyz", "$xyz")]


@pytest.mark.parametrize(
    ("after", "problems"),
    [
        ("; later words", []),
        ("(1A. d4)", [("variation skipped (only the main line is read)", 2, 12)]),
        (")", [("cannot read ')': skipped", 2, 12)]),
    ],
)
def test_what_follows_a_result_token_belongs_to_that_game(
    after: str, problems: list[tuple[str, int, int]]
) -> None:
    (game,) = read_games('[Event "x"]\n1A. e4 1-0 ' + after + "\n")
    assert _located(game) == problems
    assert game.result_token == "1-0"


def test_an_unclosed_comment_at_the_end_keeps_its_text() -> None:
    (game,) = read_games('[Event "x"]\n1A. e4 {unfinished')
    assert game.moves[0].comments == ("unfinished",)
    assert _located(game) == [
        ("comment '{' never closed (truncated?)", 2, 8),
        ("game ends without a result token (truncated?)", 2, 19),
    ]


def test_an_unclosed_comment_s_unreadable_message_is_located() -> None:
    (game,) = read_games('[Event "x"]\n1A. e4 {[%tell XX 1.0] hi')
    assert _located(game)[:2] == [
        ("comment '{' never closed (truncated?)", 2, 8),
        ("[%tell XX 1.0]: unknown seat", 2, 8),
    ]


def test_a_variation_left_open_at_the_end_is_a_problem_where_it_opened() -> None:
    (game,) = read_games('[Event "a"]\n1A. e4 (1A. d4')
    assert _located(game) == [
        ("variation skipped (only the main line is read)", 2, 8),
        ("game ends without a result token (truncated?)", 2, 15),
        ("unclosed variation '('", 2, 8),
    ]


def test_a_file_starting_with_a_stray_character_is_located() -> None:
    (game,) = read_games(')\n[Event "a"]\n1A. e4 *\n')
    assert _located(game)[:2] == [
        ("movetext without a tag section", 1, 1),
        ("cannot read ')': skipped", 1, 1),
    ]


def test_a_comment_with_a_command_and_words_closes_the_game_with_its_words() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {[%eval 0.30] good move} *\n')
    assert game.closing == "good move"
    assert game.moves[0].comments == ("good move",)


def test_a_time_stamp_alone_before_the_result_is_no_closing_comment() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 {[%ts 1.0]} *\n')
    assert game.closing is None


def test_a_file_starting_with_a_line_comment_keeps_it_whole() -> None:
    (game,) = read_games(';note\n[Event "a"]\n1A. e4 *\n')
    assert game.comments == ("note",)
    first = game.problems[0]
    assert (first.message, first.line, first.column) == ("movetext without a tag section", 1, 1)


def test_a_file_starting_with_a_variation_is_located() -> None:
    (game,) = read_games('(1A. d4)\n[Event "a"]\n1A. e4 *\n')
    assert _located(game)[:2] == [
        ("movetext without a tag section", 1, 1),
        ("variation skipped (only the main line is read)", 1, 1),
    ]


def test_a_move_on_the_line_after_its_number_loses_its_annotation() -> None:
    (game,) = read_games('[Event "t"]\n1A.\ne4!? 1a.\n!! *\n')
    assert [(m.san, m.written) for m in game.moves] == [("e4", "e4!?"), ("!!", "!!")]


def test_a_number_without_its_move_is_reported_at_once_and_takes_no_later_word() -> None:
    (game,) = read_games('[Event "t"]\n1A. e4 2A. 2a. e5 zz *\n')
    assert [m.san for m in game.moves] == ["e4", "e5"]
    assert _located(game) == [
        ("move number without a move", 2, 8),
        ("'zz' has no move number with a board letter: skipped", 2, 19),
    ]


@pytest.mark.parametrize("written", ["e4!", "e4?", "e4!!", "e4?!"])
def test_a_move_s_annotation_is_dropped_from_its_san(written: str) -> None:
    (game,) = read_games(f'[Event "t"]\n1A. {written} *\n')
    assert [(m.san, m.written) for m in game.moves] == [("e4", written)]
