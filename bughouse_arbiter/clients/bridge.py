"""A local ``Player`` (an adapter engine, the console) seated at a remote table's seat.

``bughouse connect`` seats a UCI or xboard engine so, and ``bughouse play
--connect`` the console: the player is driven from the seat's protocol.md
lines (``driver.PlayerDriver``) over a ``client`` link until the game ends.
``drive_over_link`` is that drive, for a lobby bot's games too (``bot``).
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
from ..players.driver import PlayerDriver
from ..protocol import RawLine
from .link import ClientLink, ConnectRefused, open_seat

__all__ = ["bridge_player", "check_credentials", "drive_over_link", "lines_of", "say"]


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
    try:
        status, driver = await drive_over_link(link, make_player(), lines_of(link), say)
    finally:
        with trio.CancelScope(shield=True):
            await link.aclose()
    if not driver.quit and status == OK:
        say("the server closed the connection")
        status = FAILED
    return status


async def drive_over_link(
    link: ClientLink,
    player: Player,
    lines: AsyncIterator[RawLine],
    say: Callable[[str], None],
    *,
    sending: Callable[[], bool] = lambda: True,
) -> tuple[int, PlayerDriver]:
    """Drives ``player`` from the server's ``lines``, its answers sent on ``link``
    while ``sending()``, until the lines end; then closes the player.

    Returns OK, or FAILED once the player failed (said in one line), and the driver.
    """
    send, receive = trio.open_memory_channel[list[str]](math.inf)

    def out(batch: list[str]) -> None:
        if sending():
            send.send_nowait(batch)

    driver = PlayerDriver(player, out)
    status = OK
    async with trio.open_nursery() as nursery:

        async def to_server() -> None:
            async for batch in receive:
                try:
                    await link.send_many(batch)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return

        nursery.start_soon(to_server)
        try:
            await driver.run(nursery, lines)
        except EngineFailed as exc:
            say(f"error: {exc}")
            status = FAILED
        finally:
            with trio.CancelScope(shield=True):
                await player.aclose()
                with trio.move_on_after(1):  # the last answers (a resignation) go out
                    while receive.statistics().current_buffer_used:
                        await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    return status, driver


async def lines_of(link: ClientLink) -> AsyncIterator[RawLine]:
    """The lines the server sends, until it closes the link."""
    while (line := await link.receive()) is not None:
        yield line
