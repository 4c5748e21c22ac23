"""The rules core: seats and teams, house rules, boards, the game, the clocks.

Pure values and state machines: nothing here does I/O, reads a clock or
starts a process (``tests/test_layering.py`` enforces it). Everything else
(the arbiter, the replay, the console, the position command) judges with it.
"""
