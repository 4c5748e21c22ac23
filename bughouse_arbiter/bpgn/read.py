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
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import IO

import attrs

from ..core.model import BoardId, Seat
from ..errors import BpgnError
from .notation import unescape, unescape_tag

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\n\f\v]+)
    | (?P<tag>\[[ \t]*(?P<tname>[A-Za-z0-9_]+)[ \t]*"(?P<tval>(?:[^"\\\r\n]++|\\.)*+)"[ \t]*\])
    | (?P<badtag>\[[^\r\n]*)
    | (?P<comment>\{[^}]*\})
    | (?P<open>\{)
    | (?P<move>(?P<mnum>\d{1,6})(?P<mletter>[ABab])\.(?:\.\.)?[ \t]*
        (?P<msan>[A-Za-z@][^\s{}\[\]();]{0,199})
        (?:[ \t\r\n\f\v]*\{\s*(?P<mclock>-?\d{1,7}(?:\.\d{1,6})?)\s*\})?)
    | (?P<number>(?P<num>\d{1,6})(?P<letter>[ABab])\.(?:\.\.)?)
    | (?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![^\s{}\[\]();]))
    | (?P<linecomment>;[^\r\n]*)
    | (?P<stray>\}{2,100000}|\){2,100000}|\]{2,100000})
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
class BpgnDrawOffer:
    """A seat's draw offer or acceptance (our ``[%draw]``), after ``after`` moves."""

    seat: Seat
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
    draw_offers: tuple[BpgnDrawOffer, ...] = ()
    board_ends: tuple[BoardEnd, ...] = ()
    comments: tuple[str, ...] = ()
    closing: str | None = None
    result_token: str | None = None
    problems: tuple[Problem, ...] = ()
    file: str | None = None
    #: True for a part of a long game read by ``iter_game_parts`` that more parts follow.
    partial: bool = False

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
        self.moves_before = 0  # moves handed out in earlier parts
        self.messages: list[BpgnMessage] = []
        self.draw_offers: list[BpgnDrawOffer] = []
        self.board_ends: list[BoardEnd] = []
        self.comments: list[str] = []
        self.problems: list[Problem] = []
        self.problems_left_off = 0
        self.result_token: str | None = None
        self.last_comment: str | None = None
        self.last_comment_is_last_token = False
        #: A move number read, waiting for its move: (number, board, white, line, column).
        self.pending: tuple[int, BoardId, bool, int, int] | None = None
        #: The last move read, still taking comments (built when they end).
        self.open_move: tuple[int, BoardId, bool, str, str, int, int] | None = None
        self.started_movetext = False
        # Per-move extras, collected before the frozen move is built.
        self.move_comments: list[str] = []
        self.move_commands: dict[str, str] = {}
        self.move_clock: str | None = None

    @property
    def count(self) -> int:
        """Moves closed so far, in this part and the earlier ones."""
        return self.moves_before + len(self.moves)

    @property
    def held(self) -> int:
        """Moves, messages, board ends and comments held for the next part."""
        return len(self.moves) + len(self.messages) + len(self.board_ends) + len(self.comments)

    @property
    def move_open(self) -> bool:
        return self.open_move is not None

    def close_move(self) -> None:
        opened = self.open_move
        if opened is None:
            return
        number, board, white, san, written, line, column = opened
        clock_text = self.move_clock
        commands = self.move_commands
        self.moves.append(
            BpgnMove(
                index=self.moves_before + len(self.moves),
                number=number,
                board=board,
                white=white,
                san=san,
                written=written,
                line=line,
                column=column,
                clock=float(clock_text) if clock_text is not None else None,
                clock_text=clock_text,
                at=_float_or_none(commands.get("ts")) if commands else None,
                commands=commands if commands else _NO_COMMANDS,
                comments=tuple(self.move_comments) if self.move_comments else (),
            )
        )
        if self.move_comments:
            self.move_comments = []
        if commands:
            self.move_commands = {}
        self.move_clock = None
        self.open_move = None

    def part(self) -> BpgnGame:
        """The moves, messages, board ends and comments read since the last
        part, as a partial game; they are dropped here."""
        part = BpgnGame(
            number=self.number,
            line=self.line,
            tags=self.tags,
            moves=tuple(self.moves),
            messages=tuple(self.messages),
            board_ends=tuple(self.board_ends),
            comments=tuple(self.comments),
            file=self.file,
            partial=True,
        )
        self.moves_before += len(self.moves)
        self.moves, self.messages, self.board_ends, self.comments = [], [], [], []
        return part

    def build(self) -> BpgnGame:
        self.close_move()
        closing = self.last_comment if self.last_comment_is_last_token else None
        problems = self.problems
        if self.problems_left_off:
            last = problems[-1]
            problems.append(
                attrs.evolve(
                    last,
                    message=f"{self.problems_left_off} more problem(s) in this game not listed",
                )
            )
        return BpgnGame(
            number=self.number,
            line=self.line,
            tags=self.tags,
            moves=tuple(self.moves),
            messages=tuple(self.messages),
            draw_offers=tuple(self.draw_offers),
            board_ends=tuple(self.board_ends),
            comments=tuple(self.comments),
            closing=closing,
            result_token=self.result_token,
            problems=tuple(problems),
            file=self.file,
        )


#: Problems listed per game; more are counted in one last line.
MAX_PROBLEMS = 20
#: The most characters one token (a line-long tag, an unclosed comment) may
#: span; beyond it the rest of that line or comment is skipped, as a problem.
MAX_TOKEN = 1 << 20
#: Bytes read from a stream at a time.
CHUNK = 1 << 18
#: Moves (and messages, board ends, comments) that make ``iter_game_parts``
#: hand out a part at the end of a chunk; a shorter game comes whole.
PART = 4096


def decode(data: bytes) -> str:
    """Bytes of a BPGN file as text: each line UTF-8, else Latin-1 (which never fails)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\n".join(_decode_line(line) for line in data.split(b"\n"))


def _decode_line(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def read_games(
    source: str | bytes | IO[str] | IO[bytes],
    *,
    strict: bool = False,
    file: str | None = None,
) -> list[BpgnGame]:
    """Every game in ``source`` (text, bytes, or an open text or binary stream).

    Tolerant mode collects problems per game; ``strict`` raises ``BpgnError``
    (with file, game, line and column) at the first one. ``file`` is only
    used to name the source in problems. ``iter_games`` reads one game at a time.
    """
    return list(iter_games(source, strict=strict, file=file))


def iter_games(
    source: str | bytes | IO[str] | IO[bytes],
    *,
    strict: bool = False,
    file: str | None = None,
) -> Iterator[BpgnGame]:
    """The games of ``source`` one at a time, as ``read_games`` reads them.

    A stream is read in chunks of ``CHUNK`` bytes: memory follows the
    longest game, not the file. Each line is decoded as UTF-8, or as
    Latin-1 when it is not UTF-8.
    """
    return _Reader(_chunks(source), strict=strict, file=file).games()


def iter_game_parts(
    source: str | bytes | IO[str] | IO[bytes],
    *,
    strict: bool = False,
    file: str | None = None,
) -> Iterator[BpgnGame]:
    """The games of ``source`` in parts, so that no game is ever held whole.

    A game comes as one ``BpgnGame``, as ``iter_games`` gives it, unless at
    the end of a chunk its reader holds ``PART`` moves (messages, board ends
    and comments count too) or more: then it comes as ``partial`` parts, one
    after each such chunk, then a last part. Each holds the moves, messages,
    board ends and comments read since the one before (move ``index`` and
    ``after`` count from the game's start) and the tags; only the last holds
    the closing comment, the result token and the problems. Memory follows
    the chunk, not the game.
    """
    return _Reader(_chunks(source), strict=strict, file=file, parts=True).games()


def _chunks(source: str | bytes | IO[str] | IO[bytes]) -> Iterator[str]:
    """The text of ``source`` in pieces; bytes are decoded line by line, so a
    piece never depends on where a read ended (but for lines over ``MAX_TOKEN``)."""
    if isinstance(source, str):
        yield source
        return
    if isinstance(source, bytes):
        yield decode(source)
        return
    held = b""
    while True:
        data = source.read(CHUNK)
        if not data:
            break
        if isinstance(data, str):
            yield data
            continue
        held += data
        cut = held.rfind(b"\n") + 1
        if not cut and len(held) <= MAX_TOKEN:
            continue
        if not cut:
            cut = len(held)
        yield decode(held[:cut])
        held = held[cut:]
    if held:
        yield decode(held)


class _Reader:
    """One linear scan over a text that arrives in chunks.

    Tokens are taken from ``text`` (the unread rest and the newest chunk)
    while they cannot be cut by the chunk's end; then the read part is
    dropped and the next chunk appended. Positions in problems are made
    absolute with ``line_base`` and ``column_base``.
    """

    def __init__(
        self, chunks: Iterator[str], *, strict: bool, file: str | None, parts: bool = False
    ) -> None:
        self.chunks = chunks
        self.parts = parts
        self.strict = strict
        self.file = file
        self.text = ""
        self.pos = 0
        self.eof = False
        self.line_base = 1  # the line that text[0] is on
        self.column_base = 0  # columns before text[0] on that line
        self.line_starts = [0]
        self.skipping: str | None = None  # "}" or "\n" while a too long token is skipped
        self.numbered = 0  # games built so far
        self.done: list[BpgnGame] = []
        self.game: _GameBuilder | None = None
        self.ended: _GameBuilder | None = None  # a game whose result token was read
        self.variation_depth = 0
        self.variation_at: tuple[int, int] = (0, 0)
        self.first = True

    # -- positions -------------------------------------------------------------

    def where(self, pos: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.line_starts, pos)
        column = pos - self.line_starts[index - 1] + 1
        if index == 1:
            column += self.column_base
        return self.line_base + index - 1, column

    def problem(self, game: _GameBuilder, at: int | tuple[int, int], message: str) -> None:
        if not self.strict and len(game.problems) >= MAX_PROBLEMS:
            game.problems_left_off += 1
            return
        line, column = self.where(at) if isinstance(at, int) else at
        if len(message) > 300:
            message = message[:299] + "…"
        found = Problem(message=message, game=game.number, line=line, column=column, file=self.file)
        if self.strict:
            raise found.error()
        game.problems.append(found)

    # -- the chunks --------------------------------------------------------------

    def refill(self) -> None:
        """Drops the read part of ``text`` and appends the next chunk (or sets ``eof``)."""
        pos = self.pos
        if pos:
            index = bisect.bisect_right(self.line_starts, pos)
            if index == 1:
                self.column_base += pos
            else:
                self.line_base += index - 1
                self.column_base = pos - self.line_starts[index - 1]
        rest = self.text[pos:]
        chunk = next(self.chunks, None)
        if chunk is None:
            self.eof = True
            chunk = ""
        if self.first and chunk.startswith("\ufeff") and not rest:
            chunk = chunk[1:]
            self.column_base += 1
        if chunk:
            self.first = False
        self.text = rest + chunk
        self.pos = 0
        starts = [0]
        starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
        self.line_starts = starts

    def games(self) -> Iterator[BpgnGame]:
        while not self.eof:
            self.refill()
            self.scan()
            game = self.game
            if self.parts and game is not None and game.held >= PART:
                self.done.append(game.part())
            if self.done:
                yield from self.done
                self.done = []
        if self.game is not None:
            self.finish(len(self.text), truncated=True)
        if self.ended is not None:
            self.store(self.ended)
            self.ended = None
        yield from self.done
        self.done = []

    def store(self, game: _GameBuilder) -> None:
        self.done.append(game.build())
        self.numbered += 1

    # -- scanning ------------------------------------------------------------------

    def scan(self) -> None:
        text, pos, eof = self.text, self.pos, self.eof
        end = len(text)
        token = _TOKEN.match
        while pos < end:
            if self.skipping is not None:
                stop = text.find(self.skipping, pos)
                if stop < 0:
                    pos = end
                    break
                pos = stop + 1
                self.skipping = None
                continue
            match = token(text, pos)
            assert match is not None  # "other" matches any character
            kind = match.lastgroup
            start = pos
            if not eof and (match.end() >= end or kind == "open") and kind not in _SPLITTABLE:
                # The token may go on in the next chunk: read it then, unless
                # it is already too long to be worth reading.
                if end - start <= MAX_TOKEN:
                    break
                game = self.game or self.ended or self.current(start, tagged=text[start] == "[")
                if text[start] == "{":
                    too_long = f"comment longer than {MAX_TOKEN} characters: skipped"
                    self.problem(game, start, too_long)
                    self.skipping = "}"
                else:
                    self.problem(game, start, f"line longer than {MAX_TOKEN} characters: skipped")
                    self.skipping = "\n"
                pos = start + 1
                continue
            pos = match.end()
            if kind == "ws":
                continue
            if self.variation_depth:
                self.in_variation(match)
                continue
            if kind == "move":  # a number, its move and its clock, the usual case, in one token
                number, letter, word, clock = match.group("mnum", "mletter", "msan", "mclock")
                building = self.game
                if building is not None and building.pending is None:
                    # on_number then on_word, with nothing to report: inline.
                    building.started_movetext = True
                    building.last_comment_is_last_token = False
                    line, column = self.where(start)
                    building.close_move()
                    san = word
                    if san[-1] in "!?":
                        san = _SAN_SUFFIX.sub("", san) or san
                    board = _BOARDS[letter]
                    building.open_move = (
                        int(number),
                        board,
                        letter.isupper(),
                        san,
                        word,
                        line,
                        column,
                    )
                else:
                    self.on_number(number, letter, start)
                    self.on_word(word, match.start("msan"))
                    building = self.game
                    assert building is not None and building.open_move is not None
                if clock is not None:
                    # What on_comment makes of a clock comment right after a
                    # move (the comment it would keep as last_comment can
                    # never be read as the game's closing one).
                    building.move_clock = clock
            elif kind == "number":
                self.on_number(match.group("num"), match.group("letter"), start)
            elif kind == "word":
                self.on_word(match.group(), start)
            elif kind == "comment":
                self.on_comment(match.group()[1:-1], start)
            elif kind == "tag":
                self.on_tag(match, start)
            elif kind == "open":
                game = self.ended or self.current(start)
                self.problem(game, start, "comment '{' never closed (truncated?)")
                body = text[start + 1 :]
                if len(body) > MAX_TOKEN:
                    body = body[:MAX_TOKEN]
                self.on_comment(body, start, complete=False)
                pos = end
            elif kind == "result":
                self.on_result(match.group(), start)
            elif kind == "varopen":
                game = self.game or self.ended or self.current(start)
                self.problem(game, start, "variation skipped (only the main line is read)")
                self.variation_depth = 1
                self.variation_at = self.where(start)
            elif kind == "linecomment":
                game = self.game or self.ended or self.current(start)
                game.comments.append(match.group()[1:].strip())
            else:  # badtag, varclose, stray, other
                game = self.game or self.ended or self.current(start)
                shown = match.group()[:20]
                self.problem(game, start, f"cannot read {shown!r}: skipped")
        self.pos = pos

    def current(self, pos: int, *, tagged: bool = False) -> _GameBuilder:
        """The game a token at ``pos`` belongs to, starting one if needed."""
        game = self.game
        if game is not None and tagged and game.started_movetext:
            self.finish(pos, truncated=True)
            game = None
        if game is None:
            if self.ended is not None:
                self.store(self.ended)
                self.ended = None
            game = _GameBuilder(self.numbered + 1, self.where(pos)[0], self.file)
            self.game = game
            if not tagged:
                self.problem(game, pos, "movetext without a tag section")
        return game

    def finish(self, pos: int, *, truncated: bool) -> None:
        game = self.game
        if game is None:
            return
        if game.pending is not None:
            self.problem(game, game.pending[3:5], "move number without a move")
            game.pending = None
        if truncated:
            self.problem(game, pos, "game ends without a result token (truncated?)")
        if self.variation_depth:
            self.problem(game, self.variation_at, "unclosed variation '('")
            self.variation_depth = 0
        game.close_move()
        self.game = None
        if truncated:
            if self.ended is not None:
                self.store(self.ended)
                self.ended = None
            self.store(game)
        else:
            self.ended = game

    def in_variation(self, match: re.Match[str]) -> None:
        """Skips a token inside ``( ... )``; a tag ends an unclosed variation."""
        kind, start = match.lastgroup, match.start()
        if kind == "varopen":
            self.variation_depth += 1
        elif kind == "varclose":
            self.variation_depth -= 1
        elif kind == "stray" and match.group().startswith(")"):
            self.variation_depth = max(0, self.variation_depth - len(match.group()))
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
            self.problem(game, start, f"tag {name[:40]} given twice (the last value is kept)")
        game.tags[name] = value

    def movetext_game(self, start: int) -> _GameBuilder:
        game = self.game
        if game is None:
            game = self.current(start)
        game.started_movetext = True
        return game

    def on_comment(self, body: str, start: int, *, complete: bool = True) -> None:
        if self.game is None and self.ended is not None:
            # Comments after the result token still belong to that game.
            self.ended.comments.append(body)
            return
        game = self.movetext_game(start)
        game.last_comment_is_last_token = True
        if "[%" in body:
            commands = {m.group(1).lower(): m.group(2).strip() for m in _COMMAND.finditer(body)}
        else:
            commands = {}
        if commands:
            game.last_comment = body.strip()
            if "tell" in commands:
                self.on_tell(game, commands["tell"], body, start)
                return
            if "draw" in commands:
                self.on_draw(game, commands["draw"], start)
                return
            if "boardend" in commands:
                self.on_board_end(game, commands["boardend"], body, start)
                return
        if game.pending is not None or game.open_move is None:
            # Before any move, or between a move number and its move (wrapped files).
            game.last_comment = body.strip()
            game.comments.append(body)
            return
        # A comment cut off by the end of the file is never read as a clock.
        if not commands and game.move_clock is None and not game.move_comments and complete:
            clock = _CLOCK.fullmatch(body)
            if clock is not None:
                game.move_clock = clock.group(1)
                game.last_comment = body.strip()
                game.last_comment_is_last_token = False
                return
        if not commands and "[ts=" in body:
            stamp = _BUGHOUSE_PRO_TS.fullmatch(body)
            if stamp is not None:  # bughouse.pro: seconds since the game started, like our %ts
                commands = {"ts": stamp.group(1)}
                body = ""
        if commands:
            game.move_commands.update(commands)
            rest = _COMMAND.sub("", body).strip() if body else ""
            if rest:
                game.move_comments.append(rest)
                game.last_comment = rest
            else:
                game.last_comment = body.strip()
                game.last_comment_is_last_token = False
            return
        game.last_comment = body.strip()
        game.move_comments.append(body)

    def on_tell(self, game: _GameBuilder, value: str, body: str, start: int) -> None:
        parts = value.split()
        try:
            seat = Seat.parse(parts[0])
        except (ValueError, IndexError):
            self.problem(game, start, f"[%tell {value[:40]}]: unknown seat")
            return
        at = _float_or_none(parts[1]) if len(parts) > 1 else None
        text = unescape(body.split("]", 1)[1][1:] if "]" in body else "")
        game.close_move()
        line, _ = self.where(start)
        game.messages.append(
            BpgnMessage(seat=seat, text=text, at=at, after=game.count, line=line)
        )

    def on_draw(self, game: _GameBuilder, value: str, start: int) -> None:
        parts = value.split()
        try:
            seat = Seat.parse(parts[0])
        except (ValueError, IndexError):
            self.problem(game, start, f"[%draw {value[:40]}]: unknown seat")
            return
        at = _float_or_none(parts[1]) if len(parts) > 1 else None
        game.close_move()
        line, _ = self.where(start)
        game.draw_offers.append(BpgnDrawOffer(seat=seat, at=at, after=len(game.moves), line=line))

    def on_board_end(self, game: _GameBuilder, value: str, body: str, start: int) -> None:
        parts = value.split()
        try:
            board = BoardId.parse(parts[0])
            result, termination = parts[1], parts[2]
            seat = None if parts[3] == "-" else Seat.parse(parts[3])
        except (ValueError, IndexError):
            self.problem(game, start, f"[%boardend {value[:40]}]: cannot read it")
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
                after=game.count,
            )
        )

    def on_number(self, number: str, letter: str, start: int) -> None:
        game = self.movetext_game(start)
        game.last_comment_is_last_token = False
        if game.pending is not None:
            self.problem(game, game.pending[3:5], "move number without a move")
        line, column = self.where(start)
        game.pending = (int(number), _BOARDS[letter], letter.isupper(), line, column)

    def on_word(self, word: str, start: int) -> None:
        if self.game is None and self.ended is not None and word[0] == "$" and _NAG.fullmatch(word):
            return
        game = self.movetext_game(start)
        game.last_comment_is_last_token = False
        if word[0] == "$" and _NAG.fullmatch(word):
            return  # a glyph such as $1: nothing to replay
        pending = game.pending
        if pending is None:
            self.problem(game, start, f"{word!r} has no move number with a board letter: skipped")
            return
        number, board, white, line, column = pending
        game.pending = None
        game.close_move()
        san = word
        if san[0] == "$" and san.startswith("$146@"):  # chess.com's knight drop: N became a glyph
            san = "N" + san[4:]
        if san[-1] in "!?":
            san = _SAN_SUFFIX.sub("", san) or san
        game.open_move = (number, board, white, san, word, line, column)

    def on_result(self, token: str, start: int) -> None:
        if self.game is None:
            game = self.ended or self.current(start)
            self.problem(game, start, f"result {token} after the game's result: ignored")
            return
        game = self.game
        game.started_movetext = True
        game.result_token = token
        self.finish(start, truncated=False)


#: Tokens that may be cut by a chunk's end without changing what is read.
_SPLITTABLE = frozenset({"ws"})
_NO_COMMANDS: Mapping[str, str] = MappingProxyType({})
_BOARDS = {"A": BoardId.A, "a": BoardId.A, "B": BoardId.B, "b": BoardId.B}
_NEWLINE = re.compile("\n")


#: Time stamps beyond this many seconds (about 31 years) are not read.
MAX_STAMP = 1e9


def _float_or_none(text: str | None) -> float | None:
    """A time stamp, or None if it is not a number within ``MAX_STAMP``."""
    if text is None or len(text) > 40:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if abs(value) <= MAX_STAMP else None
