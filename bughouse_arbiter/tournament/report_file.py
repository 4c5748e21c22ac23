"""The run folder's ``report.html``, rewritten as games finish.

``ReportFile.game(job, report)`` feeds the live tally; ``update`` rewrites
the page at most every ``INTERVAL`` seconds, and never more often than
keeps its own cost under ``SHARE`` of the run's time (a page over a long
run's summary takes longer to build), because the harness's loop is busy
while it builds one, and that lands on the engines' clocks. ``finish``
writes it once more, forced. Each write is a temporary file then
``os.replace``, so a reader never sees half a page.

Inside a trio run (the driver's loop, which the engines' clocks share) the
page is made and written in a thread, off the loop: the loop only takes the
summary (kept game by game, under a millisecond) and a pickled copy of the
live tally (a few milliseconds; the thread reads the copy, never the tally
the loop goes on feeding). One such write at a time; ``finish`` waits for
none and its page is the last one written.

Replay pages (``bughouse replay --html``) cost a full replay each, so they
are written only by ``finish``, for the last ``REPLAY_PAGES`` games played
in this session, to ``replays/game-N.html``; pages of games no longer in the
page's table are removed, so the folder stays small. Every game of the table also
shows the ``bughouse replay`` command that makes its page.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import pickle
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import trio

from .jobs import MatchJob, MatchReport
from .live import LiveTally
from .report_page import PageView, tournament_page
from .stats import Sprt

REPORT = "report.html"
REPLAYS = "replays"
#: Seconds between two rewrites at most often.
INTERVAL = 2.0
#: The largest share of the run's time spent rewriting the page.
SHARE = 0.05
#: Games of a run that get a replay page when it ends.
REPLAY_PAGES = 10


@attrs.frozen(kw_only=True)
class ReportShown:
    """What the page shows beside the figures: the test's settings as recorded
    (``conditions.settings``) and, for a resumed run, this session's own."""

    settings: Mapping[str, Any] = attrs.field(factory=dict)
    session: Mapping[str, Any] | None = None


class ReportFile:
    """``report.html`` of the folder ``out``; a write that fails is said once and skipped."""

    def __init__(
        self,
        out: Path,
        sprt: Sprt | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        warn: Callable[[str], None] = lambda text: None,
        shown: ReportShown = ReportShown(),
    ) -> None:
        self.out = out
        self.shown = shown
        self.tally = LiveTally(sprt)
        self.clock = clock
        self.warn = warn
        self._next = -float("inf")
        self._failed = False
        self.writes = 0
        #: A write off the loop is under way; the last write (``finish``) was made.
        self._writing = False
        self._finished = False
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.out / REPORT

    def game(self, job: MatchJob, report: MatchReport) -> None:
        self.tally.add(job, report)

    def update(
        self, summary: Callable[[], Mapping[str, Any]], state: str = "running", eta: str = ""
    ) -> bool:
        """Rewrites the page if it is time to (in a thread inside a trio run); True if
        it did or set out to."""
        now = self.clock()
        if now < self._next or self._writing:
            return False
        figures = summary()
        try:
            trio.lowlevel.current_trio_token()
        except RuntimeError:  # no trio run: write it here
            self._fail(self._make_and_write(figures, state, eta, {}, self.tally))
            self._next = now + max(INTERVAL, (self.clock() - now) / SHARE)
            return True
        self._writing = True
        # Copies (the summary shares some of the run's dicts): the loop goes on with both.
        frozen = pickle.dumps((figures, self.tally), protocol=pickle.HIGHEST_PROTOCOL)
        trio.lowlevel.spawn_system_task(self._write_off_loop, frozen, state, eta)
        self._next = now + INTERVAL
        return True

    async def _write_off_loop(self, frozen: bytes, state: str, eta: str) -> None:
        began = self.clock()
        cost = 0.0
        try:
            problem, cost = await trio.to_thread.run_sync(self._write_copy, frozen, state, eta)
        except Exception as exc:  # a system task must not raise: the page is a view
            problem = f"cannot make {self.path}: {type(exc).__name__}: {exc}"
        finally:
            self._writing = False
        self._fail(problem)
        self._next = max(self._next, began + cost / SHARE)

    def _write_copy(self, frozen: bytes, state: str, eta: str) -> tuple[str | None, float]:
        """In the writer's thread: the page from the copies; what went wrong (None:
        written, or ``finish`` came first and its page stays) and the CPU seconds it
        took (its wall time counts the loop's turns too, which it shares the GIL with)."""
        began = time.thread_time()
        summary, tally = pickle.loads(frozen)
        problem = self._make_and_write(summary, state, eta, {}, tally)
        return problem, time.thread_time() - began

    def finish(self, summary: Mapping[str, Any], state: str) -> None:
        """The last write: replay pages of the last games, then the page linking them."""
        replays = self._replay_pages()
        self._fail(self._make_and_write(summary, state, "", replays, self.tally, last=True))
        self._finished = True

    def _make_and_write(
        self,
        summary: Mapping[str, Any],
        state: str,
        eta: str,
        replays: Mapping[int, str],
        tally: LiveTally,
        *,
        last: bool = False,
    ) -> str | None:
        """Makes and writes the page; what went wrong, if anything."""
        updated = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        view = PageView(
            summary=summary, tally=tally, state=state, updated=updated, eta=eta,
            replays=replays, settings=self.shown.settings, session=self.shown.session,
        )
        try:
            page = tournament_page(view)
        except Exception as exc:  # the page is a view: a fault in it never stops the run
            return f"cannot make {self.path}: {type(exc).__name__}: {exc}"
        with self._lock:
            if self._finished and not last:
                return None  # the final page is written: an older one must not replace it
            try:
                _write_atomic(self.path, page)
                self.writes += 1
            except OSError as exc:
                return f"cannot write {self.path}: {exc.strerror or exc}"
        return None

    def _replay_pages(self) -> dict[int, str]:
        from ..bpgn.read import read_games
        from ..bpgn.replay import replay_game
        from ..web.replay_page import replay_page

        folder = self.out / REPLAYS
        shown = {g.number for g in self.tally.recent}
        new = [g for g in self.tally.recent if g.bpgn][-REPLAY_PAGES:]
        try:
            if new:
                folder.mkdir(exist_ok=True)
            for g in new:
                games = read_games(g.bpgn)
                if games:
                    page = replay_page(replay_game(games[0], frames=True))
                    _write_atomic(folder / f"game-{g.number}.html", page)
        except OSError as exc:
            self._fail(f"cannot write replay pages in {folder}: {exc.strerror or exc}")
        except Exception as exc:  # a page is a nicety: never lose the run's report for it
            self._fail(f"cannot make a replay page: {exc}")
        pages: dict[int, str] = {}
        for old in folder.glob("game-*.html") if folder.is_dir() else ():
            number = old.stem.removeprefix("game-")
            if number.isdigit() and int(number) in shown:
                pages[int(number)] = f"{REPLAYS}/{old.name}"
            else:  # a game no longer in the table: the folder stays small
                with contextlib.suppress(OSError):
                    old.unlink()
        return pages

    def _fail(self, text: str | None) -> None:
        """Says what went wrong (None: nothing), the first time only."""
        if text and not self._failed:
            self._failed = True
            self.warn(text)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
