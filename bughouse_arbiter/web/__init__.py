"""The table in a browser: pages built from the rules code's own values.

- ``replay_page``: a replayed BPGN game as one self-contained HTML file
  (boards drawn by python-chess's ``chess.svg``, no network needed to open
  it). Pure: functions take values and return text; the commands write files.
- ``live_view``: the running table as the live page sees it (arbiter events
  in, JSON snapshots out, with a seat's legal moves and each board's moves
  by range). Pure.
- ``asgi_host``: ``serve_asgi``, an ASGI app (Starlette) under Hypercorn's
  trio worker in the current trio run: TLS, HTTP/1.1, WebSocket framing and
  every connection's bounds from Hypercorn, a graceful stop on cancellation.
- ``gate``: the Starlette pieces every web app of the server stands behind:
  the Host/Origin check (403), the requests' admission pool (503 for the
  oldest), text-only sockets, the page files' headers.
- ``live_server``: ``WebFrontEnd``, the live page of ``bughouse serve --web``,
  a front end on the server's table seam; a page's seat is a remote seat.
  Its ``PageSession`` needs only a ``PageSocket`` (text in and out), so other
  front ends holding a table can reuse it.
- ``assets/``: the pages' scripts and styles, and chessground (vendored, see
  its README).
"""
