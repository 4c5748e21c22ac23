"""protocol.limits at its edges: number ranges, the announcement cap, the tell quota."""

from __future__ import annotations

from bughouse_arbiter.protocol.limits import (
    MAX_ANNOUNCED,
    TELLS_PER_GAME,
    TELLS_PER_TURN,
    TellQuota,
    bounded_int,
    keep_announced,
)


def test_a_number_exactly_at_its_limit_is_kept_on_both_sides() -> None:
    assert bounded_int("100", 100) == 100
    assert bounded_int("-100", 100) == -100
    assert bounded_int("-101", 100) is None
    assert bounded_int("101", 100) is None


def test_announcements_beyond_the_cap_are_dropped_but_known_ones_still_update() -> None:
    kept: dict[str, int] = {}
    for i in range(MAX_ANNOUNCED - 1):
        keep_announced(kept, f"n{i}", i)
    keep_announced(kept, "last", 1)  # the 256th is kept
    assert len(kept) == MAX_ANNOUNCED and kept["last"] == 1
    keep_announced(kept, "one too many", 2)
    assert "one too many" not in kept and len(kept) == MAX_ANNOUNCED
    keep_announced(kept, "n0", 99)  # said again: the new value counts
    assert kept["n0"] == 99


def _passed(quota: TellQuota, tries: int) -> int:
    return sum(quota.allow()[0] for _ in range(tries))


def test_exactly_eight_tells_pass_in_each_turn() -> None:
    quota = TellQuota()
    assert _passed(quota, 20) == TELLS_PER_TURN
    quota.turn_over()
    assert _passed(quota, 20) == TELLS_PER_TURN
    assert quota.in_game == 2 * TELLS_PER_TURN
    assert quota.dropped == 2 * (20 - TELLS_PER_TURN)


def test_the_note_says_which_cap_was_reached() -> None:
    quota = TellQuota(per_turn=8, per_game=10)
    assert [quota.allow() for _ in range(9)][-1] == (
        False,
        "partner messages over the cap (8 per turn, 10 per game) are dropped from now on"
        " (reached: 8 per turn)",
    )
    quota.new_game()
    assert _passed(quota, 8) == 8
    quota.turn_over()
    assert [quota.allow() for _ in range(3)] == [
        (True, None),
        (True, None),
        (
            False,
            "partner messages over the cap (8 per turn, 10 per game) are dropped from now on"
            " (reached: 10 per game)",
        ),
    ]
    assert quota.allow() == (False, None)  # noted once a game
    assert quota.summary() == "2 partner messages were dropped in this game"


def test_the_game_cap_holds_however_the_turns_fall() -> None:
    quota = TellQuota()
    passed = 0
    for _ in range(TELLS_PER_GAME):
        passed += _passed(quota, 3)
        quota.turn_over()
    assert passed == TELLS_PER_GAME
