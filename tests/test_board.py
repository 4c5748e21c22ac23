"""One bughouse board: FEN, captures, game-end status and the board-level house rules.

Every position here is concrete; the comments say why it is what the test needs.
"""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest

pytest.importorskip("hypothesis")

from hypothesis import given, settings
from strategies import bughouse_fens, crazyhouse_walk

from bughouse_arbiter.core import board as board_module
from bughouse_arbiter.core.board import STARTING_FEN, BoardStatus, BughouseBoard, _rank_text
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import MoveError, PositionError


def board(fen: str, **rules: object) -> BughouseBoard:
    return BughouseBoard(fen, rules=HouseRules(**rules))  # type: ignore[arg-type]


def legal(b: BughouseBoard) -> list[str]:
    return sorted(move.uci() for move in b.legal_moves)


def play(b: BughouseBoard, *moves: str) -> None:
    for uci in moves:
        b.push(b.parse_move(uci))


# -- FEN -----------------------------------------------------------------------


def test_fen_round_trips_pockets_and_promoted_marks() -> None:
    fen = "r3k2r/8/8/8/8/8/8/R3K1Q~R[QNPbp] w KQkq - 0 1"
    b = BughouseBoard(fen)
    assert b.fen() == fen
    assert b.promoted == chess.BB_G1
    assert b.pocket_string(chess.WHITE) == "QNP"
    assert b.pocket_string(chess.BLACK) == "bp"


def test_lichess_ninth_rank_pocket_is_read_and_written_in_brackets() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3/Qn w - - 0 1")
    assert b.fen() == "4k3/8/8/8/8/8/8/4K3[Qn] w - - 0 1"


def test_a_chess_fen_without_a_pocket_has_empty_pockets() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    assert b.fen() == "4k3/8/8/8/8/8/8/4K3[] w - - 0 1"


def test_a_king_in_a_ninth_rank_pocket_is_refused() -> None:
    with pytest.raises(PositionError, match="a pocket cannot hold a king"):
        BughouseBoard("4k3/8/8/8/8/8/8/4K3/Kq w - - 0 1")


def test_board_part_alone_means_white_to_move_without_rights() -> None:
    assert BughouseBoard("4k3/8/8/8/8/8/8/4K3[P]").fen() == "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1"


@pytest.mark.parametrize("pocket", ["K", "k", "Pk", "kK"])
def test_a_king_in_a_pocket_is_refused(pocket: str) -> None:
    with pytest.raises(PositionError, match="a pocket cannot hold a king"):
        BughouseBoard(f"4k3/8/8/8/8/8/8/4K3[{pocket}] w - - 0 1")


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "^empty FEN$"),
        ("  ", "^empty FEN$"),
        ("4k3/8/8/8/8/8/8/4K3[X] w - - 0 1", "a pocket cannot hold 'X'"),
        ("4k3/8/8/8/8/8/8/4K3[Q w - - 0 1", r"pocket must be written \[..\]"),
        ("4k3/8/8/8/8/8/4K3[] w - - 0 1", "needs 8 ranks"),
        ("4k3/8/8/8/8/8/7/4K3[] w - - 0 1", r"rank 2 \('7'\) holds 7 squares"),
        ("4k3/8/8/8/8/8/8/4K3[] x - - 0 1", "expected 'w' or 'b'"),
        ("4k3/8/8/8/8/8/8/4KZ2[] w - - 0 1", "invalid character"),
    ],
)
def test_unreadable_fens_say_what_is_wrong(fen: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        BughouseBoard(fen)


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        (
            "4k3/8/8/8/8/8/8/4K3[] x - - 0 1",
            "bad FEN '4k3/8/8/8/8/8/8/4K3[] x - - 0 1': expected 'w' or 'b' for turn part of fen",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3[] w - - z 1",
            "bad FEN '4k3/8/8/8/8/8/8/4K3[] w - - z 1': invalid half-move clock in fen",
        ),
        (
            "4k3/8/8/8/8/8/7/4K3[] w - - 0 1",
            "rank 2 ('7') holds 7 squares, not 8: '4k3/8/8/8/8/8/7/4K3[] w - - 0 1'",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3[Kx] w - - 0 1",
            "a pocket cannot hold 'Kx': '4k3/8/8/8/8/8/8/4K3[Kx] w - - 0 1'",
        ),
        ("4k3/8/8/8/8/8/8/4K3[K]", "a pocket cannot hold a king: '4k3/8/8/8/8/8/8/4K3[K]'"),
    ],
)
def test_an_unreadable_fen_is_named_once_in_one_line(fen: str, message: str) -> None:
    """The whole message: the FEN quoted once (python-chess's own quoting of it
    is cut off), what is wrong said as python-chess or the pocket check says it."""
    with pytest.raises(PositionError) as caught:
        BughouseBoard(fen)
    assert str(caught.value) == message


def test_piece_counts_that_only_bughouse_produces_are_valid() -> None:
    # Twelve white pawns and three white queens: pieces arrived from the partner board.
    b = BughouseBoard("4k3/8/8/8/5QQQ/PPPP4/PPPPPPPP/4K3[QQNN] w - - 0 1")
    assert b.is_valid()
    b.check_valid()
    assert len(legal(b)) > 0


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("8/8/8/8/8/8/8/8[] w - - 0 1", "empty"),
        ("4k3/8/8/8/8/8/8/8[] w - - 0 1", "white has no king"),
        ("4k3/8/8/8/8/8/8/3KK3[] w - - 0 1", "more than one king"),
        ("4k3/8/8/8/8/8/8/P3K3[] w - - 0 1", "rank 1 or 8"),
        ("4k3/8/8/8/8/8/8/4K2R[] b - - 0 1", None),
        ("4k3/4R3/8/8/8/8/8/4K3[] w - - 0 1", "not to move is in check"),
        ("4k3/8/8/8/8/8/8/4K3[] w K - 0 1", "castling right"),
        ("4k3/8/8/8/8/8/8/4K3[] w - e6 0 1", "en passant"),
    ],
)
def test_check_valid_names_the_problem(fen: str, message: str | None) -> None:
    b = BughouseBoard(fen)
    if message is None:
        b.check_valid()
        return
    with pytest.raises(PositionError, match=message):
        b.check_valid()


# -- drops -----------------------------------------------------------------------


def test_pieces_drop_on_any_empty_square_and_pawns_never_on_rank_1_or_8() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3[PN] w - - 0 1")
    pawn_squares = {m.to_square for m in b.legal_moves if m.drop == chess.PAWN}
    knight_squares = {m.to_square for m in b.legal_moves if m.drop == chess.KNIGHT}
    empty = set(chess.SquareSet(~b.occupied))
    assert knight_squares == empty
    assert pawn_squares == empty - set(chess.SquareSet(chess.BB_BACKRANKS))
    assert not b.is_legal(chess.Move.from_uci("P@a8"))


def test_a_drop_is_a_whole_turn_and_empties_the_pocket() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1")
    play(b, "N@d5")
    assert b.turn == chess.BLACK
    assert b.pocket_string(chess.WHITE) == ""
    assert b.piece_at(chess.D5) == chess.Piece(chess.KNIGHT, chess.WHITE)
    assert not b.promoted  # a dropped piece is never "promoted", even a former queen


def test_a_drop_cannot_leave_the_king_in_check_only_block_it() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/r3K3[N] w - - 0 1")
    assert {m.uci() for m in b.legal_moves if m.drop} == {"N@b1", "N@c1", "N@d1"}


# -- captures go to the partner ------------------------------------------------


def test_a_capture_goes_to_no_pocket_on_this_board() -> None:
    b = BughouseBoard("4k3/8/8/3n4/4P3/8/8/4K3[] w - - 0 1")
    play(b, "e4d5")
    assert b.last_passed == chess.Piece(chess.KNIGHT, chess.BLACK)
    assert b.pocket_string(chess.WHITE) == "" and b.pocket_string(chess.BLACK) == ""
    play(b, "e8e7")
    assert b.last_passed is None


def test_a_captured_promoted_piece_passes_as_a_pawn_of_its_colour() -> None:
    b = BughouseBoard("3Q~k3/8/8/8/8/8/8/4K3[] b - - 0 1")
    play(b, "e8d8")
    assert b.last_passed == chess.Piece(chess.PAWN, chess.WHITE)


def test_a_piece_promoted_on_this_board_passes_as_a_pawn() -> None:
    b = BughouseBoard("1r2k3/P7/8/8/8/8/8/4K3[] w - - 0 1")
    play(b, "a7b8n")  # captures a rook, becomes a promoted knight
    assert b.last_passed == chess.Piece(chess.ROOK, chess.BLACK)
    play(b, "e8d8", "e1e2", "d8c7", "e2e3", "c7b8")
    assert b.last_passed == chess.Piece(chess.PAWN, chess.WHITE)


def test_en_passant_passes_the_pawn() -> None:
    b = BughouseBoard("4k3/3p4/8/4P3/8/8/8/4K3[] b - - 0 1")
    play(b, "d7d5", "e5d6")
    assert b.last_passed == chess.Piece(chess.PAWN, chess.BLACK)


def test_receive_adds_to_the_colours_pocket_and_refuses_a_king() -> None:
    b = BughouseBoard(STARTING_FEN)
    b.receive(chess.Piece(chess.QUEEN, chess.BLACK))
    b.receive(chess.Piece(chess.PAWN, chess.WHITE))
    assert b.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pq]")
    with pytest.raises(PositionError, match=r"^a king cannot be passed$"):
        b.receive(chess.Piece(chess.KING, chess.WHITE))


def test_without_a_king_to_move_nothing_needs_blocking() -> None:
    assert not BughouseBoard("r6k/8/8/8/8/8/8/8[Q] w - - 0 1").could_block_by_drop()


# -- game end: the side to move's status -----------------------------------------


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("7k/8/8/8/8/8/6q1/6rK[] w - - 0 1", "contact queen, protected"),
        ("7k/8/8/8/8/5b2/6q1/7K[] w - - 0 1", "sliding queen in contact"),
        ("7k/8/8/8/8/6n1/6PN/6RK[QRBNP] w - - 0 1", "knight check, full pocket"),
        ("7k/8/8/8/8/5b2/6pP/6NK[QRBNP] w - - 0 1", "pawn check, full pocket"),
        ("7k/8/8/8/8/8/5nPP/r6K[QRBNP] w - - 0 1", "double check, full pocket"),
        # The checker on the higher square is a slider with empty squares before
        # the king: only counting the checkers tells this double check from a wait.
        ("4r2k/8/8/8/8/3n4/3P4/3QKB2[QRBNP] w - - 0 1", "double check, rook and knight"),
        ("4r2k/8/8/8/1b6/8/5P2/3QKB2[QRBNP] w - - 0 1", "double check, two sliders"),
    ],
)
def test_checks_no_drop_could_interpose_are_mate(fen: str, why: str) -> None:
    b = BughouseBoard(fen)
    assert b.is_check()
    assert legal(b) == []
    assert b.status_of_side_to_move() is BoardStatus.CHECKMATE, why
    assert b.is_checkmate()
    assert b.outcome() == chess.Outcome(chess.Termination.CHECKMATE, chess.BLACK)


def test_a_sliding_check_with_an_empty_pocket_is_not_mate_but_a_wait() -> None:
    # Rook a1 checks along rank 1; b1..g1 are empty, so a dropped piece could block.
    b = BughouseBoard("7k/8/8/8/8/8/6PP/r6K[] w - - 0 1")
    assert b.is_check() and legal(b) == []
    assert b.status_of_side_to_move() is BoardStatus.MUST_WAIT
    assert not b.is_checkmate()
    assert b.outcome() is None
    assert not b.is_game_over()


def test_an_arriving_piece_turns_a_wait_into_moves() -> None:
    b = BughouseBoard("7k/8/8/8/8/8/6PP/r6K[] w - - 0 1")
    b.receive(chess.Piece(chess.KNIGHT, chess.WHITE))
    assert b.status_of_side_to_move() is BoardStatus.OK
    assert legal(b) == ["N@b1", "N@c1", "N@d1", "N@e1", "N@f1", "N@g1"]


def test_block_squares_only_on_rank_one_a_pawn_in_hand_cannot_help_yet_it_is_a_wait() -> None:
    # The pocket holds a pawn, which may not be dropped on rank 1: no legal move,
    # but a queen could block, so this is not mate.
    b = BughouseBoard("7k/8/8/8/8/8/6PP/r6K[P] w - - 0 1")
    assert legal(b) == []
    assert b.status_of_side_to_move() is BoardStatus.MUST_WAIT


def test_block_squares_only_on_rank_eight_for_black() -> None:
    b = BughouseBoard("R6k/6pp/8/8/8/8/8/7K[p] b - - 0 1")
    assert legal(b) == []
    assert b.status_of_side_to_move() is BoardStatus.MUST_WAIT


def test_without_wait_for_block_mate_is_judged_with_the_current_pocket() -> None:
    empty = board("7k/8/8/8/8/8/6PP/r6K[P] w - - 0 1", wait_for_block=False)
    assert empty.status_of_side_to_move() is BoardStatus.CHECKMATE
    assert empty.is_checkmate()
    armed = board("7k/8/8/8/8/8/6PP/r6K[N] w - - 0 1", wait_for_block=False)
    assert armed.status_of_side_to_move() is BoardStatus.OK


def test_san_marks_a_blockable_check_with_plus_and_a_real_mate_with_hash() -> None:
    b = BughouseBoard("7k/8/8/8/8/8/6PP/7K[r] b - - 0 1")
    assert b.san(chess.Move.from_uci("R@a1")) == "R@a1+"
    b = BughouseBoard("7k/8/8/8/8/8/6PP/6RK[n] b - - 0 1")
    assert b.san(chess.Move.from_uci("N@f2")) == "N@f2#"


def test_no_legal_move_and_not_in_check_is_a_wait_or_a_draw_by_house_rule() -> None:
    fen = "7k/8/8/8/8/8/5q2/7K[] w - - 0 1"
    assert board(fen).status_of_side_to_move() is BoardStatus.STALEMATE_WAIT
    assert BoardStatus.STALEMATE_WAIT.waiting and BoardStatus.MUST_WAIT.waiting
    assert not BoardStatus.OK.waiting
    drawn = board(fen, stalemate="draw").status_of_side_to_move()
    assert drawn is BoardStatus.STALEMATE_DRAW and not drawn.waiting
    assert board(fen).outcome() is None
    assert board("7k/8/8/8/8/8/5q2/7K[B] w - - 0 1").status_of_side_to_move() is BoardStatus.OK


def test_no_draw_by_material_fifty_moves_or_fivefold() -> None:
    b = BughouseBoard("7k/8/8/8/8/8/8/K7[] w - - 150 1")
    assert not b.has_insufficient_material(chess.WHITE)
    assert not b.is_insufficient_material()
    assert b.outcome() is None
    for _ in range(5):
        play(b, "a1a2", "h8h7", "a2a1", "h7h8")
    assert not b.is_fivefold_repetition()
    assert b.outcome(claim_draw=True) is None


# -- dropped pawns ---------------------------------------------------------------


def test_en_passant_after_a_dropped_pawns_double_step() -> None:
    b = BughouseBoard("4k3/8/8/8/4p3/8/8/4K3[P] w - - 0 1")
    play(b, "P@d2", "e8d8")
    assert {"d2d3", "d2d4"} <= set(legal(b))
    play(b, "d2d4")
    assert b.ep_square == chess.D3
    assert "e4d3" in legal(b)
    play(b, "e4d3")
    assert b.last_passed == chess.Piece(chess.PAWN, chess.WHITE)
    assert b.piece_at(chess.D4) is None


def test_a_pawn_dropped_beside_an_enemy_pawn_gives_no_en_passant() -> None:
    b = BughouseBoard("4k3/8/8/8/4p3/8/8/4K3[P] w - - 0 1")
    play(b, "P@d4")
    assert b.ep_square is None
    assert not any(b.is_en_passant(m) for m in b.legal_moves)


def test_dropped_pawn_double_step_off_forbids_only_dropped_pawns() -> None:
    b = board("4k3/8/8/8/4p3/8/6P1/4K3[P] w - - 0 1", dropped_pawn_double_step=False)
    play(b, "P@d2", "e8d8")
    moves = legal(b)
    assert "d2d3" in moves and "d2d4" not in moves
    assert "g2g4" in moves  # a pawn that was never dropped keeps its double step
    assert not b.is_legal(chess.Move.from_uci("d2d4"))
    with pytest.raises(MoveError, match="illegal"):
        b.parse_move("d2d4")
    play(b, "d2d3", "d8e8", "d3d4")  # the single steps are fine


def test_a_dropped_pawns_lost_double_step_leaves_every_other_move() -> None:
    # The dropped pawn (h2) comes before the a2 pawn in python-chess's move
    # order: leaving out its double step must not end the list there.
    b = board("4k3/8/8/8/8/8/P7/4K3[P] w - - 0 1", dropped_pawn_double_step=False)
    play(b, "P@h2", "e8d8")
    moves = legal(b)
    assert "h2h4" not in moves
    assert {"a2a3", "a2a4", "h2h3", "e1d1", "e1f2"} <= set(moves)
    assert len(moves) == len(list(chess.variant.CrazyhouseBoard(b.fen()).legal_moves)) - 1


def test_dropped_pawn_double_step_off_remembers_every_dropped_pawn() -> None:
    fen = "4k3/8/8/8/8/8/8/4K3[PP] w - - 0 1"
    b = board(fen, dropped_pawn_double_step=False)
    play(b, "P@d2", "e8d8", "P@e2", "d8e8")
    assert b.dropped_pawns == chess.BB_D2 | chess.BB_E2
    plain = BughouseBoard(fen)
    play(plain, "P@d2", "e8d8", "P@e2", "d8e8")
    # Exactly the two double steps go; every other move stays.
    assert set(legal(b)) == set(legal(plain)) - {"d2d4", "e2e4"}


def test_dropped_pawn_double_step_off_for_black() -> None:
    b = board("k7/8/8/8/8/8/8/4K3[p] b - - 0 1", dropped_pawn_double_step=False)
    play(b, "P@e7", "e1d1")
    assert "e7e6" in legal(b) and "e7e5" not in legal(b)
    on = board("k7/8/8/8/8/8/8/4K3[p] b - - 0 1")
    play(on, "P@e7", "e1d1")
    assert "e7e5" in legal(on)


def test_dropped_pawn_double_step_off_also_when_it_would_block_a_check() -> None:
    # The rook checks along rank 5; d7-d5 would block, but that pawn was dropped.
    fen = "8/8/8/k7/8/8/8/4K2R[p] b - - 0 1"
    off = board(fen, dropped_pawn_double_step=False)
    play(off, "P@d7", "h1h5")
    assert off.is_check()
    assert "d7d5" not in legal(off)
    on = board(fen)
    play(on, "P@d7", "h1h5")
    assert "d7d5" in legal(on)


def test_a_dropped_pawn_that_is_captured_and_replaced_by_a_normal_pawn_is_forgotten() -> None:
    b = board("4k3/8/8/8/8/2n5/8/4K3[P] w - - 0 1", dropped_pawn_double_step=False)
    play(b, "P@d2", "c3e4")
    assert b.dropped_pawns == chess.BB_D2
    play(b, "e1e2", "e4d2")  # the knight takes the dropped pawn
    assert b.dropped_pawns == chess.BB_EMPTY


# -- dropped rooks and castling ----------------------------------------------------


def test_a_dropped_corner_rook_does_not_castle_by_default() -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/R3K3[R] w Q - 0 1")
    play(b, "R@h1", "e8d8")
    assert [m.uci() for m in b.legal_moves if b.is_castling(m)] == ["e1c1"]


def test_dropped_rook_castles_on_when_the_king_never_moved() -> None:
    b = board("4k3/8/8/8/8/8/8/R3K3[R] w Q - 0 1", dropped_rook_castles=True)
    play(b, "R@h1", "e8d8")
    assert sorted(m.uci() for m in b.legal_moves if b.is_castling(m)) == ["e1c1", "e1g1"]
    assert b.fen() == "3k4/8/8/8/8/8/8/R3K2R[] w KQ - 2 2"
    play(b, "e1g1")
    assert b.fen() == "3k4/8/8/8/8/8/8/R4RK1[] b - - 3 2"


def test_dropped_rook_castles_only_from_a_corner() -> None:
    b = board("4k3/8/8/8/8/8/8/4K2R[R] w K - 0 1", dropped_rook_castles=True)
    play(b, "R@b1", "e8d8")
    assert [m.uci() for m in b.legal_moves if b.is_castling(m)] == ["e1g1"]
    assert b.fen() == "3k4/8/8/8/8/8/8/1R2K2R[] w K - 2 2"


def test_dropped_rook_castles_for_black_on_the_a_file() -> None:
    b = board("4k2r/8/8/8/8/8/8/4K3[r] b k - 0 1", dropped_rook_castles=True)
    play(b, "R@a8", "e1d1")
    assert sorted(m.uci() for m in b.legal_moves if b.is_castling(m)) == ["e8c8", "e8g8"]


def test_dropped_rook_castles_not_after_the_king_moved_and_came_back() -> None:
    b = board("4k3/8/8/8/8/8/8/R3K3[R] w Q - 0 1", dropped_rook_castles=True)
    play(b, "e1f1", "e8d8", "f1e1", "d8e8", "R@h1", "e8d8")
    assert not any(b.is_castling(m) for m in b.legal_moves)


@pytest.mark.parametrize("castles", [False, True])
def test_dropped_rook_castles_after_the_original_rook_was_taken_in_place(castles: bool) -> None:
    # The h1 rook is captured where it stands (the right is gone), the bishop that
    # recaptured leaves, and a rook is dropped on h1; the king never moved.
    b = board("4k2r/8/8/8/8/5B2/8/R3K2R[R] b KQ - 0 1", dropped_rook_castles=castles)
    play(b, "h8h1", "f3h1", "e8d8", "h1f3", "d8e8")
    assert not b.castling_rights & chess.BB_H1
    play(b, "R@h1", "e8d8")
    assert ("e1g1" in legal(b)) is castles
    assert "e1c1" in legal(b)


def test_king_moves_recorded_only_from_what_a_fen_says() -> None:
    # No castling right in the FEN: the king counts as moved, a dropped rook never castles.
    b = board("4k3/8/8/8/8/8/8/4K3[R] w - - 0 1", dropped_rook_castles=True)
    play(b, "R@h1", "e8d8")
    assert not any(b.is_castling(m) for m in b.legal_moves)


# -- drop_check ------------------------------------------------------------------


QUEEN_IN_HAND = "7k/8/6K1/8/8/8/8/8[Q] w - - 0 1"


def drops(b: BughouseBoard) -> set[str]:
    return {m.uci() for m in b.legal_moves if m.drop}


def test_drop_check_allowed_lets_drops_check_and_mate() -> None:
    b = BughouseBoard(QUEEN_IN_HAND)
    assert {"Q@g7", "Q@h7", "Q@a8", "Q@a1"} <= drops(b)


def test_drop_check_no_check_forbids_every_checking_drop() -> None:
    b = board(QUEEN_IN_HAND, drop_check="no-check")
    checking = {
        m.uci()
        for m in BughouseBoard(QUEEN_IN_HAND).legal_moves
        if m.drop and BughouseBoard(QUEEN_IN_HAND).gives_check(m)
    }
    assert checking >= {"Q@g7", "Q@h7", "Q@a8", "Q@a1", "Q@g8"}
    assert (
        drops(b) == {m.uci() for m in BughouseBoard(QUEEN_IN_HAND).legal_moves if m.drop} - checking
    )
    assert not b.is_legal(chess.Move.from_uci("Q@a1"))
    with pytest.raises(MoveError):
        b.parse_move("Q@a1")
    assert "Q@b1" in drops(b)
    assert b.is_legal(chess.Move.from_uci("Q@b1"))


def test_drop_check_no_mate_forbids_only_mating_drops() -> None:
    b = board(QUEEN_IN_HAND, drop_check="no-mate")
    got = drops(b)
    assert "Q@g7" not in got and "Q@h7" not in got  # contact mates
    assert {"Q@a8", "Q@f8", "Q@g8", "Q@a1"} <= got  # checks a drop could block, or escapable
    assert len(got) == len(drops(BughouseBoard(QUEEN_IN_HAND))) - 2
    assert drops(b) == got  # judging a drop leaves the board as it was
    assert b.fen() == BughouseBoard(QUEEN_IN_HAND).fen()


def test_a_wait_judged_under_a_drop_rule_leaves_the_pocket_as_it_was() -> None:
    # Whether a drop could block is asked with a full pocket, put back after.
    b = board("7k/8/8/8/8/8/6PP/r6K[p] w - - 0 1", drop_check="no-check")
    assert b.status_of_side_to_move() is BoardStatus.MUST_WAIT
    assert b.fen() == "7k/8/8/8/8/8/6PP/r6K[p] w - - 0 1"
    assert b.pocket_string(chess.WHITE) == "" and b.pocket_string(chess.BLACK) == "p"


def test_drop_check_no_mate_judges_mate_by_the_mate_rule_in_force() -> None:
    # Without wait_for_block a blockable back-rank check with an empty pocket is mate.
    b = board(QUEEN_IN_HAND, drop_check="no-mate", wait_for_block=False)
    got = drops(b)
    assert "Q@a8" not in got and "Q@f8" not in got
    assert "Q@g8" in got and "Q@a1" in got


@pytest.mark.parametrize("wait_for_block", [True, False])
def test_drop_check_no_mate_judges_the_reply_with_every_drop_allowed(wait_for_block: bool) -> None:
    # protocol.md §5: "mate judged ... by the reply moves of the other side with
    # every drop allowed to it". White, in check from b8, blocks with B@b6,
    # which checks d8 through c7; Black's only reply is N@c7, which would mate
    # White (the bishop is pinned on the b-file). Judged with that reply
    # allowed, B@b6 gives no mate and may be dropped. Once it is on the board,
    # N@c7 is the mating drop the rule forbids: Black, in check, has no move,
    # and waits for a piece to block with or (without wait_for_block) is mated.
    fen = "Rr1kb3/N2pp3/8/1K6/8/q7/b7/8[Bn] w - - 0 1"
    b = board(fen, drop_check="no-mate", wait_for_block=wait_for_block)
    assert set(legal(b)) == {"a8b8", "B@b6", "B@b7"}
    b.push(chess.Move.from_uci("B@b6"))
    assert legal(b) == []
    assert not b.is_legal(chess.Move.from_uci("N@c7"))
    expected = BoardStatus.MUST_WAIT if wait_for_block else BoardStatus.CHECKMATE
    assert b.status_of_side_to_move() is expected
    allowed = board(fen, drop_check="allowed", wait_for_block=wait_for_block)
    allowed.push(chess.Move.from_uci("B@b6"))
    assert legal(allowed) == ["N@c7"]
    allowed.push(chess.Move.from_uci("N@c7"))
    assert allowed.is_checkmate()


def test_drop_check_applies_to_drops_only() -> None:
    # A board move that gives check stays legal under no-check.
    b = board("7k/8/8/8/8/8/8/R6K[Q] w - - 0 1", drop_check="no-check")
    assert "a1a8" in legal(b)


# -- repetition ------------------------------------------------------------------


def test_repetition_counts_position_and_pockets_only_under_threefold() -> None:
    fen = "4k3/8/8/8/8/8/8/4K1N1[] w - - 0 1"
    shuffle = ("g1f3", "e8d8", "f3g1", "d8e8")
    b = board(fen, repetition="threefold")
    play(b, *shuffle)
    assert not b.is_repetition(3)
    assert b.is_repetition(2)
    play(b, *shuffle)
    assert b.is_repetition(3)
    assert b.is_repetition() and not b.is_repetition(4)  # threefold by default
    off = board(fen)
    play(off, *shuffle, *shuffle)
    assert not off.is_repetition(3)
    assert not off.is_repetition(1)  # not even counted once


def test_repetition_starts_counting_at_the_starting_position() -> None:
    b = board(STARTING_FEN, repetition="threefold")
    play(b, "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8")
    assert b.is_repetition(3)


def test_a_pocket_change_breaks_a_repetition() -> None:
    fen = "4k3/8/8/8/8/8/8/4K1N1[] w - - 0 1"
    b = board(fen, repetition="threefold")
    play(b, "g1f3", "e8d8", "f3g1", "d8e8")
    b.receive(chess.Piece(chess.PAWN, chess.BLACK))
    play(b, "g1f3", "e8d8", "f3g1", "d8e8")
    assert not b.is_repetition(2)


def test_internal_push_pop_does_not_count_as_a_repetition() -> None:
    b = board("4k3/8/8/8/8/8/8/4K1N1[] w - - 0 1", repetition="threefold")
    for move in list(b.legal_moves):
        b.san(move)
        b.gives_check(move)
    assert not b.is_repetition(2)


# -- parse_move ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "uci"),
    [
        ("g1f3", "g1f3"),
        ("Nf3", "g1f3"),
        ("e4", "e2e4"),
        ("  e2e4 ", "e2e4"),
        ("E2E4", "e2e4"),
        ("e2-e4", "e2e4"),
        ("g1F3", "g1f3"),  # a lower-case first letter: UCI in any case
    ],
)
def test_parse_move_reads_uci_and_san(text: str, uci: str) -> None:
    assert BughouseBoard(STARTING_FEN).parse_move(text).uci() == uci


@pytest.mark.parametrize("text", ["N@e4", "n@e4", "N@E4", "N@e4+", "n@e4+", "n@e4#!?"])
def test_parse_move_reads_drops_in_any_case(text: str) -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3[NP] w - - 0 1")
    assert b.parse_move(text) == chess.Move(chess.E4, chess.E4, drop=chess.KNIGHT)


@pytest.mark.parametrize("text", ["@e4", "@E4", "P@e4", "p@e4"])
def test_parse_move_reads_pawn_drops(text: str) -> None:
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K3[NP] w - - 0 1")
    assert b.parse_move(text).uci() == "P@e4"


def test_parse_move_reads_castling_and_promotion() -> None:
    b = BughouseBoard("r3k3/1P6/8/8/8/8/8/R3K2R[] w KQq - 0 1")
    assert b.parse_move("O-O").uci() == "e1g1"
    assert b.parse_move("b7a8q").uci() == "b7a8q"
    assert b.parse_move("b7a8Q").uci() == "b7a8q"
    assert b.parse_move("bxa8=N").uci() == "b7a8n"


@pytest.mark.parametrize(
    ("fen", "text", "message"),
    [
        (STARTING_FEN, "", "^empty move$"),
        (STARTING_FEN, "   ", "^empty move$"),
        (STARTING_FEN, "e2e5", "illegal move"),
        (STARTING_FEN, "Nf6", "illegal move"),
        (STARTING_FEN, "hello", "not a move"),
        (STARTING_FEN, "0000", "null move"),
        (STARTING_FEN, "N@e4", "no knight in the pocket"),
        ("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "P@e8", "illegal move"),
        ("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "K@e4", "no king in the pocket"),
        ("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "X@e4", "not a move"),
        ("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", "P@e4@", "not a move"),
        ("k7/4P3/8/8/8/8/8/4K3[] w - - 0 1", "e7e8", "needs a piece letter"),
        ("4k3/8/8/8/8/8/4p3/K7[] b - - 0 1", "e2e1", "needs a piece letter"),  # black too
        ("1n2k3/1P6/8/8/8/8/8/4K3[] w - - 0 1", "b7b8q", "^b7b8q: illegal move"),  # blocked
        ("4k3/8/8/8/8/8/8/2N1K1N1[] w - - 0 1", "Ne2", "ambiguous"),
    ],
)
def test_parse_move_errors_say_what_is_wrong(fen: str, text: str, message: str) -> None:
    with pytest.raises(MoveError, match=message):
        BughouseBoard(fen).parse_move(text)


# -- copies ----------------------------------------------------------------------


def test_copy_and_root_keep_rules_and_tracked_state() -> None:
    rules = HouseRules(dropped_pawn_double_step=False, repetition="threefold")
    b = BughouseBoard("4k3/8/8/8/8/8/8/4K1N1[P] w - - 0 1", rules=rules)
    play(b, "P@d2", "e8d8", "g1f3", "d8e8", "f3g1", "e8d8", "g1f3", "d8e8", "f3g1")
    copied = b.copy()
    assert copied.rules is rules
    assert copied.dropped_pawns == chess.BB_D2
    assert copied.is_repetition(2) == b.is_repetition(2)
    assert "d2d4" not in legal(copied)
    assert copied.pop() == b.move_stack[-1]
    root = b.root()
    assert root.rules is rules
    assert root.fen() == "4k3/8/8/8/8/8/8/4K1N1[P] w - - 0 1"
    assert root.dropped_pawns == chess.BB_EMPTY
    mirrored = b.mirror()
    assert mirrored.dropped_pawns == chess.BB_D7
    assert mirrored.rules is rules


def test_copies_keep_the_passed_piece_king_moves_and_as_much_history_as_asked() -> None:
    rules = HouseRules(dropped_rook_castles=True, drop_check="no-check")
    start = "r3k3/8/8/8/8/4p3/8/R3K3[R] w Qq - 0 1"
    b = BughouseBoard(start, rules=rules)
    fresh = b.copy()
    assert "R@e4" not in legal(fresh)  # a copy judges drops by the rule too
    assert b.kings_moved == 0
    play(b, "e1e2", "a8b8", "e2e3")  # the king walks, then takes a pawn
    assert (b.kings_moved, b.last_passed) == (1, chess.Piece(chess.PAWN, chess.BLACK))
    copied = b.copy()
    assert (copied.kings_moved, copied.last_passed) == (1, b.last_passed)
    for _ in range(3):  # the whole history comes along
        copied.pop()
    assert (copied.fen(), copied.kings_moved) == (start, 0)
    # A copy with one move of history roots at the position before that move.
    before = b.copy()
    before.pop()
    root = b.copy(stack=1).root()
    assert (root.fen(), root.kings_moved) == (before.fen(), 1)
    bare = b.copy(stack=False)
    with pytest.raises(IndexError):
        bare.pop()
    play(bare, "b8b1")  # history starts again from the copy
    assert bare.pop() == chess.Move.from_uci("b8b1")


@pytest.mark.parametrize(
    ("fen", "moved", "mirrored"),
    [
        ("r3k3/8/8/8/8/8/8/4K3[] w q - 0 1", 1, 2),
        ("4k3/8/8/8/8/8/8/R3K3[] w Q - 0 1", 2, 1),
        ("r3k3/8/8/8/8/8/8/R3K3[] w Qq - 0 1", 0, 0),
        ("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", 3, 3),
    ],
)
def test_a_mirror_swaps_which_kings_moved(fen: str, moved: int, mirrored: int) -> None:
    b = BughouseBoard(fen)
    assert (b.kings_moved, b.mirror().kings_moved) == (moved, mirrored)


def test_a_mirror_counts_repetitions_from_its_own_position() -> None:
    b = board("4k1n1/8/8/8/8/8/8/4K1N1[] w - - 0 1", repetition="threefold")
    play(b, "g1f3", "g8f6", "f3g1", "f6g8")
    mirrored = b.mirror()  # the same men, Black to move
    cycle = ("g8f6", "g1f3", "f6g8", "f3g1")
    play(mirrored, *cycle)
    assert mirrored.is_repetition(2) and not mirrored.is_repetition(3)
    play(mirrored, *cycle)
    assert mirrored.is_repetition(3)


def test_pop_restores_the_tracked_state() -> None:
    b = board("4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", dropped_pawn_double_step=False)
    play(b, "P@d2")
    assert b.dropped_pawns == chess.BB_D2
    b.pop()
    assert b.dropped_pawns == chess.BB_EMPTY
    assert b.fen() == "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1"
    capture = BughouseBoard("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1")
    play(capture, "e4d5")
    assert capture.last_passed is not None
    capture.pop()
    assert capture.last_passed is None


@pytest.mark.parametrize(
    "rules",
    [{}, {"repetition": "threefold"}, {"dropped_pawn_double_step": False}],
    ids=["default", "history-kept-for-repetition", "history-kept-for-dropped-pawns"],
)
def test_last_passed_is_still_the_last_moves_capture_after_a_look_ahead(
    rules: dict[str, object],
) -> None:
    # python-chess writes a SAN by pushing and popping the move: the capture
    # made before must not be forgotten (whether or not the rules keep a
    # per-move history of their own).
    b = board("4k3/8/8/3p4/4P3/8/8/4K3[] w - - 0 1", **rules)
    play(b, "e4d5")
    assert b.san(chess.Move.from_uci("e8d7")) == "Kd7"
    assert b.last_passed == chess.Piece(chess.PAWN, chess.BLACK)
    play(b, "e8d7", "d5d6")
    b.pop()
    b.pop()
    assert b.last_passed == chess.Piece(chess.PAWN, chess.BLACK)
    copied = b.copy(stack=1)
    copied.pop()
    assert copied.last_passed is None


def test_a_move_taken_back_is_not_counted_for_repetition() -> None:
    b = board("4k3/8/8/8/8/8/8/4K1N1[] w - - 0 1", repetition="threefold")
    play(b, "g1f3")
    b.pop()
    play(b, "g1f3")
    assert b.is_repetition(1) and not b.is_repetition(2)


def test_a_board_keeps_few_enough_attributes_for_cpython_to_share_their_keys() -> None:
    # Past 30 instance attributes CPython 3.11 stops sharing dict keys and
    # every attribute read in python-chess's move generation gets slower
    # (bench/rules.py showed 1.11x-1.15x instead of 1.03x).
    for rules in (HouseRules(), HouseRules(repetition="threefold", drop_check="no-mate")):
        b = BughouseBoard(STARTING_FEN, rules=rules)
        play(b, "e2e4", "d7d5", "e4d5")
        assert len(vars(b)) <= 30
        assert len(vars(b.copy())) <= 30


@settings(max_examples=30, deadline=None)
@given(bughouse_fens(min_plies=10, max_plies=120))
def test_every_legal_move_reads_back_from_its_uci_and_its_san(fen: str) -> None:
    b = BughouseBoard(fen)
    assert BughouseBoard(b.fen()).fen() == fen
    for move in b.legal_moves:
        assert b.parse_move(move.uci()) == move
        assert b.parse_move(b.san(move)) == move


def test_rank_disambiguated_san_is_not_read_as_uci() -> None:
    # Two bishops can reach d7; "B8d7" names the one on rank 8, while "b8d7"
    # in UCI would be the knight-less square b8 moving to d7.
    board = BughouseBoard("kB6/8/8/8/8/8/6B1/K7[] w - - 0 1")
    assert board.parse_move("B8d6").uci() == "b8d6"
    board = BughouseBoard("k7/8/8/8/8/8/8/KB1B4[] w - - 0 1")
    assert board.parse_move("Bbc2").uci() == "b1c2"
    board = BughouseBoard("k1B5/8/8/8/8/8/8/K1B5[] w - - 0 1")
    assert board.parse_move("B8d7").uci() == "c8d7"
    assert board.parse_move("B1d2").uci() == "c1d2"
    assert board.parse_move("C1D2").uci() == "c1d2"


def test_promotion_hint_only_for_the_side_to_move() -> None:
    board = BughouseBoard("k7/4P3/8/8/8/8/4p3/K7[] w - - 0 1")
    with pytest.raises(MoveError, match="promotion needs a piece letter"):
        board.parse_move("e7e8")
    with pytest.raises(MoveError, match="illegal move"):
        board.parse_move("e2e1")


def test_board_fen_and_fen_are_python_chess_text() -> None:
    """The fast ``board_fen`` and ``fen`` write what python-chess writes (promoted
    marks, pockets, castling rights and en passant squares included)."""
    rng = random.Random(7)
    promotions = 0
    for _ in range(12):
        board = BughouseBoard()
        for _ in range(100):
            moves = list(board.legal_moves)
            if not moves:
                break
            move = rng.choice([m for m in moves if m.promotion] or moves)
            promotions += move.promotion is not None
            board.push(move)
            if rng.random() < 0.3:
                board.receive(chess.Piece(rng.choice(chess.PIECE_TYPES[:5]), rng.random() < 0.5))
            for promoted in (True, False):
                expected = chess.BaseBoard.board_fen(board, promoted=promoted)
                assert board.board_fen(promoted=promoted) == expected
            assert board.board_fen() == chess.BaseBoard.board_fen(board, promoted=True)
            assert board.fen() == chess.variant.CrazyhouseBoard.fen(board)
            assert BughouseBoard(board.fen()).fen() == board.fen()
    assert promotions > 5  # the promoted marks were exercised


def test_board_fen_keeps_a_bounded_store_of_rank_texts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``board_fen`` remembers rank texts up to its limit, then starts afresh; the
    text stays python-chess's either way; a rank's text is made once; and a stray
    promoted bit on an empty square marks nothing."""
    monkeypatch.setattr(board_module, "_RANK_TEXTS", {})
    monkeypatch.setattr(board_module, "_RANK_TEXTS_KEPT", 10)
    rng = random.Random(3)
    board = BughouseBoard()
    sizes = []
    for _ in range(60):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        assert board.board_fen() == chess.BaseBoard.board_fen(board, promoted=True)
        sizes.append(len(board_module._RANK_TEXTS))
    assert max(sizes) == 10 and min(sizes[10:]) < 10  # filled up, then cleared
    made = []
    monkeypatch.setattr(board_module, "_RANK_TEXTS", {})
    monkeypatch.setattr(
        board_module, "_rank_text", lambda rank: made.append(rank) or _rank_text(rank)
    )
    for _ in range(2):
        assert BughouseBoard().board_fen() == chess.STARTING_BOARD_FEN
    assert len(made) == len(set(made)) == 5  # each of the five kinds of rank, once
    board = BughouseBoard("4k3/8/8/8/8/8/8/4K3[] w - - 0 1")
    board.promoted |= chess.BB_E4 | chess.BB_E1
    assert board.board_fen() == "4k3/8/8/8/8/8/8/4K~3"
    assert board.board_fen(promoted=False) == "4k3/8/8/8/8/8/8/4K3"


def test_fen_castling_letters_with_dropped_back_rank_rooks() -> None:
    """The castling part (remembered per rights, kings and back-rank rooks) is
    python-chess's, file letters included when a dropped rook stands on the
    back rank beside the castling rook."""
    board = BughouseBoard("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[RRRrrr] w KQkq - 0 1")
    for drops in (["R@b1", "r@g8"], ["R@f1", "r@c8"], ["R@g1", "r@b8"]):
        for uci in drops:
            board.push(chess.Move.from_uci(uci))
            assert board.fen() == chess.variant.CrazyhouseBoard.fen(board)
    board = BughouseBoard("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[] w KQkq - 0 1")
    for uci in ("e1f1", "a8b8", "f1e1", "h7h6", "a1b1"):
        board.push(chess.Move.from_uci(uci))
        assert board.fen() == chess.variant.CrazyhouseBoard.fen(board)
    assert board.fen().split()[2] == "k"


@pytest.mark.parametrize(
    "fen",
    [
        "r3k2r/8/8/8/8/8/8/R3K1Q~R[QNPbp] w KQkq - 0 1",  # promoted mark, castling, pockets
        "r3k2r/8/8/8/8/8/8/R3K2R[] b Kq - 3 9",  # Shredder letters differ from KQkq
        "4k3/8/8/8/4P3/8/8/4K3[] b - e3 0 1",  # an en passant square no pawn can use
        "8/8/8/8/k2pP2R/8/8/4K3[] b - e3 0 1",  # ... one a pinned pawn could (pseudo-legal)
        "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2",  # ... and one that is legal
        "4k3/8/8/8/8/8/8/4K3[] w - - 0 1",  # no rights at all
    ],
)
def test_fen_with_any_option_is_python_chess_text(fen: str) -> None:
    """The written-out default FEN leaves every other option to python-chess:
    Shredder castling letters, the three en passant policies and the promoted
    marks give exactly python-chess's text, for positions and walked games."""
    fens = [fen, *crazyhouse_walk(3, plies=60)[::6]]
    for each in fens:
        ours = BughouseBoard(each)
        theirs = chess.variant.CrazyhouseBoard(each)
        policies: tuple[chess.EnPassantSpec, ...] = ("legal", "fen", "xfen")
        for shredder in (False, True):
            for en_passant in policies:
                for promoted in (None, False, True):
                    got = ours.fen(shredder=shredder, en_passant=en_passant, promoted=promoted)
                    want = theirs.fen(shredder=shredder, en_passant=en_passant, promoted=promoted)
                    assert got == want, (each, shredder, en_passant, promoted)
        assert ours.fen() == theirs.fen()


def test_chess960_castling_letters_are_python_chess_s_whatever_the_cache_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The remembered castling part is keyed by everything it depends on: two
    Chess960 positions that differ only in whether the piece beside the
    castling rook is another rook ("B" / "g") or not ("Q" / "k") get their own
    letters, from an empty cache and with the cache cut back when full."""
    monkeypatch.setattr(board_module, "_CASTLING_TEXTS", {})
    monkeypatch.setattr(board_module, "_CASTLING_TEXTS_KEPT", 3)
    cases = [
        ("4k3/8/8/8/8/8/8/RRK5[] w B - 0 1", "B"),
        ("4k3/8/8/8/8/8/8/NRK5[] w B - 0 1", "Q"),
        ("5krr/8/8/8/8/8/8/4K3[] b g - 0 1", "g"),
        ("5krn/8/8/8/8/8/8/4K3[] b g - 0 1", "k"),
        ("4k3/8/8/8/8/8/8/RRK5[] w B - 0 1", "B"),
    ]
    for fen, castling in cases:
        board = BughouseBoard(fen, chess960=True)
        assert board.chess960
        assert board.fen().split()[2] == castling
        assert board.fen() == chess.variant.CrazyhouseBoard(fen, chess960=True).fen()
        assert len(board_module._CASTLING_TEXTS) <= 3


class _CountingPocket(chess.variant.CrazyhousePocket):
    """A pocket kept as a dict of counts: python-chess's public pocket API
    without its private list, as another python-chess release might have."""

    def __init__(self, symbols: str = "") -> None:
        self.counts: dict[chess.PieceType, int] = {}
        for symbol in symbols:
            self.add(chess.PIECE_SYMBOLS.index(symbol.lower()))

    def add(self, piece_type: chess.PieceType) -> None:
        self.counts[piece_type] = self.counts.get(piece_type, 0) + 1

    def remove(self, piece_type: chess.PieceType) -> None:
        self.counts[piece_type] -= 1

    def count(self, piece_type: chess.PieceType) -> int:
        return self.counts.get(piece_type, 0)

    def reset(self) -> None:
        self.counts = {}


def test_pocket_string_reads_a_pocket_by_its_public_api_when_the_layout_differs() -> None:
    board = BughouseBoard("4k3/8/8/8/8/8/8/4K3[] w - - 0 1")
    board.pockets[chess.WHITE] = _CountingPocket("pnqp")
    board.pockets[chess.BLACK] = _CountingPocket("rbb")
    assert board.pocket_string(chess.WHITE) == "QNPP"
    assert board.pocket_string(chess.BLACK) == "rbb"
    assert board.fen() == "4k3/8/8/8/8/8/8/4K3[QNPPrbb] w - - 0 1"


def test_pocket_string_writes_any_pocket_as_python_chess_does() -> None:
    """Every piece type in python-chess's order, a king put in by hand (which
    ``receive`` and ``set_fen`` refuse) included: the text shows what is there."""
    board = BughouseBoard("4k3/8/8/8/8/8/8/4K3[] w - - 0 1")
    for piece_type in (chess.KING, *chess.PIECE_TYPES):
        board.pockets[chess.WHITE].add(piece_type)
        board.pockets[chess.BLACK].add(piece_type)
        assert board.pocket_string(chess.WHITE) == str(board.pockets[chess.WHITE]).upper()
        assert board.pocket_string(chess.BLACK) == str(board.pockets[chess.BLACK])
    assert board.pocket_string(chess.WHITE) == "KKQRBNP"
    assert board.pocket_string(chess.BLACK) == "kkqrbnp"


def test_legal_moves_to_one_square_match_python_chess() -> None:
    """``generate_legal_moves`` answers "which of these pieces can go to this
    square" without generating moves when none attacks it: the same moves as
    python-chess's generator, for any masks, and so the same SAN."""
    rng = random.Random(5)
    for rules in (HouseRules(), HouseRules(drop_check="no-check")):
        for _ in range(8):
            board = BughouseBoard(rules=rules)
            for _ in range(80):
                moves = list(board.legal_moves)
                if not moves:
                    break
                own = board.occupied_co[board.turn]
                masks = [own, board.knights & own, board.rooks | board.queens, 0]
                for _ in range(4):
                    to_mask = chess.BB_SQUARES[rng.randrange(64)]
                    from_mask = rng.choice([*masks, rng.getrandbits(64)])
                    reference = chess.variant.CrazyhouseBoard.generate_legal_moves
                    expected = list(reference(board, from_mask, to_mask))
                    assert list(board.generate_legal_moves(from_mask, to_mask)) == expected
                board.push(rng.choice(moves))
                if rng.random() < 0.4:
                    piece = chess.Piece(rng.choice(chess.PIECE_TYPES[:5]), rng.random() < 0.5)
                    board.receive(piece)


@pytest.mark.parametrize("seed", range(3))
def test_legal_moves_for_any_pair_of_masks_match_python_chess(seed: int) -> None:
    """Not only one target square: origins of one piece kind to a rank, a file
    or the whole board, and a square as both origin and target (its drops),
    give python-chess's moves too."""
    reference = chess.variant.CrazyhouseBoard.generate_legal_moves
    checked = 0
    for fen in crazyhouse_walk(seed)[::7]:
        board = BughouseBoard(fen)
        own = board.occupied_co[board.turn]
        origins = [
            chess.BB_ALL,
            own & ~board.pawns & ~board.kings,
            *(
                board.pieces_mask(kind, board.turn)
                for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
            ),
        ]
        targets = [chess.BB_ALL, chess.BB_RANK_1, chess.BB_RANK_4, chess.BB_RANK_8, chess.BB_FILE_A]
        for to_mask in targets:
            for from_mask in origins:
                expected = list(reference(board, from_mask, to_mask))
                assert list(board.generate_legal_moves(from_mask, to_mask)) == expected
        for square in chess.SQUARES:
            to_mask = chess.BB_SQUARES[square]
            for from_mask in (to_mask, *origins):
                expected = list(reference(board, from_mask, to_mask))
                assert list(board.generate_legal_moves(from_mask, to_mask)) == expected
                checked += bool(expected)
    assert checked > 100


def test_clear_stack_keeps_no_per_move_history() -> None:
    """A replay drops the history every few hundred moves: nothing per move may outlive it."""
    board = BughouseBoard(rules=HouseRules(dropped_pawn_double_step=False))
    for uci in ("e2e4", "d7d5", "e4d5", "d8d5"):
        board.push(chess.Move.from_uci(uci))
    board.clear_stack()
    assert board.move_stack == []
    assert board._passed_stack == [] and board._bughouse_stack == []
    # The last move's capture stays to be passed on.
    assert board.last_passed == chess.Piece(chess.PAWN, chess.WHITE)
