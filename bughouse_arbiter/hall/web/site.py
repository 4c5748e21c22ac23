"""The server's accounts and archive on the web, as one piece ``build_app`` mounts.

``Site(db, secret=..., tls=...)`` gives the routes (``accounts``:
register, log in, log out, the style; ``archive``: the leaderboard,
player pages, the archive and its downloads), the session middleware, and
``person``: who a lobby socket is (its account when logged in, else a
guest that may not take an account's name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...lobby.identity import Identity
from ...storage.aio import AsyncStore
from .accounts import Accounts
from .archive import ArchiveSite

if TYPE_CHECKING:
    from starlette.routing import BaseRoute


class Site:
    """See the module docstring."""

    def __init__(self, db: AsyncStore, *, secret: str, tls: bool = False) -> None:
        self.db = db
        self.accounts = Accounts(db, secret=secret, tls=tls)
        self.archive = ArchiveSite(db, self.accounts)

    def routes(self) -> list[BaseRoute]:
        return [*self.accounts.routes(), *self.archive.routes()]

    async def start(self) -> None:
        """Starts the page workers' processes (in a thread; the server goes on meanwhile)."""
        await self.archive.pages.start()

    def close(self) -> None:
        """Ends the page workers' processes (the server is stopping)."""
        self.archive.pages.close()

    def middleware(self) -> list[Any]:
        from starlette.middleware import Middleware

        from .faults import StorageFaults

        return [Middleware(StorageFaults), *self.accounts.middleware()]

    async def person(self, scope: Any, name: str) -> Identity:
        """The identity of a lobby socket (``scope``) whose hello says ``name``."""
        return await self.accounts.person(scope.get("session"), name)
