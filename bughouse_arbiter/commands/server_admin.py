"""``bughouse server``'s database commands: ``admin add-bot|revoke-bot``, ``export``, ``backup``.

Not a command of its own: ``register`` adds these subcommands to the
``server`` command's parser, and each works on the database given by
``--db`` (default: ``default_db``), also while the server runs on it.

- ``admin add-bot NAME`` makes a bot account and prints its token, once (only
  its hash is kept): the bot logs in with its name and that token, and the
  token seats that bot only. ``admin revoke-bot NAME`` ends the token (the
  bot's games and rating stay).
- ``export`` writes every finished and aborted game's BPGN to standard output,
  oldest first (``--player``, ``--since``, ``--until``, ``--result`` choose),
  a file ``bughouse replay --check`` re-judges.
- ``backup OUT`` writes a consistent copy of the database to OUT with SQLite's
  online backup, while the server goes on writing.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..environment import Environment
from ..errors import UsageError
from ..exits import OK
from ..storage import GameQuery, SqliteStore
from ..storage.records import RESULTS

#: The database's file name in the data folder.
DB_NAME = "server.sqlite3"


def default_db(environ: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/bughouse-arbiter/server.sqlite3`` (``~/.local/share`` without it)."""
    base = environ.get("XDG_DATA_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "bughouse-arbiter" / DB_NAME


def add_db_option(parser: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """``--db PATH``, for ``server`` itself too. ``sub``: on a subcommand, where it
    leaves a ``--db`` given before the subcommand's name as it is."""
    parser.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS if sub else None,
        help="the server's SQLite database (default: $XDG_DATA_HOME/bughouse-arbiter/"
        f"{DB_NAME}, ~/.local/share without XDG_DATA_HOME); made if missing",
    )


def db_path(args: argparse.Namespace, env: Environment) -> Path:
    given = getattr(args, "db", None)
    return Path(given) if given else default_db(env.environ or os.environ)


def register(subparsers: Any) -> None:
    """Adds ``admin``, ``export`` and ``backup`` to the ``server`` command's subparsers."""
    admin: argparse.ArgumentParser = subparsers.add_parser(
        "admin", help="manage bot accounts", description="Manage the server's bot accounts."
    )
    verbs = admin.add_subparsers(dest="admin_command", required=True, metavar="ACTION")
    add_bot = verbs.add_parser("add-bot", help="make a bot account and print its token")
    add_bot.add_argument("name", metavar="NAME", help="the bot's name (2-20 of A-Z a-z 0-9 . - _)")
    add_db_option(add_bot, sub=True)
    add_bot.set_defaults(run=run_add_bot)
    revoke = verbs.add_parser("revoke-bot", help="revoke a bot's token")
    revoke.add_argument("name", metavar="NAME")
    add_db_option(revoke, sub=True)
    revoke.set_defaults(run=run_revoke_bot)

    export: argparse.ArgumentParser = subparsers.add_parser(
        "export", help="write the archive's games as BPGN to standard output"
    )
    add_db_option(export, sub=True)
    export.add_argument("--player", metavar="NAME", help="only games NAME played")
    export.add_argument(
        "--since", metavar="YYYY-MM-DD", help="only games ended that day or later (UTC)"
    )
    export.add_argument(
        "--until", metavar="YYYY-MM-DD", help="only games ended before that day (UTC)"
    )
    export.add_argument("--result", choices=RESULTS, help="only games with that result")
    export.set_defaults(run=run_export)

    backup: argparse.ArgumentParser = subparsers.add_parser(
        "backup", help="copy the database while the server runs (SQLite online backup)"
    )
    add_db_option(backup, sub=True)
    backup.add_argument("out", metavar="OUT", help="the copy's path (replaced if it exists)")
    backup.set_defaults(run=run_backup)


def run_add_bot(args: argparse.Namespace, env: Environment) -> int:
    path = db_path(args, env)
    with contextlib.closing(SqliteStore.open(path)) as store:
        token = store.add_bot(args.name)
    env.stdout.write(f"{token}\n")
    env.say(f"bot {args.name!r} added to {str(path)!r}; its token is shown only this once")
    return OK


def run_revoke_bot(args: argparse.Namespace, env: Environment) -> int:
    path = db_path(args, env)
    with contextlib.closing(SqliteStore.open(path, create=False)) as store:
        revoked = store.revoke_bot(args.name)
    if not revoked:
        raise UsageError(f"no bot {args.name!r} with a live token in {str(path)!r}")
    env.say(f"bot {args.name!r}: token revoked")
    return OK


def run_export(args: argparse.Namespace, env: Environment) -> int:
    query = GameQuery(
        player=args.player,
        since=_day(args.since, "--since"),
        until=_day(args.until, "--until"),
        result=args.result,
    )
    count = 0
    with contextlib.closing(SqliteStore.open(db_path(args, env), create=False)) as store:
        games = store.iter_bpgn(query)
        with contextlib.closing(games):  # its read transaction ends before the store closes
            for text in games:
                if count:
                    env.stdout.write("\n")
                env.stdout.write(text if text.endswith("\n") else text + "\n")
                count += 1
        playing = store.counts()["playing"]
    note = f"; {playing} game(s) in progress left out" if playing else ""
    env.say(f"exported {count} game(s){note}")
    return OK


def run_backup(args: argparse.Namespace, env: Environment) -> int:
    path = db_path(args, env)
    with contextlib.closing(SqliteStore.open(path, create=False)) as store:
        store.backup(args.out)
        counts = store.counts()
    env.say(
        f"backed up {str(path)!r} to {args.out!r} "
        f"({counts['finished']} finished, {counts['aborted']} aborted game(s))"
    )
    return OK


def _day(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{option} takes a date YYYY-MM-DD, not {text!r}") from None
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC).timestamp()
