"""The console seat's state: moves, premoves, confirmations, signals, clocks."""

from __future__ import annotations

import chess
import pytest

from bughouse_arbiter.core.board import BughouseBoard
from bughouse_arbiter.core.game import BoardResult, BughouseGame
from bughouse_arbiter.core.model import BoardId, Outcome, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.ui.console_session import (
    ConsoleSession,
    SendDraw,
    SendLeave,
    SendMove,
    SendResign,
    SendTell,
    format_clock,
)


class Table:
    """A real match feeding one console session, as the arbiter would."""

    def __init__(self, seat: Seat = Seat.A_WHITE, **fens: str) -> None:
        self.game = BughouseGame(HouseRules(), **fens)
        self.session = ConsoleSession(seat)
        self.clocks = dict.fromkeys(Seat, 180.0)
        self.token = 0
        self.session.start(
            game_id="t",
            names={s: f"engine-{s.bpgn}" for s in Seat},
            rules=self.game.rules,
            fens=self.fens,
            clocks=self.clocks,
            now=0.0,
        )

    @property
    def fens(self) -> dict[BoardId, str]:
        return {b: self.game.fen(b) for b in BoardId}

    def turn(self, now: float = 0.0) -> list[object]:
        self.token += 1
        return list(self.session.your_turn(self.token, self.fens, self.clocks, now))

    def play(self, seat: Seat, move: str, now: float = 0.0) -> None:
        played = self.game.push(seat, move)
        self.session.moved(played, self.fens, self.clocks, now)


def test_a_legal_move_is_sent_as_uci_with_the_turn_token() -> None:
    table = Table()
    table.turn()
    assert table.session.on_line("Nf3") == [SendMove("g1f3", 1)]
    assert not table.session.my_turn
    assert table.session.feedback.text == "you play Nf3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("e5", "e5: illegal move"),
        ("Ke2", "Ke2: illegal move"),
        ("N@e4", "N@e4: no knight in the pocket"),
        ("hello", "hello: not a move"),
        ("e2e5", "e2e5: illegal move"),
    ],
)
def test_bad_or_illegal_moves_are_refused_with_one_line_and_no_fen(text: str, message: str) -> None:
    table = Table()
    table.turn()
    assert table.session.on_line(text) == []
    feedback = table.session.feedback
    assert feedback.style == "error"
    assert message in feedback.text
    assert "/" not in feedback.text  # no FEN
    assert table.session.my_turn  # the turn stays open


def test_ambiguous_san_says_so() -> None:
    table2 = Table(fen_a="4k3/8/8/8/8/8/8/1N3N1K w - - 0 1")
    table2.turn()
    assert table2.session.on_line("Nd2") == []
    assert "ambiguous" in table2.session.feedback.text


def test_a_drop_from_the_pocket() -> None:
    table = Table(seat=Seat.B_BLACK)
    table.play(Seat.A_WHITE, "e4")
    table.play(Seat.A_BLACK, "d5")
    table.play(Seat.A_WHITE, "exd5")  # a black pawn goes to B-Black
    assert "partner passes you a pawn" in table.session.log[-1].text
    table.play(Seat.B_WHITE, "e4")
    table.turn()
    assert table.session.on_line("P@e5") == [SendMove("P@e5", 1)]


def test_premove_is_played_when_the_turn_comes_if_still_legal() -> None:
    table = Table(seat=Seat.A_BLACK)
    assert table.session.on_line("e5") == []
    assert table.session.premove == "e5"
    assert "premove e5 queued" in table.session.feedback.text
    table.play(Seat.A_WHITE, "Nf3")
    assert table.turn() == [SendMove("e7e5", 1)]
    assert table.session.premove is None


def test_premove_that_became_illegal_is_dropped_with_a_message() -> None:
    table = Table(seat=Seat.A_BLACK)
    table.session.on_line("d5")
    table.play(Seat.A_WHITE, "e4")
    # Put a white piece on d5 by playing on: d5 is now blocked for the pawn.
    table.game.board(BoardId.A).set_piece_at(chess.D5, chess.Piece(chess.KNIGHT, chess.WHITE))
    assert table.turn() == []
    assert table.session.feedback.style == "error"
    assert "premove d5 dropped" in table.session.feedback.text
    assert table.session.my_turn


def test_premove_must_look_like_a_move_and_can_be_cancelled() -> None:
    table = Table(seat=Seat.A_BLACK)
    assert table.session.on_line("blah") == []
    assert table.session.premove is None
    assert table.session.feedback.style == "error"
    table.session.on_line("Nc6")
    table.session.on_line("cancel")
    assert table.session.premove is None
    assert "cancelled" in table.session.feedback.text


def test_signals_and_tells_go_to_the_partner_and_the_log() -> None:
    table = Table()
    assert table.session.on_line("++n") == [SendTell("++n")]
    assert table.session.on_line("tell sit please") == [SendTell("sit please")]
    assert table.session.log[-1].text == "you to partner: sit please"
    table.session.partner_says("go", 1.0)
    assert table.session.log[-1].text == "engine-BB (B-Black): go (move now)"


def test_signals_are_shown_with_their_words_both_ways() -> None:
    """protocol.md §8.2's signals, sent and received, are shown in words beside them."""
    table = Table()
    assert table.session.on_line("++n") == [SendTell("++n")]
    assert table.session.log[-1].text == "you to partner: ++n (I want a knight: very good)"
    assert table.session.on_line("--Q +trades") == [SendTell("--q +trades")]
    assert table.session.log[-1].text == (
        "you to partner: --q +trades (don't let them get a queen: very bad; "
        "trades are good for me)"
    )
    table.session.partner_says("---n ---b", 1.0)
    assert table.session.log[-1].text == (
        "engine-BB (B-Black): ---n ---b (don't let them get a knight: it mates me; "
        "don't let them get a bishop: it mates me)"
    )
    assert table.session.partner_request_text() == table.session.log[-1].text.split(": ", 1)[1]
    # A sentence for people stays as it is (§8.3), a signal word inside it too.
    table.session.partner_says("Tell me 'go' to start moving into it.", 2.0)
    assert table.session.log[-1].text.endswith(": Tell me 'go' to start moving into it.")


def test_draw_asks_to_confirm() -> None:
    table = Table()
    assert table.session.on_line("draw") == []
    assert table.session.confirming == "draw"
    assert table.session.on_line("y") == [SendDraw()]
    assert table.session.on_line("draw") == []
    assert table.session.on_line("n") == []
    assert "draw cancelled" in table.session.feedback.text


def test_another_command_cancels_the_question_and_still_runs() -> None:
    table = Table()
    table.turn()
    table.session.on_line("quit")
    assert table.session.on_line("e4") == [SendMove("e2e4", 1)]
    assert table.session.confirming is None


def test_quit_asks_and_leaves() -> None:
    table = Table()
    table.session.on_line("quit")
    assert table.session.confirming == "quit"
    assert table.session.on_line("yes") == [SendLeave("quit at the console")]


def test_resign_asks_first() -> None:
    table = Table()
    assert table.session.on_line("resign") == []
    assert table.session.confirming == "resign"
    assert table.session.feedback.text == "resign? your team loses the game: y/n"
    assert table.session.on_line("n") == []
    assert table.session.feedback.text == "resign cancelled"
    assert table.session.on_line("resign") == []
    assert table.session.on_line("y") == [SendResign()]


def test_moves_from_a_square_marks_the_destinations() -> None:
    table = Table()
    table.turn()
    table.session.on_line("moves e2")
    assert table.session.hints == {chess.E3, chess.E4}
    assert table.session.feedback.text == "e2: e3 e4"
    table.session.on_line("moves e4")
    assert table.session.feedback.text == "e4: empty square, no drop fits"
    table.session.on_line("moves")
    assert table.session.log[-1].text.startswith("legal: ")
    assert "Nf3" in table.session.log[-1].text
    assert table.session.feedback.text == "20 legal moves and drops"


def test_moves_lists_drops_onto_a_square_and_works_out_of_turn() -> None:
    table = Table(seat=Seat.A_WHITE, fen_a="4k3/8/8/8/8/8/8/4K3[N] b - - 0 1")
    table.session.on_line("moves d4")
    assert table.session.feedback.text == "d4: N@d4 (if it were your turn now)"
    assert chess.D4 in table.session.hints


def test_waiting_for_a_piece_is_shown_and_explained() -> None:
    # White is in check from a rook with a gap: a drop could block, so White waits.
    table = Table(fen_a="4k3/8/8/8/8/8/r7/r3K3 w - - 0 1")
    table.turn()
    table.session.on_line("Kd2")
    assert "illegal" in table.session.feedback.text
    assert table.session.status_text(BoardId.A) == "check: waiting for a piece"


def test_check_is_marked() -> None:
    table = Table(fen_a="4k3/8/8/8/8/8/8/r3K3 w - - 0 1")
    assert table.session.status_text(BoardId.A) == "check"


def test_clocks_tick_for_the_seats_to_move_only() -> None:
    table = Table()
    session = table.session
    assert session.clock(Seat.A_WHITE, 10.0) == 170.0
    assert session.clock(Seat.B_WHITE, 10.0) == 170.0
    assert session.clock(Seat.A_BLACK, 10.0) == 180.0
    table.clocks[Seat.A_WHITE] = 170.0
    table.play(Seat.A_WHITE, "e4", now=10.0)
    assert session.clock(Seat.A_WHITE, 15.0) == 170.0
    assert session.clock(Seat.A_BLACK, 15.0) == 175.0
    assert session.clock(Seat.B_WHITE, 200.0) == 0.0


def test_next_tick_is_when_a_display_changes() -> None:
    table = Table()
    session = table.session
    assert session.next_tick(0.25) == pytest.approx(1.001)
    assert format_clock(session.clock(Seat.A_WHITE, 1.001)) == "2:58"
    table.clocks = dict.fromkeys(Seat, 10.05)
    table.turn(now=0.0)
    assert session.next_tick(0.0) == pytest.approx(0.051)
    assert format_clock(session.clock(Seat.A_WHITE, 0.051)) == "9.9"
    session.game_over(Outcome(termination=Termination.AGREEMENT, winner=None, reason="x"))
    assert session.next_tick(0.0) is None


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(180, "3:00"), (59.99, "0:59"), (20.0, "0:20"), (19.99, "19.9"), (0.05, "0.0"), (-1, "0.0")],
)
def test_format_clock(seconds: float, shown: str) -> None:
    assert format_clock(seconds) == shown


@pytest.mark.parametrize(
    ("winner", "head"), [(Team.ONE, "You win"), (Team.TWO, "You lose"), (None, "Draw")]
)
def test_result_line_from_the_person_side(winner: Team | None, head: str) -> None:
    table = Table(seat=Seat.B_BLACK)
    table.session.game_over(
        Outcome(termination=Termination.CHECKMATE, winner=winner, reason="A-Black checkmated")
    )
    line = table.session.result_line()
    assert line.startswith(f"{head}: A-Black checkmated")
    # Said once, on the state line, not again in the message area.
    assert all(entry.text != line for entry in table.session.log)
    assert table.session.on_line("e4") == []
    assert table.session.feedback.text == "the game is over"


def test_flip_turns_both_boards() -> None:
    table = Table(seat=Seat.A_BLACK)
    assert table.session.bottom_color(BoardId.A) == chess.BLACK
    assert table.session.bottom_color(BoardId.B) == chess.WHITE
    table.session.on_line("flip")
    assert table.session.bottom_color(BoardId.A) == chess.WHITE
    assert table.session.bottom_color(BoardId.B) == chess.BLACK


def test_a_refused_move_is_explained_without_the_fen() -> None:
    table = Table()
    table.session.move_refused("e2e5", "e2e5: illegal move in rnbqkbnr/8 w KQkq - 0 1")
    assert table.session.feedback.text == "e2e5 refused: e2e5: illegal move"
    assert table.session.feedback.style == "error"


def test_a_board_that_ended_stops_its_clocks_and_turn() -> None:
    table = Table(seat=Seat.A_WHITE)
    table.turn()
    table.session.on_line("e5")  # not legal, but keeps the turn open
    result = BoardResult(
        board=BoardId.A, winner=Team.TWO, termination=Termination.FLAG, reason="A-White lost"
    )
    table.session.board_ended(result)
    assert not table.session.my_turn
    assert not table.session.is_running(Seat.A_WHITE)
    assert table.session.is_running(Seat.B_WHITE)
    assert table.session.status_text(BoardId.A) == "over: A-White lost"
    assert table.session.log[-1].text == "board A is over: A-White lost"


def test_draw_question_names_the_other_people() -> None:
    table = Table()
    table.session.other_people = frozenset({Seat.B_BLACK})
    table.session.on_line("draw")
    assert "every person at the table must agree" in table.session.feedback.text


def test_draw_question_says_who_else_must_agree_under_each_draw_rule() -> None:
    table = Table()
    table.session.on_line("draw")
    assert "your word alone draws" in table.session.feedback.text
    table.session.on_line("n")
    table.session.rules = HouseRules(draw="both-teams")
    table.session.on_line("draw")
    assert table.session.feedback.text == (
        "offer a draw? the other team's engines must accept: y/n"
    )
    table.session.on_line("n")
    table.session.other_people = frozenset({Seat.B_BLACK})  # the partner is a person
    table.session.on_line("draw")
    assert "engines must accept and every person agree" in table.session.feedback.text


def test_moves_lists_few_drop_squares_and_counts_many() -> None:
    table = Table()
    session = table.session
    session.boards[session.seat.board] = BughouseBoard(
        "rnbqk1nr/pppp1ppp/8/4p3/1b6/3P4/PPP1PPPP/RNBQKBNR[NP] w KQkq - 0 1"
    )
    session.on_line("moves")
    text = session.log[-1].text
    assert "drops: N@ c3 d2 P@ c3 d2" in text
    session.boards[session.seat.board] = BughouseBoard(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1"
    )
    session.on_line("moves")
    assert "drops: N@ (32 squares)" in session.log[-1].text
