"""The values the store takes and gives: accounts, games started and finished,
rating changes, archive rows and queries."""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..core.model import Outcome, Seat
from ..errors import UsageError
from ..ratings import PlayerRating

#: Who sits at a seat: a guest (a name only), a person's account, a bot's
#: account, or the server's own engine. Only accounts and bots are rated.
KINDS = ("guest", "account", "bot", "computer")
RATED_KINDS = frozenset({"account", "bot"})
#: A game's state in the archive.
STATUSES = ("playing", "finished", "aborted")
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


class StoreError(UsageError):
    """A database that cannot be used (not a database, newer than this program, locked),
    or a request it refuses (a name taken, a game recorded twice): one line."""


@attrs.frozen
class SeatPlayer:
    """The player at one seat of a game: name and kind (``KINDS``)."""

    name: str
    kind: str = attrs.field(validator=attrs.validators.in_(KINDS))


@attrs.frozen(kw_only=True)
class Account:
    """A person's or a bot's account (``kind`` "account" or "bot") and its rating."""

    id: int
    name: str
    kind: str
    rating: PlayerRating
    created: float
    revoked: bool = False


@attrs.frozen(kw_only=True)
class GameStart:
    """A game as it starts: marked in progress, so a server that dies before it
    ends records it as aborted on restart. ``key`` is the server's own id of the
    game (unique); ``header`` its BPGN tag section (``BpgnRecorder.header_text()``)."""

    key: str
    table: str
    players: Mapping[Seat, SeatPlayer]
    time_control: str
    rules: str
    rated: bool
    started: float
    header: str

    def finish(self, outcome: Outcome, *, ended: float, bpgn: str) -> FinishedGame:
        """This game as it ended with ``outcome`` at ``ended``, its whole BPGN ``bpgn``."""
        return FinishedGame(
            key=self.key,
            table=self.table,
            players=self.players,
            time_control=self.time_control,
            rules=self.rules,
            rated=self.rated,
            started=self.started,
            ended=ended,
            result=outcome.result.value,
            termination=outcome.termination.value,
            reason=outcome.reason,
            bpgn=bpgn,
        )


@attrs.frozen(kw_only=True)
class FinishedGame:
    """A game as it ended: what ``GameStart`` said, the result (``RESULTS``), its
    termination and reason, when it ended, and its whole BPGN."""

    key: str
    table: str
    players: Mapping[Seat, SeatPlayer]
    time_control: str
    rules: str
    rated: bool
    started: float
    ended: float
    result: str = attrs.field(validator=attrs.validators.in_(RESULTS))
    termination: str
    reason: str
    bpgn: str
    #: The seats that made a move (None: not known); ``ratings.policy`` reads it.
    moved: frozenset[Seat] | None = None


@attrs.frozen(kw_only=True)
class RatingChange:
    """What one rated game did to one player's rating."""

    seat: Seat
    name: str
    before: PlayerRating
    after: PlayerRating


@attrs.frozen(kw_only=True)
class ArchivedPlayer:
    """One seat of an archived game: who sat there and, if it was rated, the rating
    before and after (None otherwise)."""

    name: str
    kind: str
    rating_before: float | None = None
    rating_after: float | None = None


@attrs.frozen(kw_only=True)
class ArchivedGame:
    """One game of the archive (everything but its BPGN: ``Store.game_bpgn``)."""

    id: int
    key: str
    table: str
    status: str
    players: Mapping[Seat, ArchivedPlayer]
    time_control: str
    rules: str
    rated: bool
    started: float
    ended: float | None
    result: str
    termination: str | None
    reason: str | None


@attrs.frozen(kw_only=True)
class GameQuery:
    """An archive search: by player name (any seat), end time in [since, until)
    (seconds since the epoch), result; newest first, ``limit`` from ``offset``."""

    player: str | None = None
    since: float | None = None
    until: float | None = None
    result: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.in_(RESULTS))
    )
    offset: int = attrs.field(default=0, validator=attrs.validators.ge(0))
    limit: int = attrs.field(
        default=50, validator=[attrs.validators.ge(1), attrs.validators.le(500)]
    )


@attrs.frozen(kw_only=True)
class HistoryPoint:
    """A player's rating after one rated game."""

    game_id: int
    ended: float
    rating: float
    rd: float
