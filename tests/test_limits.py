"""protocol.limits at its edges: number ranges, the announcement cap, the tell quota."""

from __future__ import annotations

from bughouse_arbiter.protocol.limits import (
    MAX_ANNOUNCED,
    TELLS_PER_GAME,
    TELLS_PER_TURN,
    TellQuota,
    bounded_int,
    engine_text,
    keep_announced,
)


def test_outer_spaces_go_even_from_printable_text() -> None:
    assert engine_text(" a") == "a"
    assert engine_text("ab ") == "ab"
    assert engine_text("  Sjeng 11.2  ") == "Sjeng 11.2"


def test_a_text_of_the_limit_with_a_control_loses_nothing_but_the_control() -> None:
    assert engine_text("a\x07bbbbbbbb", 10) == "a bbbbbbbb"
    assert engine_text("Xenia\x07X", 20) == "Xenia X"


def test_a_cut_is_marked_even_when_only_spaces_were_cut_before_it() -> None:
    # The eleventh character is a space: what is kept fits, but "bbbb" was lost.
    assert engine_text("a" * 10 + " bbbb", 10) == "aaaaaaa..."


def test_the_mark_follows_the_kept_text_without_the_spaces_before_it() -> None:
    assert engine_text("abcdef ghijkl", 10) == "abcdef..."
    assert engine_text("abcdeXXghijkl", 10) == "abcdeXX..."
    assert engine_text(" abcdef ghijkl", 10) == "abcdef..."


def test_only_the_ascii_space_is_stripped_other_unicode_spaces_are_text() -> None:
    # protocol.md §9.1: controls and separators become spaces and outer spaces
    # go; a no-break or ideographic space is neither.
    assert engine_text("\xa0name\x07") == "\xa0name"
    assert engine_text("abcdef\u3000ghijk", 10) == "abcdef\u3000..."


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
