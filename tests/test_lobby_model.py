"""The lobby as values: tables, seats, quick pairing, invitations, rematch, chat, messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_arbiter.config.specs import TimeControl
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.lobby.chat import ChatRate, clean_text
from bughouse_arbiter.lobby.identity import COMPUTER, Identity, name_problem
from bughouse_arbiter.lobby.messages import Create, PlayNow, Sit, command, parse
from bughouse_arbiter.lobby.model import INVITE_TIMEOUT, EndSeries, Lobby, Send, StartGame
from bughouse_arbiter.lobby.pairing import Entry, Queue, choose, split
from bughouse_arbiter.lobby.shown import apply_diff

TC = TimeControl(180.0, 0.0)


def lobby_with(*names: str, **kwargs: Any) -> Lobby:
    lobby = Lobby(**kwargs)
    for name in names:
        assert lobby.join(Identity(name)) is None
    return lobby


def do(lobby: Lobby, name: str, message: dict[str, Any], now: float = 0.0) -> list[Any]:
    parsed = command(message)
    assert not isinstance(parsed, str), parsed
    return lobby.handle(name, parsed, now)


def sent(effects: list[Any], name: str, kind: str) -> list[dict[str, object]]:
    return [
        e.message
        for e in effects
        if isinstance(e, Send) and e.name == name and e.message["type"] == kind
    ]


def errors(effects: list[Any]) -> list[str]:
    return [
        str(e.message["text"])
        for e in effects
        if isinstance(e, Send) and e.message["type"] == "error"
    ]


def starts(effects: list[Any]) -> list[StartGame]:
    return [e for e in effects if isinstance(e, StartGame)]


def solo(name: str, since: float, rating: float | None = None, computers: bool = True) -> Entry:
    return Entry(who=(Identity(name, rating=rating),), tc=TC, computers=computers, since=since)


# -- names, chat -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["al", "alice_1", "B.o-b", "x" * 20])
def test_a_guest_name_is_two_to_twenty_plain_characters(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize("name", ["a", "x" * 21, "al ice", "<b>", "ålice", "", 5, None, "Computer"])
def test_other_names_are_refused_with_one_line(name: object) -> None:
    problem = name_problem(name)
    assert problem and "\n" not in problem


def test_chat_text_is_one_printable_line_cut_to_its_bound() -> None:
    assert clean_text("  hi\n\tthere\x00 ") == "hi there"
    assert clean_text("x" * 1000) == "x" * 200
    assert clean_text("\ud800") is None and clean_text("   ") is None and clean_text(3) is None


def test_chat_rate_allows_a_burst_then_one_every_two_seconds() -> None:
    rate = ChatRate(burst=2, every=2.0)
    assert [rate.allow("a", 0.0) for _ in range(3)] == [True, True, False]
    assert rate.allow("b", 0.0)  # per speaker
    assert not rate.allow("a", 1.9)
    assert rate.allow("a", 2.0) and not rate.allow("a", 2.0)


def test_a_long_silence_refills_the_chat_allowance_to_the_burst_and_no_further() -> None:
    rate = ChatRate(burst=3, every=2.0)
    assert all(rate.allow("a", 0.0) for _ in range(3))
    # An hour of silence is worth 1,800 messages at one every 2 s: only 3 are allowed.
    hour = 3600.0
    assert [rate.allow("a", hour) for _ in range(4)] == [True, True, True, False]
    assert not rate.allow("a", hour + 1.9)
    assert rate.allow("a", hour + 2.0)


def test_a_name_online_is_taken_in_every_letter_case_by_members_and_bots() -> None:
    lobby = lobby_with("mallory")
    assert "taken" in (lobby.join(Identity("Mallory")) or "")
    lobby.add_bot(Identity("fsf", "bot"), [TC], 0.0)
    assert "taken" in (lobby.join(Identity("FSF")) or "")
    assert lobby.name_taken("FsF") and not lobby.name_taken("alice")


def test_the_chat_limit_survives_leaving_and_coming_back_in_any_case() -> None:
    lobby = lobby_with("mallory")
    said = [do(lobby, "mallory", {"type": "chat", "text": "hi"}, 0.0) for _ in range(5)]
    assert all(sent(s, "mallory", "chat") for s in said)
    lobby.leave("mallory", 0.1)
    assert lobby.join(Identity("Mallory")) is None
    refused = sent(do(lobby, "Mallory", {"type": "chat", "text": "hi"}, 0.2), "Mallory", "error")
    assert refused == [{"type": "error", "text": "too many chat messages: wait a moment"}]


def test_the_chat_buckets_stay_bounded_as_names_come_and_go() -> None:
    rate = ChatRate(burst=2, every=1.0)
    for n in range(3000):
        rate.allow(f"n{n}", float(n))
    assert len(rate._tokens) <= 1024


# -- messages ---------------------------------------------------------------------------


def test_good_messages_parse_to_commands() -> None:
    assert parse('{"type": "sit", "table": "t3", "seat": "a-white"}') == Sit("t3", Seat.A_WHITE)
    assert parse('{"type": "play_now", "tc": "180+2", "partner": "bob"}') == PlayNow(
        TimeControl(180.0, 2.0), True, "bob"
    )
    created = parse(
        json.dumps(
            {
                "type": "create",
                "tc": "60+1",
                "rules": {"profile": "club"},
                "computers": False,
                "fill_after": 5,
                "rated": True,
            }
        )
    )
    assert isinstance(created, Create)
    spec = created.spec
    assert spec.rules.profile == "club" and spec.rules.time == 60 and spec.rules.increment == 1
    assert spec.rules.draw == "both-teams" and not spec.computers and spec.rated
    assert spec.fill_after == 5


@pytest.mark.parametrize(
    "text",
    [
        "",
        "nul",
        "[]",
        "3",
        '{"type": 3}',
        '{"type": "dance"}',
        "[" * 5000,
        '{"type": "hello"}',
        '{"type": "sit", "table": "t1", "seat": "C-white"}',
        '{"type": "sit", "seat": "A-white"}',
        '{"type": "create", "tc": "0+0"}',
        '{"type": "create", "tc": "none"}',
        '{"type": "create", "tc": "5+0"}',
        '{"type": "create", "rules": {"time": "5"}}',
        '{"type": "create", "rules": []}',
        '{"type": "create", "rules": {"repetition": {"a": 1}}}',
        '{"type": "create", "rules": {"nonsense": "on"}}',
        '{"type": "create", "fill_after": 1e309}',
        '{"type": "create", "computers": "yes"}',
        '{"type": "create", "rematch_colours": "random"}',
        '{"type": "play_now", "tc": "3+0", "computers": 1}',
        '{"type": "accept"}',
        '{"type": "mute", "table": "t1"}',
        '{"type": "chat", "text": ""}',
        "x" * 5000,
    ],
)
def test_every_bad_message_is_one_error_line(text: str) -> None:
    answer = parse(text)
    assert isinstance(answer, str) and answer and "\n" not in answer and len(answer) < 300


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_no_text_makes_parse_raise(text: str) -> None:
    assert isinstance(parse(text), str | object)


_JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "hello",
            "create",
            "sit",
            "stand",
            "start",
            "play_now",
            "accept",
            "decline",
            "leave_queue",
            "watch",
            "chat",
            "mute",
            "unmute",
            "rematch",
        ]
    ),
    st.dictionaries(
        st.sampled_from(
            [
                "name",
                "tc",
                "rules",
                "computers",
                "fill_after",
                "rated",
                "table",
                "seat",
                "partner",
                "from",
                "text",
            ]
        ),
        _JSON,
        max_size=5,
    ),
)
def test_no_message_of_any_shape_makes_the_lobby_raise(kind: str, fields: dict[str, Any]) -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    parsed = parse(json.dumps({**fields, "type": kind}))
    if not isinstance(parsed, str):
        for effect in lobby.handle("alice", parsed, 1.0) + lobby.tick(100.0):
            if isinstance(effect, Send):
                json.dumps(effect.message)


# -- tables -------------------------------------------------------------------------------


def test_a_table_starts_when_the_fourth_sits() -> None:
    lobby = lobby_with("a1", "a2", "a3", "a4")
    [created] = sent(
        do(lobby, "a1", {"type": "create", "tc": "180+0", "computers": False}), "a1", "created"
    )
    table = str(created["table"])
    for name, seat in zip(("a1", "a2", "a3"), ("A-white", "A-black", "B-white"), strict=True):
        assert not starts(do(lobby, name, {"type": "sit", "table": table, "seat": seat}))
    assert (
        "taken by a1"
        in errors(do(lobby, "a4", {"type": "sit", "table": table, "seat": "A-white"}))[0]
    )
    assert "needs four" in errors(do(lobby, "a1", {"type": "start", "table": table}))[0]
    [start] = starts(do(lobby, "a4", {"type": "sit", "table": table, "seat": "B-black"}))
    assert {s: w.name for s, w in start.seats.items()} == {
        Seat.A_WHITE: "a1",
        Seat.A_BLACK: "a2",
        Seat.B_WHITE: "a3",
        Seat.B_BLACK: "a4",
    }
    assert not start.rematch and lobby.tables[table].state == "playing"
    assert "game is on" in errors(do(lobby, "a2", {"type": "stand", "table": table}))[0]
    assert (
        "playing: no seats"
        in errors(do(lobby, "a4", {"type": "sit", "table": table, "seat": "B-black"}))[0]
    )


def test_computers_fill_a_table_on_start_or_after_its_wait() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0", "fill_after": 20})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "B-black"}, now=100.0)
    assert lobby.next_deadline() == 120.0
    assert not starts(lobby.tick(119.9))
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-white"}, now=110.0)
    [start] = starts(lobby.tick(120.0))
    assert start.seats[Seat.A_BLACK] == COMPUTER and start.seats[Seat.B_WHITE] == COMPUTER
    assert start.seats[Seat.B_BLACK].name == "alice" and start.seats[Seat.A_WHITE].name == "bob"
    do(lobby, "bob", {"type": "create", "tc": "60+0", "fill_after": 600})
    do(lobby, "bob", {"type": "sit", "table": "t2", "seat": "A-white"})
    assert (
        "at t1 already"
        in errors(do(lobby, "bob", {"type": "sit", "table": "t2", "seat": "A-black"}))[0]
    )


def test_a_rematch_needs_every_person_and_swaps_colours_within_the_teams() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "B-black"})
    [first] = starts(do(lobby, "bob", {"type": "start", "table": "t1"}))
    assert "no game" in errors(do(lobby, "alice", {"type": "rematch", "table": "t1"}))[0]
    assert not lobby.game_over("t1", 500.0)
    assert lobby.tables["t1"].state == "between" and lobby.next_deadline() == 620.0
    effects = do(lobby, "alice", {"type": "rematch", "table": "t1"}, now=501.0)
    assert not starts(effects) and sent(effects, "bob", "rematch")
    for _ in range(3):  # asking again tells the others nothing
        effects = do(lobby, "alice", {"type": "rematch", "table": "t1"}, now=501.5)
        assert not sent(effects, "bob", "rematch") and "already" in errors(effects)[0]
    [again] = starts(do(lobby, "bob", {"type": "rematch", "table": "t1"}, now=502.0))
    assert again.rematch and lobby.tables["t1"].game == 2
    assert {s: w.name for s, w in again.seats.items()} == {
        seat.opponent: who.name for seat, who in first.seats.items()
    }
    assert again.seats[Seat.A_BLACK].name == "alice" and again.seats[Seat.B_WHITE].name == "bob"


def test_a_table_that_keeps_colours_rematches_as_it_was() -> None:
    lobby = lobby_with("alice")
    do(lobby, "alice", {"type": "create", "tc": "180+0", "rematch_colours": "keep"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    [first] = starts(do(lobby, "alice", {"type": "start", "table": "t1"}))
    lobby.game_over("t1", 10.0)
    [again] = starts(do(lobby, "alice", {"type": "rematch", "table": "t1"}))
    assert again.seats == first.seats


def test_no_rematch_in_time_ends_the_series_and_reopens_the_seats() -> None:
    lobby = lobby_with("alice")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    do(lobby, "alice", {"type": "start", "table": "t1"})
    lobby.game_over("t1", 10.0)
    assert not lobby.tick(129.9)
    effects = lobby.tick(130.0)
    assert EndSeries("t1") in effects
    table = lobby.tables["t1"]
    assert table.state == "open" and table.empty_seats() == [
        Seat.A_BLACK,
        Seat.B_WHITE,
        Seat.B_BLACK,
    ]


def test_standing_up_between_games_ends_the_series() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-black"})
    do(lobby, "alice", {"type": "start", "table": "t1"})
    lobby.game_over("t1", 10.0)
    effects = do(lobby, "bob", {"type": "stand", "table": "t1"})
    assert EndSeries("t1") in effects and lobby.tables["t1"].state == "open"
    assert lobby.tables["t1"].seat_of("alice") is Seat.A_WHITE


def test_a_player_who_left_during_the_game_gets_no_rematch() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-black"})
    do(lobby, "alice", {"type": "start", "table": "t1"})
    lobby.leave("bob", 5.0)
    assert lobby.tables["t1"].seat_of("bob") is Seat.A_BLACK  # the seat waits within the grace
    assert EndSeries("t1") in lobby.game_over("t1", 10.0)
    assert lobby.tables["t1"].seat_of("bob") is None and lobby.tables["t1"].state == "open"


def test_an_empty_table_closes_once_its_creator_is_gone() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-white"})
    lobby.leave("alice", 1.0)
    assert "t1" in lobby.tables
    do(lobby, "bob", {"type": "stand", "table": "t1"})
    assert "t1" not in lobby.tables and lobby.view()["tables"] == []


def test_a_failed_game_reopens_the_table_and_tells_the_players() -> None:
    lobby = lobby_with("alice")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    do(lobby, "alice", {"type": "start", "table": "t1"})
    effects = lobby.game_failed("t1", "alice did not take the seat in time", 70.0)
    assert errors(effects) == ["t1: alice did not take the seat in time"]
    assert lobby.tables["t1"].state == "open" and lobby.tables["t1"].empty_seats() == [
        Seat.A_BLACK,
        Seat.B_WHITE,
        Seat.B_BLACK,
    ]


def test_the_view_shows_tables_seats_queue_and_who_is_online() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "120+2", "rules": {"profile": "club"}})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "B-white"})
    do(lobby, "bob", {"type": "play_now", "tc": "60+0"}, now=3.0)
    lobby.set_watchers("t1", 2)
    view = lobby.view()
    json.dumps(view)
    [table] = view["tables"]  # type: ignore[misc]
    assert table["tc"] == "120+2" and table["rules"]["profile"] == "club" and table["watchers"] == 2
    assert table["seats"]["B-white"] == {"name": "alice", "kind": "guest", "rating": None}
    assert table["seats"]["A-white"] is None and table["state"] == "open"
    assert view["queue"] == [{"tc": "60+0", "names": ["bob"], "since": 3.0}]
    assert view["online"] == ["alice", "bob"]


def test_a_seat_taken_shows_as_that_tables_entry_alone() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "bob", {"type": "create", "tc": "60+0"})
    first = lobby.diff()
    assert first is not None and first["version"] == 1 and set(first["tables"]) == {"t1", "t2"}  # type: ignore[arg-type]
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-black"})
    assert lobby.diff() == {
        "type": "lobby-diff",
        "version": 2,
        "tables": {"t1": lobby.tables["t1"].shown()},
        "gone": [],
    }
    assert lobby.diff() is None  # nothing changed since: nothing to send
    do(lobby, "alice", {"type": "play_now", "tc": "60+0"}, now=5.0)
    assert lobby.diff() == {
        "type": "lobby-diff",
        "version": 3,
        "tables": {},
        "gone": [],
        "queue": [{"tc": "60+0", "names": ["alice"], "since": 5.0}],
    }


def test_a_closed_table_is_gone_from_the_diff() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "create", "tc": "60+0"})
    do(lobby, "bob", {"type": "sit", "table": "t2", "seat": "A-white"})
    lobby.diff()
    lobby.leave("alice", 1.0)  # t1: nobody sits there and its creator has gone
    assert lobby.diff() == {
        "type": "lobby-diff",
        "version": 2,
        "tables": {},
        "gone": ["t1"],
        "online": ["bob"],
    }


def test_views_and_diffs_are_numbered_so_each_diff_applies_to_the_one_before() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    assert lobby.view()["version"] == 0
    before = lobby.diff()
    old = lobby.view()
    assert before is not None and before["version"] == old["version"] == 1
    # A view made between two diffs, of a table changed and changed back since:
    # the next diff brings it and the older view alike to the lobby as it is then.
    do(lobby, "bob", {"type": "sit", "table": "t1", "seat": "A-black"})
    joined = lobby.view()
    do(lobby, "bob", {"type": "stand", "table": "t1"})
    do(lobby, "alice", {"type": "create", "tc": "60+0"})
    diff = lobby.diff()
    assert diff is not None and diff["version"] == 2
    now = lobby.view()
    assert apply_diff(joined, diff) == now and apply_diff(old, diff) == now
    assert apply_diff(joined, {**diff, "version": 3}) is None  # one missed: not applied
    # Asked for, the whole view again; asked at once again, not yet.
    assert sent(do(lobby, "bob", {"type": "lobby"}, now=10.0), "bob", "lobby") == [now]
    assert "a moment ago" in errors(do(lobby, "bob", {"type": "lobby"}, now=11.0))[0]
    assert sent(do(lobby, "bob", {"type": "lobby"}, now=12.0), "bob", "lobby") == [now]


NAMES = ("ann", "bea", "cy", "dot")
STEPS = st.one_of(
    st.tuples(st.just("create"), st.sampled_from(NAMES)),
    st.tuples(st.just("sit"), st.sampled_from(NAMES), st.integers(1, 4), st.integers(0, 3)),
    st.tuples(st.just("stand"), st.sampled_from(NAMES), st.integers(1, 4)),
    st.tuples(st.just("queue"), st.sampled_from(NAMES)),
    st.tuples(st.just("leave"), st.sampled_from(NAMES)),
    st.tuples(st.just("join"), st.sampled_from(NAMES)),
    st.tuples(st.just("view"), st.integers(0, 2)),
    st.tuples(st.just("diff")),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(STEPS, max_size=40))
def test_every_view_with_the_diffs_since_applied_is_the_lobby_as_it_is(steps: list[Any]) -> None:
    lobby = lobby_with(*NAMES)
    held: dict[int, dict[str, Any]] = {}  # three members' views, diffs applied
    for step in steps:
        kind, *args = step
        if kind == "view":
            held[args[0]] = lobby.view()
        elif kind == "diff":
            diff = lobby.diff()
            if diff is not None:
                held = {k: apply_diff(v, diff) for k, v in held.items()}  # type: ignore[misc]
                assert all(v is not None for v in held.values())
        elif kind == "leave":
            lobby.leave(args[0], 0.0)
        elif kind == "join":
            lobby.join(Identity(args[0]))
        elif args[0] in lobby.members:
            message: dict[str, Any] = {"type": "play_now", "tc": "60+0", "computers": False}
            if kind == "create":
                message = {"type": "create", "tc": "180+0", "computers": False}
            elif kind == "sit":
                seat = ("A-white", "A-black", "B-white", "B-black")[args[2]]
                message = {"type": "sit", "table": f"t{args[1]}", "seat": seat}
            elif kind == "stand":
                message = {"type": "stand", "table": f"t{args[1]}"}
            lobby.handle(args[0], command(message), 0.0)  # type: ignore[arg-type]
    final = lobby.diff()
    now = lobby.view()
    for view in held.values():
        caught_up = view if final is None else apply_diff(view, final)
        assert caught_up == now


def test_mutes_are_per_table_and_per_listener() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "mute", "table": "t1", "name": "bob"})
    assert lobby.muted("t1", "alice", "bob") and not lobby.muted("t1", "bob", "alice")
    do(lobby, "alice", {"type": "unmute", "table": "t1", "name": "bob"})
    assert not lobby.muted("t1", "alice", "bob")


def test_lobby_chat_goes_to_everyone_bounded_in_rate() -> None:
    lobby = lobby_with("alice", "bob")
    effects = do(lobby, "alice", {"type": "chat", "text": "hi"}, now=7.0)
    assert sent(effects, "bob", "chat") == [
        {"type": "chat", "from": "alice", "text": "hi", "at": 7.0}
    ]
    for _ in range(4):
        do(lobby, "alice", {"type": "chat", "text": "hi"}, now=7.0)
    assert errors(do(lobby, "alice", {"type": "chat", "text": "hi"}, now=7.0)) == [
        "too many chat messages: wait a moment"
    ]


def test_names_are_unique_among_those_connected() -> None:
    lobby = lobby_with("alice")
    assert "taken" in str(lobby.join(Identity("alice")))
    lobby.leave("alice", 1.0)
    assert lobby.join(Identity("alice")) is None
    assert errors(lobby.handle("zed", command({"type": "leave_queue"}), 0.0)) == ["say hello first"]  # type: ignore[arg-type]


# -- quick pairing ------------------------------------------------------------------------


def test_two_pairs_play_as_two_teams() -> None:
    pair = Entry(who=(Identity("a"), Identity("b")), tc=TC, computers=True, since=0.0)
    other = Entry(who=(Identity("c"), Identity("d")), tc=TC, computers=True, since=1.0)
    seats = split([pair, other], ())
    assert seats[Seat.A_WHITE].name == "a" and seats[Seat.B_BLACK].name == "b"
    assert seats[Seat.A_BLACK].name == "c" and seats[Seat.B_WHITE].name == "d"


def test_a_pair_stays_together_however_the_ratings_fall() -> None:
    pair = Entry(
        who=(Identity("a", rating=2400), Identity("b", rating=2400)),
        tc=TC,
        computers=True,
        since=0.0,
    )
    seats = split([pair, solo("c", 1, 1000), solo("d", 2, 1000)], ())
    assert {seats[Seat.A_WHITE].name, seats[Seat.B_BLACK].name} == {"a", "b"}


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=2),
    st.lists(st.sampled_from([None, 1000.0, 1500.0, 2400.0]), min_size=4, max_size=4),
)
def test_a_pair_queued_behind_solos_stays_partners(
    place: int, ratings: list[float | None]
) -> None:
    # The queue's oldest entry may be a solo: the pair's partners are wherever the
    # pair falls among the places, not at the front.
    pair = Entry(
        who=(Identity("p1", rating=ratings[0]), Identity("p2", rating=ratings[1])),
        tc=TC, computers=True, since=float(place),
    )
    queue = Queue()
    for i, since in enumerate(s for s in range(3) if s != place):
        queue.add(solo(f"s{i}", since, ratings[2 + i]))
    queue.add(pair)
    (group,) = queue.form(now=0.0)
    partners = {
        frozenset(group.seats[seat].name for seat in team)
        for team in ((Seat.A_WHITE, Seat.B_BLACK), (Seat.A_BLACK, Seat.B_WHITE))
    }
    assert frozenset({"p1", "p2"}) in partners
    assert queue.entries == []


def test_four_solos_are_split_into_the_most_even_teams() -> None:
    entries = [solo("s1", 0, 2000), solo("s2", 1, 1000), solo("s3", 2, 1900), solo("s4", 3, 1100)]
    seats = split(entries, ())
    one = {seats[Seat.A_WHITE].name, seats[Seat.B_BLACK].name}
    assert one in ({"s1", "s2"}, {"s3", "s4"})  # 3000 against 3000


def test_opponents_are_the_nearest_in_rating_oldest_first() -> None:
    entries = [
        solo("anchor", 0, 1500),
        solo("far", 1, 2400),
        solo("n1", 2, 1510),
        solo("n2", 3, 1490),
        solo("n3", 4, 1520),
    ]
    assert [e.names[0] for e in choose(entries)] == ["anchor", "n1", "n2", "n3"]
    unrated = [solo("u0", 0), solo("u1", 1), solo("u2", 2), solo("u3", 3), solo("u4", 4)]
    assert [e.names[0] for e in choose(unrated)] == ["u0", "u1", "u2", "u3"]


def test_computers_fill_a_queue_group_once_the_oldest_has_waited() -> None:
    queue = Queue(fill_after=15.0)
    queue.add(solo("a", 10.0))
    queue.add(solo("b", 12.0))
    assert queue.next_deadline() == 25.0
    assert queue.why(queue.entries[1], 20.0) == (
        "waiting for 2 more players at 180+0; computers fill the seats in 5 s"
    )
    assert queue.form(24.9) == []
    [group] = queue.form(25.0)
    assert group.computers and queue.entries == []
    names = {s: w.name for s, w in group.seats.items()}
    assert sorted(names.values()) == ["a", "b", "computer", "computer"]
    assert {names[Seat.A_WHITE], names[Seat.B_BLACK]} == {"a", "b"}  # two solos become partners


def test_an_entry_without_computers_waits_for_people_and_is_told_so() -> None:
    queue = Queue(fill_after=15.0)
    queue.add(solo("a", 0.0, computers=False))
    assert queue.next_deadline() is None and queue.form(1000.0) == []
    assert "only people or bots" in queue.why(queue.entries[0], 1000.0)
    for i, name in enumerate(("b", "c", "d")):
        queue.add(solo(name, 1.0 + i))
    [group] = queue.form(1001.0)
    assert not group.computers and COMPUTER not in group.seats.values()


def test_bots_fill_a_group_at_once() -> None:
    queue = Queue()
    queue.add(solo("a", 0.0))
    bots = [Identity(f"bot{i}", "bot") for i in range(3)]
    [group] = queue.form(0.0, bots, lambda bot, tc: tc == TC)
    assert sorted(w.name for w in group.seats.values()) == ["a", "bot0", "bot1", "bot2"]
    queue.add(solo("b", 0.0))
    assert queue.form(0.0, bots, lambda bot, tc: tc == TimeControl(60.0)) == []
    assert queue.form(0.0, bots) == []  # without ``plays``, no bot plays anything


def test_queued_members_are_told_why_on_queueing_and_when_it_changes() -> None:
    lobby = lobby_with("aa", "bb", "cc", "dd", queue_fill_after=15.0)
    [told] = sent(do(lobby, "aa", {"type": "play_now", "tc": "180+0"}, now=0.0), "aa", "queued")
    assert told["why"] == "waiting for 3 more players at 180+0; computers fill the seats in 15 s"
    assert not sent(lobby.tick(5.0), "aa", "queued")  # nothing changed
    effects = do(lobby, "bb", {"type": "play_now", "tc": "180+0"}, now=6.0)
    assert sent(effects, "aa", "queued")[0]["why"].startswith("waiting for 2 more")  # type: ignore[union-attr]
    assert sent(effects, "bb", "queued")[0]["why"].endswith("in 9 s")  # type: ignore[union-attr]
    [start] = starts(lobby.tick(15.0))
    assert sorted(w.name for w in start.seats.values()) == ["aa", "bb", "computer", "computer"]
    assert lobby.tables[start.table].paired and lobby.queue.entries == []


def test_an_invitation_accepted_queues_the_two_as_partners() -> None:
    lobby = lobby_with("alice", "bob", "carol", "dave")
    effects = do(lobby, "alice", {"type": "play_now", "tc": "180+0", "partner": "bob"}, now=1.0)
    assert sent(effects, "bob", "invited") == [{"type": "invited", "from": "alice", "tc": "180+0"}]
    assert "waiting for bob to accept" in str(sent(effects, "alice", "queued")[0]["why"])
    assert "no invitation" in errors(do(lobby, "carol", {"type": "accept", "from": "alice"}))[0]
    do(lobby, "bob", {"type": "accept", "from": "alice"}, now=2.0)
    assert lobby.queue.entries[0].names == ("alice", "bob")
    do(lobby, "carol", {"type": "play_now", "tc": "180+0"}, now=3.0)
    [start] = starts(do(lobby, "dave", {"type": "play_now", "tc": "180+0"}, now=4.0))
    names = {s: w.name for s, w in start.seats.items()}
    assert {names[Seat.A_WHITE], names[Seat.B_BLACK]} == {"alice", "bob"}
    assert {names[Seat.A_BLACK], names[Seat.B_WHITE]} == {"carol", "dave"}


def test_an_invitation_declined_or_unanswered_tells_the_inviter() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "play_now", "tc": "180+0", "partner": "bob"}, now=0.0)
    assert sent(do(lobby, "bob", {"type": "decline", "from": "alice"}), "alice", "declined") == [
        {"type": "declined", "by": "bob"}
    ]
    do(lobby, "alice", {"type": "play_now", "tc": "180+0", "partner": "bob"}, now=10.0)
    assert lobby.next_deadline() == 10.0 + INVITE_TIMEOUT
    [late] = sent(lobby.tick(10.0 + INVITE_TIMEOUT), "alice", "declined")
    assert late["why"] == "no answer in time" and not lobby.invites


def test_a_partner_who_leaves_the_queue_leaves_the_other_queued_alone() -> None:
    lobby = lobby_with("alice", "bob")
    do(lobby, "alice", {"type": "play_now", "tc": "180+0", "partner": "bob"}, now=0.0)
    do(lobby, "bob", {"type": "accept", "from": "alice"}, now=1.0)
    effects = lobby.leave("bob", 2.0)
    assert "you are queued alone" in str(sent(effects, "alice", "queued")[0]["why"])
    assert lobby.queue.entries[0].names == ("alice",)
    assert sent(do(lobby, "alice", {"type": "leave_queue"}), "alice", "left_queue")
    assert lobby.queue.entries == []


def test_a_bot_fills_an_open_table_before_computers() -> None:
    lobby = lobby_with("alice")
    lobby.add_bot(Identity("sjeng-bot", "bot"), [TC], 0.0)
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    [start] = starts(do(lobby, "alice", {"type": "start", "table": "t1"}))
    kinds = sorted(w.kind for w in start.seats.values())
    assert kinds == ["bot", "computer", "computer", "guest"]
    assert lobby.bots["sjeng-bot"].table == "t1"
    lobby.game_over("t1", 10.0)
    assert lobby.tables["t1"].rematch == {"sjeng-bot"}  # a bot accepts at once


def test_a_computer_playing_under_a_connected_bots_name_leaves_that_bot_free() -> None:
    """An event's game at a time control the bot does not play: the bot fills other tables."""
    from bughouse_arbiter.core.rules import HouseRules
    from bughouse_arbiter.lobby.tables import TableSpec

    lobby = lobby_with("alice")
    lobby.add_bot(Identity("slow", "bot"), [TC], 0.0)
    seats = {seat: COMPUTER for seat in Seat} | {Seat.A_WHITE: Identity("slow", "computer")}
    spec = TableSpec(tc=TimeControl(60.0), rules=HouseRules(), fill_after=0.0)
    arranged, _ = lobby.arrange(spec, seats, 1.0)
    assert lobby.bots["slow"].table is None
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t2", "seat": "A-white"})
    [start] = starts(do(lobby, "alice", {"type": "start", "table": "t2"}))
    assert Identity("slow", "bot") in start.seats.values()
    assert lobby.bots["slow"].table == "t2" and arranged == "t1"


def test_a_bot_that_left_during_the_game_gets_no_rematch() -> None:
    lobby = lobby_with("alice")
    lobby.add_bot(Identity("sjeng-bot", "bot"), [TC], 0.0)
    do(lobby, "alice", {"type": "create", "tc": "180+0"})
    do(lobby, "alice", {"type": "sit", "table": "t1", "seat": "A-white"})
    starts(do(lobby, "alice", {"type": "start", "table": "t1"}))
    lobby.remove_bot("sjeng-bot", 5.0)
    effects = lobby.game_over("t1", 10.0)
    assert EndSeries("t1") in effects
    assert lobby.tables["t1"].seat_of("sjeng-bot") is None
    assert not starts(do(lobby, "alice", {"type": "rematch", "table": "t1"}, now=11.0))
