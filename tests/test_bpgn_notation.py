"""BPGN notation shared by the writer and the reader: escapes, seconds, closing words."""

from __future__ import annotations

import math

import pytest

from bughouse_arbiter import BughouseGame, HouseRules, Seat
from bughouse_arbiter.bpgn import GameHeader, format_game
from bughouse_arbiter.bpgn.notation import escape, escape_tag, seconds, unescape, unescape_tag
from bughouse_arbiter.bpgn.read import read_games

AWKWARD_NAME = 'C:\\engines\\"sjeng"\r\nv11'


def test_a_tag_value_escapes_backslash_and_quote_and_flattens_line_breaks() -> None:
    assert escape_tag(AWKWARD_NAME) == 'C:\\\\engines\\\\\\"sjeng\\"  v11'


def test_unescaping_a_tag_value_gives_back_the_backslashes_and_quotes() -> None:
    assert unescape_tag(escape_tag('C:\\a "b"')) == 'C:\\a "b"'
    # A lone backslash at the end escapes nothing and is kept.
    assert unescape_tag("end\\") == "end\\"


def test_a_player_name_with_backslashes_quotes_and_line_breaks_reads_back() -> None:
    players = {seat: f"{AWKWARD_NAME} {seat.slug}" for seat in Seat}
    header = GameHeader(players=players, event="e", date="2026.11.30", time="14:00:00")
    game = BughouseGame(HouseRules())
    game.resign(Seat.B_BLACK)
    (read,) = read_games(format_game(game, header))
    expected = 'C:\\engines\\"sjeng"  v11'
    assert {seat: read.name_of(seat) for seat in Seat} == {
        seat: f"{expected} {seat.slug}" for seat in Seat
    }


def test_escaped_comment_text_comes_back_whole() -> None:
    text = "100% {sure}] \r\n ♞"
    assert escape(text) == "100%25 %7Bsure%7D%5D %0D%0A ♞"
    assert unescape(escape(text)) == text


def test_hex_escapes_are_read_in_either_case() -> None:
    assert unescape("%7b%7D%5d") == "{}]"


@pytest.mark.parametrize(
    "text",
    ["100%", "50%zz off", "%XA", "%4G", "a%", "%%", "%g1", "%1"],
)
def test_a_percent_that_starts_no_escape_is_kept_as_written(text: str) -> None:
    assert unescape(text) == text


def test_an_escape_after_a_stray_percent_is_still_read() -> None:
    assert unescape("%%41") == "%A"


def test_seconds_have_three_decimals_and_no_negative_zero() -> None:
    assert seconds(59.9996) == "60.000"
    assert seconds(1.0004) == "1.000"
    assert seconds(-0.0004) == "0.000"
    assert seconds(-0.0006) == "-0.001"


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_seconds_refuse_what_is_not_a_time_and_say_so(value: float) -> None:
    with pytest.raises(ValueError, match=rf"cannot write {value!r} seconds"):
        seconds(value)


def test_a_draw_by_both_flags_closes_with_the_reason_not_a_forfeit() -> None:
    game = BughouseGame(HouseRules())
    outcome = game.flag([Seat.A_WHITE, Seat.A_BLACK])
    assert outcome is not None and outcome.winner is None
    (read,) = read_games(format_game(game))
    assert read.closing == outcome.reason
    assert "forfeits" not in format_game(game)


def test_a_decisive_flag_closes_naming_the_seat_that_lost() -> None:
    game = BughouseGame(HouseRules())
    game.flag([Seat.B_BLACK])
    (read,) = read_games(format_game(game))
    assert read.closing == "BB forfeits on time"
