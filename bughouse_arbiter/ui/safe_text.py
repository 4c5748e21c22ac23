"""Text from outside made safe to show on the operator's terminal.

Engine names, stderr lines, move text an engine sent, names and messages
read from BPGN files (``%1B`` decodes to ESC) are all untrusted: a control
character in them could move the cursor, clear the screen or set the
window title. ``printable`` escapes every such character visibly (``\\x1b``,
``\\u202e``) and cuts very long text; everything this package shows passes
through it (``render``, the match display, the replay display, error lines).
"""

from __future__ import annotations

import re

#: C0 and C1 controls, DEL, and the invisible format characters that reorder
#: or hide text (bidi overrides and isolates, zero-width marks, line and
#: paragraph separators, the byte-order mark).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)

#: The longest text shown for one untrusted string (characters).
MAX_SHOWN = 500


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, limit: int | None = MAX_SHOWN) -> str:
    """``text`` with every control or invisible format character written as
    an escape (``\\x1b``, ``\\x07``, ``\\u202e``), cut to ``limit`` characters
    (then ending in ``…``; None: no cut). Plain text comes back unchanged."""
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)


def printable_lines(text: str, limit: int | None = None) -> str:
    """Like ``printable`` but keeps line feeds (for multi-line reports)."""
    if "\n" not in text:  # one line (a move's, say): no split and join
        return printable(text, limit)
    return "\n".join(printable(line, limit) for line in text.split("\n"))
