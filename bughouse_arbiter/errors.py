"""One error hierarchy for the whole package.

``Remote*`` errors mean a player misbehaved: the arbiter turns them into a
forfeit with a reason. ``UsageError`` and its kin mean bad user input: the CLI
prints them and exits 2. Anything else is a bug in this package.
"""

from __future__ import annotations


class ArbiterError(Exception):
    """Base class of every error this package raises on purpose."""


class UsageError(ArbiterError):
    """Bad input from the person at the command line (exit status 2)."""


class RuleError(UsageError):
    """An unknown house rule, or a value it does not take."""


class PositionError(UsageError, ValueError):
    """A FEN or position that cannot be read or is not a bughouse position."""


class MoveError(UsageError, ValueError):
    """A move that cannot be read, or is not legal where it was played."""


class NotYourTurnError(MoveError):
    """A move for a seat that is not to move on its board."""


class ConfigError(UsageError):
    """A bad engines file, engine spec or match option."""


class BpgnError(ArbiterError):
    """A BPGN file that cannot be read (strict mode), with its location."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        game: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.game = game
        self.line = line
        self.column = column
        super().__init__(self.located())

    def located(self) -> str:
        where = []
        if self.file is not None:
            where.append(self.file)
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.line is not None:
            where.append(f"line {self.line}" + (f", column {self.column}" if self.column else ""))
        return f"{': '.join(where)}: {self.message}" if where else self.message


class RemoteProtocolError(ArbiterError):
    """A player broke the protocol (garbage, crash, illegal move): a forfeit."""


class EngineFailed(RemoteProtocolError):
    """An engine process could not start, crashed, or stopped answering."""
