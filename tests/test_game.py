"""The two-board match: turns, partner transfer, the record, and every way a match ends."""

from __future__ import annotations

import chess
import pytest

from bughouse_arbiter.core.board import STARTING_FEN, BoardStatus
from bughouse_arbiter.core.game import BoardResult, BughouseGame
from bughouse_arbiter.core.model import BoardId, Result, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import MoveError, NotYourTurnError

A, B = BoardId.A, BoardId.B
# White to move drops the queen on g7: a contact mate of the black king on h8.
QUEEN_MATES = "7k/8/6K1/8/8/8/8/8[Q] w - - 0 1"
# White is checked along rank 1 with nothing to block with: waits for a piece.
WHITE_WAITS = "7k/8/8/8/8/8/6PP/r6K[] w - - 0 1"
# White plays f6f7 and black, not in check, has no move (stalemate).
WHITE_STALEMATES = "7k/8/5Q2/8/8/8/8/K7[] w - - 0 1"


def game(fen_a: str = STARTING_FEN, fen_b: str = STARTING_FEN, **rules: object) -> BughouseGame:
    return BughouseGame(HouseRules(**rules), fen_a=fen_a, fen_b=fen_b)  # type: ignore[arg-type]


# -- turns and the record ----------------------------------------------------------


def test_boards_run_independently_with_turns_per_board() -> None:
    g = game()
    assert g.to_move(A) is Seat.A_WHITE and g.to_move(B) is Seat.B_WHITE
    g.push(Seat.B_WHITE, "d4")
    g.push(Seat.B_BLACK, "d5")
    g.push(Seat.B_WHITE, "c4")
    g.push(Seat.A_WHITE, "e2e4")
    assert g.to_move(A) is Seat.A_BLACK and g.to_move(B) is Seat.B_BLACK
    assert g.is_to_move(Seat.A_BLACK) and not g.is_to_move(Seat.A_WHITE)
    assert g.seats_to_move() == [Seat.A_BLACK, Seat.B_BLACK]
    assert [m.ply for m in g.moves] == [1, 2, 3, 4]
    assert g.plies == 4


def test_each_move_records_its_number_on_its_own_board() -> None:
    g = game()
    for seat, move in (
        (Seat.A_WHITE, "e4"),
        (Seat.A_BLACK, "e5"),
        (Seat.B_WHITE, "d4"),
        (Seat.A_WHITE, "Nf3"),
        (Seat.B_BLACK, "d5"),
        (Seat.A_BLACK, "Nc6"),
        (Seat.B_WHITE, "c4"),
    ):
        g.push(seat, move)
    assert [(m.board, m.number, m.san) for m in g.moves] == [
        (A, 1, "e4"),
        (A, 1, "e5"),
        (B, 1, "d4"),
        (A, 2, "Nf3"),
        (B, 1, "d5"),
        (A, 2, "Nc6"),
        (B, 2, "c4"),
    ]


def test_a_move_with_its_san_given_is_played_and_recorded_with_that_text() -> None:
    """A replay hands over the move its parser read and the text it read it
    from: the text is kept as written, the move is played, captures pass."""
    g = game()
    g.push(Seat.A_WHITE, chess.Move.from_uci("e2e4"), san="e2-e4")
    g.push(Seat.A_BLACK, chess.Move.from_uci("d7d5"), san="d5")
    played = g.push(Seat.A_WHITE, chess.Move.from_uci("e4d5"), san="exd5!", at=1.5, clock=58.0)
    assert played.san == "exd5!" and played.number == 2 and played.ply == 3
    assert (played.at, played.clock) == (1.5, 58.0)
    assert played.passed == chess.Piece(chess.PAWN, chess.BLACK)
    assert [m.san for m in g.moves] == ["e2-e4", "d5", "exd5!"]
    assert g.fen(A) == "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 2"
    assert g.board(B).pocket_string(chess.BLACK) == "p"
    assert g.seats_to_move() == [Seat.A_BLACK, Seat.B_WHITE]


@pytest.mark.parametrize("seat", [Seat.A_BLACK, Seat.B_BLACK])
def test_a_seat_not_to_move_is_refused_and_nothing_changes(seat: Seat) -> None:
    g = game()
    with pytest.raises(NotYourTurnError, match=f"{seat} is not to move"):
        g.push(seat, "e5")
    assert g.moves == [] and g.fen(A) == g.fen(B) == STARTING_FEN


@pytest.mark.parametrize("move", ["e2e5", "Ke2", "N@e4", "castle", chess.Move.from_uci("e2e5")])
def test_an_illegal_move_raises_and_leaves_the_game_unchanged(move: str | chess.Move) -> None:
    g = game()
    with pytest.raises(MoveError):
        g.push(Seat.A_WHITE, move)
    assert g.moves == [] and g.fen(A) == STARTING_FEN and not g.is_over


def test_an_illegal_move_object_names_itself_and_the_position() -> None:
    with pytest.raises(MoveError) as caught:
        game().push(Seat.A_WHITE, chess.Move.from_uci("e2e5"))
    assert str(caught.value) == f"e2e5: illegal move in {STARTING_FEN}"


def test_a_null_move_object_is_illegal() -> None:
    with pytest.raises(MoveError):
        game().push(Seat.A_WHITE, chess.Move.null())


def test_a_capture_on_a_goes_to_the_capturers_partner_on_b() -> None:
    g = game()
    g.push(Seat.A_WHITE, "e4", at=1.5, clock=178.5)
    g.push(Seat.A_BLACK, "d5")
    played = g.push(Seat.A_WHITE, "exd5", at=4.0, clock=176.0)
    assert played.passed == chess.Piece(chess.PAWN, chess.BLACK)
    assert played.ply == 3 and played.board is A and played.seat is Seat.A_WHITE
    assert played.san == "exd5" and played.uci == "e4d5"
    assert played.at == 4.0 and played.clock == 176.0
    # A-White's partner is B-Black: the black pawn lands in black's pocket on B.
    assert g.fen(B) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[p] w KQkq - 0 1"
    assert g.board(A).pocket_string(chess.WHITE) == ""
    g.push(Seat.B_WHITE, "e3")
    dropped = g.push(Seat.B_BLACK, "P@e5")
    assert dropped.san == "@e5"
    assert g.board(B).pocket_string(chess.BLACK) == ""


def test_a_capture_on_b_goes_to_a_white() -> None:
    g = game(fen_b="4k3/8/8/8/8/2n5/8/1N2K3[] w - - 0 1")
    g.push(Seat.B_WHITE, "e1f1")
    g.push(Seat.B_BLACK, "c3b1")
    assert g.board(A).pocket_string(chess.WHITE) == "N"
    g.push(Seat.A_WHITE, "N@e4")
    assert g.moves[-1].san == "N@e4"


def test_a_captured_promoted_piece_reaches_the_partner_as_a_pawn() -> None:
    g = game(fen_a="3Q~k3/8/8/8/8/8/8/4K3[] b - - 0 1")
    played = g.push(Seat.A_BLACK, "Kxd8")
    assert played.passed == chess.Piece(chess.PAWN, chess.WHITE)
    assert g.board(B).pocket_string(chess.WHITE) == "P"


def test_the_record_is_append_only_and_keeps_every_move() -> None:
    g = game()
    for seat, move in [(Seat.A_WHITE, "e4"), (Seat.B_WHITE, "Nf3"), (Seat.A_BLACK, "e5")]:
        g.push(seat, move)
    first = list(g.moves)
    g.push(Seat.B_BLACK, "Nf6")
    assert g.moves[:3] == first
    assert [(m.seat, m.san) for m in g.moves] == [
        (Seat.A_WHITE, "e4"),
        (Seat.B_WHITE, "Nf3"),
        (Seat.A_BLACK, "e5"),
        (Seat.B_BLACK, "Nf6"),
    ]


def test_tell_records_partner_messages() -> None:
    g = game()
    message = g.tell(Seat.A_WHITE, "need a knight", at=12.0)
    assert g.messages == [message]
    assert message.seat is Seat.A_WHITE and message.text == "need a knight" and message.at == 12.0


# -- checkmate, waiting, deadlock --------------------------------------------------


def test_checkmate_wins_the_match_for_the_mating_team() -> None:
    g = game(fen_a=QUEEN_MATES)
    played = g.push(Seat.A_WHITE, "Q@g7")
    assert played.san == "Q@g7#"
    outcome = g.outcome
    assert outcome is not None
    assert outcome.termination is Termination.CHECKMATE
    assert outcome.winner is Team.ONE and outcome.result is Result.TEAM_ONE
    assert outcome.board is A and outcome.seat is Seat.A_BLACK
    assert outcome.reason == "A-Black checkmated"
    assert g.result is Result.TEAM_ONE
    with pytest.raises(NotYourTurnError, match="the match is over"):
        g.push(Seat.B_WHITE, "e4")


def test_checkmate_on_board_b_by_b_black_wins_for_team_one() -> None:
    # A smothered mate by a dropped knight.
    g = game(fen_b="6k1/8/8/8/8/8/6PP/6RK[n] b - - 0 1")
    g.push(Seat.B_BLACK, "N@f2")
    assert g.outcome is not None
    assert g.outcome.winner is Team.ONE
    assert g.outcome.reason == "B-White checkmated"
    assert g.outcome.board is B and g.outcome.seat is Seat.B_WHITE


def test_a_blockable_check_is_a_wait_and_the_match_goes_on() -> None:
    g = game(fen_a=WHITE_WAITS, fen_b="4k3/8/8/8/8/2n5/8/1N2K3[] w - - 0 1")
    assert g.status(A) is BoardStatus.MUST_WAIT
    assert not g.is_over
    g.push(Seat.B_WHITE, "e1f1")
    g.push(Seat.B_BLACK, "c3b1")  # the knight reaches A-White
    assert g.status(A) is BoardStatus.OK
    g.push(Seat.A_WHITE, "N@g1")
    assert not g.is_over


def test_deadlock_both_players_to_move_wait_is_a_draw() -> None:
    g = game(fen_a=WHITE_WAITS, fen_b=WHITE_STALEMATES)
    assert not g.is_over
    g.push(Seat.B_WHITE, "f6f7")
    assert g.status(B) is BoardStatus.STALEMATE_WAIT
    outcome = g.outcome
    assert outcome is not None
    assert outcome.termination is Termination.DEADLOCK
    assert outcome.winner is None and outcome.result is Result.DRAW
    assert outcome.reason == "draw: nobody to move can ever move again"
    assert outcome.board is None


def test_deadlock_from_the_starting_position_of_both_boards() -> None:
    g = game(fen_a=WHITE_WAITS, fen_b=WHITE_WAITS)
    assert g.outcome is not None and g.outcome.termination is Termination.DEADLOCK


def test_mate_beats_deadlock() -> None:
    # Board B waits; the mating drop on A leaves A-Black without a move too, but
    # mate decides before the deadlock rule is looked at.
    g = game(fen_a=QUEEN_MATES, fen_b=WHITE_WAITS)
    assert g.status(B) is BoardStatus.MUST_WAIT
    g.push(Seat.A_WHITE, "Q@g7")
    assert g.outcome is not None
    assert g.outcome.termination is Termination.CHECKMATE
    assert g.outcome.winner is Team.ONE


def test_one_waiting_board_is_not_a_deadlock() -> None:
    g = game(fen_a=WHITE_WAITS)
    g.push(Seat.B_WHITE, "e4")
    assert not g.is_over


def test_stalemate_draw_house_rule_ends_the_match() -> None:
    g = game(fen_b=WHITE_STALEMATES, stalemate="draw")
    g.push(Seat.B_WHITE, "f6f7")
    outcome = g.outcome
    assert outcome is not None
    assert outcome.termination is Termination.STALEMATE and outcome.winner is None
    assert outcome.board is B and outcome.seat is Seat.B_BLACK
    assert "B-Black has no legal move" in outcome.reason


def test_stalemate_wait_by_default_does_not_end_the_match() -> None:
    g = game(fen_b=WHITE_STALEMATES)
    g.push(Seat.B_WHITE, "f6f7")
    assert not g.is_over
    assert g.status(B) is BoardStatus.STALEMATE_WAIT


# -- flags -----------------------------------------------------------------------


def test_one_flag_loses_for_that_team() -> None:
    g = game()
    outcome = g.flag([Seat.B_WHITE])
    assert outcome is not None
    assert outcome.termination is Termination.FLAG
    assert outcome.winner is Team.ONE
    assert outcome.reason == "B-White lost on time"
    assert outcome.board is B and outcome.seat is Seat.B_WHITE


def test_simultaneous_flags_of_one_team_lose_for_that_team() -> None:
    g = game()
    outcome = g.flag([Seat.B_BLACK, Seat.A_WHITE])
    assert outcome is not None
    assert outcome.winner is Team.TWO and outcome.result is Result.TEAM_TWO
    assert outcome.reason == "A-White and B-Black lost on time at the same instant"


def test_simultaneous_flags_of_both_teams_draw() -> None:
    g = game()
    outcome = g.flag([Seat.A_WHITE, Seat.B_WHITE])
    assert outcome is not None
    assert outcome.termination is Termination.FLAG
    assert outcome.winner is None and outcome.result is Result.DRAW
    assert outcome.reason == "draw: A-White and B-White ran out of time at the same instant"
    assert outcome.board is A and outcome.seat is Seat.A_WHITE  # the first in seat order


def test_flag_needs_a_seat() -> None:
    with pytest.raises(ValueError, match="at least one seat"):
        game().flag([])


# -- ends from outside the boards ------------------------------------------------


def test_resignation_loses_for_the_resigning_team() -> None:
    g = game()
    outcome = g.resign(Seat.A_BLACK)
    assert outcome is not None
    assert outcome.termination is Termination.RESIGNATION
    assert outcome.winner is Team.ONE and outcome.reason == "A-Black resigned"
    # The first end stands.
    assert g.resign(Seat.A_WHITE) is outcome
    assert g.flag([Seat.A_WHITE]) is outcome


def test_leaving_loses_for_the_leaving_team() -> None:
    g = game()
    outcome = g.leave(Seat.B_WHITE, "engine crashed")
    assert outcome is not None
    assert outcome.termination is Termination.LEFT
    assert outcome.winner is Team.ONE
    assert outcome.reason == "B-White left: engine crashed"
    assert outcome.seat is Seat.B_WHITE and outcome.board is B


def test_an_illegal_move_loses_when_the_caller_scores_it() -> None:
    g = game()
    with pytest.raises(MoveError) as caught:
        g.push(Seat.A_WHITE, "e2e5")
    outcome = g.illegal(Seat.A_WHITE, "e2e5", str(caught.value))
    assert outcome is not None
    assert outcome.termination is Termination.ILLEGAL_MOVE
    assert outcome.winner is Team.TWO
    assert outcome.reason.startswith("A-White played an illegal move 'e2e5': e2e5: illegal move")


def test_draw_by_agreement_and_abort() -> None:
    g = game()
    outcome = g.agree_draw()
    assert outcome is not None
    assert outcome.termination is Termination.AGREEMENT and outcome.result is Result.DRAW
    assert outcome.reason == "draw by agreement"
    aborted = game().abort("interrupted")
    assert aborted is not None
    assert aborted.aborted and aborted.result is Result.UNFINISHED and aborted.winner is None
    assert str(aborted) == "* (interrupted)"


# -- max_plies -------------------------------------------------------------------

SHUFFLE = {
    chess.WHITE: ("g1f3", "f3g1"),
    chess.BLACK: ("g8f6", "f6g8"),
}


def shuffle_knights(g: BughouseGame, plies: int) -> None:
    """Alternates boards A and B, each side moving its king's knight out and back."""
    for _ in range(plies):
        board_id = A if g.plies % 2 == 0 else B
        board = g.board(board_id)
        moves = SHUFFLE[board.turn]
        move = moves[(board.fullmove_number - 1) % 2]
        g.push(g.to_move(board_id), move)


def test_800_plies_over_both_boards_draw() -> None:
    g = game()
    shuffle_knights(g, 799)
    assert not g.is_over
    shuffle_knights(g, 1)
    outcome = g.outcome
    assert outcome is not None
    assert outcome.termination is Termination.MAX_PLIES
    assert outcome.result is Result.DRAW
    assert outcome.reason == "draw: 800 plies played on the two boards (max_plies=800)"
    assert len(g.board(A).move_stack) == len(g.board(B).move_stack) == 400


def test_max_plies_house_rule_and_no_cap() -> None:
    g = game(max_plies=6)
    shuffle_knights(g, 5)
    assert not g.is_over
    shuffle_knights(g, 1)
    assert g.outcome is not None and g.outcome.termination is Termination.MAX_PLIES
    uncapped = game(max_plies=0)
    shuffle_knights(uncapped, 1000)
    assert not uncapped.is_over


def test_mate_on_the_last_allowed_ply_beats_max_plies() -> None:
    g = game(fen_a=QUEEN_MATES, max_plies=1)
    g.push(Seat.A_WHITE, "Q@g7")
    assert g.outcome is not None and g.outcome.termination is Termination.CHECKMATE


# -- repetition ------------------------------------------------------------------


def test_threefold_repetition_on_one_board_draws_under_the_house_rule() -> None:
    g = game(repetition="threefold")
    for move in ("g1f3", "g8f6", "f3g1", "f6g8") * 2:
        assert not g.is_over
        g.push(g.to_move(A), move)
    outcome = g.outcome
    assert outcome is not None
    assert outcome.termination is Termination.REPETITION and outcome.result is Result.DRAW
    assert outcome.board is A
    assert outcome.reason == "draw: threefold repetition on board A"


def test_no_repetition_draw_by_default() -> None:
    g = game()
    for move in ("g1f3", "g8f6", "f3g1", "f6g8") * 3:
        g.push(g.to_move(A), move)
    assert not g.is_over


def test_a_pocket_change_between_repeats_is_no_repetition() -> None:
    g = game(repetition="threefold", fen_b="4k3/8/8/8/8/2n5/8/1N2K3[] w - - 0 1")
    for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
        g.push(g.to_move(A), move)
    g.push(Seat.B_WHITE, "e1f1")
    g.push(Seat.B_BLACK, "c3b1")  # A-White's pocket now holds a knight
    for move in ("g1f3", "g8f6", "f3g1", "f6g8"):
        g.push(g.to_move(A), move)
    assert not g.is_over


# -- board_end=continue ----------------------------------------------------------


def test_board_end_continue_plays_on_and_sums_the_boards() -> None:
    g = game(fen_a=QUEEN_MATES, board_end="continue")
    g.push(Seat.A_WHITE, "Q@g7")
    assert not g.is_over
    assert not g.is_live(A) and g.is_live(B)
    assert g.board_results[A].winner is Team.ONE
    assert g.board_results[A].termination is Termination.CHECKMATE
    assert g.seats_to_move() == [Seat.B_WHITE]
    assert not g.is_to_move(Seat.A_BLACK)  # its turn on a board that is over
    with pytest.raises(NotYourTurnError, match="board A is over"):
        g.push(Seat.A_BLACK, "h8g8")
    g.push(Seat.B_WHITE, "e4")
    g.push(Seat.B_BLACK, "d5")
    capture = g.push(Seat.B_WHITE, "exd5")
    assert capture.passed is None  # board A is over: nothing arrives there
    assert g.board(A).pocket_string(chess.BLACK) == ""
    outcome = g.resign(Seat.B_WHITE)
    assert outcome is not None
    assert outcome.termination is Termination.BOARDS_SUMMED
    assert outcome.winner is Team.ONE
    assert outcome.reason == (
        "boards summed 2-0 (board A: A-Black checkmated; board B: B-White resigned)"
    )


def test_board_end_continue_split_boards_draw() -> None:
    g = game(board_end="continue")
    assert g.resign(Seat.A_WHITE) is None
    outcome = g.flag([Seat.B_WHITE])
    assert outcome is not None
    assert outcome.winner is None and outcome.result is Result.DRAW
    assert outcome.reason.startswith("boards summed 1-1")


def test_board_end_continue_a_wait_with_the_other_board_over_is_mate() -> None:
    # Once board A is over no piece can arrive on B: B-White's wait is final.
    g = game(fen_a=QUEEN_MATES, fen_b=WHITE_WAITS, board_end="continue")
    g.push(Seat.A_WHITE, "Q@g7")
    outcome = g.outcome
    assert outcome is not None
    assert g.board_results[B].termination is Termination.CHECKMATE
    assert g.board_results[B].reason == "B-White checkmated (no piece can arrive any more)"
    assert g.board_results[B].winner is Team.ONE
    assert g.board_results[B].seat is Seat.B_WHITE
    assert outcome.winner is Team.ONE
    assert outcome.reason.startswith("boards summed 2-0")


def test_board_end_continue_a_stalemate_with_the_other_board_over_draws_that_board() -> None:
    g = game(fen_b=WHITE_STALEMATES, board_end="continue")
    g.resign(Seat.A_BLACK)
    g.push(Seat.B_WHITE, "f6f7")
    assert g.board_results[B].winner is None
    assert g.board_results[B].termination is Termination.DEADLOCK
    assert g.board_results[B].reason == "draw: B-Black can never move again"
    assert g.board_results[B].seat is Seat.B_BLACK
    assert g.outcome is not None and g.outcome.reason.startswith("boards summed 1.5-0.5")


def test_a_set_up_game_with_one_board_mated_and_the_other_stalemated_ends_both() -> None:
    # Judged at once when the game is set up: the mate on A does not hide
    # the stalemate on B (stalemate=draw), which is a board of its own.
    g = game(
        fen_a="7k/6Q1/6K1/8/8/8/8/8[] b - - 0 1",
        fen_b="k7/8/1Q6/8/8/8/8/7K[] b - - 0 1",
        board_end="continue",
        stalemate="draw",
    )
    assert g.board_results[A].termination is Termination.CHECKMATE
    assert g.board_results[B].termination is Termination.STALEMATE
    assert g.board_results[B].seat is Seat.B_BLACK
    assert g.outcome is not None and g.outcome.reason.startswith("boards summed 1.5-0.5")


def test_pieces_put_on_a_board_that_is_over_land_in_its_pocket_and_change_nothing() -> None:
    g = game(fen_a="7k/6Q1/6K1/8/8/8/8/8[] b - - 0 1", board_end="continue")
    assert g.board_results[A].termination is Termination.CHECKMATE
    for piece_type in (chess.QUEEN, chess.ROOK):
        assert g.receive(A, chess.Piece(piece_type, chess.BLACK)) is None
    assert g.board(A).pocket_string(chess.BLACK) == "qr"
    assert list(g.board_results) == [A] and g.is_live(B)
    assert g.status(A) is BoardStatus.CHECKMATE


def test_board_end_continue_flags_of_both_teams_on_both_boards() -> None:
    g = game(board_end="continue")
    outcome = g.flag([Seat.A_WHITE, Seat.B_WHITE])
    assert outcome is not None and outcome.result is Result.DRAW
    assert outcome.termination is Termination.BOARDS_SUMMED


def test_board_end_continue_max_plies_draws_the_board_still_playing() -> None:
    g = game(fen_a=QUEEN_MATES, board_end="continue", max_plies=4)
    g.push(Seat.A_WHITE, "Q@g7")
    for move in ("g1f3", "g8f6"):
        g.push(g.to_move(B), move)
    assert not g.is_over
    g.push(Seat.B_WHITE, "f3g1")
    outcome = g.outcome
    assert outcome is not None
    assert g.board_results[B].termination is Termination.MAX_PLIES
    assert outcome.termination is Termination.BOARDS_SUMMED
    assert outcome.winner is Team.ONE
    assert outcome.reason.startswith("boards summed 1.5-0.5")


def test_board_end_continue_leave_and_illegal_end_one_board() -> None:
    g = game(board_end="continue")
    assert g.leave(Seat.A_WHITE, "quit") is None
    assert not g.is_live(A) and g.is_live(B)
    outcome = g.illegal(Seat.B_BLACK, "e2e4")
    assert outcome is not None and outcome.winner is Team.TWO
    assert outcome.reason.startswith("boards summed 0-2")


def test_board_end_continue_records_who_ended_each_board_and_how() -> None:
    g = game(board_end="continue", max_plies=2)
    assert g.illegal(Seat.A_WHITE, "Ke9") is None
    assert g.board_results[A] == BoardResult(
        board=A,
        winner=Team.TWO,
        termination=Termination.ILLEGAL_MOVE,
        reason="A-White played an illegal move 'Ke9'",
        seat=Seat.A_WHITE,
    )
    g.push(Seat.B_WHITE, "e4")
    g.push(Seat.B_BLACK, "e5")  # the second ply: board B is drawn
    assert g.board_results[B].winner is None
    outcome = g.outcome
    assert outcome is not None and outcome.winner is Team.TWO
    assert outcome.reason.startswith(
        "boards summed 0.5-1.5 (board A: A-White played an illegal move 'Ke9'; board B: draw: "
    )


@pytest.mark.parametrize(
    ("end", "termination", "reason"),
    [
        (lambda g, s: g.resign(s), Termination.RESIGNATION, "B-Black resigned"),
        (lambda g, s: g.flag([s]), Termination.FLAG, "B-Black lost on time"),
        (lambda g, s: g.leave(s), Termination.LEFT, "B-Black left"),
        (
            lambda g, s: g.illegal(s, "P@a1", ""),
            Termination.ILLEGAL_MOVE,
            "B-Black played an illegal move 'P@a1'",
        ),
    ],
)
def test_board_end_continue_an_end_from_outside_names_its_seat(
    end: object, termination: Termination, reason: str
) -> None:
    g = game(board_end="continue")
    assert end(g, Seat.B_BLACK) is None  # type: ignore[operator]
    assert g.board_results[B] == BoardResult(
        board=B, winner=Team.TWO, termination=termination, reason=reason, seat=Seat.B_BLACK
    )
    assert g.is_live(A) and not g.is_over


def test_abort_without_a_reason_and_flag_without_seats() -> None:
    outcome = game().abort()
    assert outcome is not None
    assert (outcome.termination, outcome.reason) == (Termination.ABORTED, "aborted")
    with pytest.raises(ValueError) as caught:
        game().flag([])
    assert str(caught.value) == "flag() needs at least one seat"


def test_parse_move_reads_on_the_seats_board() -> None:
    g = game(fen_b="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1")
    assert g.parse_move(Seat.B_WHITE, "N@e4") == chess.Move.from_uci("N@e4")
    assert g.parse_move(Seat.A_WHITE, "Nf3") == chess.Move.from_uci("g1f3")
    with pytest.raises(MoveError):
        g.parse_move(Seat.A_WHITE, "N@e4")  # nothing in A-White's pocket


# -- arrivals from outside the record ----------------------------------------------


def test_receive_rejudges_the_match() -> None:
    g = game(fen_a=WHITE_WAITS)
    assert g.status(A) is BoardStatus.MUST_WAIT
    assert g.receive(A, chess.Piece(chess.BISHOP, chess.WHITE)) is None
    assert g.status(A) is BoardStatus.OK
    assert g.moves == []


def test_replay_plays_pairs_and_stops_at_the_end() -> None:
    g = game(fen_a=QUEEN_MATES)
    g.replay([(Seat.A_WHITE, "Q@g7"), (Seat.B_WHITE, "e4")])
    assert g.is_over and g.plies == 1


# -- untimed play: the stalling rule -------------------------------------------

STUCK_BLACK = "K7/8/8/8/8/1Q6/8/k7[] b - - 0 1"  # A-Black: no legal move, not in check


def test_stalling_counts_partner_moves_only_while_the_player_could_move() -> None:
    game = BughouseGame(HouseRules(clock=False), fen_a=STUCK_BLACK)
    # A-Black has no move: its partner B-White's moves do not count.
    for white, black in (("e2e4", "d7d5"), ("b1c3", "b8c6"), ("g1f3", "g8f6")):
        game.push(Seat.B_WHITE, white)
        game.push(Seat.B_BLACK, black)
    # B-White takes a black pawn: it reaches A-Black, who can now drop it.
    game.push(Seat.B_WHITE, "e4d5")
    assert game.status(BoardId.A) is BoardStatus.OK
    game.push(Seat.B_BLACK, "f6d5")
    for white, black in (("f1b5", "a7a6"), ("b5c6", "b7c6")):
        game.push(Seat.B_WHITE, white)
        game.push(Seat.B_BLACK, black)
    assert game.outcome is None  # two partner moves since it could move
    game.push(Seat.B_WHITE, "e1g1")
    assert game.outcome is not None
    assert game.outcome.termination is Termination.STALLING
    assert game.outcome.seat is Seat.A_BLACK
    assert game.outcome.board is BoardId.A
    assert game.outcome.winner is Team.ONE
    assert "partner made 3 moves" in game.outcome.reason


def test_moving_resets_the_stalling_count_and_clocks_on_or_stalling_0_turn_it_off() -> None:
    for rules in (HouseRules(clock=False), HouseRules(), HouseRules(clock=False, stalling=0)):
        game = BughouseGame(rules)
        game.push(Seat.A_WHITE, "e2e4")  # A-Black could move from now on
        game.push(Seat.B_WHITE, "d2d4")
        game.push(Seat.B_BLACK, "d7d5")
        game.push(Seat.B_WHITE, "c2c4")
        game.push(Seat.A_BLACK, "e7e5")  # moved: its count starts again
        game.push(Seat.A_WHITE, "g1f3")
        game.push(Seat.B_BLACK, "e7e6")
        game.push(Seat.B_WHITE, "b1c3")
        game.push(Seat.B_BLACK, "g8f6")
        game.push(Seat.B_WHITE, "c1g5")
        assert game.outcome is None
        game.push(Seat.B_BLACK, "f8e7")
        game.push(Seat.B_WHITE, "e2e3")  # the third since A-Black's last chance to move
        stalled = game.outcome is not None and game.outcome.termination is Termination.STALLING
        assert stalled is (not rules.clock and rules.stalling == 3)


@pytest.mark.parametrize("drop_check", ["no-check", "no-mate"])
def test_a_capture_that_makes_the_other_side_wait_is_still_passed(drop_check: str) -> None:
    # Rxh8+ leaves Black no move; whether a drop could block is judged by
    # trying drops from a full pocket under the drop rule (pushed and popped):
    # the captured rook must still reach the partner board.
    game = BughouseGame(
        HouseRules(drop_check=drop_check),  # type: ignore[arg-type]
        fen_a="k6r/pp6/8/8/8/8/8/4K2R w - - 0 1",
    )
    played = game.push(Seat.A_WHITE, chess.Move.from_uci("h1h8"))
    assert played.san == "Rxh8+"
    assert game.board(BoardId.A).status_of_side_to_move() is BoardStatus.MUST_WAIT
    assert played.passed == chess.Piece(chess.ROOK, chess.BLACK)
    assert game.board(BoardId.B).pockets[chess.BLACK].count(chess.ROOK) == 1


@pytest.mark.parametrize(
    "fen_b",
    [STARTING_FEN, "r3k2r/8/8/8/8/8/8/R3K2R[Qn] b Kq - 3 20", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"],
)
def test_start_fens_are_the_boards_own_fens(fen_b: str) -> None:
    game = BughouseGame(fen_b=fen_b)
    assert game.start_fens == {b: game.board(b).fen() for b in BoardId}
