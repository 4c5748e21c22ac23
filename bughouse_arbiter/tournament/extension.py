"""A schedule that grows: more games per pairing for a tournament already run.

``extended(first, longer, seed)``: the jobs of the schedule the tournament
started with, unchanged, then those of the longer schedule it does not
hold, in the longer one's order, numbered on from the last. So the games
already played keep their number, seat, opening and engine seed, and a run
extended twice plays the same schedule as one extended once to the same
length. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .jobs import MatchJob


def extended(
    first: Sequence[MatchJob], longer: Sequence[MatchJob], seed: int | None
) -> list[MatchJob]:
    """``first`` and, after it, ``longer``'s other jobs renumbered (``seed`` as ``schedule``'s)."""
    jobs = list(first)
    held = {job.job_id for job in first}
    for job in longer:
        if job.job_id in held:
            continue
        number = len(jobs) + 1
        jobs.append(
            attrs.evolve(job, number=number, seed=None if seed is None else seed + 1000 * number)
        )
    return jobs
