"""The test's settings, recorded once when a run starts, shown at the top of ``report.html``.

What an engine author reads first on fishtest's test page: each
participant's engines (command, protocol, options, limits), the book (and
its CRC-32), the time control with its margin and the house rules that
differ from the defaults, the colour rotation, the concurrency and where
the games run (with the local tables' affinity, pause and timeouts), the
SPRT and its model, the seed, the games' own tags and files, the harness's
version and the machine (cores, load at the start). ``settings`` makes them
(JSON values), ``tournament.json`` keeps them under ``SETTINGS``, and a
resumed run shows those, not its own session's; ``session`` is what a
resumed session adds (its concurrency and tables may differ).
``machine`` reads this machine; the rest is pure.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from .. import __version__
from ..config.specs import EngineSpec
from ..core.rules import HouseRules
from .runner import TournamentPlan, time_control_text
from .scheduler import TableSettings

#: The key of ``tournament.json``'s options that holds them.
SETTINGS = "settings"
#: House rules the time control already says.
_CLOCK = frozenset({"time", "increment", "clock"})


def machine() -> dict[str, object]:
    """This machine: cores (and those this process may use), load average, CPU, system."""
    cores = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {
        "cores": cores,
        "usable_cores": usable,
        "load": load,
        "cpu": _cpu_model(),
        "system": f"{platform.system()} {platform.release()} {platform.machine()}".strip(),
        "python": platform.python_version(),
    }


def _cpu_model() -> str:
    with contextlib.suppress(OSError, UnicodeDecodeError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return " ".join(value.split())
    return platform.processor()


def settings(
    plan: TournamentPlan,
    *,
    concurrency: int | None,
    where: str,
    started: str,
    host: Mapping[str, object],
    tables: Mapping[str, object] | None = None,
    colours: str = "swapped",
    tags: Sequence[str] = (),
) -> dict[str, object]:
    """The settings of the run ``plan`` (``host`` is ``machine()`` at its start;
    ``tables`` is ``local_tables`` of games played here; ``colours`` is
    ``swapped``, ``noswap`` or ``reverse``; ``tags`` are ``--tag``'s)."""
    sprt = plan.sprt
    book: dict[str, object] = attrs.asdict(plan.book_choice)
    if plan.book is not None:
        book |= {"openings": plan.book.openings, "crc32": f"{plan.book.crc32:08x}"}
    return {
        "started": started,
        "harness": f"bughouse-arbiter {__version__}",
        "machine": dict(host),
        "where": where,
        "concurrency": concurrency,
        "tables": None if tables is None else dict(tables),
        "format": plan.format,
        "time_control": time_control_text(plan.rules),
        "time_margin_ms": round(1000 * plan.rules.time_margin, 3),
        "rules": rule_changes(plan.rules),
        "book": book,
        "colours": colours,
        "seed": plan.seed,
        "sprt": None
        if sprt is None
        else {
            "elo0": sprt.elo0,
            "elo1": sprt.elo1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "model": sprt.model,
            "lower": round(sprt.lower, 4),
            "upper": round(sprt.upper, 4),
        },
        "max_failures": plan.max_failures,
        "games": {
            "tags": list(tags),
            "game_files": plan.game_files,
            "final_positions": plan.final_positions,
        },
        "engines": [
            {
                "participant": p.name,
                "team_mode": p.team_mode,
                "members": [
                    _engine(name, spec)
                    for name, spec in zip(p.member_names, p.members, strict=True)
                ],
            }
            for p in plan.participants
        ],
    }


def local_tables(tables: TableSettings, *, forced: bool) -> dict[str, object]:
    """How the tables here play: the cores each is pinned to (``--use-affinity``;
    None: not pinned), the pause between games and the engines' timeouts in
    ms (None: the defaults), and whether ``--force-concurrency`` made games
    share cores."""

    def ms(seconds: float | None) -> float | None:
        return None if seconds is None else round(1000 * seconds, 3)

    return {
        "affinity": [sorted(cpus) for cpus in tables.cpus] or None,
        "wait_ms": ms(tables.wait),
        "start_timeout_ms": ms(tables.start_timeout),
        "ping_timeout_ms": ms(tables.ping_timeout),
        "forced": forced,
    }


def session(
    *,
    started: str,
    concurrency: int | None,
    host: Mapping[str, object],
    tables: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """What a resumed session plays with, beside the recorded settings."""
    return {
        "started": started,
        "concurrency": concurrency,
        "tables": None if tables is None else dict(tables),
        "machine": dict(host),
    }


def rule_changes(rules: HouseRules) -> list[str]:
    """``name=value`` of each house rule that is not the default (the clock aside)."""
    default = dict(HouseRules().to_pairs())
    return [
        f"{name}={value}"
        for name, value in [("profile", rules.profile), *rules.to_pairs()]
        if name not in _CLOCK and default.get(name, "default") != value != "custom"
    ]


def _engine(name: str, spec: EngineSpec) -> dict[str, object]:
    limits = {k: getattr(spec, k) for k in ("movetime", "depth", "nodes")}
    return {
        "name": name,
        "protocol": spec.protocol,
        "command": shlex.join(spec.command),
        "folder": spec.cwd,
        "options": dict(spec.options),
        "limits": {k: v for k, v in limits.items() if v is not None},
        "init": list(spec.init),
    }
