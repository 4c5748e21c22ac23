"""What a running tournament shows as games finish: per-pairing counts and trajectories (pure).

``LiveTally.add(job, report)`` takes each finished game in the order it
finished (a resume feeds the journal's games first). It keeps, per pairing,
W/L/D and the pentanomial counts of complete pairs (so the live status of
every pairing costs nothing to compute), the Elo ± and (for the SPRT's
pairing) LLR after each game as a ``Trajectory`` of at most ``MAX_POINTS``
points (an LLR costs milliseconds: each is computed when first shown, so a
resume feeding the journal's games pays only for the points kept), per
participant its time losses and the harness's delay, and the last
``RECENT`` games. Its memory does not grow with the number of games.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator

import attrs

from .jobs import DELAY_DIGITS, MatchJob, MatchReport
from .stats import Pentanomial, Sprt, Summary, Tally

#: The most points a trajectory keeps.
MAX_POINTS = 500
#: Finished games kept for the report page's table.
RECENT = 50


@attrs.frozen
class Point:
    """One sample: after ``games`` games, ``value`` within [low, high] (NaN: unknown)."""

    games: int
    value: float
    low: float = math.nan
    high: float = math.nan
    #: The pentanomial counts it is a function of (an LLR, computed when shown).
    penta: tuple[int, int, int, int, int] | None = None
    #: ... and the W/D/L counts (the bayesian model's).
    wdl: tuple[int, int, int] = (0, 0, 0)


class Trajectory:
    """A value after each game, thinned to at most ``limit`` points: every
    ``stride``-th sample is kept, and the stride doubles (dropping every
    other kept point) when they would exceed the limit; the latest sample is
    always kept too, so the plot ends where the run is."""

    def __init__(self, limit: int = MAX_POINTS) -> None:
        self.limit = max(4, limit)
        self.stride = 1
        self._kept: list[Point] = []
        self.last: Point | None = None

    def add(self, point: Point) -> None:
        self.last = point
        if point.games % self.stride:
            return
        self._kept.append(point)
        if len(self._kept) >= self.limit:
            self.stride *= 2
            self._kept = [p for p in self._kept if p.games % self.stride == 0]

    def points(self) -> list[Point]:
        kept = list(self._kept)
        if self.last is not None and (not kept or kept[-1].games != self.last.games):
            kept.append(self.last)
        return kept

    def __len__(self) -> int:
        return len(self.points())


@attrs.frozen(kw_only=True)
class RecentGame:
    """One finished game, for the report's table of games."""

    number: int
    #: Its place in ``games.bpgn`` (1-based), for ``bughouse replay --game``.
    index: int
    pairing: int
    white: str  # the participant holding team 1's seats
    black: str
    result: str
    reason: str
    plies: int
    seconds: float
    bpgn: str = attrs.field(default="", repr=False)


class PairingTally:
    """One pairing's results so far, from its first participant's side: its
    counts (``stats.Tally``) and the trajectories the report page draws."""

    def __init__(self, first: str, second: str, *, with_llr: bool = False) -> None:
        self.first, self.second = first, second
        self.counts = Tally()
        self.elo = Trajectory()
        self.llr: Trajectory | None = Trajectory() if with_llr else None
        self._llrs: dict[tuple[tuple[int, ...], tuple[int, int, int]], float] = {}

    @property
    def games(self) -> int:
        return self.counts.games

    def add(self, game: int, points: float) -> bool:
        """Counts a game; True if it completed its opening pair."""
        pair = game // 2
        completes = pair in self.counts.halves
        self.counts.add(pair, points)
        return completes

    def llr_points(self, sprt: Sprt) -> list[Point]:
        """The LLR trajectory's points with their values (each computed once)."""
        if self.llr is None:
            return []
        points = self.llr.points()
        known = {
            (p.penta, p.wdl): self._llrs.get((p.penta, p.wdl))
            for p in points
            if p.penta is not None
        }
        for (penta, wdl), value in known.items():
            if value is None:
                known[penta, wdl] = sprt.llr(Pentanomial(penta), wdl)
        self._llrs = {k: v for k, v in known.items() if v is not None}
        return [
            attrs.evolve(p, value=self._llrs[p.penta, p.wdl]) if p.penta is not None else p
            for p in points
        ]

    def llr_now(self, sprt: Sprt) -> float:
        """The LLR after the games so far."""
        summary = self.summary()
        key = (summary.penta.counts, (summary.wins, summary.draws, summary.losses))
        if key not in self._llrs:
            self._llrs[key] = sprt.llr_of(summary)
        return self._llrs[key]

    def summary(self) -> Summary:
        return self.counts.summary()


@attrs.define
class EngineTally:
    """The harness's delay on one participant's clocks (its incidents are
    ``failures.FailureCounts``')."""

    seat_games: int = 0
    delay_sum: float = 0.0
    delay_max: float = 0.0

    @property
    def delay_mean(self) -> float:
        return self.delay_sum / self.seat_games if self.seat_games else 0.0


class LiveTally:
    """Everything the progress lines and the report page show, kept as games finish."""

    def __init__(self, sprt: Sprt | None = None, recent: int = RECENT) -> None:
        self.sprt = sprt
        self.pairings: dict[int, PairingTally] = {}
        self.engines: dict[str, EngineTally] = {}
        self.recent: deque[RecentGame] = deque(maxlen=recent)
        self.games = 0

    def add(self, job: MatchJob, report: MatchReport) -> None:
        self.games += 1
        team = job.first_team
        first, second = job.sides[team], job.sides[team.other]
        tally = self.pairings.get(job.pairing)
        if tally is None:
            with_llr = self.sprt is not None and job.pairing == 0
            tally = self.pairings[job.pairing] = PairingTally(first, second, with_llr=with_llr)
        tally.add(job.game, report.points(team))
        summary = tally.summary()
        low, high = summary.elo_interval() if summary.interval_known else (math.nan, math.nan)
        tally.elo.add(Point(tally.games, summary.elo, low, high))
        if tally.llr is not None:
            # The LLR takes ms to compute: it is, when shown (a resume feeds many games).
            wdl = (summary.wins, summary.draws, summary.losses)
            tally.llr.add(Point(tally.games, math.nan, penta=summary.penta.counts, wdl=wdl))
        for seat, delay in report.harness_delay.items():
            engine = self._engine(job.sides[seat.team])
            delay = round(delay, DELAY_DIGITS)
            engine.seat_games += 1
            engine.delay_sum += delay
            engine.delay_max = max(engine.delay_max, delay)
        one, two = sorted(job.sides)
        self.recent.append(
            RecentGame(
                number=job.number,
                index=self.games,
                pairing=job.pairing,
                white=job.sides[one],
                black=job.sides[two],
                result=report.result.value,
                reason=report.reason,
                plies=report.plies,
                seconds=report.seconds,
                bpgn=report.bpgn,
            )
        )

    def _engine(self, name: str) -> EngineTally:
        return self.engines.setdefault(name, EngineTally())

    def in_order(self) -> Iterator[tuple[int, PairingTally]]:
        """The pairings in schedule order."""
        return iter(sorted(self.pairings.items()))
