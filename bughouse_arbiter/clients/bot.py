"""A bot in the line lobby: one engine, game after game, until told to stop.

``bughouse connect --server URL --bot NAME -- SPEC`` joins the lobby as a
bot (protocol.md §12.7) and starts its engine once. Each time the server
seats it (``seated`` ... ``unseated``) the game's lines go to the engine: a
native engine's lines are pumped both ways, a ``uci:`` / ``xboard:``
engine's adapter player is driven by ``driver.PlayerDriver``; between games
nothing reaches the engine. Every seating begins with the handshake
(``bug 1``); a native engine answers the first one and the pump answers the
later ones with that same answer, so the engine's session simply goes on
with the next ``newgame`` (protocol.md §3: ``ready`` → ``playing``).

``--games N`` ends it after N games; the first Ctrl+C ends it after the game
being played (or at once when idle), a second one (or SIGTERM / SIGHUP) at
once. To end, it says ``quit`` to the lobby (at the start of its last game,
so no next game is offered) and stops its engine once the server has let it go.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import AsyncIterator, Awaitable, Callable

import trio

from ..errors import EngineFailed
from ..exits import FAILED, OK, by_signal
from ..players.base import Player
from ..players.process import EngineProcess
from ..protocol import RawLine
from ..protocol.lobby_lines import Notice, Seated, Unseated, parse_server_line
from .bridge import drive_over_link
from .link import ClientLink

#: Seconds the server has to close the link once ``quit`` was sent while idle.
QUIT_WAIT = 10.0
#: The engine's lines that answer ``bug 1`` (kept to answer the later ones).
HANDSHAKE_WORDS = frozenset({"id", "option", "feature", "bugok"})

Say = Callable[[str], None]


class BotLines:
    """The lobby link seen as one stream of game lines, game after game.

    Iterating yields the lines of every seated game (``seated`` and
    ``unseated`` themselves, and the lobby's lines between games, are not
    yielded) until the server closes the link. The bot says ``quit`` as the
    last game it wants begins (``--games N``) or at the first Ctrl+C; the
    server then ends the game being played, sends ``unseated`` and closes.
    """

    def __init__(self, link: ClientLink, games: int | None, say: Say) -> None:
        self.link = link
        self.games = games
        self.say = say
        self.played = 0
        self.seated = False
        self.in_game = False
        #: ``quit`` was sent: the end of the link is the end asked for.
        self.quit_sent = False
        #: The server ended the link without being asked.
        self.closed = False

    async def quit(self) -> None:
        """Asks the server to let the bot go (after the game being played)."""
        if self.quit_sent:
            return
        self.quit_sent = True
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.link.send("quit")

    async def __aiter__(self) -> AsyncIterator[RawLine]:
        while True:
            line = await self._receive()
            if line is None:
                self.closed = not self.quit_sent
                return
            parsed = parse_server_line(line.text)
            if not self.seated:
                match parsed:
                    case Seated(table=table, seat=seat):
                        self.seated = True
                        self.say(f"seated at {table} as {seat}")
                    case Notice(kind=kind, text=text):
                        self.say(f"{kind}: {text[:200]}")
                continue
            if isinstance(parsed, Unseated):
                self.seated = self.in_game = False
                continue
            if isinstance(parsed, Notice):  # the lobby's, between games: not the engine's
                self.say(f"{parsed.kind}: {parsed.text[:200]}")
                continue
            word = line.text.split(maxsplit=1)[0] if line.text.strip() else ""
            if word == "newgame":
                self.in_game = True
                if self.games is not None and self.played + 1 >= self.games:
                    await self.quit()  # this is the last game: leave when it ends
            yield line
            if word == "gameover" and self.in_game:
                self.in_game = False
                self.played += 1
                self.say(f"game {self.played} over: {line.text.strip()[9:][:200]}")

    async def _receive(self) -> RawLine | None:
        if self.quit_sent and not self.seated:
            # Only the server's goodbye is due; do not wait for ever. (Seated, the
            # game about to begin may wait for the other players a while.)
            with trio.move_on_after(QUIT_WAIT):
                return await self.link.receive()
            return None
        return await self.link.receive()


async def watch_signals(lines: BotLines, now: trio.CancelScope, say: Say) -> signal.Signals | None:
    """First Ctrl+C: leave after the game; a second one, SIGTERM or SIGHUP: cancel ``now``.

    Returns the signal that stopped everything at once (it runs until cancelled)."""
    wanted = [
        s
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        if signal.getsignal(s) != signal.SIG_IGN
    ]
    with trio.open_signal_receiver(*wanted) as received:
        async for number in received:
            sig = signal.Signals(number)
            if sig == signal.SIGINT and not lines.quit_sent:
                say(
                    "Ctrl+C: leaving after this game (Ctrl+C again to stop now)"
                    if lines.seated
                    else "Ctrl+C: leaving the lobby"
                )
                await lines.quit()
                continue
            say(f"{'Ctrl+C' if sig == signal.SIGINT else sig.name}: stopping now")
            now.cancel()
            return sig
    return None


async def run_bot(
    link: ClientLink,
    games: int | None,
    play: Callable[[BotLines], Awaitable[int]],
    say: Say,
) -> int:
    """Runs ``play(lines)`` (plays every game; its exit status) under the signal watch."""
    lines = BotLines(link, games, say)
    stopped: list[signal.Signals] = []
    status = OK
    now = trio.CancelScope()
    async with trio.open_nursery() as nursery:

        async def signals() -> None:
            sig = await watch_signals(lines, now, say)
            if sig is not None:
                stopped.append(sig)

        nursery.start_soon(signals)
        with now:
            status = await play(lines)
        nursery.cancel_scope.cancel()
    with trio.CancelScope(shield=True):
        await link.aclose()
    if stopped:
        return by_signal(stopped[0])
    if status == OK and lines.closed:
        say("the server closed the connection")
        return FAILED
    if status == OK:
        say(f"done: {lines.played} game{'s' if lines.played != 1 else ''} played")
    return status


async def pump_native(lines: BotLines, engine: EngineProcess, say: Say) -> int:
    """Joins a native engine to the seated games (see the module docstring)."""
    link = lines.link
    send, receive = trio.open_memory_channel[list[str]](1000)
    handshake: list[str] = []
    answered = False  # the engine's first handshake is complete (``bugok`` seen)
    done = False  # the games are over: the engine is told to quit
    status = OK

    def on_lines(got: list[RawLine], _at: float) -> None:
        nonlocal answered
        texts = [line.text for line in got]
        if not answered:
            for text in texts:
                word = text.split(maxsplit=1)[0] if text.split() else ""
                if word in HANDSHAKE_WORDS:
                    handshake.append(text)
                    answered = answered or word == "bugok"
        if lines.seated:
            # A server that does not read loses lines rather than growing this queue.
            with contextlib.suppress(trio.WouldBlock):
                send.send_nowait(texts)

    async with trio.open_nursery() as nursery:
        try:
            await engine.start(nursery, on_lines=on_lines)
        except EngineFailed as exc:
            say(f"error: {exc}")
            return FAILED

        async def to_server() -> None:
            async for batch in receive:
                try:
                    await link.send_many(batch)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return

        async def engine_end() -> None:
            nonlocal status
            await engine.wait_eof()
            if done:
                return  # told to quit
            with trio.move_on_after(1):
                await engine.wait()
            say(f"the engine {engine.exit_description()}")
            status = FAILED
            nursery.cancel_scope.cancel()

        nursery.start_soon(to_server)
        nursery.start_soon(engine_end)
        async for line in lines:
            if line.text.split()[:1] == ["bug"] and answered:
                send.send_nowait(list(handshake))
                continue
            engine.send(line.text)
        with trio.move_on_after(1):  # the last answers go out
            while receive.statistics().current_buffer_used:
                await trio.sleep(0.01)
        done = True
        await engine.aclose("quit")  # while its writer still runs, so it hears quit
        nursery.cancel_scope.cancel()
    with trio.CancelScope(shield=True):
        await engine.aclose(None)  # stopped early (the engine failed, a second Ctrl+C)
    return status


async def drive_player(lines: BotLines, player: Player, say: Say) -> int:
    """Plays the seated games with a local ``Player`` (an adapter engine, the console)."""
    status, _ = await drive_over_link(
        lines.link, player, aiter(lines), say, sending=lambda: lines.seated
    )
    return status
