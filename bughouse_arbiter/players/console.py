"""The person at the console: one more ``Player``, drawn and typed in a terminal.

``ConsolePlayer`` keeps a ``ConsoleSession`` (the pure state), feeds it the
arbiter's notifications and the person's keys, and sends what it returns as
actions. On a terminal (``TtyTerminal``) the screen is painted by one task,
which wakes when something changed or when a clock's display next changes,
and the keyboard is read in cbreak mode by another: the line being typed is
edited by ``LineEditor`` and redrawn by the painter, so clock updates never
overwrite it. Without a terminal (``PipeTerminal``) it prints one line per
event and reads whole lines.
"""

from __future__ import annotations

import abc
import contextlib
import math
import os
import signal
import sys
import termios
import tty
from types import TracebackType
from typing import Any, TextIO

import trio

from ..core.game import BoardResult, PlayedMove
from ..core.model import Outcome, Seat
from ..ui.console_input import HELP_LINES, LineEditor
from ..ui.console_screen import ScreenPainter, Style, compose, plain, prompt_text
from ..ui.console_session import (
    ConsoleSession,
    LogLine,
    Outgoing,
    SendDraw,
    SendLeave,
    SendMove,
    SendResign,
    SendTell,
    display_san,
    format_clock,
)
from .base import (
    Action,
    DrawOfferAction,
    Gone,
    MatchInfo,
    MoveAction,
    Player,
    ResignAction,
    TableState,
    TellAction,
)

#: At most this many frames a second (clocks tick ten times a second at most).
FRAMES_PER_SECOND = 30
#: Keys pressed this soon after the final screen appears do not dismiss it.
KEY_GRACE = 0.3
#: Under this many seconds on the person's running clock the bell rings (once).
LOW_TIME = 10.0
#: Seconds a hung-up terminal waits for its SIGHUP before the person counts as gone.
HANGUP_GRACE = 1.0

# -- terminals -----------------------------------------------------------------------


class Terminal(abc.ABC):
    """Where the console player draws and reads. ``interactive`` terminals get
    the painted screen and raw keys; others get lines."""

    interactive: bool
    style: Style

    @abc.abstractmethod
    def write(self, text: str) -> None:
        """Writes ``text`` and flushes."""

    @abc.abstractmethod
    async def read(self) -> bytes:
        """The next bytes typed (b"" at the end of input)."""

    def size(self) -> tuple[int, int]:
        return (80, 24)

    async def aclose(self) -> None:  # noqa: B027 - nothing to close by default
        """Releases the input."""

    def resume(self) -> None:  # noqa: B027 - nothing to do by default
        """The program was continued after Ctrl+Z: set the terminal up again."""

    def discard_typeahead(self) -> None:  # noqa: B027 - nothing to discard by default
        """Drops keys typed but not read yet."""


def _write(stream: TextIO, text: str) -> None:
    """Writes and flushes; characters the stream cannot encode become ``?``."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if encoding.lower().replace("-", "") != "utf8":
        text = text.encode(encoding, "replace").decode(encoding)
    stream.write(text)
    stream.flush()


class TtyTerminal(Terminal):
    """The real terminal in cbreak mode (no echo, keys one by one, Ctrl+C
    still interrupts). Use as a context manager: the terminal's settings are
    restored on every way out, Ctrl+C included."""

    interactive = True

    def __init__(self, style: Style, out: TextIO | None = None, in_fd: int | None = None) -> None:
        self.style = style
        self._out = out if out is not None else sys.stdout
        self._in_fd = in_fd if in_fd is not None else sys.stdin.fileno()
        self._saved: list[Any] | None = None
        self._fd: int | None = None
        self._stream: trio.lowlevel.FdStream | None = None
        self._hung_up = False

    def __enter__(self) -> TtyTerminal:
        self._saved = termios.tcgetattr(self._in_fd)
        tty.setcbreak(self._in_fd, termios.TCSANOW)
        # A fresh open file description, so the non-blocking mode trio sets
        # does not leak into the shell's stdin.
        self._fd = os.open(os.ttyname(self._in_fd), os.O_RDONLY | os.O_NOCTTY)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.restore()

    def resume(self) -> None:
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):  # a terminal that hung up
                tty.setcbreak(self._in_fd, termios.TCSANOW)

    def discard_typeahead(self) -> None:
        with contextlib.suppress(termios.error, OSError):
            termios.tcflush(self._in_fd, termios.TCIFLUSH)

    def restore(self) -> None:
        """Puts the terminal back as it was (safe to call twice)."""
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):  # a terminal that hung up
                termios.tcsetattr(self._in_fd, termios.TCSADRAIN, self._saved)
            self._saved = None
        if self._stream is None and self._fd is not None:
            os.close(self._fd)
        self._fd = None

    def write(self, text: str) -> None:
        if self._hung_up:
            return
        try:
            _write(self._out, text)
        except OSError:  # the terminal hung up (SIGHUP follows): nobody to show it to
            self._hung_up = True

    async def read(self) -> bytes:
        if self._stream is None:
            if self._fd is None:
                return b""
            self._stream = trio.lowlevel.FdStream(self._fd)
        return await self._stream.receive_some(1024)

    def size(self) -> tuple[int, int]:
        try:
            columns, rows = os.get_terminal_size(self._out.fileno())
        except (OSError, ValueError):
            return (80, 24)
        return (columns, rows)

    async def aclose(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            self._fd = None
            await stream.aclose()


class PipeTerminal(Terminal):
    """Plain lines in and out, for when stdin or stdout is not a terminal."""

    interactive = False

    def __init__(self, style: Style, out: TextIO | None = None, inp: TextIO | None = None) -> None:
        self.style = style
        self._out = out if out is not None else sys.stdout
        self._in = inp if inp is not None else sys.stdin

    def write(self, text: str) -> None:
        _write(self._out, text)

    async def read(self) -> bytes:
        line: str = await trio.to_thread.run_sync(self._in.readline, abandon_on_cancel=True)
        return line.encode()


# -- the player ----------------------------------------------------------------------


class ConsolePlayer(Player):
    """A person at one seat, playing at a terminal."""

    def __init__(
        self,
        seat: Seat,
        terminal: Terminal,
        name: str = "you",
        *,
        keep_final_screen: bool = False,
        bell: bool = False,
    ) -> None:
        self.name = name
        #: Ring the terminal bell on your turn, a partner request and under ten seconds.
        self.bell = bell
        self._low_time_rung = False
        #: Leave the final screen up after a finished game until ``hold_final_screen``.
        self.keep_final_screen = keep_final_screen
        self._held = False
        self.seats = (seat,)
        self.seat = seat
        self.terminal = terminal
        self.session = ConsoleSession(seat)
        self.editor = LineEditor()
        self.painter = ScreenPainter(terminal.style)
        self._actions: trio.MemorySendChannel[Action] | None = None
        # Unbounded on purpose: notifications must never block on the arbiter,
        # and the person cannot type faster than the arbiter reads.
        self._outbox_send, self._outbox = trio.open_memory_channel[Outgoing | Gone](math.inf)
        self._changed = trio.Event()
        self._scope = trio.CancelScope()
        self._closed = False
        self._printed_log = 0
        self._printed_feedback: LogLine | None = None
        self._gone_sent = False

    # -- Player ----------------------------------------------------------------------

    async def start(self, nursery: trio.Nursery, actions: trio.MemorySendChannel[Action]) -> None:
        self._actions = actions
        nursery.start_soon(self._run)

    async def new_game(self, info: MatchInfo, state: TableState) -> None:
        self.session.start(
            game_id=info.game_id,
            names=info.names,
            rules=info.rules,
            fens=state.fens,
            clocks=state.clocks,
            now=trio.current_time(),
            human_seats=info.human_seats,
        )
        self._touch()

    async def your_turn(self, seat: Seat, token: int, state: TableState) -> None:
        outgoing = self.session.your_turn(token, state.fens, state.clocks, trio.current_time())
        if not outgoing:  # a premove played at once needs no call
            self._ring()
        if not self.terminal.interactive and not outgoing:
            self._print_boards()
            clock = format_clock(self.session.clock(self.seat, trio.current_time()))
            self.terminal.write(f"Your move ({self.seat}, {clock} left)\n")
        self._queue(outgoing)
        self._touch()

    async def moved(self, played: PlayedMove, state: TableState) -> None:
        self.session.moved(played, state.fens, state.clocks, trio.current_time())
        if not self.terminal.interactive:
            self.terminal.write(_move_line(played) + "\n")
        self._touch()

    async def partner_says(self, seat: Seat, text: str) -> None:
        self.session.partner_says(text, trio.current_time())
        self._ring()
        self._touch()

    async def draw_offered(self, by: Seat) -> None:
        self.session.draw_offered(by)
        self._touch()

    async def move_refused(self, seat: Seat, token: int, move: str, reason: str) -> None:
        self.session.move_refused(move, reason)
        self._touch()

    async def board_ended(self, result: BoardResult) -> None:
        self.session.board_ended(result)
        self._touch()

    async def game_over(self, outcome: Outcome) -> None:
        self.session.game_over(outcome)
        self._touch()
        self._draw()

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        """Moves the person to another seat for the next game (``serve`` rotates seats)."""
        if len(seats) != 1:
            raise ValueError("a person at the console holds one seat")
        self.seat = self.session.seat = seats[0]
        self.seats = (seats[0],)
        self.session.full_redraw = True

    async def aclose(self) -> None:
        if self._closed:
            return
        self._scope.cancel()
        outcome = self.session.outcome
        if self.terminal.interactive:
            self._draw()
            if self.keep_final_screen and outcome is not None and not outcome.aborted:
                # The command shows the final screen until a key is pressed.
                self._held = True
                self._closed = True
                return
            self.terminal.write(self.painter.leave())
        # After this, nothing draws: the screen belongs to the command again.
        self._closed = True
        await self.terminal.aclose()

    async def hold_final_screen(self, note: str) -> None:
        """Keeps the final screen (both boards, the result) up with ``note``
        until a key is pressed; then leaves it as it is, the cursor below.

        Does nothing unless ``aclose`` kept the screen (a finished game on a terminal).
        """
        if not self._held:
            return
        self._held = False
        try:
            self.session.help_open = False  # the final screen shows the boards
            self.terminal.discard_typeahead()  # keys typed during the game dismiss nothing
            self.session.note_log(note)
            self.session.note("press any key to leave", "ask")
            size = (self.painter.columns, self.painter.rows)
            frame = compose(self.session, trio.current_time(), self.terminal.style, "", size)
            self.terminal.write(self.painter.paint(frame, len(prompt_text(self.session))))
            shown = trio.current_time()
            # A key already on its way when the screen appeared does not count.
            while await self.terminal.read() and trio.current_time() - shown < KEY_GRACE:
                pass
        finally:
            with trio.CancelScope(shield=True):
                self.terminal.write(self.painter.leave())
                await self.terminal.aclose()

    # -- tasks ---------------------------------------------------------------------

    async def _run(self) -> None:
        with self._scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._forward)
                nursery.start_soon(self._read_input)
                if self.terminal.interactive:
                    self._resize()
                    nursery.start_soon(self._paint)
                    nursery.start_soon(self._follow_resizes)

    async def _forward(self) -> None:
        assert self._actions is not None
        async for item in self._outbox:
            action = self._action(item)
            if action is None:
                continue
            try:
                await self._actions.send(action)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return

    def _action(self, item: Outgoing | Gone) -> Action | None:
        seat = self.seat
        if isinstance(item, Gone):
            return None if self._take_gone() else item
        if isinstance(item, SendMove):
            return MoveAction(seat=seat, token=item.token, move=item.uci)
        if isinstance(item, SendTell):
            return TellAction(seat=seat, text=item.text)
        if isinstance(item, SendResign):
            return ResignAction(seat=seat)
        if isinstance(item, SendDraw):
            return DrawOfferAction(seat=seat)
        assert isinstance(item, SendLeave)
        return None if self._take_gone() else Gone(seat=seat, reason=item.reason)

    def _take_gone(self) -> bool:
        """True if Gone was already sent (it is sent once)."""
        sent, self._gone_sent = self._gone_sent, True
        return sent

    async def _read_input(self) -> None:
        while True:
            data = await self.terminal.read()
            if not data:
                if self.terminal.interactive:
                    # A terminal in cbreak mode only ends when it hangs up, and
                    # then SIGHUP is on its way: the command stops the game
                    # for it. Only if none comes (nohup) has the person left.
                    await trio.sleep(HANGUP_GRACE)
                if self.session.outcome is None:
                    self._outbox_send.send_nowait(Gone(seat=self.seat, reason="input closed"))
                return
            if self.terminal.interactive:
                self._keys(data)
            else:
                for line in data.decode(errors="replace").splitlines():
                    self._queue(self.session.on_line(line))
                self._print_news()
            self._touch()

    def _keys(self, data: bytes) -> None:
        for event in self.editor.feed(data):
            if event.kind == "line":
                self._queue(self.session.on_line(event.text))
            elif event.kind == "eof":
                self._queue(self.session.on_line("quit"))
            elif event.kind == "redraw":
                self.painter.invalidate()
        if self.session.full_redraw:
            self.session.full_redraw = False
            self.painter.invalidate()

    async def _paint(self) -> None:
        while True:
            self._draw()
            # A frame-rate cap, not a poll: a burst of changes (engines moving
            # fast on the other board) is drawn as one frame.
            await trio.sleep(1 / FRAMES_PER_SECOND)
            deadline = self.session.next_tick(trio.current_time())
            with trio.move_on_at(math.inf if deadline is None else deadline):
                await self._changed.wait()
            self._changed = trio.Event()

    async def _follow_resizes(self) -> None:
        with trio.open_signal_receiver(signal.SIGWINCH, signal.SIGCONT) as signals:
            async for number in signals:
                if number == signal.SIGCONT:
                    # Back from Ctrl+Z: the shell had the terminal meanwhile.
                    self.terminal.resume()
                self._resize()
                self._touch()

    # -- helpers -------------------------------------------------------------------

    def _resize(self) -> None:
        columns, rows = self.terminal.size()
        self.painter.resize(columns, rows)

    # Ctrl+C waits for the next checkpoint: a frame is never cut in half.
    @trio.lowlevel.enable_ki_protection
    def _draw(self) -> None:
        if self._closed:
            return
        if not self.terminal.interactive:
            self._print_news()
            return
        now = trio.current_time()
        self._ring_if_low(now)
        frame = compose(
            self.session,
            now,
            self.terminal.style,
            self.editor.text,
            (self.painter.columns, self.painter.rows),
        )
        column = len(prompt_text(self.session)) + self.editor.cursor
        self.terminal.write(self.painter.paint(frame, column))

    def _ring(self) -> None:
        if self.bell and self.terminal.interactive and not self._closed:
            self.terminal.write("\a")

    def _ring_if_low(self, now: float) -> None:
        """Rings once when the person's running clock goes under LOW_TIME seconds."""
        if not self.session.is_running(self.seat):
            return
        low = self.session.clock(self.seat, now) < LOW_TIME
        if low and not self._low_time_rung:
            self._ring()
        self._low_time_rung = low

    def _queue(self, outgoing: list[Outgoing]) -> None:
        for item in outgoing:
            self._outbox_send.send_nowait(item)

    def _touch(self) -> None:
        self._changed.set()
        if not self.terminal.interactive:
            self._print_news()

    def _print_news(self) -> None:
        """Without a terminal: prints new messages and feedback as lines."""
        session = self.session
        fresh = min(session.logged - self._printed_log, len(session.log))
        for entry in session.log[len(session.log) - fresh :] if fresh else []:
            # The result is the command's last word, not the player's.
            if entry.style != "result":
                self.terminal.write(entry.text + "\n")
        self._printed_log = session.logged
        if session.help_open:
            session.help_open = False
            for text in HELP_LINES:
                self.terminal.write(text + "\n")
        if session.feedback is not self._printed_feedback:
            self._printed_feedback = session.feedback
            if session.feedback.style != "result":
                self.terminal.write(session.feedback.text + "\n")

    def _print_boards(self) -> None:
        frame = compose(self.session, trio.current_time(), self.terminal.style)
        for line in frame[1:14]:
            self.terminal.write(plain(line) + "\n")


def _move_line(played: PlayedMove) -> str:
    clock = "" if played.clock is None else f" ({format_clock(played.clock)} left)"
    return f"{played.board.value}: {played.seat} plays {display_san(played.san)}{clock}"
