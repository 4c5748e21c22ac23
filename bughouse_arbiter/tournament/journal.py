"""The tournament's folder: ``results.jsonl`` (the journal), ``games.bpgn``, ``tournament.json``.

The journal is the truth: one JSON line per finished game (the job's place
in the schedule and its ``MatchReport``, BPGN text included), written and
fsynced before anything else hears of the game (``Journal.append_all``: the
games that finished together in one write and one fsync per file). A crash or power loss loses
at most the games in flight and, at worst, leaves a torn last line.
``games.bpgn`` is rebuilt from the journal when a tournament resumes, then
appended to (and fsynced) game by game, so it always holds exactly the
journal's games. ``tournament.json`` keeps the options the tournament was
started with, for ``--resume``.

Reading it back (``read``) never fails on a line: each one is a game's
record (``Line.report``) or says why it is not (``Line.why``): torn, not
JSON, not an object, a report that cannot be read. A resume keeps the
records of scheduled games (the first of each) and sets every other line
aside: ``Journal.open`` appends them, with their line number and why, to
``results.set-aside.jsonl`` before it rewrites the journal, so no line is
ever lost, and the games they held are played again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

import attrs

from ..errors import ConfigError
from .jobs import MatchJob, MatchReport

JOURNAL = "results.jsonl"
GAMES = "games.bpgn"
CONFIG = "tournament.json"
SUMMARY = "summary.json"
#: Where a resume puts the journal's lines it does not keep (one JSON object a line).
SET_ASIDE = "results.set-aside.jsonl"


def save_config(folder: Path, options: Mapping[str, object]) -> None:
    _write_atomic(folder / CONFIG, json.dumps({"options": dict(options)}, indent=1) + "\n")


def load_config(folder: Path) -> dict[str, object]:
    """The options saved by ``save_config``: ConfigError, one line naming the
    file (and the line, for broken JSON), if they cannot be read. The values'
    types are the caller's to check."""
    path = folder / CONFIG
    where = f"--resume {str(folder)!r}: {path}"
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"--resume {str(folder)!r}: no {CONFIG} (not a tournament folder)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{where} cannot be read: it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where} line {exc.lineno}: not JSON ({exc.msg})") from None
    except (ValueError, RecursionError):
        raise ConfigError(f"{where} cannot be read: not JSON") from None
    options = data.get("options") if isinstance(data, dict) else None
    if not isinstance(options, dict):
        raise ConfigError(f'{where} holds no "options" object (not a tournament\'s options)')
    return options


def entry(job: MatchJob, report: MatchReport) -> dict[str, object]:
    return {
        "job_id": job.job_id,
        "number": job.number,
        "pairing": job.pairing,
        "game": job.game,
        "sides": {str(int(team)): name for team, name in job.sides.items()},
        "report": report.to_dict(),
    }


@attrs.frozen(kw_only=True)
class Line:
    """One line of the journal: a game's record, or why it is not one."""

    #: 1-based, as an editor counts them.
    number: int
    text: str
    #: Its report, if it could be read (also when the line is not kept).
    report: MatchReport | None = None
    #: Why it is not kept ("" when it is a game's record).
    why: str = ""
    #: The job id it gives (``job_id``), if it gives one, even when it cannot be read.
    job_id: str | None = None

    @property
    def usable(self) -> bool:
        return not self.why and self.report is not None

    @property
    def names(self) -> set[str]:
        """The job ids it names: its own and its report's."""
        found = {self.job_id} if self.job_id is not None else set()
        if self.report is not None:
            found.add(self.report.job_id)
        return found

    def set_aside(self, why: str) -> Line:
        """This line, not kept, and why."""
        return attrs.evolve(self, why=why)


def read(folder: Path) -> list[Line]:
    """Every line of the journal (blank ones left out), read or not."""
    path = folder / JOURNAL
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    # Only LF ends a line (not CR, nor U+2028 and the like), as the journal writes them.
    rows = text.split("\n")
    lines = []
    for number, row in enumerate(rows, 1):
        if row.strip():
            torn = number == len(rows)  # no LF after it: the run stopped mid-line
            lines.append(_line(number, row, torn=torn))
    return lines


def _line(number: int, text: str, *, torn: bool) -> Line:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        why = "cut short, as by a run stopped mid-line" if torn else "not JSON"
        return Line(number=number, text=text, why=why)
    if not isinstance(data, dict):
        return Line(number=number, text=text, why=f"{_json_kind(data)}, not a game's record")
    job_id = data.get("job_id")
    job_id = job_id if isinstance(job_id, str) else None
    report_data = data.get("report")
    if not isinstance(report_data, dict):
        why = "no report" if report_data is None else f"its report is {_json_kind(report_data)}"
        return Line(number=number, text=text, why=why, job_id=job_id)
    try:
        report = MatchReport.from_dict(report_data)
    except (ValueError, KeyError, TypeError, OverflowError) as exc:
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        return Line(
            number=number,
            text=text,
            why=f"its report cannot be read ({detail})",
            job_id=job_id,
        )
    if report.job_id != job_id:
        return Line(
            number=number,
            text=text,
            report=report,
            why=f"its job_id {data.get('job_id')!r} is not its report's {report.job_id!r}"[:300],
            job_id=job_id,
        )
    return Line(number=number, text=text, report=report, job_id=job_id)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def fits(line: Line, job: MatchJob) -> bool:
    """Whether the line's place in the schedule (number, pairing, game, sides)
    and its report's incidents are ``job``'s."""
    report = line.report
    if report is None:
        return False
    data = json.loads(line.text)
    wanted = entry(job, report)
    if any(data.get(key) != wanted[key] for key in ("number", "pairing", "game", "sides")):
        return False
    return all(i.participant == job.participant_at(i.seat) for i in report.incidents)


def load(folder: Path) -> dict[str, MatchReport]:
    """The reports in the journal by job id (the first of any duplicate; lines
    that are not a game's record left out)."""
    reports: dict[str, MatchReport] = {}
    for line in read(folder):
        if line.usable and line.report is not None:
            reports.setdefault(line.report.job_id, line.report)
    return reports


class Journal:
    """Appends finished games to the journal and to ``games.bpgn``, durably."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._journal: IO[str] | None = None
        self._games: IO[str] | None = None

    def open(self, kept: Sequence[Line] = (), aside: Sequence[Line] = ()) -> None:
        """Appends the ``aside`` lines to ``SET_ASIDE``, rewrites the journal to
        hold exactly the ``kept`` lines (in order) and ``games.bpgn`` their games
        (in ``kept``'s order too), then opens both to append."""
        if aside:
            with (self.folder / SET_ASIDE).open("a", encoding="utf-8") as handle:
                _durable(
                    handle,
                    "".join(
                        json.dumps({"line": line.number, "why": line.why, "text": line.text})
                        + "\n"
                        for line in aside
                    ),
                )
        reports = [line.report for line in kept if line.usable and line.report is not None]
        in_order = sorted(kept, key=lambda line: line.number)
        _write_atomic(self.folder / JOURNAL, "".join(line.text + "\n" for line in in_order))
        _write_atomic(self.folder / GAMES, "".join(_game_text(r) for r in reports))
        self._journal = (self.folder / JOURNAL).open("a", encoding="utf-8")
        self._games = (self.folder / GAMES).open("a", encoding="utf-8")

    def append(self, job: MatchJob, report: MatchReport) -> None:
        self.append_all([(job, report)])

    def append_all(self, games: Sequence[tuple[MatchJob, MatchReport]]) -> None:
        """Appends ``games`` with one write and one fsync per file (the journal first)."""
        assert self._journal is not None and self._games is not None
        _durable(
            self._journal,
            "".join(json.dumps(entry(j, r), ensure_ascii=False) + "\n" for j, r in games),
        )
        _durable(self._games, "".join(_game_text(r) for _, r in games))

    def close(self) -> None:
        for handle in (self._journal, self._games):
            if handle is not None:
                handle.close()
        self._journal = self._games = None


def write_summary(folder: Path, summary: dict[str, object]) -> None:
    _write_atomic(folder / SUMMARY, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")


def _game_text(report: MatchReport) -> str:
    text = report.bpgn.rstrip("\n")
    return text + "\n\n" if text else ""


def _durable(handle: IO[str], text: str) -> None:
    handle.write(text)
    handle.flush()
    os.fsync(handle.fileno())


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
