"""NativeEnginePlayer against the random mover and every fault engine (real processes)."""

from __future__ import annotations

import io
import math
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import attrs
import chess
import pytest
import trio

from bughouse_arbiter.adapters.declared import BadOptionValue
from bughouse_arbiter.config.specs import SearchLimits
from bughouse_arbiter.core.game import BughouseGame, PlayedMove
from bughouse_arbiter.core.model import SEATS, BoardId, Outcome, Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed, MoveError
from bughouse_arbiter.players import native
from bughouse_arbiter.players.base import (
    Action,
    DrawOfferAction,
    Gone,
    InfoAction,
    MatchInfo,
    MoveAction,
    TableState,
    TellAction,
    WaitAction,
)
from bughouse_arbiter.players.native import MAX_PENDING, NativeEnginePlayer
from bughouse_arbiter.players.process import EngineProcess, ProtocolLog
from bughouse_arbiter.protocol import Command
from bughouse_arbiter.protocol.limits import TELLS_PER_TURN
from bughouse_arbiter.table.arbiter import run_match

ENGINES = Path(__file__).resolve().parent.parent / "engines"
RANDOM = [sys.executable, str(ENGINES / "random_mover.py"), "--seed", "7"]
GUARD = 30
START = chess.STARTING_FEN.replace(" w ", "[] w ", 1)
NO_MOVE = "k7/8/8/8/8/1q6/8/K7[] w - - 0 1"  # A-White: not in check, nothing legal


def faulty(mode: str, *extra: str) -> list[str]:
    return [sys.executable, str(ENGINES / "faulty.py"), mode, "--seed", "3", *extra]


def table(version: int = 0, fen_a: str = START, fen_b: str = START) -> TableState:
    return TableState(
        version=version,
        fens={BoardId.A: fen_a, BoardId.B: fen_b},
        clocks=dict.fromkeys(SEATS, 60.0),
    )


def info(rules: HouseRules | None = None) -> MatchInfo:
    return MatchInfo(
        game_id="test 1",
        names={seat: seat.slug for seat in SEATS},
        rules=rules or HouseRules(),
        start_fens={BoardId.A: START, BoardId.B: START},
    )


class Seated:
    """A started player and the channel its actions arrive on."""

    def __init__(self, player: NativeEnginePlayer, actions: trio.MemoryReceiveChannel[Action]):
        self.player = player
        self.actions = actions

    async def next(self, timeout: float = GUARD) -> Action:
        with trio.fail_after(timeout):
            return await self.actions.receive()

    async def next_move(self) -> MoveAction:
        while True:
            action = await self.next()
            if isinstance(action, MoveAction):
                return action
            assert isinstance(action, InfoAction), action


@pytest.fixture
async def nursery() -> AsyncIterator[trio.Nursery]:
    async with trio.open_nursery() as nursery:
        yield nursery
        nursery.cancel_scope.cancel()


async def seat(
    nursery: trio.Nursery,
    player: NativeEnginePlayer,
    *,
    game: bool = True,
    buffer: float = math.inf,
) -> Seated:
    send, receive = trio.open_memory_channel[Action](buffer)
    with trio.fail_after(GUARD):
        await player.start(nursery, send)
        if game:
            await player.new_game(info(), table())
    return Seated(player, receive)


def assert_reaped(pid: int | None) -> None:
    assert pid is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


# -- the random mover -----------------------------------------------------------------


@pytest.mark.slow
async def test_handshake_turn_and_move(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(
        Seat.A_WHITE, RANDOM, options={"Seed": "5"}, log=ProtocolLog(stream)
    )
    seated = await seat(nursery, player)
    assert player.name == "RandomMover 1.0"
    assert player.session.supports_team
    assert "Seed" in player.session.options
    await player.your_turn(Seat.A_WHITE, 41, table())
    info_action = await seated.next()
    assert isinstance(info_action, InfoAction)
    assert info_action.seat is Seat.A_WHITE
    move = await seated.next()
    assert isinstance(move, MoveAction)
    assert (move.seat, move.token) == (Seat.A_WHITE, 41)
    game = BughouseGame()
    game.push(Seat.A_WHITE, move.move)  # legal
    await player.partner_says(Seat.A_WHITE, "++n")
    await player.draw_offered(Seat.B_WHITE)
    await player.game_over(game.resign(Seat.B_WHITE) or _never())
    with trio.fail_after(GUARD):
        await player.aclose()
    assert player.process.returncode == 0
    assert_reaped(player.process.pid)
    log = stream.getvalue()
    for expected in (
        "WA < bug 1",
        "WA > bugok",
        "WA < setoption name Seed value 5",
        "WA < newgame id test_1 seat a-white time 180000 inc 0",
        "WA < player b-black engine b-black",
        "WA < rules time=180 increment=0 clock=on wait_for_block=on",
        "WA < go v 0 turn 1 board a",
        "WA > bestmove ",
        "WA < ptell ++n",
        "WA < draw offer by b-white",
        "WA < gameover result 1-0 reason resignation board b seat b-white",
        "WA < quit",
    ):
        assert expected in log, expected


@pytest.mark.slow
async def test_one_state_before_the_first_go_and_the_rules_on_the_wire(
    nursery: trio.Nursery,
) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, log=ProtocolLog(stream))
    seated = await seat(nursery, player, game=False)
    rules = HouseRules(turn_time_limit=5.0, dropped_pawn_double_step=False)
    start = TableState(
        version=0,
        fens={BoardId.A: START, BoardId.B: START},
        clocks=dict.fromkeys(SEATS, 60.0),
        turn_left=dict.fromkeys(SEATS, 5.0),
        no_double={BoardId.A: (), BoardId.B: ()},
    )
    await player.new_game(info(rules), start)
    await player.your_turn(Seat.A_WHITE, 1, start)
    await seated.next_move()
    # A later turn whose state differs gets its own state line.
    later = TableState(
        version=0,
        fens=start.fens,
        clocks={**start.clocks, Seat.A_WHITE: 59.5},
        turn_left={**start.turn_left, Seat.A_WHITE: 2.25},
        no_double={BoardId.A: ("e2",), BoardId.B: ()},
    )
    await player.your_turn(Seat.A_WHITE, 2, later)
    await seated.next_move()
    log = stream.getvalue()
    states = [line for line in log.splitlines() if "WA < state " in line]
    assert len(states) == 2, states
    assert states[0].endswith("clock 60000 60000 60000 60000 nodouble - -")
    assert states[1].endswith("clock 59500 60000 60000 60000 nodouble e2 -")
    assert "WA < go v 0 turn 1 board a limit 5000" in log
    assert "WA < go v 0 turn 2 board a limit 2250" in log
    assert log.index(states[0]) < log.index("WA < isready") < log.index("turn 1 board a")


@pytest.mark.slow
async def test_untimed_play_sends_no_time_and_a_budget_per_move(nursery: trio.Nursery) -> None:
    for limits, expected in (
        (SearchLimits(), "movetime 1000"),
        (SearchLimits(movetime=300, depth=5), "movetime 300 depth 5"),
        (SearchLimits(nodes=40), "nodes 40"),
    ):
        stream = io.StringIO()
        player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, log=ProtocolLog(stream), limits=limits)
        seated = await seat(nursery, player, game=False)
        untimed = TableState(
            version=0,
            fens={BoardId.A: START, BoardId.B: START},
            clocks=dict.fromkeys(SEATS, 0.0),
        )
        await player.new_game(info(HouseRules(clock=False)), untimed)
        await player.your_turn(Seat.A_WHITE, 1, untimed)
        await seated.next_move()
        log = stream.getvalue()
        assert "WA < newgame id test_1 seat a-white time 0 inc 0" in log
        assert "clock 0 0 0 0" in log
        assert f"WA < go v 0 turn 1 board a {expected}" in log
        with trio.fail_after(GUARD):
            await player.aclose()


@pytest.mark.slow
async def test_timed_play_sends_the_limits_beside_the_clocks(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    limits = SearchLimits(movetime=7, depth=3)
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, log=ProtocolLog(stream), limits=limits)
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    await seated.next_move()
    assert "WA < go v 0 turn 1 board a movetime 7 depth 3" in stream.getvalue()
    with trio.fail_after(GUARD):
        await player.aclose()


def _never() -> Outcome:
    raise AssertionError("the game should be over")


@pytest.mark.slow
async def test_wait_then_a_partner_capture_brings_a_drop(nursery: trio.Nursery) -> None:
    seated = await seat(nursery, NativeEnginePlayer(Seat.A_WHITE, RANDOM))
    player = seated.player
    await player.your_turn(Seat.A_WHITE, 7, table(5, fen_a=NO_MOVE))
    wait = await seated.next()
    assert wait == WaitAction(seat=Seat.A_WHITE, token=7, reason="no legal move")
    # B-Black captures a white knight on board B: it goes to A-White's pocket.
    capture = PlayedMove(
        ply=6,
        board=BoardId.B,
        seat=Seat.B_BLACK,
        move=chess.Move.from_uci("d5e4"),
        san="dxe4",
        passed=chess.Piece(chess.KNIGHT, chess.WHITE),
    )
    await player.moved(capture, table(6, fen_a=NO_MOVE.replace("[]", "[N]")))
    move = await seated.next_move()
    assert (move.seat, move.token) == (Seat.A_WHITE, 7)
    assert move.move.startswith("N@")
    board = chess.variant.CrazyhouseBoard(NO_MOVE.replace("[]", "[N]"))
    assert chess.Move.from_uci(move.move) in board.legal_moves


@pytest.mark.slow
async def test_team_mode_answers_name_their_boards(nursery: trio.Nursery) -> None:
    player = NativeEnginePlayer((Seat.A_WHITE, Seat.B_BLACK), RANDOM)
    seated = await seat(nursery, player)
    assert player.label == "WA+BB"
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1"
    state = table(1, fen_b=after_e4)
    await player.your_turn(Seat.A_WHITE, 3, state)
    await player.your_turn(Seat.B_BLACK, 4, state)
    moves = {(await seated.next_move()).seat for _ in range(2)}
    assert moves == {Seat.A_WHITE, Seat.B_BLACK}


@pytest.mark.slow
async def test_team_mode_needs_the_feature(nursery: trio.Nursery) -> None:
    no_team = [sys.executable, "-c", "input(); print('id name Solo'); print('bugok', flush=True)"]
    player = NativeEnginePlayer((Seat.A_BLACK, Seat.B_WHITE), no_team)
    with trio.fail_after(GUARD), pytest.raises(EngineFailed, match="feature team"):
        await seat(nursery, player)
    assert_reaped(player.process.pid)
    with pytest.raises(ValueError, match="one team"):
        NativeEnginePlayer((Seat.A_WHITE, Seat.B_WHITE), RANDOM)


@pytest.mark.slow
async def test_a_full_match_of_four_random_movers() -> None:
    rules = HouseRules(time=60, max_plies=60)
    players = [NativeEnginePlayer(s, [*RANDOM[:-1], str(i + 1)]) for i, s in enumerate(SEATS)]
    with trio.fail_after(120):
        record = await run_match(players, rules)
    outcome = record.game.outcome
    assert outcome is not None
    assert outcome.termination in (Termination.CHECKMATE, Termination.MAX_PLIES)
    assert record.game.plies > 0
    for player in players:
        assert player.process.returncode == 0
        assert_reaped(player.process.pid)


# -- fault engines ----------------------------------------------------------------------


@pytest.mark.slow
async def test_crash_is_one_gone_with_the_exit_status(nursery: trio.Nursery) -> None:
    seated = await seat(nursery, NativeEnginePlayer(Seat.B_WHITE, faulty("crash")))
    player = seated.player
    await player.your_turn(Seat.B_WHITE, 1, table())
    first = await seated.next_move()
    assert first.token == 1
    await player.your_turn(Seat.B_WHITE, 2, table(2))
    gone = await seated.next()
    assert isinstance(gone, Gone)
    assert gone.seat is Seat.B_WHITE
    assert gone.reason.startswith("the engine exited with status 3")
    assert "crashing on purpose" in gone.reason
    with trio.fail_after(GUARD):
        with pytest.raises(trio.EndOfChannel):
            await seated.actions.receive()  # exactly one Gone, then nothing
        await player.aclose()
        await player.your_turn(Seat.B_WHITE, 3, table(3))  # harmless after the end
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_closed_pipe_is_gone_and_the_process_is_stopped(nursery: trio.Nursery) -> None:
    seated = await seat(
        nursery, NativeEnginePlayer(Seat.A_BLACK, faulty("close-pipe", "--after", "0"))
    )
    player = seated.player
    await player.your_turn(Seat.A_BLACK, 1, table(1, fen_a=START.replace(" w ", " b ")))
    gone = await seated.next()
    assert gone == Gone(seat=Seat.A_BLACK, reason="the engine closed its output")
    with trio.fail_after(GUARD):
        await player.aclose()
    assert player.process.returncode == -signal.SIGTERM
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_hang_never_answers_but_still_closes(nursery: trio.Nursery) -> None:
    seated = await seat(nursery, NativeEnginePlayer(Seat.A_WHITE, faulty("hang", "--after", "0")))
    await seated.player.your_turn(Seat.A_WHITE, 1, table())
    with trio.move_on_after(0.5) as scope:
        await seated.actions.receive()
    assert scope.cancelled_caught
    with trio.fail_after(GUARD):
        await seated.player.aclose()
    assert seated.player.process.returncode == 0  # it does obey quit
    assert_reaped(seated.player.process.pid)


@pytest.mark.slow
async def test_garbage_is_ignored_and_play_goes_on(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.A_WHITE, faulty("garbage"), log=ProtocolLog(stream))
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    move = await seated.next_move()
    BughouseGame().push(Seat.A_WHITE, move.move)
    assert player.ignored >= 10
    log = stream.getvalue()
    assert "over-long line (20000 bytes, limit 8192)" in log
    assert "malformed 'bestmove'" in log
    assert "not open (stale or unknown)" in log
    assert "'bugok' is not expected in state 'playing'" in log


@pytest.mark.slow
async def test_flood_is_drained_and_only_the_last_info_forwarded(nursery: trio.Nursery) -> None:
    player = NativeEnginePlayer(Seat.A_WHITE, faulty("flood", "--after", "0", "--flood-mb", "3"))
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    first = await seated.next()
    assert isinstance(first, InfoAction)
    assert first.text.startswith("depth 0 string random choice")
    move = await seated.next()
    assert isinstance(move, MoveAction)
    assert move.token == 1


@pytest.mark.slow
async def test_answers_carry_the_time_their_line_was_read(nursery: trio.Nursery) -> None:
    seated = await seat(nursery, NativeEnginePlayer(Seat.A_WHITE, RANDOM))
    asked = trio.current_time()
    await seated.player.your_turn(Seat.A_WHITE, 1, table())
    move = await seated.next_move()
    assert move.arrived_at is not None
    assert asked < move.arrived_at <= trio.current_time()


@pytest.mark.slow
async def test_a_channel_without_room_gets_every_action_in_order(nursery: trio.Nursery) -> None:
    # Nobody takes actions for a while: the reader keeps draining, the actions
    # wait in the player's outbox, in order, stamped when their line was read.
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, log=ProtocolLog(stream))
    seated = await seat(nursery, player, buffer=0)
    await seated.player.your_turn(Seat.A_WHITE, 1, table())
    with trio.fail_after(GUARD):  # the answer was read (its actions wait in the outbox)
        while "WA > bestmove" not in stream.getvalue():
            await trio.sleep(0.01)
    await trio.sleep(0.01)
    taken = trio.current_time()
    info_action, move = await seated.next(), await seated.next()
    assert isinstance(info_action, InfoAction)
    assert isinstance(move, MoveAction) and move.token == 1
    assert move.arrived_at is not None and info_action.arrived_at == move.arrived_at
    assert move.arrived_at < taken
    await seated.player.your_turn(Seat.A_WHITE, 2, table(version=1))
    second = await seated.next_move()
    assert second.token == 2


CHATTY = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bug":
        print("bugok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        sys.stdout.write("".join(f"LINE\\n" for i in range(3000)))
        print("bestmove e2e4 turn " + line.split()[4], flush=True)
    elif word == "quit":
        break
"""


def chatty(line: str) -> list[str]:
    """An engine that writes ``line`` 3000 times (``{i}`` numbered) before its move."""
    return [sys.executable, "-c", CHATTY.replace("LINE", line)]


@pytest.mark.slow
async def test_a_flood_of_draw_offers_is_capped_but_the_move_goes_through(
    nursery: trio.Nursery,
) -> None:
    player = NativeEnginePlayer(Seat.A_WHITE, chatty("draw offer"))
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    process = player.process
    assert isinstance(process, EngineProcess)
    offers = []
    with trio.fail_after(GUARD):
        while not isinstance(action := await seated.next(), MoveAction):
            offers.append(action)
    assert action.token == 1
    # Past the read budget most are dropped unread; of the rest at most MAX_PENDING wait.
    assert 0 < len(offers) <= MAX_PENDING and process.flood_dropped > 0
    assert all(isinstance(t, DrawOfferAction) for t in offers)
    assert len(offers) + player.ignored + process.flood_dropped == 3000


@pytest.mark.slow
async def test_a_flood_of_partner_messages_is_capped_per_turn_and_logged_once(
    nursery: trio.Nursery,
) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.A_WHITE, chatty("ptell spam {i}"), log=ProtocolLog(stream))
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    tells = []
    while not isinstance(action := await seated.next(), MoveAction):
        tells.append(action)
    assert action.token == 1
    assert [t.text for t in tells if isinstance(t, TellAction)] == [
        f"spam {i}" for i in range(TELLS_PER_TURN)
    ]
    # The rest are over the cap, or dropped unread past the read budget.
    process = player.process
    assert isinstance(process, EngineProcess)
    assert player.ignored + process.flood_dropped == 3000 - TELLS_PER_TURN
    assert stream.getvalue().count("over the cap") == 1


TALKER = """
import sys
for line in sys.stdin:
    words = line.split()
    word = words[0] if words else ""
    if word == "bug":
        print("id name Talker")
        print("feature team")
        print("bugok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        print("ptell " + "x" * 499 + "yz")
        print("bestmove e2e4 turn " + words[4] + " board " + words[6], flush=True)
    elif word == "quit":
        break
"""


@pytest.mark.slow
async def test_partner_messages_are_cut_to_500_characters_both_ways(
    nursery: trio.Nursery,
) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(
        Seat.A_WHITE, [sys.executable, "-c", TALKER], log=ProtocolLog(stream)
    )
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    tell = await seated.next()
    # Cut to 500 characters, the cut marked.
    assert tell == TellAction(seat=Seat.A_WHITE, text="x" * 497 + "...", arrived_at=tell.arrived_at)
    assert isinstance(await seated.next(), MoveAction)
    await player.partner_says(Seat.A_WHITE, "p" * 499 + "qr")
    with trio.fail_after(GUARD):
        await player.aclose()
    lines = stream.getvalue().splitlines()
    sent = [line.split(" < ", 1)[1] for line in lines if " < ptell" in line]
    assert sent == ["ptell " + "p" * 499 + "q"]
    assert player.ignored == 0


@pytest.mark.slow
async def test_a_team_mode_engine_neither_hears_nor_sends_partner_messages(
    nursery: trio.Nursery,
) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(
        (Seat.A_WHITE, Seat.B_BLACK), [sys.executable, "-c", TALKER], log=ProtocolLog(stream)
    )
    seated = await seat(nursery, player)
    await player.partner_says(Seat.A_WHITE, "++n")
    await player.your_turn(Seat.A_WHITE, 1, table())
    move = await seated.next()  # its ptell is not passed on
    assert isinstance(move, MoveAction) and move.token == 1
    with trio.fail_after(GUARD):
        await player.aclose()
    log = stream.getvalue()
    assert "< ptell" not in log
    assert "'ptell' is not used in team mode" in log
    assert player.ignored == 1


@pytest.mark.slow
async def test_illegal_move_reaches_the_arbiter_as_played(nursery: trio.Nursery) -> None:
    seated = await seat(
        nursery, NativeEnginePlayer(Seat.A_WHITE, faulty("illegal", "--after", "0"))
    )
    await seated.player.your_turn(Seat.A_WHITE, 1, table())
    move = await seated.next_move()
    with pytest.raises(MoveError):
        BughouseGame().push(Seat.A_WHITE, move.move)


@pytest.mark.slow
async def test_stale_answers_are_ignored(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.A_WHITE, faulty("stale"), log=ProtocolLog(stream))
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 10, table())
    assert (await seated.next_move()).token == 10
    await player.your_turn(Seat.A_WHITE, 20, table(2))
    assert (await seated.next_move()).token == 20
    with trio.move_on_after(0.3):
        extra = await seated.actions.receive()
        raise AssertionError(f"unexpected {extra}")
    log = stream.getvalue()
    assert "ignored (bestmove for turn 1, which is not open (stale or unknown)" in log
    assert "ignored (wait for turn 1002, which is not open" in log


@pytest.mark.slow
async def test_an_option_the_engine_did_not_declare_fails_the_start(
    nursery: trio.Nursery,
) -> None:
    # Native names are matched as written: the engine compares them so.
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, options={"Delay": "0", "seed": "5"})
    refusal = r"^engine has no option 'seed' \(did you mean 'Seed'\?\)$"
    with trio.fail_after(GUARD), pytest.raises(EngineFailed, match=refusal):
        await seat(nursery, player, game=False)
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_a_value_the_engine_did_not_declare_fails_the_start(
    nursery: trio.Nursery,
) -> None:
    # random_mover declares Delay a spin from 0 to 600000.
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, options={"Delay": "fast"})
    refusal = r"^option 'Delay' takes a whole number from 0 to 600000, not 'fast'$"
    with trio.fail_after(GUARD), pytest.raises(BadOptionValue, match=refusal):
        await seat(nursery, player, game=False)
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_slow_start_fails_the_handshake(nursery: trio.Nursery) -> None:
    player = NativeEnginePlayer(Seat.A_WHITE, faulty("slow-start"), handshake_timeout=0.5)
    with trio.fail_after(GUARD), pytest.raises(EngineFailed, match=r"no 'bugok' within 0\.5 s"):
        await seat(nursery, player, game=False)
    assert player.process.returncode is not None
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_ignore_quit_is_killed(nursery: trio.Nursery) -> None:
    player = NativeEnginePlayer(Seat.A_WHITE, faulty("ignore-quit"), quit_grace=0.2, term_grace=0.2)
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table())
    await seated.next_move()
    with trio.fail_after(GUARD):
        await player.aclose()
        await player.aclose()
    assert player.process.returncode == -signal.SIGKILL
    assert_reaped(player.process.pid)


@pytest.mark.slow
async def test_engine_dying_in_the_handshake(nursery: trio.Nursery) -> None:
    dying = [sys.executable, "-c", "import sys; print('oops', file=sys.stderr); sys.exit(5)"]
    player = NativeEnginePlayer(Seat.A_WHITE, dying)
    with (
        trio.fail_after(GUARD),
        pytest.raises(EngineFailed, match=r"the engine exited with status 5 \(stderr: oops\)"),
    ):
        await seat(nursery, player, game=False)


@pytest.mark.slow
async def test_missing_program(nursery: trio.Nursery) -> None:
    player = NativeEnginePlayer(Seat.A_WHITE, ["/no/such/engine"])
    with trio.fail_after(GUARD), pytest.raises(EngineFailed, match="cannot run"):
        await seat(nursery, player, game=False)


@pytest.mark.slow
async def test_no_readyok_fails_new_game(nursery: trio.Nursery) -> None:
    mute = [
        sys.executable,
        "-c",
        "import sys\nfor line in sys.stdin:\n"
        "    print('bugok' if line.startswith('bug ') else 'hm', flush=True)",
    ]
    player = NativeEnginePlayer(Seat.A_WHITE, mute, ready_timeout=0.5)
    seated = await seat(nursery, player, game=False)
    with trio.fail_after(GUARD), pytest.raises(EngineFailed, match=r"no 'readyok' within 0\.5 s"):
        await seated.player.new_game(info(), table())
    await player.aclose()


# -- faults at a real table -------------------------------------------------------------

# Each fault strikes on A-White's first turn: on a loaded machine a later one
# could come after another seat's 2 s clock ran out.
FAULTS = [
    ("crash", ("--after", "0"), Termination.LEFT, "the engine exited with status 3"),
    ("close-pipe", ("--after", "0"), Termination.LEFT, "the engine closed its output"),
    ("hang", ("--after", "0"), Termination.FLAG, "A-White lost on time"),
    ("illegal", ("--after", "0"), Termination.ILLEGAL_MOVE, "A-White played an illegal move"),
    ("slow-start", ("--delay", "5"), Termination.LEFT, "failed to start: no 'bugok' within 1 s"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "extra", "termination", "reason"), FAULTS)
async def test_a_fault_ends_the_match_with_a_reason(
    mode: str, extra: tuple[str, ...], termination: Termination, reason: str
) -> None:
    rules = HouseRules(time=2, max_plies=200)
    faulty_player = NativeEnginePlayer(
        Seat.A_WHITE, faulty(mode, *extra), handshake_timeout=1.0, quit_grace=0.3
    )
    # The others think 0.2 s a move, so board B cannot end the match first.
    slow = [*RANDOM, "--delay", "200"]
    others = [NativeEnginePlayer(s, slow) for s in SEATS if s is not Seat.A_WHITE]
    with trio.fail_after(60):
        record = await run_match([faulty_player, *others], rules)
    outcome = record.game.outcome
    assert outcome is not None
    assert outcome.termination is termination
    assert outcome.seat is Seat.A_WHITE
    assert reason in outcome.reason
    for player in (faulty_player, *others):
        assert_reaped(player.process.pid)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["garbage", "ignore-quit"])
async def test_a_harmless_fault_does_not_change_the_game(mode: str) -> None:
    rules = HouseRules(time=30, max_plies=24)
    faulty_player = NativeEnginePlayer(
        Seat.B_BLACK, faulty(mode, "--flood-mb", "1"), quit_grace=0.3, term_grace=0.3
    )
    slow = [*RANDOM, "--delay", "100"]
    others = [NativeEnginePlayer(s, slow) for s in SEATS if s is not Seat.B_BLACK]
    with trio.fail_after(60):
        record = await run_match([*others, faulty_player], rules)
    outcome = record.game.outcome
    assert outcome is not None
    assert outcome.termination in (Termination.MAX_PLIES, Termination.CHECKMATE)
    assert any(move.seat is Seat.B_BLACK for move in record.game.moves)
    for player in (faulty_player, *others):
        assert_reaped(player.process.pid)
    if mode == "ignore-quit":
        assert faulty_player.process.returncode == -signal.SIGKILL
    else:
        assert faulty_player.ignored > 0


@pytest.mark.slow
async def test_a_team_mode_engine_plays_a_whole_match() -> None:
    rules = HouseRules(time=30, max_plies=80)
    team = NativeEnginePlayer((Seat.A_BLACK, Seat.B_WHITE), RANDOM)
    others = [NativeEnginePlayer(s, RANDOM) for s in (Seat.A_WHITE, Seat.B_BLACK)]
    with trio.fail_after(60):
        record = await run_match([team, *others], rules)
    outcome = record.game.outcome
    assert outcome is not None
    assert outcome.termination in (Termination.MAX_PLIES, Termination.CHECKMATE)
    movers = {move.seat for move in record.game.moves}
    assert {Seat.A_BLACK, Seat.B_WHITE} <= movers
    assert team.ignored == 0


@pytest.mark.slow
async def test_refused_move_then_a_new_turn(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(
        Seat.A_WHITE, faulty("illegal", "--after", "0"), log=ProtocolLog(stream)
    )
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 5, table())
    bad = await seated.next_move()
    await player.move_refused(Seat.A_WHITE, 5, bad.move, "illegal move")
    await player.your_turn(Seat.A_WHITE, 6, table())
    again = await seated.next_move()
    assert again.token == 6
    log = stream.getvalue()
    assert f"WA < illegal turn 1 move {bad.move} reason illegal move" in log
    assert log.index("WA < illegal turn 1") < log.index("WA < go v 0 turn 2 board a")


@pytest.mark.slow
async def test_board_over_and_game_over_lines(nursery: trio.Nursery) -> None:
    stream = io.StringIO()
    player = NativeEnginePlayer(Seat.B_WHITE, RANDOM, log=ProtocolLog(stream))
    seated = await seat(nursery, player, game=False)
    game = BughouseGame(HouseRules(board_end="continue"))
    await player.game_over(game.abort("never started") or _never())  # before new_game: silent
    await player.new_game(info(game.rules), table())
    game = BughouseGame(HouseRules(board_end="continue"))
    game.resign(Seat.A_BLACK)
    await player.board_ended(game.board_results[BoardId.A])
    await player.game_over(game.resign(Seat.B_WHITE) or _never())
    with trio.fail_after(GUARD):
        await seated.player.aclose()
    log = stream.getvalue()
    assert "gameover" not in log.split("newgame")[0]
    assert "WB < boardover board a result 1-0 reason resignation seat a-black text" in log
    assert "WB < gameover result " in log


@pytest.mark.slow
async def test_events_reach_the_engine_while_it_thinks(nursery: trio.Nursery) -> None:
    # It thinks 0.8 s with nothing legal; a knight arriving mid-think is what it plays.
    player = NativeEnginePlayer(Seat.A_WHITE, RANDOM, options={"Delay": "800"})
    seated = await seat(nursery, player)
    await player.your_turn(Seat.A_WHITE, 1, table(5, fen_a=NO_MOVE))
    await trio.sleep(0.1)
    capture = PlayedMove(
        ply=6,
        board=BoardId.B,
        seat=Seat.B_BLACK,
        move=chess.Move.from_uci("d5e4"),
        san="dxe4",
        passed=chess.Piece(chess.KNIGHT, chess.WHITE),
    )
    await player.moved(capture, table(6, fen_a=NO_MOVE.replace("[]", "[N]")))
    move = await seated.next_move()
    assert move.token == 1
    assert move.move.startswith("N@")


@pytest.mark.slow
async def test_a_turn_limit_already_past_goes_out_as_zero(nursery: trio.Nursery) -> None:
    """``limit`` is what is left of the turn's own time limit, never below 0 ms."""
    log: list[str] = []
    seated = await seat(nursery, NativeEnginePlayer(Seat.A_WHITE, RANDOM, log=log.append))
    for token, left, sent in ((1, 0.75, "limit 750"), (2, -0.25, "limit 0")):
        state = attrs.evolve(table(), turn_left={Seat.A_WHITE: left})
        await seated.player.your_turn(Seat.A_WHITE, token, state)
        assert (await seated.next_move()).token == token
        go = [line for line in log if " < go " in line][-1]
        assert go.endswith(f"turn {token} board a {sent}")


@pytest.mark.slow
async def test_the_harness_delay_of_a_turn_is_within_the_turn(nursery: trio.Nursery) -> None:
    """The harness's share of a turn runs from its opening to when its ``go``
    reached the engine: never longer than the turn, never below zero.

    Asked before the engine's answer is read (no checkpoint in between), so no
    read lag is added to it."""
    seated = await seat(nursery, NativeEnginePlayer(Seat.A_WHITE, RANDOM))
    player = seated.player
    await player.your_turn(Seat.A_WHITE, 1, table())
    reached = player.turn_reached(Seat.A_WHITE, 1)
    assert reached is not None
    # The turn (as the arbiter timed it) ended 1 s before its go was written: 2 s, not 3.
    assert player.harness_delay(Seat.A_WHITE, 1, reached - 3.0, reached - 1.0) == pytest.approx(2.0)
    await seated.next_move()
    await player.your_turn(Seat.A_WHITE, 2, table())
    reached = player.turn_reached(Seat.A_WHITE, 2)
    assert reached is not None
    # Opened after its go was written (the clock started late): none of it.
    assert player.harness_delay(Seat.A_WHITE, 2, reached + 1.0, reached + 3.0) == 0.0
    await seated.next_move()


@pytest.mark.slow
async def test_a_move_is_formatted_once_for_the_four_engines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each ``event`` (and each shared ``state``) is encoded once, whoever hears it."""

    encoded: list[bytes] = []
    real = native.encode_command

    def counting(command: Command) -> bytes:
        data = real(command)
        encoded.append(data)
        return data

    monkeypatch.setattr(native, "encode_command", counting)
    logs: dict[Seat, list[str]] = {seat: [] for seat in SEATS}
    players = [NativeEnginePlayer(s, RANDOM, log=logs[s].append) for s in SEATS]
    with trio.fail_after(GUARD):
        record = await run_match(players, HouseRules(time=60, max_plies=10))
    assert record.game.plies == 10
    events = [data for data in encoded if data.startswith(b"event ")]
    assert len(events) == 10  # once a move, not once an engine
    for seat in SEATS:  # and every engine got every one of them, byte for byte
        heard = [line.split(" < ", 1)[1] for line in logs[seat] if " < event " in line]
        assert heard == [data.decode().rstrip("\n") for data in events]
    # Each state is encoded once too: all four engines hear the game's first
    # one (as the game starts), from fewer encodings than engines.
    first = [data for data in encoded if data.startswith(b"state v 0 ")]
    assert 1 <= len(first) < len(SEATS)
    for seat in SEATS:
        assert f"< {first[0].decode().rstrip()}" in "\n".join(logs[seat])


def test_a_changed_copy_of_a_table_state_starts_with_nothing_shared() -> None:
    """A line made for one snapshot is never sent for a copy with other clocks."""
    state = TableState(
        version=3,
        fens={BoardId.A: START, BoardId.B: START},
        clocks=dict.fromkeys(SEATS, 60.0),
    )
    state.shared["native:state"] = "made for 60 s"
    later = attrs.evolve(state, clocks=dict.fromkeys(SEATS, 50.0))
    assert later.shared == {}
    assert attrs.evolve(state) == state  # the shared lines take no part in comparing
