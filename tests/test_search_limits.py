"""An engine's movetime, depth and nodes: engines file -> factory -> every protocol's go."""

from __future__ import annotations

import pytest
import trio
from test_adapter_common import RULES, Table
from test_adapter_sunsetter import Link
from test_adapter_uci import FSF_HELLO as UCI_HELLO
from test_adapter_xboard import FSF_HELLO as XBOARD_FSF_HELLO
from test_adapter_xboard import SJENG_HELLO
from test_external_engines import require
from xboard_fake import SunsetterLike

from bughouse_arbiter.adapters import UciAdapter
from bughouse_arbiter.adapters.xboard import XboardAdapter
from bughouse_arbiter.config.engines_file import builtin_external_engines, parse_engines
from bughouse_arbiter.config.specs import EngineSpec, SearchLimits
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.model import SEATS, BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.players.base import Action, MatchInfo, MoveAction, TableState
from bughouse_arbiter.players.factory import create_player, create_team_player
from bughouse_arbiter.players.native import NativeEnginePlayer
from bughouse_arbiter.players.uci import UciPlayer
from bughouse_arbiter.players.xboard import XboardPlayer

ENGINES = """
[engines.fsf]
protocol = "uci"
command = "fairy-stockfish"
movetime = 7
depth = 3
nodes = 500

[engines.sj]
protocol = "xboard"
command = "sjeng"
movetime = 1500
depth = 4

[engines.mine]
command = "./mine"
depth = 2
"""
UNTIMED = HouseRules(clock=False)
ZERO = dict.fromkeys(Seat, 0.0)


def test_the_engines_file_reads_movetime_depth_and_nodes() -> None:
    specs = parse_engines(ENGINES)
    assert specs["fsf"].limits == SearchLimits(movetime=7, depth=3, nodes=500)
    assert specs["sj"].limits == SearchLimits(movetime=1500, depth=4)
    with pytest.raises(ConfigError, match=r"engines\.x\.nodes: must be a whole number above 0"):
        parse_engines('[engines.x]\ncommand = "x"\nnodes = 0\n')


def test_untimed_play_without_a_limit_thinks_a_second_a_move() -> None:
    assert SearchLimits().for_play(clock=False) == SearchLimits(movetime=1000)
    assert SearchLimits().for_play(clock=True) == SearchLimits()
    assert SearchLimits(nodes=9).for_play(clock=False) == SearchLimits(nodes=9)


def test_the_factory_hands_every_player_its_limits() -> None:
    specs = parse_engines(ENGINES)
    uci = create_player(Seat.A_WHITE, specs["fsf"])
    xboard = create_player(Seat.A_WHITE, specs["sj"])
    native = create_player(Seat.A_WHITE, specs["mine"])
    team = create_team_player((Seat.A_WHITE, Seat.B_BLACK), specs["mine"])
    assert isinstance(uci, UciPlayer) and isinstance(xboard, XboardPlayer)
    assert uci.adapter.limits == SearchLimits(movetime=7, depth=3, nodes=500)
    assert xboard.adapter.limits == SearchLimits(movetime=1500, depth=4)
    assert isinstance(native, NativeEnginePlayer) and isinstance(team, NativeEnginePlayer)
    assert native.limits == team.limits == SearchLimits(depth=2)


def _uci(limits: SearchLimits, rules: HouseRules = RULES) -> UciAdapter:
    adapter = UciAdapter(Seat.A_WHITE, rules=rules, limits=limits)
    adapter.begin()
    for line in (*UCI_HELLO, "readyok"):
        adapter.receive(line)
    adapter.take()
    return adapter


def test_uci_untimed_go_carries_the_limits_instead_of_the_default_second() -> None:
    limits = parse_engines(ENGINES)["fsf"].limits
    adapter = _uci(limits, UNTIMED)
    table = Table(adapter)
    adapter.new_game(UNTIMED, table.fen, ZERO)
    adapter.take()
    adapter.your_turn(1, table.fen, ZERO)
    assert adapter.take()[0][-1] == "go movetime 7 depth 3 nodes 500"


def test_uci_timed_go_keeps_the_clock_words_and_adds_the_limits() -> None:
    table = Table(_uci(SearchLimits(depth=3)))
    table.new_game()
    lines, _ = table.your_turn()
    assert lines[-1] == "go wtime 60000 btime 60000 winc 0 binc 0 depth 3"
    plain = Table(_uci(SearchLimits()))
    plain.new_game()
    assert plain.your_turn()[0][-1] == "go wtime 60000 btime 60000 winc 0 binc 0"


def _xboard(limits: SearchLimits, hello: list[str]) -> Table:
    adapter = XboardAdapter(Seat.A_WHITE, rules=RULES, limits=limits)
    adapter.begin()
    for line in hello:
        adapter.receive(line)
    adapter.take()
    table = Table(adapter)
    table.new_game()
    return table


def test_xboard_gets_sd_and_st_in_whole_seconds_before_every_go() -> None:
    table = _xboard(SearchLimits(movetime=1500, depth=4), SJENG_HELLO)
    assert table.your_turn()[0] == ["sd 4", "st 2", "time 6000", "otim 6000", "go"]


def test_xboard_nodes_use_nps_where_the_engine_offers_it_else_a_note() -> None:
    offers = [*SJENG_HELLO[:-1], "feature nps=1 colors=1 done=1"]
    table = _xboard(SearchLimits(movetime=900, nodes=5000), offers)
    assert table.your_turn()[0] == ["nps 5000", "st 1", "time 6000", "otim 6000", "go"]
    table = _xboard(SearchLimits(nodes=5000), XBOARD_FSF_HELLO)
    lines, events = table.your_turn()
    assert lines == ["time 6000", "otim 6000", "go"]
    assert any("nps=1" in getattr(e, "text", "") for e in events)


def test_an_xboard_engine_refusing_st_is_not_resynced_nor_sent_it_again() -> None:
    # Sunsetter answers st with "Illegal move"; Fairy-Stockfish an unknown command with Error.
    table = _xboard(SearchLimits(movetime=1000, depth=3), SJENG_HELLO)
    table.your_turn()
    lines, _ = table.feed("Illegal move: st 1", "Error (unkown command): sd")
    assert lines == []  # no re-sync, no new go
    assert table.adapter.refused_limits == {"st", "sd"}  # type: ignore[attr-defined]
    table.feed("pong 1", "move e2e4")
    table.push(Seat.A_WHITE, "e2e4")
    table.push(Seat.A_BLACK, "e7e5")
    assert table.your_turn()[0] == ["time 6000", "otim 6000", "go"]
    assert table.adapter.resyncs == 0  # type: ignore[attr-defined]


def test_a_sunsetter_like_fake_refusing_st_and_sd_plays_on_without_them() -> None:
    link = Link(Seat.A_WHITE, SunsetterLike())
    link.adapter.limits = SearchLimits(movetime=2000, depth=5)
    link.new_game()
    link.your_turn()  # "st 2" and "sd 5" answered "Illegal move: ..."
    assert link.engine.received.count("st 2") == link.engine.received.count("sd 5") == 1
    assert len(link.notes("engine refused")) == 2
    link.play_engine_move()
    link.push(Seat.A_BLACK, "e7e5")
    link.your_turn()
    link.play_engine_move()
    assert link.engine.received.count("st 2") == 1  # not sent again
    assert link.adapter.resyncs == 0 and link.in_step()


# -- a real Fairy-Stockfish -------------------------------------------------------------


@pytest.mark.slow
async def test_fairy_stockfish_keeps_to_depth_three() -> None:
    require("fairy-stockfish")
    spec = builtin_external_engines()["fairy-stockfish"]
    spec = EngineSpec(
        name=spec.name, protocol="uci", command=spec.command, options=spec.options, depth=3
    )
    lines: list[str] = []
    player = create_player(Seat.A_WHITE, spec, log=lines.append)
    send, receive = trio.open_memory_channel[Action](100)
    state = TableState(
        version=0, fens=dict.fromkeys(BoardId, STARTING_FEN), clocks=dict.fromkeys(SEATS, 300.0)
    )
    info = MatchInfo(
        game_id="1",
        names={seat: seat.slug for seat in SEATS},
        rules=HouseRules(time=300.0),
        start_fens=dict.fromkeys(BoardId, STARTING_FEN),
    )
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await player.start(nursery, send)
            await player.new_game(info, state)
            await player.your_turn(Seat.A_WHITE, 1, state)
            while not isinstance(await receive.receive(), MoveAction):
                pass
            await player.aclose()
    [go] = [line for line in lines if " < go " in line]
    assert go.endswith("go wtime 300000 btime 300000 winc 0 binc 0 depth 3")
    depths = [
        int(line.split(" depth ")[1].split()[0])
        for line in lines
        if " > info " in line and " depth " in line
    ]
    # On a 300 s clock it would search far deeper unless it kept to the limit.
    assert depths and max(depths) == 3
