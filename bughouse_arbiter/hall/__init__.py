"""The trio runtime of ``bughouse server``: the ``Hall`` and a ``TableHost`` per table.

``lobby`` holds the rules as values; this package runs them: the lobby's
timers, its messages to members, and every table's games in a nursery of
its own (``tables.TableHost``), on the same table code as ``serve``.
"""
