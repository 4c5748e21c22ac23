"""``SizedCache``: the newest answers kept, up to a number of bytes (least recently used
goes first), for work whose answer never changes (a finished game's replay page)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class SizedCache(Generic[K]):
    """Texts by key, ``limit`` characters in all at most (one bigger than it is not kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.hits = 0
        self._texts: OrderedDict[K, str] = OrderedDict()

    def get(self, key: K) -> str | None:
        text = self._texts.get(key)
        if text is not None:
            self._texts.move_to_end(key)
            self.hits += 1
        return text

    def put(self, key: K, text: str) -> None:
        if len(text) > self.limit:
            return
        old = self._texts.pop(key, None)
        if old is not None:
            self.size -= len(old)
        self._texts[key] = text
        self.size += len(text)
        while self.size > self.limit:
            _, gone = self._texts.popitem(last=False)
            self.size -= len(gone)

    def __len__(self) -> int:
        return len(self._texts)
