"""The shared options (``config/options.py``): one way from ``--rule``/``--tc`` to
``HouseRules``, one refusal of an empty ``--out``, and nothing heavy imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bughouse_arbiter.cli import main
from bughouse_arbiter.config.options import house_rules
from bughouse_arbiter.core.rules import PROFILES, HouseRules
from bughouse_arbiter.errors import ConfigError, RuleError


def test_a_time_control_keeps_the_profiles_name() -> None:
    rules = house_rules([], "60+5")
    assert (rules.profile, rules.time, rules.increment) == ("default", 60.0, 5.0)
    club = house_rules(["profile=club"], "60+5")
    assert club.profile == "club" and club.repetition == "threefold" and club.time == 60.0
    untimed = house_rules(["profile=arena"], "none")
    assert untimed.profile == "arena" and not untimed.clock


def test_the_default_time_control_unless_a_rule_sets_the_clock() -> None:
    assert house_rules([], default_tc="10+0").time == 10.0
    assert house_rules(["stalemate=draw"], default_tc="10+0").time == 10.0
    # A clock rule given as a rule is a house-rule change: the profile is custom.
    timed = house_rules(["time=30"], default_tc="10+0")
    assert (timed.time, timed.profile) == (30.0, "custom")
    assert not house_rules(["clock=off"], default_tc="10+0").clock
    # --tc wins over the rules, whatever their order.
    assert house_rules(["time=30"], "20+1", default_tc="10+0").time == 20.0
    assert house_rules([]) == HouseRules()


def test_untimed_play_can_be_refused_however_it_is_asked_for() -> None:
    for rule_texts, tc in (([], "none"), (["clock=off"], None), (["clock=off"], "untimed")):
        with pytest.raises(ConfigError, match=r"untimed play .* is for engine matches"):
            house_rules(rule_texts, tc, default_tc="180+0", untimed=False)
    assert house_rules(["clock=off"], "180+0", untimed=False).clock


def test_a_commands_own_rules_yield_to_the_given_ones() -> None:
    table = [("draw", "both-teams")]
    served = house_rules([], "60+0", table=table)
    assert (served.draw, served.profile) == ("both-teams", "default")
    assert house_rules(["profile=club"], table=table).draw == "both-teams"
    assert house_rules(["draw=humans"], table=table).draw == "humans"


def test_rules_apply_on_a_given_base() -> None:
    rules = house_rules(["stalemate=draw"], base=PROFILES["arena"])
    assert rules.stalemate == "draw" and not rules.dropped_pawn_double_step
    with pytest.raises(RuleError, match="unknown rule 'colour'"):
        house_rules(["colour=white"])


@pytest.mark.parametrize(
    "argv",
    [
        ["match", "--out", ""],
        ["play", "--out", ""],
        ["serve", "--web", "0", "--out", ""],
        ["tournament", "--engine", "a=random", "--engine", "b=random", "--out", ""],
        ["play", "--tc", "none"],
        ["play", "--rule", "clock=off"],
        ["replay", "--rule", "stalemate=maybe", "no-such-file.bpgn"],
    ],
)
def test_bad_shared_options_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bughouse {argv[0]}: error: ") and err.count("\n") == 1, err
    if "--out" in argv:
        assert "--out is empty: give a name, or omit --out for the default" in err


def loaded_by(code: str) -> str:
    heavy = "sorted(m for m in ('trio', 'chess', 'attrs') if m in sys.modules)"
    probe = f"import sys; {code}; print({heavy})"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.strip()


@pytest.mark.slow
def test_the_options_module_imports_neither_trio_nor_chess() -> None:
    assert loaded_by("import bughouse_arbiter.config.options") == "[]"
    # Rules without a time control (position's) need the rules, not the specs (attrs).
    rules = "from bughouse_arbiter.config.options import house_rules; house_rules(['max_plies=9'])"
    assert loaded_by(rules) == "['chess']"
