"""What the terminal can do, and the streams to it: one object for every command.

``cli.main`` makes one ``Environment`` from the process's own streams and
variables and hands it to the command it runs; a test makes one from strings
(``Environment(stdout=io.StringIO(), environ={})``) and runs a command in
process. The rules, the same for every command:

- ``live``: standard output is a terminal that can address the cursor (not
  ``TERM=dumb``, nor an empty ``TERM``): tables are redrawn in place;
  elsewhere they become lines.
- ``color``: live, and ``NO_COLOR`` unset or empty (https://no-color.org).
- ``unicode``: standard output encodes UTF-8 (chess glyphs, box lines).
- ``width``: ``COLUMNS``, else the terminal's width, else 80.

Standard output is wrapped (``Output``): a write that fails raises
``OutputGone`` (not an ``OSError``, so no command's ``except OSError``
around a file can take it for that file's error), and the first failure is
kept, so ``cli.main`` can end quietly on a closed pipe or say that a full
disk refused the output, even when a command chose to write on without it.

Imports nothing heavy: ``bughouse --help`` makes one too.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO, cast

if TYPE_CHECKING:
    from .ui.table_view import Style


class OutputGone(Exception):
    """Standard output cannot be written any more: closed (``| head``) or full.

    ``closed`` is true for a reader that went away (EPIPE, or EIO from a
    terminal that hung up: a quiet end); anything else (ENOSPC...) is a write
    error worth one line.
    """

    def __init__(self, error: OSError | ValueError) -> None:
        self.error = error
        super().__init__(self.describe())

    @property
    def closed(self) -> bool:
        # EIO is what writes to a terminal that hung up get: the reader is gone,
        # as with EPIPE, and SIGHUP says the rest.
        return isinstance(self.error, BrokenPipeError) or (
            isinstance(self.error, OSError) and self.error.errno in (errno.EPIPE, errno.EIO)
        )

    def describe(self) -> str:
        if isinstance(self.error, OSError):
            reason = self.error.strerror or str(self.error)
        else:
            reason = "it is closed"
        return f"cannot write to standard output: {reason}"


class Output(io.TextIOBase):
    """A text stream over another whose write errors raise ``OutputGone``.

    The first error is kept in ``failure``; once failed, every write and
    flush raises again at once (nothing more reaches the stream).
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self.failure: OutputGone | None = None

    def write(self, text: str) -> int:
        if self.failure is not None:
            raise OutputGone(self.failure.error)
        try:
            return self.stream.write(text)
        except (OSError, ValueError) as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        if self.failure is not None:
            raise OutputGone(self.failure.error)
        try:
            self.stream.flush()
        except (OSError, ValueError) as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError | ValueError) -> OutputGone:
        self.failure = OutputGone(exc)
        return self.failure

    def isatty(self) -> bool:
        try:
            return self.stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self.stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.stream, "errors", None)

    def silence(self) -> None:
        """Points the descriptor under the stream at /dev/null, so that the
        interpreter's last flush of what is still buffered is quiet too."""
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, self.stream.fileno())
            finally:
                os.close(devnull)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass


class Environment:
    """The streams a command reads and writes, and what the terminal can do.

    Built by ``detect()`` in ``cli.main``; tests pass their own streams,
    variables and tty flags.
    """

    def __init__(
        self,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        environ: Mapping[str, str] | None = None,
        stdin_isatty: bool | None = None,
        stdout_isatty: bool | None = None,
        command: str = "",
    ) -> None:
        self.stdin: TextIO = stdin if stdin is not None else io.StringIO()
        raw = stdout if stdout is not None else io.StringIO()
        self.output = raw if isinstance(raw, Output) else Output(raw)
        #: Standard output, wrapped (see ``Output``).
        self.stdout: TextIO = cast(TextIO, self.output)
        self.stderr: TextIO = stderr if stderr is not None else io.StringIO()
        self.environ: Mapping[str, str] = environ if environ is not None else {}
        self.stdin_isatty = _isatty(self.stdin) if stdin_isatty is None else stdin_isatty
        self.stdout_isatty = _isatty(raw) if stdout_isatty is None else stdout_isatty
        #: The command being run, for its error lines (``bughouse match: error: ...``).
        self.command = command

    @classmethod
    def detect(cls, command: str = "") -> Environment:
        """The process's own streams and variables (read when called, so a
        test's captured streams are the ones used)."""
        return cls(
            stdin=sys.stdin,
            stdout=sys.stdout,
            stderr=sys.stderr,
            environ=os.environ,
            command=command,
        )

    @property
    def term(self) -> str:
        return self.environ.get("TERM", "")

    @property
    def live(self) -> bool:
        """A terminal that can address the cursor: tables are redrawn in place."""
        return self.stdout_isatty and self.term not in ("", "dumb")

    @property
    def interactive(self) -> bool:
        """Keys can be read one by one and the screen painted: both ends are a terminal."""
        return self.live and self.stdin_isatty

    @property
    def no_color(self) -> bool:
        """``NO_COLOR`` is set to something (an empty value does not count)."""
        return bool(self.environ.get("NO_COLOR", ""))

    @property
    def color(self) -> bool:
        return self.live and not self.no_color

    @property
    def colors256(self) -> bool:
        return "256" in self.term or self.environ.get("COLORTERM", "") in ("truecolor", "24bit")

    @property
    def unicode(self) -> bool:
        encoding = getattr(self.stdout, "encoding", None) or ""
        return encoding.lower().replace("-", "") == "utf8"

    @property
    def width(self) -> int:
        return terminal_columns(self.environ, self.output.stream)

    def style(self, *, ascii_only: bool = False, no_color: bool = False) -> Style:
        """The console's style: glyphs unless ``--ascii``, colour unless ``--no-color``."""
        from .ui.table_view import Style

        return Style(
            unicode=not ascii_only and self.unicode,
            color=self.color and not no_color,
            colors256=self.colors256,
        )

    def error(self, text: str) -> None:
        """``bughouse COMMAND: error: TEXT`` on stderr: one line, control characters
        shown escaped. A stderr that is gone takes nothing, quietly."""
        self.say(f"error: {text}")

    def warning(self, text: str) -> None:
        self.say(f"warning: {text}")

    def say(self, text: str) -> None:
        """One line on stderr under the command's name, made printable."""
        from .ui.safe_text import printable

        prefix = f"bughouse {self.command}: " if self.command else "bughouse: "
        try:
            self.stderr.write(prefix + printable(text, 2000) + "\n")
            self.stderr.flush()
        except (OSError, ValueError):
            pass


def terminal_columns(environ: Mapping[str, str], stream: object) -> int:
    """``COLUMNS``, else the width of the terminal ``stream`` is on, else 80."""
    try:
        columns = int(environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns  # type: ignore[attr-defined]
        except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
            columns = 0
        columns = columns or 80
    return columns


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False
