"""The BPGN output file: what it refuses and in which words, how games are
separated from what the file held, and misuse of an open file."""

from __future__ import annotations

import errno
import os
import socket
import stat
from pathlib import Path

import pytest

from bughouse_arbiter import BughouseGame, Seat
from bughouse_arbiter.bpgn import BpgnFile, BpgnRecorder, GameHeader
from bughouse_arbiter.bpgn.file import OutputFileError, _require_regular, check_output_path
from bughouse_arbiter.bpgn.read import read_games

NOT_REGULAR = "not a regular file (BPGN is written to files only)"


def _make(kind: str, path: Path) -> Path:
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
    elif kind == "a character device":
        return Path("/dev/null")
    return path


@pytest.mark.parametrize("kind", ["a FIFO", "a socket", "a character device"])
def test_a_special_file_is_refused_naming_what_it_is(tmp_path: Path, kind: str) -> None:
    path = _make(kind, tmp_path / "odd")
    with pytest.raises(OutputFileError) as opening:
        BpgnFile.open(path)
    assert str(opening.value) == f"{path}: is {kind}, {NOT_REGULAR}"
    with pytest.raises(OutputFileError) as checking:
        check_output_path(path, "--games-out")
    assert str(checking.value) == f"--games-out {str(path)!r}: is {kind}, {NOT_REGULAR}"


def test_a_folder_is_refused_as_a_folder(tmp_path: Path) -> None:
    with pytest.raises(OutputFileError) as opening:
        BpgnFile.open(tmp_path)
    assert str(opening.value) == f"{tmp_path}: is a folder, not a file"
    with pytest.raises(OutputFileError) as checking:
        check_output_path(tmp_path)
    assert str(checking.value) == f"--out {str(tmp_path)!r}: is a folder, not a file"


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no such" / "m.bpgn"
    folder = repr(str(tmp_path / "no such"))
    with pytest.raises(OutputFileError) as opening:
        BpgnFile.open(path)
    assert str(opening.value) == f"{path}: folder {folder} does not exist"
    with pytest.raises(OutputFileError) as checking:
        check_output_path(path)
    assert str(checking.value) == f"--out {str(path)!r}: folder {folder} does not exist"
    assert not (tmp_path / "no such").exists()


def test_a_path_through_a_file_cannot_be_used(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("")
    path = tmp_path / "plain" / "m.bpgn"
    with pytest.raises(OutputFileError) as opening:
        BpgnFile.open(path)
    assert str(opening.value) == f"{path}: cannot be used (Not a directory)"
    with pytest.raises(OutputFileError) as checking:
        check_output_path(path)
    assert str(checking.value) == f"--out {str(path)!r}: cannot be used (Not a directory)"


def test_a_new_or_existing_writable_file_passes_the_check(tmp_path: Path) -> None:
    check_output_path(tmp_path / "new.bpgn")
    (tmp_path / "old.bpgn").write_text("x")
    check_output_path(tmp_path / "old.bpgn")
    assert not (tmp_path / "new.bpgn").exists()
    assert (tmp_path / "old.bpgn").read_text() == "x"


def _one_game(out: BpgnFile, event: str) -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, GameHeader(event=event))
    header = recorder.streamed_header()
    out.start_game(header.text, slot=header.slot)
    game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
    out.append(recorder.update())
    game.resign(Seat.A_BLACK)
    out.end_game(recorder.outcome_slot(), recorder.closing_text())


@pytest.mark.parametrize(
    ("before", "joint"),
    [
        ("", ""),
        ("{x} *", "{x} *\n\n"),
        ("{x} *\n", "{x} *\n\n"),
        ("{x} *\n\n", "{x} *\n\n"),
        ("{x} *\r\n", "{x} *\r\n\n"),
        ("{x} *\r\n\r\n", "{x} *\r\n\r\n"),
        ("{x} *\n\n\n", "{x} *\n\n\n"),
    ],
)
def test_a_game_is_appended_after_exactly_one_blank_line(
    tmp_path: Path, before: str, joint: str
) -> None:
    path = tmp_path / "m.bpgn"
    path.write_bytes(before.encode())
    with BpgnFile.open(path) as out:
        _one_game(out, "new")
    data = path.read_bytes().decode()
    assert data.startswith(joint + '[Event "new"]\n')


def test_a_game_left_open_is_followed_by_a_blank_line_and_stays_unfinished(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        game = BughouseGame()
        recorder = BpgnRecorder(game)
        header = recorder.streamed_header()
        out.start_game(header.text, slot=header.slot)
        game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
        out.append(recorder.update())
        _one_game(out, "next")
    text = path.read_text()
    assert "1A. e4 {179.000} {[%ts 1.000]}\n\n\n[Event " in text
    first, second = read_games(text)
    assert (first.finished, first.tag("Result")) == (False, "*")
    assert (second.tag("Event"), second.result_token) == ("next", "1-0")


def test_nothing_is_appended_outside_a_game(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        out.append("")  # nothing to write is no misuse
        with pytest.raises(RuntimeError, match=r"^BpgnFile.append outside a game$"):
            out.append("1A. e4\n")
        with pytest.raises(RuntimeError, match=r"^BpgnFile.end_game outside a game$"):
            out.end_game(None, "*")
        _one_game(out, "g")
        with pytest.raises(RuntimeError, match="outside a game"):
            out.append("1A. e4\n")
    assert path.read_text().count("[Event ") == 1


def test_an_outcome_slot_of_the_wrong_size_is_refused_and_the_game_stays_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        game = BughouseGame()
        recorder = BpgnRecorder(game)
        header = recorder.streamed_header()
        out.start_game(header.text, slot=header.slot)
        game.resign(Seat.A_BLACK)
        size = header.slot[1]
        with pytest.raises(ValueError, match=rf"^outcome slot holds {size} bytes, not 3$"):
            out.end_game("abc", recorder.closing_text())
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    (read,) = read_games(path.read_bytes(), strict=True)
    assert read.tag("Result") == "1-0"


def test_a_game_started_without_a_slot_keeps_its_tags(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        game = BughouseGame()
        recorder = BpgnRecorder(game)
        out.start_game(recorder.header_text())
        game.resign(Seat.A_BLACK)
        out.end_game("ignored: there is no slot", recorder.closing_text())
    (read,) = read_games(path.read_bytes())
    assert read.tag("Result") == "*" and read.result_token == "1-0"
    assert "ignored" not in path.read_text()


def test_a_closed_file_refuses_to_write_and_closes_once(tmp_path: Path) -> None:
    out = BpgnFile.open(tmp_path / "m.bpgn")
    out.close()
    out.close()
    assert out.fd == -1
    with pytest.raises(OSError) as refused:
        out.start_game('[Event "x"]\n\n')
    assert refused.value.errno == errno.EBADF
    assert refused.value.strerror == "the BPGN file is closed"


def test_the_lock_is_released_when_the_with_block_ends(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        fd = out.fd
    assert out.fd == -1
    with pytest.raises(OSError):
        os.fstat(fd)
    BpgnFile.open(path).close()


def test_a_new_file_is_made_readable_by_all(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        BpgnFile.open(tmp_path / "m.bpgn").close()
    finally:
        os.umask(old)
    assert oct((tmp_path / "m.bpgn").stat().st_mode & 0o777) == oct(0o644)


def _no_write_access(monkeypatch: pytest.MonkeyPatch, refused: Path) -> None:
    """As for a user other than root: ``refused`` may not be written."""
    real = os.access

    def access(path: object, mode: int) -> bool:
        if mode == os.W_OK and Path(str(path)) == refused:
            return False
        return real(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)


def test_a_file_that_cannot_be_written_is_refused_by_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.bpgn"
    path.write_text("x")
    _no_write_access(monkeypatch, path)
    with pytest.raises(OutputFileError) as checking:
        check_output_path(path)
    assert str(checking.value) == f"--out {str(path)!r}: cannot be written"


def test_a_new_file_in_a_read_only_folder_is_refused_by_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_write_access(monkeypatch, tmp_path)
    path = tmp_path / "new.bpgn"
    with pytest.raises(OutputFileError) as checking:
        check_output_path(path)
    assert str(checking.value) == (
        f"--out {str(path)!r}: cannot be written (folder {str(tmp_path)!r} is read-only)"
    )


def test_an_open_file_knows_its_path(tmp_path: Path) -> None:
    with BpgnFile.open(tmp_path / "m.bpgn") as out:
        assert out.path == tmp_path / "m.bpgn"


def test_a_file_made_from_a_descriptor_starts_with_the_first_game(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    with BpgnFile(fd, path) as out:
        _one_game(out, "first")
    assert path.read_text().startswith('[Event "first"]\n')


def test_a_game_without_a_slot_after_one_with_a_slot(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as out:
        _one_game(out, "slotted")
        game = BughouseGame()
        recorder = BpgnRecorder(game, GameHeader(event="plain"))
        out.start_game(recorder.header_text())
        game.resign(Seat.B_WHITE)
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    first, second = read_games(path.read_bytes())
    assert (first.tag("Result"), second.tag("Result")) == ("1-0", "*")
    assert second.result_token == "1-0"


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (errno.ENXIO, "is a FIFO, not a regular file"),
        (errno.EISDIR, "is a folder, not a file"),
        (errno.EROFS, "cannot be written (Read-only file system)"),
    ],
)
def test_what_the_system_says_when_opening_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, said: str
) -> None:
    """A path that changed between the check and the open (or a read-only
    filesystem): the error of the open is said in the user's words."""
    path = tmp_path / "m.bpgn"

    def refuse(*args: object) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(OutputFileError) as opening:
        BpgnFile.open(path)
    assert str(opening.value) == f"{path}: {said}"


def test_a_locked_file_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path), pytest.raises(OutputFileError) as refused:
        BpgnFile.open(path)
    assert str(refused.value) == (
        f"{path}: another process is writing this file (it is locked); "
        "wait for it to finish or choose another --out"
    )


def test_a_block_device_is_named_as_one() -> None:
    with pytest.raises(OutputFileError) as refused:
        _require_regular("disk", stat.S_IFBLK | 0o660)
    assert str(refused.value) == f"disk: is a block device, {NOT_REGULAR}"


def test_a_file_holding_only_a_blank_line_gets_no_other(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    path.write_bytes(b"\n\n")
    with BpgnFile.open(path) as out:
        _one_game(out, "new")
    assert path.read_text().startswith('\n\n[Event "new"]\n')


def test_a_file_of_a_kind_without_a_name_is_refused_in_plain_words() -> None:
    with pytest.raises(OutputFileError) as refused:
        _require_regular("odd", 0o644)  # no file type bits at all
    assert str(refused.value) == "odd: is not a regular file (BPGN is written to files only)"


def test_a_fifo_that_appears_between_the_check_and_the_open_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "late"
    os.mkfifo(path)

    def nothing_there(checked: object) -> os.stat_result:
        raise FileNotFoundError(checked)

    with monkeypatch.context() as patched:
        # As if the FIFO were made just after the check found nothing there.
        patched.setattr(os, "stat", nothing_there)
        with pytest.raises(OutputFileError) as refused:
            BpgnFile.open(path)
    assert str(refused.value) == f"{path}: is a FIFO, {NOT_REGULAR}"
