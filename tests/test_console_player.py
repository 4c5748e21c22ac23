"""The console player at a real arbiter, under trio's virtual clock.

A scripted keyboard types at exact virtual times; the screen is rebuilt by a
small terminal emulator from what the player wrote, after every write.
"""

from __future__ import annotations

import io

import trio
from console_vt import VirtualTerminal
from fakes import FakePlayer, Move, Tell, silent_table

from bughouse_arbiter.core.model import Result, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.base import Player
from bughouse_arbiter.players.console import ConsolePlayer, Terminal
from bughouse_arbiter.table.arbiter import MatchRecord, run_match
from bughouse_arbiter.ui.console_screen import Style

TEN = HouseRules(time=10.0)
PLAIN = Style(unicode=False, color=False)


class ScriptedTerminal(Terminal):
    """Types ``keys`` (``(at, bytes)``) and keeps a virtual screen of all output."""

    def __init__(
        self,
        keys: list[tuple[float, bytes]],
        *,
        interactive: bool = True,
        size: tuple[int, int] = (80, 24),
    ) -> None:
        self.interactive = interactive
        self.columns, self.rows = size
        self.style = PLAIN if not interactive else Style(unicode=True, color=True)
        self.keys = list(keys)
        self.screen = VirtualTerminal()
        self.output = io.StringIO()
        self.snapshots: list[tuple[str, int, int]] = []

    def write(self, text: str) -> None:
        self.output.write(text)
        self.screen.feed(text)
        self.snapshots.append((self.screen.line(23), self.screen.row, self.screen.column))

    def size(self) -> tuple[int, int]:
        return (self.columns, self.rows)

    async def read(self) -> bytes:
        if not self.keys:
            await trio.sleep_forever()
        at, data = self.keys.pop(0)
        await trio.sleep_until(at)
        return data


async def play(
    seat: Seat,
    keys: list[tuple[float, bytes]],
    rules: HouseRules = TEN,
    *,
    interactive: bool = True,
    **scripts: list[object],
) -> tuple[MatchRecord, ScriptedTerminal, list[Player]]:
    terminal = ScriptedTerminal(keys, interactive=interactive)
    console = ConsolePlayer(seat, terminal)
    others: list[Player] = [p for p in silent_table(**scripts) if p.seats[0] is not seat]  # type: ignore[arg-type]
    record = await run_match([console, *others], rules, human_seats=(seat,))
    return record, terminal, others


def fake(players: list[Player], seat: Seat) -> FakePlayer:
    player = next(p for p in players if seat in p.seats)
    assert isinstance(player, FakePlayer)
    return player


async def test_moves_typed_at_the_keyboard_reach_the_table(autojump_clock: object) -> None:
    record, terminal, _ = await play(
        Seat.A_WHITE,
        [(1.0, b"e4\r"), (3.0, b"N"), (3.5, b"f3\r"), (5.0, b"resign\r"), (5.2, b"y\r")],
        a_black=[Move("e5", after=1.0)],
    )
    moves = [(m.seat, m.uci, m.at) for m in record.game.moves]
    assert moves == [
        (Seat.A_WHITE, "e2e4", 1.0),
        (Seat.A_BLACK, "e7e5", 2.0),
        (Seat.A_WHITE, "g1f3", 3.5),
    ]
    assert record.outcome.termination is Termination.RESIGNATION
    assert record.outcome.result is Result.TEAM_TWO
    screen = terminal.screen.text
    assert "You lose: A-White resigned (0-1)" in screen
    assert "last 2. Nf3" in screen


async def test_bad_and_illegal_input_is_refused_and_the_clock_runs_on(
    autojump_clock: object,
) -> None:
    record, terminal, _ = await play(
        Seat.A_WHITE,
        [(1.0, b"Ke2\r"), (2.0, b"hello there\r"), (3.0, b"N@f3\r")],
        b_white=[Move("e4", after=0.5)],
    )
    assert [m.seat for m in record.game.moves] == [Seat.B_WHITE]
    assert record.outcome.termination is Termination.FLAG
    assert record.ended == 10.0  # the clock never stopped for bad input
    outputs = terminal.output.getvalue()
    assert "Ke2: illegal move" in outputs
    assert "'hello there': one move or command per line" in outputs
    assert "N@f3: no knight in the pocket" in outputs
    assert "You lose: A-White lost on time (0-1)" in terminal.screen.text


async def test_partner_signal_and_partner_message(autojump_clock: object) -> None:
    record, terminal, others = await play(
        Seat.B_BLACK,
        [
            (1.0, b"++n\r"),
            (2.0, b"tell I can mate with a knight\r"),
            (4.0, b"resign\r"),
            (4.2, b"y\r"),
        ],
        b_white=[Move("e4", after=0.5)],
        a_white=[Tell("sit", after=3.0)],
    )
    partner = fake(others, Seat.A_WHITE)
    assert partner.told == [(Seat.A_WHITE, "++n"), (Seat.A_WHITE, "I can mate with a knight")]
    assert [(m.seat, m.text) for m in record.game.messages][:2] == [
        (Seat.B_BLACK, "++n"),
        (Seat.B_BLACK, "I can mate with a knight"),
    ]
    assert "A-White): sit" in terminal.output.getvalue()


async def test_premove_is_played_the_instant_the_turn_comes(autojump_clock: object) -> None:
    record, terminal, _ = await play(
        Seat.A_BLACK,
        [(0.5, b"Nc6\r"), (6.0, b"resign\r"), (6.2, b"y\r")],
        a_white=[Move("e4", after=2.0)],
    )
    moves = [(m.seat, m.san, m.at) for m in record.game.moves]
    assert moves == [(Seat.A_WHITE, "e4", 2.0), (Seat.A_BLACK, "Nc6", 2.0)]
    assert "premove Nc6 played" in terminal.output.getvalue()


async def test_draw_needs_the_person_to_confirm(autojump_clock: object) -> None:
    record, terminal, _ = await play(Seat.B_WHITE, [(1.0, b"draw\r"), (2.0, b"y\r")])
    assert record.outcome.termination is Termination.AGREEMENT
    assert record.ended == 2.0
    assert "Draw: draw by agreement (1/2-1/2)" in terminal.screen.text


async def test_quit_asks_and_leaving_loses(autojump_clock: object) -> None:
    record, terminal, _ = await play(
        Seat.A_WHITE, [(1.0, b"quit\r"), (2.0, b"n\r"), (3.0, b"quit\r"), (4.0, b"y\r")]
    )
    assert record.outcome.termination is Termination.LEFT
    assert record.outcome.winner is Team.TWO
    assert record.ended == 4.0
    assert "quit cancelled" in terminal.output.getvalue()


async def test_clock_redraws_never_touch_the_line_being_typed(autojump_clock: object) -> None:
    record, terminal, _ = await play(
        Seat.A_WHITE, [(0.5, b"Nf"), (30.0, b"3\r")], b_white=[Move("e4", after=0.5)]
    )
    assert record.outcome.termination is Termination.FLAG  # nobody finished typing in time
    snapshots = terminal.snapshots
    first = next(i for i, s in enumerate(snapshots) if s[0] == "a-white> Nf")
    last = next(i for i, s in enumerate(snapshots) if s[0].startswith("game over>"))
    # Ticks every second, tenths below 20 s: many redraws while "Nf" sat in the line,
    # and after every one of them the line and the cursor are where the person left them.
    assert last - first > 50
    for line, row, column in snapshots[first:last]:
        assert (line, row, column) == ("a-white> Nf", 23, len("a-white> Nf"))


async def test_without_a_terminal_it_prints_lines(autojump_clock: object) -> None:
    record, terminal, _ = await play(
        Seat.A_BLACK,
        [(1.0, b"Nc6\n"), (1.5, b"cancel\n"), (3.0, b"e5\n"), (4.0, b"resign\n"), (4.2, b"y\n")],
        interactive=False,
        a_white=[Move("e4", after=2.0)],
    )
    text = terminal.output.getvalue()
    assert "\x1b" not in text
    assert "A: A-White plays e4" in text
    assert "Your move (A-Black," in text
    assert "premove Nc6 cancelled" in text
    assert "you play e5" in text
    assert "you resign" in text
    assert [m.san for m in record.game.moves] == ["e4", "e5"]


async def test_end_of_input_without_a_terminal_leaves(autojump_clock: object) -> None:
    record, _, _ = await play(Seat.A_WHITE, [(1.0, b"")], interactive=False)
    assert record.outcome.termination is Termination.LEFT
    assert "input closed" in record.outcome.reason


async def test_a_small_terminal_is_told_and_keeps_the_input_line(autojump_clock: object) -> None:
    terminal = ScriptedTerminal([(1.0, b"resign\r"), (1.2, b"y\r")], size=(60, 20))
    console = ConsolePlayer(Seat.A_WHITE, terminal)
    others = [p for p in silent_table() if p.seats[0] is not Seat.A_WHITE]
    record = await run_match([console, *others], TEN, human_seats=(Seat.A_WHITE,))
    assert record.outcome.termination is Termination.RESIGNATION
    text = terminal.output.getvalue()
    assert "The terminal is 60x20: the boards need 80x24." in text
    assert "Board A" not in text  # no cut table
    assert "\x1b[21;" not in text  # nothing drawn below the terminal's 20 rows
    assert "\x1b[20;1H\x1b[1ma-white> " in text  # the input line is the last row


async def test_a_person_moved_to_another_seat_plays_it_in_the_next_game(
    autojump_clock: object,
) -> None:
    """``bughouse play --connect`` in a rotating ``serve`` run: game 2's newgame
    names A-Black, and the person who played A-White in game 1 plays it (game
    1's end no longer holds: the console takes moves again)."""
    from bughouse_arbiter.core.board import STARTING_FEN
    from bughouse_arbiter.players.driver import PlayerDriver
    from bughouse_arbiter.protocol import RawLine

    fen = STARTING_FEN
    terminal = ScriptedTerminal([(1.0, b"e5\n")], interactive=False)
    console = ConsolePlayer(Seat.A_WHITE, terminal)
    sent: list[str] = []
    driver = PlayerDriver(console, sent.extend)

    def game(number: str, seat: str) -> list[str]:
        return [
            f"newgame id {number} seat {seat} time 60000 inc 0",
            *(f"player {s.slug} engine N{s.bpgn}" for s in Seat),
            "rules time=60 increment=0",
            f"state v 0 a {fen} b {fen} clock 60000 60000 60000 60000",
        ]

    async def lines():  # type: ignore[no-untyped-def]
        script = ["bug 1", *game("1", "a-white"), "gameover result * reason aborted text stopped"]
        script += [
            *game("2", "a-black"),
            "event v 1 board a move e2e4 clock 59000 60000 60000 60000",
        ]
        script += ["go v 1 turn 4 board a"]
        for text in script:
            yield RawLine(text, len(text))
            await trio.sleep(0)
        with trio.move_on_after(30):
            while not any(line.startswith("bestmove") for line in sent):
                await trio.sleep(0.1)
        yield RawLine("quit", 4)

    async with trio.open_nursery() as nursery:
        await driver.run(nursery, lines())
        nursery.cancel_scope.cancel()
    assert console.seat is Seat.A_BLACK and console.session.seat is Seat.A_BLACK
    assert "bestmove e7e5 turn 4" in sent
    text = terminal.output.getvalue()
    assert "You play A-White (team 1)" in text  # game 1
    assert "You play A-Black (team 2)" in text  # game 2
    assert "Your move (A-Black," in text and "you play e5" in text
