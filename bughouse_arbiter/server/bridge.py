"""A local ``Player`` (an adapter engine, the console) seated at a remote table's seat.

``bughouse connect`` seats a UCI or xboard engine so, and ``bughouse play
--connect`` the console: the player is driven from the seat's protocol.md
lines (``driver.PlayerDriver``) over a ``client`` link until the game ends.
"""

from __future__ import annotations

import math
import ssl
from collections.abc import AsyncIterator, Callable

import trio

from ..environment import Environment
from ..errors import EngineFailed, UsageError
from ..exits import FAILED, OK, REFUSED
from ..players.base import Player
from ..protocol import RawLine
from .client import ClientLink, ConnectRefused, open_seat
from .driver import PlayerDriver

__all__ = ["bridge_player", "check_credentials", "lines_of", "say"]


def say(text: str) -> None:
    """One line on stderr, ``bughouse connect: TEXT``, made printable."""
    Environment.detect("connect").say(text)


def check_credentials(seat: str, token: str) -> None:
    """One word each, printable: what goes on the ``auth`` line."""
    for what, text in (("--seat", seat), ("--token", token)):
        if not text or len(text) > 200 or any(c.isspace() or not c.isprintable() for c in text):
            raise UsageError(f"{what} must be one printable word")


async def bridge_player(
    host: str,
    port: int,
    seat: str,
    token: str,
    make_player: Callable[[], Player],
    human: bool = False,
    tls: ssl.SSLContext | None = None,
) -> int:
    """Seats a local ``Player`` (adapter engine, console) at the remote seat until the end.

    ``human``: a person plays, so the table treats the seat as a person's; ``tls``:
    the server speaks TLS.
    """
    try:
        link = await open_seat(host, port, seat, token, human=human, tls=tls)
    except ConnectRefused as exc:
        say(f"error: {exc}")
        return REFUSED
    player = make_player()
    send, receive = trio.open_memory_channel[list[str]](math.inf)
    driver = PlayerDriver(player, send.send_nowait)
    status = OK
    async with trio.open_nursery() as nursery:

        async def to_server() -> None:
            async for lines in receive:
                try:
                    await link.send_many(lines)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return

        nursery.start_soon(to_server)
        try:
            await driver.run(nursery, lines_of(link))
        except EngineFailed as exc:
            say(f"error: {exc}")
            status = FAILED
        finally:
            with trio.CancelScope(shield=True):
                await player.aclose()
                with trio.move_on_after(1):  # the last answers (a resignation) go out
                    while receive.statistics().current_buffer_used:
                        await trio.sleep(0.01)
                await link.aclose()
            nursery.cancel_scope.cancel()
    if not driver.quit and status == OK:
        say("the server closed the connection")
        status = FAILED
    return status


async def lines_of(link: ClientLink) -> AsyncIterator[RawLine]:
    """The lines the server sends, until it closes the link."""
    while (line := await link.receive()) is not None:
        yield line
