"""The lobby server's web side: one Starlette app and the pages it serves.

- ``app``: ``build_app``, the lobby page, its socket and every table's page.
- ``table_pages``: a lobby table's page sessions (``serve``'s live page, on
  the table's socket).
- ``events``: the events page, an event's page and its socket.
- ``site``: accounts and the archive, as one piece the app mounts;
  ``accounts`` (register, log in, log out, who a socket is), ``archive`` (the
  leaderboard, a player's page, the games), ``plot`` (a rating history as
  SVG) and ``shell`` (the pages' one HTML shell and its style).
"""
