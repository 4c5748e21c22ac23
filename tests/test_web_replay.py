"""``bughouse replay --html``: one self-contained page per game, driven in a real browser.

The browser tests use Debian's chromium through Playwright (it cannot download
its own browser here); they are skipped when either is missing unless
BUGHOUSE_REQUIRE_BROWSER=1 (CI sets it). Screenshots go to
``tests/screenshots/`` and are kept.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_checks import run_bughouse

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import ReplayReport, replay_game
from bughouse_arbiter.web.replay_page import replay_page

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "arbiter_game.bpgn"
CORPUS = DATA / "corpus"
SHOTS = Path(__file__).parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

HOSTILE = """[Event "x"]
[WhiteA "</script><script>document.title='owned'</script>"]
[BlackA "<b>bold</b>"]
[WhiteB "w"]
[BlackB "b"]
[Result "*"]

1A. e4 {[%tell BB 1.0] </script><img src=x onerror="document.title='owned'">} 1a. e5 *
"""


def report_of(text: str, number: int = 1) -> ReplayReport:
    game = read_games(text.encode(), file="t.bpgn")[number - 1]
    return replay_game(game, frames=True)


def page_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


# -- the page as text -----------------------------------------------------------------------


def test_the_page_holds_every_frame_of_the_replay() -> None:
    report = report_of(GOLDEN.read_text())
    data = page_data(replay_page(report))
    frames = data["frames"]
    assert len(frames) == len(report.frames) == report.replayed + 1
    assert [f["move"]["label"] if f["move"] else None for f in frames] == [
        None,
        *(frame.move.label for frame in report.frames[1:] if frame.move is not None),
    ]
    assert data["names"]["A-White"] == "sjeng"
    assert data["layout"] == {"A": ["A-Black", "A-White"], "B": ["B-White", "B-Black"]}
    # The clocks are the replay's, seat by seat, at every frame.
    for frame, shown in zip(report.frames, frames, strict=True):
        assert shown["clocks"] == {seat.value: left for seat, left in frame.clocks.items()}
    # 2b. P@e4 drops the pawn its partner took on 2A. exd5: the pocket empties.
    after_drop = next(f for f in frames if f["move"] and f["move"]["label"] == "2b. P@e4")
    assert after_drop["pockets"]["B-Black"] == {}
    before_drop = frames[frames.index(after_drop) - 1]
    assert before_drop["pockets"]["B-Black"] == {"p": 1}
    assert "WA resigns" in data["ending"] or "resign" in data["ending"]


def test_a_board_drawing_is_stored_once_and_shared() -> None:
    report = report_of(GOLDEN.read_text())
    data = page_data(replay_page(report))
    frames = data["frames"]
    # A ply changes one board: board B's drawing is shared by the frames of board A's moves.
    for before, after in itertools.pairwise(frames):
        moved = after["move"]["board"]
        other = "b" if moved == "A" else "a"
        assert after[other] == before[other]
        assert after[moved.lower()] != before[moved.lower()]
    assert len(data["boards"]) == len(frames) + 1


def test_names_and_messages_cannot_break_out_of_the_page() -> None:
    page = replay_page(report_of(HOSTILE))
    assert "</script><script>document.title" not in page
    assert "<img src=x" not in page
    data = page_data(page)
    assert data["names"]["A-White"] == "</script><script>document.title='owned'</script>"
    assert data["messages"][0]["text"].startswith("</script><img")


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.bpgn")), ids=lambda p: p.stem)
def test_every_corpus_dialect_makes_a_page(path: Path) -> None:
    game = read_games(path.read_bytes(), file=str(path))[0]
    report = replay_game(game, frames=True)
    data = page_data(replay_page(report))
    assert len(data["frames"]) == len(report.frames)
    assert all(0 <= f["a"] < len(data["boards"]) for f in data["frames"])


# -- the command --------------------------------------------------------------------------


@pytest.mark.slow
def test_replay_html_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    done = run_bughouse("replay", str(GOLDEN), "--html", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{out}: game 1, 10 plies")
    assert page_data(out.read_text())["names"]["B-Black"] == "searcher"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--check", "--html", "x.html"], "does not go with --check"),
        (["--html", "."], "is a folder"),
        (["--html", "/dev/null"], "not a regular file"),
        (["--html", "no/such/dir/x.html"], "cannot write it"),
        (["--game", "7", "--html", "x.html"], "holds games 1 to 1"),
    ],
)
def test_replay_html_refuses_bad_targets(tmp_path: Path, args: list[str], message: str) -> None:
    done = run_bughouse("replay", str(GOLDEN), *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.html").exists()


# -- in a browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed"
    if missing is None and not shutil.which(CHROMIUM):
        missing = f"{CHROMIUM} is not installed"
    if missing is not None:
        if os.environ.get("BUGHOUSE_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_stepping_through_a_replay_in_the_browser(
    browser: Any, tmp_path: Path, width: int, height: int
) -> None:
    source = CORPUS / "fics_2005_fatics.bpgn"
    report = replay_game(read_games(source.read_bytes(), file=str(source))[0], frames=True)
    out = tmp_path / "replay.html"
    out.write_text(replay_page(report))
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(out.as_uri())
    last = len(report.frames) - 1
    assert page.inner_text("#where") == f"ply 0/{last} · start"
    assert page.is_hidden("#ending")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    third = report.frames[3].move
    assert third is not None
    assert page.inner_text("#where") == f"ply 3/{last} · {third.label}"
    assert page.inner_text("li.current >> nth=0") in {third.label, report.frames[2].move.label}
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("body", "data-ply") == "2"
    page.keyboard.press("End")
    assert page.get_attribute("body", "data-ply") == str(last)
    assert report.outcome is not None
    assert page.inner_text("#ending") == f"result {report.rejudged}: {report.outcome.reason}"
    # The clocks shown are the replay's at the last frame.
    final = report.frames[-1].clocks
    shown = page.inner_text('.seat[data-seat="A-White"] .clock')
    left = final[next(seat for seat in final if seat.value == "A-White")]
    assert left is not None
    assert shown == f"{int(left // 60)}:{int(left % 60):02d}"
    # Clicking a move in a list goes there.
    page.click("#moves-B li >> nth=0")
    first_b = next(i for i, f in enumerate(report.frames) if f.move and f.move.board.value == "B")
    assert page.get_attribute("body", "data-ply") == str(first_b)
    page.keyboard.press("End")
    # Usable at this size: nothing wider than the viewport.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"replay-{width}x{height}.png"), full_page=True)
    assert errors == []
    page.close()


@pytest.mark.slow
def test_a_hostile_name_is_shown_as_text(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "hostile.html"
    out.write_text(replay_page(report_of(HOSTILE)))
    page = browser.new_page()
    page.goto(out.as_uri())
    assert page.title() != "owned"
    assert page.inner_text('.seat[data-seat="A-White"] .name').startswith("</script>")
    assert page.inner_text('.seat[data-seat="A-Black"] .name') == "<b>bold</b>"
    page.keyboard.press("End")
    assert page.title() != "owned"
    page.close()
