"""The trio loop's health: how late it wakes (``lag``) and the pools that keep slow
work off it (``workers``).

The rule both servers keep: the loop only moves messages and clocks. Work whose
cost grows with data (a page rendered from the archive, a Swiss pairing, a
report) goes to a bounded ``workers.WorkerPool``; ``lag.LagMonitor`` says when
something broke the rule anyway.
"""
