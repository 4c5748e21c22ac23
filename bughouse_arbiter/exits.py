"""The exit statuses of the ``bughouse`` commands, in one place (README "Exit status").

Every command returns one of these from its ``run``; ``cli.main`` adds
``USAGE`` for a ``UsageError``, ``CLOSED`` for an output that went away and
``FAILED`` for one that could not be written.
"""

from __future__ import annotations

import signal

#: It did what was asked: the games were played and written, every check passed.
OK = 0
#: It ran but something failed: a check or a game failed, an engine or the
#: connection broke, a file or the output could not be written.
FAILED = 1
#: Bad input on the command line or in a file it names (one line on stderr, nothing done).
USAGE = 2
#: ``connect``: the server refused the seat (a wrong token, a seat taken).
REFUSED = 3
#: ``tournament``: it ran to its end but did not play what was asked: a
#: participant was dropped for its failures (its remaining games are not
#: played) or games were given up. What was played is written and scored.
INCOMPLETE = 4
#: Stopped by Ctrl+C (SIGINT); SIGTERM and SIGHUP give 143 and 129 (``by_signal``).
INTERRUPTED = 128 + signal.SIGINT
#: Standard output was closed (``| head``): the command stopped quietly, as a
#: program killed by SIGPIPE would. ``match``, ``serve`` and ``tournament``
#: keep playing into their files instead and exit as they would have.
CLOSED = 128 + signal.SIGPIPE


def by_signal(sig: signal.Signals) -> int:
    """The exit status a shell shows for a program ended by ``sig``."""
    return 128 + int(sig)
