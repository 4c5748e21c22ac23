"""Team engines in hivemind's dialect (``team-uci:`` specs): the adapter sans-IO,
then ``team_uci_fake.py`` as a real process in a match, a tournament and check-engine."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import chess
import pytest
from cli_checks import expect_usage_error, run_bughouse

from bughouse_arbiter.adapters.common import EngineNote
from bughouse_arbiter.adapters.team_uci import (
    SeatInfo,
    SeatMove,
    SeatWait,
    TeamEvent,
    TeamUciAdapter,
    think_ms,
)
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.cli import main
from bughouse_arbiter.config.specs import SearchLimits, seat_assignment, team_assignment
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat, Team
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import ConfigError, EngineFailed
from bughouse_arbiter.exits import FAILED, OK

FAKE = Path(__file__).with_name("team_uci_fake.py")
RULES = HouseRules(time=60.0)


def spec(*flags: str) -> str:
    return f"team-uci:{sys.executable} {FAKE} {' '.join(flags)}".strip()


class Table:
    """A game and a team-UCI adapter for ``team``, driven as the arbiter drives it."""

    def __init__(self, team: Team = Team.ONE, limits: SearchLimits | None = None) -> None:
        self.adapter = TeamUciAdapter(team.seats[0], limits=limits or SearchLimits())
        self.game = BughouseGame(RULES)
        self.clocks = dict.fromkeys(Seat, 60.0)
        self.token = 0
        self.held: list[TeamEvent] = []
        self.adapter.begin()
        self.adapter.receive("option name Team type combo default white var white var black")
        self.adapter.receive("uciok")
        self.adapter.receive("readyok")
        self.adapter.new_game(RULES, self.fens(), self.clocks, (), self.fens())

    def fens(self) -> dict[BoardId, str]:
        return {b: self.game.fen(b) for b in BoardId}

    def turn(self, seat: Seat) -> int:
        self.token += 1
        self.adapter.your_turn(seat, self.token, self.fens(), self.clocks)
        return self.token

    def push(self, seat: Seat, move: str) -> None:
        self.adapter.moved(self.game.push(seat, move), self.fens(), self.clocks)

    def lines(self) -> list[str]:
        lines, events = self.adapter.take()
        self.held += events
        return lines

    def events(self, line: str) -> list[TeamEvent]:
        """The events for the arbiter after ``line`` (the lines it sends stay for ``lines``)."""
        self.held = []
        self.adapter.receive(line)
        lines, events = self.adapter.take()
        self.adapter.send(*lines)
        return [e for e in self.held + events if not isinstance(e, EngineNote)]


def test_the_handshake_and_a_new_game_say_the_team_and_its_mode() -> None:
    adapter = TeamUciAdapter(Seat.B_WHITE, options={"Hash": "64"})
    adapter.begin()
    adapter.receive("Hivemind 1.0")
    adapter.receive("id name hivemind")
    adapter.receive("option name Hash type spin default 16 min 1 max 33554432")
    adapter.receive("uciok")
    adapter.receive("readyok")
    assert adapter.name == "hivemind" and adapter.ready
    fens = dict.fromkeys(BoardId, STARTING_FEN)
    adapter.new_game(RULES, fens, dict.fromkeys(Seat, 60.0), (), fens)
    assert adapter.take()[0] == [
        "uci",
        "setoption name Hash value 64",
        "isready",
        "ucinewgame",
        "setoption name Team value black",  # team 2: Black on A, White on B
        "setoption name Mode value go",
        "isready",
    ]


def test_the_team_and_mode_options_are_the_harness_own() -> None:
    adapter = TeamUciAdapter(Seat.A_WHITE, options={"mode": "sit"})
    adapter.receive("option name Mode type combo default go var sit var go")
    with pytest.raises(EngineFailed, match="option 'mode' is the arbiter's to set"):
        adapter.receive("uciok")


def test_the_info_goes_with_the_move_of_its_seat() -> None:
    table = Table(Team.ONE)
    table.push(Seat.A_WHITE, "e2e4")
    table.turn(Seat.B_BLACK)
    table.push(Seat.B_WHITE, "d2d4")  # stops the search: its answer is dropped
    table.lines()
    assert table.events("bestmove (pass,d7d5)") == []
    table.lines()
    table.adapter.receive("info depth 9 score cp 35 pv (pass,d7d5) \x1b[31m")
    info, move = table.events("bestmove (pass,d7d5)")
    assert move == SeatMove(Seat.B_BLACK, 1, "d7d5")
    assert isinstance(info, SeatInfo) and info.seat is Seat.B_BLACK  # not A-White's
    assert info.text.startswith("depth 9 score cp 35 pv (pass,d7d5)") and "\x1b" not in info.text


def test_moves_of_both_boards_go_in_order_with_their_board_number() -> None:
    table = Table()
    table.lines()
    table.turn(Seat.A_WHITE)
    assert table.lines() == ["position startpos", "go movetime 2000"]
    assert table.events("bestmove (e2e4,pass) ponder (e7e5,pass)") == [
        SeatMove(Seat.A_WHITE, 1, "e2e4")
    ]
    table.push(Seat.A_WHITE, "e2e4")
    assert table.lines() == []  # no open turn: nothing to ask
    table.push(Seat.B_WHITE, "d2d4")
    table.turn(Seat.B_BLACK)
    assert table.lines()[-2:] == ["position startpos moves 1e2e4 2d2d4", "go movetime 2000"]


def test_a_change_while_it_thinks_stops_and_discards_the_old_answer() -> None:
    table = Table(Team.TWO)  # A-Black + B-White
    table.turn(Seat.B_WHITE)
    table.lines()
    table.push(Seat.A_WHITE, "e2e4")  # board A changes while it thinks
    assert table.lines() == ["stop"]
    table.turn(Seat.A_BLACK)
    assert table.lines() == []  # one search at a time
    assert table.events("bestmove (pass,d2d4)") == []  # the stopped search's answer
    lines = table.lines()
    assert lines[-2] == "position startpos moves 1e2e4" and lines[-1].startswith("go ")


def test_both_boards_answered_at_once_and_pass_is_a_wait() -> None:
    table = Table(Team.TWO)  # A-Black + B-White
    table.push(Seat.A_WHITE, "e2e4")
    table.turn(Seat.A_BLACK)
    table.turn(Seat.B_WHITE)
    table.lines()
    assert table.events("bestmove (e7e5,d2d4)") == [
        SeatMove(Seat.A_BLACK, 1, "e7e5"),
        SeatMove(Seat.B_WHITE, 2, "d2d4"),
    ]
    table.push(Seat.A_BLACK, "e7e5")
    assert table.lines() == []  # B-White's move is still on its way
    table.push(Seat.B_WHITE, "d2d4")
    table.push(Seat.A_WHITE, "g1f3")
    table.turn(Seat.A_BLACK)
    table.lines()
    assert table.events("bestmove (pass,pass)") == [SeatWait(Seat.A_BLACK, 3, "passes")]
    table.turn(Seat.A_BLACK)  # the same turn again: the same position is not asked twice
    assert table.lines() == []


def test_an_illegal_or_unreadable_answer_is_not_passed_on() -> None:
    table = Table()
    table.turn(Seat.A_WHITE)
    table.lines()
    assert table.events("bestmove (e2e5,pass)") == []
    assert table.lines()[-1].startswith("go ")  # asked once more
    assert table.events("bestmove (e2e5,pass)") == []
    assert table.lines() == []  # then it waits for a change
    table.push(Seat.B_WHITE, "e2e4")
    table.lines()
    assert table.events("bestmove e2e4") == [SeatWait(Seat.A_WHITE, 1, "unreadable answer e2e4")]
    table.push(Seat.B_BLACK, "e7e5")  # not on B-Black's turn, but a change all the same
    table.lines()
    assert table.events("bestmove (none)") == [SeatWait(Seat.A_WHITE, 1, "engine has no action")]


def test_the_spec_limits_and_the_clock_pick_the_search_and_the_mode() -> None:
    table = Table(limits=SearchLimits(nodes=800))
    table.lines()
    table.turn(Seat.A_WHITE)
    assert table.lines() == ["position startpos", "go nodes 800"]
    table = Table()
    table.lines()
    table.clocks = {**table.clocks, Seat.A_WHITE: 50.0, Seat.A_BLACK: 40.0}
    table.turn(Seat.A_WHITE)
    assert table.lines() == [
        "setoption name Mode value sit",  # ahead on the board where it is on move
        "position startpos",
        f"go movetime {think_ms(50.0, 0.0)}",
    ]
    assert think_ms(0.5, 0.0) == 50 and think_ms(30.0, 2.0) == 2600


def test_a_set_up_start_goes_as_two_fens() -> None:
    table = Table()
    fen_a = "6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1"
    table.game = BughouseGame(RULES, fen_a=fen_a, fen_b=STARTING_FEN)
    table.adapter.new_game(RULES, table.fens(), table.clocks, (), table.fens())
    table.lines()
    table.turn(Seat.A_WHITE)
    position = table.lines()[0]
    assert position.startswith("position fen 6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1|rnbqkbnr")
    [move] = table.events("bestmove (R@f1,pass)")
    assert isinstance(move, SeatMove) and chess.Move.from_uci(move.move).drop == chess.ROOK


def test_each_seat_has_its_own_turns_reached() -> None:
    from bughouse_arbiter.players.team_uci import TeamUciPlayer

    player = TeamUciPlayer(Team.ONE.seats, [sys.executable, str(FAKE)])
    player._seat_reached(Seat.A_WHITE, 4, 10.5)
    player._seat_reached(Seat.B_BLACK, 4, 11.0)  # tokens are the arbiter's, per seat
    assert player.turn_reached(Seat.B_BLACK, 4) == 11.0
    assert player.harness_delay(Seat.A_WHITE, 4, 10.0, 12.0) == 0.5
    assert player.harness_delay(Seat.B_BLACK, 4, 10.0, 12.0) == 1.0  # still there
    assert player.harness_delay(Seat.B_BLACK, 5, 10.0, 12.0) == 2.0  # never sent: all of it
    with pytest.raises(ValueError, match="two seats of one team"):
        TeamUciPlayer((Seat.A_WHITE, Seat.B_WHITE), [sys.executable, str(FAKE)])


def test_a_capture_that_passes_nothing_goes_on_from_the_fens() -> None:
    """When the other board is over, a capture passes nothing; the engine, which
    replays captures into the partner's pocket, is given the boards as FENs."""
    table = Table(Team.TWO)
    game = table.game
    for seat, move in ((Seat.A_WHITE, "e2e4"), (Seat.A_BLACK, "d7d5")):
        table.push(seat, move)
    played = dataclasses.replace(game.push(Seat.A_WHITE, "e4d5"), passed=None)
    fens = table.fens()
    fens[BoardId.B] = table.adapter.boards[BoardId.B].fen()  # no pawn reached B-Black
    table.adapter.moved(played, fens, table.clocks)
    table.adapter.your_turn(Seat.B_WHITE, 9, fens, table.clocks)
    position = table.lines()[-2]
    assert position == f"position fen {fens[BoardId.A]}|{fens[BoardId.B]}"
    assert "[]" in fens[BoardId.B]


def test_team_uci_holds_a_team_only() -> None:
    team, engine = team_assignment(f"2={spec()}")
    assert team is Team.TWO and engine.protocol == "team-uci"
    with pytest.raises(
        ConfigError, match=r"holds both seats of a team \(match and tournament: --team 1="
    ):
        seat_assignment(f"WA={spec()}")


@pytest.mark.parametrize(
    ("command", "argv", "message"),
    [
        ("match", ["--engine", f"WA={spec()}"], "--team 1=team-uci:"),
        ("match", ["--engine", f"BA={spec()}"], "--team 2="),
        ("match", ["--team", "1=team-uci:"], "has no command"),
        ("match", ["--team", "1=team-uci:./no-such-hivemind"], "no such program"),
        (
            "tournament",
            ["--engine", f"hive={spec()}", "--engine", "rnd=random"],
            "give it as --team hive=team-uci:",
        ),
        (
            "tournament",
            ["--team", f"mix=random+{spec()}", "--engine", "rnd=random"],
            "holds both seats of a team on its own",
        ),
        ("tournament", ["--team", "t=team:tcs:lazybug", "--engine", "r=random"], "team-uci"),
        ("play", ["--engine", f"WB={spec()}"], "holds both seats of a team"),
        ("connect", ["--server", "http://127.0.0.1:9", "--bot", "hive", "--", spec()], "one seat"),
    ],
)
def test_a_team_engine_at_one_seat_is_a_usage_error(
    command: str,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error(command, argv, message, capsys, tmp_path)


def test_the_example_engines_file_seats_hivemind_as_a_team(tmp_path: Path) -> None:
    from bughouse_arbiter.config.engines_file import load_engines_file

    text = (Path(__file__).resolve().parent.parent / "engines.example.toml").read_text()
    tail = text[text.index("# hivemind") :]
    entries = "\n".join(line[2:] for line in tail.splitlines() if line.startswith(("# [", "# ")))
    entries = "\n".join(line for line in entries.splitlines() if "=" in line or "[" in line)
    path = tmp_path / "engines.toml"
    path.write_text(entries[entries.index("[engines.hivemind]") :])
    specs = load_engines_file(path)
    assert set(specs) == {"hivemind"} and specs["hivemind"].protocol == "team-uci"
    team, spec = team_assignment("1=hivemind", specs)
    assert (
        team is Team.ONE
        and spec.command[1:] == ("--model", "models/model.onnx")
        and spec.movetime == 1000
    )


# -- as a process ---------------------------------------------------------------------


def games_of(path: Path) -> list[str]:
    games = read_games(path.read_text())
    for game in games:
        assert replay_game(game).ok
    return [game.tag("Result") or "" for game in games]


def heard(trace: Path) -> list[str]:
    """The lines the fake heard, in order (of every process that wrote ``trace``)."""
    return [line.split(" < ", 1)[1] for line in trace.read_text().splitlines()]


@pytest.mark.slow
def test_a_match_with_a_team_engine_on_each_team(tmp_path: Path) -> None:
    one, two = tmp_path / "one.trace", tmp_path / "two.trace"
    argv = [
        "match", "--tc", "20", "--games", "2", "--rule", "max_plies=200",
        "--team", f"1={spec('--think', '40', '--trace', str(one))}",
        "--team", f"2={spec('--think', '40', '--sit', '--seed', '2', '--trace', str(two))}",
        "--out", str(tmp_path / "m.bpgn"),
    ]  # fmt: skip
    done = run_bughouse(*argv, cwd=tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr
    assert len(games_of(tmp_path / "m.bpgn")) == 2
    text = (tmp_path / "m.bpgn").read_text()
    assert '[WhiteA "hivemind"]' in text and '[BlackB "hivemind"]' in text
    for trace in (one, two):
        lines = heard(trace)
        teams = [line.split()[-1] for line in lines if line.startswith("setoption name Team")]
        assert sorted(teams) == ["black", "white"]  # the seats rotate: each team once
        gos = [line for line in lines if line.startswith("go ")]
        assert gos and all(line.split()[1] == "movetime" for line in gos)
        moves = [w for line in lines if " moves " in line for w in line.split(" moves ")[1].split()]
        assert {w[0] for w in moves} == {"1", "2"}
        # Each process (the pre-match check's, the match's, one restarted after a
        # loss on time) was greeted with the handshake before anything else.
        firsts: dict[str, str] = {}
        for line in trace.read_text().splitlines():
            firsts.setdefault(line.split()[0], line.split(" < ", 1)[1])
        assert set(firsts.values()) == {"uci"} and len(firsts) >= 2


@pytest.mark.slow
def test_a_tournament_with_a_team_engine_participant(tmp_path: Path) -> None:
    trace = tmp_path / "hive.trace"
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--team", f"hive={spec('--think', '30', '--trace', str(trace))}",
        "--engine", "rnd=random",
        "--games", "2", "--tc", "10+0", "--rule", "max_plies=150",
        "--opening-plies", "0", "--out", str(out),
    ]  # fmt: skip
    done = run_bughouse(*argv, cwd=tmp_path, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "hive vs rnd: 2 games" in done.stdout
    assert len(games_of(out / "games.bpgn")) == 2
    lines = heard(trace)
    # One process for both seats: one handshake in the run, a game's lines per game.
    assert lines.count("ucinewgame") >= 2
    assert lines.count("uci") <= lines.count("ucinewgame")


@pytest.mark.slow
def test_check_engine_on_a_team_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-engine", spec(), "--timeout", "10"])
    out = capsys.readouterr().out
    assert status == OK, out
    assert "(team-uci)" in out and "FAIL" not in out
    assert "dropped R@" in out and "N@f7#" in out and "when a rook arrived" in out


@pytest.mark.slow
def test_check_engine_shows_the_last_stderr_lines_of_an_engine_that_died(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["check-engine", spec("--no-model"), "--timeout", "5"])
    out = capsys.readouterr().out
    assert status == FAILED
    [handshake] = [line for line in out.splitlines() if line.startswith("  FAIL  handshake")]
    assert "FAIL" in handshake and "exited with status 1" in handshake
    assert "(stderr: Error: No ONNX model found" in handshake
