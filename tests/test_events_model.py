"""The club evening's sans-IO model: teams, pairings, standings, an event's life."""

from __future__ import annotations

import itertools

from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.events.event import Event, EventSpec
from bughouse_arbiter.events.pairings import round_robin, swiss
from bughouse_arbiter.events.standings import DRAW, WIN, Match, standings
from bughouse_arbiter.events.teams import Entrant, form_teams
from bughouse_arbiter.lobby.identity import COMPUTER, Identity


def who(name: str, rating: float | None = None, kind: str = "guest") -> Identity:
    return Identity(name, kind, rating)  # type: ignore[arg-type]


# -- teams ----------------------------------------------------------------------------------


def test_strongest_with_weakest_and_pairs_kept() -> None:
    entrants = [
        Entrant(who("a", 2000)),
        Entrant(who("b", 1200)),
        Entrant(who("c", 1800)),
        Entrant(who("d", 1400)),
        Entrant(who("x", 2500), partner="y"),
        Entrant(who("y", 900), partner="x"),
    ]
    formed = form_teams(entrants, computer_partner=True)
    names = [tuple(p.name for p in t.players) for t in formed.teams]
    assert names == [("x", "y"), ("a", "b"), ("c", "d")]
    assert [t.together for t in formed.teams] == [True, False, False]
    assert formed.sits_out == ()
    assert formed.notes == ("x and y play together, as they signed up",)


def test_one_sided_partner_is_an_individual_and_unrated_counts_1500() -> None:
    entrants = [
        Entrant(who("a", 1600), partner="b"),  # b named nobody: not kept
        Entrant(who("b", 1550)),
        Entrant(who("c")),
        Entrant(who("d", 1000)),
    ]
    formed = form_teams(entrants, computer_partner=True)
    names = [tuple(p.name for p in t.players) for t in formed.teams]
    assert names == [("a", "d"), ("b", "c")]


def test_odd_count_middle_player_gets_a_computer_or_sits_out() -> None:
    entrants = [Entrant(who(n, r)) for n, r in (("a", 2000), ("b", 1500), ("c", 1000))]
    with_computer = form_teams(entrants, computer_partner=True)
    assert [t.players for t in with_computer.teams] == [
        (who("a", 2000), who("c", 1000)),
        (who("b", 1500), COMPUTER),
    ]
    assert "b plays with a computer partner" in with_computer.notes[0]
    alone = form_teams(entrants, computer_partner=False)
    assert len(alone.teams) == 1 and alone.sits_out == ("b",)
    assert alone.notes[0].startswith("b sits out")


# -- pairings -------------------------------------------------------------------------------


def test_round_robin_circle_meets_everyone_once() -> None:
    for n in range(2, 9):
        teams = [f"T{i}" for i in range(1, n + 1)]
        rounds = round_robin(teams)
        assert len(rounds) == (n - 1 if n % 2 == 0 else n)
        met = [frozenset(p) for r in rounds for p in r if p[1] is not None]
        assert sorted(met, key=sorted) == sorted(
            (frozenset(c) for c in itertools.combinations(teams, 2)), key=sorted
        )
        for r in rounds:  # each team once a round, the bye (if any) last
            seen = [t for p in r for t in p if t is not None]
            assert sorted(seen) == sorted(teams)
            assert all(p[1] is not None for p in r[:-1])
    assert round_robin(["A", "B", "C", "D"]) == [
        [("A", "D"), ("B", "C")],
        [("C", "A"), ("D", "B")],
        [("A", "B"), ("C", "D")],
    ]


def test_swiss_score_groups_no_repeats_and_bye_to_the_lowest() -> None:
    seeds = ["T1", "T2", "T3", "T4", "T5"]
    first = swiss(seeds, {}, set(), set())
    assert first == [("T1", "T2"), ("T3", "T4"), ("T5", None)]
    pts = {"T1": WIN, "T3": WIN, "T5": WIN, "T2": 0.0, "T4": 0.0}
    played = {frozenset(("T1", "T2")), frozenset(("T3", "T4"))}
    second = swiss(seeds, pts, played, {"T5"})
    assert second == [("T1", "T3"), ("T5", "T2"), ("T4", None)]
    # a repeat is avoided by backtracking: T1 must not meet T2 again
    third = swiss(["T1", "T2", "T3", "T4"], {"T1": 2, "T2": 2}, {frozenset(("T1", "T2")),
                  frozenset(("T3", "T4")), frozenset(("T1", "T3"))}, set())
    assert third == [("T1", "T4"), ("T2", "T3")]
    # with every pairing used up, repeats are allowed rather than no round
    everyone = {frozenset(c) for c in itertools.combinations(["T1", "T2"], 2)}
    assert swiss(["T1", "T2"], {}, everyone, set()) == [("T1", "T2")]


# -- standings ------------------------------------------------------------------------------


def test_match_and_game_points_and_tie_breaks() -> None:
    matches = [
        Match(1, "A", "B", (1.0, 1.0)),
        Match(1, "C", "D", (0.5, 0.5)),
        Match(2, "A", "C", (0.0, 0.5)),
        Match(2, "B", "D", (1.0, 0.0)),
        Match(3, "E", None, (None, None)),
    ]
    assert matches[0].match_points() == (WIN, 0.0)
    assert matches[1].match_points() == (DRAW, DRAW)
    assert matches[2].game_points() == (0.5, 1.5)
    assert matches[4].game_points() == (2.0, 0.0) and matches[4].match_points() == (WIN, 0.0)
    rows = standings(["A", "B", "C", "D", "E"], matches)
    shown = [(r.team, r.match_points, r.game_points, r.buchholz, r.sonneborn_berger) for r in rows]
    assert shown == [
        ("C", 3.0, 2.5, 4.0, 3.0),
        ("A", 2.0, 2.5, 4.0, 1.0),
        ("D", 2.0, 2.0, 4.0, 2.0),  # ahead of E on Buchholz (the bye counts no opponent)
        ("E", 2.0, 2.0, 0.0, 0.0),
        ("B", 1.0, 1.0, 4.0, 1.0),
    ]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]


# -- an event's life ------------------------------------------------------------------------


def spec(**changes: object) -> EventSpec:
    base: dict[str, object] = {
        "title": "Tuesday bughouse",
        "starts": 1000.0,
        "checkin_from": 900.0,
        "tc": TimeControl(60, 0),
    }
    return EventSpec(**(base | changes))  # type: ignore[arg-type]


def signed(event: Event, players: list[Identity], now: float = 950.0) -> None:
    for player in players:
        assert event.sign_up(player, None, 10.0) is None
        assert event.check_in(player.name, now) is None


EIGHT = [who(f"p{i}", 1000 + 100 * i) for i in range(1, 7)] + [
    who("bot1", 1900, "bot"),
    who("bot2", 1100, "bot"),
]


def test_sign_up_and_check_in_rules() -> None:
    event = Event("e1", spec())
    assert event.sign_up(who("alice"), "alice", 0.0) == "name someone else as your partner"
    assert event.sign_up(COMPUTER, None, 0.0) == "the computer does not sign up"
    assert event.check_in("alice", 950.0) == "sign up first"
    assert event.sign_up(who("alice"), "bob", 0.0) is None
    assert event.partner_state(event.entrants[0]) == "waiting"
    assert event.sign_up(who("bob"), "alice", 0.0) is None
    assert event.partner_state(event.entrants[0]) == "together"
    assert event.check_in("alice", 899.0) == "check-in opens in 1 s"
    assert event.check_in("alice", 900.0) is None
    assert event.start(950.0) == "1 checked in: two teams of two are needed"
    assert event.withdraw("bob") is None and len(event.entrants) == 1


def test_auto_start_at_the_slot_forms_teams_of_who_checked_in() -> None:
    event = Event("e1", spec())
    signed(event, EIGHT[:4])
    assert event.sign_up(who("late"), None, 10.0) is None  # signed up, never checked in
    assert event.next_deadline() == 1000.0
    event.tick(999.0)
    assert event.state == "signup"
    event.tick(1000.0)
    assert event.state == "running" and event.round == 1
    assert event.formation is not None
    assert [t.name for t in event.formation.teams] == ["p4 & p1", "p3 & p2"]
    closed = "Tuesday bughouse has started: sign-up is closed"
    assert event.sign_up(who("later"), None, 1001.0) == closed


def test_a_round_robin_of_four_teams_runs_three_rounds_to_standings() -> None:
    event = Event("e1", spec())
    signed(event, EIGHT)
    assert event.start(1000.0) is None
    assert event.formation is not None
    assert [t.name for t in event.formation.teams] == [
        "bot1 & bot2", "p6 & p1", "p5 & p2", "p4 & p3"
    ]
    present = {p.name for p in EIGHT}
    results = iter(["1-0", "0-1", "1/2-1/2", "1-0", "1-0", "0-1"])
    for round_no in (1, 2, 3):
        games = event.next_games(present, 1000.0)
        assert len(games) == 2 and event.round == round_no
        assert event.next_games(present, 1000.0) == []  # each handed out once
        for game in games:
            first = event.team(event.matches[game.key.match].first)
            assert game.seats[Seat.A_WHITE] == first.players[0]
            assert game.seats[Seat.B_BLACK] == first.players[1]
            event.result(game.key, next(results), 1000.0)
    assert event.state == "finished"
    assert event.next_games(present, 2000.0) == []
    table = [(r.team, r.match_points, r.game_points, r.buchholz) for r in event.standings()]
    assert table == [("T1", 5.0, 2.5, 7.0), ("T4", 4.0, 2.0, 8.0), ("T3", 3.0, 1.5, 9.0),
                     ("T2", 0.0, 0.0, 12.0)]
    assert "round 2: p5 & p2 ½-½ bot1 & bot2" in event.log
    assert event.log[-1] == "finished: bot1 & bot2 win the evening"


def test_a_missing_player_gets_a_computer_or_forfeits() -> None:
    event = Event("e1", spec())
    signed(event, EIGHT[:4])
    event.start(1000.0)
    present = {"p1", "p2", "p3"}  # p4 (with p1) is not here
    [game] = event.next_games(present, 1000.0)
    assert COMPUTER in game.seats.values() and who("p4", 1400) not in game.seats.values()
    assert game.notes == ("a computer plays for p4 (not here)",)

    strict = Event("e2", spec(computers=False))
    signed(strict, EIGHT[:4])
    strict.start(1000.0)
    assert strict.next_games(present, 1000.0) == []
    [match] = strict.matches
    assert match.scores == (0.0,) and match.notes == ("p4 not here: forfeit",)
    assert strict.state == "finished"  # one round of two teams: that was it


def test_two_games_a_match_swap_colours_and_a_failed_game_is_tried_again() -> None:
    event = Event("e1", spec(games=2))
    signed(event, EIGHT[:4])
    event.start(1000.0)
    present = {p.name for p in EIGHT}
    [first] = event.next_games(present, 1000.0)
    assert event.next_games(present, 1000.0) == []  # the second game waits for the first
    event.result(first.key, "1-0", 1010.0)
    [second] = event.next_games(present, 1010.0)
    assert second.seats == {seat.opponent: p for seat, p in first.seats.items()}
    event.failed(second.key, "p2 did not take the seat in time", 1020.0)
    [again] = event.next_games(present, 1020.0)
    assert again.key == second.key
    event.failed(again.key, "p2 did not take the seat in time", 1080.0)
    [match] = event.matches
    assert match.scores == (1.0, 0.5)  # team one won game 1; game 2 counted a draw
    assert match.match_points() == (2.0, 0.0) and event.state == "finished"


def test_a_swiss_of_three_teams_gives_each_a_bye_in_turn() -> None:
    event = Event("e1", spec(format="swiss", rounds=3))
    signed(event, EIGHT[:6])
    event.start(1000.0)
    present = {p.name for p in EIGHT}
    byes = []
    for _ in range(3):
        [game] = event.next_games(present, 1000.0)
        byes += [m.first for _, m in event.round_matches() if m.bye]
        event.result(game.key, "1-0", 1000.0)
    assert sorted(byes) == ["T1", "T2", "T3"]
    met = [frozenset((m.first, m.second)) for m in event.matches if m.second]
    assert len(set(met)) == 3  # no pairing repeated
    assert event.state == "finished"
    assert sum(r.match_points for r in event.standings()) == 3 * 2.0 + 3 * 2.0


def test_a_bot_not_connected_is_played_by_the_engine_under_its_name() -> None:
    event = Event("e1", spec())
    signed(event, [EIGHT[0], EIGHT[1], EIGHT[2], EIGHT[6]])
    event.start(1000.0)
    [game] = event.next_games({"p1", "p2", "p3"}, 1000.0)
    assert who("bot1", kind="computer") in game.seats.values()
    assert game.notes == ("the server's engine plays bot1",)


def test_a_connected_bot_that_does_not_play_the_tc_is_not_seated_and_the_log_says_why() -> None:
    refused = {"bot1": "bot1 accepts 180+0 only, not this event's 60+0"}
    event = Event("e1", spec())
    signed(event, [EIGHT[0], EIGHT[1], EIGHT[2], EIGHT[6]])
    event.start(1000.0)
    [game] = event.next_games({"p1", "p2", "p3"}, 1000.0, refused)
    assert who("bot1", kind="computer") in game.seats.values()
    assert game.notes == (f"{refused['bot1']}: the server's engine plays it",)
    assert any(line.endswith(game.notes[0]) for line in event.log)

    strict = Event("e2", spec(computers=False))
    signed(strict, [EIGHT[0], EIGHT[1], EIGHT[6], EIGHT[7]])
    strict.start(1000.0)
    assert strict.next_games({"p1", "bot2"}, 1000.0, refused) == []
    [match] = strict.matches
    assert match.notes == ("p2 not here; bot1 accepts 180+0 only, not this event's 60+0: forfeit",)
    assert f"round 1: {match.notes[0]}" in strict.log


def test_an_arranged_table_plays_one_game_and_closes_without_a_rematch() -> None:
    from bughouse_arbiter.core.rules import HouseRules
    from bughouse_arbiter.lobby.model import EndSeries, Lobby, StartGame
    from bughouse_arbiter.lobby.tables import TableSpec

    lobby = Lobby()
    bot = who("bot1", kind="bot")
    lobby.add_bot(bot, [TimeControl(60, 0)], 0.0)
    seats = {Seat.A_WHITE: bot, Seat.A_BLACK: COMPUTER, Seat.B_WHITE: COMPUTER,
             Seat.B_BLACK: COMPUTER}
    spec = TableSpec(tc=TimeControl(60, 0), rules=HouseRules(), fill_after=0.0)
    table, effects = lobby.arrange(spec, seats, 1.0)
    assert effects == [StartGame(table, seats, False)]
    assert lobby.bots["bot1"].table == table  # not offered to another table meanwhile
    after = lobby.game_over(table, 5.0)
    assert after == [EndSeries(table)]  # bots and computers accept rematches: not here
    assert table not in lobby.tables and lobby.bots["bot1"].table is None


def test_the_hosts_form_and_page_messages_answer_one_line_each() -> None:
    from bughouse_arbiter.events.forms import PageCommand, event_spec, page_command

    made = event_spec({"title": "  Tuesday  ", "tc": "3+0", "starts_in": 600, "checkin": 300}, 50.0)
    assert not isinstance(made, str)
    assert (made.title, made.starts, made.checkin_from, made.rounds) == ("Tuesday", 650, 350, None)
    assert event_spec({"format": "swiss"}, 0.0) == "a Swiss needs a number of rounds"
    assert event_spec({"tc": "none"}, 0.0) == "an event needs a timed control (for example 180+2)"
    assert event_spec({"games": 9}, 0.0) == "games is a whole number from 1 to 4"
    assert event_spec({"rounds": True}, 0.0) == "rounds is a whole number from 1 to 20"
    assert event_spec({"starts_in": "soon"}, 0.0) == "starts_in is a number of seconds"
    assert event_spec({"computers": "yes"}, 0.0) == "computers is true or false"
    assert event_spec({"title": "\n\t"}, 0.0) == "give the event a title"
    assert "time control" in str(event_spec({"tc": "fast"}, 0.0))
    assert page_command([1]) == "a message is an object with a 'type'"
    assert page_command({"type": "dance"}) == "unknown message type 'dance'"
    bad_name = "a name is 2 to 20 letters, digits or . - _"
    assert page_command({"type": "hello", "name": "x"}) == bad_name
    assert page_command({"type": "start"}) == (
        "only the host may do that (the host's link holds its token)"
    )
    assert page_command({"type": "sign_up", "partner": "bob"}) == PageCommand(
        "sign_up", None, "bob"
    )
    assert page_command({"type": "sign_up", "partner": "b b"}) == f"partner: {bad_name}"
