"""The trio runtime of ``bughouse server``: the ``Hall`` and a ``TableHost`` per table.

``lobby`` holds the rules as values; this package runs them: the lobby's
timers and its messages to members (``runtime``), every table's games in a
nursery of its own (``tables.TableHost``, on ``serve``'s table pieces), club
evenings (``events``), the line port's front end (``line_lobby``), and the
web side (``web``). The games kept in the database go through
``storage.archive``.
"""
