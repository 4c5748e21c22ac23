"""The client ends: what dials a server and plays or watches from here.

- ``link``: ``ClientLink`` and ``open_seat``: dial a ``serve`` seat,
  authenticate, answer pings, exchange lines (``bughouse connect``,
  ``bughouse play --connect``).
- ``bridge``: a local ``Player`` (an adapter engine, the console) seated at a
  remote table's seat.
- ``lobby_link``: find ``bughouse server``'s line port, dial it, say hello.
- ``bot``: a bot in the line lobby, one engine game after game
  (``connect --server URL --bot NAME``).
- ``console_lobby``: a person at the console in the line lobby
  (``play --server URL``).
"""
