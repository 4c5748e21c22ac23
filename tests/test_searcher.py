"""The searching engine (engines/searcher.py): evaluation, search, sitting, protocol."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from subprocess import PIPE

import chess
import pytest
import trio

from bughouse_arbiter.core.board import BoardStatus, BughouseBoard
from bughouse_arbiter.core.model import Seat, Termination
from bughouse_arbiter.core.rules import HouseRules, apply_rules
from bughouse_arbiter.protocol.signals import BY_CODE, SIGNALS

ENGINES = Path(__file__).resolve().parent.parent / "engines"
sys.path.insert(0, str(ENGINES))

from searcher.evaluation import (
    MUST_WAIT_SCORE,
    Stakes,
    evaluate,
    king_danger,
)
from searcher.partner import PartnerWishes, request_word
from searcher.plan import Decision, Table, build_stakes, decide, think_seconds, threats_after
from searcher.position import BugBoard, BugRules, Situation, mates_with
from searcher.protocol import Engine
from searcher.search import Limits, Searcher, search

START = chess.variant.CrazyhouseBoard.starting_fen
SMOTHER = "6rk/6pp/8/8/8/8/5PPP/6K1[{pocket}] w - - 0 1"


def table(
    fen: str, *, other: str = START, clocks: tuple[int, int, int, int] | None = None
) -> Table:
    board = BugBoard(fen)
    return Table(
        board="a",
        color=board.turn,
        mine=board,
        other=BugBoard(other),
        clocks=clocks or (60_000, 30_000, 60_000, 60_000),
        base_ms=60_000,
    )


# -- board -------------------------------------------------------------------


def test_capture_goes_to_no_pocket_and_is_counted_as_passed() -> None:
    board = BugBoard("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2")
    board.push(chess.Move.from_uci("e4d5"))
    assert str(board.pockets[chess.WHITE]) == ""
    assert board.passed[chess.WHITE][chess.PAWN] == 1
    board.pop()
    assert board.passed[chess.WHITE][chess.PAWN] == 0


def test_blockable_check_without_moves_is_a_wait_not_mate() -> None:
    # Back-rank rook check: a dropped piece could block, so Black waits.
    board = BugBoard("R5k1/5ppp/8/8/8/8/5PPP/6K1[] b - - 0 1")
    assert board.situation() is Situation.MUST_WAIT
    smothered = BugBoard("6rk/5Npp/8/8/8/8/5PPP/6K1[] b - - 0 1")
    assert smothered.situation() is Situation.MATED


def test_mates_with_names_the_piece_that_mates() -> None:
    board = BugBoard(SMOTHER.format(pocket=""))
    assert mates_with(board, chess.WHITE) == {chess.KNIGHT}
    assert mates_with(board, chess.BLACK) == set()


# -- evaluation --------------------------------------------------------------


def test_start_position_is_level_apart_from_the_move() -> None:
    board = BugBoard()
    white = evaluate(board)
    board.turn = chess.BLACK
    assert evaluate(board) == white


def test_a_piece_in_hand_is_worth_more_than_on_the_board() -> None:
    on_board = evaluate(BugBoard("4k3/8/8/8/8/8/8/3NK3[] w - - 0 1"))
    in_hand = evaluate(BugBoard("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"))
    assert in_hand > on_board > 200


def test_king_danger_counts_what_the_enemy_holds() -> None:
    sheltered = BugBoard("4k3/8/8/8/8/8/5PPP/5RK1[] w - - 0 1")
    open_king = BugBoard("4k3/8/8/8/8/8/8/6K1[] w - - 0 1")
    armed = BugBoard("4k3/8/8/8/8/8/8/6K1[nq] w - - 0 1")
    assert king_danger(sheltered, chess.WHITE) < king_danger(open_king, chess.WHITE)
    assert king_danger(open_king, chess.WHITE) < king_danger(armed, chess.WHITE)


def test_stakes_price_what_a_capture_hands_over() -> None:
    board = BugBoard("4k3/8/8/3n4/4P3/8/8/4K3[] w - - 0 1")
    board.push(chess.Move.from_uci("e4d5"))
    board.turn = chess.WHITE  # judge from the capturer's side
    plain = evaluate(board)
    stakes = Stakes()
    stakes.raise_gift(chess.WHITE, chess.KNIGHT, 1200)
    assert evaluate(board, stakes) - plain == pytest.approx(1200 - 120, abs=1)


# -- search ------------------------------------------------------------------


def test_finds_mate_in_one_by_a_knight_drop() -> None:
    result = search(BugBoard(SMOTHER.format(pocket="N")), seconds=5)
    assert result.move == chess.Move.from_uci("N@f7")
    assert result.mates


def test_does_not_hang_the_queen() -> None:
    # The white queen on d4 is attacked by the pawn on e5.
    fen = "rnbqkbnr/pppp1ppp/8/4p3/3Q4/8/PPP1PPPP/RNB1KBNR[] w KQkq - 0 3"
    board = BugBoard(fen)
    result = search(board, depth=3)
    assert result.move is not None
    board.push(result.move)
    queen = board.pieces(chess.QUEEN, chess.WHITE)
    assert queen, "the queen was given away"
    square = next(iter(queen))
    attackers = board.attackers(chess.BLACK, square)
    # A pawn, minor or rook takes a queen at a profit, defended or not.
    cheaper = [a for a in attackers if board.piece_type_at(a) not in (chess.QUEEN, chess.KING)]
    assert not cheaper, f"the queen stands en prise on {chess.square_name(square)}"
    assert not attackers or board.attackers(chess.WHITE, square)


def test_takes_a_free_queen() -> None:
    result = search(BugBoard("4k3/8/8/3q4/4P3/8/8/4K3[] w - - 0 1"), depth=2)
    assert result.move == chess.Move.from_uci("e4d5")


def test_a_seed_varies_the_choice_between_equal_moves() -> None:
    unseeded = {search(BugBoard(), depth=1).move for _ in range(3)}
    seeded = {search_seeded(seed) for seed in range(1, 11)}
    assert len(unseeded) == 1
    assert len(seeded) > 1


def search_seeded(seed: int) -> chess.Move | None:
    return Searcher(BugBoard(), seed=seed).run(Limits(depth=1)).move


def test_setoption_seed() -> None:
    sent: list[str] = []
    engine = Engine(sent.append)
    engine.handle("bug 1")
    assert "option name Seed type spin default 0 min 0 max 2147483647" in sent
    engine.handle("setoption name Seed value 42")
    assert engine.seed == 42


def test_no_legal_move_gives_no_move_and_the_wait_score() -> None:
    result = search(BugBoard("R5k1/5ppp/8/8/8/8/5PPP/6K1[] b - - 0 1"), depth=3)
    assert result.move is None
    assert result.score == MUST_WAIT_SCORE


# -- decisions: sitting and the partner --------------------------------------


def test_waits_when_there_is_no_legal_move() -> None:
    decision = decide(table("R5k1/5ppp/8/8/8/8/5PPP/6K1[] b - - 0 1"), PartnerWishes(), seconds=1)
    assert decision.move is None
    assert decision.reason == "no legal move"
    # Any piece but a pawn (the blocking squares are on the back rank) would do.
    assert decision.tells == ["+++n +++b +++r +++q"]


def test_sits_for_the_piece_that_mates_and_asks_for_it() -> None:
    decision = decide(table(SMOTHER.format(pocket="")), PartnerWishes(), seconds=1)
    assert decision.move is None
    assert "+++n" in decision.tells
    assert decision.sit_floor_ms == 27_000  # nine tenths of the opponent's 30 s


def test_does_not_sit_when_behind_on_time() -> None:
    low = table(SMOTHER.format(pocket=""), clocks=(20_000, 30_000, 60_000, 60_000))
    decision = decide(low, PartnerWishes(), seconds=1)
    assert decision.move is not None


def test_plays_the_mate_once_the_piece_arrives() -> None:
    decision = decide(table(SMOTHER.format(pocket="N")), PartnerWishes(), seconds=1)
    assert decision.move == chess.Move.from_uci("N@f7")


def test_sits_and_asks_for_the_piece_that_saves_it_from_mate() -> None:
    # Qxh2 mates (the rook guards h2 along the rank); only a dropped piece on g2 stops it.
    lost = table("k7/8/8/8/8/6PP/rq5P/7K[n] w - - 0 1")
    decision = decide(lost, PartnerWishes(), seconds=1, depth=2)
    assert decision.move is None
    assert decision.reason == "mated unless I get a pawn"
    assert "++p" in decision.tells
    assert decision.sit_floor_ms == 30_000  # sit until level with the opponent's clock


def test_obeys_sit_and_go_from_the_partner() -> None:
    wishes = PartnerWishes()
    wishes.hear("sit")
    decision = decide(table(START), wishes, seconds=0.2)
    assert decision.move is None
    assert decision.reason == "partner asked me to sit"
    wishes.hear("go")
    assert decide(table(START), wishes, seconds=0.2).move is not None


def test_plays_the_move_the_partner_asks_for_when_legal() -> None:
    wishes = PartnerWishes()
    wishes.hear("move a2a3")
    assert decide(table(START), wishes, seconds=0.2).move == chess.Move.from_uci("a2a3")
    wishes.hear("move a2a5")
    assert decide(table(START), wishes, seconds=0.2).move != chess.Move.from_uci("a2a5")


def test_names_the_pieces_that_would_let_the_opponent_mate() -> None:
    # After a7a6 a white knight dropped on f7 mates Black: the partner hears ---n.
    board = BugBoard("6rk/p5pp/8/8/8/8/5PPP/6K1[] b - - 0 1")
    threats = threats_after(board, chess.Move.from_uci("a7a6"), chess.BLACK)
    assert threats == {chess.KNIGHT}
    board.pockets[chess.WHITE].add(chess.KNIGHT)  # held already: nothing to ask for
    assert threats_after(board, chess.Move.from_uci("a7a6"), chess.BLACK) == set()


def test_requests_to_the_partner_are_sent_once_and_cancelled_with_x() -> None:
    sent: list[str] = []
    engine = Engine(sent.append)
    engine.tell_partner(["+++n"])
    engine.tell_partner(["+++n"])
    assert sent == ["ptell +++n"]
    engine.tell_partner(["+++n", "dead"])
    engine.tell_partner(["+++n"])  # "dead" is news, not a request to cancel
    assert sent[1:] == ["ptell dead"]
    engine.tell_partner(["---q"])
    assert sent[2:] == ["ptell x", "ptell ---q"]


def test_sitting_ends_at_once_when_the_clock_fell_below_the_floor_meanwhile() -> None:
    sent: list[str] = []
    engine = Engine(sent.append)
    engine.handle("newgame id t seat a-white time 60000 inc 0")
    engine.handle(f"state v 0 a {START} b {START} clock 20000 60000 60000 60000")
    engine.handle("go v 0 turn 1 board a depth 1")
    _, (search_id, _) = engine.inbox.get(timeout=10)
    # A decision to sit whose clock floor (50 s) is already above the clock (20 s).
    engine.on_decision(search_id, Decision(None, reason="test", sit_floor_ms=50_000))
    assert sent[-1] == "wait turn 1 reason test"
    _, (search_id, decision) = engine.inbox.get(timeout=10)
    engine.on_decision(search_id, decision)
    assert sent[-1].startswith("bestmove ") and sent[-1].endswith(" turn 1")


def test_a_move_decided_on_a_stale_position_is_searched_again() -> None:
    sent: list[str] = []
    engine = Engine(sent.append)
    engine.handle("newgame id t seat a-white time 60000 inc 0")
    engine.handle(f"state v 0 a {START} b {START} clock 60000 60000 60000 60000")
    engine.handle("go v 0 turn 1 board a depth 1")
    _, (search_id, _) = engine.inbox.get(timeout=10)
    engine.on_decision(search_id, Decision(chess.Move.from_uci("e2e5")))  # not legal here
    assert not any(line.startswith("bestmove") for line in sent)
    _, (search_id, decision) = engine.inbox.get(timeout=10)
    engine.on_decision(search_id, decision)
    move = sent[-1].split()[1]
    assert chess.Move.from_uci(move) in chess.Board().legal_moves


def test_partner_words() -> None:
    wishes = PartnerWishes()
    assert wishes.hear("++n ---q")
    assert wishes.wants == {chess.KNIGHT: 2}
    assert wishes.nogive == {chess.QUEEN: 3}
    assert not wishes.hear("hello there")
    wishes.hear("x")
    assert not wishes.wants and not wishes.nogive
    # What Sjeng really sends (protocol.md §8): several signals on one line,
    # ---trades, and sentences that are read whole, not word by word.
    assert wishes.hear("---n ---b")
    assert wishes.nogive == {chess.KNIGHT: 3, chess.BISHOP: 3}
    assert wishes.hear("---trades") and wishes.trades == -1
    assert wishes.hear("You can trade freely.") and wishes.trades == 0
    wishes.sit = True
    assert wishes.hear("I am forcedly mated (dead). Tell me 'go' to start moving into it.")
    assert wishes.dead and wishes.sit and not wishes.go_now
    assert not wishes.hear("Ok, I'm moving.") and wishes.sit
    assert wishes.hear("move e2e4") and wishes.suggested == "e2e4" and not wishes.sit


def test_stakes_follow_the_other_board() -> None:
    # On board b the partner (Black) mates with a knight drop on f2.
    other = "4k3/8/8/8/8/8/6PP/6RK[] b - - 0 1"
    mine = table(START, other=other)
    stakes = build_stakes(mine, PartnerWishes())
    assert chess.KNIGHT in mates_with(mine.other, chess.BLACK)
    assert stakes.gift[chess.WHITE][chess.KNIGHT] == 1200


def test_time_budget_follows_the_four_clocks() -> None:
    def budget(clocks: tuple[int, int, int, int], wishes: PartnerWishes | None = None) -> float:
        return think_seconds(table(START, clocks=clocks), wishes or PartnerWishes())

    assert budget((1500, 60_000, 60_000, 60_000)) == 0.02  # under 2 s: move at once
    assert budget((60_000, 60_000, 60_000, 60_000)) == pytest.approx(1.5)  # 1/40
    assert budget((180_000, 180_000, 60_000, 60_000)) == pytest.approx(2.0)  # capped
    assert budget((20_000, 60_000, 60_000, 60_000)) == pytest.approx(0.3)  # behind: hurry
    assert budget((20_000, 10_000, 60_000, 60_000)) == pytest.approx(0.625)  # ahead: more
    # The partner is short of time against its opponent: play faster too.
    assert budget((20_000, 20_000, 60_000, 10_000)) == pytest.approx(0.3)
    fast = PartnerWishes()
    fast.hear("fast")
    assert budget((20_000, 20_000, 60_000, 60_000), fast) == pytest.approx(0.3)


# -- the protocol, over a real pipe ------------------------------------------


class Pipe:
    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.buffer = b""

    async def send(self, line: str) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(line.encode() + b"\n")

    async def expect(self, prefix: str) -> str:
        assert self.process.stdout is not None
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                line = raw.decode()
                if line.startswith(prefix):
                    return line
            chunk = await self.process.stdout.receive_some(4096)
            assert chunk, f"engine closed its output while {prefix!r} was expected"
            self.buffer += chunk


async def open_engine() -> Pipe:
    command = [sys.executable, str(ENGINES / "searcher.py")]
    return Pipe(await trio.lowlevel.open_process(command, stdin=PIPE, stdout=PIPE))


def _newgame(fen_a: str, fen_b: str = START) -> list[str]:
    return [
        "newgame id t1 seat a-white time 60000 inc 0",
        "player a-white engine Searcher",
        "player a-black engine Other",
        "player b-white engine Other",
        "player b-black engine Searcher",
        "rules time=60 increment=0 wait_for_block=on",
        f"state v 0 a {fen_a} b {fen_b} clock 60000 30000 60000 60000",
    ]


@pytest.mark.slow
async def test_speaks_bug1_handshake_isready_and_a_turn() -> None:
    with trio.fail_after(30):
        pipe = await open_engine()
        try:
            await pipe.send("bug 1")
            assert (await pipe.expect("id name")).startswith("id name Searcher")
            await pipe.expect("bugok")
            await pipe.send("this is not a command")
            for line in _newgame(START):
                await pipe.send(line)
            await pipe.send("go v 0 turn 1 board a movetime 3000")
            await pipe.send("isready")
            await pipe.expect("readyok")  # answered while thinking
            move = (await pipe.expect("bestmove")).split()
            assert move[2:] == ["turn", "1"]
            assert chess.Move.from_uci(move[1]) in chess.Board().legal_moves
            await pipe.send("quit")
            assert await pipe.process.wait() == 0
        finally:
            pipe.process.kill()


@pytest.mark.slow
async def test_sits_then_drops_the_piece_its_partner_sends() -> None:
    # A-white waits for a knight (N@f7 is a smothered mate); its partner b-black takes one.
    fen_b = "rnbqkbnr/pppppppp/8/8/8/2n5/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
    with trio.fail_after(30):
        pipe = await open_engine()
        try:
            await pipe.send("bug 1")
            await pipe.expect("bugok")
            for line in _newgame(SMOTHER.format(pocket=""), fen_b):
                await pipe.send(line)
            await pipe.send("go v 0 turn 1 board a")
            assert (await pipe.expect("ptell")) == "ptell +++n"
            assert (await pipe.expect("wait")).startswith("wait turn 1")
            await pipe.send("event v 1 board b move a2a3 clock 59000 30000 59000 60000")
            await pipe.send("event v 2 board b move c3b1 pass N clock 59000 30000 59000 59000")
            assert (await pipe.expect("bestmove")) == "bestmove N@f7 turn 1"
            await pipe.send("quit")
            assert await pipe.process.wait() == 0
        finally:
            pipe.process.kill()


@pytest.mark.slow
async def test_survives_malformed_commands() -> None:
    bad = [
        "go",
        "go v x turn y",
        "state v 0 a nonsense",
        "event v 1 board a move z9z9 clock 1 2 3 4",
        "event v 1 board c move e2e4",
        "newgame id x seat c-purple time 1 inc 0",
        "ptell " + "+" * 5000,
        "\u00e9\u00e9 \t ",
    ]
    with trio.fail_after(30):
        pipe = await open_engine()
        try:
            await pipe.send("bug 1")
            await pipe.expect("bugok")
            for line in _newgame(START):
                await pipe.send(line)
            for line in bad:
                await pipe.send(line)
            assert pipe.process.stdin is not None
            await pipe.process.stdin.send_all(b"\xff\xfe\x80 not utf-8\n")
            await pipe.send("isready")
            await pipe.expect("readyok")
            await pipe.send("go v 0 turn 3 board a depth 1")
            assert (await pipe.expect("bestmove")).endswith("turn 3")
            await pipe.process.stdin.aclose()  # EOF means quit
            assert await pipe.process.wait() == 0
        finally:
            pipe.process.kill()


@pytest.mark.slow
async def test_stops_sitting_when_the_partner_says_go() -> None:
    with trio.fail_after(30):
        pipe = await open_engine()
        try:
            await pipe.send("bug 1")
            await pipe.expect("bugok")
            for line in _newgame(SMOTHER.format(pocket="")):
                await pipe.send(line)
            await pipe.send("go v 0 turn 1 board a")
            assert (await pipe.expect("wait")).startswith("wait turn 1")
            await pipe.send("ptell go")
            move = (await pipe.expect("bestmove")).split()
            assert move[2:] == ["turn", "1"]
            assert chess.Move.from_uci(move[1]) in BugBoard(SMOTHER.format(pocket="")).legal_moves
            await pipe.send("quit")
            assert await pipe.process.wait() == 0
        finally:
            pipe.process.kill()


# -- house rules ---------------------------------------------------------------

RULE_SETS = [
    {"drop_check": "no-check"},
    {"drop_check": "no-mate"},
    {"dropped_pawn_double_step": "off"},
    {"wait_for_block": "off"},
    {"drop_check": "no-check", "dropped_pawn_double_step": "off", "wait_for_block": "off"},
]
_STATUS = {
    BoardStatus.OK: Situation.PLAYING,
    BoardStatus.CHECKMATE: Situation.MATED,
    BoardStatus.MUST_WAIT: Situation.MUST_WAIT,
    BoardStatus.STALEMATE_WAIT: Situation.STUCK,
}


@pytest.mark.parametrize("pairs", RULE_SETS, ids=lambda p: ",".join(f"{k}={p[k]}" for k in p))
def test_legal_moves_and_ends_agree_with_the_arbiter_under_house_rules(
    pairs: dict[str, str],
) -> None:
    # Random games with full pockets (drops everywhere, checks by drop, dropped
    # pawns on the second rank): at every step the searcher's board allows exactly
    # the arbiter's moves and judges the side to move as the arbiter does.
    rules = HouseRules().to_pairs()
    house = apply_rules(HouseRules(), pairs.items())
    mine_rules = BugRules.from_pairs({**dict(rules), **pairs})
    rng = random.Random(7)
    checked = 0
    for _ in range(8):
        fen = f"{START.split('[')[0]}[{'PPNBRQ' * 2}{'ppnbrq' * 2}] w KQkq - 0 1"
        theirs = BughouseBoard(fen, rules=house)
        mine = BugBoard(fen)
        mine.rules = mine_rules
        for _ in range(60):
            expected = {m.uci() for m in theirs.generate_legal_moves()}
            assert {m.uci() for m in mine.generate_legal_moves()} == expected, theirs.fen()
            assert mine.situation() is _STATUS[theirs.status_of_side_to_move()], theirs.fen()
            checked += 1
            if not expected:
                break
            # Favour pawn drops on the second rank and checking drops, the rules' cases.
            moves = sorted(expected)
            special = [m for m in moves if m.startswith("P@") and m[-1] in "27"] + [
                m for m in moves if "@" in m and theirs.gives_check(chess.Move.from_uci(m))
            ]
            choice = rng.choice(special if special and rng.random() < 0.5 else moves)
            move = chess.Move.from_uci(choice)
            theirs.push(move)
            mine.push(move)
    assert checked > 200


def test_no_check_rule_refuses_checking_drops_and_the_search_obeys() -> None:
    board = BugBoard(SMOTHER.format(pocket="N"))
    board.rules = BugRules(drop_check="no-check")
    smother = chess.Move.from_uci("N@f7")
    assert not board.is_legal(smother)
    assert smother not in set(board.generate_legal_moves())
    result = Searcher(board).run(Limits(depth=3))
    assert result.move is not None and not board.gives_check(result.move)


def test_no_mate_rule_refuses_only_the_mating_drop() -> None:
    board = BugBoard(SMOTHER.format(pocket="N"))
    board.rules = BugRules(drop_check="no-mate")
    assert not board.is_legal(chess.Move.from_uci("N@f7"))  # mates
    assert board.is_legal(chess.Move.from_uci("N@g6"))  # checks, h7xg6 answers it


def test_a_dropped_second_rank_pawn_does_not_double_step_when_the_rule_is_off() -> None:
    board = BugBoard("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1")
    board.rules = BugRules(double_step=False)
    board.push(chess.Move.from_uci("P@d2"))
    board.push(chess.Move.from_uci("e8e7"))
    assert not board.is_legal(chess.Move.from_uci("d2d4"))
    assert board.is_legal(chess.Move.from_uci("d2d3"))
    board.pop()
    board.pop()
    assert board.no_double == chess.BB_EMPTY


def test_without_arrivals_a_blockable_check_is_mate() -> None:
    board = BugBoard("R5k1/5ppp/8/8/8/8/5PPP/6K1[] b - - 0 1")
    assert board.situation() is Situation.MUST_WAIT
    board.rules = BugRules(arrivals=False)
    assert board.situation() is Situation.MATED
    board.rules = BugRules(wait_for_block=False)
    assert board.situation() is Situation.MATED


def test_the_engine_reads_rules_nodouble_limit_and_boardover() -> None:
    lines: list[str] = []
    engine = Engine(lines.append)
    engine.handle("newgame id t seat a-white time 60000 inc 0")
    engine.handle("rules drop_check=no-check dropped_pawn_double_step=off turn_time_limit=2")
    fen = "4k3/8/8/8/8/8/3P4/4K3[] w - - 0 1"
    engine.handle(f"state v 3 a {fen} b {START} clock 60000 60000 60000 60000 nodouble d2 -")
    board = engine.boards["a"]
    assert board.rules.drop_check == "no-check"
    assert not board.is_legal(chess.Move.from_uci("d2d4"))
    engine.handle("boardover board b result 1-0 reason flag seat b-white text gone")
    assert not engine.boards["a"].rules.arrivals
    engine.handle("go v 3 turn 1 board a limit 1500")
    assert engine.turn is not None and engine.turn.limit_ms == 1500
    engine._abandon_turn()


# Every value of every house rule (the defaults are played everywhere else), in
# three matches of four searchers played at once; short games (max_plies).
RULE_MATCHES = [
    "drop_check=no-check dropped_pawn_double_step=off wait_for_block=off stalemate=draw "
    "turn_time_limit=3",
    "drop_check=no-mate dropped_rook_castles=on repetition=threefold board_end=continue "
    "illegal_move=reject",
    "profile=arena turn_time_limit=2",
]


@pytest.mark.slow
async def test_four_searchers_play_every_house_rule_value_cleanly() -> None:
    from bughouse_arbiter.core.rules import parse_rule
    from bughouse_arbiter.players.native import NativeEnginePlayer
    from bughouse_arbiter.table.arbiter import MatchEvent, MoveRefused, run_match

    results: dict[str, tuple[object, list[MatchEvent]]] = {}

    async def one(text: str) -> None:
        rules = apply_rules(
            HouseRules(time=20.0, max_plies=40), [parse_rule(word) for word in text.split()]
        )
        players = [
            NativeEnginePlayer(seat, [sys.executable, str(ENGINES / "searcher.py")])
            for seat in Seat
        ]
        events: list[MatchEvent] = []
        record = await run_match(players, rules, observer=events.append)
        results[text] = (record, events)

    with trio.fail_after(240):
        async with trio.open_nursery() as nursery:
            for text in RULE_MATCHES:
                nursery.start_soon(one, text)
    for text, (record, events) in results.items():
        outcome = record.game.outcome  # type: ignore[attr-defined]
        assert not [e for e in events if isinstance(e, MoveRefused)], text
        assert record.game.plies >= 20, text  # type: ignore[attr-defined]
        lost = [outcome.termination]
        lost += [r.termination for r in record.game.board_results.values()]  # type: ignore[attr-defined]
        for termination in lost:
            assert termination not in (
                Termination.ILLEGAL_MOVE,
                Termination.LEFT,
                Termination.FLAG,
            ), (text, outcome.reason)


def test_untimed_the_engine_stops_sitting_before_its_partner_third_move() -> None:
    lines: list[str] = []
    engine = Engine(lines.append)
    engine.handle("newgame id t seat a-white time 0 inc 0")
    engine.handle("rules clock=off stalling=3")
    assert engine.untimed and engine._table().my_ms == 600_000
    engine.handle(f"state v 0 a {SMOTHER.format(pocket='')} b {START} clock 0 0 0 0")
    engine.handle("go v 0 turn 1 board a movetime 200")
    turn = engine.turn
    assert turn is not None
    turn.waiting = True  # as if it sat, waiting for a knight
    engine.searching = False
    # B-Black (the partner) moves once: still sitting; its second move: move now.
    engine.handle("event v 1 board b move e2e4 clock 0 0 0 0")  # the partner's opponent
    engine.handle("event v 2 board b move e7e5 clock 0 0 0 0")
    assert turn.partner_moves == 1 and turn.movetime == 200
    engine.handle("event v 3 board b move g1f3 clock 0 0 0 0")
    engine.handle("event v 4 board b move b8c6 clock 0 0 0 0")
    assert turn.partner_moves == 2 and turn.movetime == 1 and engine.searching
    engine._abandon_turn()


def test_the_searcher_reads_every_signal_of_the_shared_table() -> None:
    """protocol.md §8.2 as ``protocol.signals`` lists it: each one changes the wishes."""
    types = {letter: chess.PIECE_SYMBOLS.index(letter) for letter in "pnbrq"}
    # The words: from wishes where each would change something, what they become.
    words = {
        "sit": ({}, {"sit": True}),
        "go": ({"sit": True}, {"sit": False, "go_now": True}),
        "fast": ({}, {"fast": True}),
        "slow": ({"fast": True}, {"fast": False}),
        "dead": ({}, {"dead": True}),
        "x": ({"sit": True, "fast": True}, {"sit": False, "fast": False}),
    }
    for signal in SIGNALS:
        before, after = words.get(signal.code, ({}, {}))
        wishes = PartnerWishes(**before)  # type: ignore[arg-type]
        assert wishes.hear(signal.code), signal.code
        if signal.subject in types:
            table = wishes.wants if signal.kind == "want" else wishes.nogive
            assert table == {types[signal.subject]: signal.level}, signal.code
        elif signal.subject == "trades":
            assert wishes.trades == (1 if signal.kind == "want" else -1), signal.code
        else:
            assert {name: getattr(wishes, name) for name in after} == after, signal.code
    # The page's old words were not signals: nothing is read from them.
    for old in ("need N", "don't give Q", "trade"):
        assert not PartnerWishes().hear(old)


def test_what_the_searcher_asks_for_is_a_signal_of_the_table() -> None:
    for piece_type in range(chess.PAWN, chess.KING):
        for level in (1, 2, 3):
            for want in (True, False):
                assert request_word(level, piece_type, want=want) in BY_CODE
