"""One look: ``match``, ``replay`` and ``play`` draw the same table.

The same position (the golden game after ``2A. exd5``: a pawn in B-Black's
hand, a clock running on each board) is drawn by the three paths: the live
table of ``match`` (``render_table`` on the arbiter's game), the ``replay``
frame read back from the BPGN file, and the ``play`` screen of the person at
A-White (``console_screen.compose``). Board rows, pockets, clock faces and
seat labels must be the same text, with the same colours.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.commands import replay as replay_command
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.ui.console_screen import Style, compose, plain, to_ansi
from bughouse_arbiter.ui.console_session import ConsoleSession
from bughouse_arbiter.ui.render import RenderOptions, render_table

GOLDEN = Path(__file__).parent / "data" / "arbiter_game.bpgn"
PLY = 5  # after 2A. exd5
ROWS = 15  # title, player, hand, 8 ranks, files, hand, player, last move
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def three_tables(unicode: bool, color: bool) -> dict[str, list[str]]:
    """The table's first ROWS lines as match, replay and play print them."""
    (source,) = read_games(GOLDEN.read_text())
    report = replay_game(source, frames=True)
    frame = report.frames[PLY]
    clocks = {seat: float(left) for seat, left in frame.clocks.items() if left is not None}
    assert len(clocks) == 4 and frame.running == {Seat.A_BLACK, Seat.B_WHITE}
    names = {seat: source.name_of(seat) or "" for seat in Seat}
    options = RenderOptions(unicode=unicode, color=color)

    replayed = replay_command.render(frame, source, report.rules, options, report.played[:PLY])

    game = BughouseGame(report.rules)  # the arbiter's game, as match draws it
    for played in report.played[:PLY]:
        game.push(played.seat, played.san, at=played.at, clock=played.clock)
    matched = render_table(game, clocks, names=names, running=frame.running, options=options)

    session = ConsoleSession(Seat.A_WHITE)  # the person at A-White, told the same
    start = BughouseGame(report.rules)
    fens = {b: start.fen(b) for b in BoardId}
    session.start(game_id="g", names=names, rules=report.rules, fens=fens, clocks=clocks, now=0.0)
    for played in game.moves:
        session.moved(played, {b: game.fen(b) for b in BoardId}, clocks, 0.0)
    style = Style(unicode=unicode, color=color)
    screen = compose(session, 0.0, style)
    shown = [to_ansi(line, style).rstrip() if color else plain(line) for line in screen]
    return {
        "match": matched.splitlines()[:ROWS],
        "replay": replayed.splitlines()[1 : 1 + ROWS],  # under its "after ..." line
        "play": shown[:ROWS],
    }


@pytest.mark.parametrize(("unicode", "color"), [(False, False), (True, False), (True, True)])
def test_match_replay_and_play_draw_one_table(unicode: bool, color: bool) -> None:
    tables = three_tables(unicode, color)
    match, replay, play = tables["match"], tables["replay"], tables["play"]
    # Pockets, ranks (last move marked) and file letters of both boards: the
    # same text and escapes, row by row.
    assert match[2:13] == replay[2:13] == play[2:13]
    hands = [ESCAPE.sub("", row).split() for row in (match[2], match[12])]
    assert hands == [["hand:", "-", "hand:", "-"], ["hand:", "-", "hand:", "♟" if unicode else "p"]]
    assert ESCAPE.sub("", match[3]).split()[:3] == [
        "8",
        "♜" if unicode else "r",
        "♞" if unicode else "n",
    ]
    # Seat lines: the same marker, seat, clock face and colours; play says
    # "you" where the others name A-White's player.
    assert match[1] == replay[1] == play[1]
    assert match[13] == replay[13]
    assert ESCAPE.sub("", play[13]) == ESCAPE.sub("", match[13]).replace("sjeng", "you  ")
    seat_lines = [ESCAPE.sub("", row) for row in (match[1], match[13])]
    assert [line[:40].split() for line in seat_lines] == [
        [">", "A-Black", "fairy", "2:56"],
        ["A-White", "sjeng", "2:57"],
    ]
    assert [line[40:].split() for line in seat_lines] == [
        [">", "B-White", "random", "2:55"],
        ["B-Black", "searcher", "2:55"],
    ]
    if color:  # a running clock is highlighted alike on both boards and in all three
        assert match[1].count("\x1b[1;7m   2:5") == 2
    # The last-move row: the same words; replay numbers moves as the file does.
    assert ESCAPE.sub("", match[14]).split() == ["last", "2.", "exd5", "last", "1...", "e5"]
    assert match[14] == play[14]
    assert ESCAPE.sub("", replay[14]).split() == ["last", "2A.", "exd5", "last", "1b.", "e5"]
