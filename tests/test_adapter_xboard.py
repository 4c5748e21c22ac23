"""The xboard adapter as a transcript, with Sjeng's and Fairy-Stockfish's real handshakes."""

from __future__ import annotations

import pytest
from test_adapter_common import CLOCKS, Table

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
    assert adapter.take() == ([], [EngineNote("no 'feature done=1': assuming a protocol 1 engine")])


def test_an_engine_without_bughouse_fails() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    with pytest.raises(EngineFailed, match="bughouse"):
        adapter.receive('feature variants="normal,suicide" done=1')


def test_a_game_from_the_start_gets_no_setboard_and_no_holding() -> None:
    # What a chess server sends: new, variant bughouse; the pockets are empty.
    _, lines = ready(Seat.A_WHITE)
    assert lines == ["new", "variant bughouse", "easy", "level 0 1:00 0", "force", "ping 1"]
    _, lines = ready(Seat.B_BLACK)
    assert lines == ["new", "variant bughouse", "easy", "level 0 1:00 0", "force", "ping 1"]


def test_a_set_up_game_is_probed_then_set_up_with_colour_before_holding() -> None:
    table = Table(
        XboardAdapter(Seat.A_WHITE, rules=HouseRules(time=60.0)),
        fen_a="6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1",
    )
    for line in SJENG_HELLO:
        table.adapter.receive(line)
    table.adapter.take()
    lines, _ = table.new_game()
    assert lines[5:] == [
        "black",
        "setboard 6rk/6pp/8/8/8/8/6PP/6K1 w - - 0 1",
        "holding [N] []",
        "ping 1",
        "time 300",
        "otim 300",
        "go",
    ]
    lines, _ = table.feed("pong 1", "move N@f7")
    assert table.adapter.setboard_keeps_bughouse is True
    # Sjeng: colour first, a FEN without pockets, then the pockets.
    assert lines == [
        "force",
        "new",
        "variant bughouse",
        "easy",
        "level 0 1:00 0",
        "force",
        "black",
        "setboard 6k1/5ppp/8/8/8/8/6PP/r6K w - - 0 1",
        "holding [R] []",
        "ping 2",
    ]


def test_fairy_stockfish_gets_no_colour_command_and_pockets_in_setboard() -> None:
    table = Table(
        XboardAdapter(Seat.A_WHITE, rules=HouseRules(time=60.0)),
        fen_a="6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1",
    )
    for line in FSF_HELLO:
        table.adapter.receive(line)
    table.adapter.take()
    lines, _ = table.new_game()
    assert "black" not in lines and "white" not in lines
    lines, _ = table.feed("pong 1", "move N@f7")
    assert "black" not in lines and "white" not in lines
    assert lines[-3:] == [
        "setboard 6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1",
        "holding [R] []",
        "ping 2",
    ]


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
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    for mine, reply in (("f2f3", "e7e5"), ("g2g4", "d8h4")):
        table.your_turn()
        table.feed(f"move {mine}")
        table.push(Seat.A_WHITE, mine)
        table.push(Seat.A_BLACK, reply)
    # Check that a dropped piece could block: not mate in bughouse.
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
    # Sjeng moves again only after "new": the moves are replayed, with the
    # colour command where it is true (Black to move, engine plays White).
    assert lines[2:] == [
        "new",
        "variant bughouse",
        "easy",
        "level 0 1:00 0",
        "force",
        "f2f3",
        "black",
        "e7e5",
        "g2g4",
        "d8h4",
        "holding [N] [P]",
        "ping 2",
        "time 6000",
        "otim 6000",
        "go",
    ]
    _, evs = table.feed("move N@c1")
    assert events(evs) == []  # still behind the ping barrier
    _, evs = table.feed("pong 2", "move P@g1")
    assert events(evs) == []  # a pawn it does not have, on the first rank: rejected
    _, evs = table.feed("pong 3", "move N@g3")
    assert events(evs) == [EngineMove(3, "N@g3")]


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


def test_sjeng_is_not_restarted_when_its_own_piece_arrives_mid_think() -> None:
    # It reads the pocket right after its move, as on a chess server; a
    # restart after "new" would make it sit when it believes it is lost.
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    lines, _ = table.push(Seat.B_WHITE, "c3d5")
    assert lines == ["holding [] [P] BP"]
    lines, _ = table.push(Seat.B_BLACK, "d8d5")  # a knight for Sjeng while it thinks
    assert lines == ["holding [N] [P] WN"]
    _, evs = table.feed("move e2e4")
    assert events(evs) == [EngineMove(1, "e2e4")]


def test_fairy_stockfish_hears_the_new_pocket_itself() -> None:
    table, _ = ready(Seat.A_WHITE, FSF_HELLO)
    table.feed("pong 1")
    table.your_turn()
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "c3d5")
    lines, _ = table.push(Seat.B_BLACK, "d8d5")
    assert lines == ["holding [N] [P] WN"]


def test_pockets_wait_until_a_white_engine_knows_its_colour() -> None:
    # After "new" it believes it plays Black; Sjeng would pad its own pocket.
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    assert table.push(Seat.B_WHITE, "c3d5")[0] == []
    assert table.push(Seat.B_BLACK, "d8d5")[0] == []
    lines, _ = table.your_turn()
    assert lines == ["time 6000", "otim 6000", "go", "holding [N] [P]"]
    # A Black engine knows its colour from the start.
    table, _ = ready(Seat.A_BLACK)
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    assert table.push(Seat.B_WHITE, "c3d5")[0] == ["holding [] [P] BP"]


def test_hash_and_threads_use_memory_and_cores_where_offered() -> None:
    adapter = XboardAdapter(Seat.A_WHITE, options={"Hash": "16", "Threads": "1", "Skill": "3"})
    for line in FSF_HELLO:
        adapter.receive(line)
    lines, _ = adapter.take()
    assert lines[-3:] == ["memory 16", "cores 1", "option Skill=3"]
    assert "Hash" in adapter.option_names and "Threads" in adapter.option_names
    adapter.set_option("Hash", "8")
    assert adapter.take()[0] == ["memory 8", "ping 1"]
    assert not adapter.option_done
    adapter.receive("pong 1")
    assert adapter.option_done
    # Sjeng offers neither: the plain option command.
    sjeng = XboardAdapter(Seat.A_WHITE, options={"Hash": "16"})
    for line in SJENG_HELLO:
        sjeng.receive(line)
    assert sjeng.take()[0][-1] == "option Hash=16"


def test_fairy_stockfish_moves_on_after_a_false_claim_without_a_resync() -> None:
    table, _ = ready(Seat.A_WHITE, FSF_HELLO)
    table.feed("pong 1")
    for mine, reply in (("f2f3", "e7e5"), ("g2g4", "d8h4")):
        table.your_turn()
        table.feed(f"move {mine}")
        table.push(Seat.A_WHITE, mine)
        table.push(Seat.A_BLACK, reply)
    table.your_turn()
    _, evs = table.feed("0-1 {Black wins}")
    assert [type(e) for e in events(evs)] == [EngineWait]
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "c3d5")
    lines, _ = table.push(Seat.B_BLACK, "d8d5")  # a white knight arrives for A-White
    assert lines == ["holding [N] [P] WN"]  # it hears it mid-search: no restart
    _, evs = table.feed("move N@g3")
    assert events(evs) == [EngineMove(3, "N@g3")]
    assert table.adapter.resyncs == 0  # type: ignore[attr-defined]


def test_untimed_play_gives_a_notional_clock_of_thirty_seconds() -> None:
    adapter = XboardAdapter(Seat.A_WHITE, rules=HouseRules(clock=False))
    for line in SJENG_HELLO:
        adapter.receive(line)
    adapter.take()
    table = Table(adapter)
    zero = dict.fromkeys(Seat, 0.0)
    adapter.new_game(HouseRules(clock=False), table.fen, zero)
    lines, _ = adapter.take()
    assert "level 0 0:30 0" in lines
    adapter.your_turn(1, table.fen, zero)
    assert adapter.take()[0] == ["time 3000", "otim 3000", "go"]


def test_quit_during_a_search_interrupts_it_first_and_game_over_acts_once() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.your_turn()
    table.adapter.quit()
    assert table.adapter.take()[0] == ["?", "quit"]
    table, _ = ready(Seat.A_WHITE)
    table.your_turn()
    table.adapter.game_over()
    assert table.adapter.take()[0] == ["?", "force"]
    table.adapter.game_over()  # the arbiter may say it twice
    assert table.adapter.take()[0] == []


def test_the_ninth_partner_message_of_a_move_is_dropped_with_one_note() -> None:
    table, _ = ready(Seat.A_BLACK)
    _, evs = table.feed(*[f"tellics ptell {i}" for i in range(8)])
    assert events(evs) == [EngineTell(str(i)) for i in range(8)]
    assert not [e for e in evs if isinstance(e, EngineNote)]
    _, evs = table.feed("tellics ptell 8")
    assert evs == [EngineNote("partner messages dropped (more than 8 this move)")]


def test_cores_is_a_synonym_of_threads_and_a_button_has_no_value() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    for line in FSF_HELLO:
        adapter.receive(line)
    assert adapter.option_line("Cores", "2") == "cores 2"
    assert adapter.option_line("Clear Hash", None) == "option Clear Hash"
    assert adapter.option_line("Skill", "3") == "option Skill=3"


SET_UP_BLACK = "r6k/6pp/8/8/8/8/5PPP/6K1[r] b - - 0 1"


def set_up_table(hello: list[str]) -> Table:
    table = Table(XboardAdapter(Seat.A_BLACK, rules=HouseRules(time=60.0)), fen_a=SET_UP_BLACK)
    for line in hello:
        table.adapter.receive(line)
    table.adapter.take()
    return table


def test_a_black_engine_in_a_set_up_game_is_told_white_before_setboard() -> None:
    # Its turn comes while the probe runs: it searches once the probe has answered.
    table = set_up_table(SJENG_HELLO)
    table.new_game()
    assert table.your_turn() == ([], [])
    lines, evs = table.feed("pong 1", "move N@f7")
    assert lines == [
        "force",
        "new",
        "variant bughouse",
        "easy",
        "level 0 1:00 0",
        "force",
        "white",
        "setboard r6k/6pp/8/8/8/8/5PPP/6K1 b - - 0 1",
        "holding [] [R]",
        "ping 2",
        "time 6000",
        "otim 6000",
        "go",
    ]
    assert evs == [EngineNote("setboard probe: answered N@f7; it still plays bughouse")]
    assert table.feed("pong 2") == ([], [])
    assert table.feed("move Rb8") == (["force"], [EngineMove(1, "a8b8")])


def test_a_set_up_game_fails_cleanly_without_setboard_or_when_the_probe_fails() -> None:
    table = set_up_table([line.replace("setboard=1", "setboard=0") for line in SJENG_HELLO])
    with pytest.raises(EngineFailed) as failed:
        table.new_game()
    assert str(failed.value) == (
        "this game starts from a set-up position and the engine has no 'feature setboard=1'"
    )
    table = set_up_table(SJENG_HELLO)
    table.new_game()
    with pytest.raises(EngineFailed) as failed:
        table.feed("pong 1", "move R@b8")
    assert str(failed.value) == (
        "this game starts from a set-up position and the engine leaves bughouse "
        "after setboard (it did not use a piece announced by holding)"
    )


def test_a_position_out_of_step_is_set_up_on_the_engine_from_that_position() -> None:
    table, _ = ready(Seat.A_BLACK)
    table.feed("pong 1")
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
    table.adapter.your_turn(1, fen, CLOCKS)
    _, evs = table.adapter.take()
    assert evs == [
        EngineNote("position out of step at our turn, re-syncing"),
        EngineNote("setboard probe: does the engine still play bughouse after setboard?"),
    ]
    lines, _ = table.feed("pong 2", "move N@f7")
    assert lines[6:10] == [
        "white",
        "setboard rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "holding [] []",
        "ping 3",
    ]


def test_an_engine_claim_is_a_wait_only_while_it_thinks_past_the_barrier() -> None:
    table, _ = ready(Seat.A_WHITE)
    assert table.your_turn()[0] == ["time 6000", "otim 6000", "go"]
    ignored = EngineNote("engine claim ignored: 1-0 {White mates}")
    assert table.feed("1-0 {White mates}") == ([], [ignored])  # before "pong 1"
    table.feed("pong 1")
    assert table.feed("1-0 {White mates}") == (
        [],
        [EngineWait(1, "engine claims 1-0 {White mates}; only the arbiter judges")],
    )
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    assert table.feed("move e2e4") == (["force"], [EngineMove(1, "e2e4")])
    assert table.feed("1-0 {White mates}") == ([], [ignored])  # no longer thinking


def test_an_illegal_move_report_resyncs_at_once_while_thinking_else_at_the_next_turn() -> None:
    report = EngineNote("engine: Illegal move: e2e5")
    resync = ["new", "variant bughouse", "easy", "level 0 1:00 0", "force", "ping 2"]
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    assert table.feed("Illegal move: e2e5") == (
        ["?", *resync, "time 6000", "otim 6000", "go"],
        [report, EngineNote("re-syncing the engine")],
    )
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    assert table.feed("Illegal move: e2e5") == ([], [report])
    assert table.your_turn() == (
        [*resync, "time 6000", "otim 6000", "go"],
        [EngineNote("re-syncing the engine")],
    )
    # Behind a ping barrier the report is about lines already replaced: no resync.
    table, _ = ready(Seat.A_WHITE)
    assert table.feed("Illegal move: e2e5") == ([], [report])
    table.feed("pong 1")
    assert table.your_turn() == (["time 6000", "otim 6000", "go"], [])


def test_a_claim_in_answer_to_the_setboard_probe_fails_it() -> None:
    table = set_up_table(SJENG_HELLO)
    table.new_game()
    with pytest.raises(EngineFailed, match="leaves bughouse after setboard"):
        table.feed("pong 1", "1-0 {White mates}")
    _, evs = table.adapter.take()
    assert evs == [EngineNote("setboard probe: answered '1-0 {White mates}', not N@f7")]


def test_a_ping_is_answered_by_its_own_pong() -> None:
    table, _ = ready()
    adapter = table.adapter
    assert isinstance(adapter, XboardAdapter)
    first = adapter.ping()
    second = adapter.ping()
    assert first is not None and second == first + 1
    assert adapter.take()[0] == [f"ping {first}", f"ping {second}"]
    adapter.receive(f"pong {first}")
    assert adapter.pinged(first) and not adapter.pinged(second)
    adapter.receive("pong ²")  # not a number: ignored
    adapter.receive(f"pong {second}")
    assert adapter.pinged(second)


def test_an_engine_without_the_ping_feature_cannot_be_pinged() -> None:
    table, _ = ready(hello=[line.replace("ping=1", "ping=0") for line in SJENG_HELLO])
    adapter = table.adapter
    assert isinstance(adapter, XboardAdapter)
    assert adapter.ping() is None
    assert adapter.take()[0] == []
