"""The xboard adapter as a transcript, with Sjeng's and Fairy-Stockfish's real handshakes."""

from __future__ import annotations

import pytest
from test_adapter_common import Table

from bughouse_arbiter.adapters import (
    EngineMove,
    EngineNote,
    EngineResign,
    EngineTell,
    EngineWait,
    XboardAdapter,
)
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed

SJENG_HELLO = [
    "tellics set f5 1=1",
    "feature ping=1 setboard=1 playother=0 san=0 usermove=0 time=1",
    "feature draw=0 sigint=0 sigterm=0 reuse=1 analyze=1",
    'feature myname="Sjeng 11.2"',
    'feature variants="normal,bughouse,crazyhouse,suicide,giveaway,losers"',
    "feature colors=1 ics=0 name=0 pause=0 done=1",
]
FSF_HELLO = [
    "feature setboard=1 usermove=1 time=1 memory=1 smp=1 colors=0 draw=0 highlight=1 name=0 "
    'sigint=0 ping=1 myname="Fairy-Stockfish 11.1 LB 64" variants="chess,crazyhouse,bughouse"',
    'feature option="Hash -spin 16 1 33554432"',
    "feature done=1",
]
START_PLAIN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def events(evs: list[object]) -> list[object]:
    return [e for e in evs if not isinstance(e, EngineNote)]


def ready(seat: Seat = Seat.A_WHITE, hello: list[str] = SJENG_HELLO) -> tuple[Table, list[str]]:
    adapter = XboardAdapter(seat, rules=HouseRules(time=60.0))
    adapter.begin()
    assert adapter.take()[0] == ["xboard", "protover 2"]
    for line in hello:
        adapter.receive(line)
    adapter.take()
    assert adapter.handshake_done
    table = Table(adapter)
    lines, _ = table.new_game()
    return table, lines


def test_handshake_accepts_each_feature_and_sends_options_and_init_after_done() -> None:
    adapter = XboardAdapter(Seat.B_BLACK, options={"Hash": "8"}, init=["nopost"])
    adapter.begin()
    adapter.take()
    for line in SJENG_HELLO[:-1]:
        adapter.receive(line)
    assert not adapter.handshake_done
    adapter.receive(SJENG_HELLO[-1])
    lines, _ = adapter.take()
    assert "accepted ping" in lines and "accepted myname" in lines
    assert "accepted done" not in lines
    assert lines[-2:] == ["option Hash=8", "nopost"]
    assert adapter.name == "Sjeng 11.2"
    assert not adapter.uses_usermove and adapter.has_ping


def test_a_protocol_one_engine_is_accepted_after_the_timeout() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    adapter.handshake_timeout()
    assert adapter.handshake_done


def test_an_engine_without_bughouse_fails() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    with pytest.raises(EngineFailed, match="bughouse"):
        adapter.receive('feature variants="normal,suicide" done=1')


def test_sjeng_new_game_sets_colour_before_holding_and_a_plain_fen() -> None:
    _, lines = ready(Seat.A_WHITE)
    assert lines == [
        "new",
        "variant bughouse",
        "easy",
        "level 0 1:00 0",
        "force",
        "black",
        "holding [] []",
        f"setboard {START_PLAIN}",
        "ping 1",
    ]
    _, lines = ready(Seat.B_BLACK)
    assert lines[5] == "white"


def test_fairy_stockfish_gets_no_colour_command_and_pockets_in_setboard() -> None:
    _, lines = ready(Seat.A_WHITE, FSF_HELLO)
    assert "black" not in lines and "white" not in lines
    assert lines[-2] == "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


def test_a_turn_runs_time_otim_go_and_moves_before_the_pong_are_discarded() -> None:
    table, _ = ready(Seat.A_WHITE)
    lines, _ = table.your_turn()
    assert lines == ["time 6000", "otim 6000", "go"]
    lines, evs = table.feed("move d2d4")  # from before the re-sync: ignored
    assert events(evs) == [] and lines == []
    lines, evs = table.feed("pong 1", "Sjeng: move e2e4")
    assert events(evs) == [EngineMove(1, "e2e4")]
    assert lines == ["force"]


def test_every_move_on_its_board_is_followed_by_holding() -> None:
    table, _ = ready(Seat.A_BLACK)
    table.feed("pong 1")
    lines, _ = table.push(Seat.A_WHITE, "e2e4")
    assert lines == ["e2e4", "holding [] []"]
    table.your_turn()
    table.feed("move e7e5")
    lines, _ = table.push(Seat.A_BLACK, "e7e5")
    assert lines == ["holding [] []"]


def test_usermove_is_used_when_the_engine_asked_for_it() -> None:
    table, _ = ready(Seat.A_BLACK, FSF_HELLO)
    lines, _ = table.push(Seat.A_WHITE, "e2e4")
    assert lines == ["usermove e2e4", "holding [] []"]


def test_a_passed_piece_is_announced_once_with_its_suffix() -> None:
    table, _ = ready(Seat.A_BLACK)
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    lines, _ = table.push(Seat.B_WHITE, "e4d5")
    assert lines == ["holding [] [P] BP"]
    # Moves on the partner board that pass nothing say nothing.
    assert table.push(Seat.B_BLACK, "d8d5")[0] == ["holding [P] [P] WP"]


def test_opponent_drops_are_sent_upper_case_after_the_pocket_was_announced() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    table.feed("move e2e4")
    table.push(Seat.A_WHITE, "e2e4")
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.B_BLACK, "e7e5")
    lines, _ = table.push(Seat.B_WHITE, "d4e5")
    assert lines == ["holding [] [P] BP"]
    lines, _ = table.push(Seat.A_BLACK, "p@d5")
    assert lines == ["P@d5", "holding [] []"]


def test_a_false_mate_claim_becomes_wait_and_an_arrival_resyncs() -> None:
    # Back-rank check that a dropped piece could block: not mate in bughouse.
    table = Table(
        XboardAdapter(Seat.A_WHITE, rules=HouseRules(time=60.0)),
        fen_a="6k1/5ppp/8/8/8/8/6PP/r6K[] w - - 0 1",
    )
    for line in SJENG_HELLO:
        table.adapter.receive(line)
    table.new_game()
    table.feed("pong 1")
    table.your_turn()
    lines, evs = table.feed("0-1 {Black Mates}")
    assert [type(e) for e in events(evs)] == [EngineWait]
    assert lines == []
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    lines, _ = table.push(Seat.B_WHITE, "c3d5")  # a pawn for the opponent: no help
    assert lines == ["holding [] [P] BP"]
    lines, _ = table.push(Seat.B_BLACK, "d8d5")  # a white knight arrives for A-White
    assert lines[0] == "holding [N] [P] WN"
    # "?" first: Fairy-Stockfish keeps searching after a claim; Sjeng ignores it.
    assert lines[1] == "?"
    sync = lines[2:]
    assert sync[:5] == ["new", "variant bughouse", "easy", "level 0 1:00 0", "force"]
    assert (
        sync.index("black")
        < sync.index("holding [N] [P]")
        < sync.index("setboard 6k1/5ppp/8/8/8/8/6PP/r6K w - - 0 1")
    )
    assert sync[-3:] == ["time 6000", "otim 6000", "go"]
    _, evs = table.feed("move N@c1")
    assert events(evs) == []  # still behind the ping barrier
    _, evs = table.feed("pong 2", "move P@g1")
    assert events(evs) == []  # a pawn it does not have, on the first rank: rejected
    _, evs = table.feed("pong 3", "move N@b1")
    assert events(evs) == [EngineMove(1, "N@b1")]


def test_an_illegal_engine_move_resyncs_and_asks_again() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    lines, evs = table.feed("move R@e8")
    assert events(evs) == []
    assert "new" in lines and lines[-1] == "go"
    assert any("no rook" in e.text for e in evs if isinstance(e, EngineNote))


def test_an_engine_that_keeps_moving_illegally_is_left_waiting() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    evs: list[object] = []
    for before in ([], ["pong 2"], ["pong 3"]):
        _, got = table.feed(*before, "move e2e5")
        evs += events(got)
    assert [type(e) for e in evs] == [EngineWait]


def test_partner_talk_is_bridged_both_ways() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.adapter.partner_says("++n\nsit")
    assert table.adapter.take()[0] == ["ptell ++n sit"]
    _, evs = table.feed(
        "tellics ptell I am forcedly mated (dead). Tell me 'go' to start moving into it.",
        "tellics set f5 bughouse",
        "tellics unseek",
        "tellics resign",
    )
    assert events(evs) == [
        EngineTell("I am forcedly mated (dead). Tell me 'go' to start moving into it."),
        EngineResign(),
    ]


def test_board_diagrams_statistics_and_prompts_are_ignored() -> None:
    table, _ = ready(Seat.A_WHITE)
    noise = [
        "Allocated 2*1000000 hash entries",
        "   +----+----+----+",
        "8  | *R | *N | *B |",
        "Nodes: 12345 (0.00% qnodes)",
        "NPS: 100",
        "  9  -20  71  926305  e6 e3 Nc6",
        "Sjeng: ",
        "Error (unkown command): post",
        "1/2-1/2 {Draw}",
    ]
    lines, evs = table.feed(*noise)
    assert lines == [] and events(evs) == []


def test_game_over_interrupts_a_search_and_quit_follows() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.your_turn()
    table.adapter.game_over()
    assert table.adapter.take()[0] == ["?", "force"]
    table.adapter.quit()
    assert table.adapter.take()[0] == ["quit"]


def test_a_chatty_engine_cannot_flood_its_partner() -> None:
    table, _ = ready(Seat.A_BLACK)
    _, evs = table.feed(*["tellics ptell Ok, trading is BAD"] * 20)
    assert len(events(evs)) == 8
    assert len([e for e in evs if isinstance(e, EngineNote)]) == 1  # the excess, once
    table.push(Seat.A_WHITE, "e2e4")
    _, evs = table.feed("tellics ptell go")
    assert events(evs) == [EngineTell("go")]


def test_sjeng_is_restarted_when_its_own_piece_arrives_mid_think() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    lines, _ = table.push(Seat.B_WHITE, "c3d5")  # the opponent's pocket: no restart
    assert lines == ["holding [] [P] BP"]
    lines, _ = table.push(Seat.B_BLACK, "d8d5")  # a knight for Sjeng while it thinks
    assert lines[:3] == ["holding [N] [P] WN", "?", "new"]
    assert lines[-4:] == ["ping 2", "time 6000", "otim 6000", "go"]
    _, evs = table.feed("move e2e4")  # the move "?" forced out: discarded
    assert events(evs) == []
    _, evs = table.feed("pong 2", "move N@f3")
    assert events(evs) == [EngineMove(1, "N@f3")]


def test_fairy_stockfish_hears_the_new_pocket_itself() -> None:
    table, _ = ready(Seat.A_WHITE, FSF_HELLO)
    table.feed("pong 1")
    table.your_turn()
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "c3d5")
    lines, _ = table.push(Seat.B_BLACK, "d8d5")
    assert lines == ["holding [N] [P] WN"]
