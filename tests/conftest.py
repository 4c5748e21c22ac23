"""Settings shared by every test module."""

from __future__ import annotations

import os

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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
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
