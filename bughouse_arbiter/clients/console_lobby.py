"""A person at the console in the line lobby: ``bughouse play --server URL``.

In the lobby the console is a plain prompt: what the person types goes to
the server as an idle command (protocol.md §12.7: ``tables``, ``create``,
``sit``, ``start``, ``queue``...), and the server's answers are printed as
they come (``tables`` as a table). Once the server seats the person
(``seated``) the game is played on the same screen as ``bughouse play``
(``ConsolePlayer`` driven by ``driver.PlayerDriver``); when it is over the
console shows the final screen until a key is pressed, stands up from the
table (``stand``, so no rematch is waited for) and the prompt comes back.
``quit`` (or the end of input) leaves the lobby.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Iterator
from typing import TextIO

import trio

from ..core.model import Seat
from ..players.console import ConsolePlayer, PipeTerminal, Terminal, TtyTerminal
from ..players.driver import PlayerDriver
from ..protocol import RawLine
from ..protocol.lobby_lines import (
    End,
    Notice,
    Seated,
    TableRow,
    Unseated,
    parse_server_line,
)
from ..ui.console_screen import Style
from ..ui.safe_text import printable
from .link import ClientLink

PROMPT = "lobby> "
#: Times ``stand`` is asked after a game (the table may not be between games yet),
#: and seconds to wait for ``unseated`` each time.
STAND_TRIES, STAND_WAIT = 10, 1.0
HELP = """\
In the lobby:
  tables                     the tables and who sits where
  create TC                  a new table (TC in seconds, e.g. 180+0)
  sit TABLE SEAT             sit down (SEAT: A-white, A-black, B-white, B-black)
  start TABLE                start it, computers filling the empty seats
  stand TABLE                stand up
  queue TC [partner NAME]    quick pairing, alone or with a partner
  leave                      out of the queue
  accept NAME / decline NAME an invitation
  help, quit"""


class LineInput:
    """What the person types in the lobby, a line at a time.

    On a terminal it reads a fresh descriptor of it (so trio's non-blocking mode
    does not leak into the shell, and a read is cancelled cleanly when a game
    begins); otherwise one reader task reads standard input for the whole run
    and the game's ``PipeTerminal`` reads from the same queue, so no line is lost.
    """

    def __init__(self, interactive: bool, stdin: TextIO) -> None:
        self.interactive = interactive
        self.stdin = stdin
        self._send, self._receive = trio.open_memory_channel[str](math.inf)
        self._buffer = b""
        self._started = False

    async def line(self) -> str | None:
        """The next line typed (None at the end of input)."""
        if self.interactive:
            return await self._tty_line()
        try:
            text = await self._receive.receive()
        except trio.EndOfChannel:
            return None
        return text

    def start(self, nursery: trio.Nursery) -> None:
        if not self.interactive and not self._started:
            self._started = True
            nursery.start_soon(self._read_pipe)

    async def _read_pipe(self) -> None:
        async with self._send:
            while True:
                read = self.stdin.readline
                text: str = await trio.to_thread.run_sync(read, abandon_on_cancel=True)
                if not text:
                    return
                await self._send.send(text.rstrip("\r\n"))

    async def _tty_line(self) -> str | None:
        fd = os.open(os.ttyname(self.stdin.fileno()), os.O_RDONLY | os.O_NOCTTY)
        stream = trio.lowlevel.FdStream(fd)
        try:
            while b"\n" not in self._buffer:
                chunk = await stream.receive_some(4096)
                if not chunk:
                    return None
                self._buffer += chunk
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()
        raw, self._buffer = self._buffer.split(b"\n", 1)
        return raw.decode(errors="replace")

    def terminal(self, style: Style, out: TextIO) -> PipeTerminal:
        """A game terminal for a pipe that reads from this input's queue."""
        return _QueueTerminal(style, out, self)


class _QueueTerminal(PipeTerminal):
    def __init__(self, style: Style, out: TextIO, source: LineInput) -> None:
        super().__init__(style, out)
        self._source = source

    async def read(self) -> bytes:
        text = await self._source.line()
        return b"" if text is None else (text + "\n").encode()


def table_lines(rows: list[TableRow]) -> list[str]:
    """The ``tables`` answer as the console shows it."""
    if not rows:
        return ["no tables yet: 'create 180+0' makes one, 'queue 180+0' finds a game"]
    out = []
    for row in rows:
        seats = "  ".join(f"{seat}: {name or '-'}" for seat, name in row.seats.items())
        out.append(f"{row.id:<5} {row.tc:<8} {row.state:<8} {seats}")
    return out


class ConsoleLobby:
    """The console's whole run in the lobby (see the module docstring)."""

    def __init__(
        self,
        link: ClientLink,
        name: str,
        *,
        interactive: bool,
        style: Style,
        out: TextIO,
        stdin: TextIO,
        bell: bool = False,
    ) -> None:
        self.link = link
        self.name = name
        self.interactive = interactive
        self.style = style
        self.out = out
        self.input = LineInput(interactive, stdin)
        self.bell = bell
        self.rows: list[TableRow] = []
        self.games = 0
        #: The server ended the link without being asked.
        self.closed = False
        #: ``quit`` was sent: the server's end of the link is the answer, not a loss.
        self._quitting = False
        self._unseated = False
        #: Lobby lines that came during a game, shown after it.
        self._later: list[str] = []

    def say(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(printable(text, 2000), file=self.out, flush=True)

    async def run(self) -> None:
        self.say(f"In the lobby as {self.name}. Type help for the commands.")
        await self.link.send("tables")
        async with trio.open_nursery() as nursery:
            self.input.start(nursery)
            while True:
                seated = await self._idle()
                if seated is None:
                    break
                await self._play(*seated)
            nursery.cancel_scope.cancel()

    # -- the lobby ----------------------------------------------------------------------

    async def _idle(self) -> tuple[str, Seat] | None:
        """Prompt and server lines until seated (the table and seat) or the end (None)."""
        seated: list[tuple[str, Seat]] = []
        async with trio.open_nursery() as nursery:

            async def typed() -> None:
                while True:
                    self._prompt()
                    text = await self.input.line()
                    if text is None or text.strip() == "quit":
                        # Set first: the server may close the link before the send returns.
                        self._quitting = True
                        await self._send("quit")
                        nursery.cancel_scope.cancel()
                        return
                    if text.strip() in ("help", "?"):
                        self.say(HELP)
                    elif text.strip():
                        await self._send(text.strip())

            nursery.start_soon(typed)
            while (line := await self.link.receive()) is not None:
                got = self._lobby_line(line)
                if got is not None:
                    seated.append(got)
                    break
            else:
                self.closed = not self._quitting
            nursery.cancel_scope.cancel()
        return seated[0] if seated else None

    def _prompt(self) -> None:
        if self.interactive:
            with contextlib.suppress(OSError, ValueError):
                self.out.write(PROMPT)
                self.out.flush()

    async def _send(self, text: str) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.link.send(text)

    def _lobby_line(self, line: RawLine) -> tuple[str, Seat] | None:
        parsed = parse_server_line(line.text)
        match parsed:
            case TableRow():
                self.rows.append(parsed)
            case End():
                rows, self.rows = self.rows, []
                self._show(table_lines(rows))
            case Notice(kind=kind, text=text):
                self._show([f"{kind}: {text}"])
            case Seated(table=table, seat=seat):
                try:
                    return table, Seat.parse(seat)
                except ValueError:
                    self._show([f"the server named a seat it has not: {seat}"])
        return None

    def _show(self, lines: list[str]) -> None:
        if self.interactive:
            self.out.write("\r\x1b[K")  # over the prompt
        for text in lines:
            self.say(text)
        self._prompt()

    # -- a game -------------------------------------------------------------------------

    async def _play(self, table: str, seat: Seat) -> None:
        self.say(f"Seated at {table} as {seat}.")
        with self._terminal() as terminal:
            player = ConsolePlayer(
                seat, terminal, name=self.name, keep_final_screen=True, bell=self.bell
            )
            send, receive = trio.open_memory_channel[list[str]](math.inf)
            driver = PlayerDriver(player, send.send_nowait)
            async with trio.open_nursery() as nursery:

                async def to_server() -> None:
                    async for batch in receive:
                        await self._send_many(batch)

                nursery.start_soon(to_server)
                self._unseated = False
                try:
                    await driver.run(nursery, self._game_lines())
                finally:
                    with trio.CancelScope(shield=True):
                        await player.aclose()
                        with trio.move_on_after(1):
                            while receive.statistics().current_buffer_used:
                                await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
            await player.hold_final_screen(f"game {self.games} at {table} is over")
        if not self._unseated and not self.closed:
            await self._stand(table)
        if self.closed:
            return
        self.say(f"Back in the lobby (the server keeps the games of table {table}).")
        later, self._later = self._later, []
        for text in later:
            self.say(text)
        await self._send("tables")

    async def _send_many(self, batch: list[str]) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.link.send_many(batch)

    async def _game_lines(self) -> AsyncIterator[RawLine]:
        """The seat's lines up to its ``gameover`` (or ``unseated``, or the end)."""
        while (line := await self.link.receive()) is not None:
            parsed = parse_server_line(line.text)
            if isinstance(parsed, Unseated):
                self._unseated = True
                return
            if isinstance(parsed, Notice):
                self._later.append(f"{parsed.kind}: {parsed.text}")
                continue
            yield line
            if line.text.split()[:1] == ["gameover"]:
                self.games += 1
                return
        self.closed = True

    async def _stand(self, table: str) -> None:
        """Stands up from ``table`` after its game, until the server says ``unseated``."""
        for _ in range(STAND_TRIES):
            await self._send(f"stand {table}")
            with trio.move_on_after(STAND_WAIT):
                while (line := await self.link.receive()) is not None:
                    parsed = parse_server_line(line.text)
                    if isinstance(parsed, Unseated):
                        return
                    if isinstance(parsed, Notice) and parsed.kind != "error":
                        self._later.append(f"{parsed.kind}: {parsed.text}")
                self.closed = True
                return

    @contextlib.contextmanager
    def _terminal(self) -> Iterator[Terminal]:
        if self.interactive:
            with TtyTerminal(self.style, self.out) as terminal:
                yield terminal
        else:
            yield self.input.terminal(self.style, self.out)


async def play_in_lobby(
    link: ClientLink,
    name: str,
    *,
    interactive: bool,
    style: Style,
    out: TextIO,
    stdin: TextIO,
    bell: bool = False,
) -> int:
    """Runs the console in the lobby until ``quit``; 0, or 1 if the server went away."""
    lobby = ConsoleLobby(
        link, name, interactive=interactive, style=style, out=out, stdin=stdin, bell=bell
    )
    try:
        await lobby.run()
    finally:
        with trio.CancelScope(shield=True):
            await link.aclose()
    if lobby.closed:
        lobby.say("the server closed the connection")
        return 1
    return 0
