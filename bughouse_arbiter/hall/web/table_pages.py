"""A lobby table's page: ``serve --web``'s live page sessions, on the table's socket.

Each ``TableHost`` has one ``TablePages``: the live page's front end
(``serve.live_page.WebFrontEnd``: its snapshot view, its pools of pages,
its ``PageSession`` per page with ``WebPlayer`` and ``MemoryLink`` at a
seat) fed by the host's ``HallTable``, so a page that watches or sits at a
lobby table behaves exactly as on ``serve --web``. The table adds:

- table chat: page -> ``{"type": "chat", "text": ...}``; every page of the
  table gets ``{"type": "chat", "from": NAME, "text": ..., "at": SECONDS}``
  (NAME: the lobby name of a seated player, ``watcher N`` for others),
  except a page that muted NAME (``{"type": "mute", "name": NAME}``, or
  the lobby's per-table mute of that player). Partner messages stay
  ``tell``: the team's alone.
- ``{"type": "rematch"}`` from a seated page: that player asks for one.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import trio

from ...lobby.chat import ChatRate, clean_text
from ...net.limits import Limits
from ...serve.live_page import (
    PageSession,
    PageSocket,
    WebFrontEnd,
    page_message,
)

#: Chat lines a page may have waiting to go out before the oldest are dropped.
OUTBOX = 64
_TABLE_TYPES = ("chat", "rematch", "mute", "unmute")


class TablePages(WebFrontEnd):
    """The pages of one table (see the module docstring)."""

    def __init__(
        self,
        table: Any,
        limits: Limits,
        *,
        speaker_of: Callable[[TablePageSession], str | None],
        rematch: Callable[[str], str | None],
        muted: Callable[[str, str], bool],
        watchers: Callable[[int], None],
    ) -> None:
        super().__init__("127.0.0.1", 0, limits)
        self.table = table
        self.speaker_of = speaker_of
        self.rematch = rematch
        self.muted = muted
        self.watchers = watchers
        self.chat_rate = ChatRate()
        self._numbers = itertools.count(1)
        self.observe(table)

    def new_session(self, table: Any, socket: PageSocket, peer: str) -> TablePageSession:
        """A ``TablePageSession``, numbered (``WebFrontEnd.page`` runs it)."""
        session = TablePageSession(self, table, socket, peer)
        session.number = next(self._numbers)
        return session

    def page_closed(self) -> None:
        self.count()

    def count(self) -> None:
        """Tells the lobby how many pages watch (seated pages do not count)."""
        self.watchers(sum(1 for s in self._sessions if s.player is None))

    def say(self, speaker: str, text: str, now: float) -> None:
        message = {"type": "chat", "from": speaker, "text": text, "at": round(now, 1)}
        for session in list(self._sessions):
            if isinstance(session, TablePageSession) and not session.mutes_speaker(speaker):
                session.post(message)


class TablePageSession(PageSession):
    """A ``PageSession`` that also takes table chat, mutes and rematch asks."""

    front: TablePages

    def __init__(self, front: TablePages, table: Any, socket: PageSocket, peer: str) -> None:
        super().__init__(front, table, socket, peer)
        self.number = 0
        self.muting: set[str] = set()
        self._out, self._pending = trio.open_memory_channel[dict[str, Any]](math.inf)
        self._queued = 0

    def mutes_speaker(self, speaker: str) -> bool:
        name = self.front.speaker_of(self)
        listener = name if name is not None else ""
        return speaker in self.muting or (bool(listener) and self.front.muted(listener, speaker))

    def post(self, message: dict[str, Any]) -> None:
        if self._queued >= OUTBOX:
            return  # a page that does not read misses chat; it is closed by the pings
        self._queued += 1
        self._out.send_nowait(message)

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._pump)
            self.front.count()
            try:
                await super().run()
            finally:
                nursery.cancel_scope.cancel()

    async def _pump(self) -> None:
        import json

        async for message in self._pending:
            self._queued -= 1
            await self.socket.send(json.dumps(message))

    async def _take(self, nursery: trio.Nursery, seat: Any, message: dict[str, Any]) -> None:
        await super()._take(nursery, seat, message)
        self.front.count()

    async def _on_message(self, nursery: trio.Nursery, text: str) -> None:
        message = page_message(text)
        if isinstance(message, str) or message["type"] not in _TABLE_TYPES:
            await super()._on_message(nursery, text)
            return
        kind = message["type"]
        speaker = self.front.speaker_of(self)
        if kind == "rematch":
            if speaker is None or self.player is None:
                await self._error("only a seated player may ask for a rematch")
                return
            problem = self.front.rematch(speaker)
            if problem:
                await self._error(problem)
            return
        if kind in ("mute", "unmute"):
            name = message.get("name")
            if not isinstance(name, str) or not name:
                await self._error(f"{kind} needs a name")
                return
            (self.muting.add if kind == "mute" else self.muting.discard)(name[:40])
            return
        said = clean_text(message.get("text"))
        if said is None:
            await self._error("a chat message needs some text")
            return
        who = speaker if speaker is not None else f"watcher {self.number}"
        now = trio.current_time()
        if not self.front.chat_rate.allow(who, now):
            await self._error("too many chat messages: wait a moment")
            return
        self.front.say(who, said, now)
