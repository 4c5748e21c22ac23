"""``bughouse tournament``: many games between engines, with statistics.

Owns everything between "these participants, this format" and "this
summary": the schedule of games (pairings, opening pairs with teams swapped,
seats rotated), the opening book, the journal (``results.jsonl``) and resume,
the statistics (Elo, LOS, pentanomial, SPRT, rating fits; pure), the output
folder, the progress display and the report page (``report_page.py``, pure;
``report_file.py`` keeps ``report.html`` in the run folder).

Where a game is played is not its business: the tournament hands
``MatchJob`` values (``jobs.py``) to a ``Scheduler`` (``scheduler.py``) and
gets ``MatchReport`` values back; a table plays each with ``play.py`` on the
table layer's ``EngineKeeper`` and ``play_game``, as ``match`` does.
``LocalScheduler`` plays them in this process with trio; ``RayScheduler``
(``ray_backend.py``) on other machines, each game slot a Ray actor
(``ray_table.py``) keeping its engines.
Nothing above the scheduler knows which backend runs it.
"""
