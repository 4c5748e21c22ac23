"""The engines file: names to specs, and a clear error for every bad entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from bughouse_arbiter.config.engines_file import (
    builtin_external_engines,
    known_engines,
    load_engines_file,
    parse_engines,
    user_engines_path,
)
from bughouse_arbiter.config.specs import seat_engines
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parent.parent / "engines.example.toml"


def test_the_example_defines_the_three_debian_engines() -> None:
    specs = load_engines_file(EXAMPLE)
    assert set(specs) == {"sjeng", "fairy-stockfish", "fairy-stockfish-xboard"}
    assert specs["sjeng"].protocol == "xboard"
    assert specs["fairy-stockfish"].protocol == "uci"
    assert specs["fairy-stockfish"].options == {"Threads": "1", "Hash": "16"}
    assert specs["fairy-stockfish-xboard"].protocol == "xboard"
    assert specs["fairy-stockfish-xboard"].command == ("/usr/games/fairy-stockfish",)


def test_builtins_work_without_any_file() -> None:
    engines = seat_engines(
        ["A-white=sjeng", "A-black=fairy-stockfish"],
        default="fairy-stockfish-xboard",
        known=builtin_external_engines(),
    )
    assert engines[Seat.A_WHITE].protocol == "xboard"
    assert engines[Seat.A_BLACK].protocol == "uci"
    assert engines[Seat.B_WHITE].name == "fairy-stockfish-xboard"
    assert Path(engines[Seat.A_WHITE].cwd or "").is_dir()


def test_a_full_entry_with_a_command_string_and_typed_options() -> None:
    specs = parse_engines(
        """
        [engines.mine]
        protocol = "uci"
        command = "~/bin/eng --flag 'two words'"
        cwd = "~/engines"
        options = { Hash = 8, Ponder = false, Style = "sharp", Contempt = 0.5 }
        init = ["setoption name UCI_Chess960 value false"]
        """
    )
    spec = specs["mine"]
    assert spec.command[0] == str(Path("~/bin/eng").expanduser())
    assert spec.command[1:] == ("--flag", "two words")
    assert spec.cwd == str(Path("~/engines").expanduser())
    assert spec.options == {"Hash": "8", "Ponder": "false", "Style": "sharp", "Contempt": "0.5"}
    assert spec.init == ("setoption name UCI_Chess960 value false",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[engines.x\n", r"f\.toml: not valid TOML"),
        ("[engine.x]\ncommand = 'a'", r"f\.toml: unknown top-level key 'engine'"),
        ("engines = 3", r"'engines' must be a table"),
        ("[engines]\nx = 3", r"engines\.x: must be a table"),
        ("[engines.x]\nprotocol = 'uci'", r"engines\.x\.command: missing"),
        ("[engines.x]\ncommand = []", r"engines\.x\.command: is empty"),
        ("[engines.x]\ncommand = [1]", r"engines\.x\.command: must be a string or a list"),
        ('[engines.x]\ncommand = "a \'b"', r"engines\.x\.command: cannot be split"),
        ("[engines.x]\ncommand = 'a'\nprotocol = 'cecp'", r"engines\.x\.protocol: 'cecp' is not"),
        ("[engines.x]\ncommand = 'a'\ncmd = 'b'", r"engines\.x\.cmd: unknown key"),
        ("[engines.x]\ncommand = 'a'\noptions = 3", r"engines\.x\.options: must be a table"),
        ("[engines.x]\ncommand = 'a'\noptions = { H = [1] }", r"engines\.x\.options\.H: must be"),
        ("[engines.x]\ncommand = 'a'\ninit = 'go'", r"engines\.x\.init: must be a list"),
        ("[engines.x]\ncommand = 'a'\ninit = [\"a\\nb\"]", r"engines\.x\.init: a line cannot"),
        ("[engines.x]\ncommand = 'a'\ncwd = 7", r"engines\.x\.cwd: must be a folder"),
        ("[engines.x]\ncommand = 'a'\nmovetime = 0", r"engines\.x\.movetime: must be a whole"),
        ("[engines.x]\ncommand = 'a'\ndepth = 'deep'", r"engines\.x\.depth: must be a whole"),
    ],
)
def test_bad_entries_name_file_and_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_engines(text, "f.toml")


def test_movetime_and_depth_bound_moves_in_untimed_play() -> None:
    known = parse_engines("[engines.x]\ncommand = 'a'\nmovetime = 250\ndepth = 4\n", "f.toml")
    assert (known["x"].movetime, known["x"].depth) == (250, 4)
    assert parse_engines("[engines.y]\ncommand = 'a'\n", "f.toml")["y"].movetime is None


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such engines file"):
        load_engines_file(tmp_path / "nope.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="cannot read"):
        load_engines_file(tmp_path / "bin.toml")


def test_user_file_location_follows_xdg() -> None:
    assert user_engines_path({"XDG_CONFIG_HOME": "/x"}) == Path("/x/bughouse-arbiter/engines.toml")
    assert user_engines_path({"HOME": "/home/u"}) == Path(
        "/home/u/.config/bughouse-arbiter/engines.toml"
    )


def test_user_file_and_given_file_override_builtins_in_that_order(tmp_path: Path) -> None:
    config = tmp_path / "bughouse-arbiter"
    config.mkdir()
    (config / "engines.toml").write_text(
        "[engines.sjeng]\nprotocol='xboard'\ncommand='my-sjeng'\n"
        "[engines.mine]\nprotocol='uci'\ncommand='a'\n"
    )
    given = tmp_path / "given.toml"
    given.write_text("[engines.mine]\nprotocol='native'\ncommand='b'\n")
    known = known_engines(given, environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert known["sjeng"].command == ("my-sjeng",)
    assert known["mine"].command == ("b",) and known["mine"].protocol == "native"
    assert known["fairy-stockfish"].protocol == "uci"
    (config / "engines.toml").write_text("[engines.bad]\n")
    with pytest.raises(ConfigError, match=r"engines\.toml: engines\.bad\.command: missing"):
        known_engines(environ={"XDG_CONFIG_HOME": str(tmp_path)})
