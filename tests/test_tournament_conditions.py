"""``report.html`` leads with the test's settings (``tournament/conditions.py``):
the engines' commands and options, the book, the time control, concurrency,
the SPRT, the seed, the harness and the machine, all escaped, recorded once in
``tournament.json`` so that a resumed run shows the same ones."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from bughouse_arbiter import __version__
from bughouse_arbiter.cli import main
from bughouse_arbiter.config.specs import EngineSpec, engine_spec
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament import conditions
from bughouse_arbiter.tournament.live import LiveTally
from bughouse_arbiter.tournament.machine import concurrency_check, usable_cpus
from bughouse_arbiter.tournament.openings import BookChoice, BookIdentity
from bughouse_arbiter.tournament.report_page import PageView, tournament_page
from bughouse_arbiter.tournament.runner import TournamentPlan
from bughouse_arbiter.tournament.schedule import Participant
from bughouse_arbiter.tournament.scheduler import TableSettings
from bughouse_arbiter.tournament.stats import Sprt

EVIL = "</script><script>window.pwned=1</script>"
HOST = {
    "cores": 8,
    "usable_cores": 4,
    "load": [1.5, 0.75, 0.25],
    "cpu": "Some <b>CPU</b>",
    "system": "Linux 6.1 x86_64",
    "python": "3.11.2",
}


def _plan(tmp_path: Path) -> TournamentPlan:
    evil = EngineSpec(
        name="x",
        command=(f"/opt/{EVIL}/engine", "--flag", "two words"),
        protocol="uci",
        options={"Skill <Level>": EVIL},
        depth=7,
        init=("setoption name Ponder value false",),
    )
    plain = engine_spec("random")
    return TournamentPlan(
        participants=(
            Participant(name=f"new{EVIL}", members=(evil, evil), member_names=("new", "new")),
            Participant(name="mix", members=(plain, evil), member_names=("random", "x")),
        ),
        format="gauntlet",
        games=2,
        rules=HouseRules(time=10.0, increment=0.1, max_plies=150, time_margin=0.15),
        jobs=(),
        out=tmp_path,
        sprt=Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.1, model="logistic"),
        seed=42,
        book_choice=BookChoice(file=f"books/{EVIL}.epd", format="epd", order="random", start=3),
        book=BookIdentity(file=f"books/{EVIL}.epd", openings=120, crc32=0x1A2B3C4D),
        game_files=True,
    )


#: Two tables pinned to a core each, a pause between games, a start timeout.
TABLES = TableSettings(wait=0.25, start_timeout=5.0, cpus=(frozenset({0}), frozenset({2, 3})))


def _settings(tmp_path: Path) -> dict[str, object]:
    return conditions.settings(
        _plan(tmp_path),
        concurrency=2,
        where="this machine",
        started="T0",
        host=HOST,
        tables=conditions.local_tables(TABLES, forced=True),
        colours="noswap",
        tags=[f"Lab={EVIL}"],
    )


def test_the_settings_hold_what_the_run_was_asked_to_play(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    assert s["time_control"] == "10+0.1" and s["rules"] == ["max_plies=150"]
    assert s["seed"] == 42 and s["concurrency"] == 2 and s["where"] == "this machine"
    assert s["harness"] == f"bughouse-arbiter {__version__}"
    assert s["machine"] == HOST and s["started"] == "T0"
    assert s["book"] == {
        "file": f"books/{EVIL}.epd", "format": "epd", "plies": None, "order": "random", "start": 3,
        "openings": 120, "crc32": "1a2b3c4d",
    }  # fmt: skip
    assert s["time_margin_ms"] == 150 and s["colours"] == "noswap"
    assert s["tables"] == {
        "affinity": [[0], [2, 3]], "wait_ms": 250, "start_timeout_ms": 5000,
        "ping_timeout_ms": None, "forced": True,
    }  # fmt: skip
    assert s["games"] == {"tags": [f"Lab={EVIL}"], "game_files": True, "final_positions": False}
    sprt = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.1, model="logistic")
    assert s["sprt"] == {
        "elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.1, "model": "logistic",
        "lower": round(sprt.lower, 4), "upper": round(sprt.upper, 4),
    }  # fmt: skip
    engines = s["engines"]
    assert isinstance(engines, list) and [e["participant"] for e in engines] == [
        f"new{EVIL}",
        "mix",
    ]
    first = engines[0]["members"][0]
    assert first["command"] == f"'/opt/{EVIL}/engine' --flag 'two words'"
    assert first["options"] == {"Skill <Level>": EVIL} and first["limits"] == {"depth": 7}
    assert first["protocol"] == "uci" and first["init"] == ["setoption name Ponder value false"]
    assert [m["name"] for m in engines[1]["members"]] == ["random", "x"]
    json.dumps(s)  # kept in tournament.json as it is


def test_the_machine_is_read_here() -> None:
    host = conditions.machine()
    assert isinstance(host["cores"], int) and host["cores"] >= 1
    assert 1 <= host["usable_cores"] <= host["cores"]  # type: ignore[operator]
    assert len(host["load"]) == 3  # type: ignore[arg-type]


def _page(tmp_path: Path, session: dict[str, object] | None = None) -> str:
    summary = {"event": f"e{EVIL}", "games_played": 0, "games_scheduled": 2, "standings": []}
    view = PageView(
        summary=summary,
        tally=LiveTally(None),
        state="running",
        updated="now",
        settings=_settings(tmp_path),
        session=session,
    )
    return tournament_page(view)


def _text(page: str) -> str:
    """The page's visible text, roughly: tags out, entities read."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[1]))


def test_the_page_leads_with_the_settings_every_text_escaped(tmp_path: Path) -> None:
    page = _page(tmp_path)
    assert "<script" not in page.lower() and "<b>" not in page
    assert "&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;" in page
    text = " ".join(_text(page).split())
    for shown in (
        "time control 10+0.1 · time margin 150 ms, max_plies=150",
        "SPRT [0, 5] logistic · α 0.05 β 0.1 · LLR bounds",
        f"book books/{EVIL}.epd · epd · shuffled by the seed, from opening 3 · 120 openings"
        " · CRC32 1a2b3c4d",
        "colours --noswap: the first participant on team 1's seats in both games",
        "concurrency 2 · this machine",
        "tables pinned to cores (--use-affinity): 0, 2 3"
        " · engines share cores (--force-concurrency) · wait 250 ms between games"
        " · start timeout 5000 ms",
        f"games tag Lab={EVIL} · a file each in games/",
        "seed 42",
        f"harness bughouse-arbiter {__version__} · Python 3.11.2",
        "machine 8 cores (4 usable) · load 1.50 0.75 0.25 at the start · Some <b>CPU</b>",
        f"new{EVIL} uci · Skill <Level>={EVIL}; depth 7; init: setoption name Ponder",
        f"'/opt/{EVIL}/engine' --flag 'two words'",
        "mix (random) native",
        "(x) uci",
    ):
        assert shown in text, shown
    # First on the page, before every figure's section.
    assert re.search(r'</header><div class="lead[^"]*"><section class="card test"><h2>Test', page)
    assert "<dt>this session</dt>" not in page


def test_a_resumed_session_is_shown_beside_the_recorded_settings(tmp_path: Path) -> None:
    session = conditions.session(
        started="T1",
        concurrency=1,
        host={**HOST, "load": [3.0, 2, 1]},
        tables=conditions.local_tables(TableSettings(ping_timeout=2.0), forced=False),
    )
    text = " ".join(_text(_page(tmp_path, session)).split())
    assert "concurrency 2 · this machine" in text and "started T0" in text
    assert (
        "this session resumed T1 · concurrency 1 · not pinned to cores · ping timeout 2000 ms"
        " · load 3.00 2.00 1.00"
    ) in text


def _settings_of(folder: Path) -> object:
    return json.loads((folder / "tournament.json").read_text())["options"]["settings"]


def _facts(folder: Path) -> dict[str, str]:
    """The Test card's facts on ``report.html``."""
    page = (folder / "report.html").read_text()
    lead = page[page.index("<h2>Test</h2>") : page.index("</dl>")]
    return dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", lead))


@pytest.mark.slow
def test_a_run_records_its_settings_once_and_a_resume_shows_them(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament", "--engine", "a=random", "--engine", "b=random", "--games", "2",
        "--tc", "5+0", "--rule", "max_plies=40", "--seed", "9", "--concurrency", "2",
        "--sprt", "elo0=0,elo1=10", "--each", "movetime=20", "--out", str(out),
        "--force-concurrency", "--time-margin", "50", "--tag", "Lab=north",
        "--reverse",
    ]  # fmt: skip
    assert main(argv) == 0
    recorded = _settings_of(out)
    assert isinstance(recorded, dict)
    assert recorded["concurrency"] == 2 and recorded["seed"] == 9
    assert recorded["time_margin_ms"] == 50 and recorded["colours"] == "reverse"
    assert recorded["games"]["tags"] == ["Lab=north"]
    assert recorded["tables"]["affinity"] is None
    assert re.fullmatch(r"[0-9a-f]{8}", recorded["book"]["crc32"])
    assert recorded["engines"][0]["members"][0]["limits"] == {"movetime": 20}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"] == recorded
    facts = _facts(out)
    assert facts["started"] == recorded["started"] and facts["concurrency"] == "2 · this machine"
    assert facts["seed"] == "9" and "this session" not in facts
    assert facts["time control"] == "5+0 · time margin 50 ms, max_plies=40"
    # Two games of four engines share cores only where there are fewer than four.
    shared = concurrency_check(2, len(usable_cpus()), force=True) is not None
    said = " · engines share cores (--force-concurrency)" if shared else ""
    assert facts["tables"] == "not pinned to cores" + said
    assert facts["colours"].startswith("--reverse") and facts["games"] == "tag Lab=north"
    # More games, another concurrency, pinned (a game takes 2 cores): the
    # settings stay those of the start, the session says its own.
    pinned = ["--use-affinity"] if len(os.sched_getaffinity(0)) >= 2 else []
    again_argv = ["tournament", "--resume", str(out), "--games", "4", "--concurrency", "1"]
    assert main([*again_argv, *pinned]) == 0
    assert _settings_of(out) == recorded
    again = _facts(out)
    session = again.pop("this session")
    assert again == facts
    assert session.startswith("resumed ") and "concurrency 1" in session
    if pinned:
        assert "pinned to cores (--use-affinity): " in session


@pytest.mark.slow
def test_a_folder_from_before_the_settings_gets_them_at_its_resume(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament", "--engine", "a=random", "--engine", "b=random", "--games", "2",
        "--tc", "5+0", "--rule", "max_plies=40", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 0
    config = json.loads((out / "tournament.json").read_text())
    del config["options"]["settings"]
    (out / "tournament.json").write_text(json.dumps(config))
    assert main(["tournament", "--resume", str(out)]) == 0
    settings = _settings_of(out)
    assert isinstance(settings, dict) and settings["time_control"] == "5+0"
    assert "<h2>Test</h2>" in (out / "report.html").read_text()
