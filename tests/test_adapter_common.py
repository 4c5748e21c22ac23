"""A small table for driving sans-IO adapters from real game moves."""

from __future__ import annotations

from bughouse_arbiter.adapters.common import EngineAdapter, EngineEvent
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules

RULES = HouseRules(time=60.0)
CLOCKS = {seat: 60.0 for seat in Seat}


class Table:
    """A real ``BughouseGame`` whose moves are fed to one adapter."""

    def __init__(self, adapter: EngineAdapter, *, fen_a: str | None = None) -> None:
        self.adapter = adapter
        kwargs = {"fen_a": fen_a} if fen_a else {}
        self.game = BughouseGame(RULES, **kwargs)
        self.token = 0

    @property
    def fen(self) -> str:
        return self.game.fen(self.adapter.seat.board)

    def new_game(self) -> tuple[list[str], list[EngineEvent]]:
        self.adapter.new_game(RULES, self.fen, CLOCKS)  # type: ignore[attr-defined]
        return self.adapter.take()

    def your_turn(self) -> tuple[list[str], list[EngineEvent]]:
        self.token += 1
        self.adapter.your_turn(self.token, self.fen, CLOCKS)  # type: ignore[attr-defined]
        return self.adapter.take()

    def push(self, seat: Seat, move: str) -> tuple[list[str], list[EngineEvent]]:
        played = self.game.push(seat, move)
        self.adapter.moved(played, self.fen, CLOCKS)  # type: ignore[attr-defined]
        return self.adapter.take()

    def feed(self, *lines: str) -> tuple[list[str], list[EngineEvent]]:
        for line in lines:
            self.adapter.receive(line)  # type: ignore[attr-defined]
        return self.adapter.take()

    def board(self, board: BoardId) -> str:
        return self.game.fen(board)


# -- the shared helpers themselves -------------------------------------------------


def test_pocket_letters_are_upper_case_in_fics_order() -> None:
    import chess

    from bughouse_arbiter.adapters.common import plain_fen, pocket_letters
    from bughouse_arbiter.core.board import BughouseBoard

    board = BughouseBoard("4k3/8/8/8/8/8/8/4K3[QRpnPq] w - - 0 1")
    assert pocket_letters(board, chess.WHITE) == "PRQ"
    assert pocket_letters(board, chess.BLACK) == "PNQ"
    assert plain_fen(board) == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"


def test_plain_fen_drops_promotion_marks() -> None:
    from bughouse_arbiter.adapters.common import plain_fen
    from bughouse_arbiter.core.board import BughouseBoard

    board = BughouseBoard("1Q~2k3/8/8/8/8/8/8/4K3[n] b - - 0 1")
    assert plain_fen(board) == "1Q2k3/8/8/8/8/8/8/4K3 b - - 0 1"


def test_mirror_follows_partner_arrivals_and_own_moves() -> None:
    from bughouse_arbiter.adapters.uci import UciAdapter

    table = Table(UciAdapter(Seat.A_WHITE, rules=RULES))
    table.new_game()
    for seat, move in [
        (Seat.B_WHITE, "e2e4"),
        (Seat.B_BLACK, "d7d5"),
        (Seat.B_WHITE, "e4d5"),
    ]:
        table.push(seat, move)
    # B-White took a black pawn: it goes to board A, into the pocket of
    # B-White's partner, A-Black.
    assert table.adapter.board.fen() == table.fen
    assert "[p]" in table.fen


def test_a_position_re_read_from_the_arbiter_keeps_the_house_rules() -> None:
    from bughouse_arbiter.adapters.uci import UciAdapter

    # Drop checks forbidden: N@f7 would check the black king.
    rules = HouseRules(time=60.0, drop_check="no-check")
    adapter = UciAdapter(Seat.A_WHITE, rules=rules)
    adapter.new_game(rules, "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", CLOCKS)
    # The arbiter's position differs (a knight arrived unseen): the mirror is re-read.
    adapter.your_turn(1, "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", CLOCKS)
    assert adapter.board.fen() == "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"
    assert adapter.check_move("N@f6") is None
    assert adapter.check_move("N@a1") is not None


def test_an_engine_line_is_cut_to_4096_characters_before_it_is_read() -> None:
    from bughouse_arbiter.adapters.common import MAX_LINE, clip

    assert clip("x" * 5000) == "x" * MAX_LINE
    assert clip("y" * MAX_LINE) == "y" * MAX_LINE


def test_engine_texts_are_cut_at_their_own_limits_not_the_default() -> None:
    from bughouse_arbiter.adapters.common import EngineInfoLine, EngineNote, EngineTell
    from bughouse_arbiter.adapters.uci import UciAdapter

    adapter = UciAdapter(Seat.A_WHITE, rules=RULES)
    adapter.emit(EngineTell("t" * 400))
    adapter.emit(EngineTell("u" * 600))
    adapter.emit(EngineInfoLine("i" * 400))
    adapter.note("n" * 900)
    adapter.note("m" * 1200)
    assert adapter.take()[1] == [
        EngineTell("t" * 400),
        EngineTell("u" * 497 + "..."),
        EngineInfoLine("i" * 400),
        EngineNote("n" * 900),
        EngineNote("m" * 997 + "..."),
    ]


def test_a_new_game_brings_its_house_rules_to_the_mirror_board() -> None:
    from bughouse_arbiter.adapters.uci import UciAdapter

    rules = HouseRules(time=60.0, drop_check="no-check")
    adapter = UciAdapter(Seat.A_WHITE, rules=RULES)
    adapter.new_game(rules, "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1", CLOCKS)
    assert adapter.check_move("N@f6") is None  # it would check
    assert adapter.check_move("N@a1") is not None


def test_a_clock_below_a_millisecond_is_sent_as_one() -> None:
    from bughouse_arbiter.adapters.uci import UciAdapter

    table = Table(UciAdapter(Seat.A_WHITE, rules=RULES))
    table.new_game()
    table.adapter.take()
    low = {Seat.A_WHITE: 0.0004, Seat.A_BLACK: 0.0, Seat.B_WHITE: 1.0, Seat.B_BLACK: 1.0}
    table.adapter.your_turn(1, table.fen, low)  # type: ignore[attr-defined]
    assert table.adapter.take()[0][1] == "go wtime 1 btime 1 winc 0 binc 0"
