"""The line lobby's lines (protocol.md §12.7): parsing and rendering, without I/O."""

from __future__ import annotations

from bughouse_arbiter.protocol.lobby_lines import (
    Answer,
    End,
    Hello,
    HelloOk,
    HelloRefused,
    Leave,
    Notice,
    Queue,
    Quit,
    Seated,
    Sit,
    Stand,
    TableRow,
    Tables,
    Unseated,
    format_hello,
    lobby_message,
    parse_hello,
    parse_idle,
    parse_server_line,
    render_message,
    render_tables,
)


def test_hello_lines_of_bots_and_guests() -> None:
    assert parse_hello("bot fsf tc=180+0,60+0 ping") == Hello(
        "bot", "fsf", ("180+0", "60+0"), ping=True
    )
    assert parse_hello("  guest alice human ping") == Hello("guest", "alice", (), True, True)
    assert parse_hello("guest bob") == Hello("guest", "bob")
    hello = Hello("bot", "sjeng", ("180+0",), ping=True)
    assert parse_hello(format_hello(hello)) == hello
    account = Hello("bot", "rookbot", ("180+0",), ping=True, token="Zx9-_a")
    assert format_hello(account) == "bot rookbot tc=180+0 token=Zx9-_a ping"
    assert parse_hello(format_hello(account)) == account


def test_bad_hello_lines_are_one_reason_each() -> None:
    for text, part in [
        ("", "expected 'bot <name>"),
        ("auth a-white token", "expected 'bot <name>"),
        ("bot", "a name is one printable word"),
        ("bot \x01x", "a name is one printable word"),
        ("guest alice tc=180+0", "unknown option 'tc=180+0'"),
        ("bot fsf human", "unknown option 'human'"),
        ("bot fsf ping ping", "unknown option 'ping'"),
        ("bot fsf tc=", "tc= takes 1 to 16"),
        ("bot fsf tc=" + ",".join(["1+0"] * 17), "tc= takes 1 to 16"),
        ("bot " + "n" * 41, "a name is one printable word"),
    ]:
        answer = parse_hello(text)
        assert isinstance(answer, str) and part in answer, (text, answer)
        assert "\n" not in answer


def test_idle_commands_and_the_lobby_messages_they_stand_for() -> None:
    assert parse_idle("tables") == Tables()
    assert parse_idle("sit t3 A-white") == Sit("t3", "A-white")
    assert parse_idle("stand t3") == Stand("t3")
    assert parse_idle("queue 180+0") == Queue("180+0")
    assert parse_idle("queue 180+0 partner bob") == Queue("180+0", "bob")
    assert parse_idle("leave") == Leave()
    assert parse_idle("accept bob") == Answer(True, "bob")
    assert parse_idle("decline bob") == Answer(False, "bob")
    assert parse_idle("quit") == Quit()
    assert lobby_message(Sit("t3", "A-white")) == {"type": "sit", "table": "t3", "seat": "A-white"}
    assert lobby_message(Queue("180+0", "bob")) == {
        "type": "play_now",
        "tc": "180+0",
        "computers": True,
        "partner": "bob",
    }
    assert lobby_message(Leave()) == {"type": "leave_queue"}
    assert lobby_message(Answer(False, "bob")) == {"type": "decline", "from": "bob"}
    assert lobby_message(Tables()) is None and lobby_message(Quit()) is None


def test_bad_idle_commands_say_what_is_expected() -> None:
    assert parse_idle("sit t3") == "usage: sit <table> <seat>"
    assert parse_idle("queue 180+0 with bob") == "usage: queue <tc> [partner <name>]"
    assert parse_idle("") == "empty line"
    unknown = parse_idle("bestmove e2e4 turn 1")
    assert isinstance(unknown, str) and unknown.startswith("unknown command 'bestmove'")
    assert parse_idle("sit " + "t" * 41 + " A-white") == "words of at most 40 printable characters"


def test_tables_render_and_read_back() -> None:
    view = [
        {
            "id": "t1",
            "tc": "180+0",
            "state": "open",
            "seats": {
                "A-white": {"name": "alice", "kind": "guest", "rating": None},
                "A-black": None,
                "B-white": {"name": "Searcher 0.3\n", "kind": "computer", "rating": None},
            },
        },
        {"id": "t2", "tc": "60+1", "state": "playing", "seats": "junk"},
    ]
    lines = render_tables(view)
    assert lines == [
        "table t1 180+0 open A-white=alice A-black=- B-white=Searcher_0.3 B-black=-",
        "table t2 60+1 playing A-white=- A-black=- B-white=- B-black=-",
        "end",
    ]
    row = parse_server_line(lines[0])
    assert row == TableRow(
        "t1",
        "180+0",
        "open",
        {"A-white": "alice", "A-black": None, "B-white": "Searcher_0.3", "B-black": None},
    )
    assert parse_server_line("end") == End()
    assert render_tables([]) == ["end"]


def test_server_lines_the_client_reads() -> None:
    assert parse_server_line("hello ok alice") == HelloOk("alice")
    assert parse_server_line("hello refused the name 'x' is taken") == HelloRefused(
        "the name 'x' is taken"
    )
    assert parse_server_line("seated t3 B-black") == Seated("t3", "B-black")
    assert parse_server_line("unseated t3") == Unseated("t3")
    assert parse_server_line("queued 180+0 waiting for 2 more players") == Notice(
        "queued", "180+0 waiting for 2 more players"
    )
    # The game's own lines are not the lobby's.
    for text in ("bug 1", "newgame id 1 seat a-white time 1000 inc 0", "gameover result 1-0"):
        assert parse_server_line(text) is None


def test_lobby_messages_become_one_printable_line_each() -> None:
    assert render_message({"type": "queued", "tc": "180+0", "why": "waiting\nfor 2"}) == [
        "queued 180+0 waiting for 2"
    ]
    assert render_message({"type": "invited", "from": "bob", "tc": "180+0"}) == [
        "invited bob 180+0"
    ]
    assert render_message({"type": "error", "text": "no such table\x1b[2J"}) == [
        "error no such table [2J"
    ]
    assert render_message({"type": "chat", "from": "a b", "text": "x" * 400}) == [
        "chat a_b " + "x" * 300
    ]
    assert render_message({"type": "lobby", "tables": []}) == []
    assert render_message({"type": "seat", "table": "t1"}) == []
