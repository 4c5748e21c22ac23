"""``bughouse tournament``: many games between engines, with statistics.

Owns everything between "these participants, this format" and "this
summary": the schedule of games (pairings, opening pairs with teams swapped,
seats rotated), the opening book, the journal (``results.jsonl``) and resume,
the statistics (Elo, LOS, pentanomial, SPRT, rating fits; pure), the output
folder and the progress display.

Where a game is played is not its business: the tournament hands
``MatchJob`` values (``jobs.py``) to a ``Scheduler`` (``scheduler.py``) and
gets ``MatchReport`` values back. ``LocalScheduler`` plays them in this
process with trio; another backend (Ray) may play them on other machines.
Nothing above the scheduler knows which backend runs it.
"""
