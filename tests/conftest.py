"""Settings shared by every test module."""

from hypothesis import settings

# Hypothesis's per-example deadline (200 ms) fails healthy tests on a loaded
# machine (CI, or a mutation run that traces every line); how fast things are
# is measured by the scripts under bench/, never asserted in a test.
settings.register_profile("bughouse", deadline=None)
settings.load_profile("bughouse")
