"""Files kept in reserve: the soft open-files limit raised, connections refused early.

A server that lets strangers' connections take every file it may open can
no longer open a database, a log or an accepted socket to refuse with
(EMFILE). ``FileReserve.raised()`` lifts the soft ``RLIMIT_NOFILE`` to the
hard one (at most ``WANTED``) and keeps ``RESERVE`` files (or a quarter of a
small limit) for the server's own work: ``room(open_connections)`` is False
once the connections would eat into it, and the front end answers one line
and closes.
"""

from __future__ import annotations

import attrs

#: The soft limit asked for (the hard limit caps it).
WANTED = 65536
#: Files never given to connections.
RESERVE = 256


@attrs.frozen
class FileReserve:
    limit: int
    reserve: int

    @classmethod
    def raised(cls) -> FileReserve:
        """The process's limit, raised as far as allowed (unknown: a generous guess)."""
        try:
            import resource
        except ImportError:  # not a POSIX system
            return cls.of(WANTED)
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        target = WANTED if hard == resource.RLIM_INFINITY else min(WANTED, hard)
        if soft != resource.RLIM_INFINITY and soft < target:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
            except (ValueError, OSError):
                pass
        return cls.of(WANTED if soft == resource.RLIM_INFINITY else soft)

    @classmethod
    def of(cls, limit: int) -> FileReserve:
        return cls(limit, min(RESERVE, limit // 4))

    def room(self, open_connections: int) -> bool:
        """Another connection may be served (each holds about one file)."""
        return open_connections < self.limit - self.reserve
