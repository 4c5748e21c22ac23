"""The tournament's folder: ``results.jsonl`` (the journal), ``games.bpgn``, ``tournament.json``.

The journal is the truth: one JSON line per finished game (the job's place
in the schedule and its ``MatchReport``, BPGN text included), written and
fsynced before anything else hears of the game (``Journal.append_all``: the
games that finished together in one write and one fsync per file). A crash or power loss loses
at most the games in flight and, at worst, leaves a torn last line.
``games.bpgn`` is rebuilt from the journal when a tournament resumes, then
appended to (and fsynced) game by game, so it always holds exactly the
journal's games. ``tournament.json`` keeps the options the tournament was
started with, for ``--resume``. Derived from the journal, on request:
``games/game-N.bpgn``, each game in a file of its own, written as it is
journaled (``--game-files``), and ``final.epd``, every game's last positions,
rewritten when a session ends (``--final-positions``).

Reading it back (``read``) never fails on a line: each one is a game's
record (``Line.report``) or says why it is not (``Line.why``): torn, not
JSON, not an object, a report that cannot be read. A resume keeps the
records of scheduled games (the first of each) and sets every other line
aside: ``Journal.open`` appends them, with their line number and why, to
``results.set-aside.jsonl`` before it rewrites the journal, so no line is
ever lost, and the games they held are played again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

import attrs

from ..errors import ConfigError
from .jobs import MatchJob, MatchReport

JOURNAL = "results.jsonl"
GAMES = "games.bpgn"
CONFIG = "tournament.json"
SUMMARY = "summary.json"
#: ``--game-files``: the folder of one file per game, ``game-N.bpgn`` (N its ``[Round]``).
GAME_FILES = "games"
#: ``--final-positions``: one line per game, ``game-N | FEN_A | FEN_B``.
FINAL_POSITIONS = "final.epd"
#: Where a resume puts the journal's lines it does not keep (one JSON object a line).
SET_ASIDE = "results.set-aside.jsonl"
#: The keys of a journal line that give the game's place in the schedule.
PLACE = ("number", "pairing", "game", "sides")


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
    #: Its place in the schedule as the line gives it (``number``, ``pairing``,
    #: ``game``, ``sides``), when it is a JSON object.
    place: Mapping[str, object] | None = None
    #: Where its bytes start and end in the file (its LF not included), and
    #: whether ``text`` and an LF are those bytes exactly (valid UTF-8, LF-ended).
    start: int = 0
    end: int = 0
    exact: bool = True

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
    return list(scan(folder))


def scan(folder: Path) -> Iterator[Line]:
    """``read``, a line at a time: memory holds one line, however long the journal."""
    path = folder / JOURNAL
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        number = start = 0
        while True:
            try:
                # Only LF ends a line (not CR, nor U+2028 and the like), as the journal writes them.
                raw = handle.readline()
            except OSError as exc:
                raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
            if not raw:
                return
            number += 1
            torn = not raw.endswith(b"\n")  # no LF after it: the run stopped mid-line
            body = raw if torn else raw[:-1]
            try:
                row, exact = body.decode("utf-8"), not torn
            except UnicodeDecodeError:
                row, exact = body.decode("utf-8", errors="replace"), False
            if row.strip():
                line = _line(number, row, torn=torn)
                yield attrs.evolve(line, start=start, end=start + len(body), exact=exact)
            start += len(raw)


def _line(number: int, text: str, *, torn: bool) -> Line:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        why = "cut short, as by a run stopped mid-line" if torn else "not JSON"
        return Line(number=number, text=text, why=why)
    if not isinstance(data, dict):
        return Line(number=number, text=text, why=f"{_json_kind(data)}, not a game's record")
    place = {key: data.get(key) for key in PLACE}
    job_id = data.get("job_id")
    job_id = job_id if isinstance(job_id, str) else None
    report_data = data.get("report")
    if not isinstance(report_data, dict):
        why = "no report" if report_data is None else f"its report is {_json_kind(report_data)}"
        return Line(number=number, text=text, why=why, job_id=job_id, place=place)
    try:
        report = MatchReport.from_dict(report_data)
    except (ValueError, KeyError, TypeError, OverflowError) as exc:
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        return Line(
            number=number,
            text=text,
            why=f"its report cannot be read ({detail})",
            job_id=job_id,
            place=place,
        )
    if report.job_id != job_id:
        return Line(
            number=number,
            text=text,
            report=report,
            why=f"its job_id {data.get('job_id')!r} is not its report's {report.job_id!r}"[:300],
            job_id=job_id,
            place=place,
        )
    return Line(number=number, text=text, report=report, job_id=job_id, place=place)


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
    data = line.place if line.place is not None else json.loads(line.text)
    wanted = entry(job, report)
    if any(data.get(key) != wanted[key] for key in PLACE):
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

    def __init__(self, folder: Path, *, game_files: bool = False) -> None:
        self.folder = folder
        #: Each game also goes to ``GAME_FILES/game-N.bpgn`` (not fsynced: the
        #: journal and ``games.bpgn`` are the durable record).
        self.game_files = game_files
        self._journal: IO[str] | None = None
        self._games: IO[str] | None = None

    def open(self, kept: Sequence[Line] = (), aside: Sequence[Line] = ()) -> None:
        """Appends the ``aside`` lines to ``SET_ASIDE``, rewrites the journal to
        hold exactly the ``kept`` lines (in order) and ``games.bpgn`` their games
        (in ``kept``'s order too), then opens both to append."""
        _set_aside(self.folder, aside)
        reports = [line.report for line in kept if line.usable and line.report is not None]
        in_order = sorted(kept, key=lambda line: line.number)
        _write_atomic(self.folder / JOURNAL, "".join(line.text + "\n" for line in in_order))
        _write_atomic(self.folder / GAMES, "".join(_game_text(r) for r in reports))
        self.open_to_append()

    def open_to_append(self) -> None:
        """Opens the journal and ``games.bpgn`` as they are, to append."""
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
        if self.game_files:
            (self.folder / GAME_FILES).mkdir(exist_ok=True)
            for job, report in games:
                _write_atomic(
                    self.folder / GAME_FILES / f"game-{job.number}.bpgn",
                    _game_text(report),
                    durable=False,
                )

    def close(self) -> None:
        for handle in (self._journal, self._games):
            if handle is not None:
                handle.close()
        self._journal = self._games = None


class Rebuild:
    """What ``Journal.open(kept, aside)`` does, for lines given one at a time
    (``keep`` or ``leave`` each, in the journal's order). Each file is
    rewritten only from where it first differs from what it must hold (the
    bytes before copied as they are): the journal from its first line not
    kept byte for byte (one set aside, a blank or unreadable one),
    ``games.bpgn`` from the first byte that is not the kept lines' games in
    turn (a game the run did not append before it stopped). ``finish``
    appends the lines left to ``SET_ASIDE``, then puts both files in place;
    nothing is changed before (``abandon`` removes what was written)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._games_tmp = folder / (GAMES + ".tmp")
        self._journal_tmp = folder / (JOURNAL + ".tmp")
        self._games: IO[bytes] | None = None
        self._journal: IO[bytes] | None = None
        #: Bytes of the journal kept as they are so far (all of it, while ``_journal`` is None).
        self._verbatim = 0
        #: ``games.bpgn`` as it is, read alongside, and how much of it is right so far.
        self._games_old: IO[bytes] | None = None
        with contextlib.suppress(FileNotFoundError):
            self._games_old = (folder / GAMES).open("rb")
        self._games_same = 0

    def keep(self, line: Line) -> None:
        assert line.report is not None
        game = _game_text(line.report).encode("utf-8")
        if self._games is None and self._games_old is not None:
            if self._games_old.read(len(game)) == game:
                self._games_same += len(game)
            else:
                self._games_writing().write(game)
        else:
            self._games_writing().write(game)
        if self._journal is None and line.exact and line.start == self._verbatim:
            self._verbatim = line.end + 1
            return
        self._rewriting().write((line.text + "\n").encode("utf-8"))

    def leave(self, line: Line) -> None:
        self._rewriting()

    def _rewriting(self) -> IO[bytes]:
        if self._journal is None:
            self._journal = self._journal_tmp.open("wb")
            _copy_start(self.folder / JOURNAL, self._journal, self._verbatim)
        return self._journal

    def _games_writing(self) -> IO[bytes]:
        if self._games is None:
            self._games = self._games_tmp.open("wb")
            _copy_start(self.folder / GAMES, self._games, self._games_same)
        return self._games

    def finish(self, aside: Sequence[Line]) -> None:
        _set_aside(self.folder, aside)
        path = self.folder / JOURNAL
        size = path.stat().st_size if path.exists() else 0
        if self._journal is None and self._verbatim != size:
            self._rewriting()  # blank lines after the last kept one
        if self._games is None and (self._games_old is None or self._games_old.read(1)):
            self._games_writing()  # none yet, or more than the journal's games
        if self._games_old is not None:
            self._games_old.close()
        handles: tuple[tuple[IO[bytes] | None, Path, Path], ...] = (
            (self._journal, self._journal_tmp, path),
            (self._games, self._games_tmp, self.folder / GAMES),
        )
        for written, tmp, final in handles:
            if written is not None:
                written.flush()
                os.fsync(written.fileno())
                written.close()
                os.replace(tmp, final)
        self._journal = self._games = None

    def abandon(self) -> None:
        if self._games_old is not None:
            self._games_old.close()
        handles: tuple[tuple[IO[bytes] | None, Path], ...] = (
            (self._journal, self._journal_tmp),
            (self._games, self._games_tmp),
        )
        for handle, tmp in handles:
            if handle is not None:
                handle.close()
                tmp.unlink(missing_ok=True)
        self._journal = self._games = None


def _copy_start(source: Path, target: IO[bytes], size: int) -> None:
    """Writes the first ``size`` bytes of ``source`` to ``target``."""
    if size <= 0:
        return
    with source.open("rb") as handle:
        while size > 0 and (chunk := handle.read(min(size, 1 << 20))):
            target.write(chunk)
            size -= len(chunk)


def write_summary(folder: Path, summary: dict[str, object]) -> None:
    _write_atomic(folder / SUMMARY, json.dumps(summary, indent=2, ensure_ascii=False) + "\n")


def _game_text(report: MatchReport) -> str:
    text = report.bpgn.rstrip("\n")
    return text + "\n\n" if text else ""


def _set_aside(folder: Path, aside: Sequence[Line]) -> None:
    """Appends the ``aside`` lines (number, why, text) to ``SET_ASIDE``, durably."""
    if not aside:
        return
    with (folder / SET_ASIDE).open("a", encoding="utf-8") as handle:
        _durable(
            handle,
            "".join(
                json.dumps({"line": line.number, "why": line.why, "text": line.text}) + "\n"
                for line in aside
            ),
        )


def _durable(handle: IO[str], text: str) -> None:
    handle.write(text)
    handle.flush()
    os.fsync(handle.fileno())


def _write_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_final_positions(
    folder: Path, games: Iterable[tuple[MatchJob, MatchReport]]
) -> int:
    """Writes ``FINAL_POSITIONS``: per game with its last positions (journals
    written before they were kept have none), ``game-N | FEN_A | FEN_B``, the
    form of a book of position pairs. Returns the lines written."""
    lines = [
        f"game-{job.number} | {report.final_fens[0]} | {report.final_fens[1]}\n"
        for job, report in games
        if len(report.final_fens) == 2
    ]
    _write_atomic(folder / FINAL_POSITIONS, "".join(lines), durable=False)
    return len(lines)
