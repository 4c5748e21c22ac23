"""``bughouse play --server``: the console in a lobby, in a pty: it lists the
tables, creates one, sits, starts it (computers fill the seats), plays on the
usual screen, and comes back to the lobby prompt after the game."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pexpect")

import pexpect
from test_play_command import Program, needs_engine, your_move

from bughouse_arbiter.players.console import KEY_GRACE

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60


class LobbyProgram(Program):
    """``bughouse play --server`` in an 80×24 pty (the screen as ``Program`` keeps it)."""

    def __init__(self, tmp_path: Path, url: str, name: str = "tester") -> None:
        from console_vt import VirtualTerminal

        self.out = tmp_path / "unused.bpgn"
        args = ["-m", "bughouse_arbiter", "play", "--server", url, "--name", name]
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

    def shows_soon(self, text: str, wait: float = 0.5) -> bool:
        """True if the screen shows ``text`` within ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while text not in self.screen.text and time.monotonic() < deadline:
            self.pump()
        return text in self.screen.text


class LobbyServer:
    """A ``bughouse server --port 0 --line-port 0`` process; entering gives its web port."""

    def __init__(self, tmp_path: Path) -> None:
        self.games = tmp_path / "games"
        self.err = (tmp_path / "server.err").open("wb")
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> int:
        argv = [sys.executable, "-m", "bughouse_arbiter", "server", "--port", "0"]
        argv += ["--line-port", "0", "--out", str(self.games)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self.err, env=env, cwd=str(ROOT)
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            line = self.process.stdout.readline().decode()
            if m := re.match(r"lobby: http://127\.0\.0\.1:(\d+)/", line):
                return int(m.group(1))
            assert line, "the server ended before it listened"
        raise AssertionError("the server did not say where it listens")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.err.close()


@pytest.mark.slow
@needs_engine
def test_the_console_lists_creates_sits_plays_and_comes_back(tmp_path: Path) -> None:
    server = LobbyServer(tmp_path)
    with server as port:
        # The web address: play asks /api/server for the line port.
        program = LobbyProgram(tmp_path, f"http://127.0.0.1:{port}")
        try:
            program.wait_for("In the lobby as tester")
            program.wait_for("no tables yet")
            program.type("create 300+0")
            program.wait_for("created: t1")
            program.type("tables")
            program.wait_for("t1    300+0    open     A-white: -  A-black: -")
            program.type("sit t1 A-white")
            program.wait_for("lobby> sit t1 A-white")
            # The lobby's view is pushed a few times a second: ask until it shows the seat.
            for _ in range(50):
                program.type("tables")
                if program.shows_soon("A-white: tester"):
                    break
            program.type("start t1")
            screen = program.wait_for(your_move)
            assert screen.split("\n")[0].startswith(" Board A (you, A-White)")
            program.type("e4")
            program.wait_for("you play e4")
            program.type("resign")
            program.wait_for("resign? y/n>")
            program.type("y")
            program.wait_for("A-White resigned")
            program.wait_for("press any key")
            time.sleep(KEY_GRACE + 0.2)  # a key sooner than this does not count
            program.child.send(" ")
            program.wait_for("Back in the lobby")
            program.type("quit")
            program.child.expect(pexpect.EOF)
            program.child.close()
            status, last = program.child.exitstatus, program.child.before or program.screen.text
            assert status == 0, f"exit {status} after quit; last output {last[-500:]!r}"
        finally:
            program.kill()
    (written,) = server.games.glob("*.bpgn")
    text = written.read_text()
    assert '[WhiteA "tester"]' in text and '[Termination "resignation"]' in text
