"""Mutation testing of the judge: how many small deliberate faults do the tests catch?

Runs mutmut 3 (``pip install -e '.[mutation]'``) over one group of modules at
a time, each in a scratch copy of the working tree (``/tmp/mut-<group>``; the
worktree itself never holds a mutant), niced, with only the test files that
exercise that group. Then prints, per module, the mutants checked, killed and
marked equivalent in ``tools/mutation-equivalent.txt``, the survivors left and
the kill rate ``killed / (checked - equivalent)``, and lists every survivor not
marked equivalent as a one-line change (original -> mutant). A timeout counts
as a kill; a mutant no test reaches counts as a survivor. The tests run with
``BUGHOUSE_MUTATION=1``, which ``tests/conftest.py`` reads: a short hypothesis
profile with fixed examples, and property tests after the quick ones.

``--recheck`` reruns only the survivors with the current tests, in a copy
(``/tmp/mut-<group>-recheck``) of the scratch folder; the mutated modules must
be what the first run mutated (a fix elsewhere in the code is taken along).
With ``--examples`` it caps the property tests as given, not as the run did
(a quicker recheck; its survivors are then a bound).
The report takes the recheck's verdicts. ``--resume`` goes on with a run that
was stopped, with the current tests.

Slow (an hour or more for the rules core on a busy machine) and not part of CI::

    python tools/mutation.py                 # every group, rules core first
    python tools/mutation.py rules table     # some groups
    python tools/mutation.py --report rules  # report the last run again, no rerun
    python tools/mutation.py --recheck rules # new tests: rerun only the last survivors
    python tools/mutation.py --modules bpgn/write.py -- bpgn  # only part of a group

Equivalent mutants are listed one per line in ``tools/mutation-equivalent.txt``::

    <module>:<function> || <the mutated line, stripped> || <why no test can tell>

The key does not use mutmut's mutant numbers, which shift whenever a function
is edited; a line that no longer matches any survivor is reported as stale.

What a mutant costs: mutmut forks one process per mutant from a process that
has imported everything, and runs only the tests that reached the mutated
function, fastest first, up to the first failure; a survivor runs them all.
Two things keep that short:

- property tests run at most ``--examples`` examples each (``EXAMPLES`` per
  group; 0: the tests' own counts), derandomized so that a verdict does not
  depend on the seed (tests/conftest.py reads ``BUGHOUSE_MUTATION_EXAMPLES``);
- ``DESELECT`` leaves out of a run a group's slowest tests where faster ones
  in its selection exercise the same code (a recheck too, unless
  ``--every-test``: its survivors are then a bound, some may fall to a test
  left out).

Each test starts with empty functools caches (a cache filled by the clean
run in the process mutmut forks from would answer for the mutated code). A
mutant that loops for ever is stopped after ``--timeout-factor`` times its
tests' clean time (a kill, counted apart in the table), and one that fills
memory meanwhile fails at 4 GiB (``MEMORY_LIMIT``).

After a change to one function, its mutants alone can be checked in a new
scratch folder and reported over the last run (the later folder's verdicts
win; its unchecked mutants leave the earlier verdicts standing)::

    python tools/mutation.py --scratch /tmp/new --modules core/board.py \
        --mutants '*BughouseBoard*_surely_can_move__*' -- rules
    python tools/mutation.py --report rules --scratch /tmp --scratch /tmp/new

A group's modules can be run one at a time, each in its own scratch folder,
possibly at once, and reported together::

    python tools/mutation.py --scratch /tmp/mut-bpgn-read --modules bpgn/read.py -- bpgn
    python tools/mutation.py --report bpgn --scratch /tmp/mut-bpgn-read \
        --scratch /tmp/mut-bpgn-replay
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT_FILE = ROOT / "tools" / "mutation-equivalent.txt"
VENV_BIN = Path(sys.executable).parent

#: group -> (modules to mutate, test files that exercise them)
GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "rules": (
        ["core/board.py", "core/game.py", "core/rules.py", "core/clock.py"],
        [
            "test_board.py",
            "test_board_san.py",
            "test_board_status.py",
            "test_game.py",
            "test_rules.py",
            "test_clock.py",
            "test_model.py",
            "test_conservation.py",
        ],
    ),
    "table": (["table/arbiter.py"], ["test_arbiter.py", "test_arbiter_harness_delay.py"]),
    "protocol": (
        [
            "protocol/__init__.py",
            "protocol/grammar.py",
            "protocol/limits.py",
            "protocol/messages.py",
            "protocol/session.py",
        ],
        [
            "test_protocol.py",
            "test_limits.py",
            # limits.py's other tests; the file's other tests are long property
            # runs over the whole seat, which the mutation profile cannot shorten.
            *(
                f"test_hostile_lines.py::{name}"
                for name in (
                    "test_a_score_of_hundreds_of_digits_counts_as_absent",
                    "test_engine_text_is_one_clean_line_within_its_limit",
                    "test_engine_text_cuts_with_a_mark_and_replaces_controls",
                    "test_the_tell_quota_caps_a_turn_and_a_game_and_notes_once",
                )
            ),
        ],
    ),
    "bpgn": (
        [
            "bpgn/claims.py",
            "bpgn/file.py",
            "bpgn/notation.py",
            "bpgn/positions.py",
            "bpgn/read.py",
            "bpgn/replay.py",
            "bpgn/write.py",
        ],
        [
            "test_bpgn_read.py",
            "test_bpgn_write.py",
            "test_bpgn_roundtrip.py",
            "test_replay.py",
            "test_bpgn_stream.py",
            "test_bpgn_fuzz.py",
            "test_bpgn_notation.py",
            "test_bpgn_claims.py",
            "test_bpgn_positions.py",
            "test_bpgn_file.py",
        ],
    ),
    "adapters": (
        ["adapters/common.py", "adapters/uci.py", "adapters/xboard.py"],
        [
            "test_adapter_common.py",
            "test_adapter_uci.py",
            "test_adapter_xboard.py",
            "test_adapter_properties.py",
            "test_adapter_sunsetter.py",
        ],
    ),
}

#: group -> at most this many examples per property test (``--examples``).
EXAMPLES: dict[str, int] = {"bpgn": 20}

#: group -> tests left out of a run's first pass (node ids; a trailing "*"
#: makes a prefix): slow, and exercising what the rest of the selection does.
#: ``--recheck --every-test`` runs them too, for the survivors' last word.
DESELECT: dict[str, list[str]] = {
    "bpgn": [
        # the corpus replayed twice more, with and without board history
        # (test_replay.py's corpus test replays each file once)
        "tests/test_bpgn_stream.py::test_dropping_board_history_in_a_replay_changes_no_verdict*",
        # the roundtrip's games replayed again without board history
        "tests/test_bpgn_stream.py::test_random_matches_under_every_profile_replay_the_same_"
        "without_history*",
        # the 200-game file read in chunks and whole: the other files take the
        # same paths through the reader, many times faster
        "tests/test_bpgn_stream.py::test_any_chunk_size_reads_the_same_games"
        "[tinychessserver_tu_darmstadt_2019_sample.bpgn-*",
        "tests/test_bpgn_read.py::test_corpus_reads_without_problems"
        "[tinychessserver_tu_darmstadt_2019_sample.bpgn-200-17929]",
        # arbitrary text, 20 examples: test_fuzz_never_crashes covers the same
        # ground with BPGN-like text (slow under mutmut's trampolines)
        "tests/test_bpgn_read.py::test_fuzz_arbitrary_text",
        # checks the game generator's variety (its games are the roundtrip's)
        "tests/test_bpgn_roundtrip.py::test_generated_matches_cover_what_matters",
        # 200 of the corpus's 241 games: the other files replay the same quirks
        "tests/test_replay.py::test_every_corpus_game_replays_and_the_broken_ones_are_named"
        "[tinychessserver_tu_darmstadt_2019_sample.bpgn]",
        # a third of the 120 generated games cover the same features
        *(
            f"tests/test_bpgn_roundtrip.py::test_written_games_read_back_identically[{seed}]"
            for seed in range(40, 120)
        ),
    ],
}

#: The environment variable that lists the tests left out (read by tests/conftest.py).
DESELECT_VARIABLE = "BUGHOUSE_MUTATION_DESELECT"

#: The environment variable that caps examples (read by tests/conftest.py).
EXAMPLES_VARIABLE = "BUGHOUSE_MUTATION_EXAMPLES"

#: mutmut's exit codes (mutmut/stats.py) folded into what the report counts.
KILLED_CODES = {1, 3, 36, -24, 24, 152, 255, 37}  # failed, pytest error, timeout, type error
#: The kills that are timeouts: counted apart in the table, since on a loaded
#: machine a slow survivor can time out too (see --timeout-factor).
TIMEOUT_CODES = {36, -24, 24, 152, 255}
SURVIVED_CODES = {0}
NO_TESTS_CODES = {5, 33}


@dataclass
class Mutant:
    name: str
    module: str  # e.g. core/clock.py
    function: str  # e.g. Clocks.deadline
    status: str  # killed | timeout | survived | no tests | not checked | other
    diff: str = ""

    @property
    def mutated_line(self) -> str:
        added = [
            line[1:].strip()
            for line in self.diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")
        ]
        return " / ".join(added) if added else "(line removed)"

    @property
    def original_line(self) -> str:
        removed = [
            line[1:].strip()
            for line in self.diff.splitlines()
            if line.startswith("-") and not line.startswith("---")
        ]
        return " / ".join(removed)

    @property
    def key(self) -> tuple[str, str]:
        return f"{self.module}:{self.function}", self.mutated_line


@dataclass
class Equivalent:
    where: str
    mutated_line: str
    reason: str
    line_number: int
    used: bool = field(default=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "groups",
        nargs="*",
        choices=[*GROUPS, []],
        metavar="GROUP",
        help=f"groups to run (default: all): {', '.join(GROUPS)}",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="report the last run in /tmp/mut-<group> without running again",
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="copy the current tests into /tmp/mut-<group> and rerun only its survivors "
        "(the code under test must not have changed since the run)",
    )
    parser.add_argument(
        "--every-test",
        action="store_true",
        help="with --recheck: run the tests the group's DESELECT leaves out of a run too",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with a run in /tmp/mut-<group> that was stopped: check the mutants "
        "it has not checked yet, with the current tests",
    )
    parser.add_argument(
        "--modules",
        nargs="+",
        metavar="MODULE",
        help="mutate only these modules of the group (e.g. bpgn/write.py), for a shorter run",
    )
    parser.add_argument(
        "--mutants",
        nargs="+",
        metavar="PATTERN",
        help="with a run: check only the mutants whose mutmut names match these patterns "
        "(e.g. '*BughouseBoard*_surely_can_move__*' for a function changed since the last "
        "run; report it with the last run through two --scratch folders)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument(
        "--examples",
        type=int,
        help="at most this many examples per property test, the same each run "
        f"(default: per group, {', '.join(f'{g} {n}' for g, n in EXAMPLES.items())}; "
        "otherwise and with 0 the tests' own counts)",
    )
    parser.add_argument(
        "--timeout-factor",
        type=float,
        default=15.0,
        help="a mutant whose tests take this many times as long as the clean run's is "
        "stopped and counted as killed (default 15, mutmut's; a mutant that loops for "
        "ever costs this long)",
    )
    parser.add_argument(
        "--scratch",
        type=Path,
        action="append",
        help="where the mut-<group> copies go (default /tmp); to report runs made "
        "module by module in several folders together, give it once for each",
    )
    args = parser.parse_args(argv)
    groups = args.groups or list(GROUPS)
    scratches: list[Path] = args.scratch or [Path("/tmp")]
    if len(scratches) > 1 and not args.report:
        parser.error("several --scratch folders only go with --report")
    equivalents = read_equivalents(EQUIVALENT_FILE)
    totals: list[tuple[str, Counter[str], int]] = []
    for group in groups:
        runs = [root / f"mut-{group}" for root in scratches]
        missing = [str(run) for run in runs if not (run / "mutants").is_dir()]
        if (args.report or args.recheck or args.resume) and missing:
            print(f"{group}: no run to report in {', '.join(missing)}", file=sys.stderr)
            return 2
        if args.recheck:
            recheck_group(group, runs[0], args.jobs, equivalents, args.every_test, args.examples)
        elif args.resume:
            resume_group(group, runs[0], args.jobs)
        elif not args.report:
            examples = EXAMPLES.get(group, 0) if args.examples is None else args.examples
            run_group(
                group,
                runs[0],
                args.jobs,
                args.modules,
                examples,
                args.timeout_factor,
                args.mutants,
            )
        mutants: dict[str, Mutant] = {}
        for run in runs:
            for m in collect(run):
                if m.status != "not checked" or m.name not in mutants:
                    mutants[m.name] = m
        ordered = sorted(mutants.values(), key=lambda m: (m.module, natural(m.name)))
        totals.extend(report(group, ordered, equivalents))
    # A module whose run was cut short may hold the mutant an entry is for.
    reported = {module for module, counts, _ in totals if not counts["not checked"]}
    for entry in equivalents:
        if not entry.used and entry.where.split(":", 1)[0] in reported:
            print(
                f"stale equivalence (line {entry.line_number}): {entry.where} || "
                f"{entry.mutated_line}"
            )
    print()
    print(f"{'module':<28} {'mutants':>7} {'killed':>7} {'equiv':>6} {'left':>5} {'kill rate':>9}")
    for module, counts, equivalent in totals:
        print(summary_line(module, counts, equivalent))
    return 0


_IGNORED = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    "mutants",
    "*.egg-info",
    ".venv",
    ".mypy_cache",
    ".ruff_cache",
)


def run_group(
    group: str,
    scratch: Path,
    jobs: int,
    only: list[str] | None = None,
    examples: int = 0,
    timeout_factor: float = 15.0,
    patterns: list[str] | None = None,
) -> None:
    modules, tests = GROUPS[group]
    if only:
        unknown = [m for m in only if m not in modules]
        if unknown:
            raise SystemExit(
                f"{group}: not in the group: {', '.join(unknown)} (has {', '.join(modules)})"
            )
        modules = [m for m in modules if m in only]
    # A recheck of an earlier run would lend its verdicts to this one.
    for old in (scratch, _recheck_dir(scratch)):
        if old.exists():
            shutil.rmtree(old)
    shutil.copytree(ROOT, scratch, ignore=_IGNORED)
    config = "\n".join(
        [
            "",
            "[tool.mutmut]",
            'source_paths = ["bughouse_arbiter"]',
            "only_mutate = " + json.dumps([f"bughouse_arbiter/{m}" for m in modules]),
            "pytest_add_cli_args_test_selection = " + json.dumps([f"tests/{t}" for t in tests]),
            'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-x"]',
            # Files some tests read (the protocol's tables, the engines).
            'also_copy = ["protocol.md", "README.md", "docs", "engines"]',
            "use_git_change_detection = false",
            f"timeout_multiplier = {timeout_factor}",
            "",
        ]
    )
    with (scratch / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write(config)
    # A recheck runs the property tests as the run did.
    (scratch / EXAMPLES_FILE).write_text(f"{examples}\n", encoding="utf-8")
    capped = f", at most {examples} examples a property test" if examples else ""
    print(
        f"{group}: mutating {', '.join(modules)} in {scratch}{capped} (log: {scratch}/mutmut.log)",
        flush=True,
    )
    _mutmut(
        scratch,
        ["run", "--max-children", str(jobs), *(patterns or [])],
        examples=examples,
        group=group,
    )


def resume_group(group: str, scratch: Path, jobs: int) -> None:
    """Goes on with a run that was stopped (mutmut keeps every verdict it
    reached): the mutants not checked yet are run with the current tests (new
    ones are mapped to the functions they reach) and the group's current
    ``DESELECT``; the mutated code is the run's."""
    left = sum(m.status == "not checked" for m in _collect(scratch))
    for tests in (scratch / "tests", scratch / "mutants" / "tests"):
        shutil.rmtree(tests)
        shutil.copytree(ROOT / "tests", tests, ignore=_IGNORED)
    _refresh_unmutated_code(scratch, scratch)
    print(f"{group}: resuming the run in {scratch}: {left} mutants not checked yet", flush=True)
    _mutmut(
        scratch,
        ["run", "--max-children", str(jobs)],
        append=True,
        examples=_examples_of(scratch),
        group=group,
    )


def recheck_group(
    group: str,
    scratch: Path,
    jobs: int,
    equivalents: list[Equivalent],
    every_test: bool = False,
    examples: int | None = None,
) -> None:
    """Reruns the survivors of ``scratch`` with the current tests, in a copy
    (``<scratch>-recheck``) so that a run still going in ``scratch`` is left alone;
    the report then takes the copy's verdicts over the original's. Without
    ``every_test`` the group's ``DESELECT`` tests are left out, as in the run.
    ``examples`` (``--examples``) caps the property tests' examples instead of
    the run's cap: fewer examples than the run's make the survivors a bound."""
    marked = {(e.where, e.mutated_line) for e in equivalents}
    # Every survivor of the run, not only those an earlier recheck left: the
    # copy is made afresh from the run, so an earlier recheck's kills would be lost.
    left = [
        m.name
        for m in _collect(scratch)
        if m.status not in ("killed", "timeout", "not checked") and m.key not in marked
    ]
    copy = _recheck_dir(scratch)
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(scratch, copy, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    for tests in (copy / "tests", copy / "mutants" / "tests"):
        shutil.rmtree(tests)
        shutil.copytree(ROOT / "tests", tests, ignore=_IGNORED)
    _refresh_unmutated_code(scratch, copy)
    # mutmut maps tests to the functions they reach only for tests it has not
    # seen: an edited test must be mapped again, so the map is made afresh.
    (copy / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    # The group may have gained test files since the run.
    # Runs made before DESELECT went through the environment named the tests
    # they left out here.
    config = copy / "pyproject.toml"
    rewritten = {
        "pytest_add_cli_args_test_selection = ": json.dumps(
            [f"tests/{t}" for t in GROUPS[group][1]]
        ),
        "pytest_add_cli_args = ": json.dumps(["-p", "no:cacheprovider", "-q", "-x"]),
    }
    lines = []
    for line in config.read_text(encoding="utf-8").splitlines(keepends=True):
        key = next((k for k in rewritten if line.startswith(k)), None)
        lines.append(key + rewritten[key] + "\n" if key else line)
    config.write_text("".join(lines), encoding="utf-8")
    which = "every test" if every_test or not DESELECT.get(group) else "the run's selection"
    print(
        f"{group}: rechecking {len(left)} survivors with the current tests ({which}) in {copy}",
        flush=True,
    )
    _mutmut(
        copy,
        ["run", "--max-children", str(jobs), *left],
        examples=_examples_of(scratch) if examples is None else examples,
        group=None if every_test else group,
    )


def _refresh_unmutated_code(scratch: Path, copy: Path) -> None:
    """Brings the code the run did not mutate up to date in ``copy`` (the tests
    may rely on a fix made since); a mutated module that changed since the run
    is left as it was, with a warning: its verdicts are for the code of the run."""
    mutated: list[str] = []
    for line in (scratch / "pyproject.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("only_mutate = "):
            mutated = json.loads(line.split("=", 1)[1])
    for source in sorted((ROOT / "bughouse_arbiter").rglob("*.py")):
        name = source.relative_to(ROOT).as_posix()
        if "__pycache__" in name:
            continue
        current = source.read_bytes()
        old = scratch / name
        if old.exists() and old.read_bytes() == current:
            continue
        if name in mutated:
            print(
                f"warning: {name} changed since the run; its mutants stay those of the "
                "run's code (run the group again to mutate the new code)",
                file=sys.stderr,
            )
            continue
        for target in (copy / name, copy / "mutants" / name):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(current)


def _recheck_dir(scratch: Path) -> Path:
    return scratch.with_name(scratch.name + "-recheck")


#: Address space of mutmut and each mutant's process: a mutant that loops
#: appending for ever (``i += 2`` made ``i = 2``) gets a MemoryError (a kill)
#: instead of filling the shared machine's memory before its timeout.
MEMORY_LIMIT = 4 << 30
_NICE_AND_LIMITED = ["nice", "-n", "15", "prlimit", f"--as={MEMORY_LIMIT}"]

#: Where a run notes its --examples, for its rechecks.
EXAMPLES_FILE = "mutation-examples"


def _examples_of(scratch: Path) -> int:
    try:
        return int((scratch / EXAMPLES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0  # a run made before --examples existed


def _mutmut(
    scratch: Path,
    args: list[str],
    *,
    append: bool = False,
    examples: int = 0,
    group: str | None = None,
) -> None:
    """Runs mutmut in ``scratch``; with ``group``, without the group's ``DESELECT``
    tests."""
    ours = ("PYTHONPATH", EXAMPLES_VARIABLE, DESELECT_VARIABLE)
    env = {k: v for k, v in os.environ.items() if k not in ours}
    # tests/conftest.py: few, fixed hypothesis examples, property tests last,
    # functools caches emptied before each test.
    env["BUGHOUSE_MUTATION"] = "1"
    if examples:
        env[EXAMPLES_VARIABLE] = str(examples)
    if group is not None and DESELECT.get(group):
        env[DESELECT_VARIABLE] = "\n".join(DESELECT[group])
    path = scratch / "mutmut.log"
    with path.open("a" if append else "w", encoding="utf-8") as log:
        start = log.tell()
        subprocess.run(
            [*_NICE_AND_LIMITED, str(VENV_BIN / "mutmut"), *args],
            cwd=scratch,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            check=False,
        )
    with path.open(encoding="utf-8", errors="replace") as log:
        log.seek(start)
        said = log.read()
    if _CLEAN_RUN_FAILED in said:
        # mutmut then checks no mutant; a report would call them all survivors.
        raise SystemExit(
            f"the tests fail on the unmutated code in {scratch}, so no mutant was "
            f"checked (see {path}); a recheck keeps the run's code: after changing "
            "a mutated module, run the group again"
        )


#: What mutmut 3 says when the tests fail before any mutant is tried.
_CLEAN_RUN_FAILED = "failed to collect stats"


_COLLECT = r"""
import json, pathlib, sys
KILLED = {KILLED}
from mutmut.mutation.diff_apply import get_diff_for_mutant
out = {}
for meta in pathlib.Path("mutants").rglob("*.py.meta"):
    source = meta.with_suffix("")
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    for name, code in codes.items():
        wanted = code is not None and code not in KILLED
        diff = get_diff_for_mutant(name, path=source.relative_to("mutants")) if wanted else ""
        out[name] = [str(source.relative_to("mutants/bughouse_arbiter")), code, diff]
json.dump(out, sys.stdout)
"""


def collect(scratch: Path) -> list[Mutant]:
    """Every mutant of the last run in ``scratch``, with a diff for those not killed;
    where a recheck ran, its verdict replaces the first one."""
    mutants = {m.name: m for m in _collect(scratch)}
    recheck = _recheck_dir(scratch)
    if (recheck / "mutants").is_dir():
        for m in _collect(recheck):
            if m.status != "not checked" and m.name in mutants:
                mutants[m.name] = m
    return sorted(mutants.values(), key=lambda m: (m.module, natural(m.name)))


def _collect(scratch: Path) -> list[Mutant]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-c", _COLLECT.replace("{KILLED}", repr(KILLED_CODES))],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    mutants = []
    for name, (module, code, diff) in json.loads(done.stdout).items():
        mutants.append(
            Mutant(
                name=name,
                module=module,
                function=function_of(name),
                status=status_of(code),
                diff=diff,
            )
        )
    return sorted(mutants, key=lambda m: (m.module, natural(m.name)))


def function_of(name: str) -> str:
    """``bughouse_arbiter.core.clock.xǁClocksǁdeadline__mutmut_9`` -> ``Clocks.deadline``."""
    last = name.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1]
    if last.startswith("xǁ"):
        return ".".join(part for part in last[2:].split("ǁ") if part)
    return last[2:] if last.startswith("x_") else last


def status_of(code: int | None) -> str:
    if code is None:
        return "not checked"
    if code in TIMEOUT_CODES:
        return "timeout"
    if code in KILLED_CODES:
        return "killed"
    if code in SURVIVED_CODES:
        return "survived"
    if code in NO_TESTS_CODES:
        return "no tests"
    return f"exit {code}"


def natural(name: str) -> tuple[str, int]:
    head, _, number = name.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def read_equivalents(path: Path) -> list[Equivalent]:
    entries: list[Equivalent] = []
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" || ")]
        if len(parts) != 3 or not parts[2]:
            raise SystemExit(f"{path}:{number}: expected '<module>:<function> || <line> || <why>'")
        entries.append(Equivalent(parts[0], parts[1], parts[2], number))
    return entries


def report(
    group: str, mutants: list[Mutant], equivalents: list[Equivalent]
) -> list[tuple[str, Counter[str], int]]:
    by_key: dict[tuple[str, str], list[Equivalent]] = {}
    for entry in equivalents:
        by_key.setdefault((entry.where, entry.mutated_line), []).append(entry)
    rows = []
    print(f"\n== {group}")
    for module in sorted({m.module for m in mutants}):
        mine = [m for m in mutants if m.module == module]
        counts = Counter(m.status for m in mine)
        equivalent = 0
        for m in mine:
            if m.status in ("killed", "timeout", "not checked"):
                continue
            marks = by_key.get(m.key)
            if marks:
                for mark in marks:
                    mark.used = True
                equivalent += 1
                continue
            print(f"  {m.status:<9} {module}:{m.function}  {m.original_line}  ->  {m.mutated_line}")
        rows.append((module, counts, equivalent))
    return rows


def summary_line(module: str, counts: Counter[str], equivalent: int) -> str:
    unchecked = counts["not checked"]
    checked = sum(counts.values()) - unchecked
    killed = counts["killed"] + counts["timeout"]
    left = checked - killed - equivalent
    judged = checked - equivalent
    rate = f"{100 * killed / judged:.1f}%" if judged else "-"
    line = f"{module:<28} {checked:>7} {killed:>7} {equivalent:>6} {left:>5} {rate:>9}"
    if counts["timeout"]:
        line += f"  ({counts['timeout']} of the kills by timeout)"
    if unchecked:
        line += f"  (+{unchecked} not checked yet: the run was cut short)"
    return line


if __name__ == "__main__":
    sys.exit(main())
