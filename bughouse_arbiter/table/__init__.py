"""The table: the trio arbiter that seats four players and runs a match.

``arbiter.run_match`` is where players, clocks and the rules meet;
``match_events`` holds the values it reports to its observer and returns;
``stopping`` turns Ctrl+C, SIGTERM and SIGHUP into the cancellation of a match.
"""
