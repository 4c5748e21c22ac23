"""House rules: defaults from docs/rules.md, profiles, parsing, and the header round trip."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("hypothesis")

from hypothesis import given
from strategies import house_rules

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import (
    PROFILES,
    RULE_NAMES,
    HouseRules,
    apply_rules,
    draw_agreement,
    from_pairs,
    parse_rule,
    profile,
    to_pairs,
)
from bughouse_arbiter.errors import RuleError, UsageError


def test_defaults_are_the_default_column_of_rules_md() -> None:
    assert HouseRules().to_pairs() == [
        ("time", "180"),
        ("increment", "0"),
        ("clock", "on"),
        ("wait_for_block", "on"),
        ("stalemate", "wait"),
        ("dropped_pawn_double_step", "on"),
        ("dropped_rook_castles", "off"),
        ("drop_check", "allowed"),
        ("repetition", "none"),
        ("board_end", "match"),
        ("turn_time_limit", "none"),
        ("stalling", "3"),
        ("max_plies", "800"),
        ("illegal_move", "lose"),
        ("reconnect_grace", "30"),
        ("leaver", "lose"),
        ("draw", "humans"),
    ]
    assert HouseRules().profile == "default"
    assert HouseRules().differences == {}


def test_profiles_differ_from_the_default_as_their_seeds_say() -> None:
    assert PROFILES["default"] == HouseRules()
    assert PROFILES["arena"].differences == {"dropped_pawn_double_step": "off"}
    assert PROFILES["club"].differences == {"dropped_rook_castles": "on", "repetition": "threefold"}
    assert PROFILES["club-continue"].differences == {
        "dropped_rook_castles": "on",
        "repetition": "threefold",
        "board_end": "continue",
    }
    assert PROFILES["no-drop-check"].differences == {"drop_check": "no-check"}
    assert PROFILES["server"].differences == {"illegal_move": "reject", "draw": "both-teams"}
    for name, rules in PROFILES.items():
        assert rules.profile == name
        assert profile(name.upper()) is rules


def test_untimed_play_and_stalling_parse_and_old_headers_still_read() -> None:
    rules = apply_rules(HouseRules(), [parse_rule("clock=off"), parse_rule("stalling=5")])
    assert (rules.clock, rules.stalling, rules.profile) == (False, 5, "custom")
    assert from_pairs(to_pairs(rules)) == rules
    assert apply_rules(HouseRules(), [("stalling", "none")]).stalling == 0
    with pytest.raises(RuleError, match="stalling takes a whole number"):
        apply_rules(HouseRules(), [("stalling", "three")])
    # A header written before clock and stalling existed: a custom profile that
    # states every other option is still read, with their defaults.
    old = [(n, v) for n, v in to_pairs(HouseRules(max_plies=100)) if n not in ("clock", "stalling")]
    assert from_pairs([("profile", "custom"), *old[1:]]) == HouseRules(
        profile="custom", max_plies=100
    )


def test_unknown_profile_lists_the_known_ones() -> None:
    with pytest.raises(RuleError, match=r"unknown rules profile .blitz. \(known: default, arena"):
        profile("blitz")


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("wait_for_block=off", ("wait_for_block", "off")),
        ("drop-check = no-mate", ("drop_check", "no-mate")),
        ("MAX_PLIES=100", ("max_plies", "100")),
        ("profile=club", ("profile", "club")),
        ("leaver=a=b", ("leaver", "a=b")),  # the first "=" splits
    ],
)
def test_parse_rule_splits_name_and_value(text: str, pair: tuple[str, str]) -> None:
    assert parse_rule(text) == pair


@pytest.mark.parametrize("text", ["wait_for_block", "=on", "wait_for_block=", " = "])
def test_parse_rule_refuses_what_is_not_name_value(text: str) -> None:
    with pytest.raises(RuleError, match="is not NAME=VALUE"):
        parse_rule(text)


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("time", "60", "time", 60.0),
        ("time", "90s", "time", 90.0),
        ("time", "0.5", "time", 0.5),
        ("increment", "0", "increment", 0.0),
        ("increment", "2", "increment", 2.0),
        ("wait_for_block", "off", "wait_for_block", False),
        ("wait_for_block", "ON", "wait_for_block", True),
        ("stalemate", "draw", "stalemate", "draw"),
        ("dropped_pawn_double_step", "off", "dropped_pawn_double_step", False),
        ("dropped_rook_castles", "on", "dropped_rook_castles", True),
        ("drop_check", "no-check", "drop_check", "no-check"),
        ("drop_check", "no-mate", "drop_check", "no-mate"),
        ("repetition", "threefold", "repetition", "threefold"),
        ("board_end", "continue", "board_end", "continue"),
        ("turn_time_limit", "10", "turn_time_limit", 10.0),
        ("turn_time_limit", "none", "turn_time_limit", None),
        ("turn_time_limit", "off", "turn_time_limit", None),
        ("turn_time_limit", "0", "turn_time_limit", None),
        ("max_plies", "1200", "max_plies", 1200),
        ("max_plies", "none", "max_plies", 0),
        ("max_plies", "OFF", "max_plies", 0),
        ("illegal_move", "reject", "illegal_move", "reject"),
        ("draw", "both-teams", "draw", "both-teams"),
        ("draw", "Humans", "draw", "humans"),
    ],
)
def test_every_rule_takes_its_values(name: str, value: str, field: str, expected: object) -> None:
    rules = HouseRules().with_rule(name, value)
    assert getattr(rules, field) == expected
    changed = getattr(HouseRules(), field) != expected
    assert rules.profile == ("custom" if changed else "default")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("colour=white", "unknown rule 'colour' .known: profile, time,"),
        ("wait_for_block=maybe", "wait_for_block takes on or off, not 'maybe'"),
        ("stalemate=lose", "stalemate takes one of wait, draw, not 'lose'"),
        ("drop_check=never", "drop_check takes one of allowed, no-check, no-mate"),
        ("repetition=fivefold", "repetition takes one of none, threefold"),
        ("board_end=stop", "board_end takes one of match, continue"),
        ("illegal_move=warn", "illegal_move takes one of lose, reject"),
        ("draw=engines", "draw takes one of humans, both-teams"),
        ("time=0", "time must be > 0"),
        ("time=-5", "time must be > 0"),
        ("time=fast", "time takes seconds"),
        ("time=nan", "finite"),
        ("time=inf", "finite"),
        ("increment=-1", "increment must be >= 0"),
        ("turn_time_limit=-1", "turn_time_limit must be > 0"),
        ("max_plies=-1", "^rule max_plies cannot be negative$"),
        ("max_plies=12.5", "max_plies takes a whole number"),
        ("profile=blitz", "unknown rules profile"),
    ],
)
def test_bad_rules_are_usage_errors_that_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        apply_rules(HouseRules(), [parse_rule(text)])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("time=0", "rule time must be > 0 seconds"),
        ("time=-5", "rule time must be > 0 seconds"),
        ("increment=-1", "rule increment must be >= 0 seconds"),
        ("time=604801", "rule time takes at most 604800 seconds (a week)"),
        ("stalemate=lose", "rule stalemate takes one of wait, draw, not 'lose'"),
    ],
)
def test_bad_seconds_and_choices_are_named_in_the_readers_words(text: str, message: str) -> None:
    with pytest.raises(RuleError) as caught:
        apply_rules(HouseRules(), [parse_rule(text)])
    assert str(caught.value) == message


def test_seconds_from_the_smallest_to_a_week_are_taken() -> None:
    rules = apply_rules(
        HouseRules(),
        [parse_rule("time=1"), parse_rule("increment=0"), parse_rule("turn_time_limit=1s")],
    )
    assert (rules.time, rules.increment, rules.turn_time_limit) == (1.0, 0.0, 1.0)
    assert apply_rules(HouseRules(), [parse_rule("time=604800")]).time == 604800.0


def test_constructing_bad_values_in_code_is_refused_too() -> None:
    with pytest.raises(RuleError) as caught:
        HouseRules(stalemate="lose")  # type: ignore[arg-type]
    assert str(caught.value) == "rule stalemate takes one of wait, draw, not 'lose'"
    with pytest.raises(RuleError, match="time"):
        HouseRules(time=0)
    with pytest.raises(RuleError, match="turn_time_limit"):
        dataclasses.replace(HouseRules(), turn_time_limit=0.0)
    with pytest.raises(RuleError, match="max_plies"):
        HouseRules(max_plies=-1)


def test_rules_apply_in_order_and_a_profile_resets() -> None:
    rules = apply_rules(
        HouseRules(),
        [("stalemate", "draw"), ("profile", "arena"), ("wait_for_block", "off")],
    )
    assert rules.profile == "custom"
    assert rules.stalemate == "wait"
    assert not rules.dropped_pawn_double_step and not rules.wait_for_block
    assert apply_rules(HouseRules(), [("profile", "club")]) is PROFILES["club"]


def test_setting_a_rule_to_its_profile_value_keeps_the_profile_name() -> None:
    assert PROFILES["arena"].with_rule("dropped_pawn_double_step", "off").profile == "arena"


def test_header_pairs_name_the_profile_then_every_option() -> None:
    rules = PROFILES["club"].with_rule("turn_time_limit", "12.5")
    pairs = to_pairs(rules)
    assert pairs[0] == ("profile", "custom")
    assert [name for name, _ in pairs[1:]] == list(RULE_NAMES)
    assert ("turn_time_limit", "12.5") in pairs
    assert from_pairs(pairs) == rules


def test_an_unknown_profile_name_is_a_label_when_every_option_is_stated() -> None:
    stated = [("profile", "foreign"), *HouseRules(max_plies=0).to_pairs()]
    assert from_pairs(stated) == HouseRules(profile="foreign", max_plies=0)
    with pytest.raises(RuleError, match="unknown rules profile 'foreign'"):
        from_pairs([("profile", "foreign"), ("time", "60")])


def test_an_unknown_profile_is_a_label_also_for_an_older_header_without_later_options() -> None:
    # Headers written before clock, stalling, reconnect_grace, leaver and draw existed.
    later = {"clock", "stalling", "reconnect_grace", "leaver", "draw"}
    older = [(name, value) for name, value in HouseRules().to_pairs() if name not in later]
    assert from_pairs([("profile", "foreign"), *older]) == HouseRules(profile="foreign")


def test_a_profile_pair_applies_first_wherever_it_stands() -> None:
    rules = from_pairs([("time", "60"), ("profile", "arena")])
    assert rules.profile == "arena" and rules.time == 60.0
    assert not rules.dropped_pawn_double_step


def test_from_pairs_reads_a_profile_and_overrides() -> None:
    rules = from_pairs([("profile", "arena"), ("time", "60")])
    assert rules.profile == "arena"
    assert rules.time == 60.0 and not rules.dropped_pawn_double_step
    # Without a profile pair the options apply to the default rules.
    plain = from_pairs([("time", "60")])
    assert plain.time == 60.0
    assert dataclasses.replace(plain, time=HouseRules().time, profile="default") == HouseRules()


@given(house_rules())
def test_every_rules_value_round_trips_through_its_text(rules: HouseRules) -> None:
    assert from_pairs(to_pairs(rules)) == rules
    assert HouseRules.from_pairs([("profile", "custom"), *rules.to_pairs()]) == rules


@given(house_rules())
def test_every_rules_value_round_trips_through_name_value_texts(rules: HouseRules) -> None:
    texts = [f"{name}={value}" for name, value in rules.to_pairs()]
    assert apply_rules(HouseRules(), [parse_rule(text) for text in texts]) == dataclasses.replace(
        rules, profile="custom" if rules.differences else "default"
    )


def test_who_must_agree_to_a_draw_under_each_reading() -> None:
    humans, both = HouseRules(), HouseRules(draw="both-teams")
    everyone = frozenset(Seat)
    # Nobody is a person: all four seats, under either reading.
    assert draw_agreement(humans, ()) == draw_agreement(both, ()) == everyone
    # One person and three engines: alone under "humans"; with the other team's
    # two engines under "both-teams" (the person speaks for its own team).
    assert draw_agreement(humans, {Seat.A_WHITE}) == {Seat.A_WHITE}
    assert draw_agreement(both, {Seat.A_WHITE}) == {Seat.A_WHITE, Seat.A_BLACK, Seat.B_WHITE}
    # Partners who are both people: the other team's engines too.
    team = {Seat.A_WHITE, Seat.B_BLACK}
    assert draw_agreement(humans, team) == team
    assert draw_agreement(both, team) == everyone
    # A person on each team: only the people, under either reading.
    people = {Seat.A_WHITE, Seat.B_WHITE}
    assert draw_agreement(humans, people) == draw_agreement(both, people) == people
