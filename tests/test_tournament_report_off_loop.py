"""Inside a trio run, ``report.html`` is made and written in a thread from copies: the
driver's loop (the engines' clocks') keeps turning, and the final page stays last."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from loop_checks import Gate
from test_tournament_report_page import _jobs, _report, _summary

import bughouse_arbiter.tournament.report_file as report_file
from bughouse_arbiter.tournament.report_file import REPORT, ReportFile
from bughouse_arbiter.tournament.report_page import PageView, tournament_page


async def test_the_page_is_made_while_the_loop_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    seen: list[int] = []

    def gated(view: PageView) -> str:
        gate.wait()  # on the loop, this would wait for a loop that cannot turn
        seen.append(sum(p.games for _, p in view.tally.in_order()))
        return tournament_page(view)

    monkeypatch.setattr(report_file, "tournament_page", gated)
    page = ReportFile(tmp_path, None)
    jobs = _jobs("ab", 4)
    page.game(jobs[0], _report(jobs[0], 1.0))
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(gate.turn)
            assert page.update(_summary)
            assert not page.update(_summary)  # one write at a time (and not too often)
            for job in jobs[1:]:
                page.game(job, _report(job, 0.5))  # the loop goes on feeding the tally
            while page.writes == 0:
                await trio.sleep(0.01)
    assert seen == [1]  # the page shows the copy taken when it was asked for
    assert gate.turned == gate.turns and (tmp_path / REPORT).exists()


async def test_a_write_still_under_way_does_not_replace_the_final_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    calls: list[str] = []

    def late(view: PageView) -> str:
        calls.append(view.state)
        if view.state == "running":  # the write off the loop, still under way
            gate.wait()
            return tournament_page(view).replace("<body", "<body data-late", 1)
        return tournament_page(view)

    page = ReportFile(tmp_path, None)
    [job] = _jobs("ab", 1)
    page.game(job, _report(job, 1.0))
    with trio.fail_after(30):
        monkeypatch.setattr(report_file, "tournament_page", late)
        assert page.update(_summary)
        while not calls:  # the thread has begun: it waits in late()
            await trio.sleep(0.001)
        page.finish(_summary(), "finished")
        await gate.turn()
        while page._writing:  # type: ignore[attr-defined]
            await trio.sleep(0.01)
    text = (tmp_path / REPORT).read_text()
    assert calls == ["running", "finished"]
    assert "finished" in text and "data-late" not in text
