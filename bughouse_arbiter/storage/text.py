"""The BPGN the store writes itself: an interrupted game's, recorded as aborted."""

from __future__ import annotations

from ..bpgn.notation import escape_tag


def aborted_bpgn(header: str, reason: str) -> str:
    """``header`` (a game's tag section with ``[Result "*"]``, as it started)
    closed as an aborted game: termination tags, the reason as the closing
    comment, ``*``. ``bughouse replay --check`` re-judges it ``*`` too."""
    tags = header.rstrip("\n")
    comment = reason.replace("{", "(").replace("}", ")").replace("\n", " ")
    return (
        f'{tags}\n[Termination "aborted"]\n[TerminationReason "{escape_tag(reason)}"]\n\n'
        f"{{Game aborted: {comment}}} *\n"
    )
