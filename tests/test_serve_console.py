"""``bughouse play --connect``: the console seat at a ``bughouse serve`` table, in a pty."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("pexpect")

import pexpect
from test_play_command import ENGINE, Program, needs_engine, your_move

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60


class ConnectedProgram(Program):
    """``bughouse play --connect`` in an 80×24 pty (the screen as ``Program`` keeps it)."""

    def __init__(self, tmp_path: Path, port: int, token: str) -> None:
        from console_vt import VirtualTerminal

        self.out = tmp_path / "unused.bpgn"
        args = ["-m", "bughouse_arbiter", "play", "--seat", "A-white", "--name", "tester"]
        args += ["--connect", f"127.0.0.1:{port}", f"--token={token}"]
        env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        env["PYTHONPATH"] = str(ROOT)
        env.pop("NO_COLOR", None)
        self.child = pexpect.spawn(
            sys.executable,
            args,
            cwd=str(tmp_path),
            env=env,
            dimensions=(24, 80),
            encoding="utf-8",
            codec_errors="replace",
            timeout=TIMEOUT,
        )
        self.screen = VirtualTerminal()
        self.raw = []


@pytest.mark.slow
@needs_engine
def test_the_console_plays_a_game_over_connect(tmp_path: Path) -> None:
    out = tmp_path / "served.bpgn"
    argv = ["-m", "bughouse_arbiter", "serve", "--port", "0", "--remote", "A-white"]
    # Board B moves slowly, so it cannot end the game before the person resigns.
    slow = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 1500"
    argv += ["--engine", f"A-black={ENGINE}"]
    for seat in ("B-white", "B-black"):
        argv += ["--engine", f"{seat}={slow}"]
    argv += ["--tc", "300+0", "--out", str(out)]
    server = pexpect.spawn(
        sys.executable,
        argv,
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    program: ConnectedProgram | None = None
    try:
        server.expect(r"listening on 127\.0\.0\.1:(\d+)")
        port = int(server.match.group(1))
        server.expect(r"--seat a-white --token=(\S+) --")
        token = server.match.group(1)
        program = ConnectedProgram(tmp_path, port, token)
        screen = program.wait_for(your_move)
        assert screen.split("\n")[0].startswith(" Board A (you, A-White)")
        program.type("e4")
        program.wait_for("you play e4")
        program.wait_for(lambda text: your_move(text) and "last 1... " in text.split("\n")[14])
        program.type("Qh8")  # illegal: refused at the console, never sent
        program.wait_for("Qh8: illegal move")
        program.type("++n")
        program.wait_for("you to partner: ++n")
        program.type("Nf3")
        program.wait_for("you play Nf3")
        program.wait_for(lambda text: your_move(text) and "last 2... " in text.split("\n")[14])
        program.type("resign")  # asks first
        program.wait_for("resign? y/n>")
        program.type("y")
        program.wait_for("A-White resigned")
        program.finish()
        assert program.child.exitstatus == 0
        server.expect(pexpect.EOF)
        assert "took seat WA (a person)" in (server.before or "")
        server.close()
        assert server.exitstatus == 0
    finally:
        if program is not None:
            program.kill()
        if server.isalive():
            server.terminate(force=True)
    (game,) = read_games(out.read_text(), file=str(out))
    assert game.tags["WhiteA"] == "tester"
    assert game.tags["Result"] == "0-1"
    assert game.tags["Termination"] == "resignation"
    assert [m.san for m in game.moves if m.board.value == "A" and m.white] == ["e4", "Nf3"]
    assert [(m.seat.value, m.text) for m in game.messages] == [("A-White", "++n")]
    assert all("lag" in m.commands for m in game.moves if m.board.value == "A" and m.white)
    assert replay_game(game).ok
