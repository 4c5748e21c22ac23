"""The table in a browser: pages built from the rules code's own values.

``replay_page`` turns a replayed BPGN game into one self-contained HTML file
(boards drawn by python-chess's ``chess.svg``, no network needed to open it).
Pure: functions take values and return text; the commands write the files.
"""
