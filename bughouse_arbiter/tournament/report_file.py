"""The run folder's ``report.html``, rewritten as games finish.

``ReportFile.game(job, report)`` feeds the live tally; ``update`` rewrites
the page at most every ``INTERVAL`` seconds, and never more often than
keeps its own cost under ``SHARE`` of the run's time (a page over a long
run's summary takes longer to build), because the harness's loop is busy
while it builds one, and that lands on the engines' clocks. ``finish``
writes it once more, forced. Each write is a temporary file then
``os.replace``, so a reader never sees half a page.

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
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

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

    @property
    def path(self) -> Path:
        return self.out / REPORT

    def game(self, job: MatchJob, report: MatchReport) -> None:
        self.tally.add(job, report)

    def update(
        self, summary: Callable[[], Mapping[str, Any]], state: str = "running", eta: str = ""
    ) -> bool:
        """Rewrites the page if it is time to; True if it did."""
        now = self.clock()
        if now < self._next:
            return False
        self._write(summary(), state, eta, {})
        cost = self.clock() - now
        self._next = now + max(INTERVAL, cost / SHARE)
        return True

    def finish(self, summary: Mapping[str, Any], state: str) -> None:
        """The last write: replay pages of the last games, then the page linking them."""
        self._write(summary, state, "", self._replay_pages())

    def _write(
        self, summary: Mapping[str, Any], state: str, eta: str, replays: Mapping[int, str]
    ) -> None:
        updated = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        view = PageView(
            summary=summary, tally=self.tally, state=state, updated=updated, eta=eta,
            replays=replays, settings=self.shown.settings, session=self.shown.session,
        )
        try:
            page = tournament_page(view)
        except Exception as exc:  # the page is a view: a fault in it never stops the run
            self._fail(f"cannot make {self.path}: {type(exc).__name__}: {exc}")
            return
        try:
            _write_atomic(self.path, page)
            self.writes += 1
        except OSError as exc:
            self._fail(f"cannot write {self.path}: {exc.strerror or exc}")

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

    def _fail(self, text: str) -> None:
        if not self._failed:
            self._failed = True
            self.warn(text)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
