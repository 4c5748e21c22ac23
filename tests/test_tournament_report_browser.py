"""``report.html`` of a real short tournament (random movers, SPRT on), in a real browser.

Debian's chromium through Playwright, as ``test_web_replay`` (skipped when
either is missing unless BUGHOUSE_REQUIRE_BROWSER=1). Screenshots go to
``tests/screenshots/`` and are kept.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bughouse_arbiter.cli import main
from tests.test_web_replay import SHOTS
from tests.test_web_replay import browser as browser  # the shared fixture

GAMES = 6
ROOT = Path(__file__).resolve().parent.parent
#: In the folder and the arguments of one engine's command: shown, never run.
EVIL = "</script><script>window.pwned=1</script>"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Two searchers at 1+0: quick games, won and lost (often on time). Played
    again (at most twice) in the rare run whose results leave the Elo interval
    unknown before the last game, so that the band is there to check. The
    second searcher is started by a script in a folder named ``<script>...``."""
    folder = tmp_path_factory.mktemp("engines") / "<script>window.pwned=2<"
    folder.mkdir()
    script = folder / "engine.sh"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'engines' / 'searcher.py'}\n")
    script.chmod(0o755)
    for attempt in range(3):
        out = tmp_path_factory.mktemp("report") / "t"
        argv = [
            "tournament",
            "--engine",
            "new=searcher",
            "--engine",
            f"old=sh '{script}' '{EVIL}'",
            "--option",
            "new.Seed=5",
            "--games",
            str(GAMES),
            "--sprt",
            "elo0=0,elo1=20",
            "--tc",
            "1+0",
            "--rule",
            "max_plies=150",
            "--seed",
            str(attempt + 1),
            "--concurrency",
            "2",
            "--force-concurrency",  # whatever the cores: the page is what is tested
            "--out",
            str(out),
        ]
        assert main(argv) == 0
        if '<path class="band"' in (out / "report.html").read_text():
            break
    yield out


def _numbers(d: str) -> int:
    """How many points a path's ``d`` holds."""
    return len(re.findall(r"-?\d+(?:\.\d+)?,-?\d+(?:\.\d+)?", d))


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_report_draws_its_plots_and_tables(
    browser: Any, run: Path, width: int, height: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    fetched: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: fetched.append(request.url))
    page.goto((run / "report.html").as_uri())
    # The test's settings lead: on the first screen, beside the big figures.
    test = page.locator("section.test")
    assert test.bounding_box()["y"] < (140 if width >= 1000 else height / 2)
    text = test.inner_text()
    for shown in ("1+0 · max_plies=150", "SPRT", "[0, 20] normalized", "concurrency", "seed"):
        assert shown in text
    assert "Seed=5" in text and f"'{EVIL}'" in text and "<script>window.pwned=2<" in text
    assert page.evaluate("window.pwned") is None  # written out, never run
    if width >= 1000:  # beside the figures, all of both in the first screen
        kpis = page.locator(".lead .kpis")
        assert kpis.bounding_box()["x"] > test.bounding_box()["x"] + 300
        for box in (test.bounding_box(), kpis.bounding_box()):
            assert box["y"] + box["height"] <= height
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / f"report-lead-{width}x{height}.png"))
    # The Elo plot: a line through every game and its interval band.
    elo, llr = page.locator("svg.chart").all()
    line = elo.locator("path.line").get_attribute("d")
    assert _numbers(line) == GAMES
    band = elo.locator("path.band").get_attribute("d")
    assert _numbers(band) >= 4 and band.endswith("Z")
    assert elo.locator("path.band").bounding_box()["height"] > 5
    # The LLR plot: its line between the two bounds.
    assert _numbers(llr.locator("path.line").get_attribute("d")) == GAMES
    assert llr.locator("line.bound").count() == 2
    assert llr.locator("path.line").bounding_box()["width"] > 0.5 * llr.bounding_box()["width"]
    # The standings and the games, each game with its replay page or its command.
    standings = page.locator("table.standings tbody tr")
    assert standings.count() == 2
    assert sorted(standings.locator("td:nth-child(3)").all_inner_texts()) == [str(GAMES)] * 2
    games = page.locator("table.games tbody tr")
    assert games.count() == GAMES
    links = page.locator("table.games a")
    assert links.count() == GAMES  # all played this session: each has its page
    first = links.first.get_attribute("href")
    assert (run / first).is_file()
    assert page.locator("text=SPRT [0, 20]").count() == 1
    # One file: nothing fetched but the page itself; nothing wider than the screen.
    assert fetched == [(run / "report.html").as_uri()]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == []
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"report-{width}x{height}.png"), full_page=True)
    links.first.click()
    page.wait_for_load_state()
    assert page.url.endswith(first) and page.locator("svg").count() > 2
    page.close()


@pytest.mark.slow
def test_a_resume_shows_the_status_at_once_and_keeps_the_replays(
    run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pages = sorted(p.name for p in (run / "replays").iterdir())
    assert main(["tournament", "--resume", str(run)]) == 0
    out = capsys.readouterr().out
    resumed, status = out.splitlines()[:2]
    assert resumed == f"resuming: {GAMES} of {GAMES} games already played"
    assert status.startswith("new vs old: +") and " LLR " in out.split("\n #")[0]
    assert sorted(p.name for p in (run / "replays").iterdir()) == pages
    text = (run / "report.html").read_text()
    assert text.count('href="replays/game-') == GAMES
