"""The ``bughouse`` command: argparse in, one subcommand module per verb.

Each module in ``COMMANDS`` has ``register(subparsers)``, which adds its
parser and sets ``run=`` to a function taking the parsed namespace and
returning an exit status. A ``UsageError`` anywhere becomes one line on
stderr and exit status 2; Ctrl+C becomes 130. Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .errors import UsageError

COMMANDS: tuple[str, ...] = (
    "position",
    "replay",
    "play",
    "match",
    "serve",
    "connect",
    "tournament",
    "check_engine",
)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bughouse",
        description="Bughouse chess arbiter: four players, two boards, four clocks.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f".commands.{name}", __package__)
        module.register(subparsers)
    return parser


#: Commands that take a command line of their own after ``--`` (as ``args.tail``).
TAKES_TAIL = frozenset({"connect"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    tail: list[str] | None = None
    if words and words[0] in TAKES_TAIL and "--" in words:
        cut = words.index("--")
        words, tail = words[:cut], words[cut + 1 :]
    args = parser.parse_args(words)
    if args.command in TAKES_TAIL:
        args.tail = tail or []
    try:
        status: int = args.run(args)
    except UsageError as exc:
        print(f"bughouse {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return status
