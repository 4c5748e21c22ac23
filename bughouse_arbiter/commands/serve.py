"""``bughouse serve``: the table as a server; engines and people join over the network.

``bughouse serve --remote B-white --engine A-white=searcher ...`` seats the
``--remote`` seats for network players and fills the others as ``match``
does. On start it prints, per remote seat, a one-time secret token and the
exact command to join with, then plays ``--games`` games and writes them to
``--out``. It binds to 127.0.0.1 unless ``--host`` says otherwise;
``--port 0`` picks a free port and prints it.

The table seam (for other front ends, e.g. ``--web``)
------------------------------------------------------

Everything network-facing reaches the table through one object,
``bughouse_arbiter.server.seam.LiveTable``, whose full contract is in that
module's docstring. In short:

- ``table.remote_seats`` and ``table.tokens`` (secret per remote seat),
  ``table.rules``, ``table.names()``;
- ``table.observe(callback)``: every arbiter ``MatchEvent`` of every game,
  synchronously (copy into your own queue before doing I/O); returns an
  unsubscribe function;
- ``table.authenticate(seat_text, token) -> Seat`` or ``AuthRefused(reason)``;
- ``await table.attach(seat, link)``: a ``SeatLink`` (``peer``, ``send(line)``
  never blocking, ``await receive() -> RawLine | None``, ``aclose()``)
  carries that seat's protocol.md lines exactly as a pipe would, until the
  link ends; a dropped seat may re-attach within ``reconnect_grace``;
- ``table.log(text)``.

A front end is an object with ``async def serve(self, table, *,
task_status)``; it calls ``task_status.started()`` once it accepts
connections. ``serve`` builds the list in ``front_ends(args)``: the TCP
listener always, and adding ``--web`` is one more option in ``register`` and
one more entry there. The front ends run in a nursery next to the games and
are cancelled when the last game ends; a front end that raises ends the
server (a bug), so catch per-connection errors inside.
"""
