"""The network's bounds and plumbing, shared by ``bughouse serve`` and ``bughouse server``.

Nothing here knows a table, a lobby or a game: these are the pieces every
front end of either server stands on.

- ``limits``: the bounds every connection lives under (line length, lines per
  second, open connections, time and lines before authentication), the rate
  limiter, and ``--limit``.
- ``admission``: the bounded pools of connections that hold no seat, the
  oldest making room, a share per address.
- ``refusals``: the log of refused connections, bounded (the first few, then
  a count per period).
- ``streams``: lines from a byte stream, one read at a time.
- ``tls``: TLS contexts and handshakes for the line port and the clients,
  each failure one line.
- ``tcp``: listeners, a new connection's first moments (its waiting room, TLS,
  first line), and ``TcpLink``, an authenticated connection carrying lines.
- ``asgi_host``: ``serve_asgi``, a Starlette app under Hypercorn's trio worker
  in the current trio run (TLS, framing and timeouts from Hypercorn).
- ``gate``: the Host/Origin check, the requests' admission pool, text-only
  sockets and the page files' headers every web app stands behind.
- ``collector``: the garbage collector of a process holding many connections.
"""
