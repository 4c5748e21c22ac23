"""Runs a tournament: hands jobs to a scheduler, journals reports, stops when done.

``Tournament.run(scheduler)`` plays every scheduled job not already in the
journal (so ``--resume`` neither replays nor duplicates a game), re-queues a
job whose report says the harness failed (``MAX_RETRIES`` times), drops a
participant after ``max_failures`` failures (crash, failed start, hang) among
its last ``2 * max_failures - 1`` games (so in a row, and also one game in
two: an engine that crashes every other game is dropped too), stops when
the SPRT is decided, and writes ``summary.json``. It talks
to the scheduler only through the ``Scheduler`` protocol, and to the person
only through a ``Progress``.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import attrs
import trio

from ..core.rules import HouseRules
from ..loop.lag import LagMonitor
from . import journal as journal_module
from .display import Remaining, plural, remaining, status_text
from .failures import FailureCounts
from .jobs import DELAY_DIGITS, MatchJob, MatchReport, SeatIncident
from .journal import Line
from .machine import ClockCounts
from .openings import BookChoice, BookIdentity
from .results import (
    GameResult,
    ResultCounts,
    crosstable,
    engine_ratings,
    sprt_state_of,
    standings,
)
from .schedule import Participant
from .scheduler import Scheduler
from .stats import Sprt, Tally

#: Times a job is handed out again after the harness failed to play it.
MAX_RETRIES = 3


#: Games journaled in one write at most, and shown in one loop step at most.
COMMIT_GAMES = 1000
SHOW_GAMES = 50


class Progress(Protocol):
    """What the person sees while the tournament runs."""

    def begin(self, total: int, done: int) -> None: ...

    def game(
        self, job: MatchJob, report: MatchReport, status: str, left: Remaining | None = None
    ) -> None: ...

    def message(self, text: str) -> None: ...

    def end(self) -> None: ...


@attrs.frozen(kw_only=True)
class TournamentPlan:
    """Everything a tournament was asked to do, checked; ``jobs`` is its whole schedule."""

    participants: tuple[Participant, ...]
    format: str
    games: int
    rules: HouseRules
    jobs: tuple[MatchJob, ...]
    out: Path
    sprt: Sprt | None = None
    max_failures: int = 3
    event: str = "bughouse-arbiter tournament"
    #: Stop the run (``failed``) when a participant fails in a game before it
    #: completed one: its engine does not work, and its games are not scored.
    stop_on_never_played: bool = False
    #: Participants brought back after a drop (``--readmit``): after how many of
    #: their games (in the journal) each readmission came.
    readmitted: Mapping[str, tuple[int, ...]] = attrs.field(factory=dict)
    #: ``--seed`` (the book's shuffle and the built-in engines' seeds), if given.
    seed: int | None = None
    #: The book as chosen, for the record (the jobs hold its openings).
    book_choice: BookChoice = attrs.field(factory=BookChoice)
    #: The opening book (``summary.json``'s ``book``), if known.
    book: BookIdentity | None = None
    #: ``--game-files``: each game also in a file of its own (``journal.GAME_FILES``).
    game_files: bool = False
    #: ``--final-positions``: each session ends writing ``journal.FINAL_POSITIONS``.
    final_positions: bool = False


class Tournament:
    """The state of one tournament: its journaled reports and what follows from them."""

    def __init__(self, plan: TournamentPlan, progress: Progress) -> None:
        self.plan = plan
        self.progress = progress
        self.jobs = {job.job_id: job for job in plan.jobs}
        self.reports: dict[str, MatchReport] = {}
        self._results: list[GameResult] = []
        # What ``summary`` shows, kept game by game so that it costs the same at game
        # 100,000 as at game 10 (``_account`` adds each game once).
        self._counts = ResultCounts()
        self._incidents: list[dict[str, object]] = []
        self._clocks = ClockCounts()
        self._delay = _Delays()
        self.journal = journal_module.Journal(plan.out, game_files=plan.game_files)
        self.queue: deque[MatchJob] = deque()
        self.retries: dict[str, int] = {}
        #: Per participant, whether each of its last games was a failure of its own.
        self.recent: dict[str, deque[bool]] = {}
        self.dropped: dict[str, str] = {}
        #: Participants that completed a game without a failure of their own.
        self.completed: set[str] = set()
        #: Games accounted per participant (where ``plan.readmitted`` applies).
        self.games_of: dict[str, int] = {}
        #: Illegal moves, failed starts, hangs, crashes and time losses per participant.
        self.failures = FailureCounts(p.name for p in plan.participants)
        self.decision: str | None = None
        #: Reports counted but not yet journaled (``_commit``), and the bell for them.
        self._pending: list[_Pending] = []
        self._arrived = trio.Event()
        #: The journal's lines ``resume`` did not keep, and why.
        self.set_aside: list[Line] = []
        #: Jobs the harness failed to play ``MAX_RETRIES`` + 1 times, with the last error.
        self.given_up: dict[str, str] = {}
        #: Why the tournament had to stop (the journal could not be written), if it did.
        self.failed: str | None = None
        #: The journal could not be written: nothing more is kept (``failed`` says why).
        self._journal_broken = False
        #: The scheduler's counts for this session (engines started, games reusing all).
        self.engine_stats: dict[str, object] = {}
        self.interrupted = False
        self.started = time.monotonic()
        #: How late the driver's loop wakes (a stall is a progress message; the
        #: figures are ``summary.json``'s ``loop_lag_this_session``).
        self.lag = LagMonitor(log=progress.message)
        # Kept game by game, so that a finished game costs the same at game 100,000
        # as at game 10: each pairing's tally (by its sides' names, in the order
        # the pairings first finished a game, as ``by_pairing``), the first
        # pairing's, and the scheduled games not yet played per pairing.
        self._tallies: dict[tuple[str, str], Tally] = {}
        self._first: Tally | None = None
        self._first_names = ("", "")
        self._unplayed: dict[int, int] = {}
        self._names: dict[int, frozenset[str]] = {}
        for job in plan.jobs:
            self._unplayed[job.pairing] = self._unplayed.get(job.pairing, 0) + 1
            self._names.setdefault(job.pairing, frozenset(job.sides.values()))
        # The SPRT's state for the first pairing's pentanomial counts (they key it).
        self._sprt_of: tuple[tuple[int, ...], dict[str, object]] | None = None
        self._texts: dict[str, str] = {}

    # -- state from the journal ---------------------------------------------------------

    def resume(self) -> int:
        """Loads the journal; returns how many scheduled games it already holds.

        Every line that is not the first record of a scheduled game is set
        aside (``set_aside``, and the journal's ``SET_ASIDE`` file); the games
        it held are played again. The journal is read a line at a time and
        no game's BPGN is held (``journal.Rebuild``); the games are counted
        in the schedule's order, as an uninterrupted run would see them."""
        kept: dict[str, MatchReport] = {}
        where: dict[str, int] = {}
        rebuild = journal_module.Rebuild(self.plan.out)
        try:
            for line in journal_module.scan(self.plan.out):
                why = line.why or self._unfit(line, where)
                if why:
                    self.set_aside.append(line if line.why else line.set_aside(why))
                    rebuild.leave(line)
                else:
                    assert line.report is not None
                    rebuild.keep(line)
                    kept[line.report.job_id] = attrs.evolve(line.report, bpgn="")
                    where[line.report.job_id] = line.number
            rebuild.finish(self.set_aside)
        except BaseException:
            rebuild.abandon()
            raise
        del where  # no longer needed: its memory goes before the games are counted
        self.journal.open_to_append()
        for job in self.plan.jobs:
            report = kept.pop(job.job_id, None)
            if report is not None:
                self._account(job, report)
        self.queue = deque(j for j in self.plan.jobs if j.job_id not in self.reports)
        return len(self.reports)

    def _unfit(self, line: Line, kept: Mapping[str, int]) -> str:
        """Why a line holding a readable report is not kept ("" if it is)."""
        report = line.report
        assert report is not None
        job = self.jobs.get(report.job_id)
        if job is None:
            return f"game {report.job_id!r} is not in this tournament's schedule"[:200]
        if not report.played:
            return f"game {job.number} was not played ({report.error or 'unfinished'})"[:300]
        if report.job_id in kept:
            return f"game {job.number} again, as on line {kept[report.job_id]}"
        if not journal_module.fits(line, job):
            return f"its place in the schedule is not game {job.number}'s"
        return ""

    def set_aside_text(self) -> str | None:
        """One line on the journal's lines ``resume`` set aside, or None if none was."""
        aside = self.set_aside
        if not aside:
            return None
        journal = self.plan.out / journal_module.JOURNAL
        where = self.plan.out / journal_module.SET_ASIDE
        shown = [f"{line.number} ({line.why})" for line in aside[:3]]
        if len(aside) == 1:
            lines = f"line {shown[0]}"
        elif len(aside) <= 3:
            lines = f"lines {', '.join(shown[:-1])} and {shown[-1]}"
        else:
            lines = f"lines {', '.join(shown)} and {len(aside) - 3} more"
        again = sorted(
            {
                self.jobs[job_id].number
                for line in aside
                for job_id in line.names
                if job_id in self.jobs and job_id not in self.reports
            }
        )
        unknown = any(not line.names for line in aside)
        fates = []
        if again:
            numbers = ", ".join(str(n) for n in again)
            fates.append(
                f"game {numbers} is played again"
                if len(again) == 1
                else f"games {numbers} are played again"
            )
        if unknown:
            they = "it" if len(aside) == 1 else "they"
            fates.append(f"any {'other ' if again else ''}game {they} held is played again")
        fate = "; ".join(fates) or "no game is played again (each is kept, or not of this one)"
        return f"{journal}: {lines} set aside in {where}; {fate}"

    # -- running -------------------------------------------------------------------------

    async def run(self, scheduler: Scheduler, stop: trio.CancelScope) -> None:
        """Plays the remaining games; ``stop`` is cancelled when the SPRT decides.

        A played game's report is counted at once (so a drop or a decided SPRT
        takes effect before the next job is handed out) and journaled by
        ``_commit_loop``: every report that arrived meanwhile in one write and
        fsync, in a thread, while the scheduler goes on. Nothing about a game
        is shown before its fsync returned."""
        self.stop = stop
        self.progress.begin(len(self.plan.jobs), len(self.reports))
        gc.freeze()  # the schedule and what resume read: see _commit
        try:
            if self._sprt_decided():
                return
            trio.lowlevel.add_instrument(self.lag)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self.lag.run)
                nursery.start_soon(self._commit_loop)
                with stop:
                    await scheduler.run(self._next_job, self._on_report)
                nursery.cancel_scope.cancel()
        finally:
            with contextlib.suppress(KeyError):
                trio.lowlevel.remove_instrument(self.lag)
            with trio.CancelScope(shield=True):
                await self._commit()  # what arrived since the last write
            self.journal.close()
            self.engine_stats = attrs.asdict(scheduler.stats)

    def _next_job(self) -> MatchJob | None:
        while self.queue:
            job = self.queue.popleft()
            if not any(name in self.dropped for name in job.sides.values()):
                return job
        return None

    async def _on_report(self, report: MatchReport) -> None:
        job = self.jobs[report.job_id]
        if self.failed is not None:
            return  # the run stops (a journal that cannot be written, a failed start)
        if not report.played:
            tries = self.retries[job.job_id] = self.retries.get(job.job_id, 0) + 1
            if tries <= MAX_RETRIES:
                self.progress.message(
                    f"game {job.number} not played ({report.error or 'unfinished'}); "
                    f"trying again ({tries}/{MAX_RETRIES})"
                )
                self.queue.appendleft(job)
            else:
                self.given_up[job.job_id] = report.error or "unfinished"
                self.progress.message(f"game {job.number} given up: {report.error}")
            return
        never = self._never_played(report)
        if never:
            self.failed = never
            self.stop.cancel()
            return
        dropped = set(self.dropped)
        self._account(job, report)
        # What the person sees of this game, as of this game, shown once it is durable.
        messages = [
            f"game {job.number}: {self._hung_text(incident)}"
            for incident in report.incidents
            if incident.kind == "hang"
        ]
        messages += [
            f"{name} dropped: {self.dropped[name]}; its remaining games are not played"
            for name in self.dropped.keys() - dropped
        ]
        self._pending.append(_Pending(job, report, self.status_text(), self.games_left(), messages))
        self._arrived.set()
        if self._sprt_decided():
            self.stop.cancel()

    def _never_played(self, report: MatchReport) -> str:
        """Why the run stops at this game ("" if it does not): with
        ``stop_on_never_played``, a participant failed in it before completing any."""
        if not self.plan.stop_on_never_played:
            return ""
        failing = sorted(
            {i.participant for i in report.incidents if i.is_failure} - self.completed
        )
        if not failing:
            return ""
        name = failing[0]
        why = "; ".join(i.text for i in report.incidents if i.participant == name and i.is_failure)
        number = self.jobs[report.job_id].number
        return (
            f"{name} failed in game {number} without having completed a game ({why}); "
            f"that game is not scored: fix its engine and continue with --resume "
            f"{self.plan.out}, or give --recover to score such failures as losses"
        )

    @staticmethod
    def _hung_text(incident: SeatIncident) -> str:
        who = incident.participant
        if incident.engine != who:
            who += f" ({incident.engine})"
        return f"{who} hung: {incident.text}"

    async def _commit_loop(self) -> None:
        while True:
            await self._arrived.wait()
            self._arrived = trio.Event()
            await self._commit()

    async def _commit(self) -> None:
        """Journals every report not yet written, ``COMMIT_GAMES`` at most a write (one
        write and fsync per file for each group, off the event loop), then shows them,
        ``SHOW_GAMES`` at most per loop step, so that a slow disk under instant games
        never makes one huge write nor one long step."""
        while self._pending and not self._journal_broken:
            batch = self._pending[:COMMIT_GAMES]
            del self._pending[:COMMIT_GAMES]
            entries = [(p.job, p.report) for p in batch]
            try:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self.journal.append_all, entries)
            except OSError as exc:
                # Nothing more can be kept: stop, with the games journaled so far intact.
                self._journal_broken = True
                self.failed = f"cannot write the journal in {self.plan.out}: {exc.strerror or exc}"
                self.stop.cancel()
                return
            # What a run keeps of its games lives to the end of the run and makes no
            # cycles: out of the collector's sight, so that a full collection walks
            # what came since, not 100,000 games' reports (it held the loop 0.2-0.4 s).
            gc.freeze()
            for shown, p in enumerate(batch, start=1):
                self.progress.game(p.job, p.report, p.status, p.left)
                for text in p.messages:
                    self.progress.message(text)
                if shown % SHOW_GAMES == 0:
                    await trio.lowlevel.checkpoint()  # the engines' answers are read meanwhile

    def _account(self, job: MatchJob, report: MatchReport) -> None:
        if job.job_id in self.reports:
            return  # counted once, whatever reported it again
        # The game's text is in the journal and games.bpgn; memory keeps the rest,
        # its words shared with the games that say the same (100,000 games add up).
        texts = self._texts
        self.reports[job.job_id] = attrs.evolve(
            report,
            job_id=job.job_id,
            bpgn="",
            termination=texts.setdefault(report.termination, report.termination),
            reason=texts.setdefault(report.reason, report.reason),
            node=texts.setdefault(report.node, report.node),
        )
        team = job.first_team
        result = GameResult(
            job_id=job.job_id,
            pairing=job.pairing,
            game=job.game,
            first=job.sides[team],
            second=job.sides[team.other],
            points=report.points(team),
        )
        self._results.append(result)
        self._counts.add(result)
        self._incidents += ({"game": job.number, **_incident(i)} for i in report.incidents)
        self._clocks.add(report)
        self._delay.add(report)
        tally = self._tallies.setdefault((result.first, result.second), Tally())
        tally.add(job.pair, result.points)
        if job.pairing == 0 and self._first is None:
            self._first, self._first_names = tally, (result.first, result.second)
        if job.pairing in self._unplayed:
            self._unplayed[job.pairing] -= 1
        self.failures.add(report)
        failing = {i.participant for i in report.incidents if i.is_failure}
        limit = self.plan.max_failures
        self.completed |= set(job.sides.values()) - failing
        for name in job.sides.values():
            recent = self.recent.setdefault(name, deque(maxlen=2 * limit - 1))
            recent.append(name in failing)
            if recent.count(True) >= limit and name not in self.dropped:
                why = "; ".join(i.text for i in report.incidents if i.participant == name)
                self.dropped[name] = f"{_failures_text(recent, limit)} (last: {why})"
            self.games_of[name] = self.games_of.get(name, 0) + 1
            if self.games_of[name] in self.plan.readmitted.get(name, ()):
                self.readmit(name)

    def readmit(self, name: str) -> int:
        """Brings a dropped participant back, its failures forgotten; returns
        how many of its games are in so far (``TournamentPlan.readmitted``)."""
        self.dropped.pop(name, None)
        self.recent.pop(name, None)
        return self.games_of.get(name, 0)

    def _sprt_decided(self) -> bool:
        if self.plan.sprt is None:
            return False
        decision = self._sprt(self.plan.sprt)["decision"]
        self.decision = decision if isinstance(decision, str) else None
        return self.decision is not None

    def _sprt(self, sprt: Sprt) -> dict[str, object]:
        """The SPRT state over the games so far, computed again only when a pair
        of the first pairing completes."""
        first = self._first if self._first is not None else Tally()
        key = (*first.counts, first.wins, first.draws, first.losses)
        if self._sprt_of is None or self._sprt_of[0] != key:
            self._sprt_of = (key, sprt_state_of(sprt, first))
        return self._sprt_of[1]

    # -- results ---------------------------------------------------------------------------

    def results(self) -> list[GameResult]:
        """Every game played so far, from its pairing's first participant's side."""
        return list(self._results)

    def status_text(self) -> str:
        """Elo, nElo and LOS of the first pairing, and the LLR with an SPRT (``display``)."""
        if self._first is None:
            return ""
        sprt = self._sprt(self.plan.sprt) if self.plan.sprt is not None else None
        return status_text(*self._first_names, self._first.summary(), sprt)

    def games_left(self) -> Remaining:
        """Scheduled games not played yet (none of a dropped participant's), or with
        an SPRT its expected length (``display.remaining``)."""
        left = sum(
            count
            for pairing, count in self._unplayed.items()
            if not any(name in self.dropped for name in self._names[pairing])
        )
        if self.plan.sprt is None:
            return remaining(left)
        sprt_games = self._first.games if self._first is not None else 0
        return remaining(left, self._sprt(self.plan.sprt), sprt_games)

    def shortfall(self) -> str | None:
        """Why the run does not play every game it was asked to, in one line:
        the games of a dropped participant and those given up, which no more
        waiting plays. None when each will be played (or was), or when an SPRT
        decided: it plays until then, by design."""
        if self.decision is not None:
            return None
        lost: dict[str, int] = {}
        given_up = 0
        for job in self.plan.jobs:
            if job.job_id in self.reports:
                continue
            if job.job_id in self.given_up:
                given_up += 1
                continue
            for name in job.sides.values():
                if name in self.dropped:
                    lost[name] = lost.get(name, 0) + 1
                    break
        missing = sum(lost.values()) + given_up
        if not missing:
            return None
        why = [
            f"{name} dropped after {_reason(self.dropped[name])}: {plural(count, 'game')}"
            for name, count in lost.items()
        ]
        if given_up:
            why.append(f"given up: {plural(given_up, 'game')}")
        return f"{missing} of {len(self.plan.jobs)} scheduled games not played ({'; '.join(why)})"

    def summary(self) -> dict[str, object]:
        results = self._counts
        participants = self.plan.participants
        pairings: list[dict[str, object]] = []
        for (first, second), tally in self._tallies.items():
            s = tally.summary()
            low, high = s.elo_interval()
            pairings.append(
                {
                    "first": first,
                    "second": second,
                    "games": s.games,
                    "wins": s.wins,
                    "losses": s.losses,
                    "draws": s.draws,
                    "score": round(s.score, 4),
                    "elo": _num(s.elo),
                    "elo_low": _num(low),
                    "elo_high": _num(high),
                    "nelo": None if s.nelo is None else round(s.nelo, 1),
                    "nelo_margin": _maybe(s.nelo_margin()),
                    "los": round(s.los, 4),
                    "draw_ratio": round(s.draw_ratio, 4),
                    "pentanomial": s.penta.as_dict(),
                }
            )
        engines = engine_ratings(participants, results)
        incidents = list(self._incidents)
        summary: dict[str, object] = {
            "event": self.plan.event,
            "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "format": self.plan.format,
            "time_control": time_control_text(self.plan.rules),
            "games_scheduled": len(self.plan.jobs),
            "games_played": len(self.reports),
            "complete": len(self.reports) == len(self.plan.jobs),
            "standings": standings(participants, results),
            "pairings": pairings,
            "crosstable": {
                a: {b: {"points": p, "games": g} for b, (p, g) in row.items()}
                for a, row in crosstable(participants, results).items()
            },
            **self.failures.as_summary(),
            "engines_this_session": self.engine_stats,
            "harness_delay": self._delay.shown(),
            "loop_lag_this_session": self.lag.figures().shown(),
            "clock_warning": self._clocks.warning(),
            "incidents": incidents,
            "dropped": self.dropped,
            "shortfall": self.shortfall(),
            "given_up": {
                str(self.jobs[job_id].number): why for job_id, why in self.given_up.items()
            },
        }
        if self.plan.book is not None:
            summary["book"] = self.plan.book.as_dict()
        if engines:
            summary["engine_ratings"] = {
                name: {"elo": round(r.elo, 1), "margin": _num(r.margin)}
                for name, r in engines.items()
            }
        if self.plan.sprt is not None:
            summary["sprt"] = dict(self._sprt(self.plan.sprt))
        return summary


@attrs.frozen
class _Pending:
    """A played game waiting for its journal write, with what will be shown of it."""

    job: MatchJob
    report: MatchReport
    status: str
    left: Remaining
    messages: list[str]


def _reason(dropped: str) -> str:
    """``3 failures in a row`` of a drop's ``3 failures in a row (last: ...)``."""
    return dropped.partition(" (last: ")[0]


def _failures_text(recent: deque[bool], limit: int) -> str:
    """``3 failures in a row``, or ``3 failures in its last 5 games``."""
    games = list(recent)
    while not games[0]:
        games.pop(0)  # from its first failure of those counted
    count = games.count(True)
    failures = f"{count} failure{'s' if count != 1 else ''}"
    if all(games):
        return f"{failures} in a row"
    return f"{failures} in its last {len(games)} games"


def time_control_text(rules: HouseRules) -> str:
    """``10+0.1``, or ``none`` for untimed play."""
    if not rules.clock:
        return "none"
    return f"{rules.time:g}+{rules.increment:g}"


def _num(value: float) -> float | None:
    return round(value, 1) if abs(value) < float("inf") else None


def _maybe(value: float | None) -> float | None:
    return None if value is None else _num(value)


def _incident(i: object) -> dict[str, object]:
    assert isinstance(i, SeatIncident)
    return {
        "seat": i.seat.bpgn,
        "participant": i.participant,
        "engine": i.engine,
        "kind": i.kind,
        "text": i.text,
    }


class _Delays:
    """The harness's delay on the engines' clocks (ms), game by game: per seat and game,
    mean and most; one turn's most; and over how many seat-games (those that could tell)."""

    def __init__(self) -> None:
        self.seat_games = 0
        # Rounded as the journal keeps them and summed as whole units of that rounding:
        # a game played in this run and one read back by ``--resume`` count the same,
        # and the mean is the same whatever order the games came in.
        self.units = 0
        self.most = 0.0
        self.turn_most = 0.0

    def add(self, report: MatchReport) -> None:
        for delay in report.harness_delay.values():
            kept = round(delay, DELAY_DIGITS)
            self.seat_games += 1
            self.units += round(kept * 10**DELAY_DIGITS)
            self.most = max(self.most, kept)
        self.turn_most = max(self.turn_most, round(report.harness_delay_max, DELAY_DIGITS))

    def shown(self) -> dict[str, float | int]:
        games = self.seat_games
        mean = 1000 * self.units / 10**DELAY_DIGITS / games if games else 0.0
        return {
            "seat_games": games,
            "mean_ms": round(mean, 3),
            "max_ms": round(1000 * self.most, 3),
            "turn_max_ms": round(1000 * self.turn_most, 3),
        }
