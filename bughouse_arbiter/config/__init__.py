"""What a match is made of: time control, engine specs, seats, engines files.

``specs`` is pure parsing; ``engines_file`` reads a TOML engines file and
finds the built-in external engines on this machine; ``options`` defines the
command-line options the commands share, once each, and reads ``--rule`` and
``--tc`` into the ``HouseRules`` of a game.
"""
