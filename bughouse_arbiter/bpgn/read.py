"""Reading BPGN in every dialect found in the wild, tolerantly.

``read_games(text)`` returns one ``BpgnGame`` per game: its tags, its moves in
file order (board letter, SAN as written, the clock comment, our ``[%ts]``
time stamp), partner messages, comments and the result token. Nothing is
judged here: ``replay.py`` plays the moves with the rules code.

Tolerant by default: whatever cannot be read is skipped and noted in the
game's ``problems`` with file, game number, line and column. ``strict=True``
raises ``BpgnError`` for the first problem instead. No input makes the
reader crash or hang (it is one linear scan with bounded regular
expressions; the tests fuzz it). Dialect notes are in ``docs/bpgn.md``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from typing import IO

import attrs

from ..core.model import BoardId, Seat
from ..errors import BpgnError
from .notation import unescape, unescape_tag

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\f\v]+)
    | (?P<tag>\[[ \t]*(?P<tname>[A-Za-z0-9_]+)[ \t]*"(?P<tval>(?:[^"\\\r\n]|\\.)*)"[ \t]*\])
    | (?P<badtag>\[[^\r\n]*)
    | (?P<comment>\{[^}]*\})
    | (?P<open>\{)
    | (?P<number>(?P<num>\d{1,6})(?P<letter>[ABab])\.(?:\.\.)?)
    | (?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![^\s{}\[\]();]))
    | (?P<linecomment>;[^\r\n]*)
    | (?P<varopen>\()
    | (?P<varclose>\))
    | (?P<word>[^\s{}\[\]();]{1,200})
    | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)
_CLOCK = re.compile(r"\s*(-?\d{1,7}(?:\.\d{1,6})?)\s*")
_COMMAND = re.compile(r"\[%(\w{1,20})[ \t]*([^\[\]]{0,500})\]")
_BUGHOUSE_PRO_TS = re.compile(r"\s*\[ts=(\d{1,7}(?:\.\d{1,6})?)\]\s*")
_NAG = re.compile(r"\$\d{1,3}")
_SAN_SUFFIX = re.compile(r"[!?]+$")


@attrs.frozen(kw_only=True)
class Problem:
    """Something the reader could not read, and where."""

    message: str
    game: int
    line: int
    column: int
    file: str | None = None

    def located(self) -> str:
        where = f"{self.file}: " if self.file else ""
        return f"{where}game {self.game}: line {self.line}, column {self.column}: {self.message}"

    def error(self) -> BpgnError:
        return BpgnError(
            self.message, file=self.file, game=self.game, line=self.line, column=self.column
        )


@attrs.frozen(kw_only=True)
class BpgnMove:
    """One half-move as written: ``12a. N@f3{118.235}``.

    ``white`` is the case of the board letter (upper case is White).
    ``san`` is the move text with the chess.com knight-drop artefact
    ``$146@`` read as ``N@`` and trailing ``!``/``?`` dropped; ``written`` is
    the token as it stands in the file. ``clock`` is the number in the first
    comment after the move when it is a plain number (seconds left, as
    written, ``clock_text`` keeping the original digits); ``at`` our
    ``[%ts]`` time stamp; ``commands`` every ``[%name value]`` in the move's
    comments; ``comments`` the other comment texts.
    """

    index: int
    number: int
    board: BoardId
    white: bool
    san: str
    written: str
    line: int
    column: int
    clock: float | None = None
    clock_text: str | None = None
    at: float | None = None
    commands: Mapping[str, str] = attrs.field(factory=dict)
    comments: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``12a. N@f3`` as written (number, letter, move)."""
        letter = self.board.value if self.white else self.board.value.lower()
        return f"{self.number}{letter}. {self.written}"

    @property
    def seat(self) -> Seat:
        """The seat the board letter names."""
        return Seat.of(self.board, self.white)


@attrs.frozen(kw_only=True)
class BpgnMessage:
    """A partner message (our ``[%tell]``), after ``after`` moves of the file."""

    seat: Seat
    text: str
    at: float | None
    after: int
    line: int


@attrs.frozen(kw_only=True)
class BoardEnd:
    """A board that ended while the other played on (our ``[%boardend]``)."""

    board: BoardId
    result: str
    termination: str
    seat: Seat | None
    reason: str
    after: int


@attrs.frozen(kw_only=True)
class BpgnGame:
    """One game as written. ``number`` counts games in the file from 1."""

    number: int
    line: int
    tags: Mapping[str, str]
    moves: tuple[BpgnMove, ...]
    messages: tuple[BpgnMessage, ...] = ()
    board_ends: tuple[BoardEnd, ...] = ()
    comments: tuple[str, ...] = ()
    closing: str | None = None
    result_token: str | None = None
    problems: tuple[Problem, ...] = ()
    file: str | None = None

    def tag(self, name: str, default: str | None = None) -> str | None:
        """A tag's value; tag names are matched without regard to case."""
        if name in self.tags:
            return self.tags[name]
        lowered = name.lower()
        for key, value in self.tags.items():
            if key.lower() == lowered:
                return value
        return default

    @property
    def result_tag(self) -> str | None:
        return self.tag("Result")

    @property
    def finished(self) -> bool:
        """True when the movetext ends with a result token (not a truncated file)."""
        return self.result_token is not None

    def name_of(self, seat: Seat) -> str | None:
        tag = ("White" if seat.color else "Black") + seat.board.value
        return self.tag(tag)


class _GameBuilder:
    def __init__(self, number: int, line: int, file: str | None) -> None:
        self.number = number
        self.line = line
        self.file = file
        self.tags: dict[str, str] = {}
        self.moves: list[BpgnMove] = []
        self.messages: list[BpgnMessage] = []
        self.board_ends: list[BoardEnd] = []
        self.comments: list[str] = []
        self.problems: list[Problem] = []
        self.result_token: str | None = None
        self.last_comment: str | None = None
        self.last_comment_is_last_token = False
        self.pending: tuple[int, BoardId, bool, int, int] | None = None
        self.move_open = False  # comments now belong to the last move
        self.started_movetext = False
        # Per-move extras, collected before the frozen move is built.
        self.move_comments: list[str] = []
        self.move_commands: dict[str, str] = {}
        self.move_clock: str | None = None

    def close_move(self) -> None:
        if not self.move_open:
            return
        move = self.moves[-1]
        clock = float(self.move_clock) if self.move_clock is not None else None
        at = _float_or_none(self.move_commands.get("ts"))
        self.moves[-1] = attrs.evolve(
            move,
            clock=clock,
            clock_text=self.move_clock,
            at=at,
            commands=dict(self.move_commands),
            comments=tuple(self.move_comments),
        )
        self.move_comments = []
        self.move_commands = {}
        self.move_clock = None
        self.move_open = False

    def build(self) -> BpgnGame:
        self.close_move()
        closing = self.last_comment if self.last_comment_is_last_token else None
        return BpgnGame(
            number=self.number,
            line=self.line,
            tags=dict(self.tags),
            moves=tuple(self.moves),
            messages=tuple(self.messages),
            board_ends=tuple(self.board_ends),
            comments=tuple(self.comments),
            closing=closing,
            result_token=self.result_token,
            problems=tuple(self.problems),
            file=self.file,
        )


def decode(data: bytes) -> str:
    """Bytes of a BPGN file as text: UTF-8, else Latin-1 (which never fails)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_games(
    source: str | bytes | IO[str] | IO[bytes],
    *,
    strict: bool = False,
    file: str | None = None,
) -> list[BpgnGame]:
    """Every game in ``source`` (text, bytes, or an open text or binary stream).

    Tolerant mode collects problems per game; ``strict`` raises ``BpgnError``
    (with file, game, line and column) at the first one. ``file`` is only
    used to name the source in problems.
    """
    if not isinstance(source, str | bytes):
        source = source.read()
    text = decode(source) if isinstance(source, bytes) else source
    return _Reader(text, strict=strict, file=file).read()


class _Reader:
    def __init__(self, text: str, *, strict: bool, file: str | None) -> None:
        self.text = text
        self.strict = strict
        self.file = file
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.games: list[BpgnGame] = []
        self.game: _GameBuilder | None = None
        self.ended: _GameBuilder | None = None  # a game whose result token was read
        self.variation_depth = 0
        self.variation_at = 0

    def where(self, pos: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def problem(self, game: _GameBuilder, pos: int, message: str) -> None:
        line, column = self.where(pos)
        found = Problem(message=message, game=game.number, line=line, column=column, file=self.file)
        if self.strict:
            raise found.error()
        game.problems.append(found)

    def current(self, pos: int, *, tagged: bool = False) -> _GameBuilder:
        """The game a token at ``pos`` belongs to, starting one if needed."""
        game = self.game
        if game is not None and tagged and game.started_movetext:
            self.finish(pos, truncated=True)
            game = None
        if game is None:
            number = len(self.games) + 1
            if self.ended is not None:
                self.games.append(self.ended.build())
                self.ended = None
                number = len(self.games) + 1
            game = _GameBuilder(number, self.where(pos)[0], self.file)
            self.game = game
            if not tagged:
                self.problem(game, pos, "movetext without a tag section")
        return game

    def finish(self, pos: int, *, truncated: bool) -> None:
        game = self.game
        if game is None:
            return
        if game.pending is not None:
            self.problem(game, game.pending[3], "move number without a move")
            game.pending = None
        if truncated:
            self.problem(game, pos, "game ends without a result token (truncated?)")
        if self.variation_depth:
            self.problem(game, self.variation_at, "unclosed variation '('")
            self.variation_depth = 0
        game.close_move()
        self.game = None
        if truncated:
            self.games.append(game.build())
        else:
            self.ended = game

    def read(self) -> list[BpgnGame]:
        pos = 0
        text = self.text
        end = len(text)
        if text.startswith("\ufeff"):
            pos = 1
        while pos < end:
            match = _TOKEN.match(text, pos)
            assert match is not None  # "other" matches any character
            kind = match.lastgroup
            start, pos = match.start(), match.end()
            if kind == "ws":
                continue
            if self.variation_depth:
                self.in_variation(match)
                continue
            if kind == "tag":
                self.on_tag(match, start)
            elif kind == "comment":
                self.on_comment(match.group()[1:-1], start)
            elif kind == "open":
                game = self.ended or self.current(start)
                self.problem(game, start, "comment '{' never closed (truncated?)")
                self.on_comment(text[start + 1 :], start, complete=False)
                pos = end
            elif kind == "number":
                self.on_number(match, start)
            elif kind == "result":
                self.on_result(match.group(), start)
            elif kind == "word":
                self.on_word(match.group(), start)
            elif kind == "varopen":
                game = self.game or self.ended or self.current(start)
                self.problem(game, start, "variation skipped (only the main line is read)")
                self.variation_depth = 1
                self.variation_at = start
            elif kind == "linecomment":
                game = self.game or self.ended or self.current(start)
                game.comments.append(match.group()[1:].strip())
            else:  # badtag, varclose, other
                game = self.game or self.ended or self.current(start)
                shown = match.group()[:20]
                self.problem(game, start, f"cannot read {shown!r}: skipped")
        if self.game is not None:
            self.finish(end, truncated=True)
        if self.ended is not None:
            self.games.append(self.ended.build())
            self.ended = None
        return self.games

    def in_variation(self, match: re.Match[str]) -> None:
        """Skips a token inside ``( ... )``; a tag ends an unclosed variation."""
        kind, start = match.lastgroup, match.start()
        if kind == "varopen":
            self.variation_depth += 1
        elif kind == "varclose":
            self.variation_depth -= 1
        elif kind == "tag":
            game = self.game or self.ended
            if game is not None:
                self.problem(game, self.variation_at, "unclosed variation '('")
            self.variation_depth = 0
            self.on_tag(match, start)

    def on_tag(self, match: re.Match[str], start: int) -> None:
        game = self.current(start, tagged=True)
        name, value = match.group("tname"), unescape_tag(match.group("tval"))
        if name in game.tags:
            self.problem(game, start, f"tag {name} given twice (the last value is kept)")
        game.tags[name] = value

    def movetext_game(self, start: int) -> _GameBuilder:
        game = self.current(start)
        game.started_movetext = True
        return game

    def on_comment(self, body: str, start: int, *, complete: bool = True) -> None:
        if self.game is None and self.ended is not None:
            # Comments after the result token still belong to that game.
            self.ended.comments.append(body)
            return
        game = self.movetext_game(start)
        commands = {m.group(1).lower(): m.group(2).strip() for m in _COMMAND.finditer(body)}
        game.last_comment = body.strip()
        game.last_comment_is_last_token = True
        if "tell" in commands:
            self.on_tell(game, commands["tell"], body, start)
            return
        if "boardend" in commands:
            self.on_board_end(game, commands["boardend"], body, start)
            return
        if game.pending is not None:
            # A comment between a move number and its move (seen in wrapped files).
            game.comments.append(body)
            return
        if not game.move_open:
            game.comments.append(body)
            return
        # A comment cut off by the end of the file is never read as a clock.
        clock = _CLOCK.fullmatch(body) if complete else None
        if clock is not None and game.move_clock is None and not game.move_comments:
            game.move_clock = clock.group(1)
            game.last_comment_is_last_token = False
            return
        stamp = _BUGHOUSE_PRO_TS.fullmatch(body)
        if stamp is not None:  # bughouse.pro: seconds since the game started, like our %ts
            commands = {"ts": stamp.group(1)}
            body = ""
        if commands:
            game.move_commands.update(commands)
            rest = _COMMAND.sub("", body).strip()
            if rest:
                game.move_comments.append(rest)
                game.last_comment = rest
            else:
                game.last_comment_is_last_token = False
            return
        game.move_comments.append(body)

    def on_tell(self, game: _GameBuilder, value: str, body: str, start: int) -> None:
        parts = value.split()
        try:
            seat = Seat.parse(parts[0])
        except (ValueError, IndexError):
            self.problem(game, start, f"[%tell {value}]: unknown seat")
            return
        at = _float_or_none(parts[1]) if len(parts) > 1 else None
        text = unescape(body.split("]", 1)[1][1:] if "]" in body else "")
        game.close_move()
        line, _ = self.where(start)
        game.messages.append(
            BpgnMessage(seat=seat, text=text, at=at, after=len(game.moves), line=line)
        )

    def on_board_end(self, game: _GameBuilder, value: str, body: str, start: int) -> None:
        parts = value.split()
        try:
            board = BoardId.parse(parts[0])
            result, termination = parts[1], parts[2]
            seat = None if parts[3] == "-" else Seat.parse(parts[3])
        except (ValueError, IndexError):
            self.problem(game, start, f"[%boardend {value}]: cannot read it")
            return
        reason = unescape(body.split("]", 1)[1].strip())
        game.close_move()
        game.board_ends.append(
            BoardEnd(
                board=board,
                result=result,
                termination=termination,
                seat=seat,
                reason=reason,
                after=len(game.moves),
            )
        )

    def on_number(self, match: re.Match[str], start: int) -> None:
        game = self.movetext_game(start)
        game.last_comment_is_last_token = False
        if game.pending is not None:
            self.problem(game, game.pending[3], "move number without a move")
        letter = match.group("letter")
        game.pending = (
            int(match.group("num")),
            BoardId(letter.upper()),
            letter.isupper(),
            start,
            match.end(),
        )

    def on_word(self, word: str, start: int) -> None:
        if self.game is None and self.ended is not None and _NAG.fullmatch(word):
            return
        game = self.movetext_game(start)
        game.last_comment_is_last_token = False
        if _NAG.fullmatch(word):
            return  # a glyph such as $1: nothing to replay
        if game.pending is None:
            self.problem(game, start, f"{word!r} has no move number with a board letter: skipped")
            return
        number, board, white, number_at, _ = game.pending
        game.pending = None
        game.close_move()
        san = word
        if san.startswith("$146@"):  # chess.com's knight drop: the N became a glyph
            san = "N" + san[4:]
        san = _SAN_SUFFIX.sub("", san) or san
        line, column = self.where(number_at)
        game.moves.append(
            BpgnMove(
                index=len(game.moves),
                number=number,
                board=board,
                white=white,
                san=san,
                written=word,
                line=line,
                column=column,
            )
        )
        game.move_open = True

    def on_result(self, token: str, start: int) -> None:
        if self.game is None:
            game = self.ended or self.current(start)
            self.problem(game, start, f"result {token} after the game's result: ignored")
            return
        game = self.game
        game.started_movetext = True
        game.result_token = token
        self.finish(start, truncated=False)


def _float_or_none(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None
