"""Chat policy: one clean line, bounded in length, a bounded rate per speaker."""

from __future__ import annotations

import attrs

#: Characters per chat message (after cleaning).
MAX_CHAT = 200
#: Messages per speaker: a burst of this many, then one every ``CHAT_EVERY`` seconds.
CHAT_BURST = 5
CHAT_EVERY = 2.0


def clean_text(text: object, limit: int = MAX_CHAT) -> str | None:
    """``text`` as one line of printable characters (runs of space made one), cut to
    ``limit``; None when nothing is left or it is not text."""
    if not isinstance(text, str):
        return None
    kept = "".join(c if c.isprintable() else " " for c in text[: limit * 4])
    line = " ".join(kept.split())[:limit]
    # A lone surrogate cannot be sent as UTF-8 anywhere: drop it.
    line = line.encode("utf-8", "ignore").decode("utf-8")
    return line or None


@attrs.define
class ChatRate:
    """A token bucket per speaker; times are passed in."""

    burst: int = CHAT_BURST
    every: float = CHAT_EVERY
    _tokens: dict[str, tuple[float, float]] = attrs.field(factory=dict)

    def allow(self, speaker: str, now: float) -> bool:
        """True (and counts it) if ``speaker`` may say something now; one bucket per
        name in any letter case, kept across reconnects."""
        speaker = speaker.casefold()
        self._prune(now)
        tokens, at = self._tokens.get(speaker, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + max(0.0, now - at) / self.every)
        if tokens < 1.0:
            self._tokens[speaker] = (tokens, now)
            return False
        self._tokens[speaker] = (tokens - 1.0, now)
        return True

    def forget(self, speaker: str) -> None:
        self._tokens.pop(speaker.casefold(), None)

    def _prune(self, now: float) -> None:
        """Drops the buckets full again (a new speaker's): memory stays bounded."""
        if len(self._tokens) < 1024:
            return
        full = self.burst * self.every
        for name, (tokens, at) in list(self._tokens.items()):
            if tokens + (now - at) / self.every >= self.burst or now - at >= full:
                del self._tokens[name]
