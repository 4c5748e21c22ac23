"""The xboard adapter against a fake engine with Sunsetter's habits (``xboard_fake``).

Sunsetter's ``setboard`` switches it to crazyhouse and makes it play the side
not to move; it books ``time``/``otim`` by the colour it believes it plays;
it sits without a word when it has no move. The adapter must drive it as a
chess server does: ``new``, ``variant bughouse``, moves, ``holding``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import chess
import pytest
from cli_checks import run_bughouse
from test_adapter_common import CLOCKS, RULES, Table
from xboard_fake import Crashed, SunsetterLike

from bughouse_arbiter.adapters import EngineMove, EngineNote, EngineWait, XboardAdapter
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.errors import EngineFailed


class Link:
    """An adapter wired to a fake engine: every line goes across at once."""

    def __init__(self, seat: Seat, engine: SunsetterLike, *, fen_a: str | None = None) -> None:
        self.engine = engine
        self.adapter = XboardAdapter(seat, rules=RULES)
        self.table = Table(self.adapter, fen_a=fen_a)
        self.events: list[object] = []
        self.adapter.begin()
        self.pump()
        assert self.adapter.handshake_done

    def pump(self, lines: list[str] | None = None) -> None:
        pending = list(lines or [])
        while True:
            sent, events = self.adapter.take()
            self.events += events
            pending += sent
            if not pending:
                return
            line = pending.pop(0)
            for answer in self.engine.feed(line):
                self.adapter.receive(answer)

    def moves(self) -> list[str]:
        return [e.move for e in self.events if isinstance(e, EngineMove)]

    def notes(self, words: str) -> list[str]:
        return [e.text for e in self.events if isinstance(e, EngineNote) and words in e.text]

    def new_game(self) -> None:
        self.pump(self.table.new_game()[0])

    def your_turn(self) -> None:
        self.pump(self.table.your_turn()[0])

    def push(self, seat: Seat, move: str) -> None:
        self.pump(self.table.push(seat, move)[0])

    def play_engine_move(self) -> str:
        """The engine's answer to the open turn, played at the table."""
        moves = self.moves()
        assert moves, self.events
        move = moves[-1]
        self.events.clear()
        self.push(self.adapter.seat, move)
        return move

    def in_step(self) -> bool:
        """The fake engine's board and pockets are the table's."""
        ours = self.table.game.board(self.adapter.seat.board)
        theirs = self.engine.board
        return ours.board_fen() == theirs.board_fen() and all(
            ours.pockets[c].count(p) == theirs.pockets[c].count(p)
            for c in chess.COLORS
            for p in range(1, 6)
        )


@pytest.mark.parametrize("seat", [Seat.A_WHITE, Seat.A_BLACK])
def test_a_game_from_the_start_never_uses_setboard_and_every_drop_is_good(seat: Seat) -> None:
    link = Link(seat, SunsetterLike())
    link.new_game()
    rng = random.Random(7)
    game = link.table.game
    played_drops = 0
    for _ in range(120):
        if game.is_over:
            break
        for board in (BoardId.B, BoardId.A):  # board B first: pieces reach board A
            if not game.is_live(board):
                continue
            mover = game.to_move(board)
            position = game.board(board)
            if mover is seat:
                link.your_turn()
                if not link.moves():
                    continue  # no move: the engine sits
                played_drops += "@" in link.play_engine_move()
                assert link.in_step()
                continue
            legal = sorted(m.uci() for m in position.legal_moves)
            if legal:
                link.push(mover, rng.choice(legal))
    assert not any(line.startswith("setboard") for line in link.engine.received)
    assert link.engine.rules == "bughouse"
    assert link.notes("rejected") == [] and link.notes("re-sync") == []
    assert link.adapter.resyncs == 0
    assert played_drops > 0  # the pockets were used, so the test means something


def test_time_and_otim_land_on_the_engines_own_colour() -> None:
    link = Link(Seat.A_WHITE, SunsetterLike())
    link.new_game()
    link.your_turn()  # the first move: both clocks full
    link.play_engine_move()
    link.push(Seat.A_BLACK, "e7e5")
    clocks = dict(CLOCKS)
    clocks[Seat.A_WHITE], clocks[Seat.A_BLACK] = 40.0, 50.0
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, clocks)
    link.pump()
    # It budgets this move from its own clock (White's), and knows the other.
    assert link.engine.budgets[-1] == 4000
    assert link.engine.clock == {chess.WHITE: 4000, chess.BLACK: 5000}
    link.play_engine_move()
    link.push(Seat.A_BLACK, "d7d5")
    # After a re-sync too (today's setboard left it playing Black here).
    clocks[Seat.A_WHITE], clocks[Seat.A_BLACK] = 30.0, 45.0
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, clocks)
    link.adapter.take()
    link.adapter.receive("move R@e8")
    link.pump()
    assert link.adapter.resyncs == 1
    assert link.engine.budgets[-1] == 3000
    assert link.engine.clock == {chess.WHITE: 3000, chess.BLACK: 4500}


def test_a_black_engine_books_its_own_clock_too() -> None:
    link = Link(Seat.A_BLACK, SunsetterLike())
    link.new_game()
    link.push(Seat.A_WHITE, "e2e4")
    clocks = dict(CLOCKS)
    clocks[Seat.A_WHITE], clocks[Seat.A_BLACK] = 55.0, 31.0
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, clocks)
    link.pump()
    assert link.engine.budgets == [3100]


def test_a_refused_move_resyncs_by_replaying_the_moves_not_by_setboard() -> None:
    link = Link(Seat.A_WHITE, SunsetterLike())
    link.new_game()
    link.your_turn()
    link.play_engine_move()
    for seat, move in [
        (Seat.A_BLACK, "e7e5"),
        (Seat.B_WHITE, "e2e4"),
        (Seat.B_BLACK, "d7d5"),
        (Seat.B_WHITE, "e4d5"),  # a black pawn for A-Black
        (Seat.B_BLACK, "d8d5"),  # a white pawn for A-White
    ]:
        link.push(seat, move)
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, CLOCKS)
    link.adapter.take()  # the engine never sees this "go"
    link.adapter.receive("move R@e8")  # a rook it does not have: refused
    lines, _ = link.adapter.take()
    assert not any(line.startswith("setboard") for line in lines)
    assert lines[:5] == ["new", "variant bughouse", "easy", "level 0 1:00 0", "force"]
    engine_first = link.table.game.moves[0].move.uci()
    replay = lines[lines.index("force") + 1 :]
    assert replay[-3:] == ["time 6000", "otim 6000", "go"]
    assert engine_first in replay
    assert "e7e5" in replay
    assert replay.index("e7e5") < replay.index("holding [P] [P]")
    link.events.clear()
    link.pump(lines)
    assert link.engine.rules == "bughouse"
    assert link.adapter.resyncs == 1
    assert link.moves(), link.events  # it moved again, legally
    link.play_engine_move()
    assert link.in_step()


def test_a_resync_replays_drops_with_their_pieces_announced_first() -> None:
    link = Link(Seat.A_BLACK, SunsetterLike())
    link.new_game()
    for seat, move in [
        (Seat.B_WHITE, "e2e4"),
        (Seat.B_BLACK, "d7d5"),
        (Seat.B_WHITE, "e4d5"),  # a black pawn for A-Black
        (Seat.A_WHITE, "e2e4"),
    ]:
        link.push(seat, move)
    link.your_turn()
    assert link.moves() == ["P@a3"]  # greedy for drops, and it holds the pawn
    link.play_engine_move()
    link.push(Seat.A_WHITE, "d2d4")
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, CLOCKS)
    link.adapter.take()
    link.adapter.receive("move Q@d5")
    lines, _ = link.adapter.take()
    # The pawn it dropped is announced before the replay, then the real pockets.
    assert lines.index("holding [] [P]") < lines.index("P@a3") < lines.index("holding [] []")
    link.pump(lines)
    link.play_engine_move()
    assert link.in_step()


def test_sjeng_is_told_its_colour_at_a_point_where_that_is_true() -> None:
    # colors=1: "black" means Black to move and the engine plays White.
    link = Link(Seat.A_WHITE, SunsetterLike())
    link.new_game()
    link.your_turn()
    link.play_engine_move()
    link.push(Seat.A_BLACK, "e7e5")
    link.table.token += 1
    link.adapter.your_turn(link.table.token, link.table.fen, CLOCKS)
    link.adapter.take()
    link.adapter.receive("move R@e8")
    lines, _ = link.adapter.take()
    first = link.table.game.moves[0].move.uci()
    assert lines.index(first) < lines.index("black") < lines.index("e7e5")
    assert lines.index("black") < lines.index("holding [] []")


def test_a_silent_sitter_moves_once_a_piece_arrives() -> None:
    link = Link(Seat.A_WHITE, SunsetterLike(prefer=["f2f3", "g2g4"]))
    link.new_game()
    link.your_turn()
    assert link.play_engine_move() == "f2f3"
    link.push(Seat.A_BLACK, "e7e5")
    link.your_turn()
    assert link.play_engine_move() == "g2g4"
    link.push(Seat.A_BLACK, "d8h4")  # check; only a dropped piece could block it
    link.your_turn()
    assert link.moves() == [] and not any(isinstance(e, EngineWait) for e in link.events)
    for seat, move in [
        (Seat.B_WHITE, "e2e4"),
        (Seat.B_BLACK, "d7d5"),
        (Seat.B_WHITE, "b1c3"),
        (Seat.B_BLACK, "d5e4"),  # a white pawn for A-White
    ]:
        link.push(seat, move)
    assert link.moves() == ["P@f2"]


def test_a_set_up_game_is_refused_when_setboard_leaves_bughouse() -> None:
    link = Link(Seat.A_WHITE, SunsetterLike(), fen_a="6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1")
    with pytest.raises(EngineFailed, match="leaves bughouse after setboard"):
        link.new_game()
    assert link.adapter.setboard_keeps_bughouse is False
    # The probe: set up, a knight announced by holding only, and not the mate.
    received = link.engine.received
    assert received.index("setboard 6rk/6pp/8/8/8/8/6PP/6K1 w - - 0 1") < received.index(
        "holding [N] []"
    )


def test_a_set_up_game_uses_setboard_once_the_probe_passed() -> None:
    engine = SunsetterLike(keeps_bughouse=True, ping=True)
    link = Link(Seat.A_WHITE, engine, fen_a="6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1")
    link.new_game()
    assert link.adapter.setboard_keeps_bughouse is True
    assert engine.received.count("holding [N] []") == 1  # the probe's knight
    assert engine.received[-3:] == [
        "setboard 6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1",
        "holding [R] []",
        "ping 2",
    ]
    link.your_turn()
    assert [m[:2] for m in link.moves()] == ["R@"]
    # A second set-up game needs no second probe.
    link.adapter.new_game(RULES, link.table.fen, CLOCKS)
    lines, _ = link.adapter.take()
    assert "holding [N] []" not in lines


def test_an_engine_without_setboard_cannot_start_a_set_up_game() -> None:
    adapter = XboardAdapter(Seat.A_WHITE, rules=RULES)
    adapter.receive('feature ping=1 setboard=0 variants="bughouse" done=1')
    with pytest.raises(EngineFailed, match="setboard=1"):
        adapter.new_game(RULES, "6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1", CLOCKS)


def test_the_fake_crashes_at_new_after_memory_as_sunsetter_does() -> None:
    engine = SunsetterLike(offers_option=False)
    engine.feed("memory 16")
    with pytest.raises(Crashed):
        engine.feed("new")


@pytest.mark.slow
def test_a_match_never_sends_memory_unless_asked(tmp_path: Path) -> None:
    """Two games on kept engines (a second ``new`` after the first): Sunsetter,
    which dies at ``new`` after ``memory``, plays both to their end."""
    fake = f"xboard:{sys.executable} {Path(__file__).with_name('xboard_fake.py')} --no-option"
    engines = [f"--engine=WA={fake}", *(f"--engine={seat}=random" for seat in ("BA", "WB", "BB"))]
    options = ["--tc", "2+0", "--games", "2", "--seed", "3", "--out", "s.bpgn"]
    done = run_bughouse("match", *engines, *options, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    games = read_games((tmp_path / "s.bpgn").read_text())
    assert len(games) == 2
    assert not any("SIGSEGV" in game.tags.get("Termination", "") for game in games)
    assert "SIGSEGV" not in done.stdout and "left" not in done.stdout
