"""The tinyChessServer-dialect adapter, line by line and against in-memory fakes
with the habits of LazyBug, TandemTurtle and BughouseAlphaZero (``tcs_fake``)."""

from __future__ import annotations

import chess
import pytest
from tcs_fake import Crashed, TcsLike

from bughouse_arbiter.adapters.common import (
    STANDARD_START,
    EngineEvent,
    EngineMove,
    EngineNote,
    EngineTell,
    EngineWait,
)
from bughouse_arbiter.adapters.tcs import (
    PLACES,
    TcsAdapter,
    defused,
    parse_features,
    pockets_of,
    result_lines,
)
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Outcome, Seat, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import EngineFailed

RULES = HouseRules(time=60)
CLOCKS = dict.fromkeys(Seat, 60.0)
LAZYBUG_FEATURES = (
    'feature san=1, time=1, variants="bughouse", otherboard=1, colors=1, time=1, done=1, '
    'myname="LazyBug-Random"'
)
START = {BoardId.A: STANDARD_START, BoardId.B: STANDARD_START}


def shaken(seat: Seat, features: str = LAZYBUG_FEATURES) -> TcsAdapter:
    adapter = TcsAdapter(seat, rules=RULES)
    adapter.begin()
    adapter.receive(features)
    adapter.take()
    return adapter


def started(seat: Seat, features: str = LAZYBUG_FEATURES) -> TcsAdapter:
    adapter = shaken(seat, features)
    adapter.new_game(RULES, STANDARD_START, CLOCKS)
    adapter.take()
    return adapter


def test_the_handshake_is_the_servers_and_one_bare_accepted() -> None:
    adapter = TcsAdapter(Seat.A_WHITE)
    adapter.begin()
    assert adapter.take()[0] == ["xboard", "protover 4"]
    adapter.receive(LAZYBUG_FEATURES)
    assert adapter.take()[0] == ["accepted"]
    assert adapter.handshake_done and adapter.name == "LazyBug-Random" and adapter.otherboard
    adapter.receive('feature myname="Other"')  # the server reads only the first
    assert adapter.take()[0] == [] and adapter.name == "LazyBug-Random"


def test_features_are_read_as_the_server_reads_them() -> None:
    assert parse_features('san=1, variants="bughouse", myname="debug_engine", done=1') == {
        "san": "1",
        "variants": "bughouse",
        "myname": "debug_engine",
        "done": "1",
    }
    assert parse_features("san=1, time=1, variants=bughouse, otherboard=1")["otherboard"] == "1"


@pytest.mark.parametrize(
    ("seat", "partner", "last"),
    [
        (Seat.A_WHITE, 1, "go"),
        (Seat.B_BLACK, 0, "playother"),
        (Seat.A_BLACK, 3, "playother"),
        (Seat.B_WHITE, 2, "go"),
    ],
)
def test_a_game_begins_with_the_servers_six_lines(seat: Seat, partner: int, last: str) -> None:
    adapter = shaken(seat)
    adapter.new_game(RULES, STANDARD_START, {**CLOCKS, seat: 59.5})
    lines, _ = adapter.take()
    assert lines == [
        "new",
        "variant bughouse",
        f"partner {partner}",
        "time 5950",
        "otim 6000",
        last,
    ]
    assert PLACES[seat.partner] == partner


def test_a_set_up_position_or_book_moves_are_refused() -> None:
    adapter = shaken(Seat.A_WHITE)
    with pytest.raises(EngineFailed, match="standard position"):
        adapter.new_game(RULES, "8/8/8/8/8/8/8/K6k[] w - - 0 1", CLOCKS)
    with pytest.raises(EngineFailed, match="standard position"):
        adapter.new_game(RULES, STANDARD_START, CLOCKS, other_fen="8/8/8/8/8/8/8/K6k[] w - - 0 1")
    game = BughouseGame(RULES)
    book = (game.push(Seat.A_WHITE, "e2e4"),)
    with pytest.raises(EngineFailed, match="book moves"):
        adapter.new_game(RULES, STANDARD_START, CLOCKS, book)


def test_options_are_refused_at_the_handshake() -> None:
    adapter = TcsAdapter(Seat.A_WHITE, options={"Hash": "16"})
    adapter.begin()
    with pytest.raises(EngineFailed, match="no engine options"):
        adapter.receive(LAZYBUG_FEATURES)


def test_pockets_are_lower_case_queen_first() -> None:
    assert pockets_of("8/8/8/8/8/8/8/K6k[PQNPpb] w - - 0 1") == "[qnpp] [bp]"
    assert pockets_of(STANDARD_START) == "[] []"


def test_no_line_but_a_move_says_move() -> None:
    assert defused("Move fast, {now}") == "mv fast, (now)"
    adapter = started(Seat.A_WHITE)
    adapter.partner_says("move   your queen")
    assert adapter.take()[0] == ["ptell mv your queen"]
    adapter.partner_says("   ")
    assert adapter.take()[0] == []


def _events(adapter: TcsAdapter) -> tuple[list[str], list[EngineEvent]]:
    lines, events = adapter.take()
    return lines, [e for e in events if not isinstance(e, EngineNote)]


def test_a_move_before_the_turn_opens_is_held_for_it() -> None:
    adapter = started(Seat.A_WHITE)
    adapter.receive("move e2e4")  # right after "go", before the arbiter's turn
    assert _events(adapter) == ([], [])
    adapter.your_turn(1, STANDARD_START, CLOCKS)
    assert _events(adapter) == ([], [EngineMove(1, "e2e4")])


def test_out_of_turn_after_the_game_san_and_illegal_moves() -> None:
    adapter = started(Seat.A_BLACK)
    adapter.receive("move e7e5")  # not its turn: ignored without a word
    assert _events(adapter) == ([], [])
    game = BughouseGame(RULES)
    played = game.push(Seat.A_WHITE, "e2e4")
    adapter.moved(played, game.fen(BoardId.A), CLOCKS, other_fen=game.fen(BoardId.B))
    assert adapter.take()[0] == ["move e2e4"]
    adapter.your_turn(7, game.fen(BoardId.A), CLOCKS)
    adapter.receive("move e5")  # SAN: the server does not take it, nor do we
    assert _events(adapter) == ([], [])
    for _ in range(2):
        adapter.receive("move e7e4")
        assert _events(adapter) == (["Illegal move: e7e4"], [])
    adapter.receive("move e7e4")
    waits = [EngineWait(7, "engine's moves rejected (e7e4)")]
    assert _events(adapter) == (["Illegal move: e7e4"], waits)
    adapter.receive("move p@e4")  # read (a lower-case drop letter), but no pawn in hand
    adapter.receive("move e7e5")  # still its turn
    assert _events(adapter) == (["Illegal move: p@e4"], [EngineMove(7, "e7e5")])
    adapter.game_over(Outcome(termination=Termination.FLAG, winner=None, reason="x",
                              board=BoardId.A, seat=Seat.A_BLACK))
    adapter.take()
    adapter.receive("move d7d5")  # LazyBug moves after a time forfeit
    assert _events(adapter) == ([], [])


def test_a_sitting_message_said_again_passes_once_in_a_turn() -> None:
    sitting = "tellics ptell sitting (my position is improving by just waiting)"
    told = [EngineTell(sitting.split(" ", 2)[2])]
    adapter = started(Seat.A_BLACK)
    game = BughouseGame(RULES)
    for _ in range(3):
        adapter.receive(sitting)
    assert _events(adapter)[1] == told
    played = game.push(Seat.B_WHITE, "e2e4")  # the other board: still the same turn
    adapter.moved(played, game.fen(BoardId.A), CLOCKS, other_fen=game.fen(BoardId.B))
    assert adapter.take()[0] == ["pmove e2e4"]
    adapter.receive(sitting)
    assert _events(adapter)[1] == []
    played = game.push(Seat.A_WHITE, "e2e4")  # its own board: a new turn
    adapter.moved(played, game.fen(BoardId.A), CLOCKS, other_fen=game.fen(BoardId.B))
    adapter.receive(sitting)
    adapter.receive("ptell go")
    assert _events(adapter)[1] == [*told, EngineTell("go")]


MATE_ON_A = Outcome(
    termination=Termination.CHECKMATE,
    winner=Seat.A_BLACK.team,
    reason="A-White checkmated",
    board=BoardId.A,
    seat=Seat.A_WHITE,
)


@pytest.mark.parametrize(
    ("seat", "lines"),
    [
        (Seat.A_WHITE, ["0-1 {white mated.}", "p1-0 {The other board finished}"]),
        (Seat.A_BLACK, ["0-1 {white mated.}", "p1-0 {The other board finished}"]),
        (Seat.B_WHITE, ["p0-1 {white mated.}", "1-0 {The other board finished}"]),
        (Seat.B_BLACK, ["p0-1 {white mated.}", "1-0 {The other board finished}"]),
    ],
)
def test_results_come_as_the_server_broadcasts_them(seat: Seat, lines: list[str]) -> None:
    assert result_lines(MATE_ON_A, seat, otherboard=True) == lines
    assert result_lines(MATE_ON_A, seat, otherboard=False) == [
        line for line in lines if not line.startswith("p")
    ]


def test_a_flag_and_other_reasons_keep_their_words_without_move() -> None:
    flag = Outcome(termination=Termination.FLAG, winner=Seat.B_WHITE.team,
                   reason="B-Black ran out of time", board=BoardId.B, seat=Seat.B_BLACK)
    assert result_lines(flag, Seat.B_WHITE, True)[0] == "1-0 {black ran out of time.}"
    illegal = Outcome(termination=Termination.ILLEGAL_MOVE, winner=Seat.A_BLACK.team,
                      reason="A-White made an illegal move {x}", board=BoardId.A,
                      seat=Seat.A_WHITE)
    assert result_lines(illegal, Seat.A_WHITE, True)[0] == "0-1 {A-White made an illegal mv (x)}"


def test_without_otherboard_the_other_board_is_never_told() -> None:
    adapter = started(Seat.A_WHITE, 'feature myname="Plain" done=1')
    game = BughouseGame(RULES)
    for seat, move in ((Seat.B_WHITE, "e2e4"), (Seat.B_BLACK, "d7d5"), (Seat.B_WHITE, "e4d5")):
        played = game.push(seat, move)
        adapter.moved(played, game.fen(BoardId.A), CLOCKS, other_fen=game.fen(BoardId.B))
    # The pawn B-White took goes to its partner, A-Black: A-White's board's pockets.
    assert adapter.take()[0] == ["holding [] [p]"]


# -- four in-memory fakes at one table ----------------------------------------------------


def play_table(sitting: Seat | None = None, plies: int = 120) -> tuple[BughouseGame, dict]:
    """A game of four ``TcsLike`` fakes through four adapters; every line goes to a fake
    that crashes on what would trip a real engine."""
    game = BughouseGame(HouseRules(time=60))
    adapters = {seat: TcsAdapter(seat, rules=game.rules) for seat in Seat}
    fakes = {
        seat: TcsLike(name=seat.bpgn, sit=2.5 if seat is sitting else 0.0, seed=i)
        for i, seat in enumerate(Seat)
    }
    now = 0.0
    token = 0
    tokens: dict[Seat, int] = {}
    said: list[tuple[Seat, str]] = []

    def exchange() -> list[tuple[Seat, EngineEvent]]:
        out: list[tuple[Seat, EngineEvent]] = []
        for _ in range(4):
            for seat, adapter in adapters.items():
                lines, events = adapter.take()
                out += [(seat, e) for e in events]
                for line in lines:
                    fakes[seat].handle(line)
                fakes[seat].tick(now)
                for line in fakes[seat].take():
                    adapter.receive(line)
        return out

    for adapter in adapters.values():
        adapter.begin()
    exchange()
    for adapter in adapters.values():
        adapter.new_game(game.rules, STANDARD_START, CLOCKS)
    while game.plies < plies and not game.is_over:
        for seat in game.seats_to_move():
            if seat not in tokens:
                token += 1
                tokens[seat] = token
                adapters[seat].your_turn(token, game.fen(seat.board), CLOCKS)
        events = exchange()
        now += 0.25
        for seat, event in events:
            if isinstance(event, EngineTell):
                said.append((seat, event.text))
                for other in (seat.partner,):
                    adapters[other].partner_says(event.text)
            if isinstance(event, EngineMove) and not game.is_over:
                assert tokens.pop(seat) == event.token
                played = game.push(seat, event.move)
                for other, adapter in adapters.items():
                    board = other.board
                    adapter.moved(played, game.fen(board), CLOCKS,
                                  other_fen=game.fen(board.other))
        assert now < 600, "the table is stuck"
    outcome = game.outcome or Outcome(termination=Termination.AGREEMENT, winner=None,
                                      reason="enough moves")
    for adapter in adapters.values():
        adapter.game_over(outcome)
    exchange()
    return game, {"fakes": fakes, "said": said}


def test_four_fakes_play_a_game_and_nothing_trips_them() -> None:
    game, seen = play_table(sitting=Seat.A_BLACK)
    assert game.plies >= 20
    fakes: dict[Seat, TcsLike] = seen["fakes"]
    for seat, fake in fakes.items():
        assert not fake.dead, (seat, fake.heard[-5:])
        heard = [line.split()[0] for line in fake.heard if line]
        assert heard.count("time") == heard.count("otim") == 1
        assert "" not in fake.heard
        assert heard[-1] in ("1-0", "0-1", "1/2-1/2", "p1-0", "p0-1", "p1/2-1/2")
        assert fake.games_ended == 2
    sitting = [text for seat, text in seen["said"] if seat is Seat.A_BLACK]
    assert len(sitting) == 1 and sitting[0].startswith("sitting")
    # The partner heard it with the word "move" taken out, and did not crash.
    assert any(line.startswith("ptell sitting (best mv") for line in fakes[Seat.B_WHITE].heard)


def test_the_fake_crashes_on_what_trips_the_real_engines() -> None:
    fake = TcsLike()
    fake.handle("protover 4")
    for line in ("new", "variant bughouse", "partner 1", "time 100", "otim 100", "go"):
        fake.handle(line)
    with pytest.raises(Crashed):
        fake.handle("Error (not on the move): move e2e4")
    with pytest.raises(Crashed):
        fake.handle("move e7e4")  # the opponent's move while it is on the move
    fake.handle("time 50")
    assert fake.dead
    other = TcsLike()
    for line in ("new", "partner 0"):
        other.handle(line)
    with pytest.raises(Crashed):
        other.handle("go")  # partner 0 is B-Black: go is not for it
    assert other.colour is chess.BLACK
