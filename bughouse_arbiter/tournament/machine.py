"""The machine a tournament's games share: its cores, the concurrency they bear,
and which cores each table's engines are pinned to (``--use-affinity``).

Pure but for ``usable_cpus``. In a bughouse game two engines think at once
(one on each board), so a game needs ``CORES_PER_GAME`` cores: more games at
once than the cores bear make the engines share cores, which weakens them and
costs games on time (the SPRT then measures the machine). ``concurrency_check``
refuses that unless forced, as fastchess caps its concurrency at the hardware's
threads unless ``-force-concurrency``; ``clock_warning`` says when a run's
games were lost on time more than the engines' play explains.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import attrs

from ..errors import ConfigError
from .jobs import MatchReport

__all__ = [
    "CORES_PER_GAME",
    "ClockCounts",
    "affinity_supported",
    "clock_warning",
    "concurrency_check",
    "table_cpus",
    "usable_cpus",
]

#: Cores one game needs: two engines think at once, one on each board.
CORES_PER_GAME = 2


def usable_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (its affinity mask), in order."""
    try:
        return tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return tuple(range(os.cpu_count() or 1))


def affinity_supported() -> bool:
    """Whether engine processes can be pinned to cores here (Linux's ``sched_setaffinity``)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def concurrency_check(concurrency: int, cpus: int, *, force: bool) -> str | None:
    """None when ``concurrency`` games fit ``cpus`` cores; else the warning to print
    (``force``), or ConfigError (one line) without it.

    One game always runs, whatever the cores: a refusal is for a second game
    and beyond, when ``CORES_PER_GAME * concurrency`` exceeds the cores.
    """
    engines = CORES_PER_GAME * concurrency
    if engines <= cpus:
        return None
    said = (
        f"--concurrency {concurrency} runs up to {engines} thinking engines on {cpus} "
        f"CPU{'s' if cpus != 1 else ''}: engines will share cores, which weakens them and "
        "can cost games on time"
    )
    bears = max(1, cpus // CORES_PER_GAME)
    if force or concurrency <= bears:
        return said
    raise ConfigError(
        f"{said}; give --concurrency {bears} (what {cpus} CPU{'s' if cpus != 1 else ''} "
        "bear), or --force-concurrency to run them anyway"
    )


def table_cpus(concurrency: int, cpus: tuple[int, ...]) -> list[frozenset[int]]:
    """The cores of each of ``concurrency`` tables for ``--use-affinity``: table i
    gets ``CORES_PER_GAME`` cores of its own, in order.

    Raises:
        ConfigError: pinning is not supported here, or the cores do not give
            every table its own.
    """
    if not affinity_supported():
        raise ConfigError(
            "--use-affinity pins engines with sched_setaffinity, which this system "
            "does not have (Linux only)"
        )
    need = CORES_PER_GAME * concurrency
    if need > len(cpus):
        raise ConfigError(
            f"--use-affinity gives each game {CORES_PER_GAME} cores of its own: "
            f"--concurrency {concurrency} needs {need}, and this process may use "
            f"{len(cpus)} ({', '.join(map(str, cpus))})"
        )
    return [
        frozenset(cpus[CORES_PER_GAME * i : CORES_PER_GAME * (i + 1)]) for i in range(concurrency)
    ]


#: The clock warning needs this many games played (fewer say little).
WARN_MIN_GAMES = 10
#: ... and this share of them lost on time ...
WARN_TIME_LOSS_SHARE = 0.25
#: ... of which the harness's delay caused at most this share (``play.harness_caused``).
WARN_HARNESS_SHARE = 0.25


@attrs.define
class ClockCounts:
    """The games, and those lost on time and by the harness's delay, as they come."""

    games: int = 0
    lost_on_time: int = 0
    by_harness: int = 0

    def add(self, report: MatchReport) -> None:
        self.games += 1
        self.lost_on_time += bool(report.time_losses)
        self.by_harness += bool(report.harness_time_losses)

    def warning(self) -> str | None:
        """A warning when many games end on time while the harness caused few of
        those losses: the engines are short of CPU (other load, ``--concurrency``)
        or of time, and the results measure that more than the engines' strength.

        It is given once ``WARN_MIN_GAMES`` games are played, at least
        ``WARN_TIME_LOSS_SHARE`` of them lost on time, and the harness's delay on
        the loser's clock (``play.HARNESS_LOSS_SHARE`` of its time or more)
        explains at most ``WARN_HARNESS_SHARE`` of those losses; None otherwise.
        """
        games, flags, harness = self.games, self.lost_on_time, self.by_harness
        if games < WARN_MIN_GAMES or flags < WARN_TIME_LOSS_SHARE * games:
            return None
        if harness > WARN_HARNESS_SHARE * flags:
            return None
        return (
            f"{flags} of {games} games ({100 * flags / games:.0f}%) were lost on time, "
            f"and the harness's delay caused at most {harness} of them: the engines are "
            "short of CPU (other load, --concurrency) or of time, so the results measure "
            "time losses more than strength; try a lower --concurrency, --use-affinity, "
            "a longer --tc or --time-margin MS"
        )


def clock_warning(reports: Iterable[MatchReport]) -> str | None:
    """``ClockCounts.warning`` of ``reports``."""
    counts = ClockCounts()
    for report in reports:
        counts.add(report)
    return counts.warning()
