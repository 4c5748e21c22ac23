"""Option values are checked against what the engine declared, in each
protocol's terms: a spin's range, a check's words, a combo's choices; a
string or a button takes anything. A refused value fails the start in one
line and nothing of it is sent."""

from __future__ import annotations

import pytest
from test_adapter_uci import FSF_HELLO as UCI_HELLO

from bughouse_arbiter.adapters import UciAdapter, XboardAdapter
from bughouse_arbiter.adapters.declared import (
    BadOptionValue,
    Declared,
    RefusedOption,
    UndeclaredOption,
    bad_value,
    native_declared,
    refuse_option,
    uci_declared,
    xboard_declared,
)
from bughouse_arbiter.adapters.uci_talk import parse_option
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.protocol.grammar import parse_message
from bughouse_arbiter.protocol.messages import OptionSpec

#: What Fairy-Stockfish's Skill Level and Analysis Contempt take, as refusals say it.
SKILL_TAKES = "takes a whole number from -20 to 20"
CONTEMPT_TAKES = "takes one of 'Both', 'Off', 'White', 'Black'"
SKILL = Declared("spin", default="20", min=-20, max=20)
COMBO = Declared("combo", default="Both", choices=("Both", "Off", "White", "Black"))


@pytest.mark.parametrize(
    ("declared", "value", "refusal"),
    [
        (SKILL, "20", None),
        (SKILL, "-20", None),
        (SKILL, " 3 ", None),
        (SKILL, "99", f"option 'X' {SKILL_TAKES}, not '99'"),
        (SKILL, "-21", f"option 'X' {SKILL_TAKES}, not '-21'"),
        (SKILL, "abc", f"option 'X' {SKILL_TAKES}, not 'abc'"),
        (SKILL, "2.5", f"option 'X' {SKILL_TAKES}, not '2.5'"),
        (SKILL, "", f"option 'X' {SKILL_TAKES}, not ''"),
        (Declared("spin", min=1), "0", "option 'X' takes a whole number of at least 1, not '0'"),
        (Declared("spin", max=5), "6", "option 'X' takes a whole number of at most 5, not '6'"),
        (Declared("spin"), "x", "option 'X' takes a whole number, not 'x'"),
        (Declared("spin"), "-123456789012", None),
        (Declared("check"), "true", None),
        (Declared("check"), "false", None),
        (Declared("check"), "True", "option 'X' takes true or false, not 'True'"),
        (Declared("check"), "1", "option 'X' takes true or false, not '1'"),
        (Declared("check", truth=("1", "0")), "0", None),
        (Declared("check", truth=("1", "0")), "true", "option 'X' takes 1 or 0, not 'true'"),
        (COMBO, "Off", None),
        (COMBO, "off", f"option 'X' {CONTEMPT_TAKES}, not 'off'"),
        (COMBO, "Sometimes", f"option 'X' {CONTEMPT_TAKES}, not 'Sometimes'"),
        (Declared("string"), "any text at all", None),
        (Declared("string"), "", None),
        (Declared("button"), "", None),
        (Declared("file"), "anything", None),
    ],
)  # fmt: skip
def test_a_value_is_taken_or_refused_in_one_line(
    declared: Declared, value: str, refusal: str | None
) -> None:
    assert bad_value("X", value, declared) == refusal


def test_a_combo_lists_at_most_eight_choices_and_any_case_matches_them() -> None:
    many = Declared("combo", choices=tuple(f"v{i}" for i in range(12)))
    refusal = bad_value("V", "w", many)
    assert refusal is not None and refusal.endswith("'v7' and 4 more, not 'w'")
    assert bad_value("A", "OFF", COMBO, any_case=True) is None


def test_refuse_option_tells_a_wrong_name_from_a_wrong_value() -> None:
    declared = {"Skill Level": SKILL, "Hash": Declared("spin", min=1, max=1024)}
    refuse_option("Skill Level", "3", declared)
    refuse_option("skill level", "3", declared, any_case=True)
    with pytest.raises(UndeclaredOption, match=r"did you mean 'Skill Level'\?"):
        refuse_option("Skil Level", "3", declared)
    with pytest.raises(BadOptionValue) as bad:
        refuse_option("hash", "0", declared, any_case=True)
    assert str(bad.value) == "option 'hash' takes a whole number from 1 to 1024, not '0'"
    assert issubclass(UndeclaredOption, RefusedOption)
    assert issubclass(BadOptionValue, RefusedOption)


def test_each_protocol_declares_in_the_common_terms() -> None:
    name, fields = parse_option("name Skill Level type spin default 20 min -20 max 20")
    assert (name, uci_declared(fields)) == ("Skill Level", SKILL)
    _, fields = parse_option("name Ponder type check default false")
    assert uci_declared(fields) == Declared("check", default="false")
    _, fields = parse_option("name Style type combo default b var a var b")
    assert uci_declared(fields) == Declared("combo", default="b", choices=("a", "b"))
    _, fields = parse_option("name Clear Hash type button")
    assert uci_declared(fields) == Declared("button")
    assert xboard_declared("Skill Level -spin 20 -20 20") == ("Skill Level", SKILL)
    assert xboard_declared("Ponder -check 0") == (
        "Ponder", Declared("check", default="0", truth=("1", "0")),
    )  # fmt: skip
    assert xboard_declared("Analysis Contempt -combo Both /// *Off /// White") == (
        "Analysis Contempt",
        Declared("combo", default="Off", choices=("Both", "Off", "White")),
    )
    assert xboard_declared("Book -file book.bin") == ("Book", Declared("string", "book.bin"))
    assert xboard_declared("Clear Hash -button") == ("Clear Hash", Declared("button"))
    assert xboard_declared("Level -slider 5 1 9") == ("Level", Declared("spin", "5", 1, 9))
    spec = parse_message("option name Seed type spin default 0 min 0 max 2147483647")
    assert isinstance(spec, OptionSpec)
    assert native_declared(spec) == Declared("spin", default="0", min=0, max=2**31 - 1)


FSF_UCI = [
    *UCI_HELLO[:-1],
    "option name Skill Level type spin default 20 min -20 max 20",
    "option name Ponder type check default false",
    "option name Analysis Contempt type combo default Both var Both var Off var White var Black",
    "option name Debug Log File type string default",
    UCI_HELLO[-1],
]


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"Skill Level": "99"}, f"option 'Skill Level' {SKILL_TAKES}, not '99'"),
        ({"Hash": "16", "skill level": "abc"}, f"option 'skill level' {SKILL_TAKES}, not 'abc'"),
        ({"Ponder": "yes"}, "option 'Ponder' takes true or false, not 'yes'"),
        ({"Analysis Contempt": "Never"},
         f"option 'Analysis Contempt' {CONTEMPT_TAKES}, not 'Never'"),
        ({"Threads": "0"}, "option 'Threads' takes a whole number from 1 to 512, not '0'"),
    ],
)  # fmt: skip
def test_a_uci_engine_refuses_a_value_it_did_not_declare(
    options: dict[str, str], refusal: str
) -> None:
    adapter = UciAdapter(Seat.A_WHITE, options=options)
    with pytest.raises(BadOptionValue) as failed:
        for line in FSF_UCI:
            adapter.receive(line)
    assert str(failed.value) == refusal
    assert not any(line.startswith("setoption") for line in adapter.take()[0])


def test_a_uci_engine_takes_declared_values_a_combo_in_any_case() -> None:
    options = {
        "Skill Level": "-20", "Ponder": "false", "analysis contempt": "off",
        "Debug Log File": "/tmp/x y.log", "Hash": "33554432",
    }  # fmt: skip
    adapter = UciAdapter(Seat.A_WHITE, options=options)
    for line in FSF_UCI:
        adapter.receive(line)
    sent = adapter.take()[0]
    assert "setoption name analysis contempt value off" in sent
    assert "setoption name Debug Log File value /tmp/x y.log" in sent


FSF_XBOARD = [
    "feature setboard=1 usermove=1 time=1 memory=1 smp=1 colors=0 ping=1 "
    'myname="Fairy-Stockfish" variants="chess,bughouse"',
    'feature option="Skill Level -spin 20 -20 20"',
    'feature option="Ponder -check 0"',
    'feature option="Analysis Contempt -combo Both /// Off /// White /// Black"',
    'feature option="Clear Hash -button"',
    "feature done=1",
]


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"Skill Level": "21"}, f"option 'Skill Level' {SKILL_TAKES}, not '21'"),
        ({"Ponder": "true"}, "option 'Ponder' takes 1 or 0, not 'true'"),
        ({"Analysis Contempt": "both"}, f"option 'Analysis Contempt' {CONTEMPT_TAKES}, not 'both'"),
        # memory=1 / smp=1 carry Hash and Threads: a whole number from 1.
        ({"hash": "0"}, "option 'Hash' takes a whole number of at least 1, not '0'"),
        ({"cores": "two"}, "option 'Threads' takes a whole number of at least 1, not 'two'"),
    ],
)  # fmt: skip
def test_an_xboard_engine_refuses_a_value_it_did_not_declare(
    options: dict[str, str], refusal: str
) -> None:
    adapter = XboardAdapter(Seat.A_WHITE, options=options)
    with pytest.raises(BadOptionValue) as failed:
        for line in FSF_XBOARD:
            adapter.receive(line)
    assert str(failed.value) == refusal
    assert not any(line.startswith(("option", "memory", "cores")) for line in adapter.take()[0])


def test_an_xboard_engine_takes_declared_values() -> None:
    options = {"Skill Level": "3", "Ponder": "1", "Analysis Contempt": "Off", "Hash": "64"}
    adapter = XboardAdapter(Seat.A_WHITE, options=options)
    for line in FSF_XBOARD:
        adapter.receive(line)
    sent = adapter.take()[0]
    assert sent[-4:] == ["option Skill Level=3", "option Ponder=1",
                         "option Analysis Contempt=Off", "memory 64"]  # fmt: skip
