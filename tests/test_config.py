"""Match configuration: time controls, engine specs, seats, rotation."""

from __future__ import annotations

import re
import sys

import pytest

from bughouse_arbiter.config.specs import (
    ENGINES_DIR,
    EngineSpec,
    TimeControl,
    builtin_engine,
    engine_spec,
    rotate,
    rotated_seat,
    seat_assignment,
    seat_engines,
    seeded,
)
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.errors import ConfigError, UsageError


@pytest.mark.parametrize(
    ("text", "base", "inc"),
    [("180+2", 180, 2), ("10", 10, 0), ("0.5+0.1", 0.5, 0.1), (" 60+0 ", 60, 0)],
)
def test_time_control(text: str, base: float, inc: float) -> None:
    tc = TimeControl.parse(text)
    assert (tc.base, tc.increment) == (base, inc)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is not BASE+INC"),
        ("abc", "is not BASE+INC"),
        ("3m", "is not BASE+INC"),
        ("10+", "is not BASE+INC"),
        ("0+1", "above 0"),
        ("-5", "above 0"),
        ("10+-1", "negative"),
        ("nan", "finite"),
        ("inf+0", "finite"),
        ("1e999", "finite"),
    ],
)
def test_bad_time_controls(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        TimeControl.parse(text)
    assert issubclass(ConfigError, UsageError)


def test_time_control_prints_as_written() -> None:
    assert str(TimeControl.parse("180+2")) == "180+2"
    assert str(TimeControl.parse("0.5")) == "0.5+0"
    untimed = TimeControl.parse(" None ")
    assert (untimed.base, str(untimed), untimed.rule_pairs()) == (None, "none", [("clock", "off")])


def test_builtin_engines_run_with_this_python() -> None:
    spec = builtin_engine("random")
    assert spec.command == (sys.executable, str(ENGINES_DIR / "random_mover.py"))
    assert spec.protocol == "native"
    assert builtin_engine("faulty-hang").command[-1] == "hang"
    with pytest.raises(ConfigError, match="unknown built-in engine 'nope'"):
        builtin_engine("nope")


def test_command_lines_are_split_like_a_shell_but_kept_as_argv() -> None:
    spec = engine_spec("./my engine --depth '3 4' ; rm -rf x")
    assert spec.command == ("./my", "engine", "--depth", "3 4", ";", "rm", "-rf", "x")
    assert spec.name == "my"
    assert spec.protocol == "native"


def test_protocol_prefixes() -> None:
    uci = engine_spec("uci:/usr/games/fairy-stockfish")
    assert (uci.protocol, uci.command, uci.name) == (
        "uci",
        ("/usr/games/fairy-stockfish",),
        "fairy-stockfish",
    )
    assert engine_spec("xboard: sjeng").command == ("sjeng",)
    # An unknown prefix is part of the command.
    assert engine_spec("c:/engine").command == ("c:/engine",)


def test_known_names_come_first() -> None:
    mine = EngineSpec(name="mine", command=("x",), protocol="uci")
    assert engine_spec("mine", {"mine": mine}) is mine
    assert engine_spec("random", {"mine": mine}).name == "random"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot be empty"),
        ("   ", "cannot be empty"),
        ("'open", "cannot be split"),
        ("uci:", "has no command"),
    ],
)
def test_bad_specs(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        engine_spec(text)


def test_seat_assignments_take_every_seat_spelling() -> None:
    assert seat_assignment("A-white=random")[0] is Seat.A_WHITE
    assert seat_assignment("BB=random")[0] is Seat.B_BLACK
    assert seat_assignment("b_white=x --flag=1")[1].command == ("x", "--flag=1")
    with pytest.raises(ConfigError, match="not SEAT=SPEC"):
        seat_assignment("random")
    with pytest.raises(ConfigError, match="unknown seat 'C-white'"):
        seat_assignment("C-white=random")


def test_seat_engines_fill_the_rest_with_the_default() -> None:
    engines = seat_engines(["WA=random"])
    assert engines[Seat.A_WHITE].name == "random"
    assert [engines[s].name for s in list(Seat)[1:]] == ["searcher"] * 3
    with pytest.raises(ConfigError, match="twice"):
        seat_engines(["WA=random", "a-white=searcher"])


def test_rotation_keeps_partners_and_visits_every_seat() -> None:
    for seat in Seat:
        visited = {rotated_seat(seat, game) for game in range(4)}
        assert visited == set(Seat)
        for game in range(8):
            assert rotated_seat(seat.partner, game) == rotated_seat(seat, game).partner
    assert rotated_seat(Seat.A_WHITE, 0) is Seat.A_WHITE
    assert rotated_seat(Seat.A_WHITE, 1) is Seat.A_BLACK
    assert rotated_seat(Seat.A_WHITE, 2) is Seat.B_WHITE
    assert rotated_seat(Seat.A_WHITE, 3) is Seat.B_BLACK
    engines = {seat: EngineSpec(name=seat.slug, command=("x",)) for seat in Seat}
    assert rotate(engines, 1)[Seat.A_WHITE].name == "a-black"
    assert sorted(s.name for s in rotate(engines, 3).values()) == sorted(s.slug for s in Seat)


def test_every_seat_of_every_game_gets_its_own_seed_and_only_built_in_engines_get_one() -> None:
    searcher = builtin_engine("searcher")
    seeds = [
        seeded(searcher, 7, game, seat).options["Seed"] for game in range(3) for seat in Seat
    ]
    assert seeds == [str(n) for n in range(7, 7 + 12)]
    assert seeded(builtin_engine("random"), 0, 1, Seat.B_BLACK).options == {"Seed": "7"}
    assert seeded(searcher, None, 5, Seat.A_WHITE) == searcher
    outside = EngineSpec(name="sjeng", command=("sjeng",))
    assert seeded(outside, 7, 0, Seat.A_WHITE) == outside
