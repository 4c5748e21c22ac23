"""The table: the trio arbiter that seats four players and runs a match.

``arbiter.run_match`` is where players, clocks and the rules meet;
``match_events`` holds the values it reports to its observer and returns;
``stopping`` turns Ctrl+C, SIGTERM and SIGHUP into the cancellation of a match.
Above the arbiter, one module per behaviour, for every command and backend:
``games.play_game`` plays one game (on kept or fresh engines),
``keeper.EngineKeeper`` keeps a table's engines between games, and
``recording.GameWriter`` records a game's BPGN.
"""
