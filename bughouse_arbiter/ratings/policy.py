"""Whether a finished game moves ratings: the one owner of that decision. Sans-IO.

A game is rated only when its table is rated, all four players are rated accounts
or bots, it has a result, every one of the four players made a move (a game
resigned, flagged or abandoned before that is *aborted*, as on chess sites), and
the same four accounts have not already played ``REPEAT_LIMIT`` rated games
together within ``REPEAT_WINDOW`` seconds (farming a throwaway account against
friends who resign at once gains nothing after the first few). See
``docs/ratings.md``.
"""

from __future__ import annotations

from collections.abc import Collection

import attrs

from ..core.model import Seat

#: Rated games the same four accounts may play together within ``REPEAT_WINDOW``.
REPEAT_LIMIT = 3
#: Seconds over which games between the same four accounts are counted.
REPEAT_WINDOW = 24 * 3600.0


@attrs.frozen
class RatingCall:
    """Whether a game is rated, and if not, why in one line."""

    rated: bool
    why: str = ""


def rating_call(
    *,
    table_rated: bool,
    all_rated_players: bool,
    result: str,
    moved: Collection[Seat] | None,
    repeats: int,
) -> RatingCall:
    """The decision (module docstring). ``moved`` is the seats that made a move
    (None: not known, as for games recorded by hand); ``repeats`` is how many rated
    games the same four accounts finished together within the window."""
    if not table_rated:
        return RatingCall(False, "the table is unrated")
    if not all_rated_players:
        return RatingCall(False, "not all four players are rated accounts")
    if result == "*":
        return RatingCall(False, "the game has no result")
    if moved is not None and set(moved) != set(Seat):
        return RatingCall(False, "aborted: not every player made a move")
    if repeats >= REPEAT_LIMIT:
        return RatingCall(
            False,
            f"the same four players already played {REPEAT_LIMIT} rated games"
            f" in {REPEAT_WINDOW / 3600:g} hours",
        )
    return RatingCall(True)
