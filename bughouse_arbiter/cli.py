"""The ``bughouse`` command: argparse in, one subcommand module per verb.

Each module in ``COMMANDS`` has ``register(subparsers)``, which adds its
parser and sets ``run=`` to a function taking the parsed namespace and the
``Environment`` (the streams and what the terminal can do) and returning an
exit status (``exits``). Only the module of the command being run is
imported (the others bring trio, the engines and the BPGN code), and only
its parser is made. Without a command, every one gets a stub parser with its
one-line summary, enough for ``bughouse --help`` and for argparse's "invalid
choice" message. A ``UsageError`` anywhere becomes one line on
stderr and exit status 2; Ctrl+C becomes 130; a closed standard output
(``| head``) ends the command quietly with 141, and one that cannot be
written (a full disk) is one line and status 1. Never a traceback for bad
input or for where the output goes.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import cast

from . import exits
from .commands import SUMMARIES
from .environment import Environment, OutputGone, terminal_columns
from .errors import UsageError

#: Command name -> the module under ``commands/`` that implements it.
COMMANDS: dict[str, str] = {
    "position": "position",
    "replay": "replay",
    "play": "play",
    "match": "match",
    "serve": "serve",
    "server": "server",
    "connect": "connect",
    "tournament": "tournament",
    "check-engine": "check_engine",
}


def _help_width() -> int:
    """argparse's default width, ``shutil.get_terminal_size().columns - 2``,
    worked out the same way without importing shutil (which brings the
    compression modules: 2 ms of every start-up)."""
    return terminal_columns(os.environ, sys.__stdout__) - 2


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


def main(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """Runs the command ``argv`` names (``sys.argv`` by default) with ``env``
    (the process's own streams by default); returns its exit status."""
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
    if env is None:
        env = Environment.detect(args.command)
    else:
        env.command = args.command
    try:
        status: int = args.run(args, env)
        if env.output.failure is None:
            env.stdout.flush()  # what is still buffered: its failure is the command's
    except UsageError as exc:
        _flush_quietly(env)
        env.error(str(exc))
        return exits.USAGE
    except KeyboardInterrupt:
        _flush_quietly(env)
        return exits.INTERRUPTED
    except BaseException as exc:
        gone = _output_gone(exc)
        if gone is None:
            raise
        return _ended_by(gone, env)
    if env.output.failure is not None:
        # The command wrote on without its output (match, serve, tournament):
        # a closed pipe leaves its status as it is; a full disk is a failure.
        failure = env.output.failure
        env.output.silence()
        if not failure.closed:
            env.error(failure.describe())
            return status or exits.FAILED
    return status


def _output_gone(exc: BaseException) -> OutputGone | None:
    """The ``OutputGone`` that ended the command, also from inside an exception
    group (trio's nurseries)."""
    if isinstance(exc, OutputGone):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        found, rest = exc.split(OutputGone)
        if found is not None and rest is None:
            leaf: BaseException = found
            while isinstance(leaf, BaseExceptionGroup):
                leaf = leaf.exceptions[0]
            return _output_gone(leaf)
    return None


def _flush_quietly(env: Environment) -> None:
    try:
        env.stdout.flush()
    except OutputGone:
        env.output.silence()


def _ended_by(gone: OutputGone, env: Environment) -> int:
    env.output.silence()
    if gone.closed:
        return exits.CLOSED
    env.error(gone.describe())
    return exits.FAILED
