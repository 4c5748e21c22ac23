"""The line grammar of protocol.md: every command and message to and from text.

``format_*`` write one line (without LF); ``parse_*`` read one and raise
``ProtocolSyntaxError`` for anything that does not follow the grammar. Unknown
``key value`` pairs are skipped (protocol.md §11).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from ..core.model import BoardId, Result, Seat, Termination
from .limits import MOVE_LIMIT, NAME_LIMIT, REASON_LIMIT, TELL_LIMIT, TEXT_LIMIT, engine_text
from .messages import (
    BestMove,
    BoardOver,
    Bug,
    BugOk,
    Clocks,
    Command,
    Draw,
    EngineError,
    Feature,
    GameOver,
    Go,
    Id,
    Info,
    IsReady,
    Message,
    MoveEvent,
    NewGame,
    OptionSpec,
    PartnerTell,
    PlayerInfo,
    ProtocolSyntaxError,
    Quit,
    ReadyOk,
    Refused,
    RelayedDrawOffer,
    Resign,
    RulesInfo,
    SetOption,
    State,
    Tell,
    Wait,
)

# -- wire values -----------------------------------------------------------------

SEAT_WIRE: Final[dict[Seat, str]] = {seat: seat.slug for seat in Seat}
_WIRE_SEATS: Final[dict[str, Seat]] = {slug: seat for seat, slug in SEAT_WIRE.items()}
_TOKEN = re.compile(r"[0-9]{1,18}\Z")
_SPACE = re.compile(r"[ \t]+")


def seat_text(seat: Seat) -> str:
    return SEAT_WIRE[seat]


def parse_seat(text: str) -> Seat:
    try:
        return _WIRE_SEATS[text.lower()]
    except KeyError:
        raise ProtocolSyntaxError(f"bad seat {text!r}") from None


def board_text(board: BoardId) -> str:
    return _BOARD_TEXT[board]


_BOARD_TEXT: Final[dict[BoardId, str]] = {board: board.value.lower() for board in BoardId}


def parse_board(text: str) -> BoardId:
    if text in ("a", "A"):
        return BoardId.A
    if text in ("b", "B"):
        return BoardId.B
    raise ProtocolSyntaxError(f"bad board {text!r}")


def parse_int(text: str, what: str = "number") -> int:
    if not _TOKEN.match(text):
        raise ProtocolSyntaxError(f"bad {what} {text!r}")
    return int(text)


def clocks_ms(seconds: Iterable[float]) -> Clocks:
    """Whole milliseconds (never negative) from four clocks in seconds."""
    values = tuple(seconds)
    if len(values) != 4:
        raise ValueError("need four clocks")
    a, b, c, d = values  # unrolled: this runs for every line with clocks
    # Comparisons, not max(): it runs 3.11's generic argument parser on every call.
    return (
        int(a * 1000) if a > 0 else 0,
        int(b * 1000) if b > 0 else 0,
        int(c * 1000) if c > 0 else 0,
        int(d * 1000) if d > 0 else 0,
    )


def clean_text(text: str) -> str:
    """Free text made fit for one line: no line breaks, no outer blanks."""
    return text.replace("\r", " ").replace("\n", " ").strip(" \t")


def split(line: str, limit: int = -1) -> list[str]:
    """Tokens separated by spaces/tabs; with ``limit``, the rest stays one piece."""
    line = line.strip(" \t")
    if not line:
        return []
    return _SPACE.split(line, maxsplit=max(0, limit))


# -- grammar helpers ---------------------------------------------------------------

_WORD = re.compile(r"[^ \t]+")


class _Fields:
    """Walks a line token by token and can hand out the rest of it as text."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.matches = list(_WORD.finditer(line))
        self.pos = 0

    def more(self) -> bool:
        return self.pos < len(self.matches)

    def peek(self) -> str | None:
        return self.matches[self.pos].group() if self.more() else None

    def word(self, what: str) -> str:
        if not self.more():
            raise ProtocolSyntaxError(f"missing {what}")
        token = self.matches[self.pos].group()
        self.pos += 1
        return token

    def expect(self, keyword: str) -> None:
        token = self.word(repr(keyword))
        if token != keyword:
            raise ProtocolSyntaxError(f"expected {keyword!r}, got {token!r}")

    def rest(self) -> str:
        """Everything after the current token position, outer blanks removed."""
        if not self.more():
            return ""
        text = self.line[self.matches[self.pos].start() :].rstrip(" \t")
        self.pos = len(self.matches)
        return text

    def pairs(
        self, keys: Iterable[str], text_key: str | None = None, repeat: Iterable[str] = ()
    ) -> dict[str, list[str]]:
        """``key value`` pairs in any order; ``text_key`` takes the rest of the line.

        Unknown keys are skipped with their value (protocol.md §11).
        """
        known = set(keys)
        repeatable = set(repeat)
        found: dict[str, list[str]] = {}
        while self.more():
            key = self.word("key")
            if key == text_key:
                found[key] = [self.rest()]
                break
            if not self.more():
                raise ProtocolSyntaxError(f"missing value after {key!r}")
            value = self.word("value")
            if key in known:
                if key in found and key not in repeatable:
                    raise ProtocolSyntaxError(f"{key!r} given twice")
                found.setdefault(key, []).append(value)
        return found


def _one(found: dict[str, list[str]], key: str) -> str:
    if key not in found:
        raise ProtocolSyntaxError(f"missing {key!r}")
    return found[key][0]


def _maybe(found: dict[str, list[str]], key: str) -> str | None:
    return found[key][0] if key in found else None


def _maybe_int(found: dict[str, list[str]], key: str) -> int | None:
    value = _maybe(found, key)
    return None if value is None else parse_int(value, key)


def _maybe_board(found: dict[str, list[str]], key: str = "board") -> BoardId | None:
    value = _maybe(found, key)
    return None if value is None else parse_board(value)


def _fen(fields: _Fields) -> str:
    return " ".join(fields.word("FEN field") for _ in range(6))


def _clocks(fields: _Fields) -> Clocks:
    values = [parse_int(fields.word("clock"), "clock") for _ in range(4)]
    return values[0], values[1], values[2], values[3]


_SQUARE = re.compile(r"[a-h][1-8]")


def _squares_text(squares: tuple[str, ...]) -> str:
    for square in squares:
        if not _SQUARE.fullmatch(square):
            raise ValueError(f"not a square: {square!r}")
    return ",".join(squares) or "-"


def _squares(text: str) -> tuple[str, ...]:
    if text == "-":
        return ()
    squares = tuple(text.split(","))
    if not all(_SQUARE.fullmatch(square) for square in squares):
        raise ProtocolSyntaxError(f"bad squares {text!r}")
    return squares


def _check_word(text: str, what: str) -> str:
    if not text or _SPACE.search(text) or "\n" in text or "\r" in text:
        raise ValueError(f"{what} must be one non-empty token, got {text!r}")
    return text


def _check_fen(fen: str) -> str:
    fields = fen.split(" ")
    if len(fields) != 6 or not all(fields):
        raise ValueError(f"a FEN needs six fields separated by single spaces: {fen!r}")
    return fen


def _clock_text(clocks: Clocks) -> str:
    if len(clocks) == 4:  # always, but for a hand-made value; unrolled as above
        a, b, c, d = clocks
        return f"{int(a)} {int(b)} {int(c)} {int(d)}"
    return " ".join(str(int(c)) for c in clocks)


# -- commands: format and parse -------------------------------------------------------


def format_command(command: Command) -> str:
    """The line (without LF) that sends ``command``."""
    match command:
        # The lines of every move first: each case costs an isinstance test.
        case State(version=version, fen_a=fen_a, fen_b=fen_b, clocks=clocks, no_double=nodouble):
            text = (
                f"state v {version} a {_check_fen(fen_a)} b {_check_fen(fen_b)} "
                f"clock {_clock_text(clocks)}"
            )
            if nodouble is not None:
                text += " nodouble " + " ".join(_squares_text(squares) for squares in nodouble)
            return text
        case MoveEvent(version=version, board=board, move=move, passed=passed, clocks=clocks):
            pass_part = "" if passed is None else f" pass {_check_word(passed, 'piece')}"
            return (
                f"event v {version} board {board_text(board)} move {_check_word(move, 'move')}"
                f"{pass_part} clock {_clock_text(clocks)}"
            )
        case Go(version=version, token=token, board=board):
            text = f"go v {version} turn {token} board {board_text(board)}"
            if command.movetime is not None:
                text += f" movetime {command.movetime}"
            if command.depth is not None:
                text += f" depth {command.depth}"
            if command.nodes is not None:
                text += f" nodes {command.nodes}"
            if command.limit is not None:
                text += f" limit {command.limit}"
            return text
        case Bug(version=version):
            return f"bug {version}"
        case SetOption(name=name, value=value):
            text = f"setoption name {clean_text(name)}"
            return text if value is None else f"{text} value {clean_text(value)}"
        case IsReady():
            return "isready"
        case NewGame(game_id=game_id, seats=seats, time_ms=time_ms, inc_ms=inc_ms):
            seat_part = " ".join(f"seat {seat_text(s)}" for s in seats)
            game = _check_word(game_id, "game id")
            return f"newgame id {game} {seat_part} time {time_ms} inc {inc_ms}"
        case PlayerInfo(seat=seat, kind=kind, name=name):
            return f"player {seat_text(seat)} {kind} {engine_text(name, NAME_LIMIT) or '?'}"
        case RulesInfo(pairs=pairs):
            return " ".join(
                [
                    "rules",
                    *(f"{_check_word(k, 'rule')}={_check_word(v, 'rule value')}" for k, v in pairs),
                ]
            )
        case Refused(token=token, move=move, reason=reason):
            words = engine_text(move, MOVE_LIMIT).split()
            move = words[0] if words else "-"
            reason = engine_text(reason, TEXT_LIMIT)
            return f"illegal turn {token} move {move} reason {reason}".rstrip(" \t")
        case PartnerTell(text=text):
            return f"ptell {engine_text(text, TELL_LIMIT)}"
        case RelayedDrawOffer(by=by):
            return f"draw offer by {seat_text(by)}"
        case BoardOver(board=board, result=result, reason=reason, seat=seat, text=text):
            seat_part = "" if seat is None else f" seat {seat_text(seat)}"
            return (
                f"boardover board {board_text(board)} result {result.value} reason {reason.value}"
                f"{seat_part} text {engine_text(text, REASON_LIMIT)}"
            ).rstrip(" \t")
        case GameOver(result=result, reason=reason, board=board, seat=seat, text=text):
            board_part = "" if board is None else f" board {board_text(board)}"
            seat_part = "" if seat is None else f" seat {seat_text(seat)}"
            return (
                f"gameover result {result.value} reason {reason.value}{board_part}{seat_part}"
                f" text {engine_text(text, REASON_LIMIT)}"
            ).rstrip(" \t")
        case Quit():
            return "quit"
    raise TypeError(f"not a command: {command!r}")


def _parse_result(text: str) -> Result:
    try:
        return Result(text)
    except ValueError:
        raise ProtocolSyntaxError(f"bad result {text!r}") from None


def _parse_termination(text: str) -> Termination:
    try:
        return Termination(text)
    except ValueError:
        raise ProtocolSyntaxError(f"bad termination {text!r}") from None


def parse_command(line: str) -> Command:
    """Reads one arbiter line (what an engine does); raises ``ProtocolSyntaxError``."""
    fields = _Fields(line)
    keyword = fields.word("command")
    if keyword == "bug":
        return Bug(parse_int(fields.word("version"), "version"))
    if keyword == "setoption":
        fields.expect("name")
        words = []
        while fields.more() and fields.peek() != "value":
            words.append(fields.word("name"))
        if not words:
            raise ProtocolSyntaxError("missing option name")
        value = None
        if fields.more():
            fields.word("value")
            value = fields.rest()
        return SetOption(" ".join(words), value)
    if keyword == "isready":
        return IsReady()
    if keyword == "newgame":
        found = fields.pairs(("id", "seat", "time", "inc"), repeat=("seat",))
        seats = tuple(parse_seat(s) for s in found.get("seat", []))
        if not seats:
            raise ProtocolSyntaxError("missing 'seat'")
        return NewGame(
            game_id=_one(found, "id"),
            seats=seats,
            time_ms=parse_int(_one(found, "time"), "time"),
            inc_ms=parse_int(_one(found, "inc"), "inc"),
        )
    if keyword == "player":
        seat = parse_seat(fields.word("seat"))
        kind = fields.word("kind")
        if kind not in ("engine", "human"):
            raise ProtocolSyntaxError(f"bad player kind {kind!r}")
        return PlayerInfo(seat, "engine" if kind == "engine" else "human", fields.rest())
    if keyword == "rules":
        pairs = []
        while fields.more():
            name, eq, value = fields.word("rule").partition("=")
            if not eq or not name or not value:
                raise ProtocolSyntaxError("rules are written name=value")
            pairs.append((name, value))
        return RulesInfo(tuple(pairs))
    if keyword == "state":
        fields.expect("v")
        version = parse_int(fields.word("version"), "version")
        fields.expect("a")
        fen_a = _fen(fields)
        fields.expect("b")
        fen_b = _fen(fields)
        fields.expect("clock")
        clocks = _clocks(fields)
        no_double = None
        while fields.more():  # later versions may add key value pairs (skipped)
            key = fields.word("key")
            if key == "nodouble":
                no_double = (_squares(fields.word("squares")), _squares(fields.word("squares")))
            elif fields.more():
                fields.word("value")
        return State(version=version, fen_a=fen_a, fen_b=fen_b, clocks=clocks, no_double=no_double)
    if keyword == "event":
        fields.expect("v")
        version = parse_int(fields.word("version"), "version")
        found = fields.pairs(("board", "move", "pass"), text_key="clock")
        clock_fields = _Fields(_one(found, "clock"))
        return MoveEvent(
            version=version,
            board=parse_board(_one(found, "board")),
            move=_one(found, "move"),
            passed=_maybe(found, "pass"),
            clocks=_clocks(clock_fields),
        )
    if keyword == "go":
        found = fields.pairs(("v", "turn", "board", "movetime", "depth", "nodes", "limit"))
        return Go(
            version=parse_int(_one(found, "v"), "version"),
            token=parse_int(_one(found, "turn"), "turn"),
            board=parse_board(_one(found, "board")),
            movetime=_maybe_int(found, "movetime"),
            depth=_maybe_int(found, "depth"),
            nodes=_maybe_int(found, "nodes"),
            limit=_maybe_int(found, "limit"),
        )
    if keyword == "illegal":
        found = fields.pairs(("turn", "move"), text_key="reason")
        return Refused(
            token=parse_int(_one(found, "turn"), "turn"),
            move=_one(found, "move"),
            reason=_maybe(found, "reason") or "",
        )
    if keyword == "ptell":
        return PartnerTell(fields.rest())
    if keyword == "draw":
        fields.expect("offer")
        fields.expect("by")
        return RelayedDrawOffer(parse_seat(fields.word("seat")))
    if keyword in ("boardover", "gameover"):
        found = fields.pairs(("board", "result", "reason", "seat"), text_key="text")
        seat_word = _maybe(found, "seat")
        result = _parse_result(_one(found, "result"))
        reason = _parse_termination(_one(found, "reason"))
        about = None if seat_word is None else parse_seat(seat_word)
        text = _maybe(found, "text") or ""
        if keyword == "boardover":
            board = parse_board(_one(found, "board"))
            return BoardOver(board=board, result=result, reason=reason, seat=about, text=text)
        return GameOver(
            result=result, reason=reason, board=_maybe_board(found), seat=about, text=text
        )
    if keyword == "quit":
        return Quit()
    raise ProtocolSyntaxError(f"unknown command {keyword!r}")


# -- messages: format and parse -----------------------------------------------------------


def format_message(message: Message) -> str:
    """The line (without LF) an engine writes for ``message``."""
    match message:
        case Id(key=key, value=value):
            return f"id {_check_word(key, 'id key')} {clean_text(value)}".rstrip(" \t")
        case OptionSpec(name=name, type=type_, default=default, min=min_, max=max_, vars=vars_):
            text = f"option name {clean_text(name)} type {_check_word(type_, 'option type')}"
            for field, given in (("default", default), ("min", min_), ("max", max_)):
                if given is not None:
                    text += f" {field} {clean_text(given)}"
            for var in vars_:
                text += f" var {clean_text(var)}"
            return text
        case Feature(name=name, value=value):
            return f"feature {_check_word(name, 'feature')} {clean_text(value)}".rstrip(" \t")
        case BugOk():
            return "bugok"
        case ReadyOk():
            return "readyok"
        case BestMove(move=move, token=token, board=board):
            board_part = "" if board is None else f" board {board_text(board)}"
            return f"bestmove {_check_word(move, 'move')} turn {token}{board_part}"
        case Wait(token=token, board=board, reason=reason):
            text = f"wait turn {token}"
            if board is not None:
                text += f" board {board_text(board)}"
            reason = clean_text(reason)
            return f"{text} reason {reason}" if reason else text
        case Resign(board=board):
            return "resign" if board is None else f"resign board {board_text(board)}"
        case Draw(accept=accept, board=board):
            text = "draw accept" if accept else "draw offer"
            return text if board is None else f"{text} board {board_text(board)}"
        case Tell(text=text):
            return f"ptell {clean_text(text)}"
        case Info(text=text, board=board):
            board_part = "" if board is None else f" board {board_text(board)}"
            return f"info{board_part} {clean_text(text)}".rstrip(" \t")
        case EngineError(text=text):
            return f"error {clean_text(text)}".rstrip(" \t")
    raise TypeError(f"not a message: {message!r}")


_OPTION = re.compile(r"option[ \t]+name[ \t]+(.+?)[ \t]+type[ \t]+([^ \t]+)(.*)\Z")
_OPTION_KEYS = ("default", "min", "max", "var")


def _parse_option(line: str) -> OptionSpec:
    m = _OPTION.match(line)
    if not m:
        raise ProtocolSyntaxError("expected 'option name <id> type <type> ...'")
    found: dict[str, list[str]] = {}
    key: str | None = None
    words: list[str] = []
    for token in split(m.group(3)):
        if token in _OPTION_KEYS:
            if key is not None:
                found.setdefault(key, []).append(" ".join(words))
            key, words = token, []
        elif key is None:
            raise ProtocolSyntaxError(f"unexpected {token!r} in option")
        else:
            words.append(token)
    if key is not None:
        found.setdefault(key, []).append(" ".join(words))
    return OptionSpec(
        name=m.group(1),
        type=m.group(2),
        default=_maybe(found, "default"),
        min=_maybe(found, "min"),
        max=_maybe(found, "max"),
        vars=tuple(found.get("var", ())),
    )


def parse_message(line: str) -> Message:
    """Reads one engine line; raises ``ProtocolSyntaxError`` for anything else."""
    if line.startswith("bestmove ") and "\t" not in line:
        # The line of every move, in its usual form: read without the general walk.
        words = line.split(" ")
        if len(words) == 4 and words[1] and words[2] == "turn" and _TOKEN.match(words[3]):
            return BestMove(move=words[1], token=int(words[3]), board=None)
    return _parse_message_walk(line)


def _parse_message_walk(line: str) -> Message:
    """``parse_message`` for any line, token by token."""
    fields = _Fields(line)
    keyword = fields.word("message")
    if keyword == "id":
        key = fields.word("id key")
        return Id(key, fields.rest())
    if keyword == "option":
        return _parse_option(line.strip(" \t"))
    if keyword == "feature":
        name = fields.word("feature name")
        return Feature(name, fields.rest())
    if keyword == "bugok":
        return BugOk()
    if keyword == "readyok":
        return ReadyOk()
    if keyword == "bestmove":
        move = fields.word("move")
        found = fields.pairs(("turn", "board"))
        return BestMove(
            move=move, token=parse_int(_one(found, "turn"), "turn"), board=_maybe_board(found)
        )
    if keyword == "wait":
        found = fields.pairs(("turn", "board"), text_key="reason")
        return Wait(
            token=parse_int(_one(found, "turn"), "turn"),
            board=_maybe_board(found),
            reason=_maybe(found, "reason") or "",
        )
    if keyword == "resign":
        return Resign(board=_maybe_board(fields.pairs(("board",))))
    if keyword == "draw":
        word = fields.word("'offer' or 'accept'")
        if word not in ("offer", "accept"):
            raise ProtocolSyntaxError(f"expected 'draw offer' or 'draw accept', got {word!r}")
        return Draw(accept=word == "accept", board=_maybe_board(fields.pairs(("board",))))
    if keyword == "ptell":
        text = fields.rest()
        if not text:
            raise ProtocolSyntaxError("empty ptell")
        return Tell(text)
    if keyword == "info":
        board = None
        if fields.peek() == "board":
            fields.word("board")
            board = parse_board(fields.word("board"))
        return Info(text=fields.rest(), board=board)
    if keyword == "error":
        return EngineError(fields.rest())
    raise ProtocolSyntaxError(f"unknown message {keyword!r}")
