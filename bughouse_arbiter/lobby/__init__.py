"""The lobby of ``bughouse server``, sans-IO: tables, seats, pairing, chat and messages.

Nothing here reads a clock, sleeps or touches a socket: every transition
takes ``now`` (seconds) and returns what the runtime (``hall``) must do, and
``Lobby.next_deadline`` says when to call ``Lobby.tick`` next.
"""
