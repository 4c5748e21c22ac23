"""Small pieces of BPGN notation shared by the writer and the reader.

Our extensions live in PGN-style comment commands, ``{[%name value]}``, which
every BPGN reader skips as a comment. Free text inside them (partner messages,
reasons) is percent-escaped so that it can never close a comment early.
"""

from __future__ import annotations

import math

from ..core.model import Seat, Termination

#: Seats in the order BPGN tags name them.
SEAT_TAGS: dict[Seat, str] = {
    Seat.A_WHITE: "WhiteA",
    Seat.A_BLACK: "BlackA",
    Seat.B_WHITE: "WhiteB",
    Seat.B_BLACK: "BlackB",
}

_ESCAPES = {"%": "%25", "{": "%7B", "}": "%7D", "\n": "%0A", "\r": "%0D", "]": "%5D"}


def escape(text: str) -> str:
    """Text that is safe inside ``{[%cmd ...]}``: ``% { } ] CR LF`` percent-escaped."""
    return "".join(_ESCAPES.get(char, char) for char in text)


def unescape(text: str) -> str:
    """Undoes ``escape`` (a stray ``%`` that starts no escape is kept as is)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%" and _is_hex(text[i + 1 : i + 3]):
            out.append(chr(int(text[i + 1 : i + 3], 16)))
            i += 3
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _is_hex(pair: str) -> bool:
    return len(pair) == 2 and all(c in "0123456789abcdefABCDEF" for c in pair)


def seconds(value: float) -> str:
    """Seconds with exactly three decimals (milliseconds), as our files write them."""
    if not math.isfinite(value):
        raise ValueError(f"cannot write {value!r} seconds")
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def escape_tag(value: str) -> str:
    """A PGN tag value: backslash and quote escaped, line breaks made spaces."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def unescape_tag(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == "\\" and i + 1 < len(value):
            out.append(value[i + 1])
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


_VERBS = {
    Termination.CHECKMATE: "checkmated",
    Termination.RESIGNATION: "resigns",
    Termination.FLAG: "forfeits on time",
    Termination.ILLEGAL_MOVE: "forfeits by an illegal move",
    Termination.LEFT: "forfeits by leaving",
}


def closing_phrase(
    termination: Termination, seat: Seat | None, reason: str, *, decisive: bool
) -> str:
    """The closing comment's words: ``WA checkmated``, ``BB resigns`` or the reason."""
    verb = _VERBS.get(termination)
    if decisive and seat is not None and verb is not None:
        return f"{seat.bpgn} {verb}"
    return reason
