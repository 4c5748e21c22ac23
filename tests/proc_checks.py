"""What /proc says about processes: zombies of a parent, pids still running."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

#: The test engine that forks children and daemons and then crashes.
FORKING = Path(__file__).resolve().parent / "forking_engine.py"


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1])


def zombies_of(parent: int) -> set[int]:
    """The zombies whose parent is ``parent``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            facts = _state_and_parent(int(entry.name))
            if facts is not None and facts == ("Z", parent):
                found.add(int(entry.name))
    return found


def running(pids: Iterable[int]) -> list[int]:
    """Those of ``pids`` that still run (a zombie does not)."""
    return [pid for pid in pids if (facts := _state_and_parent(pid)) and facts[0] != "Z"]


def recorded(record: Path) -> list[int]:
    """The daemon pids the forking engine wrote to ``record``."""
    return [int(word) for word in record.read_text().split()] if record.exists() else []


def forking(record: Path, *options: str) -> str:
    """The forking engine's command line (for a spec)."""
    return " ".join([sys.executable, str(FORKING), str(record), *options])
