"""The xboard adapter as a transcript, with Sjeng's and Fairy-Stockfish's real handshakes."""

from __future__ import annotations

import pytest
from test_adapter_common import CLOCKS, Table

from bughouse_arbiter.adapters import (
    EngineDrawOffer,
    EngineMove,
    EngineNote,
    EngineResign,
    EngineTell,
    EngineWait,
    XboardAdapter,
)
from bughouse_arbiter.adapters.declared import Declared
from bughouse_arbiter.adapters.xboard import parse_features
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed
from bughouse_arbiter.protocol.limits import MAX_ANNOUNCED

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
    for line in [*SJENG_HELLO[:-1], 'feature option="Hash -spin 16 1 64"']:
        adapter.receive(line)
    assert not adapter.handshake_done
    adapter.receive(SJENG_HELLO[-1])
    lines, _ = adapter.take()
    assert "accepted ping" in lines and "accepted myname" in lines
    assert "accepted done" not in lines
    assert lines[-2:] == ["option Hash=8", "nopost"]
    assert adapter.name == "Sjeng 11.2"
    assert not adapter.uses_usermove and adapter.has_ping


def test_an_option_the_engine_did_not_offer_fails_the_start() -> None:
    adapter = XboardAdapter(Seat.A_WHITE, options={"Hahs": "8", "THREADS": "1"})
    with pytest.raises(EngineFailed) as failed:
        for line in FSF_HELLO:
            adapter.receive(line)
    assert str(failed.value) == "engine has no option 'Hahs' (did you mean 'Hash'?)"
    assert not any(line.startswith(("option", "memory")) for line in adapter.take()[0])
    # Sjeng declares no options at all: any option is refused, saying so.
    sjeng = XboardAdapter(Seat.A_WHITE, options={"Hash": "8"})
    with pytest.raises(EngineFailed) as failed:
        for line in SJENG_HELLO:
            sjeng.receive(line)
    assert str(failed.value) == "engine has no option 'Hash': it declares no options"


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
    # Sjeng reads one signal a line: a message of signals goes one ptell each.
    table.adapter.partner_says("++n\nsit")
    assert table.adapter.take()[0] == ["ptell ++n", "ptell sit"]
    table.adapter.partner_says("---Q move e2e4")
    assert table.adapter.take()[0] == ["ptell ---q", "ptell move e2e4"]
    table.adapter.partner_says("--trades")
    assert table.adapter.take()[0] == ["ptell --trades"]
    # Anything else (a sentence for people) goes whole, as written.
    table.adapter.partner_says("Ok, I sit   next move")
    assert table.adapter.take()[0] == ["ptell Ok, I sit next move"]
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


def test_a_draw_offer_reaches_an_engine_that_takes_draws_and_its_offer_accepts() -> None:
    # Sjeng and Fairy-Stockfish announce draw=0: they are never offered one.
    for hello in (SJENG_HELLO, FSF_HELLO):
        table, _ = ready(Seat.A_WHITE, hello)
        table.adapter.draw_offered()
        assert table.adapter.take()[0] == []
    willing = [line.replace("draw=0 ", "") for line in SJENG_HELLO]
    table, _ = ready(Seat.A_WHITE, willing)
    table.adapter.draw_offered()
    assert table.adapter.take()[0] == ["draw"]
    assert table.feed("offer draw") == ([], [EngineDrawOffer()])
    table.adapter.game_over()
    table.adapter.take()
    table.adapter.draw_offered()
    assert table.adapter.take()[0] == []


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
    for line in [*FSF_HELLO[:-1], 'feature option="Skill -spin 20 0 20"', FSF_HELLO[-1]]:
        adapter.receive(line)
    lines, _ = adapter.take()
    assert lines[-3:] == ["memory 16", "cores 1", "option Skill=3"]
    assert {"Hash", "Threads", "Skill"} <= set(adapter.declared_options)
    adapter.set_option("Hash", "8")
    assert adapter.take()[0] == ["memory 8", "ping 1"]
    assert not adapter.option_done
    adapter.receive("pong 1")
    assert adapter.option_done
    # An engine that offers neither but declares the option: the plain option command.
    sjeng = XboardAdapter(Seat.A_WHITE, options={"Hash": "16"})
    for line in [*SJENG_HELLO[:-1], 'feature option="Hash -spin 16 1 64"', SJENG_HELLO[-1]]:
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


def test_every_partner_message_is_passed_on_cleaned_and_the_seat_caps_them() -> None:
    # The cap per turn and per game is the seat's (limits.TellQuota, the same
    # for every kind of seat: test_hostile_lines.py), not the adapter's.
    table, _ = ready(Seat.A_BLACK)
    _, evs = table.feed(*[f"tellics ptell {i}" for i in range(20)], "tellics ptell  a\x1bb  ")
    assert evs == [EngineTell(str(i)) for i in range(20)] + [EngineTell("a b")]
    assert table.feed("tellics ptell   ", "tellics ptellx y", "tellics say hi") == ([], [])


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


def test_a_resync_of_a_set_up_game_tells_the_colour_where_it_is_true() -> None:
    # Black engine, Black to move in the set-up position: after setboard it
    # believes it plays White (Sunsetter plays the side not to move), so the
    # replay says "white" once White is to move, before White's move.
    table = set_up_table(SJENG_HELLO)
    table.new_game()
    table.your_turn()
    table.feed("pong 1", "move N@f7", "pong 2")
    assert table.feed("move Rb8") == (["force"], [EngineMove(1, "a8b8")])
    table.push(Seat.A_BLACK, "a8b8")
    table.push(Seat.A_WHITE, "g2g3")
    table.your_turn()
    lines, _ = table.feed("pong 2", "Illegal move: h7h5")
    assert lines[lines.index("setboard r6k/6pp/8/8/8/8/5PPP/6K1 b - - 0 1") :] == [
        "setboard r6k/6pp/8/8/8/8/5PPP/6K1 b - - 0 1",
        "a8b8",
        "white",
        "g2g3",
        "holding [] [R]",
        "ping 3",
        "time 6000",
        "otim 6000",
        "go",
    ]


def test_a_black_engine_set_up_with_white_to_move_gets_no_colour_command_in_the_replay() -> None:
    # White to move in the set-up position: after setboard the engine believes
    # it plays Black, which is true, so no colour command follows setboard.
    table = Table(
        XboardAdapter(Seat.A_BLACK, rules=HouseRules(time=60.0)),
        fen_a="r6k/6pp/8/8/8/8/5PPP/6K1[r] w - - 0 1",
    )
    for line in SJENG_HELLO:
        table.adapter.receive(line)
    table.adapter.take()
    table.new_game()
    table.feed("pong 1", "move N@f7", "pong 2")
    table.push(Seat.A_WHITE, "g2g3")
    lines, _ = table.your_turn()
    assert lines == ["time 6000", "otim 6000", "go"]
    lines, _ = table.feed("Illegal move: h7h5")
    assert lines[lines.index("setboard r6k/6pp/8/8/8/8/5PPP/6K1 w - - 0 1") :] == [
        "setboard r6k/6pp/8/8/8/8/5PPP/6K1 w - - 0 1",
        "g2g3",
        "holding [] [R]",
        "ping 3",
        "time 6000",
        "otim 6000",
        "go",
    ]


def test_a_second_move_for_one_go_is_discarded() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    assert table.feed("move e2e4") == (["force"], [EngineMove(1, "e2e4")])
    assert table.feed("move d2d4") == (
        [],
        [EngineNote("unexpected move d2d4 discarded")],
    )


def test_the_third_rejected_move_of_a_turn_leaves_the_engine_waiting_until_its_piece_comes() -> (
    None
):
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    for barrier in ("pong 2", "pong 3"):
        lines, evs = table.feed("move e2e5")
        assert events(evs) == [] and lines[-1] == "go"  # asked again
        table.feed(barrier)
    lines, evs = table.feed("move e2e5")
    assert events(evs) == [EngineWait(1, "engine's moves rejected (e2e5)")]
    assert lines[-1] == "ping 4"  # re-synced, not asked again
    table.feed("pong 4")
    # The same turn repeated: it stays waiting.
    table.adapter.your_turn(1, table.fen, CLOCKS)  # type: ignore[attr-defined]
    assert table.adapter.take() == ([], [])
    # A piece of its own arrives: it is started afresh on the new position.
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    assert table.push(Seat.B_WHITE, "e4d5") == ([], [])  # a black pawn: for the opponent
    lines, _ = table.push(Seat.B_BLACK, "d8d5")  # a white pawn for A-White
    # (After "new" a White engine hears the pockets once it knows its colour.)
    assert lines[0] == "new" and lines[-4:] == ["time 6000", "otim 6000", "go", "holding [P] [P]"]
    # Started afresh: the count of rejected moves starts again too.
    table.feed("pong 5")
    for barrier in ("pong 6", "pong 7"):
        lines, evs = table.feed("move e2e5")
        assert events(evs) == [] and "go" in lines  # asked again
        table.feed(barrier)
    assert table.feed("move P@e4") == (["force"], [EngineMove(1, "P@e4")])


def test_a_claiming_engine_is_not_asked_again_for_the_same_turn() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    _, evs = table.feed("1-0 {White mates}")
    assert events(evs) == [
        EngineWait(1, "engine claims 1-0 {White mates}; only the arbiter judges")
    ]
    table.adapter.your_turn(1, table.fen, CLOCKS)  # type: ignore[attr-defined]
    assert table.adapter.take() == ([], [])


def test_your_turn_when_not_to_move_is_noted_and_sends_nothing() -> None:
    table, _ = ready(Seat.A_BLACK)
    table.feed("pong 1")
    assert table.your_turn() == (
        [],
        [EngineNote("your_turn for a position where we are not to move")],
    )


def test_a_clock_about_to_fall_is_sent_as_one_centisecond_and_a_one_second_game_as_0_01() -> None:
    adapter = XboardAdapter(Seat.A_WHITE, rules=HouseRules(time=1.0))
    for line in SJENG_HELLO:
        adapter.receive(line)
    table = Table(adapter)
    table.adapter.new_game(HouseRules(time=1.0), table.fen, CLOCKS)  # type: ignore[attr-defined]
    assert "level 0 0:01 0" in table.adapter.take()[0]
    table.feed("pong 1")
    low = {Seat.A_WHITE: 0.004, Seat.A_BLACK: 0.0, Seat.B_WHITE: 1.0, Seat.B_BLACK: 1.0}
    table.adapter.your_turn(1, table.fen, low)  # type: ignore[attr-defined]
    assert table.adapter.take()[0] == ["time 1", "otim 1", "go"]


def test_a_move_out_of_step_with_the_arbiter_defers_everything_to_a_resync() -> None:
    table, _ = ready(Seat.A_BLACK)
    table.feed("pong 1")
    played = table.game.push(Seat.A_WHITE, "e2e4")
    # The arbiter's position holds a knight the mirror never saw arrive.
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[n] b KQkq - 0 1"
    table.adapter.moved(played, fen, CLOCKS)  # type: ignore[attr-defined]
    assert table.adapter.take() == ([], [EngineNote(f"position out of step, re-reading {fen}")])
    table.adapter.your_turn(1, fen, CLOCKS)  # type: ignore[attr-defined]
    lines, _ = table.adapter.take()
    assert "setboard 6rk/6pp/8/8/8/8/6PP/6K1 w - - 0 1" in lines  # set up afresh, probe first


def test_an_arrival_while_the_move_is_on_its_way_starts_no_search_even_with_a_resync_due() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    assert events(table.feed("move e2e4")[1]) == [EngineMove(1, "e2e4")]
    table.feed("Illegal move: e2e4")  # a re-sync is due, at the next turn
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "e4d5")
    assert table.push(Seat.B_BLACK, "d8d5") == ([], [])  # a pawn for A-White


def test_features_are_split_at_their_first_equals_sign_and_bare_words_are_skipped() -> None:
    assert parse_features('myname="Deep=Blue 2" =1 bare ping=1') == {
        "myname": "Deep=Blue 2",
        "ping": "1",
    }
    # An unbalanced quote: read word by word instead.
    assert parse_features('myname="Sjeng done=1') == {"myname": '"Sjeng', "done": "1"}


def test_only_option_features_are_offered_options_and_a_later_feature_after_done_counts() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    for line in FSF_HELLO:
        adapter.receive(line)
    assert adapter.offered_options == ["Hash -spin 16 1 33554432"]
    # The offered Hash is what the engine declared of it; memory=1 carries it.
    assert adapter.declared_options == {
        "Hash": Declared("spin", default="16", min=1, max=33554432),
        "Threads": Declared("spin", min=1),
    }
    adapter.receive("feature done=1 ping=0")
    assert adapter.features["ping"] == "0"
    assert "done" not in adapter.features


def test_at_most_256_features_and_256_options_are_kept() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    adapter.receive(" ".join(f"f{i}=1" for i in range(300)))
    adapter.receive(" ".join(["feature", *(f"f{i}=1" for i in range(300))]))
    assert len(adapter.features) == MAX_ANNOUNCED
    assert "f255" in adapter.features and "f256" not in adapter.features
    adapter.receive("feature f0=2")  # a known one still updates
    assert adapter.features["f0"] == "2"
    options = XboardAdapter(Seat.A_WHITE)
    for i in range(300):
        options.receive(f'feature option="o{i} -check 0"')
    assert len(options.offered_options) == MAX_ANNOUNCED
    assert options.offered_options[-1] == "o255 -check 0"


def test_resign_draw_offers_and_error_lines_are_passed_on_and_other_lines_are_not() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    assert table.feed("resign") == ([], [EngineResign()])
    assert table.feed("offer draw") == ([], [EngineDrawOffer()])
    assert table.feed("Error (unknown command): foo") == (
        [],
        [EngineNote("engine: Error (unknown command): foo")],
    )
    # Braces alone are no claim; unknown lines say nothing at all.
    assert table.feed("{a comment}", "error: lower case", "Thinking...") == ([], [])


def test_a_stale_pong_does_not_lift_the_barrier() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.your_turn()
    lines, evs = table.feed("pong 0", "move e2e4")
    assert lines == [] and events(evs) == []
    assert table.feed("pong 1", "move e2e4") == (["force"], [EngineMove(1, "e2e4")])


def test_quit_before_any_game_is_just_quit() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    for line in SJENG_HELLO:
        adapter.receive(line)
    adapter.take()
    adapter.quit()
    assert adapter.take() == (["quit"], [])


def test_a_resync_announces_the_pieces_dropped_in_the_replay_and_counts_itself() -> None:
    table, _ = ready(Seat.A_WHITE, FSF_HELLO)
    table.feed("pong 1")
    table.push(Seat.B_WHITE, "e2e4")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "e4d5")
    table.push(Seat.B_BLACK, "d8d5")  # a white pawn for A-White
    table.your_turn()
    assert table.feed("move P@e4")[1][-1] == EngineMove(1, "P@e4")
    table.push(Seat.A_WHITE, "P@e4")
    table.push(Seat.A_BLACK, "e7e5")
    table.your_turn()
    lines, _ = table.feed("Illegal move: e7e5")
    # Fairy-Stockfish: usermove, no colour commands; the pawn dropped in the
    # replay is announced before it.
    assert lines[lines.index("force") + 1 :] == [
        "holding [P] [P]",
        "usermove P@e4",
        "usermove e7e5",
        "holding [] [P]",
        "ping 2",
        "time 6000",
        "otim 6000",
        "go",
    ]
    assert table.adapter.resyncs == 1  # type: ignore[attr-defined]
    table.feed("pong 2", "Illegal move: e7e5")
    assert table.adapter.resyncs == 2  # type: ignore[attr-defined]


def _knight_for_a_white(table: Table) -> list[str]:
    table.push(Seat.B_WHITE, "b1c3")
    table.push(Seat.B_BLACK, "d7d5")
    table.push(Seat.B_WHITE, "c3d5")
    return table.push(Seat.B_BLACK, "d8d5")[0]  # a white knight for A-White


def test_after_a_move_on_its_board_sjeng_is_not_restarted_for_its_own_piece() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    table.feed("move e2e4")
    table.push(Seat.A_WHITE, "e2e4")
    table.push(Seat.A_BLACK, "e7e5")
    table.your_turn()
    assert _knight_for_a_white(table) == ["holding [N] [P] WN"]  # no re-sync mid-think


def test_a_refused_move_leaves_no_rejections_or_claims_behind() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    table.feed("move e2e5", "pong 2")  # rejected once: re-synced and asked again
    assert events(table.feed("move e2e4")[1]) == [EngineMove(1, "e2e4")]
    # The arbiter refused it after all: a new turn on the same position.
    assert table.your_turn()[0] == ["time 6000", "otim 6000", "go"]
    # Its own piece arriving mid-think is only announced (no stale claim)...
    assert _knight_for_a_white(table) == ["holding [N] [P] WN"]
    # ...and two rejected moves still leave it asked again (the count restarted).
    for barrier in ("pong 3", "pong 4"):
        lines, evs = table.feed("move e2e5")
        assert events(evs) == [] and "go" in lines  # asked again
        table.feed(barrier)


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


def test_a_restarted_engine_is_not_restarted_again_for_its_next_piece() -> None:
    table, _ = ready(Seat.A_WHITE)
    table.feed("pong 1")
    table.your_turn()
    for barrier in ("pong 2", "pong 3", "pong 4"):
        table.feed("move e2e5", barrier)  # three rejected moves: it is left waiting
    assert _knight_for_a_white(table)[-1] == "holding [N] [P]"  # restarted: go, then pockets
    table.feed("pong 5")
    # A second piece of its own while it thinks afresh: only announced.
    assert table.push(Seat.B_WHITE, "g1f3") == ([], [])
    assert table.push(Seat.B_BLACK, "d5a2") == (["holding [PN] [P] WP"], [])  # a white pawn


def test_pings_are_counted_up_to_nine_digits_and_none_is_answered_before_its_pong() -> None:
    adapter = XboardAdapter(Seat.A_WHITE)
    for line in SJENG_HELLO:
        adapter.receive(line)
    assert not adapter.pinged(1)
    adapter.receive("pong 999999999")
    assert adapter.pinged(999999999)
    adapter.receive("pong 1234567890")  # ten digits: not a ping of ours
    assert not adapter.pinged(1000000000)


def test_a_move_after_the_arbiter_took_the_turn_away_is_refused_and_not_asked_again() -> None:
    table = set_up_table(SJENG_HELLO)
    table.new_game()
    table.your_turn()
    table.feed("pong 1", "move N@f7", "pong 2")  # probe answered: it searches
    # A partner-board move whose position, from the arbiter, has White to move
    # on our board (out of step): the turn is no longer ours.
    played = table.game.push(Seat.B_WHITE, "e2e4")
    fen = "r6k/6pp/8/8/8/8/5PPP/6K1[r] w - - 0 1"
    table.adapter.moved(played, fen, CLOCKS)  # type: ignore[attr-defined]
    table.adapter.take()
    # Re-synced on the arbiter's position, and not asked to move on White's turn.
    assert table.feed("move Rb8") == (
        [
            "new",
            "variant bughouse",
            "easy",
            "level 0 1:00 0",
            "force",
            "white",
            "setboard r6k/6pp/8/8/8/8/5PPP/6K1 w - - 0 1",
            "holding [] [R]",
            "ping 3",
        ],
        [EngineNote("move 'Rb8' out of turn ignored"), EngineNote("re-syncing the engine")],
    )
