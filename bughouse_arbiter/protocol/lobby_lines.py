"""The line lobby's own lines (protocol.md §12.7), without I/O.

A connection to the server's line port starts with a hello line (``bot
<name> [tc=3+0,1+0] [ping]`` or ``guest <name> [ping] [human]``); while it
is not seated it speaks the idle commands (``tables``, ``create``, ``sit``,
``stand``, ``start``, ``rematch``, ``queue``, ``leave``, ``accept``,
``decline``, ``quit``), and the server
answers with the lines rendered here. Seated, the connection carries plain
protocol.md lines between ``seated`` and ``unseated``.

Both ends use this module: the server parses the client's lines
(``parse_hello``, ``parse_idle``: a value, or one line of error text, never
an exception) and renders its answers (``render_*``); the client parses
the server's lines (``parse_server_line``: a value, or None for a line of the
game itself).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

#: The seats of a table in listing order, as the lobby names them.
SEAT_NAMES = ("A-white", "A-black", "B-white", "B-black")
#: At most this many time controls on a bot's hello line.
MAX_TCS = 16
#: Longest word taken for a name, a table id or a time control.
MAX_WORD = 40
#: Longest free text (a reason, a chat line) put on one line.
MAX_TEXT = 300


# -- client -> server ----------------------------------------------------------------


@attrs.frozen
class Hello:
    """The first line: who connects (``kind`` is ``bot`` or ``guest``)."""

    kind: str
    name: str
    tcs: tuple[str, ...] = ()
    ping: bool = False
    human: bool = False
    #: A bot account's token (``bughouse server admin add-bot`` prints it).
    token: str | None = None


@attrs.frozen
class Tables:
    """``tables``: list every table."""


@attrs.frozen
class Sit:
    table: str
    seat: str


@attrs.frozen
class Stand:
    table: str


@attrs.frozen
class Queue:
    """``queue <tc> [partner <name>]``: quick pairing, alone or with an invited partner."""

    tc: str
    partner: str | None = None


@attrs.frozen
class Leave:
    """``leave``: out of the queue."""


@attrs.frozen
class Answer:
    """``accept <name>`` / ``decline <name>``: an invitation from ``name``."""

    accept: bool
    name: str


@attrs.frozen
class Create:
    """``create <tc>``: a new table (computers may fill its empty seats)."""

    tc: str


@attrs.frozen
class Start:
    """``start <table>``: starts it, computers filling the empty seats."""

    table: str


@attrs.frozen
class Rematch:
    """``rematch <table>``: between games, asks for another with the same four."""

    table: str


@attrs.frozen
class Quit:
    """``quit``: the connection ends."""


IdleCommand = Tables | Create | Sit | Stand | Start | Rematch | Queue | Leave | Answer | Quit


def clean_text(text: str) -> str:
    """Free text as one printable line: control characters become spaces."""
    return "".join(c if c.isprintable() else " " for c in text).strip()


def _word(text: str) -> bool:
    return 0 < len(text) <= MAX_WORD and text.isprintable() and not any(c.isspace() for c in text)


def parse_hello(text: str) -> Hello | str:
    """The hello line as a ``Hello``, or the reason it is not one."""
    words = text.split()
    if not words or words[0] not in ("bot", "guest"):
        return "expected 'bot <name> [tc=...] [ping]' or 'guest <name> [ping] [human]'"
    if len(words) < 2 or not _word(words[1]):
        return "a name is one printable word"
    kind, name, rest = words[0], words[1], words[2:]
    tcs: tuple[str, ...] = ()
    ping = human = False
    token: str | None = None
    for word in rest:
        if word == "ping" and not ping:
            ping = True
        elif word == "human" and kind == "guest" and not human:
            human = True
        elif word.startswith("tc=") and kind == "bot" and not tcs:
            tcs = tuple(word[3:].split(","))
            if not 0 < len(tcs) <= MAX_TCS or not all(_word(tc) for tc in tcs):
                return f"tc= takes 1 to {MAX_TCS} time controls, comma-separated"
        elif word.startswith("token=") and kind == "bot" and token is None:
            token = word[6:]
            if not _word(token):
                return "token= takes the bot's token, one word"
        else:
            return f"unknown option {clean_text(word)[:MAX_WORD]!r}"
    return Hello(kind, name, tcs, ping, human, token)


def parse_idle(text: str) -> IdleCommand | str:
    """An idle command, or one line saying what is wrong with it."""
    words = text.split()
    if not words:
        return "empty line"
    verb, args = words[0], words[1:]
    if not all(_word(arg) for arg in args):
        return "words of at most 40 printable characters"
    shapes: dict[str, tuple[int, ...]] = {
        "tables": (0,),
        "create": (1,),
        "sit": (2,),
        "stand": (1,),
        "start": (1,),
        "rematch": (1,),
        "queue": (1, 3),
        "leave": (0,),
        "accept": (1,),
        "decline": (1,),
        "quit": (0,),
    }
    if verb not in shapes:
        known = ", ".join(USAGE)
        return f"unknown command {clean_text(verb)[:MAX_WORD]!r} ({known})"
    if len(args) not in shapes[verb]:
        return f"usage: {USAGE[verb]}"
    match verb:
        case "tables":
            return Tables()
        case "create":
            return Create(args[0])
        case "start":
            return Start(args[0])
        case "rematch":
            return Rematch(args[0])
        case "sit":
            return Sit(args[0], args[1])
        case "stand":
            return Stand(args[0])
        case "queue":
            if len(args) == 3 and args[1] != "partner":
                return f"usage: {USAGE['queue']}"
            return Queue(args[0], args[2] if len(args) == 3 else None)
        case "leave":
            return Leave()
        case "accept" | "decline":
            return Answer(verb == "accept", args[0])
    return Quit()


USAGE = {
    "tables": "tables",
    "create": "create <tc>",
    "sit": "sit <table> <seat>",
    "stand": "stand <table>",
    "start": "start <table>",
    "rematch": "rematch <table>",
    "queue": "queue <tc> [partner <name>]",
    "leave": "leave",
    "accept": "accept <name>",
    "decline": "decline <name>",
    "quit": "quit",
}


def lobby_message(command: IdleCommand) -> dict[str, Any] | None:
    """The lobby socket message (lobby-spec) a command stands for; None for
    ``tables`` and ``quit``, which the line lobby answers itself."""
    match command:
        case Create(tc=tc):
            return {"type": "create", "tc": tc, "computers": True}
        case Start(table=table):
            return {"type": "start", "table": table}
        case Rematch(table=table):
            return {"type": "rematch", "table": table}
        case Sit(table=table, seat=seat):
            return {"type": "sit", "table": table, "seat": seat}
        case Stand(table=table):
            return {"type": "stand", "table": table}
        case Queue(tc=tc, partner=partner):
            message: dict[str, Any] = {"type": "play_now", "tc": tc, "computers": True}
            if partner is not None:
                message["partner"] = partner
            return message
        case Leave():
            return {"type": "leave_queue"}
        case Answer(accept=accept, name=name):
            return {"type": "accept" if accept else "decline", "from": name}
    return None


def format_hello(hello: Hello) -> str:
    """The client's hello line."""
    words = [hello.kind, hello.name]
    if hello.tcs:
        words.append("tc=" + ",".join(hello.tcs))
    if hello.token is not None:
        words.append("token=" + hello.token)
    if hello.ping:
        words.append("ping")
    if hello.human:
        words.append("human")
    return " ".join(words)


# -- server -> client ----------------------------------------------------------------


def _one_word(value: object) -> str:
    """A name or id as one printable word (``-`` for none)."""
    if value is None:
        return "-"
    text = "_".join(clean_text(str(value)).split())[:MAX_WORD]
    return text or "-"


def _text(value: object) -> str:
    return clean_text(str(value))[:MAX_TEXT]


def render_tables(tables: Iterable[Mapping[str, Any]]) -> list[str]:
    """``table <id> <tc> <state> <seat>=<name|-> ...`` per table, then ``end``."""
    lines = []
    for table in tables:
        seats = table.get("seats") or {}
        cells = []
        for seat in SEAT_NAMES:
            who = seats.get(seat) if isinstance(seats, Mapping) else None
            name = who.get("name") if isinstance(who, Mapping) else None
            cells.append(f"{seat}={_one_word(name)}")
        head = [_one_word(table.get(key)) for key in ("id", "tc", "state")]
        lines.append(" ".join(["table", *head, *cells]))
    lines.append("end")
    return lines


def render_message(message: Mapping[str, Any]) -> list[str]:
    """The lines a lobby message (lobby-spec, server -> client) becomes on the
    line lobby; none for the messages it does not show (``lobby``: the
    connection asks with ``tables``; ``seat``: the line lobby seats it)."""
    kind = message.get("type")
    match kind:
        case "queued":
            return [f"queued {_one_word(message.get('tc'))} {_text(message.get('why', ''))}"]
        case "invited":
            return [f"invited {_one_word(message.get('from'))} {_one_word(message.get('tc'))}"]
        case "declined":
            return [f"declined {_one_word(message.get('by'))}"]
        case "chat":
            return [f"chat {_one_word(message.get('from'))} {_text(message.get('text', ''))}"]
        case "error":
            return [f"error {_text(message.get('text', 'error'))}"]
        case "created":
            return [f"created {_one_word(message.get('table'))}"]
        case "rematch":
            table, who = message.get("table"), message.get("from")
            return [f"rematch {_one_word(table)} {_one_word(who)}"]
    return []


# -- the client's reading of server lines ------------------------------------------------


@attrs.frozen
class HelloOk:
    name: str


@attrs.frozen
class HelloRefused:
    reason: str


@attrs.frozen
class TableRow:
    """One ``table`` line: ``seats`` maps each seat name to who sits there (None: free)."""

    id: str
    tc: str
    state: str
    seats: Mapping[str, str | None]


@attrs.frozen
class End:
    """``end``: the table list is complete."""


@attrs.frozen
class Seated:
    table: str
    seat: str


@attrs.frozen
class Unseated:
    """The game (or the games) at ``table`` are over; the connection is idle again."""

    table: str


@attrs.frozen
class Notice:
    """Any other lobby line (``queued``, ``invited``, ``declined``, ``chat``,
    ``created``, ``rematch``, ``error``): its keyword and the rest of the line."""

    kind: str
    text: str


ServerLine = HelloOk | HelloRefused | TableRow | End | Seated | Unseated | Notice
NOTICES = frozenset({"queued", "invited", "declined", "chat", "created", "rematch", "error"})


def parse_server_line(text: str) -> ServerLine | None:
    """A line of the line lobby as a value; None for anything else (a line of the game)."""
    words = text.split()
    if not words:
        return None
    head = words[0]
    rest = text.strip()[len(head) :].strip()
    if head == "hello" and len(words) >= 2:
        if words[1] == "ok" and len(words) == 3:
            return HelloOk(words[2])
        if words[1] == "refused":
            return HelloRefused(rest.removeprefix("refused").strip() or "refused")
        return None
    if head == "table" and len(words) >= 4:
        seats: dict[str, str | None] = {}
        for cell in words[4:]:
            seat, eq, name = cell.partition("=")
            if eq:
                seats[seat] = None if name == "-" else name
        return TableRow(words[1], words[2], words[3], seats)
    if head == "end" and len(words) == 1:
        return End()
    if head == "seated" and len(words) == 3:
        return Seated(words[1], words[2])
    if head == "unseated" and len(words) == 2:
        return Unseated(words[1])
    if head in NOTICES:
        return Notice(head, rest)
    return None
