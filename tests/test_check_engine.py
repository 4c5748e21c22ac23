"""``bughouse check-engine``: real engines pass every step; others fail with a reason."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fakes import FakePlayer
from test_external_engines import require

from bughouse_arbiter.cli import main
from bughouse_arbiter.commands.check_engine import SEAT, Checker, StepFailed
from bughouse_arbiter.players.base import ResignAction

STEPS = [
    "handshake",
    "options",
    "new game",
    "state",
    "a drop",
    "mid-think pocket change",
    "waiting",
    "partner message",
    "game over",
    "quit",
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["check-engine", *argv])
    out, err = capsys.readouterr()
    steps = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    return status, steps, out + err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "program"),
    [
        ("sjeng", "sjeng"),
        ("fairy-stockfish", "fairy-stockfish"),
        ("fairy-stockfish-xboard", "fairy-stockfish"),
    ],
)
def test_the_debian_engines_pass_every_step(
    capsys: pytest.CaptureFixture[str], name: str, program: str
) -> None:
    require(program)
    status, steps, out = run(capsys, name)
    assert "FAIL" not in steps, out
    assert len(steps) == len(STEPS)
    for step in STEPS:
        if step == "mid-think pocket change":
            # Sjeng may answer before the piece comes: then it cannot be tested.
            assert f"PASS  {step}" in out or "SKIP  mid-think pocket change  it moved before" in out
        elif (name, step) == ("sjeng", "options"):
            assert "SKIP  options" in out and "offers no option to set" in out
        else:
            assert f"PASS  {step}" in out
    assert status == 0
    assert "steps passed" in out


@pytest.mark.slow
def test_a_native_engine_passes_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    status, steps, out = run(capsys, "random")
    # It moves at once, so a piece cannot arrive mid-think: that step is a SKIP.
    expected = ["SKIP" if step == "mid-think pocket change" else "PASS" for step in STEPS]
    assert (status, steps) == (0, expected), out
    assert "too fast to test" in out


@pytest.mark.slow
def test_a_uci_engine_without_bughouse_fails_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = tmp_path / "plain_uci.py"
    script.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if line.strip() == 'uci':\n"
        "        print('id name Plain', 'option name Hash type spin default 1 min 1 max 2',\n"
        "              'uciok', sep='\\n', flush=True)\n"
        "    elif line.strip() == 'quit':\n"
        "        break\n"
    )
    status, steps, out = run(capsys, f"uci:{sys.executable} {script}", "--timeout", "3")
    assert status == 1
    assert steps == ["FAIL"] * len(STEPS)
    assert "FAIL  handshake" in out and "no UCI_Variant option" in out
    assert "not run: the handshake failed" in out
    assert "Traceback" not in out


@pytest.mark.slow
def test_a_program_that_speaks_no_protocol_fails_every_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, steps, out = run(capsys, "uci:/bin/cat", "--timeout", "1")
    assert status == 1 and steps[0] == "FAIL"
    assert "no uciok within 1 s" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["no-such-engine-here"], "not found on PATH"),
        (["sjeng", "--timeout", "0"], "--timeout must be a positive"),
        (["sjeng", "--time", "nan"], "--time must be a positive"),
        (["sjeng", "--engines-file", "/no/such.toml"], "no such engines file"),
        (["uci:'unbalanced"], "cannot be split"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status = main(["check-engine", *argv])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_protocol_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check-engine", "sjeng", "--protocol", "cecp"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


FAKE = Path(__file__).with_name("xboard_fake.py")


@pytest.mark.slow
def test_a_sunsetter_like_engine_is_checked_without_setboard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = f"xboard:{sys.executable} {FAKE} --delay 1"
    status, steps, out = run(capsys, spec, "--timeout", "5")
    assert status == 0, out
    assert steps.count("PASS") == 10, out
    assert "PASS  options" in out and "set Aggression=5" in out
    assert "no ping to confirm it" in out
    # The set-up positions are out of its reach (its setboard leaves bughouse):
    # the same tests are reached by book moves from the standard start.
    assert "PASS  a drop                   dropped @" in out
    assert "(reached by moves: cannot start from a set-up position: " in out
    assert "leaves bughouse after setboard" in out
    assert (
        "PASS  mid-think pocket change  N@d6#: it used the knight that arrived while it "
        "was thinking (reached by moves, as above)" in out
    )
    waited = "PASS  waiting                  sat silently for 2 s; when a pawn arrived it played @"
    assert waited in out
    assert "10 of 10 steps passed" in out


@pytest.mark.slow
def test_a_silent_sitter_passes_the_waiting_step_and_a_fast_mover_skips_mid_think(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = f"xboard:{sys.executable} {FAKE} --keeps-bughouse --ping"
    status, steps, out = run(capsys, spec, "--timeout", "5")
    assert status == 0, out
    assert (steps.count("PASS"), steps.count("SKIP")) == (9, 1)
    assert (
        "PASS  waiting                  sat silently for 2 s; when a rook arrived it played R@"
        in out
    )
    assert "SKIP  mid-think pocket change  it moved before the piece could arrive" in out
    assert "PASS  options" in out
    assert "set Aggression=5 (its declared default), engine answered" in out
    assert "PASS  a drop" in out
    assert "9 of 10 steps passed, 1 skipped" in out


@pytest.mark.slow
def test_sunsetter_is_not_sent_memory_and_passes_what_it_can(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Sunsetter announces ``memory=1`` and no option; after ``memory 16`` it
    crashes at the next ``new``. The options step sets nothing it was not asked
    to, says why, and the rest of the steps run."""
    spec = f"xboard:{sys.executable} {FAKE} --no-option --delay 1"
    status, steps, out = run(capsys, spec, "--timeout", "5")
    assert status == 0, out
    assert "FAIL" not in steps
    assert (
        "SKIP  options                  features ping=0 setboard=1; the engine offers no "
        "option to set; memory (Hash) only when the engines file sets it" in out
    )
    for step in ("new game", "state", "a drop", "mid-think pocket change", "waiting"):
        assert f"PASS  {step}" in out
    for step in ("partner message", "game over", "quit"):
        assert f"PASS  {step}" in out
    assert "exited by itself (status 0)" in out  # it was never crashed
    assert "9 of 10 steps passed, 1 skipped" in out


@pytest.mark.slow
def test_memory_is_sent_when_the_engines_file_sets_hash(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    engines = tmp_path / "engines.toml"
    engines.write_text(
        f"[engines.sunsetter]\nprotocol = 'xboard'\ncommand = [{str(sys.executable)!r}, "
        f"{str(FAKE)!r}, '--no-option']\noptions = {{ Hash = '16' }}\n"
    )
    status, _, out = run(capsys, "sunsetter", "--engines-file", str(engines), "--timeout", "5")
    assert "set Hash=16 (from the engines file, sent as memory 16; " in out
    # Its own reason, from its stderr, beside the signal.
    assert (
        "FAIL  new game                 the engine left: engine killed by SIGSEGV "
        "(stderr: table size must be > 25165824 bytes)" in out
    )
    assert status == 1


async def test_a_resignation_in_place_of_a_move_is_named_as_such() -> None:
    """Not "no answer within 15 s": the engine answered, with a resignation."""
    checker = Checker(FakePlayer(SEAT), clock=20.0, timeout=15.0)
    checker.send.send_nowait(ResignAction(seat=SEAT))
    with pytest.raises(StepFailed, match=r"^it resigned instead of answering its turn$"):
        await checker.answer(1)
    checker.send.send_nowait(ResignAction(seat=SEAT))
    with pytest.raises(StepFailed, match="resigned"):  # not taken for sitting silently
        await checker.step_waiting()
