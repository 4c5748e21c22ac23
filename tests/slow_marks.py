"""Which tests are slow, told and checked: a test that starts a process is ``slow``.

``pytest -m "not slow"`` is the quick answer a developer waits for, so it must
hold no test that starts a process (an engine, a server, a browser, Ray): each
costs a second or more, and a whole-suite run is where they belong.

- *Told*: a test whose fixtures start processes (``SLOW_FIXTURES``) or that is
  marked ``ray`` is marked ``slow`` at collection, without saying so itself.
- *Checked*: an audit hook sees every process a test starts (``subprocess.Popen``,
  ``os.fork``, ``os.posix_spawn``…, which trio, asyncio, Playwright, Ray and
  multiprocessing all go through); a test that starts one while not marked
  ``slow`` fails, naming what it started. With ``BUGHOUSE_SPAWNS=FILE`` the
  check records instead: the node ids that started a process, one a line.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Generator
from typing import Any

import pytest

#: Fixtures wider than one test that start processes, as ``module.name``: the
#: process starts for whichever test asks first, so every test asking is slow.
SLOW_FIXTURES = frozenset(
    {
        "test_replay_memory.games",
        "test_replay_memory.check_peaks",
        "test_tournament_ray.cluster",
        "test_tournament_report_browser.run",
        "test_tournament_resume_fuzz.played",
        "test_web_replay.browser",
    }
)

#: The audit events by which a Python process starts another.
SPAWN_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.fork",
        "os.forkpty",
        "os.posix_spawn",
        "os.spawn",
        "os.exec",
        "os.system",
        "pty.spawn",
    }
)

RECORD_ENV = "BUGHOUSE_SPAWNS"


class _Spawns:
    """What the running test has started so far (audit hooks run in any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: list[str] = []
        self.watching = False

    def reset(self) -> None:
        with self._lock:
            self._seen = []

    def add(self, what: str) -> None:
        with self._lock:
            if len(self._seen) < 5:
                self._seen.append(what)

    def seen(self) -> list[str]:
        with self._lock:
            return list(self._seen)


_SPAWNS = _Spawns()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event in SPAWN_EVENTS and _SPAWNS.watching:
        _SPAWNS.add(f"{event} {_describe(event, args)}".strip())


def _describe(event: str, args: tuple[Any, ...]) -> str:
    if event == "subprocess.Popen" and len(args) > 1:
        command = args[1]
        if isinstance(command, list | tuple):
            command = " ".join(str(part) for part in command)
        return str(command)[:80]
    return ""


def pytest_configure(config: pytest.Config) -> None:
    sys.addaudithook(_audit)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("ray") or _asks_for_slow_fixture(item):
            item.add_marker(pytest.mark.slow)


def _asks_for_slow_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    for name, definitions in info.name2fixturedefs.items():
        for definition in definitions:
            module = getattr(definition.func, "__module__", "")
            if f"{module}.{name}" in SLOW_FIXTURES:
                return True
    return False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    _SPAWNS.reset()
    _SPAWNS.watching = True
    try:
        yield
    finally:
        _SPAWNS.watching = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None]:
    outcome = yield
    seen = _SPAWNS.seen()
    if call.when != "teardown" or not seen:
        return
    record = os.environ.get(RECORD_ENV)
    if record:
        with open(record, "a", encoding="utf-8") as out:
            out.write(item.nodeid + "\n")
        return
    report = outcome.get_result()
    if item.get_closest_marker("slow") is None and report.passed:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} starts a process but is not marked slow "
            f"(`@pytest.mark.slow`): {'; '.join(seen)}"
        )
