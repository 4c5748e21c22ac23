#!/usr/bin/env python3
"""Cost of a tournament's live tally and ``report.html`` as a run grows.

    python bench/report_page.py [--games 1000,10000,100000] [--model normalized]

For each game count it feeds that many finished games of one SPRT pairing
into a ``LiveTally`` (what the driver does after every game), then builds
the page once from it and a summary (what a rewrite does), and prints the
tally's cost per game, the page's build time and size, the points its plots
hold, and the peak resident memory of this process (the bench's own list of
reports is most of it). The page's size and the points stay flat however
many games. The SPRT's LLR (milliseconds each with the normalized model) is
computed when the page is built, once per plotted point, so the first build
after a long feed (a resume) pays for every point and later ones only for
the new. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.tournament.jobs import MatchReport
from bughouse_arbiter.tournament.live import LiveTally
from bughouse_arbiter.tournament.report_page import PageView, tournament_page
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.stats import Sprt

RESULTS = (Result.TEAM_ONE, Result.DRAW, Result.TEAM_TWO, Result.DRAW, Result.TEAM_ONE)


def summary(games: int) -> dict[str, object]:
    return {
        "event": "bench",
        "format": "gauntlet",
        "time_control": "10+0",
        "games_played": games,
        "games_scheduled": games,
        "standings": [],
        "pairings": [],
        "crosstable": {},
        "sprt": {"elo0": 0, "elo1": 5, "model": "normalized", "llr": 0.0, "lower": -2.94,
                 "upper": 2.94, "decision": None, "pairs": games // 2},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="1000,10000,100000")
    parser.add_argument("--model", default="normalized", choices=("normalized", "logistic"))
    args = parser.parse_args()
    spec = engine_spec("random")
    teams = [Participant(name=n, members=(spec, spec), member_names=(n, n)) for n in "ab"]
    print(f"model {args.model}; load average {os.getloadavg()[0]:.1f}")
    for count in (int(c) for c in args.games.split(",")):
        jobs = schedule(teams, format="gauntlet", games=count, rules=HouseRules(), openings=[])
        reports = [
            MatchReport(job_id=j.job_id, result=RESULTS[i % len(RESULTS)], reason="r", plies=80)
            for i, j in enumerate(jobs)
        ]
        tally = LiveTally(Sprt(elo0=0, elo1=5, model=args.model))
        start = time.perf_counter()
        for job, report in zip(jobs, reports, strict=True):
            tally.add(job, report)
        fed = time.perf_counter() - start
        start = time.perf_counter()
        page = tournament_page(
            PageView(summary=summary(count), tally=tally, state="running", updated="now")
        )
        built = time.perf_counter() - start
        pairing = tally.pairings[0]
        points = len(pairing.elo) + (len(pairing.llr) if pairing.llr is not None else 0)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{count:>7} games: tally {1e6 * fed / count:7.1f} us/game, page built in "
            f"{1000 * built:6.1f} ms, {len(page) / 1024:6.1f} KiB, {points} plot points, "
            f"peak RSS {peak:.0f} MB"
        )


if __name__ == "__main__":
    main()
