"""Replay re-judges games: quirks of real files, both [Result] conventions, the corpus."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughouse_arbiter import BoardId, HouseRules, Seat, Termination
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import FOREIGN_RULES, Frame, ReplayReport, replay_game

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="BPGN corpus not present")

TAGS = '[Event "t"]\n[WhiteA "wa"]\n[BlackA "ba"]\n[WhiteB "wb"]\n[BlackB "bb"]\n'
SCHOLAR_ON_B = "1B. e4 1b. e5 2B. Qh5 2b. Nc6 3B. Bc4 3b. Nf6 4B. Qxf7#"


def _one(text: str) -> object:
    (game,) = read_games(text)
    return replay_game(game)


def test_a_mate_on_board_b_under_both_result_conventions() -> None:
    # B-Black is mated: team 1 (A-White + B-Black) loses, so the standard says 0-1;
    # FICS/bughousedb write the deciding board's White view, 1-0.
    standard = _one(TAGS + '[Result "0-1"]\n' + SCHOLAR_ON_B + " {bb checkmated} 0-1\n")
    per_board = _one(TAGS + '[Result "1-0"]\n' + SCHOLAR_ON_B + " {bb checkmated} 1-0\n")
    for report in (standard, per_board):
        assert report.ok, report.verdict  # type: ignore[attr-defined]
        assert report.rejudged == "0-1"  # type: ignore[attr-defined]
        assert report.outcome.seat is Seat.B_BLACK  # type: ignore[attr-defined]
    assert standard.convention == "standard"  # type: ignore[attr-defined]
    assert per_board.convention == "per-board"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "ending",
    ['[Termination "Game drawn"]\n', "", '[Termination "Game drawn by mutual agreement"]\n'],
)
def test_a_recorded_draw_passes_as_agreed(ending: str) -> None:
    closing = "{Game drawn} " if not ending else ""
    text = TAGS + '[Result "1/2-1/2"]\n' + ending + "1A. e4 {179} 1a. e5 {178}\n" + closing
    report = _one(text + "1/2-1/2\n")
    assert report.ok, report.verdict  # type: ignore[attr-defined]
    assert report.outcome.termination is Termination.AGREEMENT  # type: ignore[attr-defined]
    assert report.verdict == (  # type: ignore[attr-defined]
        "ok: 1/2-1/2 — draw as recorded (agreement; the rules cannot confirm it)"
    )


def test_a_drawn_claim_does_not_hide_a_mate() -> None:
    report = _one(
        TAGS + '[Result "1/2-1/2"]\n[Termination "Game drawn"]\n' + SCHOLAR_ON_B + " 1/2-1/2\n"
    )
    assert not report.ok  # type: ignore[attr-defined]
    assert "re-judged 0-1 (B-Black checkmated)" in report.verdict  # type: ignore[attr-defined]


def test_a_wrong_result_fails_and_says_why() -> None:
    report = replay_game(read_games(TAGS + '[Result "1/2-1/2"]\n' + SCHOLAR_ON_B + " 1/2-1/2\n")[0])
    assert not report.ok
    assert report.verdict == "recorded 1/2-1/2, re-judged 0-1 (B-Black checkmated)"


def test_resignation_and_flag_claims_name_seats_by_handle() -> None:
    resigned = _one(TAGS + '[Result "1-0"]\n1A. e4 {179} 1a. e5 {178}\n{ba resigns} 1-0\n')
    assert resigned.ok and resigned.outcome.termination is Termination.RESIGNATION  # type: ignore[attr-defined]
    assert resigned.outcome.seat is Seat.A_BLACK  # type: ignore[attr-defined]
    flagged = _one(TAGS + '[Result "0-1"]\n1B. d4 {1}\n{bb forfeits on time} 0-1\n')
    assert flagged.ok and flagged.outcome.seat is Seat.B_BLACK  # type: ignore[attr-defined]


def test_a_duplicated_last_move_is_skipped_and_reported() -> None:
    text = TAGS + '[Result "1-0"]\n1A. e4{179.1} 1a. e5{178.2} 1a. e5{178.2}\n{ba resigns} 1-0\n'
    report = _one(text)
    assert report.ok  # type: ignore[attr-defined]
    assert (report.replayed, report.total) == (2, 3)  # type: ignore[attr-defined]
    assert [n.located() for n in report.notes] == [  # type: ignore[attr-defined]
        "1a. e5 (line 7, column 29): the same move as line 7, column 15: skipped"
    ]


def test_a_drop_before_the_capture_that_supplied_it_is_played_after_it() -> None:
    # B-White takes on d5 and passes a pawn to A-Black, but the file writes
    # A-Black's pawn drop first.
    text = TAGS + '[Result "*"]\n1A. e4 1B. e4 1b. d5 1a. P@e6 2B. exd5 2A. d4 *\n'
    report = _one(text)
    assert report.ok, report.verdict  # type: ignore[attr-defined]
    assert report.replayed == 6  # type: ignore[attr-defined]
    assert [n.located() for n in report.notes] == [  # type: ignore[attr-defined]
        "1a. P@e6 (line 7, column 22): dropped before the capture that supplied it "
        "(2B. exd5, line 7): played after it"
    ]


def test_an_impossible_drop_stops_the_replay_there() -> None:
    report = _one(TAGS + '[Result "*"]\n1A. e4 1a. e5 2A. P@e3 2a. Nc6 *\n')
    assert not report.ok  # type: ignore[attr-defined]
    assert report.replayed == 2  # type: ignore[attr-defined]
    assert report.illegal.located() == (  # type: ignore[attr-defined]
        "2A. P@e3 (line 7, column 15): P@e3: no pawn in the pocket"
    )


def test_a_missing_move_is_reported_as_wrong_side_to_move() -> None:
    report = _one(TAGS + '[Result "*"]\n1A. e4 1b. e5 *\n')
    assert report.illegal.located() == (  # type: ignore[attr-defined]
        "1b. e5 (line 7, column 8): B-White is to move on board B, not B-Black "
        "(a move missing before it?)"
    )


def test_a_repetition_claim_on_a_mated_position_is_called_out() -> None:
    text = (
        TAGS
        + '[Result "1/2-1/2"]\n'
        + SCHOLAR_ON_B
        + " {Game drawn by threefold repetition} 1/2-1/2\n"
    )
    report = _one(text)
    assert not report.ok  # type: ignore[attr-defined]
    assert "the writer recorded a mate as a repetition draw" in report.verdict  # type: ignore[attr-defined]


def test_a_true_repetition_claim_stands() -> None:
    shuffle = "1A. Nf3 1a. Nf6 2A. Ng1 2a. Ng8 3A. Nf3 3a. Nf6 4A. Ng1 4a. Ng8"
    report = _one(TAGS + f'[Result "1/2-1/2"]\n{shuffle} {{Game drawn by repetition}} 1/2-1/2\n')
    assert report.ok, report.verdict  # type: ignore[attr-defined]
    assert report.outcome.termination is Termination.REPETITION  # type: ignore[attr-defined]


def test_bfen_setup_with_slash_holdings_and_clock_counters() -> None:
    text = (
        TAGS
        + '[Setup "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Nn w KQkq - 142 164 | '
        'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1"]\n[Result "*"]\n'
        "14A. N@e5 14a. N@e4 *\n"
    )
    report = _one(text)
    assert report.ok and report.replayed == 2  # type: ignore[attr-defined]


def test_foreign_files_are_judged_with_foreign_rules_and_their_time_control() -> None:
    (game,) = read_games(TAGS + '[TimeControl "120+2"]\n1A. e4 *\n')
    report = replay_game(game, frames=True)
    assert report.rules.profile == FOREIGN_RULES.profile
    assert (report.rules.time, report.rules.increment) == (120.0, 2.0)
    assert report.frames[0].clocks[Seat.A_WHITE] == 120.0


#: Corpus files -> (games, the numbers of the games that do not replay ok).
CORPUS_GAMES = {
    "bpgn_standard_examples.bpgn": (2, []),
    "chesscom_sample.bpgn": (1, []),
    "fics_2005_fatics.bpgn": (11, []),
    "fics_bughouse-db-org_2012_crlf.bpgn": (1, []),
    "fics_bughousedb_com_2010-2022.bpgn": (11, [8]),
    "hivemind_selfplay_engine.bpgn": (14, []),
    "sunsetter_bench_crazyhouse.bpgn": (1, [1]),
    "tinychessserver_tu_darmstadt_2019_sample.bpgn": (200, [39, 61, 99, 120, 148, 163]),
}


@needs_corpus
def test_the_corpus_is_the_one_these_tests_know() -> None:
    assert sorted(p.name for p in CORPUS.glob("*.bpgn")) == sorted(CORPUS_GAMES)


@needs_corpus
@pytest.mark.parametrize("name", sorted(CORPUS_GAMES))
def test_every_corpus_game_replays_and_the_broken_ones_are_named(name: str) -> None:
    games, broken = CORPUS_GAMES[name]
    reports = {
        game.number: replay_game(game)
        for game in read_games((CORPUS / name).read_bytes(), file=name)
    }
    assert len(reports) == games
    failed = {number: report for number, report in reports.items() if not report.ok}
    assert sorted(failed) == broken
    if name == "hivemind_selfplay_engine.bpgn":
        # Engine self-play recorded [Termination "Game drawn"]: a legal end.
        assert "draw as recorded (agreement" in reports[1].verdict
    if name == "fics_bughousedb_com_2010-2022.bpgn":
        # bughousedb game 229746: the pawn drop nobody supplied (research quirk 9).
        assert failed[8].illegal is not None
        assert failed[8].illegal.located() == (
            "19A. P@e7+ (line 117, column 1087): P@e7+: no pawn in the pocket"
        )
    if name == "tinychessserver_tu_darmstadt_2019_sample.bpgn":
        # tinyChessServer recorded mates as repetition draws.
        for report in failed.values():
            assert report.illegal is None and report.replayed == report.total
            assert report.outcome is not None
            assert report.outcome.termination is Termination.CHECKMATE
            assert "mate as a repetition draw" in report.verdict
    if name == "sunsetter_bench_crazyhouse.bpgn":
        # Sunsetter's crazyhouse game: captures stay with the capturer, not bughouse.
        assert "crazyhouse" in failed[1].notes[-1].message


TOKENS = st.sampled_from(
    [
        "1A.",
        "1a.",
        "2B.",
        "2b.",
        "3A.",
        "e4",
        "e5",
        "d4",
        "Nf3",
        "Nc6",
        "exd5",
        "P@e4",
        "@e3",
        "N@f7+",
        "$146@g4",
        "Q@h7#",
        "O-O",
        "e8=Q",
        "B8d7",
        "Kxf7",
        "{179.5}",
        "{[%ts 1.0]}",
        "{WA resigns}",
        "{bb checkmated}",
        "{Game drawn by repetition}",
        "1-0",
        "0-1",
        "*",
        "1/2-1/2",
        "(",
        ")",
        "{[%tell WA 1.0] hi}",
        "{[%boardend A 1-0 flag BA] x}",
    ]
)
HEADERS = st.sampled_from(
    [
        "",
        '[Rules "profile=club board_end=continue"]\n',
        '[Rules "profile=nonsense"]\n',
        '[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1 | x"]\n',
        '[FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/Qq w KQkq - 0 1 | '
        'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"]\n',
        '[Termination "resignation"]\n[TerminationReason "x"]\n[TerminationSeat "zz"]\n',
        '[TimeControl "abc"]\n[ResultComment "on board b [0-1]: white ran out of time."]\n',
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HEADERS, st.lists(TOKENS, max_size=40))
def test_fuzz_replay_never_crashes(header: str, tokens: list[str]) -> None:
    text = TAGS + header + '[Result "1-0"]\n' + " ".join(tokens)
    for game in read_games(text):
        report = replay_game(game, frames=True)
        assert report.replayed <= report.total
        assert len(report.frames) in (0, report.replayed + 1)


def test_moves_after_the_rules_ended_the_match_are_noted_not_played() -> None:
    text = TAGS + '[Result "0-1"]\n' + SCHOLAR_ON_B + " 1A. e4 2A. d4 *\n"
    report = _one(text)
    assert report.ok, report.verdict  # type: ignore[attr-defined]
    assert (report.replayed, report.total) == (7, 9)  # type: ignore[attr-defined]
    assert [n.located() for n in report.notes] == [  # type: ignore[attr-defined]
        "1A. e4 (line 7, column 57): the rules ended the match before this move "
        "(B-Black checkmated): it and 1 later move(s) not played",
        '[Result "0-1"] but the movetext ends *; the tag is taken',
    ]


def test_pawn_captures_without_the_file_letter() -> None:
    # bughouse.pro writes ``xd5``; the capturing pawn is found when only one can.
    report = _one(TAGS + '[Result "*"]\n1A. e4 1a. d5 2A. xd5 2a. c6 3A. xc6 *\n')
    assert report.ok and report.replayed == 5  # type: ignore[attr-defined]
    assert [m.san for m in report.played] == ["e4", "d5", "exd5", "c6", "dxc6"]  # type: ignore[attr-defined]
    ambiguous = _one(TAGS + '[Result "*"]\n1A. e4 1a. d5 2A. c4 2a. e6 3A. xd5 *\n')
    assert ambiguous.illegal.located().startswith("3A. xd5 (line 7, column 29): xd5: ")  # type: ignore[attr-defined]


def test_upper_case_letters_for_both_colours_take_the_colour_from_the_turn() -> None:
    report = _one(TAGS + '[Result "*"]\n1A.e4 1B.d4 1A.e5 1B.d5 2A.Nf3 *\n')
    assert report.ok and report.replayed == 5  # type: ignore[attr-defined]
    assert [m.seat for m in report.played][2:4] == [Seat.A_BLACK, Seat.B_BLACK]  # type: ignore[attr-defined]
    assert [n.message for n in report.notes] == [  # type: ignore[attr-defined]
        "board A's letters are all upper case: each move's colour is taken from the side to move",
        "board B's letters are all upper case: each move's colour is taken from the side to move",
    ]


def test_a_missing_black_move_is_not_mistaken_for_upper_case_letters() -> None:
    report = _one(TAGS + '[Result "*"]\n1A. e4 2A. d4 *\n')
    assert report.illegal.located() == (  # type: ignore[attr-defined]
        "2A. d4 (line 7, column 8): A-Black is to move on board A, not A-White "
        "(a move missing before it?)"
    )


def test_a_handle_at_two_seats_resigns_at_the_one_to_move() -> None:
    tags = '[Event "t"]\n[WhiteA "x"]\n[BlackA "ba"]\n[WhiteB "wb"]\n[BlackB "x"]\n'
    # After 1A. e4 1B. d4 only B-Black of x's two seats is to move.
    resigned = _one(tags + '[Result "0-1"]\n1A. e4 1B. d4\n{x resigns} 0-1\n')
    assert resigned.verdict == "ok: 0-1 — B-Black resigned"  # type: ignore[attr-defined]
    assert resigned.outcome.seat is Seat.B_BLACK  # type: ignore[attr-defined]
    # Both to move: the claim cannot be pinned to a seat and is not taken.
    both = _one(tags + '[Result "1-0"]\n1A. e4 1B. d4 1a. e5\n{x resigns} 1-0\n')
    assert both.verdict == (  # type: ignore[attr-defined]
        "recorded 1-0 (x resigns), re-judged * (the rules do not end the game)"
    )


def test_a_pawn_drop_written_without_its_letter_is_supplied_like_p_at() -> None:
    text = TAGS + '[Result "*"]\n1A. e4 1B. e4 1b. d5 1a. @e6 2B. exd5 2A. d4 *\n'
    report = _one(text)
    assert report.ok and report.replayed == 6  # type: ignore[attr-defined]
    assert [n.located() for n in report.notes] == [  # type: ignore[attr-defined]
        "1a. @e6 (line 7, column 22): dropped before the capture that supplied it "
        "(2B. exd5, line 7): played after it"
    ]


def test_the_supplying_capture_is_found_past_a_move_on_the_drop_s_own_board() -> None:
    text = TAGS + '[Result "*"]\n1A. e4 1B. e4 1b. d5 1a. P@e6 2A. d4 2B. exd5 *\n'
    report = _one(text)
    assert report.ok and report.replayed == 6  # type: ignore[attr-defined]
    assert [n.located() for n in report.notes] == [  # type: ignore[attr-defined]
        "1a. P@e6 (line 7, column 22): dropped before the capture that supplied it "
        "(2B. exd5, line 7): played after it"
    ]


def test_a_capture_that_passes_another_piece_does_not_supply_the_drop() -> None:
    report = _one(TAGS + '[Result "*"]\n1A. e4 1B. e4 1b. d5 1a. N@e6 2B. exd5 *\n')
    assert report.verdict == (  # type: ignore[attr-defined]
        "stopped at 1a. N@e6 (line 7, column 22): N@e6: no knight in the pocket"
    )
    assert report.replayed == 3  # type: ignore[attr-defined]


def _replayed(text: str, **kwargs: object) -> ReplayReport:
    (game,) = read_games(text)
    return replay_game(game, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("control", "shown"),
    [
        ("604801+0", "'604801+0'"),
        ("60+604801", "'60+604801'"),
        ("1" + "0" * 60, "'" + "1" + "0" * 38 + "…'"),
        ("1" + "0" * 39, "'" + "1" + "0" * 39 + "'"),  # 40 characters: shown whole
    ],
)
def test_a_time_control_beyond_a_week_is_noted_and_the_default_time_used(
    control: str, shown: str
) -> None:
    report = _replayed(TAGS + f'[TimeControl "{control}"]\n1A. e4 *\n')
    assert (report.rules.time, report.rules.increment) == (
        FOREIGN_RULES.time,
        FOREIGN_RULES.increment,
    )
    assert [n.located() for n in report.notes] == [
        f"[TimeControl] {shown} is beyond 604800 seconds: the default time is used"
    ]


def test_a_time_control_of_exactly_a_week_is_taken() -> None:
    report = _replayed(TAGS + '[TimeControl "604800+604800"]\n1A. e4 *\n')
    assert (report.rules.time, report.rules.increment) == (604800.0, 604800.0)
    assert report.notes == ()


@pytest.mark.parametrize("control", ["0+5", "-", "?", "40/7200:3600", ""])
def test_a_time_control_without_a_base_time_leaves_the_default(control: str) -> None:
    report = _replayed(TAGS + f'[TimeControl "{control}"]\n1A. e4 *\n')
    assert (report.rules.time, report.rules.increment) == (
        FOREIGN_RULES.time,
        FOREIGN_RULES.increment,
    )
    assert report.notes == ()


def test_a_time_control_with_decimals_and_no_increment() -> None:
    report = _replayed(TAGS + '[TimeControl " 90.5 "]\n1A. e4 *\n')
    assert (report.rules.time, report.rules.increment) == (90.5, 0.0)


def test_an_unreadable_rules_tag_is_noted_and_foreign_rules_used() -> None:
    report = _replayed(TAGS + '[Rules "time=soon"]\n[TimeControl "60+1"]\n1A. e4 *\n')
    assert report.rules == dataclasses.replace(FOREIGN_RULES, time=60.0, increment=1.0)
    (note,) = report.notes
    assert note.located().startswith("[Rules] cannot be read (")
    assert note.located().endswith("); foreign rules used")
    assert "time" in note.located()


def test_a_rules_tag_is_read_word_by_word_and_words_without_a_value_are_ignored() -> None:
    report = _replayed(TAGS + '[Rules "profile=default  time=30 increment=0.5 junk"]\n1A. e4 *\n')
    assert report.rules == HouseRules(time=30.0, increment=0.5)
    assert report.notes == ()


def test_the_rules_given_override_the_file_s_tags() -> None:
    rules = HouseRules(time=5.0)
    report = _replayed(TAGS + '[Rules "time=30"]\n1A. e4 *\n', rules=rules)
    assert report.rules is rules


CONTINUE = TAGS + '[Rules "board_end=continue"]\n'


def test_a_drop_is_supplied_by_a_capture_written_just_after_it() -> None:
    report = _replayed(CONTINUE + "1A. e4 1a. e5 2A. N@f3 1B. Nc3 1b. d5 2B. Nxd5 2b. Qxd5 *\n")
    assert report.illegal is None and report.replayed == 7
    assert [n.located() for n in report.notes] == [
        "2A. N@f3 (line 7, column 15): dropped before the capture that supplied it "
        "(2b. Qxd5, line 7): played after it"
    ]


def test_a_drop_is_not_supplied_by_moves_written_after_the_other_board_ended() -> None:
    report = _replayed(
        CONTINUE + "1A. e4 1a. e5 {[%boardend B 1-0 resignation BB] B-Black resigned} "
        "2A. N@f3 1B. Nc3 1b. d5 2B. Nxd5 2b. Qxd5 *\n"
    )
    assert report.illegal is not None and report.illegal.move is not None
    assert report.illegal.move.san == "N@f3"
    assert report.illegal.message == "N@f3: no knight in the pocket"
    assert report.replayed == 2 and report.notes == ()


def test_a_capture_more_than_eight_moves_ahead_does_not_supply_a_drop() -> None:
    # Nine moves of board B stand between the drop and the capture of a knight.
    board_b = "1B. Nc3 1b. Nf6 2B. Nb1 2b. Ng8 3B. Nc3 3b. Nf6 4B. Nb1 4b. Ng8 5B. Nc3 5b. d5 "
    report = _replayed(CONTINUE + "1A. e4 1a. e5 2A. N@f3 " + board_b + "6B. Nxd5 6b. Qxd5 *\n")
    assert report.illegal is not None and report.illegal.move is not None
    assert (report.illegal.move.san, report.illegal.message) == (
        "N@f3",
        "N@f3: no knight in the pocket",
    )
    assert report.replayed == 2


@pytest.mark.parametrize(
    ("board_b", "why"),
    [
        ("1B. Nc3 2B. Nd5 2b. Qxd5", "a move of board B is missing"),
        ("1B. Ke2 1b. d5", "board B's next move cannot be played"),
    ],
)
def test_a_drop_before_a_board_b_that_cannot_be_followed_stops_at_the_drop(
    board_b: str, why: str
) -> None:
    report = _replayed(CONTINUE + "1A. e4 1a. e5 2A. N@f3 " + board_b + " *\n")
    assert report.illegal is not None and report.illegal.move is not None, why
    assert report.illegal.move.san == "N@f3", why
    assert report.replayed == 2 and report.notes == (), why


def test_moves_written_in_uci_are_replayed_under_their_san() -> None:
    report = _replayed(TAGS + "1A. e2e4 1a. e7e5 2A. g1f3 2a. Nc6 3A. f1b5 *\n")
    assert report.illegal is None
    assert [m.san for m in report.played] == ["e4", "e5", "Nf3", "Nc6", "Bb5"]


X_AT_TWO_SEATS = '[Event "t"]\n[WhiteA "x"]\n[BlackA "ba"]\n[WhiteB "wb"]\n[BlackB "x"]\n'


def test_a_claim_pinned_to_the_seat_to_move_names_its_board() -> None:
    report = _replayed(X_AT_TWO_SEATS + '[Result "0-1"]\n1A. e4 1B. d4\n{x resigns} 0-1\n')
    assert report.claim is not None
    assert (report.claim.seat, report.claim.board) == (Seat.B_BLACK, BoardId.B)


def test_a_claim_that_names_its_seat_is_not_moved_to_the_seat_to_move() -> None:
    # Our tags say A-White resigned; x also sits at B-Black, the one to move.
    tags = (
        '[Result "0-1"]\n[Termination "resignation"]\n[TerminationSeat "WA"]\n'
        '[TerminationBoard "A"]\n[TerminationReason "x resigns"]\n'
    )
    report = _replayed(X_AT_TWO_SEATS + tags + "1A. e4 1B. d4\n{x resigns} 0-1\n")
    assert report.ok
    assert report.outcome is not None and report.outcome.seat is Seat.A_WHITE
    assert report.verdict == "ok: 0-1 — A-White resigned"


def _our_end(kind: str, seat: str, result: str, reason: str) -> str:
    return (
        f'[Result "{result}"]\n[Termination "{kind}"]\n[TerminationSeat "{seat}"]\n'
        f'[TerminationReason "{reason}"]\n'
    )


def test_an_illegal_move_claim_loses_for_that_seat_with_the_file_s_reason() -> None:
    reason = "A-Black played an illegal move 'Ke9': no such square"
    report = _replayed(TAGS + _our_end("illegal_move", "BA", "1-0", reason) + "1A. e4 1-0\n")
    assert report.ok
    assert report.outcome is not None
    assert report.outcome.termination is Termination.ILLEGAL_MOVE
    assert report.outcome.seat is Seat.A_BLACK
    assert report.outcome.reason == f"A-Black played an illegal move '?': {reason}"


def test_a_drawn_flag_claim_flags_both_sides_of_the_board() -> None:
    reason = "draw: A-White and A-Black ran out of time at the same instant"
    report = _replayed(TAGS + _our_end("flag", "WA", "1/2-1/2", reason) + "1A. e4 1/2-1/2\n")
    assert report.ok, report.verdict
    assert report.outcome is not None and report.outcome.winner is None
    assert report.outcome.termination is Termination.FLAG


def test_a_flag_claim_that_is_no_draw_flags_one_side() -> None:
    report = _replayed(
        TAGS + _our_end("flag", "WA", "0-1", "A-White lost on time") + "1A. e4 0-1\n"
    )
    assert report.ok, report.verdict
    assert report.outcome is not None and report.outcome.seat is Seat.A_WHITE


@pytest.mark.parametrize(
    "closing", ["{WA checkmated} 0-1", "{Game aborted by WA} 0-1", "{Game drawn by repetition} 0-1"]
)
def test_an_end_the_boards_do_not_show_is_not_taken(closing: str) -> None:
    report = _replayed(TAGS + '[Result "0-1"]\n1A. e4 ' + closing + "\n")
    assert not report.ok
    assert report.rejudged in ("*", "1/2-1/2")
    assert report.outcome is None or report.outcome.termination is not Termination.LEFT


FRAMED = (
    '[Event "t"]\n[Rules "time=60"]\n'
    "1A. e4 {59.000} {[%ts 1.000]}\n1B. d4 {58.500} {[%ts 1.500]}\n{[%tell BB 2.000] hi}\n"
    "1a. d5 {57.000} {[%ts 4.000]}\n2A. exd5 {58.000} {[%ts 5.000]}\n*\n"
)


def _clocks(frame: Frame) -> dict[str, float | None]:
    return {seat.bpgn: left for seat, left in frame.clocks.items()}


def test_frames_show_the_table_after_each_move_with_the_clocks_running() -> None:
    report = _replayed(FRAMED, frames=True)
    assert [f.ply for f in report.frames] == [0, 1, 2, 3, 4]
    assert [f.at for f in report.frames] == [0.0, 1.0, 1.5, 4.0, 5.0]
    assert [f.move.san if f.move else None for f in report.frames] == [
        None,
        "e4",
        "d4",
        "d5",
        "exd5",
    ]
    # The clock of each side to move has run since its board's last move.
    assert [_clocks(f) for f in report.frames] == [
        {"WA": 60.0, "BA": 60.0, "WB": 60.0, "BB": 60.0},
        {"WA": 59.0, "BA": 60.0, "WB": 59.0, "BB": 60.0},
        {"WA": 59.0, "BA": 59.5, "WB": 58.5, "BB": 60.0},
        {"WA": 59.0, "BA": 57.0, "WB": 58.5, "BB": 57.5},
        {"WA": 58.0, "BA": 57.0, "WB": 58.5, "BB": 56.5},
    ]
    assert [[m.text for m in f.messages] for f in report.frames] == [[], [], ["hi"], ["hi"], ["hi"]]
    assert [{b.value: s.bpgn for b, s in f.to_move.items()} for f in report.frames] == [
        {"A": "WA", "B": "WB"},
        {"A": "BA", "B": "WB"},
        {"A": "BA", "B": "BB"},
        {"A": "WA", "B": "BB"},
        {"A": "BA", "B": "BB"},
    ]
    assert [sorted(s.bpgn for s in f.running) for f in report.frames][-1] == ["BA", "BB"]
    assert [{b.value: m.san for b, m in f.last.items()} for f in report.frames][-1] == {
        "A": "exd5",
        "B": "d4",
    }
    last = report.frames[-1]
    assert {s.bpgn: p for s, p in last.pockets.items()} == {"WA": "", "BA": "", "WB": "", "BB": "p"}
    assert last.fens[BoardId.A].startswith("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR[")


def test_frames_without_time_stamps_show_the_clocks_as_written() -> None:
    text = '[Event "t"]\n[TimeControl "60"]\n1A. e4 {59.5} 1B. d4 {58} 1a. e5 {57.25} *\n'
    report = _replayed(text, frames=True)
    assert [f.at for f in report.frames] == [0.0, None, None, None]
    assert _clocks(report.frames[-1]) == {"WA": 59.5, "BA": 57.25, "WB": 58.0, "BB": 60.0}


def test_frames_of_untimed_play_have_no_clocks() -> None:
    report = _replayed('[Event "t"]\n[Rules "clock=off"]\n1A. e4 {[%ts 1.000]} *\n', frames=True)
    assert [_clocks(f) for f in report.frames] == [dict.fromkeys(["WA", "BA", "WB", "BB"])] * 2


def test_no_frames_unless_asked() -> None:
    assert _replayed(FRAMED).frames == ()


def test_an_aborted_game_is_aborted_for_the_reason_the_file_gives() -> None:
    report = _replayed(TAGS + '[Result "*"]\n1A. e4 {Game aborted by the server} *\n')
    assert report.ok, report.verdict
    assert report.outcome is not None
    assert (report.outcome.termination, report.outcome.reason) == (
        Termination.ABORTED,
        "Game aborted by the server",
    )


def test_moves_in_plain_san_keep_the_file_s_spelling() -> None:
    # Over-specified and without the check mark: kept as written, not rewritten.
    report = _replayed(TAGS + "1A. e4 1a. f6 2A. Nb1c3 2a. g5 3A. Qh5 *\n")
    assert report.illegal is None
    assert [m.san for m in report.played] == ["e4", "f6", "Nb1c3", "g5", "Qh5"]


def test_an_unknown_board_end_is_noted_and_the_next_one_still_applies() -> None:
    report = _replayed(
        CONTINUE + "1A. e4 {[%boardend A 1-0 teleport -] x} "
        "{[%boardend A 0-1 resignation WA] A-White resigned} 1a. e5 *\n"
    )
    assert report.notes[0].located() == "unknown board end 'teleport'"
    assert report.illegal is not None
    assert report.illegal.located() == "1a. e5 (line 7, column 93): board A is over"
    assert report.replayed == 1


def test_a_second_end_of_a_board_is_ignored_and_the_next_one_still_applies() -> None:
    report = _replayed(
        CONTINUE + "1A. e4 {[%boardend A 0-1 resignation WA] r} "
        "{[%boardend A 1-0 resignation BA] r} {[%boardend B 0-1 resignation WB] r2} 1b. e5 *\n"
    )
    assert report.outcome is not None
    assert report.outcome.reason == (
        "boards summed 1-1 (board A: A-White resigned; board B: B-White resigned)"
    )
    assert report.replayed == 1
    assert report.notes[0].message.startswith("the rules ended the match before this move")


def test_a_board_ended_by_an_illegal_move_keeps_the_file_s_reason() -> None:
    report = _replayed(
        CONTINUE + "1A. e4 {[%boardend A 0-1 illegal_move WA] moved twice} 1B. d4 "
        "{[%boardend B 0-1 resignation WB] r2} *\n"
    )
    assert report.outcome is not None
    assert "board A: A-White played an illegal move '?': moved twice;" in report.outcome.reason


def test_a_rule_value_holding_an_equals_sign_is_refused_whole() -> None:
    report = _replayed('[Event "t"]\n[Rules "time=60=5"]\n1A. e4 *\n')
    assert [n.located() for n in report.notes] == [
        "[Rules] cannot be read (rule time takes seconds, not '60=5'); foreign rules used"
    ]
    assert report.rules == FOREIGN_RULES


def test_a_base_time_under_a_second_is_taken() -> None:
    report = _replayed(TAGS + '[TimeControl "0.5+1"]\n1A. e4 *\n')
    assert (report.rules.time, report.rules.increment) == (0.5, 1.0)


def test_a_board_that_has_not_moved_runs_its_clock_from_the_start() -> None:
    text = '[Event "t"]\n[Rules "time=60"]\n1B. d4 {59.000} {[%ts 2.000]} *\n'
    report = _replayed(text, frames=True)
    assert _clocks(report.frames[-1]) == {"WA": 58.0, "BA": 60.0, "WB": 59.0, "BB": 60.0}


def test_upper_case_letters_on_one_board_do_not_excuse_the_other() -> None:
    # Board B is written all in upper case; board A has lower-case letters, so
    # an upper-case black move there is a wrong side to move.
    report = _replayed(TAGS + "1A. e4 1A. e5 2A. Nf3 2a. Nc6 1B. d4 1B. d5 *\n")
    assert report.replayed == 1
    assert report.illegal is not None
    assert report.illegal.located() == (
        "1A. e5 (line 6, column 8): A-Black is to move on board A, not A-White "
        "(a move missing before it?)"
    )


def test_upper_case_letters_are_noted_once_per_board_where_first_met() -> None:
    report = _replayed(TAGS + "1A.e4 1A.e5 2A.Nf3 2A.Nc6 1B.d4 1B.d5 *\n")
    assert report.illegal is None and report.replayed == 6
    assert [m.seat for m in report.played] == [
        Seat.A_WHITE,
        Seat.A_BLACK,
        Seat.A_WHITE,
        Seat.A_BLACK,
        Seat.B_WHITE,
        Seat.B_BLACK,
    ]
    suffix = "'s letters are all upper case: each move's colour is taken from the side to move"
    assert [n.located() for n in report.notes] == [
        f"1A. e5 (line 6, column 7): board A{suffix}",
        f"1B. d5 (line 6, column 33): board B{suffix}",
    ]


def test_a_move_logged_twice_mid_game_is_skipped_and_the_game_goes_on() -> None:
    report = _replayed(TAGS + "1A. e4 {10} 1A. e4 {10} 1a. e5 2A. Nf3 *\n")
    assert report.illegal is None
    assert [m.san for m in report.played] == ["e4", "e5", "Nf3"]
    assert [n.located() for n in report.notes] == [
        "1A. e4 (line 6, column 13): the same move as line 6, column 1: skipped"
    ]


def test_an_unreadable_start_position_stops_the_replay_saying_why() -> None:
    report = _replayed(TAGS + '[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n1A. e4 *\n')
    assert report.illegal is not None
    assert report.illegal.located() == (
        "start position cannot be read: [FEN] should hold two positions separated by '|', "
        "got '8/8/8/8/8/8/8/8 w - - 0 1'"
    )
    assert report.replayed == 0 and not report.ok


def test_the_clock_of_a_board_that_is_over_stops() -> None:
    text = (
        CONTINUE + "1A. e4 {179.000} {[%ts 1.000]} {[%boardend A 0-1 resignation WA] r}\n"
        "1B. d4 {178.000} {[%ts 5.000]} *\n"
    )
    report = _replayed(text, frames=True)
    assert _clocks(report.frames[-1]) == {"WA": 179.0, "BA": 180.0, "WB": 178.0, "BB": 180.0}


def test_a_message_after_the_first_move_is_not_shown_before_it() -> None:
    report = _replayed(TAGS + "1A. e4 {[%tell WB 1.5] hi} 1a. e5 *\n", frames=True)
    assert [[m.text for m in f.messages] for f in report.frames] == [[], ["hi"], ["hi"]]


def test_the_verdicts_say_which_convention_the_result_follows() -> None:
    standard = _replayed(TAGS + '[Result "0-1"]\n' + SCHOLAR_ON_B + " {bb checkmated} 0-1\n")
    per_board = _replayed(TAGS + '[Result "1-0"]\n' + SCHOLAR_ON_B + " {bb checkmated} 1-0\n")
    assert standard.verdict == "ok: 0-1 — B-Black checkmated"
    assert per_board.verdict == (
        "ok: 1-0 (as White of board B sees it: the FICS per-board convention) — B-Black checkmated"
    )


def test_the_result_token_is_the_record_when_there_is_no_result_tag() -> None:
    report = _replayed(TAGS + SCHOLAR_ON_B + " {bb checkmated} 0-1\n")
    assert report.ok and report.recorded == "0-1"
    assert report.convention == "standard"


def test_a_game_without_any_result_says_so_with_every_problem() -> None:
    report = _replayed(TAGS + "1A. e4 1a. Ke9\n")
    assert report.recorded is None and report.convention is None
    assert report.verdict == (
        "stopped at 1a. Ke9 (line 6, column 8): Ke9: not a move (write SAN like Nf3 or UCI "
        "like g1f3); no result recorded"
    )


def test_a_wrong_result_has_no_convention() -> None:
    report = _replayed(TAGS + '[Result "1/2-1/2"]\n' + SCHOLAR_ON_B + " {bb checkmated} 1/2-1/2\n")
    assert not report.ok and report.convention is None


def test_an_unreadable_start_position_keeps_the_rules_and_the_claim() -> None:
    report = _replayed(
        TAGS + '[TimeControl "60"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n1A. e4 {wa resigns} 0-1\n'
    )
    assert report.rules.time == 60.0
    assert report.claim is not None and report.claim.seat is Seat.A_WHITE


def test_a_claimed_repetition_is_a_draw_on_the_board_that_repeated() -> None:
    shuffle = "1B. Nf3 1b. Nf6 2B. Ng1 2b. Ng8 3B. Nf3 3b. Nf6 4B. Ng1 4b. Ng8"
    report = _replayed(
        TAGS + f'[Result "1/2-1/2"]\n{shuffle} {{Game drawn by repetition}} 1/2-1/2\n'
    )
    assert report.outcome is not None
    assert report.outcome.reason == "draw: threefold repetition on board B (as claimed)"
    assert report.outcome.board is BoardId.B


def test_a_stop_with_moves_on_board_a_only_suggests_crazyhouse() -> None:
    report = _replayed(TAGS + "1A. e4 1a. e5 2A. Ke9 *\n")
    assert report.notes[-1].located() == (
        "no move on board B: this may be a crazyhouse game written as BPGN"
    )


def test_a_drawn_flag_board_end_under_match_rules_draws_the_match() -> None:
    report = _replayed(TAGS + "1A. e4 {[%boardend A 1/2-1/2 flag WA] both flags fell} 1/2-1/2\n")
    assert report.outcome is not None and report.outcome.winner is None
    assert report.outcome.termination is Termination.FLAG


def test_a_served_games_draw_rule_and_offers_are_read_back_and_judged() -> None:
    """The Rules tag carries the draw rule and ``[%draw]`` lines who agreed;
    replay judges the agreement under that rule."""
    from bughouse_arbiter import BughouseGame
    from bughouse_arbiter.bpgn.write import format_game

    def drawn(*offers: Seat, draw: str = "both-teams") -> str:
        game = BughouseGame(HouseRules(profile="server", illegal_move="reject", draw=draw))
        game.push(Seat.A_WHITE, "e4", at=1.0)
        for at, seat in enumerate(offers, start=2):
            game.offer_draw(seat, at=float(at))
        game.agree_draw()
        return format_game(game)

    text = drawn(Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE)
    assert "draw=both-teams" in text
    assert "{[%draw WA 2.000]}\n{[%draw BA 3.000]}\n{[%draw WB 4.000]}\n" in text
    (read,) = read_games(text)
    assert [(o.seat, o.at, o.after) for o in read.draw_offers] == [
        (Seat.A_WHITE, 2.0, 1),
        (Seat.A_BLACK, 3.0, 1),
        (Seat.B_WHITE, 4.0, 1),
    ]
    report = replay_game(read)
    assert report.rules.draw == "both-teams" and report.rules.profile == "server"
    assert report.ok, report.verdict
    assert report.verdict == (
        "ok: 1/2-1/2 — draw by agreement of WA, BA, WB (draw=both-teams, as recorded)"
    )
    # One team alone cannot have drawn under both-teams.
    alone = replay_game(read_games(drawn(Seat.A_WHITE, Seat.B_BLACK))[0])
    assert not alone.ok
    assert alone.verdict == (
        "a draw by agreement under draw=both-teams needs both teams, but only WA, BB agreed"
    )
    assert replay_game(read_games(drawn(Seat.A_WHITE, draw="humans"))[0]).ok
    # A file from before the rule reads as draw=humans, whatever its profile.
    older = text.replace(" draw=both-teams", "")
    assert replay_game(read_games(older)[0]).rules.draw == "humans"
