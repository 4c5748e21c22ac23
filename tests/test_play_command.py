"""``bughouse play`` for real: the program in a pseudo-terminal, real engines.

The person's keys go in through a pty (pexpect); everything the program
writes is fed to a small terminal emulator, and the tests assert on what the
80×24 screen shows and on the BPGN file written. Board B starts stalemated
(White to move, no legal move, not in check), so its engines wait quietly
and the match is decided on board A, by the keys the test sends.
"""

from __future__ import annotations

import io
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("pexpect")

import pexpect
from cli_checks import run_bughouse
from console_vt import VirtualTerminal

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.cli import main

ROOT = Path(__file__).resolve().parent.parent
FAIRY_STOCKFISH = Path("/usr/games/fairy-stockfish")
# The random mover answers at once; Fairy-Stockfish (a Debian package CI installs)
# stands in where it is missing.
if (ROOT / "engines" / "random_mover.py").exists():
    ENGINE: str | None = "random"
elif FAIRY_STOCKFISH.exists():
    ENGINE = f"uci:{FAIRY_STOCKFISH}"
else:
    ENGINE = None
needs_engine = pytest.mark.skipif(ENGINE is None, reason="no fast engine to play against")

#: White holds a knight on board A, so the person can drop at once.
FEN_A = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1"
#: White to move on board B has no legal move and is not in check: it waits.
FEN_B = "8/8/8/8/8/1q6/8/K6k w - - 0 1"
TIMEOUT = 30.0


class Program:
    """``bughouse play`` in an 80×24 pty, with its screen kept up to date."""

    def __init__(
        self, tmp_path: Path, *extra: str, then: str = "", partner: str | None = None
    ) -> None:
        self.out = tmp_path / "game.bpgn"
        args = ["-m", "bughouse_arbiter", "play", "--seat", "A-white", "--name", "tester"]
        for seat in ("A-black", "B-white", "B-black"):
            engine = partner if partner is not None and seat == "B-black" else ENGINE
            args += ["--engine", f"{seat}={engine}"]
        args += ["--tc", "300+0", "--fen-a", FEN_A, "--fen-b", FEN_B]
        args += ["--out", str(self.out), *extra]
        env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        env.pop("NO_COLOR", None)
        command, argv = sys.executable, args
        if then:
            # Run a shell command in the same terminal after the program exits.
            line = " ".join(shlex.quote(a) for a in [sys.executable, *args])
            command, argv = "/bin/sh", ["-c", f"trap : INT; {line}; echo exit=$?; {then}"]
        self.child = pexpect.spawn(
            command,
            argv,
            cwd=str(tmp_path),
            env=env,
            dimensions=(24, 80),
            encoding="utf-8",
            codec_errors="replace",
            timeout=TIMEOUT,
        )
        self.screen = VirtualTerminal()
        self.raw: list[str] = []

    def pump(self) -> bool:
        """Reads what is there; False at the end of output."""
        try:
            data = self.child.read_nonblocking(65536, timeout=0.1)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.raw.append(data)
        self.screen.feed(data)
        return True

    def wait_for(self, what: str | Callable[[str], bool]) -> str:
        """Waits until the screen shows ``what`` (or satisfies it)."""
        check = what if callable(what) else (lambda text: what in text)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if check(self.screen.text):
                return self.screen.text
            if not self.pump():
                break
        if check(self.screen.text):
            return self.screen.text
        raise AssertionError(f"screen never showed {what!r}:\n{self.screen.text}")

    def type(self, line: str) -> None:
        self.child.send(line + "\r")

    def leave(self) -> None:
        """Presses a key at the final screen (keys in its first 0.3 s do not count)."""
        time.sleep(0.5)
        self.child.send("q")

    def finish(self) -> str:
        while self.pump():
            pass
        self.child.close()
        return "".join(self.raw)

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def program(tmp_path: Path) -> Program:
    prog = Program(tmp_path)
    yield prog  # type: ignore[misc]
    prog.kill()


def recorded(out: Path, san: str) -> bool:
    """True once the game file being written holds the move ``san``."""
    try:
        text = out.read_text()
    except FileNotFoundError:
        return False
    return any(line.split(" ")[1:2] == [san] for line in text.splitlines() if line[:1].isdigit())


def your_move(text: str) -> bool:
    return " Your move" in text.split("\n")[22]


@pytest.mark.slow
@needs_engine
def test_a_game_at_the_keyboard(program: Program) -> None:
    screen = program.wait_for(your_move)
    lines = screen.split("\n")
    assert lines[0].startswith(" Board A (you, A-White)")
    assert "Board B (your partner, B-Black)" in lines[0]
    assert "hand: ♘" in lines[12]  # the person's pocket, under their board
    # With colour on, White is outlined and Black filled (shape, not colour alone).
    assert lines[9].split()[1:9] == ["♙"] * 8 and lines[4].split()[1:9] == ["♟"] * 8
    assert "\x1b[48;5;223;38;5;16m" in "".join(program.raw)  # black ink, light squares
    assert lines[23].startswith("a-white>")
    assert all(len(line) <= 80 for line in lines)

    program.type("N@f3")  # a drop
    program.wait_for("you play N@f3")
    program.wait_for(lambda text: your_move(text) and "last 1... " in text.split("\n")[14])

    program.type("hello")  # bad input
    program.wait_for("hello: not a move")
    program.type("Qh8")  # illegal
    program.wait_for("Qh8: illegal move")
    program.type("++n")  # a partner signal
    program.wait_for("you to partner: ++n")
    program.type("moves e2")  # legal-move hints
    program.wait_for("e2: e3 e4")

    program.type("e4")  # a legal move, still on the same open turn
    program.wait_for("you play e4")
    program.wait_for(lambda text: your_move(text) and "last 2... " in text.split("\n")[14])

    program.type("resign")  # asks first, as draw and quit do
    program.wait_for("resign? your team loses the game: y/n")
    program.type("n")
    program.wait_for("resign cancelled")
    program.type("resign")
    program.wait_for("resign? y/n>")
    program.type("y")
    final = program.wait_for("press any key to leave")
    # The final screen stays: both boards, the result with its reason, the file, once each.
    assert final.split("\n")[0].startswith(" Board A (you, A-White)")
    assert "Board B (your partner, B-Black)" in final
    assert final.count("You lose: A-White resigned (0-1)") == 1
    assert final.count("Game written to") == 1
    time.sleep(0.5)
    program.pump()
    assert program.child.isalive()  # waits for the key
    program.child.send("x")
    output = program.finish()
    assert program.child.exitstatus == 0
    assert output.count("You lose: A-White resigned") == 1
    assert output.count("Game written to") == 1
    assert program.screen.text.count("You lose: A-White resigned (0-1)") == 1

    (game,) = read_games(program.out.read_text(), file=str(program.out))
    assert game.tags["WhiteA"] == "tester"
    assert game.tags["Result"] == "0-1"
    assert game.tags["Termination"] == "resignation"
    mine = [m.san for m in game.moves if m.board.value == "A" and m.white]
    assert mine == ["N@f3", "e4"]
    assert [(m.seat.value, m.text) for m in game.messages] == [("A-White", "++n")]
    report = replay_game(game)
    assert report.ok, report.verdict


@pytest.mark.slow
@needs_engine
def test_quit_asks_and_then_loses(program: Program) -> None:
    program.wait_for(your_move)
    program.type("quit")
    program.wait_for("quit? leaving loses the game for your team")
    program.type("n")
    program.wait_for("quit cancelled")
    program.type("quit")
    program.wait_for("quit? y/n>")
    program.type("y")
    program.wait_for("press any key to leave")
    program.leave()
    output = program.finish()
    assert "You lose: A-White left: quit at the console (0-1)" in output
    assert program.child.exitstatus == 0
    (game,) = read_games(program.out.read_text())
    assert game.tags["Termination"] == "left"


@pytest.mark.slow
@needs_engine
def test_ctrl_c_restores_the_terminal_and_writes_the_game(tmp_path: Path) -> None:
    program = Program(tmp_path, then="stty -a")
    try:
        program.wait_for(your_move)
        program.type("N@f3")
        # The echo comes when the move is queued; interrupt only once the
        # arbiter has played it and the file holds it.
        program.wait_for(lambda _: recorded(program.out, "N@f3"))
        program.child.sendintr()
        output = program.finish()
    finally:
        program.kill()
    assert "exit=130" in output
    assert "Traceback" not in output
    assert "Game aborted (Ctrl+C)" in output
    settings = output[output.index("exit=130") :].split()
    assert "icanon" in settings and "echo" in settings  # cooked mode again
    (game,) = read_games(program.out.read_text())
    assert game.tags["Result"] == "*"
    assert game.moves[0].san == "N@f3"


@pytest.mark.slow
@needs_engine
def test_a_resized_terminal_is_redrawn_whole(program: Program) -> None:
    program.wait_for(your_move)
    program.child.send("Nf")
    program.wait_for(lambda text: text.split("\n")[23] == "a-white> Nf")
    # Smaller than 80x24: a clear screen saying so, nothing cut, the input kept.
    program.screen = VirtualTerminal(60, 20)
    program.child.setwinsize(20, 60)
    small = program.wait_for("The terminal is 60x20: the boards need 80x24. Enlarge")
    assert "Board" not in small
    assert small.split("\n")[19] == "a-white> Nf"
    # Larger: the table, with a taller message area; the small-screen text is gone.
    program.screen = VirtualTerminal(100, 30)
    program.child.setwinsize(30, 100)
    large = program.wait_for(lambda text: text.split("\n")[29] == "a-white> Nf")
    rows = large.split("\n")
    assert rows[0].startswith(" Board A") and "Your move" in rows[28]
    assert "Enlarge" not in large and "terminal is" not in large
    assert "You play A-White" in "\n".join(rows[16:27])  # 11 message rows, not 5
    # Back to 80x24: the usual screen, nothing left over.
    program.screen = VirtualTerminal(80, 24)
    program.child.setwinsize(24, 80)
    normal = program.wait_for(
        lambda text: text.startswith(" Board A") and text.split("\n")[23] == "a-white> Nf"
    )
    assert "Enlarge" not in normal and "terminal is" not in normal
    program.type("3")
    program.wait_for("you play Nf3")
    program.type("resign")
    program.type("y")
    program.wait_for("press any key to leave")
    program.leave()
    program.finish()
    assert program.child.exitstatus == 0


def test_bad_options_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["play", "--seat", "C-white"],
        ["play", "--engine", "A-white=random"],
        ["play", "--tc", "fast"],
        ["play", "--rule", "stalemate=maybe"],
        ["play", "--fen-a", "not a fen"],
        ["play", "--engine", "B-black=/no/such/engine"],
        ["play", "--out", "/no/such/folder/game.bpgn"],
        ["play", "--option", "A-white.Seed=1"],  # your own seat
        ["play", "--option", "BA.Seed"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("bughouse play: error: "), argv
        assert err.count("\n") == 1, argv


@pytest.mark.slow
@needs_engine
def test_without_a_terminal_it_reads_and_prints_lines(tmp_path: Path) -> None:
    out = tmp_path / "piped.bpgn"
    args = ["play", "--out", str(out)]
    for seat in ("A-black", "B-white", "B-black"):
        args += ["--engine", f"{seat}={ENGINE}"]
    args += ["--fen-b", FEN_B, "--tc", "300+0"]
    done = run_bughouse(*args, input="sit\nresign\ny\n", timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    assert "you to partner: sit" in done.stdout
    assert done.stdout.rstrip().endswith(f"You lose: A-White resigned (0-1)\nGame written to {out}")
    (game,) = read_games(out.read_text())
    assert game.tags["Termination"] == "resignation"


@pytest.mark.slow
@needs_engine
def test_a_dumb_terminal_gets_lines(tmp_path: Path) -> None:
    out = tmp_path / "dumb.bpgn"
    args = ["-m", "bughouse_arbiter", "play", "--out", str(out), "--fen-b", FEN_B]
    for seat in ("A-black", "B-white", "B-black"):
        args += ["--engine", f"{seat}={ENGINE}"]
    child = pexpect.spawn(
        sys.executable,
        args,
        env={**os.environ, "TERM": "dumb"},
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=TIMEOUT,
        cwd=str(tmp_path),
    )
    child.logfile_read = io.StringIO()
    try:
        child.expect("Your move")
        child.send("resign\r")
        child.expect("resign\\? your team loses the game: y/n")
        child.send("y\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    output = child.logfile_read.getvalue()
    assert "\x1b" not in output
    assert f"Game written to {out}" in output
    assert child.exitstatus == 0


@pytest.mark.slow
@needs_engine
def test_help_signals_and_the_partner_request_line(tmp_path: Path) -> None:
    signaller = f"{sys.executable} {ROOT / 'tests' / 'partner_engine.py'} ---q sit x"
    program = Program(tmp_path, partner=signaller)
    try:
        screen = program.wait_for(your_move)
        # A new player is told once that sit and go exist.
        assert screen.count("Tell your partner sit (wait for a piece) or go (move now)") == 1
        program.type("help")
        screen = program.wait_for("Signals to your partner")
        for text in (
            "sit  wait until I say go",
            "go  move now",
            "dead  I am lost unless something changes",
            "x  cancel my requests",
            "+n ++n +++n  I want a knight: good / very good / it mates",
            "-q --q ---q  don't let them get a queen: bad / very bad / it mates me",
            "+trades ++trades  trades are good for me",
        ):
            assert text in screen
        assert "Board A" not in screen
        program.type("")
        program.wait_for(lambda text: text.startswith(" Board A"))

        program.type("tell how is it")
        request = "your partner asks: ---q (don't let them get a queen: it mates me)"
        program.wait_for(lambda text: request in text.split("\n")[15])
        for _ in range(6):  # the message area scrolls; the request stays
            program.type("moves")
        program.type("flip")
        program.wait_for("boards flipped")
        program.type("flip")
        screen = program.wait_for("boards flipped")
        assert request in screen.split("\n")[15]
        assert "---q" not in "\n".join(screen.split("\n")[16:21])

        program.type("tell and now")
        program.wait_for(
            lambda text: "asks: sit (wait: do not move until I say go)" in text.split("\n")[15]
        )
        program.type("tell ok")
        program.wait_for(lambda text: text.split("\n")[15] == "─" * 80)  # x cancels it
    finally:
        program.kill()


@pytest.mark.slow
@needs_engine
def test_moves_in_check_lists_the_drop_squares(tmp_path: Path) -> None:
    # White is in check from the bishop on b4 and holds a knight: it can block on c3 or d2.
    check = "rnbqk1nr/pppp1ppp/8/4p3/1b6/3P4/PPP1PPPP/RNBQKBNR[N] w KQkq - 0 1"
    program = Program(tmp_path, "--fen-a", check)
    try:
        program.wait_for(your_move)
        program.type("moves")
        screen = program.wait_for("drops: N@")
        assert "drops: N@ c3 d2" in " ".join(screen.split())
        assert "squares)" not in screen
    finally:
        program.kill()


@pytest.mark.slow
@needs_engine
def test_bell_rings_only_when_asked(tmp_path: Path) -> None:
    signaller = f"{sys.executable} {ROOT / 'tests' / 'partner_engine.py'} ++n"
    quiet = Program(tmp_path, partner=signaller)
    try:
        quiet.wait_for(your_move)
        quiet.type("tell hi")
        quiet.wait_for("your partner asks: ++n")
        assert "\x07" not in "".join(quiet.raw)
    finally:
        quiet.kill()

    # --tc 12: the clock goes under ten seconds about two seconds in.
    ringing = Program(tmp_path, "--bell", "--tc", "12+0", partner=signaller)
    try:
        ringing.wait_for(your_move)
        assert "".join(ringing.raw).count("\x07") == 1  # your turn
        ringing.type("tell hi")
        ringing.wait_for("your partner asks: ++n")
        assert "".join(ringing.raw).count("\x07") == 2  # the partner's request
        ringing.wait_for(lambda text: "you 9." in text.split("\n")[22])
        ringing.pump()
        assert "".join(ringing.raw).count("\x07") == 3  # under ten seconds, once
    finally:
        ringing.kill()
