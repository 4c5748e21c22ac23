"""Engines in tinyChessServer's dialect (``tcs:`` specs) as real processes: a match of
four, WebSocket clients, a tournament, check-engine and a lobby bot.

The engines are ``tcs_fake.py`` programs with the traps of LazyBug, TandemTurtle and
BughouseAlphaZero; each writes every line it hears to a trace file (``--trace``), and
notes there when it would have died or crashed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from cli_checks import run_bughouse
from serve_helpers import reap
from test_lobby_bots import GUARD, TC, BotProcess, ServerProcess, _guest, _joined

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.cli import main
from bughouse_arbiter.exits import OK

FAKE = Path(__file__).with_name("tcs_fake.py")
RESULT = re.compile(r"^p?(1-0|0-1|1/2-1/2|\*) \{.*\}$")
GAME_LINES = ("new", "variant", "partner", "time", "otim", "go", "playother")


def spec(trace: Path, *flags: str) -> str:
    return f"tcs:{sys.executable} {FAKE} --trace {trace} {' '.join(flags)}".strip()


def heard(trace: Path) -> list[tuple[int, str, str]]:
    """(pid, kind, text) for each trace line: kind ``<`` a line heard, ``:`` a note."""
    out = []
    for line in trace.read_text().splitlines():
        pid, kind, text = line.split(" ", 2) if line.count(" ") >= 2 else (*line.split(" "), "")
        out.append((int(pid), kind, text))
    return out


def check_trace(trace: Path, games: int | None = None) -> list[str]:
    """Asserts what every tinyChessServer engine may rely on (and that ``games``
    games began, if given); returns the lines heard."""
    events = heard(trace)
    notes = [text for _, kind, text in events if kind == ":"]
    assert not [n for n in notes if n.startswith(("crash", "dead"))], notes
    lines = [text for _, kind, text in events if kind == "<"]
    assert "" not in lines
    for line in lines:
        if "move" in line:
            assert line.split()[0] in ("move", "pmove") or line.startswith("Illegal"), line
    words = [line.split()[0] for line in lines]
    assert words.count("new") == words.count("time") == words.count("otim")
    assert games is None or words.count("new") == games
    # Each game: new, variant, partner, time, otim, go|playother, and nothing between.
    for index, word in enumerate(words):
        if word == "new":
            assert words[index : index + 6][:5] == list(GAME_LINES[:5]), lines[index : index + 6]
            assert words[index + 5] in ("go", "playother")
    assert sum(1 for line in lines if RESULT.match(line)) >= words.count("new")
    return lines


def games_of(path: Path) -> list[str]:
    games = read_games(path.read_text())
    for game in games:
        assert replay_game(game).ok
    return [game.tag("Result") or "" for game in games]


def gone(pid: int) -> bool:
    """True once ``pid`` is no more (or only a zombie)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_four_tcs_engines_play_a_match_with_their_traps(tmp_path: Path) -> None:
    traces = {seat: tmp_path / f"{seat}.trace" for seat in ("WA", "BA", "WB", "BB")}
    flags = {
        "WA": ("--name", "Lazy"),
        "BA": ("--name", "Sitter", "--sit", "2.5"),
        "WB": ("--name", "Plain", "--no-otherboard"),
        "BB": ("--name", "Stubborn", "--stubborn"),
    }
    argv = ["match", "--tc", "20", "--games", "2", "--rule", "max_plies=200"]
    for seat, trace in traces.items():
        argv += ["--engine", f"{seat}={spec(trace, *flags[seat])}"]
    out = tmp_path / "m.bpgn"
    done = run_bughouse(*argv, "--out", str(out), cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr
    assert all(result in ("1-0", "0-1", "1/2-1/2") for result in games_of(out))
    assert len(games_of(out)) == 2
    text = out.read_text()
    assert '[WhiteA "Lazy"]' in text and '[BlackB "Stubborn"]' in text
    # The sitter said "sitting" once a second for 2.5 s: it reached the record once a game.
    assert text.count("] sitting (best move on other board") == 2
    for seat, trace in traces.items():
        lines = check_trace(trace, games=2)
        pids = {pid for pid, _, _ in heard(trace)}
        assert len(pids) == 1, f"{seat}: one process for both games"
        if seat == "WB":  # no otherboard=1: never told the other board
            told = ("pmove", "pholding", "p1", "p0")
            assert not [line for line in lines if line.startswith(told)]
        else:
            assert any(line.startswith("pmove ") for line in lines)
    # The stubborn one ignored quit: it and its helper were killed.
    [helper] = [int(text.split()[1]) for _, kind, text in heard(traces["BB"]) if "helper" in text]
    [pid] = {pid for pid, _, _ in heard(traces["BB"])}
    assert gone(pid) and gone(helper)


@pytest.mark.slow
def test_websocket_clients_take_seats_and_one_comes_back_after_each_game(tmp_path: Path) -> None:
    traces = {seat: tmp_path / f"{seat}.trace" for seat in ("WA", "BA", "WB", "BB")}
    flags = {
        "WA": ("--name", "Turtle", "--ws", "{ws}", "--reconnect"),
        "BA": ("--name", "Zero", "--ws", "{ws}"),
        "WB": ("--name", "Pipe1"),
        "BB": ("--name", "Pipe2"),
    }
    argv = ["match", "--tc", "20", "--games", "3", "--rule", "max_plies=200"]
    for seat, trace in traces.items():
        argv += ["--engine", f"{seat}={spec(trace, *flags[seat])}"]
    out = tmp_path / "ws.bpgn"
    done = run_bughouse(*argv, "--out", str(out), cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr
    assert len(games_of(out)) == 3
    for trace in traces.values():
        check_trace(trace, games=3)
    turtle = heard(traces["WA"])
    # It came back for games 2 and 3; its return after the last game races the match's end.
    assert sum(1 for _, _, text in turtle if text == "reconnected") in (2, 3)
    # Every connection is greeted as the server greets a new client.
    assert sum(1 for _, kind, text in turtle if kind == "<" and text == "protover 4") >= 3
    # The seat comes from "partner P" alone: the rotated seats' partners, in order.
    partners = [text for _, kind, text in turtle if text.startswith("partner ")]
    assert partners == ["partner 1", "partner 3", "partner 2"]


@pytest.mark.slow
def test_a_tournament_between_two_tcs_engines(tmp_path: Path) -> None:
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine", f"lazy={spec(tmp_path / 'a.trace', '--name', 'Lazy')}",
        "--engine", f"turtle={spec(tmp_path / 'b.trace', '--name', 'Turtle', '--ws', '{ws}')}",
        "--games", "2",
        "--tc", "10+0",
        "--rule", "max_plies=150",
        "--opening-plies", "0",  # the dialect has no book moves
        "--out", str(out),
    ]  # fmt: skip
    done = run_bughouse(*argv, cwd=tmp_path, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "lazy vs turtle: 2 games" in done.stdout
    results = games_of(out / "games.bpgn")
    assert len(results) == 2 and all(r in ("1-0", "0-1", "1/2-1/2") for r in results)
    for trace in (tmp_path / "a.trace", tmp_path / "b.trace"):
        # Each participant holds two seats (two processes); each heard a game's lines.
        assert not [t for _, kind, t in heard(trace) if kind == ":" and t.startswith("crash")]
        assert sum(1 for _, kind, t in heard(trace) if kind == "<" and t == "new") == 4


@pytest.mark.slow
@pytest.mark.parametrize("flags", [(), ("--ws", "{ws}")], ids=["pipes", "websocket"])
def test_check_engine_on_a_tcs_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...]
) -> None:
    trace = tmp_path / "c.trace"
    status = main(["check-engine", spec(trace, "--delay", "1", *flags), "--timeout", "10"])
    out = capsys.readouterr().out
    assert status == OK, out
    assert "(tcs)" in out
    passed = [line.split()[1:] for line in out.splitlines() if line.startswith("  PASS")]
    assert [words[0] for words in passed][:5] == [
        "handshake", "new", "state", "mid-think", "partner"
    ]  # fmt: skip
    assert "PASS  quit" in out and "exited by itself" in out
    # The set-up positions and book moves are out of the dialect's reach: said,
    # not failed; the mid-think step is played on from the standard start.
    assert "FAIL" not in out
    for step in ("a drop", "waiting"):
        assert f"SKIP  {step:<24} cannot start from a set-up position or from book moves" in out
    assert "(played on from the standard start: no set-up, no book)" in out
    words = [line.split()[0] for line in check_trace(tmp_path / "c.trace")]
    assert words[:2] == ["xboard", "protover"] and "ptell" in words and words[-1] == "quit"


@pytest.mark.slow
def test_check_engine_says_a_tcs_engine_ignores_quit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "s.trace"
    status = main(["check-engine", spec(trace, "--stubborn"), "--timeout", "10"])
    out = capsys.readouterr().out
    assert status != OK
    assert "FAIL  quit" in out and "did not exit after quit and was killed" in out
    [helper] = [int(t.split()[1]) for _, kind, t in heard(trace) if t.startswith("helper")]
    assert gone(helper)


@pytest.mark.slow
async def test_a_tcs_engine_plays_two_games_as_a_lobby_bot(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    trace = tmp_path / "bot.trace"
    tcs_bot, other = BotProcess(tmp_path, "lazy"), BotProcess(tmp_path, "srch")
    try:
        with trio.fail_after(GUARD):
            await server.start()
            url = f"http://127.0.0.1:{server.web}"
            await tcs_bot.start(url, spec(trace, "--name", "LazyFake"), "--games", "2")
            await other.start(url, "searcher", "--games", "2")
            await _joined(server, "lazy", "srch")
            for game in (1, 2):
                async with trio.open_nursery() as guests:
                    for name in (f"g{game}a", f"g{game}b"):
                        guests.start_soon(_guest, server.line, name, f"queue {TC}")
            codes = [await one.process.wait() for one in (tcs_bot, other) if one.process]
    finally:
        for one in (tcs_bot, other):
            if one.process is not None:
                await reap(one.process)
        if server.process is not None:
            await reap(server.process)
    assert codes == [OK, OK], (tcs_bot.err, server.log)
    assert "done: 2 games played" in tcs_bot.err
    started = [line for line in tcs_bot.debug.read_text().splitlines() if " started pid " in line]
    assert len(started) == 1, started  # one engine process for both games
    lines = check_trace(trace, games=2)
    assert lines[:2] == ["xboard", "protover 4"] and lines.count("protover 4") == 1
    for path in server.out.glob("*.bpgn"):
        assert '"lazy"]' in path.read_text()


@pytest.mark.slow
def test_the_trace_reader_and_process_check_work(tmp_path: Path) -> None:
    trace = tmp_path / "x.trace"
    trace.write_text("12 < new\n12 : dead\n12 < \n")
    assert heard(trace) == [(12, "<", "new"), (12, ":", "dead"), (12, "<", "")]
    with pytest.raises(AssertionError):
        check_trace(trace, games=1)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert gone(child.pid)
    assert os.path.exists(f"/proc/{os.getpid()}/stat")  # what gone() reads


# -- specs and bad input ------------------------------------------------------------------


def test_a_tcs_spec_and_its_websocket_placeholder() -> None:
    from bughouse_arbiter.config.specs import engine_spec
    from bughouse_arbiter.core.model import Seat
    from bughouse_arbiter.players.factory import create_player
    from bughouse_arbiter.players.tcs import TcsPlayer
    from bughouse_arbiter.players.websocket_engine import WebSocketEngine

    piped = engine_spec("tcs:python3 -u run.py")
    assert piped.protocol == "tcs" and piped.command == ("python3", "-u", "run.py")
    player = create_player(Seat.B_BLACK, piped)
    assert isinstance(player, TcsPlayer) and not isinstance(player.engine, WebSocketEngine)
    served = create_player(Seat.B_BLACK, engine_spec("tcs:python3 main.py {ws}"))
    assert isinstance(served.engine, WebSocketEngine) and served.engine.query == "b"


def test_the_example_engines_file_seats_the_three_engines(tmp_path: Path) -> None:
    from bughouse_arbiter.config.engines_file import load_engines_file

    text = (Path(__file__).resolve().parent.parent / "engines.example.toml").read_text()
    tail = text[text.index("# Engines written for tinyChessServer") : text.index("# hivemind")]
    entries = "\n".join(
        line[2:] for line in tail.splitlines() if line.startswith(("# [", "# protocol", "# c"))
    )
    path = tmp_path / "engines.toml"
    path.write_text(entries)
    specs = load_engines_file(path)
    assert set(specs) == {"lazybug-random", "lazybug-mcts", "tandemturtle", "bughouse-alphazero"}
    assert {spec.protocol for spec in specs.values()} == {"tcs"}
    assert "{ws}" in specs["bughouse-alphazero"].command
    assert specs["lazybug-random"].command[:3] == ("python3", "-u", "-c")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("cat", "FAIL  handshake                no 'feature' line within 2 s"),
        (
            f"{sys.executable} -c 'import time; time.sleep(30)' {{ws}}",
            "no WebSocket connection and no 'feature' line within 2 s",
        ),
    ],
)
def test_an_engine_that_never_speaks_the_dialect_fails_its_handshake_in_one_line(
    capsys: pytest.CaptureFixture[str], command: str, said: str
) -> None:
    status = main(["check-engine", f"tcs:{command}", "--timeout", "2"])
    out = capsys.readouterr().out
    assert status != OK and said in out, out
    assert "Traceback" not in out


def test_a_tcs_engine_that_does_not_exist_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli_checks import expect_usage_error

    expect_usage_error(
        "match",
        ["--engine", "WA=tcs:/no/such/engine {ws}"],
        "no such program '/no/such/engine'",
        capsys,
        tmp_path,
    )
