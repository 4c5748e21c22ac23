"""The tournament schedule: opening pairs with teams swapped, seats rotated fairly."""

from __future__ import annotations

from collections import Counter

import pytest

from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import SEATS, BoardId, Seat, Team
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import ConfigError
from bughouse_arbiter.tournament.openings import Opening, load_book, parse_fen_pairs
from bughouse_arbiter.tournament.schedule import Participant, pairings, schedule

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


def plain(name: str, spec: str = "random") -> Participant:
    s = engine_spec(spec)
    return Participant(name=name, members=(s, s), member_names=(name, name))


OPENINGS = [Opening(name=f"o{i}", fen_a=START, fen_b=START) for i in range(3)]


def test_formats() -> None:
    four = [plain(n) for n in "abcd"]
    assert pairings(four, "gauntlet") == [(0, 1), (0, 2), (0, 3)]
    assert len(pairings(four, "round-robin")) == 6


def test_each_opening_is_a_pair_with_the_teams_swapped() -> None:
    jobs = schedule(
        [plain("a"), plain("b")], format="gauntlet", games=6, rules=HouseRules(), openings=OPENINGS
    )
    assert [j.job_id for j in jobs] == [f"p0-g{g}" for g in range(6)]
    assert [j.number for j in jobs] == [1, 2, 3, 4, 5, 6]
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert first.opening == second.opening
        assert first.sides[Team.ONE] == second.sides[Team.TWO]
        assert first.sides[Team.TWO] == second.sides[Team.ONE]
    assert [j.opening.name for j in jobs if j.opening] == ["o0", "o0", "o1", "o1", "o2", "o2"]


def test_seats_rotate_so_each_side_plays_every_seat_equally() -> None:
    mixed = Participant(
        name="mix",
        members=(engine_spec("random"), engine_spec("searcher")),
        member_names=("random", "searcher"),
    )
    jobs = schedule(
        [mixed, plain("b")], format="gauntlet", games=8, rules=HouseRules(), openings=OPENINGS
    )
    seats: Counter[tuple[str, str, object]] = Counter()
    for job in jobs:
        held = [seat for e in job.entrants for seat in e.seats]
        assert sorted(held, key=SEATS.index) == list(SEATS)  # each seat exactly once
        for entrant in job.entrants:
            assert entrant.participant == job.sides[entrant.seats[0].team]
            seats[(entrant.participant, entrant.engine, entrant.seats[0])] += 1
    # Every member of each side sat at every seat twice in eight games.
    for engine in ("random", "searcher"):
        assert all(seats[("mix", engine, seat)] == 2 for seat in SEATS)
    assert all(seats[("b", "b", seat)] == 4 for seat in SEATS)


def test_team_mode_holds_both_seats_of_a_team() -> None:
    spec = engine_spec("searcher")
    team = Participant(name="t", members=(spec, spec), member_names=("t", "t"), team_mode=True)
    jobs = schedule(
        [team, plain("b")], format="gauntlet", games=4, rules=HouseRules(), openings=OPENINGS
    )
    for job in jobs:
        [held] = [e for e in job.entrants if e.participant == "t"]
        assert held.team_mode and held.seats[0].team is held.seats[1].team
        assert job.sides[held.seats[0].team] == "t"


def test_round_robin_interleaves_pairings_pair_by_pair() -> None:
    jobs = schedule(
        [plain(n) for n in "abc"],
        format="round-robin",
        games=4,
        rules=HouseRules(),
        openings=OPENINGS,
        seed=7,
    )
    assert [j.pairing for j in jobs] == [0, 0, 1, 1, 2, 2] * 2
    assert len({j.job_id for j in jobs}) == len(jobs) == 12
    assert len({j.seed for j in jobs}) == 12


def test_fen_pair_file_and_errors() -> None:
    book = parse_fen_pairs(f"# comment\n\n{START} | {START}\nnamed | {START} | {START}\n")
    assert [o.name for o in book] == ["openings:3", "named"]
    with pytest.raises(ConfigError, match="line 1"):
        parse_fen_pairs("just one field")
    with pytest.raises(ConfigError, match="line 1: not a bughouse position"):
        parse_fen_pairs("xx | yy")


def test_default_book_is_shipped_and_valid() -> None:
    book = load_book(None)
    assert len(book) >= 50
    ends = {(g.fen(BoardId.A), g.fen(BoardId.B)) for g in (o.game() for o in book)}
    assert len(ends) == len(book)
    # Move sequences from the standard start, which every engine can be told as moves.
    assert all(o.moves and not o.set_up for o in book)


def test_bpgn_openings_take_the_first_plies_of_both_boards(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "book.bpgn"
    path.write_text(
        '[Event "x"]\n[Result "*"]\n\n1A. e4 {1} 1a. e5 {1} 1B. d4 {1} 1b. d5 {1} '
        "2A. Nf3 {1} 2a. Nc6 {1} *\n"
    )
    [opening] = load_book(str(path), plies=4)
    game = opening.game()
    assert game.fen(BoardId.A).startswith("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR")
    assert game.fen(BoardId.B).startswith("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR")
    assert [seat for seat, _ in opening.moves] == [
        Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE, Seat.B_BLACK
    ]
    with pytest.raises(ConfigError, match="no BPGN game with 40 replayable plies"):
        load_book(str(path), plies=40)
