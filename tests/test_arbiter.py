"""The arbiter under trio's virtual clock: exact times, scripted players."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from fakes import (
    FakePlayer,
    Info,
    Leave,
    Move,
    Offer,
    PromptFake,
    RandomFake,
    Resign,
    Stale,
    Tell,
    Wait,
    silent_table,
)

from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.model import SEATS, BoardId, Result, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import Action, Player
from bughouse_arbiter.table.arbiter import (
    NOTIFY_TIMEOUT,
    ActionIgnored,
    DrawOffered,
    InfoReported,
    MatchEnded,
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
    MoveRefused,
    PartnerTold,
    PlayerWaits,
    run_match,
)

TEN = HouseRules(time=10.0)


async def play(
    players: list[FakePlayer] | list[Player], rules: HouseRules = TEN, **kwargs: object
) -> tuple[MatchRecord, list[MatchEvent]]:
    events: list[MatchEvent] = []
    record = await run_match(players, rules, observer=events.append, **kwargs)  # type: ignore[arg-type]
    return record, events


def of_type(events: list[MatchEvent], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


# -- flags ---------------------------------------------------------------------


async def test_flag_at_the_deadline_while_nobody_writes(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], b_white=[Move("d2d4", 2)])
    record, events = await play(players)
    outcome = record.outcome
    assert outcome.termination is Termination.FLAG
    assert outcome.seat is Seat.A_BLACK
    assert outcome.winner is Team.ONE
    assert outcome.reason == "A-Black lost on time"
    # A-Black's clock started at 1 with 10 s: it flags at exactly 11.
    assert record.started == 0.0
    assert record.ended == 11.0
    assert trio.current_time() == 11.0
    assert record.flag_latencies == [0.0]
    assert record.clocks.banked[Seat.A_BLACK] == 0.0
    assert record.clocks.banked[Seat.B_BLACK] == 1.0  # ran from 2 to 11
    assert of_type(events, MatchEnded)[0].now == 11.0
    for player in players:
        assert player.outcome == outcome
        assert player.closed == 1


async def test_simultaneous_flags_of_both_teams_draw(autojump_clock: object) -> None:
    record, _ = await play(silent_table())
    outcome = record.outcome
    assert outcome.termination is Termination.FLAG
    assert outcome.winner is None
    assert outcome.result is Result.DRAW
    assert "A-White and B-White" in outcome.reason
    assert record.ended == 10.0


async def test_simultaneous_flags_of_one_team_lose(autojump_clock: object) -> None:
    # A-White: 1 s used, restarts at 3 with 9 s -> 12; B-Black starts at 2 with 10 s -> 12.
    players = silent_table(
        a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 2)], b_white=[Move("d2d4", 2)]
    )
    record, _ = await play(players)
    outcome = record.outcome
    assert outcome.termination is Termination.FLAG
    assert outcome.winner is Team.TWO
    assert outcome.reason == "A-White and B-Black lost on time at the same instant"
    assert record.ended == 12.0


async def test_increment_is_added_after_each_move(autojump_clock: object) -> None:
    rules = HouseRules(time=10.0, increment=3.0)
    players = silent_table(
        a_white=[Move("e2e4", 4)],
        a_black=[Move("e7e5", 1)],
        b_white=[Move("e2e4"), Move("g1f3"), Move("f1c4")],
        b_black=[Move("e7e5"), Move("b8c6"), Move("f8c5")],
    )
    record, events = await play(players, rules)
    played = [e.played for e in of_type(events, MovePlayed)]
    a_moves = [p for p in played if p.board.value == "A"]
    assert [(p.at, p.clock) for p in a_moves] == [(4.0, 9.0), (5.0, 12.0)]
    # A-White restarts at 5 with 9 s; B-White banked 10 + 3 * 3 = 19 from 0.
    assert record.outcome.seat is Seat.A_WHITE
    assert record.ended == 14.0
    assert record.clocks.banked[Seat.B_WHITE] == 19.0 - 14.0


async def test_players_hear_a_move_with_the_clocks_right_after_it_increment_included(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, increment=3.0)
    players = silent_table(a_white=[Move("e2e4", 4)])
    await play(players, rules)
    expected = {Seat.A_WHITE: 9.0, Seat.A_BLACK: 10.0, Seat.B_WHITE: 6.0, Seat.B_BLACK: 10.0}
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
    for player in players:
        [state] = player.heard_states
        assert (state.version, dict(state.clocks)) == (1, expected)
        assert dict(state.fens) == {BoardId.A: after_e4, BoardId.B: STARTING_FEN}
        assert after_e4 in repr(state.fens)


async def test_turns_tell_the_time_left_of_the_turn_limit(autojump_clock: object) -> None:
    rules = HouseRules(time=60.0, turn_time_limit=5.0, illegal_move="reject")
    # A-White's first answer is refused at 2: its new turn has 3 s of the limit left.
    players = silent_table(a_white=[Move("e2e5", 2), Move("e2e4", 1)])
    record, _ = await play(players, rules)
    first, second = players[0].states[:2]
    assert first.turn_left[Seat.A_WHITE] == 5.0
    assert second.turn_left[Seat.A_WHITE] == 3.0
    assert record.game.moves[0].uci == "e2e4"
    assert players[0].states[0].no_double is None


async def test_turn_time_limit_flags_before_the_clock_runs_out(autojump_clock: object) -> None:
    rules = HouseRules(time=60.0, turn_time_limit=5.0)
    players = silent_table(
        a_white=[Move("e2e4", 4)],
        b_white=[Move("d2d4", 4)],
        b_black=[Move("d7d5", 4.5)],
    )
    record, _ = await play(players, rules)
    # A-Black's turn began at 4; the limit ends it at 9 with 60 s still on its clock.
    assert record.outcome.termination is Termination.FLAG
    assert record.outcome.seat is Seat.A_BLACK
    assert record.ended == 9.0
    assert record.clocks.banked[Seat.A_BLACK] == 55.0


async def test_untimed_play_never_flags_and_stalling_loses_at_the_third_partner_move(
    autojump_clock: object,
) -> None:
    # No clocks: B-Black thinks 500 s (beyond any clock) and nobody flags. A-Black
    # could move from 0.5 but sits: its partner B-White moves at 1, 502 and 503.5,
    # and the third of those ends the match, at that instant.
    rules = HouseRules(clock=False)
    players = silent_table(
        a_white=[Move("e2e4", 0.5)],
        a_black=[Wait(0.25, "sitting")],
        b_white=[Move("d2d4", 1), Move("g1f3", 1), Move("c2c4", 1)],
        b_black=[Move("d7d5", 500), Move("g8f6", 0.5)],
    )
    record, _ = await play(players, rules)
    assert record.outcome.termination is Termination.STALLING
    assert record.outcome.seat is Seat.A_BLACK
    assert record.outcome.result is Result.TEAM_ONE
    assert record.ended == 503.5
    assert [m.at for m in record.game.moves] == [0.5, 1.0, 501.0, 502.0, 502.5, 503.5]
    assert all(m.clock is None for m in record.game.moves)  # nothing to record
    assert record.used[2] == 500.0
    # Players are told no clock at all.
    assert {c for p in players for s in p.snapshots for c in s.clocks.values()} == {0.0}


async def test_a_move_after_the_deadline_is_too_late(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 10.5)], b_white=[Move("d2d4", 1)])
    record, events = await play(players)
    assert record.outcome.seat is Seat.A_WHITE
    assert record.ended == 10.0
    assert [e.played.uci for e in of_type(events, MovePlayed)] == ["d2d4"]


async def test_the_clock_stops_when_the_move_arrived_not_when_the_arbiter_took_it(
    autojump_clock: object,
) -> None:
    # A-White's move arrives at 1 but reaches the arbiter only at 1.5.
    players = silent_table(a_white=[Move("e2e4", 1, late=0.5)], a_black=[Move("e7e5", 2)])
    record, events = await play(players)
    first, second = (e for e in of_type(events, MovePlayed))
    assert (first.played.at, first.used, first.now) == (1.0, 1.0, 1.0)
    assert first.played.clock == 9.0
    # A-Black's turn (and clock) began when the arbiter had the move, at 1.5.
    assert players[1].turns == [(Seat.A_BLACK, 3, 1.5)]
    assert (second.played.at, second.used) == (3.5, 2.0)
    assert record.used == [1.0, 2.0]


async def test_an_arrival_stamped_outside_the_turn_is_clamped_to_it(
    autojump_clock: object,
) -> None:
    players = silent_table(
        a_white=[Move("e2e4", 3, stamp=-100.0)],  # before its turn began: costs nothing
        a_black=[Move("e7e5", 2, stamp=1e9)],  # in the future: counts when taken, at 5
    )
    record, _ = await play(players)
    first, second = record.game.moves[:2]
    assert record.used[:2] == [0.0, 2.0]
    assert (first.at, first.clock) == (0.0, 10.0)
    assert (second.at, second.clock) == (5.0, 8.0)


async def test_a_move_that_arrived_in_time_counts_though_the_arbiter_was_busy(
    autojump_clock: object,
) -> None:
    # Telling A-Black about d2d4 keeps the arbiter busy from 9.5 to 10.5; A-White's
    # move arrives at 9.75, before its deadline at 10, and is taken at 10.5.
    players = silent_table(a_white=[Move("e2e4", 9.75)], b_white=[Move("d2d4", 9.5)])
    players[1].slow_moves = 1.0
    record, events = await play(players)
    played = [e.played for e in of_type(events, MovePlayed)]
    assert [(p.uci, p.at) for p in played] == [("d2d4", 9.5), ("e2e4", 9.75)]
    assert record.used == [9.5, 9.75]
    assert record.overheads == [1.0, 1.0]  # telling A-Black took a second each time
    assert played[1].clock == 0.25
    assert record.outcome.termination is Termination.FLAG
    assert record.outcome.seat is not Seat.A_WHITE


async def test_a_move_that_arrived_after_its_deadline_is_too_late_though_queued(
    autojump_clock: object,
) -> None:
    # As above, but A-White's move arrives at 10.25, after its deadline at 10.
    rules = HouseRules(time=10.0, board_end="continue")
    players = silent_table(a_white=[Move("e2e4", 10.25)], b_white=[Move("d2d4", 9.5)])
    players[1].slow_moves = 1.0
    record, events = await play(players, rules)
    assert record.flag_latencies[0] == 0.5  # declared once the arbiter was free
    assert record.game.board_results[BoardId.A].seat is Seat.A_WHITE
    assert record.clocks.banked[Seat.A_WHITE] == 0.0
    [ignored] = of_type(events, ActionIgnored)
    assert (ignored.seat, ignored.now) == (Seat.A_WHITE, 10.25)
    assert [e.played.uci for e in of_type(events, MovePlayed)] == ["d2d4"]


async def test_players_hear_a_move_and_get_their_turn_before_the_observer(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    seen: list[tuple[int, list[int], list[int]]] = []

    def observer(event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):
            heard = [len(p.heard) for p in players]
            turns = [len(p.turns) for p in players]
            seen.append((event.played.ply, heard, turns))

    await run_match(players, TEN, observer=observer)
    # e2e4: everyone heard it and A-Black's turn was open; then the same for e7e5.
    assert seen == [(1, [1, 1, 1, 1], [1, 1, 1, 0]), (2, [2, 2, 2, 2], [2, 1, 1, 0])]


async def test_a_move_and_the_next_turn_reach_a_player_in_one_batch(
    autojump_clock: object,
) -> None:
    """Each player hears the move inside its ``batched()`` block, and the next
    mover gets its turn in the same block; its block ends (is written) first."""
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    a_white, a_black, b_white, b_black = players
    await run_match(players, TEN)
    first = a_black.journal.index(("moved", 1))
    assert a_black.journal[first - 1] == ("begin",)
    assert a_black.journal[first + 1] == ("turn", Seat.A_BLACK)
    assert a_black.journal[first + 2][0] == "end"
    for player in (a_white, b_white, b_black):
        at = player.journal.index(("moved", 1))
        assert player.journal[at - 1] == ("begin",)
        assert player.journal[at + 1][0] == "end"
    ends = {
        p.name: next(e[1] for e in p.journal[p.journal.index(("moved", 1)) :] if e[0] == "end")
        for p in players
    }
    # The next mover is written to first, the mover last.
    assert min(ends, key=ends.__getitem__) == "a_black"
    assert max(ends, key=ends.__getitem__) == "a_white"


async def test_a_waiting_seat_gets_a_fresh_turn_when_a_piece_reaches_it(
    autojump_clock: object,
) -> None:
    # B-Black waits from 0.6; A-White's exd5 at 3 sends it a pawn: a new turn
    # (new token, the pawn in the state) while its clock runs on from 0.5.
    players = silent_table(
        a_white=[Move("e2e4", 1), Move("e4d5", 1)],
        a_black=[Move("d7d5", 1)],
        b_white=[Move("d2d4", 0.5)],
        b_black=[Wait(0.1), Move("P@e6", 1)],
    )
    players[3].refresh_waiting_turn = True
    record, events = await play(players)
    b_black = players[3]
    assert [(seat, at) for seat, _, at in b_black.turns] == [
        (Seat.B_BLACK, 0.5),
        (Seat.B_BLACK, 3.0),
    ]
    first, second = (token for _, token, _ in b_black.turns)
    assert second > first
    assert "[p]" in b_black.states[1].fens[BoardId.B]
    assert b_black.states[1].clocks[Seat.B_BLACK] == 10.0 - 2.5
    drop = next(m for m in record.game.moves if m.seat is Seat.B_BLACK)
    assert (drop.uci, drop.at, drop.clock) == ("P@e6", 4.0, 6.5)
    assert not of_type(events, ActionIgnored)


async def test_only_a_waiting_seat_that_asks_for_it_gets_a_fresh_turn(
    autojump_clock: object,
) -> None:
    # Same table: without ``refresh_waiting_turn`` the open turn just stays open;
    # a seat that did not wait is never re-asked (its move at 3.5 keeps its token).
    for refresh, script in ((False, [Wait(0.1)]), (True, [Move("g8f6", 3)])):
        players = silent_table(
            a_white=[Move("e2e4", 1), Move("e4d5", 1)],
            a_black=[Move("d7d5", 1)],
            b_white=[Move("d2d4", 0.5)],
            b_black=script,
        )
        players[3].refresh_waiting_turn = refresh
        record, events = await play(players)
        assert len(players[3].turns) == 1
        assert not of_type(events, ActionIgnored)
        played = [m.uci for m in record.game.moves if m.seat is Seat.B_BLACK]
        assert played == ([] if not refresh else ["g8f6"])


async def test_clocks_told_never_go_up_for_a_move_already_arrived(
    autojump_clock: object,
) -> None:
    # Both moves reach the arbiter together at 1.5, stamped 1.0 and 1.2: while it
    # tells the first, the second seat's clock is shown as of its own move (8.8),
    # not as of 1.5 (8.5), so its next event (8.8) does not go up.
    players = silent_table(
        a_white=[Move("e2e4", 1, late=0.5)],
        b_white=[Move("d2d4", 1.2, late=0.3)],
    )
    record, _ = await play(players)
    clocks = {m.uci: m.clock for m in record.game.moves[:2]}
    assert clocks == {"e2e4": 9.0, "d2d4": pytest.approx(8.8)}
    for player in players:
        for seat in Seat:
            shown = [state.clocks[seat] for state in player.snapshots]
            assert shown == sorted(shown, reverse=True), (player.name, seat, shown)
    b_white = [s.clocks[Seat.B_WHITE] for s in players[0].snapshots if s.version >= 1]
    assert b_white[0] == pytest.approx(8.8)


async def test_states_name_dropped_pawns_that_may_not_double_step(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, dropped_pawn_double_step=False)
    players = silent_table(
        a_white=[Move("e2e4", 1), Move("e4d5", 1)],
        a_black=[Move("d7d5", 1)],
        b_white=[Move("d2d4", 0.5), Move("g1f3", 0.5)],
        b_black=[Move("e7e6", 0.5), Wait(0.1), Move("P@e7", 1)],
    )
    players[3].refresh_waiting_turn = True
    record, _ = await play(players, rules)
    assert record.game.moves[-1].uci == "P@e7"
    last = players[0].snapshots[-1]
    assert last.no_double == {BoardId.A: (), BoardId.B: ("e7",)}


async def test_waiting_keeps_the_clock_running(autojump_clock: object) -> None:
    players = silent_table(a_white=[(Wait(2, "need n"), Move("e2e4", 3))])
    record, events = await play(players)
    waits = of_type(events, PlayerWaits)
    assert [(w.seat, w.reason, w.now) for w in waits] == [(Seat.A_WHITE, "need n", 2.0)]
    assert record.used[0] == 5.0
    assert record.game.moves[0].clock == 5.0


# -- tokens, illegal moves, leaving --------------------------------------------


async def test_a_stale_token_is_ignored(autojump_clock: object) -> None:
    players = silent_table(
        a_white=[Move("e2e4", 1), (Stale("g1f3", 1), Move("d2d4", 1))],
        a_black=[Move("e7e5", 1)],
    )
    record, events = await play(players)
    ignored = of_type(events, ActionIgnored)
    assert len(ignored) == 1
    assert ignored[0].seat is Seat.A_WHITE
    assert ignored[0].now == 3.0
    assert ignored[0].reason == "turn 1 is not open"
    assert [m.uci for m in record.game.moves] == ["e2e4", "e7e5", "d2d4"]
    assert record.game.moves[2].at == 4.0


async def test_a_stale_wait_is_ignored_while_a_newer_turn_is_open(
    autojump_clock: object,
) -> None:
    players = silent_table(
        a_white=[Move("e2e4", 1), (Wait(1, "old", stale=True), Wait(1, "new"), Move("d2d4", 1))],
        a_black=[Move("e7e5", 1)],
    )
    record, events = await play(players)
    [ignored] = of_type(events, ActionIgnored)
    assert (ignored.seat, ignored.now, ignored.action.token) == (Seat.A_WHITE, 3.0, 1)
    waits = of_type(events, PlayerWaits)
    assert ignored.reason == "an answer to a turn that is not open"
    assert [(w.seat, w.reason, w.now) for w in waits] == [(Seat.A_WHITE, "new", 4.0)]
    assert [m.uci for m in record.game.moves] == ["e2e4", "e7e5", "d2d4"]


async def test_illegal_move_loses_by_default(autojump_clock: object) -> None:
    record, _ = await play(silent_table(a_white=[Move("e2e5", 1)]))
    outcome = record.outcome
    assert outcome.termination is Termination.ILLEGAL_MOVE
    assert outcome.seat is Seat.A_WHITE
    assert outcome.winner is Team.TWO
    assert outcome.reason.startswith("A-White played an illegal move 'e2e5': e2e5: illegal move")
    assert record.ended == 1.0


async def test_illegal_move_is_refused_under_reject(autojump_clock: object) -> None:
    rules = HouseRules(time=10.0, illegal_move="reject")
    players = silent_table(a_white=[Move("e2e5", 1), Move("e2e4", 1)])
    record, events = await play(players, rules)
    refused = of_type(events, MoveRefused)
    assert [(r.seat, r.text, r.now) for r in refused] == [(Seat.A_WHITE, "e2e5", 1.0)]
    # The turn re-opened with a new token and the clock kept running.
    tokens = [token for _, token, _ in players[0].turns]
    assert len(tokens) == 2 and tokens[0] != tokens[1]
    assert players[0].refused == [(Seat.A_WHITE, tokens[0], "e2e5")]
    assert [r.reason for r in refused] == players[0].refusals
    assert refused[0].reason.startswith("e2e5: illegal move in ")
    assert record.used[0] == 2.0
    assert record.game.moves[0].clock == 8.0


async def test_a_persons_illegal_move_is_refused(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e5", 1), Move("e4", 1)])
    record, events = await play(players, human_seats={Seat.A_WHITE})
    assert players[1].info is not None
    assert players[1].info.human_seats == frozenset({Seat.A_WHITE})
    assert len(of_type(events, MoveRefused)) == 1
    assert record.game.moves[0].san == "e4"


async def test_gone_means_the_seat_left(autojump_clock: object) -> None:
    record, _ = await play(silent_table(b_white=[Leave("pipe closed", 2)]))
    outcome = record.outcome
    assert outcome.termination is Termination.LEFT
    assert outcome.seat is Seat.B_WHITE
    assert outcome.winner is Team.ONE
    assert outcome.reason == "B-White left: pipe closed"
    assert record.ended == 2.0


async def test_a_player_that_fails_to_start_loses(autojump_clock: object) -> None:
    players = silent_table()
    players[2] = FakePlayer(Seat.B_WHITE, start_error="handshake: no bugok")
    record, events = await play(players)
    assert record.outcome.termination is Termination.LEFT
    assert record.outcome.seat is Seat.B_WHITE
    assert "failed to start: handshake: no bugok" in record.outcome.reason
    assert record.started is None
    assert not of_type(events, MatchStarted)
    assert all(p.closed == 1 for p in players)


async def test_a_player_that_never_starts_times_out(autojump_clock: object) -> None:
    players = silent_table()
    players[1] = FakePlayer(Seat.A_BLACK, start_delay=1000)
    record, _ = await play(players, start_timeout=5.0)
    assert record.outcome.seat is Seat.A_BLACK
    assert "within 5 s" in record.outcome.reason
    assert trio.current_time() == 5.0


#: Both ways a table tells its players: under a deadline, and directly when
#: every player is prompt.
KINDS = pytest.mark.parametrize("kind", [FakePlayer, PromptFake])
#: What a broken player says, and the reason its leaving gets.
BROKEN = pytest.mark.parametrize(
    ("text", "reason"), [("pipe closed", "connection lost: pipe closed"), ("", "connection lost")]
)


@KINDS
@BROKEN
@pytest.mark.parametrize(
    ("seat", "broken"),
    [
        (Seat.A_BLACK, {"broken_on_turn": True}),  # its turn, after A-White's move
        (Seat.B_WHITE, {"broken_on": ["moved"]}),  # a move on the other board
    ],
)
async def test_a_player_whose_pipe_broke_has_left(
    autojump_clock: object,
    kind: type[FakePlayer],
    text: str,
    reason: str,
    seat: Seat,
    broken: dict[str, Any],
) -> None:
    players = silent_table(kind, a_white=[Move("e2e4", 1)])
    players[SEATS.index(seat)] = kind(seat, broken_text=text, **broken)
    record, _ = await play(players)
    assert (record.outcome.termination, record.outcome.seat) == (Termination.LEFT, seat)
    assert record.outcome.reason == f"{seat} left: {reason}"
    assert record.ended == 1.0
    assert [p.ply for p in players[3].heard] == [1]  # B-Black heard the move


@KINDS
async def test_the_turn_a_quiet_move_opens_carries_the_table_after_it(
    autojump_clock: object, kind: type[FakePlayer]
) -> None:
    players = silent_table(kind, a_white=[Move("e2e4", 1)])
    record, _ = await play(players, HouseRules(time=5.0))
    [state] = players[1].states  # A-Black's one turn
    assert state.version == 1
    assert state.fens[BoardId.A] == record.game.boards[BoardId.A].fen()
    assert players[1].turns[0][2] == 1.0


@KINDS
async def test_the_next_player_gone_when_told_a_move_ends_its_board_after_the_others_hear_it(
    autojump_clock: object, kind: type[FakePlayer]
) -> None:
    # board_end=continue: A-Black cannot take A-White's move (the next to move
    # hears it first). The others still hear the move, and only then that
    # board A ended; A-Black gets no turn; board B plays on.
    players = silent_table(kind, a_white=[Move("e2e4", 1)])
    players[1] = kind(Seat.A_BLACK, broken_on=["moved"])
    record, _ = await play(players, HouseRules(time=10.0, board_end="continue"))
    result = record.game.board_results[BoardId.A]
    assert (result.termination, result.seat) == (Termination.LEFT, Seat.A_BLACK)
    assert result.reason == "A-Black left: connection lost: pipe closed"
    assert players[1].turns == []
    for player in (players[0], players[2], players[3]):
        journal = player.journal
        assert journal.index(("moved", 1)) < journal.index(("board_ended", BoardId.A))
    assert record.game.board_results[BoardId.B].termination is Termination.FLAG


async def test_a_player_that_stops_taking_notifications_has_left(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)])
    players[3] = FakePlayer(Seat.B_BLACK, stuck_on_moves=True)
    record, _ = await play(players, HouseRules(time=60.0))
    assert record.outcome.termination is Termination.LEFT
    assert record.outcome.seat is Seat.B_BLACK
    assert "stopped reading" in record.outcome.reason
    assert record.ended == 1.0 + NOTIFY_TIMEOUT


async def test_a_player_never_ready_for_the_game_has_left_as_not_ready(
    autojump_clock: object,
) -> None:
    """Not "stopped reading": what it did not answer was the new game (a native
    engine's ``readyok`` to the ``isready`` after ``newgame``)."""
    players = silent_table(a_white=[Move("e2e4", 1)])
    players[2] = FakePlayer(Seat.B_WHITE, hang_on=["new_game"])
    record, _ = await play(players, HouseRules(time=60.0))
    assert (record.outcome.termination, record.outcome.seat) == (Termination.LEFT, Seat.B_WHITE)
    assert record.outcome.reason == (
        "B-White left: not ready for the game (no answer to the new game within 10 s)"
    )
    assert record.game.plies == 0


# -- resign, draws, partner messages -------------------------------------------


async def test_resign(autojump_clock: object) -> None:
    record, _ = await play(silent_table(a_white=[Resign(3)]))
    assert record.outcome.termination is Termination.RESIGNATION
    assert record.outcome.winner is Team.TWO
    assert record.ended == 3.0


async def test_resign_under_board_end_continue_ends_one_board(autojump_clock: object) -> None:
    rules = HouseRules(time=10.0, board_end="continue")
    players = silent_table(a_white=[Resign(3)], b_white=[Move("d2d4", 1)])
    record, _ = await play(players, rules)
    # Board A is over at 3 (team 2 wins it); board B plays on until B-Black flags at 11.
    assert record.outcome.termination is Termination.BOARDS_SUMMED
    assert record.outcome.winner is Team.TWO
    assert record.outcome.reason == (
        "boards summed 0-2 (board A: A-White resigned; board B: B-Black lost on time)"
    )
    assert record.ended == 11.0
    assert record.clocks.banked[Seat.A_WHITE] == 7.0  # stopped when board A ended
    for player in players:
        assert [(r.board.value, r.winner) for r in player.boards_ended] == [("A", Team.TWO)]


async def test_a_board_that_ends_stops_both_its_clocks_and_is_told_once(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, board_end="continue")
    # A-White resigns at 3, while A-Black's clock runs; board B plays on. A-Black
    # leaves at 5, a change on a board already over: nothing is told again.
    players = silent_table(
        a_white=[(Move("e2e4", 1), Resign(2))],
        a_black=[Leave(after=4)],
        b_white=[Move("d2d4", 4)],
        b_black=[Move("d7d5", 1)],
    )
    record, _ = await play(players, rules)
    assert record.game.board_results[BoardId.A].termination is Termination.RESIGNATION
    assert record.clocks.banked[Seat.A_BLACK] == 8.0  # stopped at 3, not at the end
    assert record.outcome.reason.endswith("board B: B-White lost on time)")
    for player in players:
        assert [r.board for r in player.boards_ended] == [BoardId.A]


async def test_a_player_that_cannot_hear_a_board_end_has_left(autojump_clock: object) -> None:
    rules = HouseRules(time=10.0, board_end="continue")
    players = silent_table(a_white=[Resign(1)])
    players[2] = FakePlayer(Seat.B_WHITE, broken_on=["board_ended"])
    record, _ = await play(players, rules)
    assert record.game.board_results[BoardId.B].seat is Seat.B_WHITE
    assert record.game.board_results[BoardId.B].termination is Termination.LEFT
    assert record.ended == 1.0


async def test_draw_needs_all_four_engines(autojump_clock: object) -> None:
    players = silent_table(a_white=[Offer(1)], a_black=[], b_white=[Offer(2)], b_black=[])
    record, events = await play(players)
    assert record.outcome.termination is Termination.FLAG  # only two agreed
    assert players[1].offers == [Seat.A_WHITE, Seat.B_WHITE]
    assert players[0].offers == [Seat.B_WHITE]
    offers = of_type(events, DrawOffered)
    assert [(o.seat, o.now) for o in offers] == [(Seat.A_WHITE, 1.0), (Seat.B_WHITE, 2.0)]


async def test_a_player_that_cannot_hear_a_draw_offer_has_left(autojump_clock: object) -> None:
    players = silent_table(a_white=[Offer(1)])
    players[2] = FakePlayer(Seat.B_WHITE, broken_on=["draw_offered"])
    record, _ = await play(players)
    assert (record.outcome.termination, record.outcome.seat) == (Termination.LEFT, Seat.B_WHITE)
    assert record.outcome.reason == "B-White left: connection lost: pipe closed"


async def test_a_player_that_cannot_hear_its_move_refused_has_left(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, illegal_move="reject")
    players = silent_table(a_white=[Move("e2e4", 1)])
    script = {Seat.A_BLACK: [Move("e7e4", 1)]}
    players[1] = FakePlayer(Seat.A_BLACK, script, broken_on=["move_refused"])
    record, _ = await play(players, rules)
    assert (record.outcome.termination, record.outcome.seat) == (Termination.LEFT, Seat.A_BLACK)
    assert record.ended == 2.0


async def test_draw_by_agreement_of_all_four(autojump_clock: object) -> None:
    players = silent_table(
        a_white=[(Offer(1), Move("e2e4"))],
        a_black=[Offer(1)],
        b_white=[(Offer(2), Move("d2d4"))],
        b_black=[Offer(1)],
    )
    record, _ = await play(players)
    assert record.outcome.termination is Termination.AGREEMENT
    assert record.outcome.result is Result.DRAW
    assert record.ended == 3.0


async def test_draw_needs_only_the_people_when_people_play(autojump_clock: object) -> None:
    players = silent_table(a_white=[Offer(4)])
    record, _ = await play(players, human_seats={Seat.A_WHITE})
    assert record.outcome.termination is Termination.AGREEMENT
    assert record.ended == 4.0


async def test_under_draw_both_teams_a_person_alone_cannot_draw_against_engines(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, draw="both-teams")
    players = silent_table(a_white=[Offer(1)], b_black=[Offer(2)])
    record, _ = await play(players, rules, human_seats={Seat.A_WHITE})
    # The person and its partner's engine agreed; the other team's engines never did.
    assert record.outcome.termination is Termination.FLAG
    assert record.ended == 10.0


async def test_under_draw_both_teams_the_other_teams_engines_must_accept(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, draw="both-teams")
    players = silent_table(
        a_white=[(Offer(1), Move("e2e4"))], a_black=[Offer(1)], b_white=[Offer(3)]
    )
    record, events = await play(players, rules, human_seats={Seat.A_WHITE})
    # The person's engine partner need not agree: the person speaks for team 1.
    assert record.outcome.termination is Termination.AGREEMENT
    assert record.ended == 3.0
    assert [o.seat for o in of_type(events, DrawOffered)] == [
        Seat.A_WHITE,
        Seat.A_BLACK,
        Seat.B_WHITE,
    ]
    # The game keeps who agreed, and when, for the record.
    assert [(o.seat, o.at) for o in record.game.draw_offers] == [
        (Seat.A_WHITE, 1.0),
        (Seat.A_BLACK, 2.0),
        (Seat.B_WHITE, 3.0),
    ]


async def test_under_draw_both_teams_people_on_both_teams_draw_alone(
    autojump_clock: object,
) -> None:
    rules = HouseRules(time=10.0, draw="both-teams")
    players = silent_table(a_white=[Offer(1)], b_white=[Offer(2)])
    record, _ = await play(players, rules, human_seats={Seat.A_WHITE, Seat.B_WHITE})
    assert record.outcome.termination is Termination.AGREEMENT
    assert record.ended == 2.0


async def test_partner_messages_go_to_the_partner_only(autojump_clock: object) -> None:
    players = silent_table(a_white=[(Tell("++n", 1), Info("depth 3", 1))])
    record, events = await play(players)
    assert players[3].told == [(Seat.B_BLACK, "++n")]
    assert all(p.told == [] for p in players[:3])
    assert [(m.seat, m.text, m.at) for m in record.game.messages] == [(Seat.A_WHITE, "++n", 1.0)]
    [told] = of_type(events, PartnerTold)
    assert (told.message, told.now) == (record.game.messages[0], 1.0)
    [info] = of_type(events, InfoReported)
    assert (info.seat, info.text, info.now) == (Seat.A_WHITE, "depth 3", 2.0)


async def test_a_partner_that_cannot_hear_a_message_has_left(autojump_clock: object) -> None:
    players = silent_table(a_white=[Tell("++n", 1)])
    players[3] = FakePlayer(Seat.B_BLACK, broken_on=["partner_says"])
    record, _ = await play(players)
    assert (record.outcome.termination, record.outcome.seat) == (Termination.LEFT, Seat.B_BLACK)
    assert record.ended == 1.0


async def test_every_player_starts_with_the_match_info_and_the_first_state(
    autojump_clock: object,
) -> None:
    fen_a = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1"
    players = silent_table()
    players[2].told_name = "Engine 2.0"  # told during its handshake
    record, _ = await play(players, fen_a=fen_a, game_id="g42")
    names = {seat: seat.slug.replace("-", "_") for seat in Seat} | {Seat.B_WHITE: "Engine 2.0"}
    assert record.names == names
    for player in players:
        info, state = player.info, player.first_state
        assert info is not None and state is not None
        assert (info.game_id, info.names, info.rules) == ("g42", names, TEN)
        assert info.start_fens == {BoardId.A: fen_a, BoardId.B: STARTING_FEN}
        assert (state.version, dict(state.fens)) == (0, info.start_fens)
        assert dict(state.clocks) == dict.fromkeys(Seat, 10.0)


# -- the table -------------------------------------------------------------------


async def test_every_player_hears_every_move_and_turns_carry_state(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("d7d5", 1)])
    record, _ = await play(players)
    for player in players:
        assert [p.uci for p in player.heard] == ["e2e4", "d7d5"]
    # A-White's second turn: a snapshot of version 2 with its clock at 9.
    seat, _, at = players[0].turns[1]
    state = players[0].states[1]
    assert (seat, at, state.version, state.clocks[Seat.A_WHITE]) == (Seat.A_WHITE, 2.0, 2, 9.0)
    assert record.outcome.seat is Seat.B_WHITE  # B-White flags at 10


async def test_a_capture_changes_the_fen_told_for_the_other_board_too(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[Move("e2e4", 1), Move("e4d5", 1)], a_black=[Move("d7d5", 1)])
    await play(players)
    fens_b = [fens[BoardId.B] for fens in players[3].heard_fens]
    assert fens_b == [STARTING_FEN, STARTING_FEN, STARTING_FEN.replace("[]", "[p]")]


async def test_times_in_the_record_count_from_the_start_of_the_clocks(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[(Tell("hi", 0.5), Move("e2e4", 1))])
    players[3].start_delay = 2.0  # the clocks start at 2
    record, _ = await play(players)
    assert record.started == 2.0
    assert [(m.uci, m.at) for m in record.game.moves] == [("e2e4", 1.5)]
    assert [(m.text, m.at) for m in record.game.messages] == [("hi", 0.5)]


async def test_one_player_may_hold_two_seats(autojump_clock: object) -> None:
    team = FakePlayer((Seat.A_WHITE, Seat.B_BLACK), {Seat.A_WHITE: [Move("e2e4", 1)]}, name="team")
    others = [FakePlayer(Seat.A_BLACK), FakePlayer(Seat.B_WHITE)]
    record, _ = await play([team, *others])
    assert [p.uci for p in team.heard] == ["e2e4"]  # told once, not once per seat
    assert record.names[Seat.B_BLACK] == "team"
    assert team.closed == 1


async def test_seats_must_be_held_exactly_once() -> None:
    with pytest.raises(ValueError, match="nobody holds B-Black"):
        await run_match([FakePlayer(s) for s in list(Seat)[:3]])
    with pytest.raises(ValueError, match="held by two players"):
        await run_match([FakePlayer(s) for s in [*Seat, Seat.A_WHITE]])


async def test_cancellation_aborts_and_closes_everyone(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)])
    events: list[MatchEvent] = []
    with trio.move_on_after(5):
        await run_match(players, HouseRules(time=60.0), observer=events.append)
    ended = of_type(events, MatchEnded)
    assert len(ended) == 1
    assert ended[0].outcome.result is Result.UNFINISHED
    assert ended[0].outcome.termination is Termination.ABORTED
    assert ended[0].now == 5.0
    assert ended[0].outcome.reason == "interrupted: the match was stopped before it ended"
    assert ended[0].game.outcome == ended[0].outcome
    assert all(p.closed == 1 and p.outcome == ended[0].outcome for p in players)
    [started] = of_type(events, MatchStarted)
    assert (started.now, started.names[Seat.A_WHITE], started.clocks.banked[Seat.A_WHITE]) == (
        0.0,
        "a_white",
        60.0,
    )
    assert started.game is ended[0].game
    [moved] = of_type(events, MovePlayed)
    assert moved.clocks.banked[Seat.A_WHITE] == 59.0 and not moved.clocks.is_running(Seat.A_WHITE)
    # The next turns have opened: their clocks run in the event (a live page counts them down).
    assert moved.clocks.is_running(Seat.A_BLACK)


async def test_a_full_random_match_keeps_exact_clocks(autojump_clock: object) -> None:
    rules = HouseRules(time=120.0, increment=1.0, max_plies=200)
    players = [RandomFake(seat, seed=i, think=0.25 * (i + 1)) for i, seat in enumerate(Seat)]
    record, events = await play(players, rules)
    assert record.outcome is not None
    assert record.game.plies > 10
    # Every move's clock reading equals base + increments - time used so far for that seat.
    for seat in Seat:
        mine = [
            (p, u) for p, u in zip(record.game.moves, record.used, strict=True) if p.seat is seat
        ]
        total = rules.time
        for played, used in mine:
            total += rules.increment - used
            assert played.clock == pytest.approx(total, abs=1e-9)
    assert len(of_type(events, MovePlayed)) == record.game.plies
    # Each seat thinks a fixed virtual time, and that is exactly what its clock was charged.
    thinks = {player.seats[0]: player.think for player in players}
    assert [u for u in record.used] == [thinks[p.seat] for p in record.game.moves]


# -- the edges of a match: start, end, faults ------------------------------------


async def test_the_end_event_names_the_players_and_the_final_clocks(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], b_white=[Move("d2d4", 2)])
    players[2].told_name = "told"  # as an engine names itself in its handshake
    record, events = await play(players)
    [ended] = of_type(events, MatchEnded)
    assert ended.names == record.names
    assert ended.names[Seat.B_WHITE] == "told" and ended.names[Seat.A_WHITE] == "a_white"
    assert ended.clocks == record.clocks
    assert ended.clocks.banked[Seat.A_BLACK] == 0.0 and not ended.clocks.running


async def test_a_failed_start_under_board_end_continue_loses_its_board_and_aborts(
    autojump_clock: object,
) -> None:
    # Board B never began: the match ends without a result, board A's loss recorded.
    players = silent_table()
    players[1] = FakePlayer(Seat.A_BLACK, start_error="boom")
    record, events = await play(players, HouseRules(time=10.0, board_end="continue"))
    assert record.outcome.result is Result.UNFINISHED
    assert record.outcome.reason == "aborted"
    assert record.game.board_results[BoardId.A].reason == "A-Black left: failed to start: boom"
    assert of_type(events, MatchEnded)[0].outcome == record.outcome
    assert not of_type(events, MatchStarted)
    assert all(p.closed == 1 and p.outcome == record.outcome for p in players)


async def test_seats_nobody_holds_are_all_named() -> None:
    with pytest.raises(ValueError) as caught:
        await run_match([FakePlayer(Seat.A_WHITE), FakePlayer(Seat.B_BLACK)])
    assert str(caught.value) == "nobody holds A-Black, B-White"


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (FileNotFoundError(2, "No such file or directory"), "No such file or directory"),
        (OSError("exec format error"), "exec format error"),
    ],
)
async def test_an_engine_that_cannot_be_run_fails_to_start_saying_why(
    autojump_clock: object, error: OSError, reason: str
) -> None:
    players = silent_table()
    players[2] = FakePlayer(Seat.B_WHITE, start_os_error=error)
    record, _ = await play(players)
    assert record.outcome.seat is Seat.B_WHITE
    assert record.outcome.reason == f"B-White left: failed to start: {reason}"


async def test_the_defaults_game_id_start_and_close_timeouts(autojump_clock: object) -> None:
    players = silent_table()
    players[3] = FakePlayer(Seat.B_BLACK, start_delay=1000.0)
    record = await run_match(players)
    assert record.game_id == "1"
    assert record.outcome.reason == "B-Black left: failed to start: no answer within 30 s"
    assert record.ended == 30.0

    # Game over and closing: 2 s for one player's game over, 10 s for everything.
    players = silent_table(a_white=[Move("e2e4", 1)])
    players[1] = FakePlayer(Seat.A_BLACK, hang_on=["game_over"])
    players[2] = FakePlayer(Seat.B_WHITE, hang_on=["aclose"])
    began = trio.current_time()
    record = await run_match(players, TEN)
    assert players[0].info is not None and players[0].info.game_id == "1"
    assert record.ended == began + 10.0  # B-White flags
    assert players[1].closed_at == record.ended + 2.0 and players[1].closed == 1
    assert players[2].closed == 0
    assert trio.current_time() == record.ended + 10.0


async def test_both_start_positions_are_played_from(autojump_clock: object) -> None:
    fen_a = "4k3/8/8/8/8/8/8/4K2R[] w K - 0 1"
    fen_b = "r3k3/8/8/8/8/8/8/4K3[] b q - 0 1"
    players = silent_table(a_white=[Move("h1h8", 1)], b_black=[Move("a8a1", 1)])
    record, _ = await play(players, fen_a=fen_a, fen_b=fen_b)
    assert record.game.start_fens == {BoardId.A: fen_a, BoardId.B: fen_b}
    first = players[0].first_state
    assert first is not None
    assert first.fens[BoardId.A].startswith("4k3/8/8/8/8/8/8/4K2R")
    assert first.fens[BoardId.B].startswith("r3k3/8/8/8/8/8/8/4K3")
    assert sorted(m.uci for m in record.game.moves) == ["a8a1", "h1h8"]


async def test_a_cancel_while_players_start_is_an_interruption_with_its_reason(
    autojump_clock: object,
) -> None:
    players = silent_table()
    for player in players:
        player.start_delay = 10.0
    events: list[MatchEvent] = []
    with trio.move_on_after(5):
        await run_match(
            players, TEN, observer=events.append, stop_reason=lambda: "interrupted by SIGTERM"
        )
    [ended] = of_type(events, MatchEnded)
    assert ended.outcome.termination is Termination.ABORTED
    assert ended.outcome.reason == "interrupted by SIGTERM"
    assert all(p.closed == 1 for p in players)


async def test_a_bug_in_a_player_aborts_as_an_internal_error_and_closes_everyone(
    autojump_clock: object,
) -> None:
    class Buggy(FakePlayer):
        async def moved(self, played: object, state: object) -> None:
            raise RuntimeError("bug")

    players = silent_table(a_white=[Move("e2e4", 1)])
    players[3] = Buggy(Seat.B_BLACK)
    events: list[MatchEvent] = []
    with pytest.raises(BaseExceptionGroup) as caught:
        await run_match(players, TEN, observer=events.append)
    assert caught.value.subgroup(RuntimeError) is not None
    [ended] = of_type(events, MatchEnded)
    assert ended.outcome.reason == "aborted: internal error (RuntimeError)"
    assert ended.now == 1.0
    assert all(p.closed == 1 and p.outcome == ended.outcome for p in players)


@pytest.mark.parametrize(
    ("text", "reason"), [("pipe closed", "connection lost: pipe closed"), ("", "connection lost")]
)
async def test_a_player_that_cannot_hear_the_new_game_has_left(
    autojump_clock: object, text: str, reason: str
) -> None:
    players = silent_table()
    players[2] = FakePlayer(Seat.B_WHITE, broken_on=["new_game"], broken_text=text)
    record, events = await play(players)
    assert record.outcome.seat is Seat.B_WHITE
    assert record.outcome.reason == f"B-White left: {reason}"
    assert record.ended == 0.0 and not of_type(events, MatchStarted)


# -- prompt players: no deadline on the calls of every move ------------------------


async def test_prompt_players_are_told_moves_and_turns_without_a_deadline(
    autojump_clock: object,
) -> None:
    """``Player.prompt`` players never block, so the arbiter sets no deadline on
    ``moved`` and ``your_turn``; these break the contract (each call takes longer
    than NOTIFY_TIMEOUT) only to show that no deadline is set, on every path: a
    quiet move, a capture passing a piece, a turn opened."""
    slow = NOTIFY_TIMEOUT + 1
    rules = HouseRules(time=1000.0, max_plies=5)
    script = {
        Seat.A_WHITE: [Move("e2e4", 1), Move("e4d5", 1)],
        Seat.A_BLACK: [Move("d7d5", 1), Move("d8d5", 1)],
        Seat.B_WHITE: [Move("d2d4", 1)],
    }
    players = [
        PromptFake(seat, script, name=seat.slug, slow_moves=slow, slow_turns=slow) for seat in Seat
    ]
    record, _ = await play(players, rules)
    assert record.outcome.termination is Termination.MAX_PLIES
    # e4d5 passes a pawn (the other path of a move); d8d5 comes after it was told.
    assert [m.uci for m in record.game.moves] == ["e2e4", "d2d4", "d7d5", "e4d5", "d8d5"]
    # A call that is not about a move keeps its deadline, prompt or not.
    players = [PromptFake(seat, name=seat.slug) for seat in Seat]
    players[1].new_game = _never_returns  # type: ignore[method-assign]
    began = trio.current_time()
    record, _ = await play(players)
    assert record.outcome.seat is Seat.A_BLACK
    assert record.ended == began + NOTIFY_TIMEOUT
    assert "not ready for the game" in record.outcome.reason  # it was the new game


async def _never_returns(*args: object) -> None:
    await trio.sleep_forever()


async def test_a_prompt_player_at_a_table_with_others_gets_no_deadline_either(
    autojump_clock: object,
) -> None:
    slow = NOTIFY_TIMEOUT + 1
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    players[1] = PromptFake(
        Seat.A_BLACK, {Seat.A_BLACK: [Move("e7e5", 1)]}, slow_moves=slow, slow_turns=slow
    )
    record, _ = await play(players, HouseRules(time=100.0, max_plies=2))
    assert record.outcome.termination is Termination.MAX_PLIES
    assert [m.uci for m in record.game.moves] == ["e2e4", "e7e5"]


# -- what a move tells -------------------------------------------------------------


async def test_a_turn_a_move_opens_is_told_the_move_s_table_though_telling_took_time(
    autojump_clock: object,
) -> None:
    # Telling each player takes 0.5 s: the turns that e2e4 and the capture open
    # still carry the table as it was when each move was judged (the clocks its
    # event told), not as it is once everybody has heard.
    script = {
        Seat.A_WHITE: [Move("e2e4", 1), Move("e4d5", 1)],
        Seat.A_BLACK: [Move("d7d5", 1), Move("d8d5", 1)],
        Seat.B_WHITE: [Move("d2d4", 1)],
    }
    players = [FakePlayer(seat, script, name=seat.slug, slow_moves=0.5) for seat in Seat]
    record, _ = await play(players, HouseRules(time=100.0, max_plies=5))
    assert [m.uci for m in record.game.moves][3:] == ["e4d5", "d8d5"]
    opened = 0
    for player in players:
        for (seat, _, at), state in zip(player.turns, player.states, strict=True):
            if state.version == 0:
                continue  # the first turns: no move opened them
            told = next(s for s in player.heard_states if s.version == state.version)
            assert state is told, (seat, state.version)
            assert at > record.game.moves[state.version - 1].at  # told after the slow telling
            opened += 1
    assert opened == 4  # e2e4's, d2d4's, d7d5's and the capture's


async def test_each_player_s_block_is_written_in_the_order_the_players_were_told(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    await run_match(players, TEN)
    for ply in (1, 2):
        told = []
        for player in players:
            at = player.journal.index(("moved", ply))
            end = next(e[1] for e in player.journal[at:] if e[0] == "end")
            told.append((end, player.name))
        order = [name for _, name in sorted(told)]
        mover, follower = ("a_white", "a_black") if ply == 1 else ("a_black", "a_white")
        assert order == [follower, "b_white", "b_black", mover]


async def test_a_waiting_white_seat_gets_a_fresh_turn_when_a_white_piece_reaches_it(
    autojump_clock: object,
) -> None:
    # A-Black's dxe4 at 4 takes a white pawn: it goes to B-White, waiting since 0.1.
    players = silent_table(
        a_white=[Move("e2e4", 1), Move("g1f3", 1)],
        a_black=[Move("d7d5", 1), Move("d5e4", 1)],
        b_white=[Wait(0.1), Move("P@e3", 1)],
    )
    players[2].refresh_waiting_turn = True
    record, _ = await play(players, HouseRules(time=10.0, max_plies=5))
    assert [(seat, at) for seat, _, at in players[2].turns] == [
        (Seat.B_WHITE, 0.0),
        (Seat.B_WHITE, 4.0),
    ]
    assert record.game.moves[-1].uci == "P@e3"


@pytest.mark.parametrize("limit", [None, 5.0])
async def test_states_tell_each_seat_what_is_left_of_its_turn(
    autojump_clock: object, limit: float | None
) -> None:
    rules = HouseRules(time=60.0, turn_time_limit=limit)
    players = silent_table(a_white=[Move("e2e4", 0.25)], b_white=[Move("d2d4", 4.75)])
    await play(players, rules)
    # e2e4 at 0.25: B-White's turn has run 0.25 s; d2d4 at 4.75: A-Black's has run 4.5 s.
    first = next(s for s in players[1].states if s.version == 1)
    second = next(s for s in players[3].states if s.version == 2)
    if limit is None:
        assert first.turn_left == {} and second.turn_left == {}
        return
    assert first.turn_left == {
        Seat.A_WHITE: 5.0,
        Seat.A_BLACK: 5.0,
        Seat.B_WHITE: 4.75,
        Seat.B_BLACK: 5.0,
    }
    assert second.turn_left[Seat.A_BLACK] == 0.5
    assert second.turn_left[Seat.B_BLACK] == 5.0


async def test_what_is_left_of_a_turn_counts_a_move_already_arrived_up_to_its_arrival(
    autojump_clock: object,
) -> None:
    # As for the clocks: e2e4 and d2d4, stamped 1.0 and 1.2, reach the arbiter
    # together at 1.5: the state told with the first gives the other seat what
    # was left of its turn at its move, not at 1.5.
    rules = HouseRules(time=60.0, turn_time_limit=5.0)
    players = silent_table(
        a_white=[Move("e2e4", 1, late=0.5)],
        b_white=[Move("d2d4", 1.2, late=0.3)],
    )
    record, _ = await play(players, rules)
    first = next(s for s in players[0].snapshots if s.version == 1)
    # Either move may be judged first (both reach the arbiter at 1.5).
    if record.game.moves[0].uci == "e2e4":
        assert first.turn_left[Seat.B_WHITE] == pytest.approx(5.0 - 1.2)
    else:
        assert first.turn_left[Seat.A_WHITE] == pytest.approx(5.0 - 1.0)


async def test_a_wait_already_arrived_does_not_stop_its_seat_s_clock_in_a_state(
    autojump_clock: object,
) -> None:
    # Telling A-White its own e2e4 takes it 1 s (from 1 to 2). Meanwhile A-Black
    # moves at 1.1 and B-White answers ``wait`` at 1.5: the state told with e7e5,
    # made at 2, runs B-White's clock to 2 (a wait does not stop a clock).
    players = silent_table(
        a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 0.1)], b_white=[Wait(1.5)]
    )
    players[0].slow_moves = 1.0
    record, _ = await play(players, HouseRules(time=10.0, max_plies=2))
    assert [(m.uci, m.at) for m in record.game.moves] == [("e2e4", 1.0), ("e7e5", 1.1)]
    told = next(s for s in players[3].heard_states if s.version == 2)
    assert told.clocks[Seat.A_BLACK] == pytest.approx(10.0 - 0.1)
    assert told.clocks[Seat.B_WHITE] == 8.0


async def test_a_frozen_table_answers_only_for_boards(autojump_clock: object) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)])
    await play(players, HouseRules(time=60.0, max_plies=1))
    state = players[0].states[0]  # frozen when e2e4 was played
    assert BoardId.A in state.fens and state.fens.get("A") is None  # type: ignore[call-overload]
    with pytest.raises(KeyError, match="'A'"):
        state.fens["A"]  # type: ignore[index]


async def test_players_already_started_play_on_the_given_channel_and_stay_open(
    autojump_clock: object,
) -> None:
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    send, receive = trio.open_memory_channel[Action](100)
    async with trio.open_nursery() as nursery:
        for player in players:
            await player.start(nursery, send.clone())
        record = await run_match(players, HouseRules(time=10.0, max_plies=2), actions=receive)
        nursery.cancel_scope.cancel()
    assert [m.uci for m in record.game.moves] == ["e2e4", "e7e5"]
    assert all(p.starts == 1 and p.closed == 0 for p in players)
    assert all(p.outcome == record.outcome for p in players)


async def test_a_player_lost_while_hearing_a_quiet_move_ends_its_board_at_that_instant(
    autojump_clock: object,
) -> None:
    # board_end=continue: B-Black cannot hear e2e4 (told at 1): board B ends then,
    # its clocks stopped at 1; board A plays on.
    players = silent_table(a_white=[Move("e2e4", 1)], a_black=[Move("e7e5", 1)])
    players[3] = FakePlayer(Seat.B_BLACK, broken_on=["moved"])
    record, _ = await play(players, HouseRules(time=10.0, board_end="continue"))
    result = record.game.board_results[BoardId.B]
    assert result.seat is Seat.B_BLACK
    assert result.reason == "B-Black left: connection lost: pipe closed"
    assert record.clocks.banked[Seat.B_WHITE] == 9.0  # ran from 0 to 1
    assert [m.uci for m in record.game.moves] == ["e2e4", "e7e5"]
