"""How a file says its game ended: our tags, closing comments, other writers' tags."""

from __future__ import annotations

import pytest

from bughouse_arbiter import BoardId, Seat, Termination
from bughouse_arbiter.bpgn.claims import Claim, claim_of, recorded_outcome, seats_named
from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.core.model import Outcome, Team

PLAYERS = '[WhiteA "alice"]\n[BlackA "bob"]\n[WhiteB "carol"]\n[BlackB "dan"]\n'


def _game(tags: str = "", closing: str = "", result: str = "*") -> BpgnGame:
    text = '[Event "t"]\n' + PLAYERS + tags + "\n1A. e4 " + closing + f" {result}\n"
    (game,) = read_games(text)
    return game


def _ours(kind: str, reason: str, result: str, seat: str = "", board: str = "") -> BpgnGame:
    tags = f'[Result "{result}"]\n[Termination "{kind}"]\n'
    if board:
        tags += f'[TerminationBoard "{board}"]\n'
    if seat:
        tags += f'[TerminationSeat "{seat}"]\n'
    return _game(tags + f'[TerminationReason "{reason}"]\n', result=result)


# -- our own tags ----------------------------------------------------------------


def test_our_tags_name_the_termination_seat_and_board() -> None:
    game = _ours("resignation", "B-Black resigned", "1-0", seat="BB", board="B")
    assert claim_of(game) == Claim(
        text="B-Black resigned",
        termination=Termination.RESIGNATION,
        seat=Seat.B_BLACK,
        board=BoardId.B,
        draw=False,
    )


def test_our_tags_of_a_draw_claim_a_draw_without_a_seat() -> None:
    game = _ours("agreement", "draw agreed", "1/2-1/2")
    assert claim_of(game) == Claim(
        text="draw agreed", termination=Termination.AGREEMENT, seat=None, board=None, draw=True
    )


def test_our_tags_with_an_unknown_board_or_seat_leave_them_unnamed() -> None:
    game = _ours("flag", "time", "0-1", seat="ZZ", board="C")
    assert claim_of(game) == Claim(text="time", termination=Termination.FLAG)


def test_an_unknown_termination_tag_falls_back_to_the_closing_comment() -> None:
    tags = '[Termination "normal"]\n[TerminationReason "x"]\n'
    game = _game(tags, closing="{bob resigns}", result="1-0")
    claim = claim_of(game)
    assert claim is not None
    assert (claim.termination, claim.seat, claim.text) == (
        Termination.RESIGNATION,
        Seat.A_BLACK,
        "bob resigns",
    )


def test_a_termination_reason_without_a_termination_is_not_ours() -> None:
    game = _game('[TerminationReason "A-White resigned"]\n')
    assert claim_of(game) is None
    assert recorded_outcome(game) is None


def test_a_termination_without_a_reason_is_not_ours() -> None:
    game = _game('[Termination "checkmate"]\n[Result "1-0"]\n', closing="{bob resigns}")
    assert recorded_outcome(game) is None
    claim = claim_of(game)
    assert claim is not None
    assert (claim.text, claim.termination) == ("bob resigns", Termination.RESIGNATION)


def test_recorded_outcome_is_the_outcome_our_tags_wrote() -> None:
    game = _ours("checkmate", "A-Black checkmated", "1-0", seat="BA", board="A")
    assert recorded_outcome(game) == Outcome(
        termination=Termination.CHECKMATE,
        winner=Team.ONE,
        reason="A-Black checkmated",
        board=BoardId.A,
        seat=Seat.A_BLACK,
    )


def test_recorded_outcome_of_board_b_and_of_a_draw() -> None:
    mate_b = _ours("checkmate", "B-White checkmated", "1-0", seat="WB", board="B")
    assert recorded_outcome(mate_b) == Outcome(
        termination=Termination.CHECKMATE,
        winner=Team.ONE,
        reason="B-White checkmated",
        board=BoardId.B,
        seat=Seat.B_WHITE,
    )
    drawn = recorded_outcome(_ours("agreement", "agreed", "1/2-1/2"))
    assert drawn == Outcome(termination=Termination.AGREEMENT, winner=None, reason="agreed")


def test_recorded_outcome_of_an_abort_is_aborted() -> None:
    outcome = recorded_outcome(_ours("aborted", "stopped by Ctrl+C", "*"))
    assert outcome is not None and outcome.aborted and outcome.result.value == "*"
    resigned = recorded_outcome(_ours("resignation", "r", "0-1", seat="WA"))
    assert resigned is not None and not resigned.aborted


@pytest.mark.parametrize(("kind", "result"), [("checkmate", "2-0"), ("normal", "1-0")])
def test_recorded_outcome_refuses_what_our_writer_cannot_have_written(
    kind: str, result: str
) -> None:
    game = _game(f'[Termination "{kind}"]\n[TerminationReason "r"]\n[Result "{result}"]\n')
    assert recorded_outcome(game) is None


def test_recorded_outcome_without_a_result_tag_is_unfinished() -> None:
    outcome = recorded_outcome(_game('[Termination "checkmate"]\n[TerminationReason "r"]\n'))
    assert outcome is not None and outcome.winner is None


# -- closing comments and other writers ------------------------------------------


@pytest.mark.parametrize(
    ("closing", "termination", "seat", "draw"),
    [
        ("{WA checkmated}", Termination.CHECKMATE, Seat.A_WHITE, False),
        ("{bob resigns}", Termination.RESIGNATION, Seat.A_BLACK, False),
        ("{Carol resign}", Termination.RESIGNATION, Seat.B_WHITE, False),
        ("{dan forfeits on time}", Termination.FLAG, Seat.B_BLACK, False),
        ("{Player a ran out of time}", Termination.FLAG, Seat.A_BLACK, False),
        ("{alice forfeits by disconnection}", Termination.LEFT, Seat.A_WHITE, False),
        ("{player B disconnected}", Termination.LEFT, Seat.B_WHITE, False),
        ("{Game aborted by the server}", Termination.ABORTED, None, False),
        ("{Game drawn by repetition}", Termination.REPETITION, None, True),
        ("{Game drawn by mutual agreement}", Termination.AGREEMENT, None, True),
        ("{draw by agreement}", Termination.AGREEMENT, None, True),
        ("{Game drawn}", None, None, True),
        ("{alice won by checkmate}", Termination.CHECKMATE, Seat.A_BLACK, False),
    ],
)
def test_a_closing_comment_says_how_the_game_ended(
    closing: str, termination: Termination | None, seat: Seat | None, draw: bool
) -> None:
    claim = claim_of(_game(closing=closing))
    assert claim == Claim(
        text=closing[1:-1],
        termination=termination,
        seat=seat,
        board=seat.board if seat else None,
        draw=draw,
    )


def test_a_comment_that_says_nothing_of_the_end_is_no_claim() -> None:
    assert claim_of(_game(closing="{well played}")) is None
    assert claim_of(_game()) is None


def test_a_handle_at_two_seats_names_no_single_seat() -> None:
    game = _game('[WhiteTeam "sharks"]\n', closing="{sharks resign}")
    claim = claim_of(game)
    assert claim == Claim(text="sharks resign", termination=Termination.RESIGNATION)


def test_the_closing_comment_comes_before_result_comment_and_termination_tags() -> None:
    tags = '[ResultComment "carol resigns"]\n[Termination "dan forfeits on time"]\n'
    claim = claim_of(_game(tags, closing="{bob resigns}"))
    assert claim is not None and claim.seat is Seat.A_BLACK
    claim = claim_of(_game(tags))
    assert claim is not None and claim.seat is Seat.B_WHITE
    claim = claim_of(_game('[Termination "dan forfeits on time"]\n'))
    assert claim is not None and (claim.seat, claim.termination) == (
        Seat.B_BLACK,
        Termination.FLAG,
    )


@pytest.mark.parametrize(
    ("comment", "termination", "seat"),
    [
        ("on board b [0-1]: white ran out of time.", Termination.FLAG, Seat.B_WHITE),
        ("on board A [1-0]: Black checkmated", Termination.CHECKMATE, Seat.A_BLACK),
        (
            "Game over on board a [0-1]: white on board a resigns",
            Termination.RESIGNATION,
            Seat.A_WHITE,
        ),
        ("on board b [1-0]: black disconnected", Termination.LEFT, Seat.B_BLACK),
    ],
)
def test_tiny_chess_server_result_comments_name_board_and_colour(
    comment: str, termination: Termination, seat: Seat
) -> None:
    claim = claim_of(_game(f'[ResultComment "{comment}"]\n'))
    assert claim == Claim(
        text=comment, termination=termination, seat=seat, board=seat.board, draw=False
    )


def test_a_tiny_chess_server_comment_of_nothing_known_reads_as_plain_text() -> None:
    claim = claim_of(_game('[ResultComment "on board a [0-1]: white was abducted"]\n'))
    assert claim is None


# -- who a claim names --------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "seats"),
    [
        ("Player a", [Seat.A_BLACK]),
        ("player A", [Seat.A_WHITE]),
        ("player b", [Seat.B_BLACK]),
        ("player B", [Seat.B_WHITE]),
        ("player c", []),
        ("WB", [Seat.B_WHITE]),
        (" A-black ", [Seat.A_BLACK]),
        ("CAROL", [Seat.B_WHITE]),
        ("sharks", [Seat.A_WHITE, Seat.B_BLACK]),
        ("Jets", [Seat.A_BLACK, Seat.B_WHITE]),
        ("nobody", []),
    ],
)
def test_a_claim_names_seats_by_letter_seat_handle_or_team(who: str, seats: list[Seat]) -> None:
    game = _game('[WhiteTeam "sharks"]\n[BlackTeam "jets"]\n')
    assert seats_named(game, who) == seats


def test_a_handle_shared_by_two_seats_names_both() -> None:
    (game,) = read_games('[WhiteA "x"]\n[BlackB "X"]\n1A. e4 *\n')
    assert seats_named(game, "x") == [Seat.A_WHITE, Seat.B_BLACK]


def test_a_seat_without_a_name_tag_is_named_by_no_handle() -> None:
    (game,) = read_games('[WhiteA "alice"]\n1A. e4 *\n')
    assert seats_named(game, "xxxx") == []
    assert seats_named(game, "alice") == [Seat.A_WHITE]


def test_a_tiny_chess_server_draw_claims_a_draw() -> None:
    comment = "on board a [1/2-1/2]: white drawn by repetition"
    claim = claim_of(_game(f'[ResultComment "{comment}"]\n'))
    assert claim == Claim(
        text=comment,
        termination=Termination.REPETITION,
        seat=Seat.A_WHITE,
        board=BoardId.A,
        draw=True,
    )


def test_our_tags_name_board_a() -> None:
    claim = claim_of(_ours("checkmate", "A-Black checkmated", "1-0", seat="BA", board="A"))
    assert claim is not None and (claim.seat, claim.board) == (Seat.A_BLACK, BoardId.A)
