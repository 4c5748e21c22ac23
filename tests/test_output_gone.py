"""Where the output goes: a closed pipe (``| head``) ends a command quietly with
141, a full disk (``> /dev/full``) is one error line and status 1, for every
command, through real processes; and the ``Environment``'s rules for what the
terminal can do."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_checks import BUGHOUSE, run_bughouse

from bughouse_arbiter import exits
from bughouse_arbiter.cli import main
from bughouse_arbiter.environment import Environment, Output, OutputGone

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "data" / "arbiter_game.bpgn"
CORPUS = sorted((ROOT / "tests" / "data" / "corpus").glob("*.bpgn"))
FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
RANDOM_MATCH = [
    "match",
    *(f"--engine={seat}=random" for seat in ("WA", "BA", "WB", "BB")),
    "--tc",
    "2+0",
    "--seed",
    "5",
    "--out",
    "m.bpgn",
]

#: Commands whose output is their work: a closed output stops them.
STOPPED = {
    "replay --check": ["replay", "--check", str(GAME)],
    "replay stepping": ["replay", str(GAME)],
    "position": ["position", FEN, "--moves", "e5"],
    "position --json": ["position", FEN, "--json"],
    "check-engine": ["check-engine", "random"],
}


def closed_pipe() -> int:
    """The write end of a pipe whose reader has gone (``| head`` once it has
    read its lines): every write gets EPIPE."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STOPPED))
def test_a_closed_output_ends_the_command_quietly(name: str, tmp_path: Path) -> None:
    write = closed_pipe()
    try:
        done = run_bughouse(*STOPPED[name], cwd=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert done.stderr == ""
    assert done.returncode == exits.CLOSED == 141


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STOPPED))
def test_a_full_output_is_one_write_error_line(name: str, tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = run_bughouse(*STOPPED[name], cwd=tmp_path, stdout=full.fileno())
    command = STOPPED[name][0]
    assert done.stderr == (
        f"bughouse {command}: error: cannot write to standard output: No space left on device\n"
    )
    assert done.returncode == exits.FAILED


@pytest.mark.slow
def test_replay_check_into_head_stops_quietly(tmp_path: Path) -> None:
    """A real ``| head -1`` on a report longer than a pipe holds."""
    files = [str(path) for path in CORPUS] * 20
    producer = subprocess.Popen(
        [*BUGHOUSE, "replay", "--check", *files],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert producer.stdout is not None
    head = subprocess.run(
        ["head", "-1"], stdin=producer.stdout, capture_output=True, timeout=120, check=False
    )
    producer.stdout.close()
    _, err = producer.communicate(timeout=120)
    assert head.stdout.decode().startswith(f"{CORPUS[0]} game 1 ")
    assert err == b""
    assert producer.returncode == exits.CLOSED


@pytest.mark.slow
def test_check_engine_whose_output_closes_mid_run_closes_the_engine(tmp_path: Path) -> None:
    """The reader leaves after the handshake's line: the engine (tagged by its
    seed, to be found) is closed, and nothing is left running."""
    seed = str(900_000 + os.getpid())
    mover = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --seed {seed}"
    producer = subprocess.Popen(
        [*BUGHOUSE, "check-engine", mover],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        text=True,
    )
    assert producer.stdout is not None
    assert producer.stdout.readline().startswith("check-engine: ")
    assert "PASS  handshake" in producer.stdout.readline()
    producer.stdout.close()
    _, err = producer.communicate(timeout=120)
    assert (producer.returncode, err) == (exits.CLOSED, "")
    pattern = f"random_mover.py --seed {seed}"
    left = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, check=False)
    assert left.stdout == ""


@pytest.mark.slow
def test_match_plays_on_into_its_file_when_the_output_closes(tmp_path: Path) -> None:
    write = closed_pipe()
    try:
        done = run_bughouse(*RANDOM_MATCH, cwd=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (exits.OK, "")
    assert "[Result " in (tmp_path / "m.bpgn").read_text()


@pytest.mark.slow
def test_match_into_a_full_output_plays_on_and_then_says_so(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        done = run_bughouse(*RANDOM_MATCH, cwd=tmp_path, stdout=full.fileno())
    assert done.stderr == (
        "bughouse match: error: cannot write to standard output: No space left on device\n"
    )
    assert done.returncode == exits.FAILED
    assert "[Result " in (tmp_path / "m.bpgn").read_text()


# -- in process -----------------------------------------------------------------------


class Refusing(io.StringIO):
    """A stream that fails as a full disk does."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_a_command_runs_in_process_on_the_streams_it_is_given() -> None:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err)
    assert main(["position", FEN, "--json"], env) == exits.OK
    assert out.getvalue().startswith('{"status": "ok"')
    assert err.getvalue() == ""


def test_a_usage_error_goes_to_the_given_stderr_in_one_printable_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["position", "no\x1b[2Jfen"], Environment(stdout=out, stderr=err)) == exits.USAGE
    line = err.getvalue()
    assert line.startswith("bughouse position: error: FEN: ")
    assert "\\x1b[2J" in line and "\x1b" not in line
    assert line.count("\n") == 1
    assert out.getvalue() == ""


def test_replay_check_into_a_full_output_does_not_blame_the_file() -> None:
    err = io.StringIO()
    env = Environment(stdout=Refusing(), stderr=err)
    assert main(["replay", "--check", str(GAME)], env) == exits.FAILED
    assert err.getvalue() == (
        "bughouse replay: error: cannot write to standard output: No space left on device\n"
    )


def test_output_keeps_its_first_failure_and_writes_nothing_after() -> None:
    output = Output(Refusing())
    with pytest.raises(OutputGone) as first:
        output.write("x")
    assert not first.value.closed
    assert output.failure is first.value
    with pytest.raises(OutputGone):
        output.flush()
    assert OutputGone(BrokenPipeError(32, "Broken pipe")).closed
    assert not issubclass(OutputGone, OSError)  # no `except OSError` for a file takes it


# -- what the terminal can do ------------------------------------------------------------


def terminal(**environ: str) -> Environment:
    return Environment(environ=environ, stdout_isatty=True, stdin_isatty=True)


def test_a_terminal_with_a_term_is_live_in_colour() -> None:
    env = terminal(TERM="xterm")
    assert (env.live, env.color, env.interactive) == (True, True, True)
    assert not env.colors256
    assert terminal(TERM="xterm-256color").colors256
    assert terminal(TERM="xterm", COLORTERM="truecolor").colors256


@pytest.mark.parametrize("term", ["", "dumb"])
def test_an_empty_or_dumb_term_gets_lines_without_colour(term: str) -> None:
    env = terminal(TERM=term)
    assert (env.live, env.color, env.interactive) == (False, False, False)
    assert not terminal().live  # TERM unset as empty


def test_no_color_turns_colour_off_but_keeps_the_live_table() -> None:
    env = terminal(TERM="xterm", NO_COLOR="1")
    assert (env.live, env.color) == (True, False)
    assert terminal(TERM="xterm", NO_COLOR="").color  # an empty NO_COLOR does not count
    assert not env.style().color
    assert not terminal(TERM="xterm").style(no_color=True).color


def test_output_that_is_not_a_terminal_is_neither_live_nor_coloured() -> None:
    env = Environment(environ={"TERM": "xterm"}, stdout_isatty=False, stdin_isatty=True)
    assert (env.live, env.color, env.interactive) == (False, False, False)
    piped_in = Environment(environ={"TERM": "xterm"}, stdout_isatty=True, stdin_isatty=False)
    assert (piped_in.live, piped_in.interactive) == (True, False)
    assert not Environment(stdout=io.StringIO()).stdout_isatty  # asked of the stream


def test_glyphs_follow_the_output_encoding_and_width_columns() -> None:
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert Environment(stdout=utf8).unicode and Environment(stdout=utf8).style().unicode
    assert not Environment(stdout=latin).unicode
    assert not Environment(stdout=utf8).style(ascii_only=True).unicode
    assert Environment(environ={"COLUMNS": "132"}).width == 132
    assert Environment(environ={"COLUMNS": "x"}).width == 80  # no terminal under a StringIO


def test_exit_statuses_are_distinct() -> None:
    codes = [exits.OK, exits.FAILED, exits.USAGE, exits.REFUSED, exits.INTERRUPTED, exits.CLOSED]
    assert codes == [0, 1, 2, 3, 130, 141]


@pytest.mark.parametrize(
    ("environ", "coloured"),
    [
        ({"TERM": "xterm"}, True),
        ({"TERM": "xterm", "NO_COLOR": "1"}, False),
        ({"TERM": "dumb"}, False),
        ({"TERM": ""}, False),
    ],
)
def test_replay_takes_its_colours_from_the_environment(
    environ: dict[str, str], coloured: bool
) -> None:
    """Every command asks the one object: here replay, which coloured a dumb terminal."""
    out = io.StringIO()
    env = Environment(
        stdin=io.StringIO("q\n"), stdout=out, environ=environ, stdout_isatty=True
    )
    assert main(["replay", str(GAME)], env) == exits.OK
    assert ("\x1b[" in out.getvalue()) is coloured
