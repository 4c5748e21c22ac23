"""The ``bughouse`` command imports only what the command being run needs."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from bughouse_arbiter.cli import COMMANDS, build_parser

PROBE = """
import sys
from bughouse_arbiter.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in ("trio", "chess", "attrs", "shutil", "bughouse_arbiter.commands.match")
               if m in sys.modules)
print(" ".join(heavy), file=sys.stderr)
"""


def loaded_by(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60
    )
    return set(done.stderr.split("\n")[-2].split())


@pytest.mark.slow
def test_help_imports_neither_trio_nor_chess() -> None:
    assert loaded_by("--help") == set()
    assert loaded_by() == set()  # the usage error for a missing command


@pytest.mark.slow
def test_position_does_not_import_trio_nor_the_other_commands() -> None:
    fen = "8/8/8/8/8/8/8/K6k[] w - - 0 1"
    assert loaded_by("position", fen, "--json") == {"chess"}


@pytest.mark.slow
def test_match_help_imports_its_module() -> None:
    assert "bughouse_arbiter.commands.match" in loaded_by("match", "--help")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_stub_summary_is_the_commands_own(command: str) -> None:
    """``bughouse --help`` lists the same summary the full parser was given."""

    def summary(parser_commands: tuple[str, ...]) -> str | None:
        parser = build_parser(parser_commands)
        [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return {a.dest: a.help for a in subparsers._choices_actions}[command]

    assert summary((command,)) == summary(())
    assert summary(()) is not None


def test_a_named_command_gets_only_its_own_parser(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each parser made costs start-up time (argparse's gettext lookups): a
    command line that names its command makes that one parser, no stubs."""
    from bughouse_arbiter.cli import main

    made: list[str] = []
    add_parser = argparse._SubParsersAction.add_parser

    def counting(self: argparse._SubParsersAction, name: str, **kwargs: object) -> object:
        made.append(name)
        return add_parser(self, name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(argparse._SubParsersAction, "add_parser", counting)
    assert main(["position", "8/8/8/8/8/8/8/K6k[] w - - 0 1", "--json"]) == 0
    assert made == ["position"]
    made.clear()
    with pytest.raises(SystemExit):
        main(["positio"])  # a misspelt command: argparse lists every choice
    assert made == list(COMMANDS)
    assert "invalid choice: 'positio' (choose from 'position', 'replay'" in capsys.readouterr().err
