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
(``/tmp/mut-<group>-recheck``) of the scratch folder; the code under test must
be what the first run mutated. The report takes the recheck's verdicts.

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
            "test_game.py",
            "test_rules.py",
            "test_clock.py",
            "test_model.py",
            "test_conservation.py",
        ],
    ),
    "table": (["table/arbiter.py"], ["test_arbiter.py"]),
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
        ["test_bpgn_read.py", "test_bpgn_write.py", "test_bpgn_roundtrip.py", "test_replay.py"],
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

#: mutmut's exit codes (mutmut/stats.py) folded into what the report counts.
KILLED_CODES = {1, 3, 36, -24, 24, 152, 255, 37}  # failed, pytest error, timeout, type error
SURVIVED_CODES = {0}
NO_TESTS_CODES = {5, 33}


@dataclass
class Mutant:
    name: str
    module: str  # e.g. core/clock.py
    function: str  # e.g. Clocks.deadline
    status: str  # killed | survived | no tests | not checked | other
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
        "--modules",
        nargs="+",
        metavar="MODULE",
        help="mutate only these modules of the group (e.g. bpgn/write.py), for a shorter run",
    )
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument(
        "--scratch",
        type=Path,
        default=Path("/tmp"),
        help="where the mut-<group> copies go (default /tmp)",
    )
    args = parser.parse_args(argv)
    groups = args.groups or list(GROUPS)
    equivalents = read_equivalents(EQUIVALENT_FILE)
    totals: list[tuple[str, Counter[str], int]] = []
    for group in groups:
        scratch = args.scratch / f"mut-{group}"
        if (args.report or args.recheck) and not (scratch / "mutants").is_dir():
            print(f"{group}: no run to report in {scratch}", file=sys.stderr)
            return 2
        if args.recheck:
            recheck_group(group, scratch, args.jobs, equivalents)
        elif not args.report:
            run_group(group, scratch, args.jobs, args.modules)
        mutants = collect(scratch)
        totals.extend(report(group, mutants, equivalents))
    stale = [e for e in equivalents if not e.used]
    for entry in stale:
        if any(entry.where.startswith(GROUPS[g][0][0].split("/")[0]) for g in groups):
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


def run_group(group: str, scratch: Path, jobs: int, only: list[str] | None = None) -> None:
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
            "",
        ]
    )
    with (scratch / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write(config)
    print(
        f"{group}: mutating {', '.join(modules)} in {scratch} (log: {scratch}/mutmut.log)",
        flush=True,
    )
    _mutmut(scratch, ["run", "--max-children", str(jobs)])


def recheck_group(group: str, scratch: Path, jobs: int, equivalents: list[Equivalent]) -> None:
    """Reruns the survivors of ``scratch`` with the current tests, in a copy
    (``<scratch>-recheck``) so that a run still going in ``scratch`` is left alone;
    the report then takes the copy's verdicts over the original's."""
    marked = {(e.where, e.mutated_line) for e in equivalents}
    # Every survivor of the run, not only those an earlier recheck left: the
    # copy is made afresh from the run, so an earlier recheck's kills would be lost.
    left = [
        m.name
        for m in _collect(scratch)
        if m.status not in ("killed", "not checked") and m.key not in marked
    ]
    copy = _recheck_dir(scratch)
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(scratch, copy, ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    for tests in (copy / "tests", copy / "mutants" / "tests"):
        shutil.rmtree(tests)
        shutil.copytree(ROOT / "tests", tests, ignore=_IGNORED)
    # mutmut maps tests to the functions they reach only for tests it has not
    # seen: an edited test must be mapped again, so the map is made afresh.
    (copy / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    # The group may have gained test files since the run.
    config = copy / "pyproject.toml"
    selection = "pytest_add_cli_args_test_selection = "
    config.write_text(
        "".join(
            selection + json.dumps([f"tests/{t}" for t in GROUPS[group][1]]) + "\n"
            if line.startswith(selection)
            else line
            for line in config.read_text(encoding="utf-8").splitlines(keepends=True)
        ),
        encoding="utf-8",
    )
    print(f"{group}: rechecking {len(left)} survivors with the current tests in {copy}", flush=True)
    _mutmut(copy, ["run", "--max-children", str(jobs), *left])


def _recheck_dir(scratch: Path) -> Path:
    return scratch.with_name(scratch.name + "-recheck")


def _mutmut(scratch: Path, args: list[str], *, append: bool = False) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # tests/conftest.py: few, fixed hypothesis examples, property tests last.
    env["BUGHOUSE_MUTATION"] = "1"
    with (scratch / "mutmut.log").open("a" if append else "w", encoding="utf-8") as log:
        subprocess.run(
            ["nice", "-n", "15", str(VENV_BIN / "mutmut"), *args],
            cwd=scratch,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            check=False,
        )


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
    entries = []
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
            if m.status in ("killed", "not checked"):
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
    killed = counts["killed"]
    left = checked - killed - equivalent
    judged = checked - equivalent
    rate = f"{100 * killed / judged:.1f}%" if judged else "-"
    line = f"{module:<28} {checked:>7} {killed:>7} {equivalent:>6} {left:>5} {rate:>9}"
    if unchecked:
        line += f"  (+{unchecked} not checked yet: the run was cut short)"
    return line


if __name__ == "__main__":
    sys.exit(main())
