"""Settings shared by every test module."""

from __future__ import annotations

import os
import sys

import pytest

pytest_plugins = ["slow_marks"]

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # an optional test dependency: its modules skip themselves
    HealthCheck = settings = None  # type: ignore[assignment,misc]

MUTATION_RUN = bool(os.environ.get("BUGHOUSE_MUTATION"))

if settings is not None:
    # Hypothesis's per-example deadline (200 ms) fails healthy tests on a loaded
    # machine (CI, or a mutation run that traces every line); how fast things are
    # is measured by the scripts under bench/, never asserted in a test.
    settings.register_profile("bughouse", deadline=None)
    settings.load_profile("bughouse")

    # tools/mutation.py runs the tests once per mutant with BUGHOUSE_MUTATION=1:
    # few examples, the same ones for every mutant (so a verdict can be rerun),
    # no example database, and property tests after the quick ones (-x stops at
    # the first failure, so a mutant a plain test kills costs no search at all).
    settings.register_profile(
        "mutation",
        parent=settings.get_profile("bughouse"),
        max_examples=20,
        derandomize=True,
        database=None,
    )
    if MUTATION_RUN:
        settings.load_profile("mutation")

#: Set by tools/mutation.py (--examples): a test's own @settings outrank any
#: profile, so this caps each property test's examples where they are read;
#: the examples are fixed and no health check fails a test (a mutant that
#: slows generation down is not thereby caught).
MUTATION_EXAMPLES = "BUGHOUSE_MUTATION_EXAMPLES"

#: Set by tools/mutation.py for a run's first pass: tests left out, one node
#: id a line (a trailing "*" makes it a prefix).
MUTATION_DESELECT = "BUGHOUSE_MUTATION_DESELECT"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if MUTATION_RUN:
        _clear_caches(item)


def _clear_caches(item: pytest.Item) -> None:
    """Empties the functools caches of the test's module and of the code: mutmut
    runs each mutant in a process forked after the clean run, where a cache would
    hand it what the unmutated code made; and it maps a test to the functions
    it reaches, which a cache filled by an earlier test would hide."""
    modules = [m for name, m in sys.modules.items() if name.startswith("bughouse_arbiter.")]
    if isinstance(item, pytest.Function):
        modules.append(item.module)
    for module in modules:
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) == module.__name__ and hasattr(
                value, "cache_clear"
            ):
                value.cache_clear()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not MUTATION_RUN:
        return
    _deselect_for_mutation(config, items)
    items.sort(
        key=lambda item: bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
    )
    cap = int(os.environ.get(MUTATION_EXAMPLES) or 0)
    if cap > 0:
        for item in items:
            _cap_examples(item, cap)


def _cap_examples(item: pytest.Item, cap: int) -> None:
    test = getattr(item, "obj", None)
    own = getattr(test, "_hypothesis_internal_use_settings", None)
    if test is None or own is None:
        return
    # @given reads the test's own settings at call time.
    test._hypothesis_internal_use_settings = settings(
        own,
        max_examples=min(own.max_examples, cap),
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def _deselect_for_mutation(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = [line for line in os.environ.get(MUTATION_DESELECT, "").splitlines() if line]
    if not wanted:
        return
    exact = {w for w in wanted if not w.endswith("*")}
    prefixes = tuple(w[:-1] for w in wanted if w.endswith("*"))

    def left_out(item: pytest.Item) -> bool:
        return item.nodeid in exact or bool(prefixes and item.nodeid.startswith(prefixes))

    dropped = [item for item in items if left_out(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if not left_out(item)]


@pytest.fixture(autouse=True)
def _own_data_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every test's programs keep their data (``bughouse server``'s default
    database) in a folder of the test's own, never in the user's
    ``~/.local/share`` nor in one another test's server still holds.
    ``serve_helpers.ENV``, the environment its processes start with, was
    copied at import: it gets the folder too."""
    import serve_helpers

    folder = str(tmp_path_factory.mktemp("data"))
    monkeypatch.setenv("XDG_DATA_HOME", folder)
    monkeypatch.setitem(serve_helpers.ENV, "XDG_DATA_HOME", folder)
