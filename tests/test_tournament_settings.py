"""``tournament --each / --set / --option`` reach the engines, tournament.json
and the games' tags, and a resume plays them; ``--debug DIR`` keeps each
game's protocol logs; an option an engine did not declare stops the run in
one line (real engines where they differ: Fairy-Stockfish's ``Skil Level``,
Sjeng declaring none)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
import trio
from cli_checks import expect_usage_error, run_bughouse

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.tournament import participants_from
from bughouse_arbiter.config.engines_file import builtin_external_engines, load_engines_file
from bughouse_arbiter.config.options import settings_of
from bughouse_arbiter.config.specs import SEED_MAX, builtin_engine, seeded
from bughouse_arbiter.core.model import SEATS, Seat
from bughouse_arbiter.tournament import roster
from bughouse_arbiter.tournament.engine_options import refused_options
from bughouse_arbiter.tournament.schedule import Participant

ROOT = Path(__file__).resolve().parent.parent
GUARD = 60
#: What Fairy-Stockfish's Skill Level and Analysis Contempt take, as refusals say it.
SKILL_TAKES = "takes a whole number from -20 to 20"
CONTEMPT_TAKES = "takes one of 'Both', 'Off', 'White', 'Black'"


def two_random(out: Path, *extra: str, tc: tuple[str, ...] = ("--tc", "5+0")) -> list[str]:
    return [
        "tournament", "--engine", "a=random", "--engine", "b=random",
        *tc, "--rule", "max_plies=40", *extra, "--out", str(out),
    ]  # fmt: skip


def recorded(folder: Path) -> dict[str, dict[str, object]]:
    """Each participant's first engine as tournament.json records it."""
    options = json.loads((folder / "tournament.json").read_text())["options"]
    return {p["name"]: p["members"][0] for p in options["participants"]}


@pytest.mark.slow
def test_settings_reach_the_engines_the_record_the_tags_and_a_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, logs = tmp_path / "t", tmp_path / "logs"
    settings = ("--each", "option.Delay=1", "--set", "b.depth=3", "--option", "a.Seed=4")
    assert main(two_random(out, *settings, "--debug", str(logs))) == 0
    engines = recorded(out)
    assert engines["a"]["options"] == {"Delay": "1", "Seed": "4"}
    assert engines["a"]["depth"] is None
    assert engines["b"]["options"] == {"Delay": "1"} and engines["b"]["depth"] == 3
    # One log per game and seat, named after the game's [Round]; a's engines
    # get their Seed, b's search to depth 3.
    names = sorted(p.name for p in logs.iterdir())
    seats = ("a-black", "a-white", "b-black", "b-white")
    assert names == [f"game.g{g}.{s}.log" for g in (1, 2) for s in seats]
    first = {s: (logs / f"game.g1.{s}.log").read_text() for s in seats}
    [game] = [g for g in read_games((out / "games.bpgn").read_text()) if g.tag("Round") == "1"]
    a_at = "a-white" if game.tag("WhiteA") == "a" else "a-black"
    b_at = "a-black" if a_at == "a-white" else "a-white"
    assert "< setoption name Seed value 4" in first[a_at]
    assert " depth 3" not in first[a_at]
    assert "< setoption name Delay value 1" in first[b_at]
    assert " board a depth 3" in first[b_at]
    capsys.readouterr()
    # The settings are the tournament's: a resume cannot change them ...
    assert main(["tournament", "--resume", str(out), "--each", "depth=5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--each cannot be changed" in err
    # ... and plays its added games with them (--debug is the run's, not saved).
    assert main(["tournament", "--resume", str(out), "--games", "4"]) == 0
    assert "participant" not in capsys.readouterr().err  # today's engines are the recorded
    games = read_games((out / "games.bpgn").read_text())
    assert len(games) == 4
    for game in games:
        a_colour = "White" if game.tag("WhiteA") == "a" else "Black"
        b_colour = "Black" if a_colour == "White" else "White"
        assert game.tag(f"{a_colour}AEngineOptions") == "Delay=1; Seed=4"
        assert game.tag(f"{a_colour}AEngineLimits") is None
        assert game.tag(f"{b_colour}AEngineOptions") == "Delay=1"
        assert game.tag(f"{b_colour}AEngineLimits") == "depth 3"
    assert not list(logs.glob("game.g3.*"))


def test_a_team_member_named_after_an_engine_takes_its_settings() -> None:
    participants = participants_from(
        ["r=random", "s=searcher"], ["mix=r+searcher"], {}, check_commands=False
    )
    names = [p.name for p in participants]
    every, by_name = settings_of(
        ["movetime=50"], ["r.depth=2", "mix.nodes=9"], ["r.Delay=1"], names
    )
    settled = {p.name: p for p in roster.settled(participants, every, by_name)}
    r_spec, searcher = settled["mix"].members
    assert (r_spec.depth, r_spec.nodes, r_spec.movetime) == (2, 9, 50)
    assert r_spec.options == {"Delay": "1"}
    assert (searcher.depth, searcher.nodes, searcher.movetime) == (None, 9, 50)
    assert searcher.options == {}
    assert settled["s"].members[0].limits.movetime == 50 and not settled["s"].members[0].options


@pytest.mark.slow
def test_an_option_the_engine_does_not_declare_stops_the_run_before_it_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error(
        "tournament",
        ["--engine", "a=random", "--engine", "b=random", "--option", "b.Sed=1", "--out", "t"],
        "participant b: engine has no option 'Sed' (did you mean 'Seed'?)",
        capsys,
        tmp_path,
    )


@pytest.mark.slow
def test_real_engines_refuse_options_they_do_not_declare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["--engine", "r=random", "--out", "t"]
    expect_usage_error(
        "tournament",
        ["--engine", "sf=fairy-stockfish", *base, "--option", "sf.Skil Level=0"],
        "participant sf: engine has no option 'Skil Level' (did you mean 'Skill Level'?)",
        capsys,
        tmp_path,
    )
    # Sjeng (xboard) declares no option at all, not even Hash.
    expect_usage_error(
        "tournament",
        ["--engine", "sj=sjeng", *base, "--set", "sj.option.Hash=16"],
        "participant sj: engine has no option 'Hash': it declares no options",
        capsys,
        tmp_path,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("b.Seed=abc", "participant b: option 'Seed' takes a whole number from 0 to 2147483647, "
         "not 'abc'"),
        ("b.Delay=-1", "participant b: option 'Delay' takes a whole number from 0 to 600000, "
         "not '-1'"),
    ],
)  # fmt: skip
def test_a_value_the_engine_did_not_declare_stops_the_run_before_it_starts(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    option: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    expect_usage_error(
        "tournament",
        ["--engine", "a=random", "--engine", "b=random", "--option", option, "--out", "t"],
        message,
        capsys,
        tmp_path,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("engine", "option", "message"),
    [
        # Fairy-Stockfish ignores 99 without a word (its max is 20) ...
        ("fairy-stockfish", "Skill Level=99", f"option 'Skill Level' {SKILL_TAKES}, not '99'"),
        # ... and aborts on 'abc' during its handshake.
        ("fairy-stockfish", "Skill Level=abc", f"option 'Skill Level' {SKILL_TAKES}, not 'abc'"),
        ("fairy-stockfish", "Ponder=yes", "option 'Ponder' takes true or false, not 'yes'"),
        ("fairy-stockfish", "Analysis Contempt=Never",
         f"option 'Analysis Contempt' {CONTEMPT_TAKES}, not 'Never'"),
        ("fairy-stockfish-xboard", "Skill Level=21",
         f"option 'Skill Level' {SKILL_TAKES}, not '21'"),
        ("fairy-stockfish-xboard", "Ponder=true", "option 'Ponder' takes 1 or 0, not 'true'"),
        # memory=1 carries Hash: a whole number from 1.
        ("fairy-stockfish-xboard", "Hash=0",
         "option 'Hash' takes a whole number of at least 1, not '0'"),
    ],
)  # fmt: skip
def test_real_engines_refuse_values_they_do_not_declare(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    engine: str,
    option: str,
    message: str,
) -> None:
    if shutil.which("fairy-stockfish") is None and not Path("/usr/games/fairy-stockfish").exists():
        pytest.skip("fairy-stockfish is not installed")
    monkeypatch.chdir(tmp_path)
    expect_usage_error(
        "tournament",
        ["--engine", f"sf={engine}", "--engine", "r=random", "--option", f"sf.{option}",
         "--out", "t"],
        f"participant sf: {message}",
        capsys,
        tmp_path,
    )


@pytest.mark.slow
def test_match_play_and_check_engine_say_a_refused_value_in_one_line(tmp_path: Path) -> None:
    """``match`` and ``play`` forfeit the game with the refusal as its reason;
    ``check-engine`` fails its handshake step with it; no traceback anywhere."""
    if not Path("/usr/games/fairy-stockfish").exists():
        pytest.skip("fairy-stockfish is not installed")
    refusal = f"option 'Skill Level' {SKILL_TAKES}, not 'abc'"
    done = run_bughouse(
        "match", "--engine", "WA=fairy-stockfish", "--option", "WA.Skill Level=abc",
        "--tc", "2", "--out", "o.bpgn", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"result: 0-1 (A-White left: failed to start: {refusal})" in done.stdout
    [game] = read_games((tmp_path / "o.bpgn").read_text())
    assert game.tag("Result") == "0-1"
    done = run_bughouse(
        "play", "--engine", "B-white=fairy-stockfish", "--option", "BW.Skill Level=abc",
        cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stdout + done.stderr
    assert f"B-White left: failed to start: {refusal} (1-0)" in done.stdout
    (tmp_path / "bad.toml").write_text(
        '[engines.sfbad]\nprotocol = "uci"\ncommand = ["/usr/games/fairy-stockfish"]\n'
        'options = { "Skill Level" = "abc" }\n'
    )
    done = run_bughouse("check-engine", "--engines-file", "bad.toml", "sfbad", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert f"  FAIL  handshake                {refusal}\n" in done.stdout


def test_a_seed_outside_the_built_ins_range_is_folded_into_it() -> None:
    """``--seed`` takes any whole number; the built-ins declare Seed 0 to 2**31-1,
    so a seat's seed out of that range is folded in (never to 0, a fresh seed)."""
    random = builtin_engine("random")
    seeds = [
        int(seeded(random, seed, game, seat).options["Seed"])
        for seed in (-5, 0, 7, SEED_MAX - 2, 2**62)
        for game in range(3)
        for seat in SEATS
    ]
    assert all(1 <= s <= SEED_MAX or s == 0 for s in seeds)
    assert seeded(random, 7, 1, Seat.A_WHITE).options["Seed"] == "11"  # in range: as it was
    assert seeded(random, -5, 0, Seat.A_WHITE).options["Seed"] == str(-5 % SEED_MAX + 1)
    per_run = [seeds[i : i + 12] for i in range(0, len(seeds), 12)]
    assert all(len(set(run)) == 12 for run in per_run)  # a run's seeds stay apart


@pytest.mark.slow
def test_the_shipped_engines_declare_every_option_they_set() -> None:
    """The built-in engines and engines.example.toml set no undeclared option."""
    specs = {**builtin_external_engines(), **load_engines_file(ROOT / "engines.example.toml")}
    playable = [s for s in specs.values() if shutil.which(s.command[0])]
    assert {s.name for s in playable} >= {"fairy-stockfish", "fairy-stockfish-xboard"}
    participants = [
        Participant(name=s.name, members=(s, s), member_names=(s.name, s.name)) for s in playable
    ]

    async def check() -> str | None:
        with trio.fail_after(GUARD):
            return await refused_options(participants)

    assert trio.run(check) is None
    # The check does start them: a misspelt option is caught over xboard too.
    xboard = specs["fairy-stockfish-xboard"].with_options(**{"Skil Level": "0"})
    participants = [Participant(name="x", members=(xboard, xboard), member_names=("x", "x"))]
    refusal = "engine has no option 'Skil Level' (did you mean 'Skill Level'?)"
    assert trio.run(check) == f"participant x: {refusal}"


@pytest.mark.slow
def test_a_match_forfeits_a_game_whose_engine_does_not_declare_its_option(
    tmp_path: Path,
) -> None:
    mover = ROOT / "engines" / "random_mover.py"
    (tmp_path / "engines.toml").write_text(
        f'[engines.typo]\ncommand = ["{sys.executable}", "{mover}"]\noptions = {{ Sede = 1 }}\n'
    )
    done = run_bughouse(
        "match", "--engines-file", "engines.toml", "--engine=BA=typo", "--tc", "2",
        "--out", "o.bpgn", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [game] = read_games((tmp_path / "o.bpgn").read_text())
    assert game.tag("Result") == "1-0"
    assert "engine has no option 'Sede' (did you mean 'Seed'?)" in done.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--each", "foo=1"], "--each 'foo=1': unknown setting 'foo'"),
        (["--each", "depth"], "--each 'depth' is not KEY=VALUE"),
        (["--each", "nodes=-5"], "nodes must be a whole number above 0"),
        (["--each", "option.=5"], "the option has no name"),
        (["--set", "x.depth=3"], "no participant 'x' (those are: a, b)"),
        (["--set", "a.movetime=fast"], "movetime must be a whole number above 0"),
        (["--set", "a.tc=1+0"], "a time control per engine cannot be played"),
        (["--set", ".depth=3"], "no NAME before the dot"),
        (["--option", "a"], "--option 'a' is not NAME.OPT=VALUE"),
        (["--option", "a.=3"], "--option 'a.=3': the option has no name"),
        (["--each", "tc=3+0", "--tc", "4+0"], "--each tc=3+0 and --tc 4+0"),
        (["--each", "tc=abc"], "time control 'abc' is not BASE+INC"),
        (["--each", "depth=2", "--each", "depth=3"], "depth is already set to '2'"),
        (["--set", "a.option.Hash=1", "--option", "a.Hash=2"], "already set to '1'"),
        (["--debug", "d", "--ray", "local"], "leave out --ray"),
        (["--debug", ""], "--debug is empty"),
    ],
)
def test_bad_settings_exit_2_with_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["--engine", "a=random", "--engine", "b=random", "--out", "t"]
    expect_usage_error("tournament", [*base, *argv], message, capsys, tmp_path)


@pytest.mark.slow
def test_each_tc_is_the_time_control(tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert main(two_random(out, tc=("--each", "tc=3+0.5"))) == 0
    [game, _] = read_games((out / "games.bpgn").read_text())
    assert game.tag("TimeControl") == "3+0.5"
