"""Bughouse ratings: Glicko for a team game (``glicko``). Sans-IO: times are passed in.

See ``docs/ratings.md`` for the system, its formulas and why it was chosen.
"""

from __future__ import annotations

from .glicko import (
    DEFAULT_RATING,
    MAX_RD,
    MIN_RD,
    PROVISIONAL_RD,
    GlickoParams,
    Opponent,
    PlayerRating,
    TeamGame,
    glicko_update,
    rate_team_game,
)

__all__ = [
    "DEFAULT_RATING",
    "MAX_RD",
    "MIN_RD",
    "PROVISIONAL_RD",
    "GlickoParams",
    "Opponent",
    "PlayerRating",
    "TeamGame",
    "glicko_update",
    "rate_team_game",
]
