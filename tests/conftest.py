"""Settings shared by every test module."""

import os

import pytest
from hypothesis import settings

# Hypothesis's per-example deadline (200 ms) fails healthy tests on a loaded
# machine (CI, or a mutation run that traces every line); how fast things are
# is measured by the scripts under bench/, never asserted in a test.
settings.register_profile("bughouse", deadline=None)
settings.load_profile("bughouse")

# tools/mutation.py runs the tests once per mutant with BUGHOUSE_MUTATION=1:
# few examples, the same ones for every mutant (so a verdict can be rerun),
# no example database, and property tests after the quick ones (-x stops at
# the first failure, so a mutant a plain test kills costs no search at all).
MUTATION_RUN = bool(os.environ.get("BUGHOUSE_MUTATION"))
settings.register_profile(
    "mutation",
    parent=settings.get_profile("bughouse"),
    max_examples=20,
    derandomize=True,
    database=None,
)
if MUTATION_RUN:
    settings.load_profile("mutation")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if MUTATION_RUN:
        items.sort(
            key=lambda item: bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False))
        )
