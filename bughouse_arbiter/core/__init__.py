"""The rules core: seats and teams, house rules, boards, the game, the clocks.

Pure values and state machines: nothing here does I/O, reads a clock or
starts a process (``tests/test_layering.py`` enforces it). Everything else
(the arbiter, the replay, the console, the position command) judges with it.

The judging path (model, rules, board, game) holds its values in frozen
dataclasses, not attrs classes: ``bughouse position`` imports this path and
nothing else, and importing attrs would add about a fifth to its start-up
(``tests/test_cli_imports.py`` keeps attrs out of it).
"""
