"""The UCI adapter as a transcript: arbiter calls and engine lines in, lines and events out."""

from __future__ import annotations

import pytest
from test_adapter_common import CLOCKS, RULES, Table

from bughouse_arbiter.adapters import EngineInfoLine, EngineMove, EngineNote, EngineWait, UciAdapter
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed

FSF_HELLO = [
    "id name Fairy-Stockfish 11.1 LB 64",
    "id author Fabian Fichter",
    "option name Threads type spin default 1 min 1 max 512",
    "option name Hash type spin default 16 min 1 max 33554432",
    "option name UCI_Variant type combo default chess var chess var crazyhouse var bughouse",
    "uciok",
]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


def events(evs: list[object]) -> list[object]:
    return [e for e in evs if not isinstance(e, EngineNote)]


def ready(seat: Seat = Seat.A_WHITE, **kwargs: object) -> Table:
    adapter = UciAdapter(seat, rules=HouseRules(time=60.0), **kwargs)  # type: ignore[arg-type]
    adapter.begin()
    assert adapter.take() == (["uci"], [])
    for line in FSF_HELLO:
        adapter.receive(line)
    adapter.receive("readyok")
    adapter.take()
    table = Table(adapter)
    table.new_game()
    return table


def test_handshake_selects_bughouse_then_options_then_init() -> None:
    adapter = UciAdapter(
        Seat.A_WHITE,
        options={"Hash": "16", "Threads": "1"},
        init=["setoption name Ponder value false"],
    )
    adapter.begin()
    adapter.take()
    for line in FSF_HELLO:
        adapter.receive(line)
    lines, _ = adapter.take()
    assert lines == [
        "setoption name UCI_Variant value bughouse",
        "setoption name Hash value 16",
        "setoption name Threads value 1",
        "setoption name Ponder value false",
        "isready",
    ]
    assert adapter.name == "Fairy-Stockfish 11.1 LB 64"
    assert adapter.engine_options["Hash"]["default"] == ["16"]
    assert not adapter.ready
    adapter.receive("readyok")
    assert adapter.ready


@pytest.mark.parametrize(
    ("option", "why"),
    [
        ("option name UCI_Variant type combo default chess var chess var crazyhouse", "bughouse"),
        ("option name Hash type spin default 16 min 1 max 64", "UCI_Variant"),
    ],
)
def test_an_engine_without_bughouse_fails_the_handshake(option: str, why: str) -> None:
    adapter = UciAdapter(Seat.A_WHITE)
    adapter.receive(option)
    with pytest.raises(EngineFailed, match=why):
        adapter.receive("uciok")


def test_option_names_may_contain_spaces() -> None:
    adapter = UciAdapter(Seat.A_WHITE)
    adapter.receive("option name Skill Level type spin default 20 min -20 max 20")
    assert adapter.engine_options["Skill Level"]["max"] == ["20"]


def test_a_turn_sends_the_position_and_four_clock_fields_and_returns_the_move() -> None:
    table = ready()
    lines, evs = table.your_turn()
    assert lines == [
        "position startpos",
        "go wtime 60000 btime 60000 winc 0 binc 0",
    ]
    lines, evs = table.feed("info depth 1 score cp 20 pv e2e4", "bestmove e2e4 ponder e7e5")
    assert lines == []
    assert events(evs) == [EngineInfoLine("depth 1 score cp 20 pv e2e4"), EngineMove(1, "e2e4")]


def test_black_gets_its_own_clock_as_btime() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    clocks = {Seat.A_WHITE: 50.0, Seat.A_BLACK: 40.5, Seat.B_WHITE: 1.0, Seat.B_BLACK: 2.0}
    table.adapter.your_turn(7, table.fen, clocks)
    lines, _ = table.adapter.take()
    assert lines[1] == "go wtime 50000 btime 40500 winc 0 binc 0"


def test_bestmove_none_waits_and_a_piece_arriving_restarts_the_search() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    lines, evs = table.feed("info depth 0 score mate 0", "bestmove (none)")
    assert events(evs) == [EngineWait(1, "engine has no move")]
    # A move on the partner board that passes nothing: no new search.
    assert table.push(Seat.B_WHITE, "d2d4")[0] == []
    table.push(Seat.B_BLACK, "e7e5")
    lines, _ = table.push(Seat.B_WHITE, "d4e5")  # a black pawn for A-Black
    assert lines[0].startswith("position fen ") and "[p]" in lines[0]
    assert lines[1].startswith("go ")


def test_a_pocket_change_mid_search_stops_discards_and_searches_again() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    lines, _ = table.push(Seat.B_WHITE, "d4e5")
    assert lines == ["stop"]
    # Another arrival while stopping must not send a second go.
    assert table.push(Seat.B_BLACK, "b8c6")[0] == []
    lines, evs = table.feed("bestmove e7e5")
    assert events(evs) == []
    assert lines[0] == f"position fen {table.fen}"
    assert lines[1].startswith("go ")
    lines, evs = table.feed("bestmove P@e6")
    assert events(evs) == [EngineMove(1, "P@e6")]


def test_never_a_second_go_while_a_search_runs() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    # The arbiter repeating the turn (same token) changes nothing.
    table.adapter.your_turn(1, table.fen, table.adapter.clocks)
    assert table.adapter.take()[0] == []


def test_lower_case_drops_from_the_engine_are_passed_on_upper_case() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    table.push(Seat.B_WHITE, "d4e5")
    table.your_turn()
    _, evs = table.feed("bestmove p@e6")
    assert events(evs) == [EngineMove(1, "P@e6")]


def test_an_illegal_bestmove_never_leaves_the_adapter() -> None:
    table = ready()
    table.your_turn()
    lines, evs = table.feed("bestmove e2e5")
    assert events(evs) == []
    assert lines[1].startswith("go ")
    assert any("rejected" in e.text for e in evs if isinstance(e, EngineNote))
    lines, evs = table.feed("bestmove N@f3")
    assert lines == []
    assert events(evs) == [EngineWait(1, "engine's move N@f3 rejected")]


def test_game_over_stops_the_search_and_the_late_bestmove_is_dropped() -> None:
    table = ready()
    table.your_turn()
    table.adapter.game_over()
    assert table.adapter.take()[0] == ["stop"]
    lines, evs = table.feed("bestmove e2e4")
    assert lines == [] and events(evs) == []
    table.adapter.quit()
    assert table.adapter.take()[0] == ["quit"]


def test_info_floods_and_unknown_lines_produce_nothing() -> None:
    table = ready()
    table.your_turn()
    flood = [f"info depth 20 currmove e2e4 currmovenumber {i}" for i in range(500)]
    lines, evs = table.feed(*flood, "Error (unkown command): post", "x" * 100_000)
    assert lines == [] and evs == []


def test_partner_messages_have_no_uci_channel() -> None:
    table = ready()
    table.adapter.partner_says("++n")
    lines, evs = table.adapter.take()
    assert lines == [] and all(isinstance(e, EngineNote) for e in evs)


def test_a_uci_engine_hears_no_draw_offer_and_never_agrees() -> None:
    table = ready()
    table.adapter.draw_offered()
    assert table.adapter.take() == ([], [])


def test_a_piece_arriving_while_our_move_is_on_its_way_starts_no_search() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    _, evs = table.feed("bestmove e7e5")
    assert events(evs) == [EngineMove(1, "e7e5")]
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    assert table.push(Seat.B_WHITE, "d4e5")[0] == []
    # The arbiter refused the move and opened a new turn: search again.
    lines, _ = table.your_turn()
    assert lines[1].startswith("go ")


def test_an_option_set_between_games_waits_for_readyok() -> None:
    table = ready()
    adapter = table.adapter
    adapter.set_option("Hash", "32")  # type: ignore[attr-defined]
    assert adapter.take()[0] == ["setoption name Hash value 32", "isready"]
    assert not adapter.option_done  # type: ignore[attr-defined]
    table.feed("readyok")
    assert adapter.option_done  # type: ignore[attr-defined]
    adapter.set_option("Clear Hash", None)  # type: ignore[attr-defined]
    assert adapter.take()[0] == ["setoption name Clear Hash", "isready"]


def test_untimed_play_asks_for_a_fixed_time_per_move() -> None:
    table = ready()
    untimed = HouseRules(clock=False)
    zero = dict.fromkeys(Seat, 0.0)
    table.adapter.new_game(untimed, table.fen, zero)  # type: ignore[attr-defined]
    table.adapter.take()
    table.adapter.your_turn(1, table.fen, zero)  # type: ignore[attr-defined]
    lines, _ = table.adapter.take()
    assert lines == ["position startpos", "go movetime 1000"]


def test_quit_during_a_search_stops_it_first() -> None:
    table = ready()
    table.your_turn()
    table.adapter.quit()
    assert table.adapter.take()[0] == ["stop", "quit"]


def test_a_position_out_of_step_is_re_read_and_an_unreadable_one_is_noted() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
    table = ready(Seat.A_BLACK)
    table.adapter.your_turn(1, fen, CLOCKS)
    assert table.adapter.take() == (
        [f"position fen {fen}", "go wtime 60000 btime 60000 winc 0 binc 0"],
        [EngineNote("position out of step at our turn, re-reading it")],
    )
    table = ready(Seat.A_BLACK)
    table.adapter.your_turn(1, "garbage", CLOCKS)
    assert table.adapter.take() == (
        [],
        [
            EngineNote("position out of step at our turn, re-reading it"),
            EngineNote(
                "unreadable position from the arbiter: a board needs 8 ranks separated by '/', "
                "not 1: 'garbage'"
            ),
            EngineNote("your_turn for a position where we are not to move"),
        ],
    )


def test_a_bestmove_with_no_search_running_is_ignored_with_a_note() -> None:
    table = ready()
    assert table.feed("bestmove e2e4") == ([], [EngineNote("unexpected bestmove e2e4 ignored")])


@pytest.mark.parametrize("line", ["bestmove (none)", "bestmove 0000", "bestmove none", "bestmove"])
def test_every_spelling_of_no_move_is_a_wait(line: str) -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    assert table.feed(line) == ([], [EngineWait(1, "engine has no move")])
    # The same turn again: it stays waiting; a new turn searches again.
    table.adapter.your_turn(1, table.fen, CLOCKS)
    assert table.adapter.take() == ([], [])
    assert table.your_turn()[0][1].startswith("go ")


def test_the_info_kept_with_a_move_is_the_last_scored_one_of_its_own_search() -> None:
    table = ready()
    table.your_turn()
    table.feed("info depth 3 score cp 5 pv e2e5", "bestmove e2e5")  # rejected: searched again
    _, evs = table.feed("bestmove e2e4")
    assert events(evs) == [EngineMove(1, "e2e4")]  # no info from the rejected search
    table.push(Seat.A_WHITE, "e2e4")
    table.push(Seat.A_BLACK, "e7e5")
    table.your_turn()
    _, evs = table.feed(
        "info depth 5 score cp 30 pv d2d4",
        "info depth 6 currmove d2d4 currmovenumber 1",
        "info string scored later",
        "bestmove d2d4",
    )
    assert events(evs) == [EngineInfoLine("depth 5 score cp 30 pv d2d4"), EngineMove(2, "d2d4")]


def test_a_good_move_restarts_the_count_of_rejected_ones() -> None:
    table = ready()
    table.your_turn()
    table.feed("bestmove e2e5")  # rejected once: searched again
    assert events(table.feed("bestmove e2e4")[1]) == [EngineMove(1, "e2e4")]
    # The arbiter refused it after all (a new turn on the same position).
    lines, _ = table.your_turn()
    assert lines[1].startswith("go ")
    lines, evs = table.feed("bestmove e2e5")
    assert events(evs) == [] and lines[1].startswith("go ")  # asked again, not waiting


def test_a_piece_arriving_when_the_engine_is_not_to_move_starts_nothing() -> None:
    table = ready(Seat.A_WHITE)  # White to move, but no turn was opened yet
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "e4d5")
    assert table.push(Seat.B_BLACK, "d8d5") == ([], [])  # a pawn for A-White: no turn open
    table = ready(Seat.A_BLACK)  # not to move at all
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    assert table.push(Seat.B_WHITE, "e4d5") == ([], [])


def test_a_position_out_of_step_mid_search_stops_it_and_searches_the_new_one() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[n] b KQkq - 0 1"
    table.adapter.your_turn(1, fen, CLOCKS)
    assert table.adapter.take()[0] == ["stop"]
    lines, evs = table.feed("bestmove e7e5")
    assert events(evs) == []
    assert lines == [f"position fen {fen}", "go wtime 60000 btime 60000 winc 0 binc 0"]


def test_a_new_game_during_a_search_stops_it_and_its_bestmove_is_dropped() -> None:
    table = ready()
    table.your_turn()
    table.adapter.new_game(RULES, START, CLOCKS)
    assert table.adapter.take()[0] == ["stop", "ucinewgame", "isready"]
    lines, evs = table.feed("bestmove e2e4")
    assert lines == [] and events(evs) == []
    assert table.your_turn()[0][1].startswith("go ")


def test_the_increment_is_sent_in_milliseconds_for_both_sides() -> None:
    table = ready(Seat.B_WHITE)
    rules = HouseRules(time=60.0, increment=2.5)
    table.adapter.new_game(rules, START, CLOCKS)
    table.adapter.take()
    table.adapter.your_turn(1, START, CLOCKS)
    assert table.adapter.take()[0][1] == "go wtime 60000 btime 60000 winc 2500 binc 2500"


def test_an_option_the_engine_lacks_fails_the_start_naming_the_closest() -> None:
    adapter = UciAdapter(Seat.A_WHITE, options={"Hsah": "10"})
    with pytest.raises(EngineFailed) as failed:
        for line in FSF_HELLO:
            adapter.receive(line)
    assert str(failed.value) == "engine has no option 'Hsah' (did you mean 'Hash'?)"
    assert not any(line.startswith("setoption") for line in adapter.take()[0])
    far = UciAdapter(Seat.A_WHITE, options={"Contempt": "10"})
    with pytest.raises(EngineFailed) as failed:
        for line in FSF_HELLO:
            far.receive(line)
    assert str(failed.value) == (
        "engine has no option 'Contempt'; it declares 'Threads', 'Hash', 'UCI_Variant'"
    )


def test_an_option_is_declared_whatever_its_letter_case() -> None:
    adapter = UciAdapter(Seat.A_WHITE, options={"hash": "32"})
    for line in FSF_HELLO:
        adapter.receive(line)
    assert "setoption name hash value 32" in adapter.take()[0]
    adapter.receive("uciok")  # said twice: the handshake is not run again
    assert adapter.take() == ([], [])


def test_option_names_may_hold_uci_keywords_before_type() -> None:
    adapter = UciAdapter(Seat.A_WHITE)
    adapter.receive("option name Use default book type check default true")
    adapter.receive("id author Someone")
    assert adapter.engine_options == {"Use default book": {"type": ["check"], "default": ["true"]}}
    assert adapter.name == ""


def test_a_turn_opened_while_the_last_games_search_still_stops_is_searched_after_it() -> None:
    # The game ended mid-search and the next one starts before the engine's
    # answer to "stop" is in: that late bestmove must not leave the new turn idle.
    table = ready()
    table.your_turn()
    table.adapter.game_over()
    assert table.adapter.take()[0] == ["stop"]
    table.adapter.new_game(RULES, START, CLOCKS)
    assert table.adapter.take()[0] == ["ucinewgame", "isready"]
    assert table.your_turn()[0] == []  # one search at a time: the old one is still stopping
    lines, evs = table.feed("bestmove e2e4")
    assert events(evs) == []
    assert lines == ["position startpos", "go wtime 60000 btime 60000 winc 0 binc 0"]


def test_once_the_stopped_search_is_replaced_a_repeated_turn_stops_nothing() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    assert table.push(Seat.B_WHITE, "d4e5")[0] == ["stop"]  # a pawn arrived mid-search
    assert table.feed("bestmove e7e5")[0][1].startswith("go ")  # discarded, searched again
    table.adapter.your_turn(1, table.fen, CLOCKS)  # the arbiter repeats the turn
    assert table.adapter.take() == ([], [])


def test_a_bestmove_after_the_arbiter_took_the_turn_away_is_ignored_with_a_note() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    # A partner-board move whose position, from the arbiter, has White to move
    # on our board (out of step): the turn is no longer ours.
    played = table.game.push(Seat.B_WHITE, "d2d4")
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 1"
    table.adapter.moved(played, fen, CLOCKS)
    table.adapter.take()
    assert table.feed("bestmove e7e5") == (
        [],
        [EngineNote("bestmove e7e5 after our turn ended ignored")],
    )


def test_after_two_rejected_moves_the_same_turn_is_not_searched_again() -> None:
    table = ready()
    table.your_turn()
    table.feed("bestmove e2e5")
    assert table.feed("bestmove e2e5")[1][-1] == EngineWait(1, "engine's move e2e5 rejected")
    table.adapter.your_turn(1, table.fen, CLOCKS)
    assert table.adapter.take() == ([], [])


def test_a_piece_arriving_restarts_the_count_of_rejected_moves() -> None:
    table = ready(Seat.A_BLACK)
    table.push(Seat.A_WHITE, "e2e4")
    table.your_turn()
    assert table.feed("bestmove e7e4")[0][1].startswith("go ")  # rejected once
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    assert table.push(Seat.B_WHITE, "d4e5")[0] == ["stop"]  # a pawn arrives
    assert table.feed("bestmove e7e5")[0][1].startswith("go ")  # the stopped search
    lines, evs = table.feed("bestmove e7e4")  # rejected again: once since the change
    assert events(evs) == [] and lines[1].startswith("go ")


def test_white_gets_its_own_clock_as_wtime_and_a_new_game_needs_no_re_read() -> None:
    table = ready(Seat.B_WHITE)
    clocks = {Seat.A_WHITE: 1.0, Seat.A_BLACK: 2.0, Seat.B_WHITE: 50.0, Seat.B_BLACK: 40.5}
    table.adapter.your_turn(1, table.fen, clocks)
    assert table.adapter.take() == (
        ["position startpos", "go wtime 50000 btime 40500 winc 0 binc 0"],
        [],
    )


@pytest.mark.parametrize(
    ("option", "why"),
    [
        (
            "option name Hash type spin default 16 min 1 max 64",
            "engine has no UCI_Variant option, so it cannot play bughouse",
        ),
        (
            "option name UCI_Variant type string default bughouse",
            "engine's UCI_Variant does not offer bughouse",
        ),
    ],
)
def test_the_handshake_failure_says_why(option: str, why: str) -> None:
    adapter = UciAdapter(Seat.A_WHITE)
    adapter.receive(option)
    with pytest.raises(EngineFailed) as failed:
        adapter.receive("uciok")
    assert str(failed.value) == why


def test_a_ping_is_answered_by_its_own_readyok_not_an_earlier_one() -> None:
    table = ready()
    adapter = table.adapter
    assert isinstance(adapter, UciAdapter)
    table.feed()  # new_game's "ucinewgame", "isready": its readyok is still due
    ticket = adapter.ping()
    assert adapter.take()[0] == ["isready"]
    assert not adapter.pinged(ticket)
    adapter.receive("readyok")  # the answer to new_game's isready
    assert not adapter.pinged(ticket)
    adapter.receive("readyok")
    assert adapter.pinged(ticket)


def test_option_lines_with_words_before_the_name_a_last_long_value_or_no_name() -> None:
    adapter = UciAdapter(Seat.A_WHITE)
    adapter.receive("option junk name Hash type spin default 16")
    adapter.receive("option name Style type combo var Very Fast var Very Slow")
    adapter.receive("option type spin default 1")  # no name: not kept
    assert adapter.engine_options == {
        "Hash": {"type": ["spin"], "default": ["16"]},
        "Style": {"type": ["combo"], "var": ["Very Fast", "Very Slow"]},
    }


def test_a_move_out_of_step_re_reads_the_arbiters_position() -> None:
    table = ready(Seat.A_BLACK)
    played = table.game.push(Seat.A_WHITE, "e2e4")
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[n] b KQkq - 0 1"
    table.adapter.moved(played, fen, CLOCKS)
    assert table.adapter.board.fen() == fen
    assert table.adapter.take()[1] == [EngineNote(f"position out of step, re-reading {fen}")]
