"""What the person at the console types: commands, partner signals, moves.

Pure: ``parse_command`` reads one line into a ``Command`` value (or raises
``InputError`` with a one-line message), and ``LineEditor`` turns raw key
bytes into an edited input line, so the terminal code only moves bytes.
Whether a move is legal is not decided here: a line that is not a command or
a signal is a ``MoveCommand`` and the board judges it.
"""

from __future__ import annotations

import re

import attrs
import chess

from ..errors import UsageError
from ..protocol.signals import meaning
from ..protocol.signals import words_of as signal_words


class InputError(UsageError):
    """A line the console cannot read (one line for the person, never a traceback)."""


@attrs.frozen
class MoveCommand:
    """A move or drop in SAN or UCI, exactly as typed."""

    text: str


@attrs.frozen
class SignalCommand:
    """Partner signals of protocol.md §8.2 (``sit``, ``go``, ``++n``, ``-q``,
    ``++n ---q``...), lower-cased, sent as typed."""

    text: str


@attrs.frozen
class TellCommand:
    """Free text for the partner (``tell ...``)."""

    text: str


@attrs.frozen
class MovesCommand:
    """List legal moves: all of them, or from one square (and drops onto it)."""

    square: chess.Square | None = None


@attrs.frozen
class SimpleCommand:
    """A command without arguments: ``resign``, ``draw``, ``flip``, ``help``,
    ``quit``, ``cancel`` (drops the premove), ``redraw``, ``yes``, ``no``."""

    name: str


@attrs.frozen
class EmptyCommand:
    """An empty line."""


Command = MoveCommand | SignalCommand | TellCommand | MovesCommand | SimpleCommand | EmptyCommand

SIMPLE_COMMANDS: dict[str, str] = {
    "resign": "resign",
    "draw": "draw",
    "flip": "flip",
    "help": "help",
    "?": "help",
    "quit": "quit",
    "exit": "quit",
    "cancel": "cancel",
    "redraw": "redraw",
    "y": "yes",
    "yes": "yes",
    "n": "no",
    "no": "no",
}

HELP_LINES: tuple[str, ...] = (
    "Commands (Enter on an empty line closes this help)",
    "  move: Nf3 N@f7 @e4 P@e4 exd5 O-O e8=Q, or g1f3 e7e8q; typed early = premove",
    "  cancel: drop the premove     moves [SQUARE]: legal moves (from / drops onto)",
    "  resign, draw, quit: each asks y/n first   flip, redraw   Up/Down: history",
    "Signals to your partner (type the word; tell TEXT sends free text)",
    "  sit  wait until I say go   go  move now   fast / slow   x  cancel my requests",
    "  dead  I am lost unless something changes   move e2e4  please play this move",
    "  +n ++n +++n  I want a knight: good / very good / it mates (p n b r q)",
    "  -q --q ---q  don't let them get a queen: bad / very bad / it mates me",
    "  +trades ++trades  trades are good for me   -trades ---trades  bad / any mates",
    "Your partner's latest request stays on the line above the messages.",
)


def signal_meaning(text: str) -> str | None:
    """What a message of signals means (``++n`` -> ``I want a knight: very good``);
    None for other text (protocol.md §8.2, ``protocol.signals``)."""
    return meaning(text)


def parse_command(line: str) -> Command:
    """Reads one input line.

    Raises InputError for a line that names a known command with bad arguments.
    Anything unknown is returned as a MoveCommand for the board to judge.
    """
    text = " ".join(line.split())
    if not text:
        return EmptyCommand()
    lowered = text.lower()
    head, _, rest = lowered.partition(" ")
    if head in ("moves", "legal", "hint", "hints"):
        return _moves_command(rest)
    if signal_words(lowered) is not None:
        return SignalCommand(lowered)
    if head in ("tell", "ptell", "say"):
        said = text.partition(" ")[2].strip()
        if not said:
            raise InputError(f"{head} what? e.g. {head} need a knight")
        return TellCommand(said)
    if rest:
        raise InputError(f"{text!r}: one move or command per line (type help)")
    if lowered in SIMPLE_COMMANDS:
        return SimpleCommand(SIMPLE_COMMANDS[lowered])
    if lowered.startswith(("+", "-")) or lowered == "trades":
        raise InputError(
            f"{text!r}: not a signal (use +n ++n +++n, -q --q ---q with p n b r q, "
            "or +trades -trades)"
        )
    return MoveCommand(text)


def _moves_command(rest: str) -> MovesCommand:
    if not rest:
        return MovesCommand()
    try:
        return MovesCommand(chess.parse_square(rest.strip()))
    except ValueError:
        raise InputError(f"moves {rest}: not a square (e.g. moves e2)") from None


def looks_like_move(text: str) -> bool:
    """True for text shaped like SAN or UCI (used to accept a premove)."""
    token = text.strip()
    san = r"(?:[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](?:=?[QRBNqrbn])?|O-O(?:-O)?|0-0(?:-0)?)[+#]?[!?]*"
    drop = r"[PNBRQpnbrq]?@[a-h][1-8][+#]?"
    uci = r"[a-h][1-8][a-h][1-8][qrbnQRBN]?"
    return bool(re.fullmatch(f"{san}|{drop}|{uci}", token))


# -- the input line ------------------------------------------------------------


@attrs.frozen
class EditorEvent:
    """What a key did: ``line`` (Enter pressed, with the text), ``eof``
    (Ctrl+D on an empty line), ``redraw`` (Ctrl+L) or ``edit`` (text changed)."""

    kind: str
    text: str = ""


class LineEditor:
    """A small line editor for cbreak mode: the terminal echoes nothing, the
    screen draws ``text`` with the cursor at ``cursor``.

    Keys: printable text, Backspace, Delete, Left/Right, Home/End (also Ctrl+A,
    Ctrl+E), Up/Down through the history, Ctrl+U clears, Ctrl+W deletes a word,
    Ctrl+L redraws, Ctrl+D on an empty line ends the input, Enter submits.
    """

    MAX_LENGTH = 60

    def __init__(self) -> None:
        self.text = ""
        self.cursor = 0
        self.history: list[str] = []
        self._browse: int | None = None
        self._pending = ""
        self._decoder_buffer = b""

    def feed(self, data: bytes) -> list[EditorEvent]:
        """Consumes raw bytes from the terminal; returns what happened, in order."""
        raw = self._decoder_buffer + data
        text, self._decoder_buffer = _decode_complete(raw)
        events: list[EditorEvent] = []
        keys = self._pending + text
        self._pending = ""
        index = 0
        while index < len(keys):
            char = keys[index]
            if char == "\x1b":
                sequence, length = _escape_sequence(keys, index)
                if length == 0:
                    self._pending = keys[index:]
                    break
                index += length
                self._key(sequence, events)
                continue
            index += 1
            self._key(char, events)
        return events

    def _key(self, key: str, events: list[EditorEvent]) -> None:
        before = (self.text, self.cursor)
        if key in ("\r", "\n"):
            line = self.text
            if line.strip() and (not self.history or self.history[-1] != line):
                self.history.append(line)
            self.text, self.cursor, self._browse = "", 0, None
            events.append(EditorEvent("line", line))
            return
        if key == "\x04":
            if not self.text:
                events.append(EditorEvent("eof"))
                return
            key = "delete"
        if key == "\x0c":
            events.append(EditorEvent("redraw"))
            return
        self._edit(key)
        if (self.text, self.cursor) != before:
            events.append(EditorEvent("edit", self.text))

    def _edit(self, key: str) -> None:
        text, cursor = self.text, self.cursor
        if key in ("\x7f", "\x08"):
            if cursor:
                self.text, self.cursor = text[: cursor - 1] + text[cursor:], cursor - 1
        elif key == "delete":
            self.text = text[:cursor] + text[cursor + 1 :]
        elif key == "left":
            self.cursor = max(0, cursor - 1)
        elif key == "right":
            self.cursor = min(len(text), cursor + 1)
        elif key in ("home", "\x01"):
            self.cursor = 0
        elif key in ("end", "\x05"):
            self.cursor = len(text)
        elif key == "\x15":
            self.text, self.cursor = text[cursor:], 0
        elif key == "\x17":
            start = len(text[:cursor].rstrip()) - len(text[:cursor].rstrip().split(" ")[-1])
            self.text, self.cursor = text[:start] + text[cursor:], start
        elif key in ("up", "down"):
            self._recall(key)
        elif len(key) == 1 and key.isprintable() and len(text) < self.MAX_LENGTH:
            self.text, self.cursor = text[:cursor] + key + text[cursor:], cursor + 1

    def _recall(self, key: str) -> None:
        if not self.history:
            return
        if key == "up":
            index = len(self.history) - 1 if self._browse is None else max(0, self._browse - 1)
        elif self._browse is None:
            return
        else:
            index = self._browse + 1
        if index >= len(self.history):
            self._browse, self.text = None, ""
        else:
            self._browse, self.text = index, self.history[index]
        self.cursor = len(self.text)


_ESCAPES = {
    "[A": "up",
    "[B": "down",
    "[C": "right",
    "[D": "left",
    "[H": "home",
    "[F": "end",
    "OA": "up",
    "OB": "down",
    "OC": "right",
    "OD": "left",
    "OH": "home",
    "OF": "end",
    "[1~": "home",
    "[4~": "end",
    "[3~": "delete",
}


def _escape_sequence(keys: str, index: int) -> tuple[str, int]:
    """The key an escape sequence at ``index`` stands for, and its length
    (0 when the sequence is still incomplete; unknown sequences are skipped)."""
    rest = keys[index + 1 :]
    if not rest:
        return "", 0
    if rest[0] not in "[O":
        return "escape", 1
    end = 1
    while end < len(rest) and not ("@" <= rest[end] <= "~"):
        end += 1
    if end >= len(rest):
        return "", 0
    body = rest[: end + 1]
    return _ESCAPES.get(body, "unknown"), end + 2


def _decode_complete(raw: bytes) -> tuple[str, bytes]:
    """Decodes UTF-8, keeping an incomplete trailing character for next time."""
    for cut in range(0, min(4, len(raw)) + 1):
        head = raw[: len(raw) - cut] if cut else raw
        try:
            return head.decode("utf-8"), raw[len(head) :]
        except UnicodeDecodeError:
            continue
    return raw.decode("utf-8", errors="replace"), b""
