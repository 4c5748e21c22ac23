"""The machine a tournament's games share: its cores, the concurrency they bear,
and which cores each table's engines are pinned to (``--use-affinity``).

Pure but for ``usable_cpus``. In a bughouse game two engines think at once
(one on each board), so a game needs ``CORES_PER_GAME`` cores: more games at
once than the cores bear make the engines share cores, which weakens them and
costs games on time (the SPRT then measures the machine). ``concurrency_check``
refuses that unless forced, as fastchess caps its concurrency at the hardware's
threads unless ``-force-concurrency``.
"""

from __future__ import annotations

import os

from ..errors import ConfigError

__all__ = [
    "CORES_PER_GAME",
    "affinity_supported",
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
