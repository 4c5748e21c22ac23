"""The table as a server: remote seats joined over the network (``bughouse serve``).

- ``seam``: ``LiveTable``, what a running ``serve`` hands to every front end
  (the TCP listener here, the web page of ``--web``): the remote seats, their
  tokens, the arbiter's events, and ``attach`` to seat an authenticated line
  connection.
- ``remote``: ``RemoteSeat``, the line transport of a remote seat's
  ``NativeEnginePlayer`` (the same protocol logic as for a subprocess engine,
  the pipe replaced by whichever connection holds the seat now), with the
  reconnect grace and the leaver rule.
- ``limits``: the bounds every connection lives under (line length, lines per
  second, open connections, time and lines before authentication), and
  ``serve --limit``.
- ``admission``: the bounded pools of connections that hold no seat, the
  oldest making room, a share per address.
- ``refusals``: the log of refused connections, bounded (the first few, then
  a count per period).
- ``listener``: the TCP front end: accepts, authenticates (``auth SEAT TOKEN``),
  enforces the limits and attaches the connection to its seat.
- ``tls``: TLS for the TCP port (``serve --certfile --keyfile``) and the
  clients (``--tls``, ``--cafile``): contexts, the server's and the client's
  handshakes, each failure one line.
- ``client``: the other end, used by ``bughouse connect`` and ``bughouse play
  --connect``: dial, authenticate, answer pings, exchange lines.
- ``driver``: ``PlayerDriver``, the engine side of protocol.md: a local
  ``Player`` (a UCI/xboard adapter player, the console) driven by the
  server's lines.
- ``collector``: the garbage collector of a process holding many
  connections (``bughouse server``): start-up frozen, collections rare,
  none once it stops.
"""
