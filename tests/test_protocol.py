"""The BUG/1 codec: grammar, the session state machine, and protocol.md itself."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given
from hypothesis import strategies as st

from bughouse_arbiter.core.model import BoardId, Result, Seat, Termination
from bughouse_arbiter.protocol import (
    CLOSED,
    COMMAND_TYPES,
    COMMANDS_ALLOWED,
    MAX_LINE,
    MESSAGE_TYPES,
    MESSAGES_ALLOWED,
    NEED_DATA,
    BestMove,
    BoardOver,
    Bug,
    BugOk,
    Command,
    Draw,
    EngineError,
    EngineSession,
    Feature,
    GameOver,
    Go,
    Id,
    Ignored,
    Info,
    IsReady,
    LineBuffer,
    LocalProtocolError,
    Message,
    MoveEvent,
    NewGame,
    OptionSpec,
    PartnerTell,
    PlayerInfo,
    ProtocolSyntaxError,
    Quit,
    RawLine,
    ReadyOk,
    Refused,
    RelayedDrawOffer,
    Resign,
    RulesInfo,
    SessionState,
    SetOption,
    State,
    Tell,
    Wait,
    clean_text,
    clocks_ms,
    format_command,
    format_message,
    parse_command,
    parse_message,
)
from bughouse_arbiter.protocol.grammar import _parse_message_walk, parse_int, split
from bughouse_arbiter.protocol.session import QUOTE_LIMIT

SPEC = Path(__file__).resolve().parent.parent / "protocol.md"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
CLOCKS = (180000, 180000, 180000, 180000)


# -- grammar, table-driven --------------------------------------------------------

MESSAGE_LINES: list[tuple[str, Message]] = [
    ("id name RandomMover 1.0", Id("name", "RandomMover 1.0")),
    ("id author  The  authors ", Id("author", "The  authors")),
    (
        "option name Hash type spin default 16 min 1 max 1024",
        OptionSpec(name="Hash", type="spin", default="16", min="1", max="1024"),
    ),
    (
        "option name Skill Level type combo default Fast var Fast var Very Slow",
        OptionSpec(name="Skill Level", type="combo", default="Fast", vars=("Fast", "Very Slow")),
    ),
    (
        "option name Mode type combo default Very Slow var Very Slow var MAX",
        OptionSpec(name="Mode", type="combo", default="Very Slow", vars=("Very Slow", "MAX")),
    ),
    ("feature team", Feature("team")),
    ("bugok", BugOk()),
    ("bugok 1", BugOk()),
    ("readyok", ReadyOk()),
    ("bestmove e2e4 turn 7", BestMove(move="e2e4", token=7)),
    ("bestmove N@f7 turn 9 board b", BestMove(move="N@f7", token=9, board=BoardId.B)),
    ("bestmove n@f7 board B turn 9", BestMove(move="n@f7", token=9, board=BoardId.B)),
    ("bestmove e2e4 turn 7 ponder e7e5", BestMove(move="e2e4", token=7)),
    ("\tbestmove  e7e8q   turn 3\t", BestMove(move="e7e8q", token=3)),
    ("bestmove e2e4\t turn 7", BestMove(move="e2e4", token=7)),
    ("wait turn 9", Wait(token=9)),
    ("wait turn 9 reason need a  knight", Wait(token=9, reason="need a  knight")),
    (
        "wait turn 2 board a reason no legal move",
        Wait(token=2, board=BoardId.A, reason="no legal move"),
    ),
    ("resign", Resign()),
    ("resign board b", Resign(board=BoardId.B)),
    ("draw offer", Draw()),
    ("draw accept board a", Draw(accept=True, board=BoardId.A)),
    ("ptell ++n", Tell("++n")),
    ("info depth 3 score cp 12", Info(text="depth 3 score cp 12")),
    ("info board a string hi", Info(text="string hi", board=BoardId.A)),
    ("info", Info(text="")),
    ("error unknown command foo", EngineError("unknown command foo")),
]


@pytest.mark.parametrize(("line", "expected"), MESSAGE_LINES)
def test_parse_message(line: str, expected: Message) -> None:
    assert parse_message(line) == expected


BAD_MESSAGES = [
    "",
    "   ",
    "bestmove (none)",
    "bestmove e2e4",
    "bestmove e2e4 turn",
    "bestmove e2e4 turn x",
    "bestmove e2e4 turn -3",
    "bestmove e2e4 turn ²",
    "bestmove e2e4 turn 1 board c",
    "wait",
    "wait turn",
    "draw",
    "draw maybe",
    "ptell",
    "option name",
    "option type spin",
    "Sjeng: ",
    "BESTMOVE e2e4 turn 1",
    "move e2e4",
    "1-0 {White mates}",
]


@pytest.mark.parametrize("line", BAD_MESSAGES)
def test_parse_message_rejects(line: str) -> None:
    with pytest.raises(ProtocolSyntaxError):
        parse_message(line)


COMMAND_LINES: list[tuple[Command, str]] = [
    (Bug(), "bug 1"),
    (SetOption("Seed", "42"), "setoption name Seed value 42"),
    (SetOption("Clear Hash"), "setoption name Clear Hash"),
    (IsReady(), "isready"),
    (
        NewGame(game_id="m1", seats=(Seat.A_WHITE,), time_ms=180000, inc_ms=2000),
        "newgame id m1 seat a-white time 180000 inc 2000",
    ),
    (
        NewGame(game_id="g7", seats=(Seat.A_WHITE, Seat.B_BLACK), time_ms=60000, inc_ms=0),
        "newgame id g7 seat a-white seat b-black time 60000 inc 0",
    ),
    (PlayerInfo(Seat.B_WHITE, "human", "Alice"), "player b-white human Alice"),
    (RulesInfo((("time", "180"), ("stalemate", "wait"))), "rules time=180 stalemate=wait"),
    (
        State(version=0, fen_a=START, fen_b=START, clocks=CLOCKS),
        f"state v 0 a {START} b {START} clock 180000 180000 180000 180000",
    ),
    (
        State(
            version=7, fen_a=START, fen_b=START, clocks=(1, 2, 3, 4), no_double=(("e2", "g7"), ())
        ),
        f"state v 7 a {START} b {START} clock 1 2 3 4 nodouble e2,g7 -",
    ),
    (
        MoveEvent(version=4, board=BoardId.B, move="e4d5", passed="p", clocks=(1, 2, 3, 4)),
        "event v 4 board b move e4d5 pass p clock 1 2 3 4",
    ),
    (
        MoveEvent(version=5, board=BoardId.A, move="N@f3", clocks=(1, 2, 3, 4)),
        "event v 5 board a move N@f3 clock 1 2 3 4",
    ),
    (Go(version=3, token=2, board=BoardId.A), "go v 3 turn 2 board a"),
    (
        Go(version=3, token=2, board=BoardId.B, movetime=100, nodes=5),
        "go v 3 turn 2 board b movetime 100 nodes 5",
    ),
    (Go(version=3, token=2, board=BoardId.A, limit=4250), "go v 3 turn 2 board a limit 4250"),
    (
        Refused(token=2, move="e2e5", reason="not legal"),
        "illegal turn 2 move e2e5 reason not legal",
    ),
    (PartnerTell("sit\nnow"), "ptell sit now"),
    (RelayedDrawOffer(Seat.B_WHITE), "draw offer by b-white"),
    (
        BoardOver(
            board=BoardId.A,
            result=Result.TEAM_TWO,
            reason=Termination.FLAG,
            seat=Seat.A_WHITE,
            text="A-White lost on time",
        ),
        "boardover board a result 0-1 reason flag seat a-white text A-White lost on time",
    ),
    (
        GameOver(
            result=Result.TEAM_ONE,
            reason=Termination.CHECKMATE,
            board=BoardId.B,
            seat=Seat.B_WHITE,
            text="B-White checkmated",
        ),
        "gameover result 1-0 reason checkmate board b seat b-white text B-White checkmated",
    ),
    (
        GameOver(result=Result.UNFINISHED, reason=Termination.ABORTED, text="interrupted"),
        "gameover result * reason aborted text interrupted",
    ),
    (Quit(), "quit"),
]


@pytest.mark.parametrize(("command", "line"), COMMAND_LINES)
def test_format_and_parse_command(command: Command, line: str) -> None:
    assert format_command(command) == line
    if not isinstance(command, PartnerTell):  # the line break was cleaned away
        assert parse_command(line) == command


def test_format_refuses_what_cannot_be_one_line() -> None:
    with pytest.raises(ValueError, match="six fields"):
        format_command(State(version=0, fen_a="8/8/8/8/8/8/8/8", fen_b=START, clocks=CLOCKS))
    with pytest.raises(ValueError, match="one non-empty token"):
        format_command(MoveEvent(version=1, board=BoardId.A, move="e2 e4", clocks=CLOCKS))
    with pytest.raises(ValueError, match="one non-empty token"):
        format_message(BestMove(move="", token=1))
    with pytest.raises(ValueError, match=r"^game id must be one non-empty token, got 'g 1'$"):
        format_command(NewGame(game_id="g 1", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0))


def test_split_keeps_the_rest_of_the_line_as_one_piece_past_the_limit() -> None:
    assert split("\t bestmove  e2e4\tturn 7 \t") == ["bestmove", "e2e4", "turn", "7"]
    assert split("id name  Deep  Blue ", 2) == ["id", "name", "Deep  Blue"]
    assert split("  \t ") == []


def test_state_skips_unknown_pairs_and_refuses_bad_squares() -> None:
    line = f"state v 1 a {START} b {START} clock 1 2 3 4 future 9 nodouble - h2"
    assert parse_command(line) == State(
        version=1, fen_a=START, fen_b=START, clocks=(1, 2, 3, 4), no_double=((), ("h2",))
    )
    with pytest.raises(ProtocolSyntaxError, match="bad squares"):
        parse_command(f"state v 1 a {START} b {START} clock 1 2 3 4 nodouble z9 -")
    with pytest.raises(ValueError, match="not a square"):
        format_command(
            State(version=0, fen_a=START, fen_b=START, clocks=CLOCKS, no_double=(("e9",), ()))
        )


def test_clocks_ms_floors_and_clamps() -> None:
    assert clocks_ms([179.9996, 0.0004, -1.5, 60]) == (179999, 0, 0, 60000)
    # Each of the four, written out one by one, gets every kind of value.
    seconds, whole_ms = [179.9996, 0.75, -1.5, 0.0004], [179999, 750, 0, 0]
    for turn in range(4):
        expected = tuple(whole_ms[turn:] + whole_ms[:turn])
        assert clocks_ms(seconds[turn:] + seconds[:turn]) == expected
    assert clocks_ms([1, 2, 3, 4]) == (1000, 2000, 3000, 4000)  # in seat order
    with pytest.raises(ValueError, match=r"^need four clocks$"):
        clocks_ms([1.0, 2.0])


_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (f"state v 1 a {_FEN} b {_FEN} clock 1 2 3", "missing clock"),
        (f"state v 1 a {_FEN} b {_FEN} clock 1 2 x 4", "bad clock 'x'"),
        ("state v 1 a rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq", "missing FEN field"),
        ("state x 1", "expected 'v', got 'x'"),
        ("state", "missing 'v'"),
        ("go v x turn 1 board a", "bad version 'x'"),
        ("go v 1 turn 1 board c", "bad board 'c'"),
        ("go v 1 turn 1 board a depth x", "bad depth 'x'"),
        ("gameover result 2-0 reason checkmate text x", "bad result '2-0'"),
        ("gameover result 1-0 reason boredom text x", "bad termination 'boredom'"),
        (
            "boardover board a result 1-0 reason resignation seat z-white text x",
            "bad seat 'z-white'",
        ),
        ("newgame id g seat a-white time 1 inc x", "bad inc 'x'"),
        ("player a-white robot x", "bad player kind 'robot'"),
    ],
)
def test_a_malformed_command_says_what_is_wrong(line: str, why: str) -> None:
    with pytest.raises(ProtocolSyntaxError) as caught:
        parse_command(line)
    assert str(caught.value) == why


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("bestmove e2e4 turn x", "bad turn 'x'"),
        ("bestmove e2e4 turn", "missing value after 'turn'"),
        ("bestmove e2e4 trun 1", "missing 'turn'"),
        ("bestmove e2e4 turn 1 board a board b", "'board' given twice"),
        ("wait turn 1 board q", "bad board 'q'"),
        ("draw maybe", "expected 'draw offer' or 'draw accept', got 'maybe'"),
        ("ptell", "empty ptell"),
        ("foo", "unknown message 'foo'"),
        ("option name Hash", "expected 'option name <id> type <type> ...'"),
        ("draw", "missing 'offer' or 'accept'"),
        ("", "missing message"),
        ("id", "missing id key"),
        ("feature", "missing feature name"),
        ("wait turn x", "bad turn 'x'"),
        ("info board", "missing board"),
        ("bestmove e2e4\x0bturn 7", "missing value after '7'"),
        ("option name Hash type spin 16 default 16", "unexpected '16' in option"),
    ],
)
def test_a_malformed_message_says_what_is_wrong(line: str, why: str) -> None:
    with pytest.raises(ProtocolSyntaxError) as caught:
        parse_message(line)
    assert str(caught.value) == why


# -- protocol.md is consistent with the code ---------------------------------------


def _spec_table_rows() -> dict[str, tuple[set[str], set[str]]]:
    text = SPEC.read_text()
    section = text[text.index("## 3. Session states") : text.index("Inside `playing`")]
    rows: dict[str, tuple[set[str], set[str]]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        state = cells[0].strip("`")
        sends = set(re.findall(r"`([a-z]+)`", cells[2]))
        receives = set(re.findall(r"`([a-z]+)`", cells[3]))
        rows[state] = (sends, receives)
    return rows


def test_state_table_matches_protocol_md() -> None:
    rows = _spec_table_rows()
    assert set(rows) == {s.value for s in SessionState}
    for state in SessionState:
        sends, receives = rows[state.value]
        assert sends == set(COMMANDS_ALLOWED[state]), state
        assert receives == set(MESSAGES_ALLOWED[state]), state


def test_every_keyword_is_documented_in_protocol_md() -> None:
    text = SPEC.read_text()
    for kind in (*COMMAND_TYPES, *MESSAGE_TYPES):
        assert f"`{kind.KEYWORD}" in text, kind


def _spec_examples() -> list[tuple[str, str]]:
    """Every ``< line`` and ``> line`` of the examples in protocol.md."""
    lines = []
    for block in re.findall(r"```\n(.*?)```", SPEC.read_text(), re.S):
        for line in block.splitlines():
            if line[:2] in ("< ", "> ") and "..." not in line and "(ignored" not in line:
                lines.append((line[0], line[2:]))
    return lines


def test_protocol_md_examples_parse() -> None:
    examples = _spec_examples()
    assert len(examples) > 60
    for direction, line in examples:
        if direction == "<":
            command = parse_command(line)
            assert format_command(command) == " ".join(line.split()), line
        else:
            assert format_message(parse_message(line)) == line, line


# -- round trips and garbage ---------------------------------------------------------

# Printable words: engine text is cleaned of controls on the way (protocol.limits).
words = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
        blacklist_characters=" \t\r\n\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
    ),
    min_size=1,
    max_size=12,
)
texts = st.lists(words, min_size=1, max_size=5).map(" ".join)
tokens = st.integers(min_value=0, max_value=10**12)
boards = st.sampled_from(BoardId)
seats = st.sampled_from(Seat)
clocks = st.tuples(tokens, tokens, tokens, tokens)
fens = st.sampled_from(
    [START, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pn] w KQkq - 2 3"]
)

messages = st.one_of(
    st.builds(Id, st.sampled_from(["name", "author"]), texts),
    st.builds(
        OptionSpec,
        name=words.filter(lambda w: w not in ("type",)),
        type=st.sampled_from(["spin", "check", "combo", "string", "button"]),
        default=st.none() | words.filter(lambda w: w not in ("min", "max", "var", "default")),
        min=st.none() | st.integers().map(str),
        max=st.none() | st.integers().map(str),
    ),
    st.builds(Feature, words, st.just("") | words),
    st.just(BugOk()),
    st.just(ReadyOk()),
    st.builds(BestMove, move=words, token=tokens, board=st.none() | boards),
    st.builds(Wait, token=tokens, board=st.none() | boards, reason=st.just("") | texts),
    st.builds(Resign, board=st.none() | boards),
    st.builds(Draw, accept=st.booleans(), board=st.none() | boards),
    st.builds(Tell, texts),
    st.builds(
        Info, text=texts.filter(lambda t: not t.startswith("board ")), board=st.none() | boards
    ),
    st.builds(EngineError, texts),
)


@given(messages)
def test_message_round_trip(message: Message) -> None:
    line = format_message(message)
    assert "\n" not in line
    assert parse_message(line) == message


commands = st.one_of(
    st.builds(Bug, st.integers(min_value=1, max_value=9)),
    st.builds(SetOption, words.filter(lambda w: w != "value"), st.none() | words),
    st.builds(
        NewGame,
        game_id=words,
        seats=st.sampled_from([(s,) for s in Seat] + [(Seat.A_BLACK, Seat.B_WHITE)]),
        time_ms=tokens,
        inc_ms=tokens,
    ),
    st.builds(PlayerInfo, seats, st.sampled_from(["engine", "human"]), texts),
    st.builds(
        RulesInfo,
        st.lists(st.tuples(words.filter(lambda w: "=" not in w), words), max_size=4).map(tuple),
    ),
    st.builds(State, version=tokens, fen_a=fens, fen_b=fens, clocks=clocks),
    st.builds(
        MoveEvent,
        version=tokens,
        board=boards,
        move=words,
        passed=st.none() | st.sampled_from("pnbrqPNBRQ"),
        clocks=clocks,
    ),
    st.builds(
        Go,
        version=tokens,
        token=tokens,
        board=boards,
        movetime=st.none() | tokens,
        depth=st.none() | tokens,
        nodes=st.none() | tokens,
    ),
    st.builds(Refused, token=tokens, move=words, reason=texts),
    st.builds(PartnerTell, texts),
    st.builds(RelayedDrawOffer, seats),
    st.builds(
        GameOver,
        result=st.sampled_from(Result),
        reason=st.sampled_from(Termination),
        board=st.none() | boards,
        seat=st.none() | seats,
        text=texts,
    ),
    st.builds(
        BoardOver,
        board=boards,
        result=st.sampled_from(Result),
        reason=st.sampled_from(Termination),
        seat=st.none() | seats,
        text=texts,
    ),
    st.just(IsReady()),
    st.just(Quit()),
)


@given(commands)
def test_command_round_trip(command: Command) -> None:
    line = format_command(command)
    assert "\n" not in line
    assert parse_command(line) == command


@given(st.text(max_size=200))
def test_parse_of_any_text_fails_only_with_syntax_error(line: str) -> None:
    for parse in (parse_message, parse_command):
        with contextlib.suppress(ProtocolSyntaxError):
            parse(line)


def _session_in(stage: str) -> EngineSession:
    if stage == "playing":
        session = _playing_session(Seat.A_WHITE, Seat.B_BLACK, team=True)
        session.send(Go(version=0, token=1, board=BoardId.A))
        return session
    session = EngineSession()
    if stage != "started":
        session.send(Bug())
    if stage == "ready":
        _events(session, b"bugok\n")
    return session


@given(
    st.sampled_from(["started", "handshake", "ready", "playing"]),
    st.lists(
        st.binary(min_size=1, max_size=300)
        | st.sampled_from(
            [b"bestmove e2e4 turn 1 board a\n", b"info board b x\n", b"resign\n", b"bugok\n"]
        ),
        max_size=12,
    ),
)
def test_session_survives_any_bytes(stage: str, chunks: list[bytes]) -> None:
    session = _session_in(stage)
    for chunk in chunks:
        session.receive_data(chunk)
        while (event := session.next_event()) is not NEED_DATA:
            assert isinstance(event, (Ignored, *MESSAGE_TYPES))
    session.receive_data(b"")
    while (event := session.next_event()) is not CLOSED:
        assert isinstance(event, (Ignored, *MESSAGE_TYPES))


# -- lines ---------------------------------------------------------------------------


def test_line_buffer_keeps_partial_lines_and_strips_cr() -> None:
    buffer = LineBuffer()
    assert buffer.feed(b"bestm") == []
    assert buffer.feed(b"ove e2e4 turn 1\r\nrea") == [RawLine("bestmove e2e4 turn 1", 20)]
    assert buffer.feed(b"dyok\n\n") == [RawLine("readyok", 7), RawLine("", 0)]
    assert buffer.close() == []


def test_line_buffer_discards_overlong_lines_across_chunks() -> None:
    buffer = LineBuffer(max_line=10)
    assert buffer.feed(b"0123456789") == []
    assert buffer.feed(b"abcdef" * 1000) == []
    lines = buffer.feed(b"end\nok\n")
    assert lines == [RawLine("0123456789", 10 + 6000 + 3, overlong=True), RawLine("ok", 2)]
    assert buffer.feed(b"x" * 11 + b"\n") == [RawLine("x" * 10, 11, overlong=True)]
    assert buffer.feed(b"y" * 10 + b"\r\n") == [RawLine("y" * 10, 10)]


def test_an_overlong_line_in_many_chunks_counts_every_byte() -> None:
    buffer = LineBuffer(max_line=10)
    for chunk in (b"0123456789ab", b"c" * 100, b"d" * 1000, b"e" * 7):
        assert buffer.feed(chunk) == []
    assert buffer.feed(b"\n") == [RawLine("0123456789", 12 + 100 + 1000 + 7, overlong=True)]


def test_a_line_of_the_limit_whose_cr_and_lf_come_apart_is_whole() -> None:
    buffer = LineBuffer(max_line=10)
    assert buffer.feed(b"0123456789\r") == []
    assert buffer.feed(b"\nok") == [RawLine("0123456789", 10)]
    assert buffer.close() == [RawLine("ok", 2)]


def test_line_buffer_decodes_bad_utf8_and_flushes_last_line() -> None:
    buffer = LineBuffer()
    assert buffer.feed(b"info \xff\xfe ok\nSjeng: ") == [RawLine("info \ufffd\ufffd ok", 10)]
    assert buffer.close() == [RawLine("Sjeng: ", 7)]


# -- the session ------------------------------------------------------------------------


def _events(session: EngineSession, data: bytes) -> list[object]:
    session.receive_data(data)
    events = []
    while (event := session.next_event()) not in (NEED_DATA, CLOSED):
        events.append(event)
    return events


def _playing_session(*seats: Seat, team: bool = False) -> EngineSession:
    session = EngineSession()
    session.send(Bug())
    _events(session, b"feature team\nbugok\n" if team else b"bugok\n")
    session.send(NewGame(game_id="g", seats=seats or (Seat.A_WHITE,), time_ms=60000, inc_ms=0))
    return session


def test_handshake() -> None:
    session = EngineSession()
    early = _events(session, b"id name Early\n")
    assert early == [Ignored("id name Early", "'id' is not expected in state 'started'")]
    assert session.send(Bug()) == b"bug 1\n"
    assert session.state is SessionState.HANDSHAKE
    events = _events(
        session,
        b"Engine v2 (c) nobody\nid name Mover\nid author Me\n"
        b"option name Seed type spin default 0 min 0 max 99\nfeature team\n"
        b"feature colour x\nreadyok\nbugok\n",
    )
    assert events[0] == Ignored("Engine v2 (c) nobody", "unknown line")
    assert events[-2] == Ignored("readyok", "'readyok' is not expected in state 'handshake'")
    assert events[-1] == BugOk()
    assert session.state is SessionState.READY
    assert session.name == "Mover"
    assert session.ids["author"] == "Me"
    assert session.options["Seed"].max == "99"
    assert session.supports_team
    assert _events(session, b"bugok\n") == [
        Ignored("bugok", "'bugok' is not expected in state 'ready'")
    ]


def test_lines_split_by_the_transport_and_the_end_of_output() -> None:
    session = EngineSession()
    session.send(Bug())
    session.receive_line(RawLine("bugok", 5))
    assert session.next_event() == BugOk()
    assert session.next_event() is NEED_DATA
    session.receive_eof()
    session.receive_line(RawLine("readyok", 7))  # after the end: nothing more
    assert session.next_event() is CLOSED
    session.close_turn(99)  # a turn that was never open: nothing to forget


def test_ignored_lines_are_quoted_up_to_the_limit() -> None:
    session = EngineSession()
    session.send(Bug())
    whole, long = "x" * QUOTE_LIMIT, "y" * (QUOTE_LIMIT + 1)
    events = _events(session, f"{whole}\n{long}\n".encode())
    assert [e.line for e in events if isinstance(e, Ignored)] == [
        whole,
        "y" * (QUOTE_LIMIT - 3) + "...",
    ]


def test_a_fen_with_a_double_space_is_refused_on_the_wire() -> None:
    with pytest.raises(ValueError, match="six fields"):
        format_command(
            State(version=0, fen_a=START.replace(" w ", "  w "), fen_b=START, clocks=CLOCKS)
        )


def test_a_session_before_its_game_has_no_seat_and_keeps_feature_values() -> None:
    session = EngineSession()
    assert session.seat_on(BoardId.A) is None
    session.send(Bug())
    _events(session, b"feature colour x\nfeature team\nbugok\n")
    assert session.features == {"colour": "x", "team": ""}


def test_game_over_closes_every_open_turn_and_a_refusal_may_follow_an_answer() -> None:
    session = _playing_session(Seat.A_WHITE, Seat.B_BLACK, team=True)
    session.send(Go(version=0, token=1, board=BoardId.A))
    assert _events(session, b"bestmove e2e4 turn 1 board a\n")[0] == BestMove(
        move="e2e4", token=1, board=BoardId.A
    )
    session.send(Refused(token=1, move="e2e4", reason="illegal"))  # the turn was answered
    session.send(Go(version=1, token=2, board=BoardId.A))
    session.send(Go(version=1, token=3, board=BoardId.B))
    session.send(GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text="agreed"))
    assert session.open_turns == {}
    [late] = _events(session, b"bestmove d7d5 turn 3 board b\n")
    assert isinstance(late, Ignored)


@pytest.mark.parametrize(
    ("seats", "team", "why"),
    [
        ((Seat.A_WHITE, Seat.B_BLACK, Seat.A_BLACK), True, "a session holds one seat or two: "),
        ((Seat.A_WHITE, Seat.A_WHITE), True, "a session holds one seat or two: "),
        ((Seat.A_WHITE, Seat.B_WHITE), True, "team mode needs the two seats of one team"),
        ((Seat.A_BLACK, Seat.A_WHITE), True, "team mode needs the two seats of one team"),
        ((Seat.A_WHITE, Seat.B_BLACK), False, "the engine did not announce 'feature team'"),
    ],
)
def test_a_new_game_needs_one_seat_or_two_of_one_team(
    seats: tuple[Seat, ...], team: bool, why: str
) -> None:
    session = EngineSession()
    session.send(Bug())
    _events(session, b"feature team\nbugok\n" if team else b"bugok\n")
    with pytest.raises(LocalProtocolError) as caught:
        session.send(NewGame(game_id="g", seats=seats, time_ms=1, inc_ms=0))
    assert str(caught.value).startswith(why)
    assert session.state is SessionState.READY


def test_a_command_line_may_hold_max_line_bytes_and_no_more() -> None:
    session = EngineSession()
    session.send(Bug())
    _events(session, b"bugok\n")
    longest = "x" * (MAX_LINE - len("setoption name S value "))
    assert session.send(SetOption("S", longest)) == f"setoption name S value {longest}\n".encode()
    with pytest.raises(LocalProtocolError) as caught:
        session.send(SetOption("S", longest + "x"))
    assert str(caught.value) == f"'setoption' line is longer than {MAX_LINE} bytes"


def test_a_line_of_capital_xs_is_an_unknown_line_not_a_blank_one() -> None:
    session = _playing_session()
    assert _events(session, b"XX\nX\n") == [
        Ignored("XX", "unknown line"),
        Ignored("X", "unknown line"),
    ]


def test_only_spaces_and_tabs_make_a_blank_line() -> None:
    session = EngineSession()
    session.send(Bug())
    # A form feed is not blank: it is reported (and quoted without the control).
    assert _events(session, b" \t \n\x0c\nbugok\n") == [
        Ignored("", "unknown line"),
        BugOk(),
    ]


def test_info_and_error_between_games() -> None:
    session = EngineSession()
    session.send(Bug())
    assert _events(session, b"bugok\ninfo string hello\nerror oops\n") == [
        BugOk(),
        Info(text="string hello"),
        EngineError("oops"),
    ]


def test_commands_refused_out_of_state() -> None:
    session = EngineSession()
    with pytest.raises(LocalProtocolError, match="cannot send 'newgame' in state 'started'"):
        session.send(NewGame(game_id="g", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0))
    session.send(Bug())
    with pytest.raises(LocalProtocolError, match="'isready' in state 'handshake'"):
        session.send(IsReady())
    _events(session, b"bugok\n")
    with pytest.raises(LocalProtocolError, match="'go' in state 'ready'"):
        session.send(Go(version=0, token=1, board=BoardId.A))
    with pytest.raises(LocalProtocolError, match="feature team"):
        session.send(NewGame(game_id="g", seats=(Seat.A_WHITE, Seat.B_BLACK), time_ms=1, inc_ms=0))
    assert session.state is SessionState.READY
    session.send(NewGame(game_id="g", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0))
    with pytest.raises(LocalProtocolError, match="'setoption' in state 'playing'"):
        session.send(SetOption("Seed", "1"))
    with pytest.raises(LocalProtocolError, match="no seat on board B"):
        session.send(Go(version=0, token=1, board=BoardId.B))
    session.send(Go(version=0, token=5, board=BoardId.A))
    with pytest.raises(LocalProtocolError, match="already open"):
        session.send(Go(version=0, token=6, board=BoardId.A))
    with pytest.raises(LocalProtocolError, match="not larger"):
        session.send(Go(version=0, token=5, board=BoardId.A))


def test_turn_tokens_filter_stale_answers() -> None:
    session = _playing_session(Seat.A_BLACK)
    assert _events(session, b"bestmove e7e5 turn 1\n") == [
        Ignored("bestmove e7e5 turn 1", "bestmove for turn 1, which is not open (stale or unknown)")
    ]
    session.send(Go(version=1, token=1, board=BoardId.A))
    assert session.open_turns == {1: BoardId.A}
    events = _events(
        session,
        b"wait turn 1 reason need a piece\nbestmove e7e5 turn 1 board b\n"
        b"bestmove e7e5 turn 1\nbestmove d7d5 turn 1\n",
    )
    assert events == [
        Wait(token=1, board=BoardId.A, reason="need a piece"),
        Ignored(
            "bestmove e7e5 turn 1 board b",
            "bestmove names board B but turn 1 is on board A",
        ),
        BestMove(move="e7e5", token=1, board=BoardId.A),
        Ignored(
            "bestmove d7d5 turn 1", "bestmove for turn 1, which is not open (stale or unknown)"
        ),
    ]
    assert session.open_turns == {}
    session.send(Go(version=1, token=2, board=BoardId.A))
    session.send(Refused(token=2, move="e7e4", reason="no"))
    assert session.open_turns == {}
    session.send(Go(version=1, token=3, board=BoardId.A))
    session.close_turn(3)
    assert session.open_turns == {}
    with pytest.raises(LocalProtocolError, match="never issued"):
        session.send(Refused(token=99, move="e7e5", reason="no"))
    session.send(GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text="draw"))
    assert session.state is SessionState.READY
    assert session.open_turns == {}
    assert _events(session, b"bestmove e7e5 turn 1\n")[0].reason == (  # type: ignore[attr-defined]
        "'bestmove' is not expected in state 'ready'"
    )


def test_team_mode_needs_boards() -> None:
    session = _playing_session(Seat.A_BLACK, Seat.B_WHITE, team=True)
    assert session.team_mode
    session.send(Go(version=0, token=1, board=BoardId.B))
    session.send(Go(version=0, token=2, board=BoardId.A))
    events = _events(
        session,
        b"bestmove e2e4 turn 1\nbestmove e2e4 turn 1 board b\nwait turn 2 board a\n"
        b"ptell hi\nresign\ninfo board b depth 1\n",
    )
    assert events == [
        Ignored("bestmove e2e4 turn 1", "bestmove without 'board' in team mode"),
        BestMove(move="e2e4", token=1, board=BoardId.B),
        Wait(token=2, board=BoardId.A),
        Ignored("ptell hi", "'ptell' is not used in team mode"),
        Resign(board=BoardId.A),
        Info(text="depth 1", board=BoardId.B),
    ]


def test_single_seat_messages_get_the_seat_board() -> None:
    session = _playing_session(Seat.B_BLACK)
    assert _events(session, b"resign\ndraw offer\nptell go\nresign board a\ninfo x\n") == [
        Resign(board=BoardId.B),
        Draw(board=BoardId.B),
        Tell("go"),
        Ignored("resign board a", "this engine holds no seat on board A"),
        Info(text="x", board=BoardId.B),
    ]


def test_board_over_closes_only_that_board() -> None:
    session = _playing_session(Seat.A_WHITE, Seat.B_BLACK, team=True)
    session.send(Go(version=0, token=1, board=BoardId.A))
    session.send(Go(version=0, token=2, board=BoardId.B))
    session.send(
        BoardOver(board=BoardId.A, result=Result.TEAM_TWO, reason=Termination.FLAG, text="flag")
    )
    assert session.open_turns == {2: BoardId.B}


def test_overlong_and_garbage_lines_are_ignored_with_reasons() -> None:
    session = _playing_session()
    events = _events(session, b"z" * (MAX_LINE + 5) + b"\n\xff\xfe\nbestmove\n\n")
    assert [e.reason for e in events] == [  # type: ignore[attr-defined]
        f"over-long line ({MAX_LINE + 5} bytes, limit {MAX_LINE})",
        "unknown line",
        "malformed 'bestmove': missing move",
    ]
    assert len(events[0].line) < 300  # type: ignore[attr-defined]


def test_eof_flushes_the_last_line_then_closes() -> None:
    session = _playing_session()
    session.send(Go(version=0, token=1, board=BoardId.A))
    session.receive_data(b"bestmove e2e4 turn 1")
    assert session.next_event() is NEED_DATA
    session.receive_data(b"")
    assert session.next_event() == BestMove(move="e2e4", token=1, board=BoardId.A)
    assert session.next_event() is CLOSED
    assert session.state is SessionState.CLOSED
    session.receive_data(b"more\n")
    assert session.next_event() is CLOSED


def test_quit_then_everything_is_ignored() -> None:
    session = _playing_session()
    assert session.send(Quit()) == b"quit\n"
    assert session.state is SessionState.QUITTING
    (event,) = _events(session, b"readyok\n")
    assert isinstance(event, Ignored)
    with pytest.raises(LocalProtocolError):
        session.send(IsReady())


@given(
    st.lists(
        st.sampled_from(["bestmove", "e2e4", "N@f7", "turn", "board", "b", "7", "0", "x", "²", ""])
        | st.text(alphabet=" \t0123456789abturnbestmove", max_size=8),
        max_size=6,
    ),
    st.sampled_from([" ", "\t", "  "]),
)
def test_the_short_path_for_bestmove_reads_as_the_general_walk(
    words: list[str], separator: str
) -> None:
    line = separator.join(["bestmove", *words])
    try:
        expected = _parse_message_walk(line)
    except ProtocolSyntaxError:
        with pytest.raises(ProtocolSyntaxError):
            parse_message(line)
        return
    assert parse_message(line) == expected


# -- every text an engine writes is cleaned and cut where the session reads it (§9.1) --


def test_an_engine_name_is_cut_at_64_characters_and_other_ids_at_200() -> None:
    session = EngineSession()
    session.send(Bug())
    name, author, other = "N" * 100, "A" * 300, "K" * 300
    events = _events(session, f"id name {name}\nid author {author}\nid {other} v\n".encode())
    assert events == [
        Id("name", "N" * 61 + "..."),
        Id("author", "A" * 197 + "..."),
        Id("K" * 197 + "...", "v"),
    ]
    assert session.name == "N" * 61 + "..."


def test_option_and_feature_texts_are_cleaned_of_controls_and_cut() -> None:
    session = EngineSession()
    session.send(Bug())
    long = "v" * 250
    events = _events(
        session,
        f"option name Bad\x1bName type com\x07bo default {long} min \x1b1 max 2\x07"
        f" var a\x1bb var {long}\n"
        f"option name Clear Hash type button\n"
        f"feature my\x1bname {long}\n".encode(),
    )
    cut = "v" * 197 + "..."
    assert events == [
        OptionSpec(
            name="Bad Name", type="com bo", default=cut, min="1", max="2", vars=("a b", cut)
        ),
        OptionSpec(name="Clear Hash", type="button"),
        Feature("my name", cut),
    ]
    assert set(session.options) == {"Bad Name", "Clear Hash"}


def test_an_option_keeps_at_most_256_values() -> None:
    session = EngineSession()
    session.send(Bug())
    values = " ".join(f"var v{i}" for i in range(300))
    [option] = _events(session, f"option name Style type combo default v0 {values}\n".encode())
    assert isinstance(option, OptionSpec)
    assert option.vars == tuple(f"v{i}" for i in range(256))


def test_a_tell_of_500_characters_passes_whole_and_a_longer_one_is_cut() -> None:
    session = _playing_session(Seat.A_WHITE)
    whole, long = "w" * 500, "x" * 501
    assert _events(session, f"ptell {whole}\nptell {long}\n".encode()) == [
        Tell(whole),
        Tell("x" * 497 + "..."),
    ]


def test_a_tell_with_nothing_printable_is_ignored() -> None:
    session = _playing_session(Seat.A_WHITE)
    assert _events(session, b"ptell \x1b\x07\x1b\n") == [
        Ignored("ptell", "'ptell' with nothing printable")
    ]


def test_moves_wait_reasons_info_and_error_texts_are_cut_to_their_limits() -> None:
    session = _playing_session(Seat.A_WHITE)
    session.send(Go(version=0, token=1, board=BoardId.A))
    move, reason, info, error = "m" * 40, "r" * 300, "i" * 600, "e" * 300
    events = _events(
        session,
        f"info {info}\nerror {error}\nwait turn 1 reason {reason}\n"
        f"bestmove {move} turn 1\n".encode(),
    )
    assert events == [
        Info(text="i" * 497 + "...", board=BoardId.A),
        EngineError("e" * 197 + "..."),
        Wait(token=1, board=BoardId.A, reason="r" * 197 + "..."),
        BestMove(move="m" * 29 + "...", token=1, board=BoardId.A),
    ]


def test_a_stale_wait_is_ignored_with_its_reason() -> None:
    session = _playing_session(Seat.A_WHITE)
    session.send(Go(version=0, token=4, board=BoardId.A))
    assert _events(session, b"wait turn 3\n") == [
        Ignored("wait turn 3", "wait for turn 3, which is not open (stale or unknown)")
    ]
    assert session.open_turns == {4: BoardId.A}


def test_in_team_mode_resign_and_draw_name_the_board_they_are_about() -> None:
    session = _playing_session(Seat.A_WHITE, Seat.B_BLACK, team=True)
    assert _events(session, b"resign board b\ndraw accept board b\ninfo board a d 1\n") == [
        Resign(board=BoardId.B),
        Draw(accept=True, board=BoardId.B),
        Info(text="d 1", board=BoardId.A),
    ]


# -- every message and command written in its one canonical form ---------------------

CANONICAL_MESSAGES: list[tuple[Message, str]] = [
    (Id("name", "RandomMover MAX"), "id name RandomMover MAX"),
    (Id("author", ""), "id author"),
    (
        OptionSpec(name="Hash", type="spin", default="16", min="1", max="1024"),
        "option name Hash type spin default 16 min 1 max 1024",
    ),
    (
        OptionSpec(name="Style", type="combo", default="Very Slow", vars=("Very Slow", "Fast")),
        "option name Style type combo default Very Slow var Very Slow var Fast",
    ),
    (Feature("team"), "feature team"),
    (Feature("level", "MAX"), "feature level MAX"),
    (BugOk(), "bugok"),
    (ReadyOk(), "readyok"),
    (BestMove(move="e2e4", token=7), "bestmove e2e4 turn 7"),
    (BestMove(move="N@f7", token=9, board=BoardId.B), "bestmove N@f7 turn 9 board b"),
    (Wait(token=9), "wait turn 9"),
    (Wait(token=9, reason=" \r\n "), "wait turn 9"),
    (
        Wait(token=2, board=BoardId.A, reason="no\nlegal move"),
        "wait turn 2 board a reason no legal move",
    ),
    (Resign(), "resign"),
    (Resign(board=BoardId.B), "resign board b"),
    (Draw(), "draw offer"),
    (Draw(accept=True), "draw accept"),
    (Draw(board=BoardId.B), "draw offer board b"),
    (Draw(accept=True, board=BoardId.A), "draw accept board a"),
    (Tell("sit\r\nnow"), "ptell sit  now"),
    (Info(text="depth 3 score cp 12"), "info depth 3 score cp 12"),
    (Info(text="string MAX", board=BoardId.A), "info board a string MAX"),
    (Info(text=""), "info"),
    (Info(text="", board=BoardId.B), "info board b"),
    (EngineError("unknown command X"), "error unknown command X"),
    (EngineError(""), "error"),
]


@pytest.mark.parametrize(("message", "line"), CANONICAL_MESSAGES)
def test_a_message_is_written_in_its_canonical_form(message: Message, line: str) -> None:
    assert format_message(message) == line


def test_only_line_breaks_are_cleaned_from_free_text_other_blanks_are_text() -> None:
    # A no-break space or form feed is the engine's text (the session cleans
    # controls where it reads them): neither is a line break nor an outer blank.
    assert format_message(Info(text="a\xa0")) == "info a\xa0"
    assert format_message(EngineError("\xa0x\xa0")) == "error \xa0x\xa0"
    assert format_message(Id("name", "Foo\xa0")) == "id name Foo\xa0"
    assert format_message(Feature("f", "v\xa0")) == "feature f v\xa0"
    assert format_message(Tell("\xa0go")) == "ptell \xa0go"
    assert clean_text("\t a\rb\nc \t") == "a b c"
    assert parse_message("id name Foo\xa0") == Id("name", "Foo\xa0")
    assert parse_message("option name X type spin\x0c") == OptionSpec(name="X", type="spin\x0c")


@pytest.mark.parametrize(
    ("command", "line"),
    [
        (Refused(token=2, move="e2e5", reason=""), "illegal turn 2 move e2e5 reason"),
        (Refused(token=2, move="", reason="empty"), "illegal turn 2 move - reason empty"),
        (
            Refused(token=2, move="m" * 40, reason="r" * 300),
            f"illegal turn 2 move {'m' * 29}... reason {'r' * 197}...",
        ),
        (Refused(token=2, move="e2e5", reason="no\xa0"), "illegal turn 2 move e2e5 reason no\xa0"),
        (Refused(token=2, move="e2e5", reason="MAX"), "illegal turn 2 move e2e5 reason MAX"),
        (
            BoardOver(board=BoardId.B, result=Result.TEAM_ONE, reason=Termination.FLAG, text="MAX"),
            "boardover board b result 1-0 reason flag text MAX",
        ),
        (
            GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text="MAX"),
            "gameover result 1/2-1/2 reason agreement text MAX",
        ),
        (PartnerTell("t" * 500), "ptell " + "t" * 500),
        (PartnerTell("t" * 501), "ptell " + "t" * 497 + "..."),
        (
            PlayerInfo(Seat.A_WHITE, "engine", "N" * 100),
            "player a-white engine " + "N" * 61 + "...",
        ),
        (PlayerInfo(Seat.A_WHITE, "human", "\x1b"), "player a-white human ?"),
        (
            BoardOver(board=BoardId.A, result=Result.TEAM_TWO, reason=Termination.FLAG, text=""),
            "boardover board a result 0-1 reason flag text",
        ),
        (
            BoardOver(
                board=BoardId.B, result=Result.TEAM_ONE, reason=Termination.FLAG, text="x" * 500
            ),
            "boardover board b result 1-0 reason flag text " + "x" * 500,
        ),
        (
            BoardOver(
                board=BoardId.B, result=Result.TEAM_ONE, reason=Termination.FLAG, text="MAX\xa0"
            ),
            "boardover board b result 1-0 reason flag text MAX\xa0",
        ),
        (
            GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text=""),
            "gameover result 1/2-1/2 reason agreement text",
        ),
        (
            GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text="y" * 500),
            "gameover result 1/2-1/2 reason agreement text " + "y" * 500,
        ),
        (
            GameOver(result=Result.DRAW, reason=Termination.AGREEMENT, text="MAX\xa0"),
            "gameover result 1/2-1/2 reason agreement text MAX\xa0",
        ),
    ],
)
def test_the_arbiter_bounds_its_own_texts_on_the_wire(command: Command, line: str) -> None:
    assert format_command(command) == line


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (
            lambda: format_command(
                NewGame(game_id="g\n1", seats=(Seat.A_WHITE,), time_ms=1, inc_ms=0)
            ),
            "game id",
        ),
        (lambda: format_command(RulesInfo((("time x", "1"),))), "rule"),
        (lambda: format_command(RulesInfo((("time", ""),))), "rule value"),
        (
            lambda: format_command(
                MoveEvent(version=1, board=BoardId.A, move="e4d5", passed="p\r", clocks=CLOCKS)
            ),
            "piece",
        ),
        (
            lambda: format_command(
                MoveEvent(version=1, board=BoardId.A, move="e2\ne4", clocks=CLOCKS)
            ),
            "move",
        ),
        (lambda: format_message(BestMove(move="e2\re4", token=1)), "move"),
        (lambda: format_message(Id("na me", "x")), "id key"),
        (lambda: format_message(OptionSpec(name="x", type="")), "option type"),
        (lambda: format_message(Feature("te\nam")), "feature"),
    ],
)
def test_a_word_that_is_not_one_word_is_refused_naming_its_field(
    make: Callable[[], object], why: str
) -> None:
    with pytest.raises(ValueError, match=rf"^{why} must be one non-empty token, got "):
        make()


def test_what_is_neither_a_command_nor_a_message_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"^not a command: BugOk\(\)$"):
        format_command(BugOk())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^not a message: Quit\(\)$"):
        format_message(Quit())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("rules x=1=2 y=a", RulesInfo((("x", "1=2"), ("y", "a")))),
        ("setoption name Clear Hash", SetOption("Clear Hash")),
        ("illegal turn 2 move e2e5", Refused(token=2, move="e2e5", reason="")),
        (
            "gameover result * reason aborted",
            GameOver(result=Result.UNFINISHED, reason=Termination.ABORTED, text=""),
        ),
        (
            "boardover board b result 1-0 reason flag",
            BoardOver(board=BoardId.B, result=Result.TEAM_ONE, reason=Termination.FLAG, text=""),
        ),
    ],
)
def test_parse_command_edges(line: str, expected: Command) -> None:
    assert parse_command(line) == expected


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("", "missing command"),
        ("bug", "missing version"),
        ("bug x", "bad version 'x'"),
        ("setoption name", "missing option name"),
        ("setoption name value 3", "missing option name"),
        ("newgame id g time 1 inc 0", "missing 'seat'"),
        ("newgame id g seat a-white time x inc 0", "bad time 'x'"),
        ("player", "missing seat"),
        ("player a-white", "missing kind"),
        ("rules =5", "rules are written name=value"),
        ("rules x=", "rules are written name=value"),
        ("rules x5", "rules are written name=value"),
        ("frobnicate", "unknown command 'frobnicate'"),
        ("state v", "missing version"),
        ("state v x", "bad version 'x'"),
        (f"state v 1 a {_FEN} b {_FEN} clock 1 2 3 4 nodouble", "missing squares"),
        (f"state v 1 a {_FEN} b {_FEN} clock 1 2 3 4 nodouble -", "missing squares"),
        ("event v", "missing version"),
        ("event v x board a move e2e4 clock 1 2 3 4", "bad version 'x'"),
        ("go v 1 turn x board a", "bad turn 'x'"),
        ("illegal turn x move e2e4", "bad turn 'x'"),
        ("draw offer by", "missing seat"),
    ],
)
def test_more_malformed_commands_say_what_is_wrong(line: str, why: str) -> None:
    with pytest.raises(ProtocolSyntaxError) as caught:
        parse_command(line)
    assert str(caught.value) == why


def test_a_board_is_read_in_either_case_and_a_bad_number_is_named() -> None:
    assert parse_message("wait turn 2 board A") == Wait(token=2, board=BoardId.A)
    assert parse_message("wait turn 2 board b") == Wait(token=2, board=BoardId.B)
    with pytest.raises(ProtocolSyntaxError, match=r"^bad number 'x'$"):
        parse_int("x")


def test_an_info_about_a_board_the_engine_does_not_hold_still_passes_with_that_board() -> None:
    # Info never affects the game (§6.7); the player files it under its own seat.
    session = _playing_session(Seat.A_WHITE)
    assert _events(session, b"info board b depth 2\n") == [Info(text="depth 2", board=BoardId.B)]
