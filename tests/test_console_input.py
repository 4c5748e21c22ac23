"""The console's input line: commands, signals, moves and the line editor."""

from __future__ import annotations

import chess
import pytest

from bughouse_arbiter.ui.console_input import (
    EditorEvent,
    EmptyCommand,
    InputError,
    LineEditor,
    MoveCommand,
    MovesCommand,
    SignalCommand,
    SimpleCommand,
    TellCommand,
    looks_like_move,
    parse_command,
)


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("", EmptyCommand()),
        ("   ", EmptyCommand()),
        ("Nf3", MoveCommand("Nf3")),
        ("  N@f7 ", MoveCommand("N@f7")),
        ("@e4", MoveCommand("@e4")),
        ("e7e8q", MoveCommand("e7e8q")),
        ("O-O", MoveCommand("O-O")),
        ("sit", SignalCommand("sit")),
        ("GO", SignalCommand("go")),
        ("++n", SignalCommand("++n")),
        ("---q", SignalCommand("---q")),
        ("-q", SignalCommand("-q")),
        ("+trades", SignalCommand("+trades")),
        ("---trades", SignalCommand("---trades")),
        ("++n ---q", SignalCommand("++n ---q")),
        ("move e2e4", SignalCommand("move e2e4")),
        ("=", SignalCommand("=")),
        ("x", SignalCommand("x")),
        ("dead", SignalCommand("dead")),
        ("tell need a Knight", TellCommand("need a Knight")),
        ("moves", MovesCommand()),
        ("moves e2", MovesCommand(chess.E2)),
        ("MOVES G1", MovesCommand(chess.G1)),
        ("resign", SimpleCommand("resign")),
        ("draw", SimpleCommand("draw")),
        ("flip", SimpleCommand("flip")),
        ("help", SimpleCommand("help")),
        ("?", SimpleCommand("help")),
        ("quit", SimpleCommand("quit")),
        ("y", SimpleCommand("yes")),
        ("No", SimpleCommand("no")),
        ("cancel", SimpleCommand("cancel")),
    ],
)
def test_parse_command(line: str, command: object) -> None:
    assert parse_command(line) == command


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("moves z9", "not a square"),
        ("tell", "tell what?"),
        ("e4 e5", "one move or command per line"),
        ("++k", "not a signal"),
        ("+", "not a signal"),
        ("trades", "not a signal"),
        ("++trade", "not a signal"),
    ],
)
def test_bad_commands_say_why_in_one_line(line: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as info:
        parse_command(line)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text", ["e4", "Nf3", "exd5", "e8=Q", "N@f7", "@e4", "P@e4", "g1f3", "e7e8q", "O-O-O", "Qxf7#"]
)
def test_move_shapes(text: str) -> None:
    assert looks_like_move(text)


@pytest.mark.parametrize("text", ["hello", "e9", "Zf3", "f3g", "N@", "sit"])
def test_not_move_shapes(text: str) -> None:
    assert not looks_like_move(text)


def test_editor_types_and_submits_a_line() -> None:
    editor = LineEditor()
    assert editor.feed(b"Nf") == [EditorEvent("edit", "N"), EditorEvent("edit", "Nf")]
    events = editor.feed(b"3\r")
    assert events[-1] == EditorEvent("line", "Nf3")
    assert (editor.text, editor.cursor) == ("", 0)


def test_editor_backspace_arrows_and_insert_in_the_middle() -> None:
    editor = LineEditor()
    editor.feed(b"Nf3\x7f")
    assert editor.text == "Nf"
    editor.feed(b"\x1b[D\x1b[D")  # left, left
    assert editor.cursor == 0
    editor.feed(b"x")
    assert (editor.text, editor.cursor) == ("xNf", 1)
    editor.feed(b"\x1b[F")  # End
    assert editor.cursor == 3
    editor.feed(b"\x1b[H\x1b[3~")  # Home, Delete
    assert editor.text == "Nf"


def test_editor_escape_sequence_split_across_reads() -> None:
    editor = LineEditor()
    editor.feed(b"ab\x1b")
    editor.feed(b"[")
    assert editor.text == "ab"
    editor.feed(b"D")
    assert editor.cursor == 1


def test_editor_utf8_split_across_reads_and_control_keys() -> None:
    editor = LineEditor()
    text = "é".encode()
    editor.feed(text[:1])
    editor.feed(text[1:])
    assert editor.text == "é"
    editor.feed(b" two words\x17")  # Ctrl+W
    assert editor.text == "é two "
    editor.feed(b"\x15")  # Ctrl+U
    assert editor.text == ""
    assert editor.feed(b"\x0c") == [EditorEvent("redraw")]
    assert editor.feed(b"\x04") == [EditorEvent("eof")]


def test_editor_history() -> None:
    editor = LineEditor()
    editor.feed(b"e4\rmoves\r")
    editor.feed(b"\x1b[A")
    assert editor.text == "moves"
    editor.feed(b"\x1b[A")
    assert editor.text == "e4"
    editor.feed(b"\x1b[B\x1b[B")
    assert editor.text == ""


def test_editor_caps_the_line_length() -> None:
    editor = LineEditor()
    editor.feed(b"a" * 200)
    assert len(editor.text) == LineEditor.MAX_LENGTH
