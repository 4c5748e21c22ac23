"""How a BPGN file says its game ended, in every dialect we have seen.

Our own files say it in tags (``Termination``, ``TerminationSeat``...);
others in the closing comment (``{X resigns}``, ``{Game aborted ...}``),
tinyChessServer in ``[ResultComment]``, chess.com in ``[Termination]``.
``claim_of`` turns any of them into a ``Claim`` naming the termination and,
when it can, the seat it is about. Pure.
"""

from __future__ import annotations

import re

import attrs

from ..core.model import BoardId, Outcome, Result, Seat, Team, Termination
from .read import BpgnGame


@attrs.frozen(kw_only=True)
class Claim:
    """How the file says the game ended (tags or closing comment)."""

    text: str
    termination: Termination | None = None
    seat: Seat | None = None
    board: BoardId | None = None
    draw: bool = False


_SEAT_WORDS = {
    "a": Seat.A_BLACK,
    "A": Seat.A_WHITE,
    "b": Seat.B_BLACK,
    "B": Seat.B_WHITE,
}
_PATTERNS: list[tuple[re.Pattern[str], Termination | None, bool]] = [
    (re.compile(r"^(?P<who>.+?) checkmated\b", re.I), Termination.CHECKMATE, False),
    (re.compile(r"^(?P<who>.+?) resigns?\b", re.I), Termination.RESIGNATION, False),
    (
        re.compile(r"^(?P<who>.+?) (?:forfeits on time|ran out of time)", re.I),
        Termination.FLAG,
        False,
    ),
    (
        re.compile(r"^(?P<who>.+?) (?:forfeits by disconnection|disconnected)", re.I),
        Termination.LEFT,
        False,
    ),
    (re.compile(r"aborted", re.I), Termination.ABORTED, False),
    (re.compile(r"repetition", re.I), Termination.REPETITION, True),
    (re.compile(r"agreement|drawn by mutual", re.I), Termination.AGREEMENT, True),
    (re.compile(r"^(?P<who>.+?) won by checkmate", re.I), Termination.CHECKMATE, False),
    (re.compile(r"drawn|draw\b", re.I), None, True),
]
_TINY = re.compile(
    r"on board (?P<board>[ab]) \[[^\]]*\]: (?P<color>white|black)"
    r"(?: on board [ab])?:? (?P<rest>.*)",
    re.I,
)


def claim_of(game: BpgnGame) -> Claim | None:
    """How the game ended, from our tags, the closing comment or a writer's tag."""
    termination = game.tag("TerminationReason")
    if termination is not None and game.tag("Termination"):
        try:
            kind = Termination(game.tag("Termination") or "")
        except ValueError:
            kind = None
        if kind is not None:
            seat_text = game.tag("TerminationSeat")
            board_text = game.tag("TerminationBoard")
            return Claim(
                text=termination,
                termination=kind,
                seat=_parse_seat(seat_text),
                board=BoardId.parse(board_text) if board_text in ("A", "B") else None,
                draw=game.result_tag == Result.DRAW.value,
            )
    for text in (game.closing, game.tag("ResultComment"), game.tag("Termination")):
        if text:
            claim = _claim_from_text(game, text.strip())
            if claim is not None:
                return claim
    return None


def recorded_outcome(game: BpgnGame) -> Outcome | None:
    """The outcome exactly as our own tags record it (None for other writers' files)."""
    reason, kind_text = game.tag("TerminationReason"), game.tag("Termination")
    if reason is None or kind_text is None:
        return None
    try:
        kind = Termination(kind_text)
        result = Result(game.result_tag or "*")
    except ValueError:
        return None
    board_text = game.tag("TerminationBoard")
    return Outcome(
        termination=kind,
        winner=result.winner,
        reason=reason,
        board=BoardId.parse(board_text) if board_text in ("A", "B") else None,
        seat=_parse_seat(game.tag("TerminationSeat")),
        aborted=kind is Termination.ABORTED,
    )


def _parse_seat(text: str | None) -> Seat | None:
    if not text:
        return None
    try:
        return Seat.parse(text)
    except ValueError:
        return None


def _claim_from_text(game: BpgnGame, text: str) -> Claim | None:
    tiny = _TINY.search(text)
    if tiny:
        loser = Seat.of(BoardId.parse(tiny.group("board")), tiny.group("color").lower() == "white")
        rest = f"X {tiny.group('rest')}"
        for pattern, kind, draw in _PATTERNS:
            if pattern.search(rest):
                return Claim(text=text, termination=kind, seat=loser, board=loser.board, draw=draw)
    for pattern, kind, draw in _PATTERNS:
        found = pattern.search(text)
        if found is None:
            continue
        seats: list[Seat] = []
        if "who" in pattern.groupindex:
            seats = seats_named(game, found.group("who"))
            if "won by" in text.lower():
                # The winner is named: the loser sits on the other team.
                seats = [s.opponent for s in seats]
        seat = seats[0] if len(seats) == 1 else None
        return Claim(
            text=text,
            termination=kind,
            seat=seat,
            board=seat.board if seat else None,
            draw=draw,
        )
    return None


def seats_named(game: BpgnGame, who: str) -> list[Seat]:
    """The seats a claim's words name: ``Player a``, ``WA``, a handle, a team name."""
    who = who.strip()
    player = re.fullmatch(r"player (\w)", who, re.I)
    if player and player.group(1) in _SEAT_WORDS:
        return [_SEAT_WORDS[player.group(1)]]
    named_seat = _parse_seat(who)
    if named_seat is not None:
        return [named_seat]
    named = [s for s in Seat if (game.name_of(s) or "").lower() == who.lower()]
    if named:
        return named
    for tag, color in (("WhiteTeam", True), ("BlackTeam", False)):
        if (game.tag(tag) or "").lower() == who.lower():
            team = Team.ONE if color else Team.TWO
            return list(team.seats)
    return []
