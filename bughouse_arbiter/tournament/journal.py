"""The tournament's folder: ``results.jsonl`` (the journal), ``games.bpgn``, ``tournament.json``.

The journal is the truth: one JSON line per finished game (the job's place
in the schedule and its ``MatchReport``, BPGN text included), written and
fsynced before anything else hears of the game. A crash or power loss loses
at most the games in flight and, at worst, leaves a torn last line, which
``load`` ignores (and ``open`` cuts off). ``games.bpgn`` is rebuilt from the
journal when a tournament resumes, then appended to (and fsynced) game by
game, so it always holds exactly the journal's games. ``tournament.json``
keeps the options the tournament was started with, for ``--resume``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from ..errors import ConfigError
from .jobs import MatchJob, MatchReport

JOURNAL = "results.jsonl"
GAMES = "games.bpgn"
CONFIG = "tournament.json"
SUMMARY = "summary.json"


def save_config(folder: Path, options: Mapping[str, object]) -> None:
    _write_atomic(folder / CONFIG, json.dumps({"options": dict(options)}, indent=1) + "\n")


def load_config(folder: Path) -> dict[str, object]:
    """The options saved by ``save_config``."""
    path = folder / CONFIG
    try:
        data = json.loads(path.read_text("utf-8"))
        options = data["options"]
        if not isinstance(options, dict):
            raise TypeError
        return options
    except FileNotFoundError:
        raise ConfigError(
            f"--resume {str(folder)!r}: no {CONFIG} (not a tournament folder)"
        ) from None
    except (OSError, ValueError, TypeError, KeyError):
        raise ConfigError(f"--resume {str(folder)!r}: {CONFIG} cannot be read") from None


def entry(job: MatchJob, report: MatchReport) -> dict[str, object]:
    return {
        "job_id": job.job_id,
        "number": job.number,
        "pairing": job.pairing,
        "game": job.game,
        "sides": {str(int(team)): name for team, name in job.sides.items()},
        "report": report.to_dict(),
    }


def load(folder: Path) -> dict[str, MatchReport]:
    """The reports in the journal by job id (the first of any duplicate; a torn line ignored)."""
    path = folder / JOURNAL
    reports: dict[str, MatchReport] = {}
    try:
        text = path.read_text("utf-8", errors="replace")
    except FileNotFoundError:
        return reports
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    for line in text.splitlines():
        try:
            data = json.loads(line)
            report = MatchReport.from_dict(data["report"])
        except (ValueError, KeyError, TypeError):
            continue
        reports.setdefault(report.job_id, report)
    return reports


class Journal:
    """Appends finished games to the journal and to ``games.bpgn``, durably."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._journal: IO[str] | None = None
        self._games: IO[str] | None = None

    def open(self, kept: Sequence[MatchReport]) -> None:
        """Rewrites both files to hold exactly ``kept`` (in order), then opens them to append."""
        lines = []
        path = self.folder / JOURNAL
        if path.exists():
            for line in path.read_text("utf-8", errors="replace").splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    continue  # a torn last line
                lines.append(line + "\n")
        wanted = {r.job_id for r in kept}
        seen: set[str] = set()
        good = []
        for line in lines:
            job_id = json.loads(line).get("job_id")
            if job_id in wanted and job_id not in seen:
                seen.add(job_id)
                good.append(line)
        _write_atomic(path, "".join(good))
        _write_atomic(self.folder / GAMES, "".join(_game_text(r) for r in kept))
        self._journal = (self.folder / JOURNAL).open("a", encoding="utf-8")
        self._games = (self.folder / GAMES).open("a", encoding="utf-8")

    def append(self, job: MatchJob, report: MatchReport) -> None:
        assert self._journal is not None and self._games is not None
        _durable(self._journal, json.dumps(entry(job, report), ensure_ascii=False) + "\n")
        _durable(self._games, _game_text(report))

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
