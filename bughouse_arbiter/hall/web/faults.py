"""Storage faults on the web: a page whose database is locked elsewhere, read-only
or on a full disk answers 503 with one line, never a 500 with a traceback.

``StorageFaults`` is ASGI middleware around the site's routes (``Site.middleware``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ...storage import StoreError

#: What a visitor reads when the database cannot be used just now.
UNAVAILABLE = "the server's storage is unavailable just now; try again in a minute\n"


class StorageFaults:
    """See the module docstring; ``note`` logs each fault once, in one line."""

    def __init__(self, app: Any, note: Callable[[str], None] | None = None) -> None:
        self.app = app
        self.note = note

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except (sqlite3.Error, StoreError) as exc:
            if self.note is not None:
                self.note(f"storage fault on {scope.get('path', '?')}: {exc}")
            if started:
                raise
            body = UNAVAILABLE.encode()
            await send({
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"retry-after", b"60"),
                ],
            })
            await send({"type": "http.response.body", "body": body})
