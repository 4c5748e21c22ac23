"""The one-table server, ``bughouse serve``: remote seats, their front ends, the live page.

- ``seam``: ``LiveTable``, what a running table hands to every front end (the
  remote seats, their tokens, the arbiter's events, and ``attach`` to seat an
  authenticated connection).
- ``remote``: ``RemoteSeat``, the line transport of a remote seat's
  ``NativeEnginePlayer`` (the same protocol logic as for a subprocess engine,
  the pipe replaced by whichever connection holds the seat now), with the
  reconnect grace and the leaver rule.
- ``listener``: the TCP front end: accepts, authenticates (``auth SEAT
  TOKEN``) and attaches the connection to its seat.
- ``live_page``: ``WebFrontEnd``, the live page of ``--web``; its
  ``PageSession`` needs only a text socket, so the lobby server's tables
  reuse it.
- ``live_view``: the running table as the live page sees it (arbiter events
  in, JSON snapshots out). Pure.

The lobby server (``hall``) runs each of its tables on these same pieces.
"""
