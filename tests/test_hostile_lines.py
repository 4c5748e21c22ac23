"""No engine line, of any length or content, raises out of the arbiter.

Hypothesis writes arbitrary lines (text and raw bytes, free or starting with
a keyword the arbiter knows, with numbers of hundreds of digits) to the
native session and player and to both adapters, in the middle of a game with
an open turn. Nothing may raise, and everything that comes out towards the
arbiter, another engine, the record or the screen is bounded and free of
control characters (``protocol.limits``).
"""

from __future__ import annotations

import math
import re

import pytest
import trio

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from hypothesis import strategies as st
from test_adapter_common import Table

from bughouse_arbiter.adapters import UciAdapter, XboardAdapter
from bughouse_arbiter.adapters.common import EngineInfoLine, EngineNote, EngineTell, EngineWait
from bughouse_arbiter.adapters.search_info import parse_info
from bughouse_arbiter.bpgn import SearchInfo
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed
from bughouse_arbiter.players.base import (
    Action,
    InfoAction,
    MoveAction,
    TableState,
    TellAction,
    WaitAction,
)
from bughouse_arbiter.players.native import NativeEnginePlayer
from bughouse_arbiter.players.xboard import XboardPlayer
from bughouse_arbiter.protocol import (
    MAX_LINE,
    Bug,
    EngineSession,
    Go,
    Ignored,
    LineBuffer,
    Marker,
    NewGame,
    PartnerTell,
    PlayerInfo,
    RawLine,
    Refused,
    format_command,
)
from bughouse_arbiter.protocol.limits import (
    INFO_LIMIT,
    MOVE_LIMIT,
    NAME_LIMIT,
    TELL_LIMIT,
    TELLS_PER_GAME,
    TELLS_PER_TURN,
    TEXT_LIMIT,
    TellQuota,
    bounded_int,
    engine_text,
)

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
KEYWORDS = [
    "id name",
    "id author",
    "option name",
    "feature",
    "bugok",
    "readyok",
    "bestmove",
    "wait",
    "resign",
    "draw",
    "ptell",
    "info",
    "info depth",
    "info score cp",
    "info board",
    "error",
    # UCI and xboard words
    "uciok",
    "move",
    "tellics ptell",
    "tellics resign",
    "pong",
    "1-0 {",
    "Illegal move",
    "Error",
    "offer draw",
    "Sjeng:",
]
digits = st.integers(min_value=1, max_value=5000).map(lambda n: "9" * n)
free_text = st.text(max_size=300)
lines = st.one_of(
    free_text,
    st.builds(lambda k, rest: f"{k} {rest}", st.sampled_from(KEYWORDS), free_text),
    st.builds(lambda k, n, rest: f"{k} {n} {rest}", st.sampled_from(KEYWORDS), digits, free_text),
    st.builds(lambda n: f"bestmove e2e4 turn {n}", digits),
    st.builds(lambda n: f"info depth {n} score cp -{n} score mate {n}", digits),
    st.builds(lambda k, n: f"{k} {'x' * n}", st.sampled_from(KEYWORDS), st.integers(0, 9000)),
)
raw_bytes = st.binary(max_size=2000)


#: The longest each text field of a session event may be.
LIMITS = {
    "text": max(INFO_LIMIT, TELL_LIMIT),
    "reason": TEXT_LIMIT,
    "value": TEXT_LIMIT,
    "name": TEXT_LIMIT,
    "move": MOVE_LIMIT,
}


def clean(text: str, limit: int) -> bool:
    return len(text) <= limit and not CONTROL.search(text)


# -- the native session -----------------------------------------------------------


def playing_session() -> EngineSession:
    session = EngineSession()
    session.send(Bug())
    session.receive_data(b"id name Fine\nbugok\n")
    while not isinstance(session.next_event(), Marker):
        pass
    session.send(NewGame(game_id="g", seats=(Seat.A_WHITE,), time_ms=60000, inc_ms=0))
    session.send(Go(version=0, token=1, board=BoardId.A))
    return session


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(lines.map(lambda t: t.encode("utf-8", "surrogatepass")), raw_bytes)))
def test_the_session_turns_any_output_into_bounded_events(chunks: list[bytes]) -> None:
    session = playing_session()
    for chunk in chunks:
        session.receive_data(chunk + b"\n")
        while not isinstance(event := session.next_event(), Marker):
            if isinstance(event, Ignored):
                assert clean(event.line, 200) and clean(event.reason, TEXT_LIMIT)
                continue
            for field, limit in LIMITS.items():
                value = getattr(event, field, None)
                if isinstance(value, str):
                    assert clean(value, limit), (field, value)
    assert len(session.name or "") <= NAME_LIMIT
    # Whatever the engine said, every line to it is still valid.
    for command in (
        PlayerInfo(Seat.A_BLACK, "engine", session.name or "?"),
        Refused(token=1, move="\x1b" + "e" * 9000, reason="r" * 9000),
        PartnerTell("\n".join(session.ids.values()) or "x"),
    ):
        assert len(format_command(command).encode()) <= MAX_LINE


@settings(max_examples=200, deadline=None)
@given(free_text, st.integers(0, 20000))
def test_no_name_can_make_a_line_to_another_engine_too_long(name: str, repeat: int) -> None:
    text = (name or "n") * max(1, repeat // max(1, len(name)))
    line = format_command(PlayerInfo(Seat.A_WHITE, "engine", text))
    assert len(line.encode()) <= MAX_LINE
    assert "\n" not in line and "\r" not in line
    assert len(line) <= len("player a-white engine ") + NAME_LIMIT


# -- the native player -------------------------------------------------------------


async def test_the_native_player_takes_any_output_without_raising() -> None:
    """One hypothesis run per example inside a single trio run (the player is sync inside)."""
    send, receive = trio.open_memory_channel[Action](math.inf)
    failures: list[BaseException] = []

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.one_of(lines.map(str.encode), raw_bytes), max_size=20))
    def feed(chunks: list[bytes]) -> None:
        player = NativeEnginePlayer(Seat.A_WHITE, ["never-started"])
        player._actions = send
        player._send(Bug())
        player._on_lines([RawLine("bugok", 5)], 0.0)
        player._send(NewGame(game_id="g", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0))
        player._playing = True
        player._turns[1] = (Seat.A_WHITE, 7)
        player._open_by_seat[Seat.A_WHITE] = 1
        player._send(Go(version=0, token=1, board=BoardId.A))
        buffer = LineBuffer()
        for chunk in chunks:
            player._on_lines(buffer.feed(chunk + b"\n"), 0.0)
        while True:
            try:
                action = receive.receive_nowait()
            except trio.WouldBlock:
                break
            if isinstance(action, TellAction):
                assert clean(action.text, TELL_LIMIT) and action.text
            elif isinstance(action, InfoAction):
                assert clean(action.text, INFO_LIMIT)
            elif isinstance(action, MoveAction):
                assert clean(action.move, MOVE_LIMIT)
            elif isinstance(action, WaitAction):
                assert clean(action.reason, TEXT_LIMIT)
        assert clean(player.name, NAME_LIMIT)

    try:
        feed()
    except BaseException as exc:  # reported after the loop, with hypothesis's example
        failures.append(exc)
    assert not failures, failures[0]


# -- the adapters ------------------------------------------------------------------


def uci_table() -> Table:
    adapter = UciAdapter(Seat.A_WHITE, rules=HouseRules(time=60.0))
    adapter.begin()
    for line in ("option name UCI_Variant type combo default chess var bughouse", "uciok"):
        adapter.receive(line)
    adapter.receive("readyok")
    table = Table(adapter)
    table.new_game()
    table.your_turn()
    return table


def xboard_table() -> Table:
    adapter = XboardAdapter(Seat.A_WHITE, rules=HouseRules(time=60.0))
    adapter.begin()
    # No ping: an engine move is judged at once (with ping, moves wait for the pong).
    adapter.receive('feature myname="Plain" variants="bughouse" done=1')
    table = Table(adapter)
    table.new_game()
    table.your_turn()
    return table


def check_events(table: Table) -> None:
    _lines, events = table.adapter.take()
    for event in events:
        if isinstance(event, EngineTell):
            assert clean(event.text, TELL_LIMIT) and event.text
        elif isinstance(event, EngineInfoLine):
            assert clean(event.text, INFO_LIMIT)
        elif isinstance(event, EngineWait):
            assert clean(event.reason, TEXT_LIMIT)
        elif isinstance(event, EngineNote):
            assert clean(event.text, 1000)
    assert clean(table.adapter.name, NAME_LIMIT)


@settings(max_examples=150, deadline=None)
@given(st.lists(lines, max_size=20))
def test_the_uci_adapter_takes_any_line_without_raising(engine_lines: list[str]) -> None:
    table = uci_table()
    for line in engine_lines:
        table.adapter.receive(line)  # type: ignore[attr-defined]
        check_events(table)


@settings(max_examples=100, deadline=None)
@given(st.lists(lines, max_size=20))
def test_the_xboard_adapter_takes_any_line_without_raising(engine_lines: list[str]) -> None:
    table = xboard_table()
    for line in engine_lines:
        table.adapter.receive(line)  # type: ignore[attr-defined]
        check_events(table)


# -- numbers and text ----------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.one_of(lines, free_text))
def test_search_info_numbers_are_bounded_and_always_written(text: str) -> None:
    info = parse_info(text)
    if info is not None:
        command = info.command()
        assert command is None or len(command) < 60


def test_a_score_of_hundreds_of_digits_counts_as_absent() -> None:
    digits = "9" * 500
    assert parse_info(f"depth 12 score cp {digits}") == SearchInfo(depth=12)
    assert parse_info(f"score mate -{'7' * 5000}") is None
    assert parse_info("depth 7 score cp -35") == SearchInfo(score_cp=-35, depth=7)
    assert SearchInfo(score_cp=10**400, depth=3).command() == "[%eval ?,3]"
    assert SearchInfo(score_cp=-5).command() == "[%eval -0.05]"
    assert bounded_int("+12", 100) == 12 and bounded_int("101", 100) is None
    assert bounded_int("1e3", 10**6) is None and bounded_int("", 5) is None


@given(st.text(max_size=2000), st.integers(3, 600))
def test_engine_text_is_one_clean_line_within_its_limit(text: str, limit: int) -> None:
    out = engine_text(text, limit)
    assert clean(out, limit)
    if len(text) <= limit and not CONTROL.search(text):
        assert out == text.strip(" ")


def test_engine_text_cuts_with_a_mark_and_replaces_controls() -> None:
    assert engine_text("a\x1b]0;x\x07b", 20) == "a ]0;x b"
    assert engine_text("N" * 100, 10) == "NNNNNNN..."
    assert engine_text("line\u2028two\u202e", 20) == "line two"


def test_the_tell_quota_caps_a_turn_and_a_game_and_notes_once() -> None:
    quota = TellQuota()
    notes = []
    passed = 0
    for _turn in range(60):
        for _ in range(TELLS_PER_TURN + 3):
            allowed, note = quota.allow()
            passed += allowed
            if note is not None:
                notes.append(note)
        quota.turn_over()
    assert passed == TELLS_PER_GAME
    assert len(notes) == 1 and "per turn" in notes[0]
    assert quota.dropped == 60 * (TELLS_PER_TURN + 3) - TELLS_PER_GAME
    assert quota.summary() is not None
    quota.new_game()
    assert quota.allow() == (True, None) and quota.summary() is None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([UciAdapter, XboardAdapter]), st.lists(lines, max_size=20))
def test_handshake_lines_raise_nothing_but_a_clean_engine_failure(
    kind: type[UciAdapter] | type[XboardAdapter], engine_lines: list[str]
) -> None:
    adapter = kind(Seat.A_WHITE, rules=HouseRules(time=60.0))
    adapter.begin()
    for line in engine_lines:
        try:
            adapter.receive(line)
        except EngineFailed as exc:  # the one way a handshake may fail (no bughouse)
            assert "bughouse" in str(exc)
            return
        _lines, events = adapter.take()
        assert all(clean(getattr(e, "text", ""), 1000) for e in events)
    assert clean(adapter.name, NAME_LIMIT)


KNIGHTS_TO_AND_FRO = ("g1f3", "g8f6", "f3g1", "f6g8")


async def test_an_xboard_seat_passes_eight_tells_a_turn_and_two_hundred_a_game() -> None:
    player = XboardPlayer(Seat.A_WHITE, ["never-started"])
    table = Table(player.adapter)
    table.new_game()
    passed = 0
    for turn in range(40):
        for i in range(20):
            passed += player._action(EngineTell(f"{turn}.{i}")) is not None
        # A move on the seat's own board ends its turn.
        seat = Seat.A_WHITE if turn % 2 == 0 else Seat.A_BLACK
        played = table.game.push(seat, KNIGHTS_TO_AND_FRO[turn % 4])
        state = TableState(
            version=table.game.plies,
            fens={board: table.game.fen(board) for board in BoardId},
            clocks={s: 60.0 for s in Seat},
        )
        await player.moved(played, state)
        if turn == 0:
            assert passed == TELLS_PER_TURN
    assert passed == TELLS_PER_GAME
    assert player.tells.dropped == 40 * 20 - TELLS_PER_GAME


async def test_a_chatty_xboard_engine_reaches_its_partner_eight_times_a_turn() -> None:
    # Sjeng answers "Ok, ..." to its partner's words: two of them cannot flood the table.
    notes: list[str] = []
    player = XboardPlayer(Seat.A_BLACK, ["never-started"], log=notes.append)
    table = Table(player.adapter)
    table.new_game()

    def told(*lines: str) -> list[str]:
        for line in lines:
            player.adapter.receive(line)
        _, events = player.adapter.take()
        actions = [player._action(event) for event in events]
        return [a.text for a in actions if isinstance(a, TellAction)]

    assert told(*[f"tellics ptell Ok, trading is BAD {i}" for i in range(20)]) == [
        f"Ok, trading is BAD {i}" for i in range(TELLS_PER_TURN)
    ]
    assert len([n for n in notes if "over the cap" in n]) == 1  # the excess, noted once
    assert told("tellics ptell still here") == []
    # The opponent's move on its board opens its next turn: it may speak again.
    played = table.game.push(Seat.A_WHITE, "e2e4")
    state = TableState(
        version=table.game.plies,
        fens={board: table.game.fen(board) for board in BoardId},
        clocks={s: 60.0 for s in Seat},
    )
    await player.moved(played, state)
    assert told("tellics ptell go") == ["go"]
    assert len([n for n in notes if "over the cap" in n]) == 1


# -- a stop from outside, whenever it lands ----------------------------------------------


async def test_a_stop_while_players_start_is_an_interruption_with_its_reason(
    autojump_clock: object,
) -> None:
    from fakes import FakePlayer

    from bughouse_arbiter.core.model import Result
    from bughouse_arbiter.table.arbiter import MatchEnded, MatchEvent, run_match

    players = [FakePlayer(seat, start_delay=100.0) for seat in Seat]
    ended: list[MatchEnded] = []

    def observe(event: MatchEvent) -> None:
        if isinstance(event, MatchEnded):
            ended.append(event)

    with trio.move_on_after(5.0):  # every player is still starting
        await run_match(players, observer=observe, stop_reason=lambda: "interrupted by SIGTERM")
    (end,) = ended
    assert end.outcome.result is Result.UNFINISHED
    assert end.outcome.reason == "interrupted by SIGTERM"
    assert all(player.closed for player in players)
