"""The ``bughouse`` command: argparse in, one subcommand module per verb.

Each module in ``COMMANDS`` has ``register(subparsers)``, which adds its
parser and sets ``run=`` to a function taking the parsed namespace and
returning an exit status. Only the module of the command being run is
imported (the others bring trio, the engines and the BPGN code), and only
its parser is made. Without a command, every one gets a stub parser with its
one-line summary, enough for ``bughouse --help`` and for argparse's "invalid
choice" message. A ``UsageError`` anywhere becomes one line on
stderr and exit status 2; Ctrl+C becomes 130. Never a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import cast

from .commands import SUMMARIES
from .errors import UsageError

#: Command name -> the module under ``commands/`` that implements it.
COMMANDS: dict[str, str] = {
    "position": "position",
    "replay": "replay",
    "play": "play",
    "match": "match",
    "serve": "serve",
    "connect": "connect",
    "tournament": "tournament",
    "check-engine": "check_engine",
}

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _help_width() -> int:
    """argparse's default width, ``shutil.get_terminal_size().columns - 2``,
    worked out the same way without importing shutil (which brings the
    compression modules: 2 ms of every start-up)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns - 2


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help formatter is given its width (see ``_help_width``);
    the subcommands' parsers are of this class too."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        formatter = cast("type[argparse.HelpFormatter]", self.formatter_class)
        return formatter(prog=self.prog, width=_help_width())


def build_parser(commands: Sequence[str] = tuple(COMMANDS)) -> argparse.ArgumentParser:
    """The ``bughouse`` parser with the full parsers of ``commands``; with none,
    a stub for every command. (Each parser made costs a few gettext lookups: a
    command line that names its command needs no others.)"""
    parser = _Parser(
        prog="bughouse",
        description="Bughouse chess arbiter: four players, two boards, four clocks.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if name in commands:
            module = importlib.import_module(f".commands.{module_name}", __package__)
            module.register(subparsers)
        elif not commands:
            subparsers.add_parser(name, help=SUMMARIES[name], add_help=False)
    for command in subparsers.choices.values():
        # The descriptions are the modules' docstrings: show them without RST markup.
        if command.description:
            command.description = command.description.replace("``", "")
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv``: its first word not an option (``bughouse`` has only -h)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


#: Commands that take a command line of their own after ``--`` (as ``args.tail``).
TAKES_TAIL = frozenset({"connect"})


#: A value that starts with a minus sign and a digit (``-5+0``, ``-3``).
_NEGATIVE_VALUE = re.compile(r"-\d")


def _join_negative_values(parser: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """``--tc -5+0`` as ``--tc=-5+0``: argparse would take ``-5+0`` for an option
    and say only "expected one argument"; joined, the option's own check explains."""
    takes_value = {
        option
        for action in _all_actions(parser)
        if action.nargs is None and action.option_strings
        for option in action.option_strings
    }
    out: list[str] = []
    for word in argv:
        if out and out[-1] in takes_value and _NEGATIVE_VALUE.match(word):
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions.extend(_all_actions(sub))
    return actions


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    tail: list[str] | None = None
    if words and words[0] in TAKES_TAIL and "--" in words:
        cut = words.index("--")
        words, tail = words[:cut], words[cut + 1 :]
    command = _command_in(words)
    parser = build_parser(() if command is None else (command,))
    args = parser.parse_args(_join_negative_values(parser, words))
    if args.command in TAKES_TAIL:
        args.tail = tail or []
    try:
        status: int = args.run(args)
    except UsageError as exc:
        from .ui.safe_text import printable

        print(f"bughouse {args.command}: error: {printable(str(exc), 2000)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return status
