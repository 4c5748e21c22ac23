"""The sans-IO core imports no trio, reads no clock and starts no process."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "bughouse_arbiter"
CORE = [
    "core/model",
    "errors",
    "core/rules",
    "core/board",
    "core/game",
    "core/clock",
    "ui/render",
    "config/specs",
    "tournament/stats",
    "tournament/results",
    "tournament/schedule",
    "bpgn/notation",
    "bpgn/write",
    "bpgn/read",
    "bpgn/claims",
    "bpgn/positions",
    "bpgn/replay",
    "bpgn/frames",
    "protocol/__init__",
    "protocol/messages",
    "protocol/grammar",
    "protocol/session",
    "protocol/limits",
    "protocol/signals",
    "ui/console_input",
    "ui/console_session",
    "ui/console_screen",
    "adapters/__init__",
    "adapters/common",
    "adapters/uci",
    "adapters/xboard",
]
FORBIDDEN_MODULES = {"trio", "subprocess", "asyncio", "threading", "time", "socket"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("module", CORE)
def test_core_module_does_no_io(module: str) -> None:
    path = PACKAGE / f"{module}.py"
    assert path.exists(), f"core module {module} is missing"
    assert not _imports(path) & FORBIDDEN_MODULES
