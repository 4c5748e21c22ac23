"""The file side of the writer: one BPGN file, appended to in place, locked.

``BpgnFile.open(path)`` opens the file for the whole match (or tournament):

- only a regular file is written (a symlink is followed to one); a folder, a
  FIFO, a device or a socket is refused with one ``OutputFileError`` line, and
  so is a file another process holds (``flock``, exclusive, not waited for);
- an existing file keeps everything it holds: games are appended after it,
  separated by a blank line. Nothing is ever renamed over the path, so
  symlinks, hard links, mode and owner stay as they were;
- every chunk goes out in one ``write`` on an ``O_APPEND`` descriptor, so a
  move is in the kernel's hands (and survives a SIGKILL of the arbiter) as
  soon as ``append`` returns; the game is ``fsync``-ed when it ends;
- the game's outcome tags sit in a fixed-size slot of its tag section,
  written ``[Result "*"]`` and padded; ``end_game`` overwrites that slot in
  place (``pwrite`` of a few hundred bytes) and then appends the result
  token. The file is never read back.

A reader of a file killed mid-game finds the tags with ``[Result "*"]`` and
every move so far, without a result token (an unfinished game). Blocking
calls on purpose: chunks are a line or two.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from types import TracebackType

from ..errors import ConfigError


class OutputFileError(ConfigError):
    """The BPGN output file cannot be used (one line for the user, exit 2)."""


class BpgnFile:
    """An open BPGN file that games are appended to.

    Example::

        with BpgnFile.open("match.bpgn") as out:
            header = recorder.streamed_header()
            out.start_game(header.text, slot=header.slot)
            out.append(recorder.update())          # after each event
            out.end_game(recorder.outcome_slot(), recorder.closing_text())
    """

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path
        #: Where the running game's outcome slot starts in the file, and its size.
        self._slot: tuple[int, int] | None = None
        self._in_game = False
        #: What to write before the next game so that a blank line precedes it.
        self._separator = b""

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> BpgnFile:
        """Opens (creating it 0644, umask permitting) and locks ``path``.

        Raises ``OutputFileError`` naming the problem in one line.
        """
        path = Path(path)
        name = str(path)
        before = _stat_or_none(path, name)
        if before is not None:
            _require_regular(name, before.st_mode)
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # a FIFO with no reader, made after the check
                raise OutputFileError(f"{name}: is a FIFO, not a regular file") from None
            if exc.errno == errno.EISDIR:
                raise OutputFileError(f"{name}: is a folder, not a file") from None
            if exc.errno == errno.ENOENT:
                folder = path.parent if str(path.parent) else Path(".")
                raise OutputFileError(f"{name}: folder {str(folder)!r} does not exist") from None
            raise OutputFileError(f"{name}: cannot be written ({exc.strerror})") from None
        try:
            info = os.fstat(fd)
            _require_regular(name, info.st_mode)
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise OutputFileError(
                    f"{name}: another process is writing this file (it is locked); "
                    "wait for it to finish or choose another --out"
                ) from None
            out = cls(fd, path)
            out._separator = _separator(fd, info.st_size)
        except BaseException:
            os.close(fd)
            raise
        return out

    # -- games ----------------------------------------------------------------

    def start_game(self, header_text: str, *, slot: tuple[int, int] | None = None) -> None:
        """Appends a game's tag section. ``slot`` is (start, size) in bytes of
        its outcome slot within ``header_text`` (see ``end_game``). A game
        left open is left unfinished (no result token), as a killed writer's."""
        if self._in_game:
            self._separator = b"\n\n"
        data = header_text.encode("utf-8")
        end = self._write(self._separator + data)
        self._in_game = True
        self._separator = b""
        if slot is not None:
            self._slot = (end - len(data) + slot[0], slot[1])

    def append(self, text: str) -> None:
        """Appends movetext in one write (in the kernel when this returns)."""
        if not text:
            return
        if not self._in_game:
            raise RuntimeError("BpgnFile.append outside a game")
        self._write_all(text.encode("utf-8"))

    def end_game(self, slot_text: str | None, closing_text: str) -> None:
        """Closes the game: overwrites the outcome slot with ``slot_text``
        (exactly the slot's size), then appends ``closing_text`` (the closing
        comment and the result token) and a blank line, and syncs the file."""
        if not self._in_game:
            raise RuntimeError("BpgnFile.end_game outside a game")
        if slot_text is not None and self._slot is not None:
            start, size = self._slot
            data = slot_text.encode("utf-8")
            if len(data) != size:
                raise ValueError(f"outcome slot holds {size} bytes, not {len(data)}")
            self._overwrite(start, data)
        self._write(closing_text.encode("utf-8") + b"\n\n")
        self._in_game = False
        self._slot = None
        os.fsync(self.fd)

    # -- the descriptor -------------------------------------------------------

    def close(self) -> None:
        """Releases the lock and closes the file (idempotent)."""
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)

    def __enter__(self) -> BpgnFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _write(self, data: bytes) -> int:
        """Writes all of ``data`` at the end of the file; returns the end offset."""
        self._write_all(data)
        return os.lseek(self.fd, 0, os.SEEK_CUR)

    def _write_all(self, data: bytes) -> None:
        """Writes all of ``data`` at the end of the file (a move: one system call)."""
        if self.fd < 0:
            raise OSError(errno.EBADF, "the BPGN file is closed")
        written = os.write(self.fd, data)
        if written < len(data):
            view = memoryview(data)[written:]
            while view:
                written = os.write(self.fd, view)
                view = view[written:]

    def _overwrite(self, offset: int, data: bytes) -> None:
        # pwrite on an O_APPEND descriptor appends on Linux: drop the flag
        # for this one write (the lock keeps other writers of ours out).
        flags = fcntl.fcntl(self.fd, fcntl.F_GETFL)
        fcntl.fcntl(self.fd, fcntl.F_SETFL, flags & ~os.O_APPEND)
        try:
            view = memoryview(data)
            while view:
                written = os.pwrite(self.fd, view, offset)
                view, offset = view[written:], offset + written
        finally:
            fcntl.fcntl(self.fd, fcntl.F_SETFL, flags)


def check_output_path(path: str | os.PathLike[str], option: str = "--out") -> None:
    """Refuses, before anything starts, a path ``BpgnFile.open`` would refuse:
    a missing folder, a folder, a FIFO, a device, a socket, a file or folder
    that cannot be written. Opens nothing (the lock is taken at ``open``)."""
    path = Path(path)
    name = f"{option} {str(path)!r}"
    info = _stat_or_none(path, name)
    if info is not None:
        _require_regular(name, info.st_mode)
        if not os.access(path, os.W_OK):
            raise OutputFileError(f"{name}: cannot be written")
        return
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputFileError(f"{name}: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputFileError(f"{name}: cannot be written (folder {str(folder)!r} is read-only)")


def _stat_or_none(path: Path, name: str) -> os.stat_result | None:
    """``path``'s status, None if it does not exist; ``OutputFileError`` if it cannot be read."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutputFileError(f"{name}: cannot be used ({exc.strerror})") from None


def _require_regular(name: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    what = next((f"is {kind}, not" for test, kind in kinds if test(mode)), "is not")
    if what == "is a folder, not":
        raise OutputFileError(f"{name}: is a folder, not a file")
    raise OutputFileError(f"{name}: {what} a regular file (BPGN is written to files only)")


def _separator(fd: int, size: int) -> bytes:
    """The line ends that make an existing file end with a blank line."""
    if size == 0:
        return b""
    tail = os.pread(fd, 4, max(0, size - 4)).replace(b"\r\n", b"\n")
    if tail.endswith(b"\n\n"):
        return b""
    return b"\n" if tail.endswith(b"\n") else b"\n\n"
