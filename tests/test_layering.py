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
    "protocol/lobby_lines",
    "ui/console_input",
    "ui/console_session",
    "ui/console_screen",
    "adapters/__init__",
    "adapters/common",
    "adapters/declared",
    "adapters/uci",
    "adapters/xboard",
    "adapters/tcs",
    "adapters/team_uci",
    "adapters/uci_talk",
    "ratings/__init__",
    "ratings/glicko",
    "lobby/__init__",
    "lobby/identity",
    "lobby/archive",
    "lobby/chat",
    "lobby/tables",
    "lobby/pairing",
    "lobby/messages",
    "lobby/model",
    "events/__init__",
    "events/teams",
    "events/pairings",
    "events/standings",
    "events/event",
    "events/forms",
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


# -- the layers above the core --------------------------------------------------------

#: The package's layers, lowest first: a module imports only from its own unit
#: or from a lower layer (the map in ``bughouse_arbiter/__init__.py``). A unit is
#: a subpackage or a top-level module; ``ui.match_view`` (the live match display,
#: an observer of the table) sits above the table, the rest of ``ui`` (sans-IO
#: text the console player draws with) below the players.
LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(units.split())
    for units in (
        "errors exits",
        "core",
        "config protocol bpgn ratings __init__",
        "adapters ui lobby",
        "environment players events net loop",
        "table storage web",
        "serve clients ui.match_view",
        "tournament hall",
        "commands",
        "cli",
        "__main__",
    )
)
#: Modules of ``commands/`` that are not commands (shared by several).
COMMAND_HELPERS = {"__init__", "plans", "server_admin"}


def _unit(parts: tuple[str, ...]) -> str:
    """The layer unit of the module at ``parts`` (its path in the package, no suffix)."""
    if parts[:2] == ("ui", "match_view"):
        return "ui.match_view"
    return parts[0]


def _rank(unit: str) -> int:
    [rank] = [i for i, units in enumerate(LAYERS) if unit in units]
    return rank


def _package_imports(path: Path) -> set[tuple[str, ...]]:
    """Every module of the package that ``path`` imports (at any depth, lazily or not)."""
    here = path.relative_to(PACKAGE).with_suffix("").parts
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, *rest = alias.name.split(".")
                if top == "bughouse_arbiter" and rest:
                    found.add(tuple(rest))
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        module = tuple(node.module.split(".")) if node.module else ()
        if node.level == 0:
            if module[:1] != ("bughouse_arbiter",):
                continue
            base = module[1:]
        else:
            base = here[: len(here) - node.level] + module
        for alias in node.names:
            sub = (*base, alias.name)
            place = PACKAGE.joinpath(*sub)
            if place.with_suffix(".py").exists() or place.is_dir():
                found.add(sub)  # a module imported from its package
            else:
                found.add(base or ("__init__",))
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def test_every_unit_has_a_layer() -> None:
    units = {_unit(p.relative_to(PACKAGE).with_suffix("").parts) for p in MODULES}
    placed = set().union(*LAYERS)
    assert units <= placed, units - placed


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_from_a_higher_layer(path: Path) -> None:
    here = path.relative_to(PACKAGE).with_suffix("").parts
    unit = _unit(here)
    wrong = sorted(
        ".".join(target)
        for target in _package_imports(path)
        if _unit(target) != unit and _rank(_unit(target)) >= _rank(unit)
    )
    assert not wrong, f"{unit} (layer {_rank(unit)}) imports {wrong}"


@pytest.mark.parametrize(
    "path",
    sorted((PACKAGE / "commands").glob("*.py")),
    ids=lambda p: p.stem,
)
def test_no_command_imports_another_command(path: Path) -> None:
    commands = {
        p.stem for p in (PACKAGE / "commands").glob("*.py") if p.stem not in COMMAND_HELPERS
    }
    imported = {t[1] for t in _package_imports(path) if len(t) > 1 and t[0] == "commands"}
    assert not (imported & commands) - {path.stem}
