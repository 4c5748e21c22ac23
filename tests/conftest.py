"""Settings shared by every test module."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's per-example deadline (200 ms) fails healthy tests on a loaded
# machine (CI, or a mutation run that traces every line); how fast things are
# is measured by the scripts under bench/, never asserted in a test.
settings.register_profile("bughouse", deadline=None)
settings.load_profile("bughouse")

#: Set by tools/mutation.py: every property test runs at most this many
#: examples, the same ones each run (a mutant's verdict must not depend on the
#: seed), and no health check fails a test (a mutant that slows generation
#: down is not thereby caught).
MUTATION_EXAMPLES = "BUGHOUSE_MUTATION_EXAMPLES"


#: Set by tools/mutation.py for a run's first pass: tests left out, one node
#: id a line (a trailing "*" makes it a prefix).
MUTATION_DESELECT = "BUGHOUSE_MUTATION_DESELECT"


#: Set by tools/mutation.py in every mutation run.
MUTATION_RUN = "BUGHOUSE_MUTATION"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if os.environ.get(MUTATION_RUN):
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
    _deselect_for_mutation(config, items)
    cap = int(os.environ.get(MUTATION_EXAMPLES) or 0)
    if cap <= 0:
        return
    for item in items:
        test = getattr(item, "obj", None)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if test is None or own is None:
            continue
        # @settings on a test overrides any profile, so the cap is applied to
        # each test's own settings, where @given reads them at call time.
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
