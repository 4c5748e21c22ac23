"""Hostile engines, run as real processes: each attack class of issue 9, closed.

Every engine here is ``engines/hostile.py MODE --marker M`` (or a random
mover carrying the marker), seated through ``bughouse match`` / ``play`` /
``check-engine`` or ``run_match``. Each test checks the result, the reason,
the file, and that no process with the test's marker is left anywhere
(``/proc``): helpers, orphans holding pipes, ``setsid`` escapees.
Lines that would let an engine decide the result for someone else are also
thrown at the protocol layers by hypothesis in ``test_hostile_lines.py``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path

import pytest
import trio
from cli_checks import BUGHOUSE, environment, run_bughouse

from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.config.specs import EngineSpec
from bughouse_arbiter.core.model import Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import Player
from bughouse_arbiter.players.factory import create_player
from bughouse_arbiter.protocol.limits import NAME_LIMIT, TELL_LIMIT, TELLS_PER_TURN
from bughouse_arbiter.table.arbiter import MatchRecord, run_match

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "engines" / "hostile.py"
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
SEAT_OPTIONS = {Seat.A_WHITE: "WA", Seat.A_BLACK: "BA", Seat.B_WHITE: "WB", Seat.B_BLACK: "BB"}
GUARD = 90.0


#: ``bughouse`` as a process, as every test here runs it.
bughouse = partial(run_bughouse, timeout=GUARD)


@pytest.fixture
def marker() -> Iterator[str]:
    """A text on the command line of every process the test starts; none may survive it."""
    text = f"hostile-{uuid.uuid4().hex}"
    yield text
    leftovers = survivors(text)
    for pid in leftovers:  # do not leave them to the next test either
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def survivors(marker: str, wait: float = 5.0) -> list[int]:
    """Live processes whose command line holds ``marker``, after up to ``wait``
    seconds for the ones already killed to go (a zombie has no command line)."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == os.getpid():
                continue
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(name))
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def hostile(mode: str, marker: str, *extra: str) -> str:
    return f"{sys.executable} {HOSTILE} {mode} --marker {marker} {' '.join(extra)}".strip()


def seats(marker: str, attacker: Mapping[Seat, str], *, delay: int = 0) -> list[str]:
    """``--engine`` options: the attackers, and markered random movers elsewhere."""
    normal = hostile("normal", marker, f"--delay {delay}" if delay else "")
    return [f"--engine={SEAT_OPTIONS[s]}={attacker.get(s, normal)}" for s in Seat]


def one_game(path: Path) -> BpgnGame:
    (game,) = read_games(path.read_text(), file=str(path))
    return game


def assert_played_out(game: BpgnGame, max_plies: int) -> None:
    """The game ended on the boards (random movers may mate before the ply cap), nobody left."""
    ending = game.tag("Termination")
    if ending == "max_plies":
        assert game.result_tag == "1/2-1/2"
        reason = f"draw: {max_plies} plies played on the two boards (max_plies={max_plies})"
        assert game.tag("TerminationReason") == reason
    else:
        assert ending == "checkmate", (ending, game.tag("TerminationReason"))
        assert game.result_tag in ("1-0", "0-1")
        assert len(game.moves) < max_plies


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
pytestmark = needs_proc


# -- an engine cannot decide the result for someone else ------------------------------


@pytest.mark.slow
def test_a_huge_name_cannot_make_an_innocent_engine_leave(tmp_path: Path, marker: str) -> None:
    # ~8,000 characters of name (with terminal escapes) at A-Black: the
    # "player" lines to the three others must stay valid.
    attack = {Seat.A_BLACK: hostile("long-name", marker)}
    done = bughouse(
        "match", *seats(marker, attack), "--tc", "30", "--rule", "max_plies=30",
        "--out", "g.bpgn", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    game = one_game(tmp_path / "g.bpgn")
    assert_played_out(game, 30)
    name = game.tag("BlackA")
    assert name is not None and name.startswith("Hostile ")
    assert len(name) <= NAME_LIMIT and not CONTROL.search(name)
    assert game.tag("WhiteA") == "RandomMover 1.0"
    assert "\x1b" not in done.stdout
    assert replay_game(game).ok
    assert not survivors(marker)


@pytest.mark.slow
def test_numbers_of_hundreds_of_digits_are_bounded_in_the_file(tmp_path: Path, marker: str) -> None:
    attack = {Seat.A_WHITE: hostile("huge-score", marker)}
    done = bughouse(
        "match", *seats(marker, attack), "--tc", "30", "--rule", "max_plies=20",
        "--out", "g.bpgn", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "g.bpgn").read_text()
    game = one_game(tmp_path / "g.bpgn")
    assert_played_out(game, 20)
    # Every A-White move is in the file, with depth 12 and the absurd score left out.
    white_a = [m for m in game.moves if m.seat is Seat.A_WHITE]
    assert white_a
    assert text.count("[%eval ?,12]") == len(white_a)
    assert "99999" not in text and "77777" not in text
    assert replay_game(game).ok
    assert not survivors(marker)


@pytest.mark.slow
def test_a_ptell_flood_is_capped_per_turn_and_cleaned(tmp_path: Path, marker: str) -> None:
    attack = {Seat.A_WHITE: hostile("ptell-flood", marker, "--count", "3000")}
    done = bughouse(
        "match", *seats(marker, attack), "--tc", "30", "--rule", "max_plies=24",
        "--out", "g.bpgn", "--debug", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    game = one_game(tmp_path / "g.bpgn")
    assert_played_out(game, 24)
    moves = sum(1 for m in game.moves if m.seat is Seat.A_WHITE)
    tells = [m for m in game.messages if m.seat is Seat.A_WHITE]
    # 3,000 messages before each move: 8 of them pass per move (the last
    # turn's may have come before the game ended).
    assert len(tells) % TELLS_PER_TURN == 0
    assert moves * TELLS_PER_TURN <= len(tells) <= (moves + 1) * TELLS_PER_TURN
    assert [t.text.split()[0] for t in tells[:TELLS_PER_TURN]] == [
        str(i) for i in range(TELLS_PER_TURN)
    ]
    assert all(len(t.text) <= TELL_LIMIT and "\x1b" not in t.text for t in tells)
    assert (tmp_path / "g.bpgn").stat().st_size < 100_000
    # The excess is logged once.
    log = (tmp_path / "g.g1.a-white.log").read_text()
    assert log.count("over the cap") == 1
    assert "partner messages were dropped in this game" in log
    assert not survivors(marker)


# -- processes do not outlive their match ---------------------------------------------


def spec(command: str) -> EngineSpec:
    return EngineSpec(name=command.split()[1], command=tuple(command.split()))


async def hostile_match(
    marker: str, attack: Mapping[Seat, str], rules: HouseRules
) -> tuple[MatchRecord, list[Player]]:
    normal = hostile("normal", marker)
    players = [create_player(seat, spec(attack.get(seat, normal))) for seat in Seat]
    with trio.fail_after(GUARD):
        record = await run_match(players, rules)
    return record, players


@pytest.mark.slow
async def test_an_engine_that_exits_leaving_a_child_on_its_pipes_has_left(marker: str) -> None:
    # The child keeps the output open: no EOF comes. With 60 s on the clock,
    # only watching the process itself can make this "left" (and not a flag).
    attack = {Seat.A_WHITE: hostile("orphan-exit", marker, "--after", "2")}
    record, _players = await hostile_match(marker, attack, HouseRules(time=60.0))
    outcome = record.outcome
    assert outcome.termination is Termination.LEFT
    assert outcome.seat is Seat.A_WHITE
    assert outcome.winner is Seat.A_WHITE.team.other
    assert outcome.reason == "A-White left: the engine exited with status 0"
    assert sum(1 for p in record.game.moves if p.seat is Seat.A_WHITE) == 2
    assert not survivors(marker)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["helper", "group-helper", "setsid-helper"])
async def test_helpers_die_with_an_engine_that_obeys_quit(marker: str, mode: str) -> None:
    # Each seat's engine leaves a sleeping helper in its process group, in a
    # group of its own in its session, or in a session of its own (setsid).
    attack = {seat: hostile(mode, marker) for seat in Seat}
    record, players = await hostile_match(marker, attack, HouseRules(time=30.0, max_plies=16))
    assert record.outcome.termination in (Termination.MAX_PLIES, Termination.CHECKMATE)
    for player in players:
        process = getattr(player, "process", None)
        assert process is not None and process.returncode == 0  # it obeyed quit
    assert not survivors(marker)


@pytest.mark.slow
def test_a_daemon_is_collected_by_the_subreaper(tmp_path: Path, marker: str) -> None:
    # Double fork and setsid: when the engine stops, the daemon is no longer
    # below it. Re-parented to the command (a subreaper), it is killed there.
    attack = {Seat.B_BLACK: hostile("daemon-helper", marker)}
    done = bughouse(
        "match", *seats(marker, attack), "--tc", "30", "--rule", "max_plies=16",
        "--out", "g.bpgn", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    game = one_game(tmp_path / "g.bpgn")
    assert_played_out(game, 16)
    assert replay_game(game).ok
    assert not survivors(marker, wait=1.0)


@pytest.mark.slow
def test_an_orphan_holding_the_pipes_is_scored_left_by_the_command(
    tmp_path: Path, marker: str
) -> None:
    attack = {Seat.B_WHITE: hostile("orphan-exit", marker, "--after", "1")}
    done = bughouse("match", *seats(marker, attack), "--tc", "60", "--out", "g.bpgn", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    game = one_game(tmp_path / "g.bpgn")
    assert game.tag("Termination") == "left"
    assert game.tag("TerminationSeat") == "WB"
    assert game.tag("TerminationReason") == "B-White left: the engine exited with status 0"
    assert game.result_tag == "1-0"  # team 1 (A-White + B-Black) wins
    assert not survivors(marker)


# -- SIGTERM and SIGHUP are handled as Ctrl+C is -------------------------------------


def wait_for_line(process: subprocess.Popen[str], pattern: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if re.search(pattern, line):
            return
    raise AssertionError(f"no line matching {pattern!r}; exit {process.wait()}")


@pytest.mark.slow
@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: str(s.name)
)
def test_a_signal_stops_the_match_writes_the_game_and_closes_every_engine(
    tmp_path: Path, marker: str, sig: signal.Signals
) -> None:
    # A-White ignores every signal, quit and EOF, and has a helper: only SIGKILL ends them.
    attack = {Seat.A_WHITE: hostile("stubborn", marker, "--delay", "50")}
    process = subprocess.Popen(
        [
            *BUGHOUSE, "match", *seats(marker, attack, delay=50),
            "--tc", "600", "--rule", "max_plies=100000", "--out", "s.bpgn",
        ],
        cwd=tmp_path, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_line(process, r"^ply +4 ")
        process.send_signal(sig)
        out, err = process.communicate(timeout=GUARD)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + sig, err
    assert "Traceback" not in err
    name = "Ctrl+C" if sig == signal.SIGINT else sig.name
    assert f"interrupted ({name}): the game so far is in s.bpgn with result *" in out
    game = one_game(tmp_path / "s.bpgn")
    assert game.result_tag == "*"
    assert game.tag("Termination") == "aborted"
    reason = f"interrupted by {name}: the match was stopped before it ended"
    assert game.tag("TerminationReason") == reason
    assert len(game.moves) >= 4
    assert not survivors(marker)


@pytest.mark.slow
def test_sigterm_stops_check_engine_and_kills_a_stubborn_engine(
    tmp_path: Path, marker: str
) -> None:
    process = subprocess.Popen(
        [
            *BUGHOUSE, "check-engine",
            hostile("stubborn", marker, "--delay", "3000"),
        ],
        cwd=tmp_path, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for_line(process, r"PASS +handshake")
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=GUARD)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert "interrupted (SIGTERM) after" in out
    assert "steps passed" not in out
    assert not survivors(marker)


@pytest.mark.slow
def test_sighup_aborts_play_writes_the_game_and_closes_every_engine(
    tmp_path: Path, marker: str
) -> None:
    engines = [
        f"--engine={SEAT_OPTIONS[seat]}={hostile('stubborn', marker, '--delay', '50')}"
        for seat in Seat
        if seat is not Seat.A_WHITE
    ]
    process = subprocess.Popen(
        [
            *BUGHOUSE, "play", "--seat", "WA", *engines,
            "--tc", "600", "--out", "p.bpgn", "--name", "tester",
        ],
        cwd=tmp_path, env={**environment(), "TERM": "dumb"}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdin is not None
        wait_for_line(process, r"Your move")
        process.stdin.write("e4\n")
        process.stdin.flush()
        wait_for_line(process, r"A-Black plays")
        process.send_signal(signal.SIGHUP)
        out, err = process.communicate(timeout=GUARD)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGHUP, err
    assert "Traceback" not in err
    assert "Game aborted (SIGHUP); the game so far is in" in out
    game = one_game(tmp_path / "p.bpgn")
    assert game.result_tag == "*"
    assert game.tag("WhiteA") == "tester"
    assert game.moves[0].san == "e4"
    assert game.tag("TerminationReason") == (
        "interrupted by SIGHUP: the match was stopped before it ended"
    )
    assert not survivors(marker)


def wait_pid(pid: int, timeout: float = GUARD) -> int:
    """The wait status of child ``pid``; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} still runs after {timeout:g} s")


@pytest.mark.slow
def test_a_terminal_that_hangs_up_aborts_play_like_ctrl_c(tmp_path: Path, marker: str) -> None:
    # The real thing: the terminal goes away under `bughouse play` (its reads
    # and writes fail, SIGHUP and SIGCONT arrive), not just a signal.
    pexpect = pytest.importorskip("pexpect")
    engines = [
        f"--engine={SEAT_OPTIONS[seat]}={hostile('normal', marker, '--delay', '50')}"
        for seat in Seat
        if seat is not Seat.A_WHITE
    ]
    command = shlex.join(
        [*BUGHOUSE, "play", "--seat", "WA", *engines,
         "--tc", "600", "--out", "h.bpgn", "--name", "tester"]
    )  # fmt: skip
    child = pexpect.spawn(
        "bash",
        ["-c", f"exec {command} 2>errors.txt"],
        cwd=str(tmp_path),
        env={**environment(), "TERM": "xterm", "LANG": "C.UTF-8"},
        dimensions=(30, 100),
        encoding="utf-8",
        timeout=GUARD,
    )
    status: int | None = None
    try:
        child.expect("a-white>")
        child.expect("B-White")
        os.close(child.child_fd)  # hang up
        child.closed = True
        status = wait_pid(child.pid)
    finally:
        if status is None:
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGHUP
    assert (tmp_path / "errors.txt").read_text() == ""
    game = one_game(tmp_path / "h.bpgn")
    assert game.result_tag == "*"
    assert game.tag("TerminationReason") == (
        "interrupted by SIGHUP: the match was stopped before it ended"
    )
    assert not survivors(marker)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["helper", "daemon-helper"])
def test_check_engine_leaves_no_process_behind(tmp_path: Path, marker: str, mode: str) -> None:
    done = bughouse("check-engine", hostile(mode, marker), "--timeout", "10", cwd=tmp_path)
    assert "Traceback" not in done.stderr
    assert "PASS  handshake" in done.stdout
    assert "PASS  quit                     exited by itself (status 0)" in done.stdout
    assert not survivors(marker, wait=1.0)
