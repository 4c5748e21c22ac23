"""Boards, seats, teams, results and outcomes."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from bughouse_arbiter.core.model import (
    SEATS,
    BoardId,
    Outcome,
    Result,
    Seat,
    Team,
    Termination,
)


def test_four_seats_two_boards_two_colours() -> None:
    assert SEATS == (Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE, Seat.B_BLACK)
    assert {(seat.board, seat.color) for seat in SEATS} == {
        (board, color) for board in BoardId for color in chess.COLORS
    }
    for seat in SEATS:
        assert Seat.of(seat.board, seat.color) is seat


def test_teams_are_a_white_with_b_black_and_a_black_with_b_white() -> None:
    assert Team.ONE.seats == (Seat.A_WHITE, Seat.B_BLACK)
    assert Team.TWO.seats == (Seat.A_BLACK, Seat.B_WHITE)
    for team in Team:
        assert team.other.other is team
        for seat in team.seats:
            assert seat.team is team


@pytest.mark.parametrize("seat", list(Seat))
def test_partners_sit_at_the_other_board_with_the_other_colour(seat: Seat) -> None:
    partner = seat.partner
    assert partner.board is seat.board.other
    assert partner.color != seat.color
    assert partner.team is seat.team
    assert partner.partner is seat
    opponent = seat.opponent
    assert opponent.board is seat.board and opponent.team is not seat.team
    assert opponent.opponent is seat


@pytest.mark.parametrize(
    ("seat", "bpgn", "slug", "text"),
    [
        (Seat.A_WHITE, "WA", "a-white", "A-White"),
        (Seat.A_BLACK, "BA", "a-black", "A-Black"),
        (Seat.B_WHITE, "WB", "b-white", "B-White"),
        (Seat.B_BLACK, "BB", "b-black", "B-Black"),
    ],
)
def test_seat_names(seat: Seat, bpgn: str, slug: str, text: str) -> None:
    assert seat.bpgn == bpgn and seat.slug == slug and str(seat) == text
    for alias in (
        bpgn,
        bpgn.lower(),
        slug,
        text,
        slug.upper(),
        slug.replace("-", "_"),
        slug.replace("-", ""),
        slug[0] + slug[2],
        f"  {text} ",
    ):
        assert Seat.parse(alias) is seat, alias


@pytest.mark.parametrize("text", ["", "C-white", "white", "A-red", "WC", "a-white-x"])
def test_unknown_seats_are_refused_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(ValueError, match=r"unknown seat .* \(expected A-white"):
        Seat.parse(text)


def test_board_ids() -> None:
    assert BoardId.A.other is BoardId.B and BoardId.B.other is BoardId.A
    assert BoardId.parse(" b ") is BoardId.B
    with pytest.raises(ValueError, match="unknown board 'C'"):
        BoardId.parse("C")


def test_results_are_written_from_team_ones_view() -> None:
    assert Result.won_by(Team.ONE).value == "1-0"
    assert Result.won_by(Team.TWO).value == "0-1"
    assert Result.won_by(None).value == "1/2-1/2"
    assert Result.TEAM_ONE.winner is Team.ONE and Result.TEAM_TWO.winner is Team.TWO
    assert Result.DRAW.winner is None and Result.UNFINISHED.winner is None


def test_an_outcome_names_result_winner_termination_board_seat_and_reason() -> None:
    outcome = Outcome(
        termination=Termination.FLAG,
        winner=Team.TWO,
        reason="B-Black lost on time",
        board=BoardId.B,
        seat=Seat.B_BLACK,
    )
    assert outcome.result is Result.TEAM_TWO
    assert str(outcome) == "0-1 (B-Black lost on time)"
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.winner = Team.ONE  # type: ignore[misc]
    aborted = Outcome(termination=Termination.ABORTED, winner=None, reason="stopped", aborted=True)
    assert aborted.result is Result.UNFINISHED
    # An aborted termination never reads as a draw, even without the flag.
    unflagged = Outcome(termination=Termination.ABORTED, winner=None, reason="next check")
    assert unflagged.result is Result.UNFINISHED


def test_termination_values_are_the_words_the_json_uses() -> None:
    assert {t.value for t in Termination} >= {
        "checkmate",
        "deadlock",
        "max_plies",
        "resignation",
        "flag",
        "illegal_move",
        "left",
        "agreement",
    }
