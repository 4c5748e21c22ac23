"""Recording a game: its BPGN written as it is played, by an observer of the arbiter.

``GameWriter`` is the one writer of a game's BPGN for every command and
backend: streamed into a BPGN file move by move (``match``, ``play``,
``serve``), or kept as text for a tournament's report (``out=None``). Either
way each move carries what its engine said of its search (``[%eval]``) and,
for a network seat, its lag (``[%lag]``).

It lives at the table, not in ``bpgn/``: it reads the arbiter's events;
``bpgn/`` stays the sans-IO format beneath it.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from pathlib import Path

import attrs

from ..adapters.search_info import parse_info
from ..bpgn import BpgnFile, BpgnRecorder, GameHeader, SearchInfo
from ..core.game import BughouseGame
from ..core.model import Seat
from ..errors import ConfigError
from .match_events import (
    DrawOffered,
    InfoReported,
    MatchEnded,
    MatchEvent,
    MatchStarted,
    MovePlayed,
    PartnerTold,
)

__all__ = ["GAMES_FOLDER", "GameWriter", "default_out", "make_folder"]

#: Where games go without ``--out`` (git-ignored in the project's own tree).
GAMES_FOLDER = Path("games")


def default_out(today: datetime.datetime) -> Path:
    """``games/bughouse-YYYYmmdd-HHMMSS.bpgn``."""
    return GAMES_FOLDER / f"bughouse-{today:%Y%m%d-%H%M%S}.bpgn"


def make_folder(out: Path) -> None:
    """Creates ``out``'s folder if it is missing (the default ``games/``)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make the folder {str(out.parent)!r}: {exc.strerror}") from None



class GameWriter:
    """Writes one game's BPGN as it is played (observer of the arbiter).

    ``out`` is the match's open ``BpgnFile`` (shared by its games), a path to
    open for this one game (closed when the game ends), or None: the game is
    kept, and ``text`` holds the whole of it once it has ended (a
    tournament's report). ``header`` gives the tags besides the date and time
    (``round`` from ``game_number`` when not given; ``players`` from the
    names at the start when empty); ``name_engines`` writes the names the
    players gave at the start as the seats' engines.
    """

    def __init__(
        self,
        out: BpgnFile | Path | None,
        *,
        game_number: int,
        games: int,
        header: GameHeader | None = None,
        name_engines: bool = False,
    ) -> None:
        self.path = out.path if isinstance(out, BpgnFile) else out
        self._file = out if isinstance(out, BpgnFile) else None
        self._owns_file = isinstance(out, Path)
        self._header = (
            header
            if header is not None
            else GameHeader(round=str(game_number) if games > 1 else "-")
        )
        self._name_engines = name_engines
        self.recorder: BpgnRecorder | None = None
        self._pending: dict[Seat, SearchInfo] = {}
        #: Why the file could not be written, if it could not.
        self.error: str | None = None
        #: The result written when the game ended (``*`` if it was aborted).
        self.final_result: str | None = None
        #: The whole game once it has ended, when ``out`` is None.
        self.text: str | None = None

    def add_lag(self, seat: Seat, lag_ms: int) -> None:
        """Records ``seat``'s network lag with its next move (``[%lag]``)."""
        info = self._pending.get(seat, SearchInfo())
        self._pending[seat] = attrs.evolve(info, lag_ms=lag_ms)

    def rename(self, players: Mapping[Seat, str]) -> None:
        """Names these seats' players so in the final tags (e.g. an engine that
        took a seat over: ``name / engine``)."""
        if self.recorder is not None:
            header = self.recorder.header
            named = {**header.players, **players}
            self.recorder.header = attrs.evolve(header, players=named)

    @property
    def players(self) -> Mapping[Seat, str]:
        """The seats' players as the tags name them now (empty before the start)."""
        return {} if self.recorder is None else dict(self.recorder.header.players)

    def observe(self, event: MatchEvent) -> None:
        """Writes what ``event`` added; after a failed write, writes nothing more."""
        if self.error is not None:
            return
        try:
            self._observe(event)
        except OSError as exc:
            self.error = f"cannot write {self.path}: {exc.strerror or exc}"
            self._close()
        except ConfigError as exc:
            self.error = str(exc)

    def _observe(self, event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):  # first: the event of every move
            if self.recorder is not None:
                seat = event.played.seat
                infos = (
                    {event.played.ply: self._pending.pop(seat)} if seat in self._pending else None
                )
                self._append(self.recorder.update(infos))
        elif isinstance(event, MatchStarted):
            self._open(event.game, event.names)
        elif isinstance(event, InfoReported):
            info = parse_info(event.text)
            if info is not None:
                self._pending[event.seat] = info
        elif isinstance(event, PartnerTold | DrawOffered) and self.recorder is not None:
            self._append(self.recorder.update())
        elif isinstance(event, MatchEnded):
            if self.recorder is None:
                self._open(event.game, event.names)
            assert self.recorder is not None
            if self._name_engines:  # as they told them, once every player has started
                self.recorder.header = attrs.evolve(self.recorder.header, engines=dict(event.names))
            if self.path is None:
                self.text = self.recorder.final_text()
            else:
                self._out().end_game(self.recorder.outcome_slot(), self.recorder.closing_text())
            self.final_result = event.outcome.result.value
            self.recorder = None  # the game is written: nothing of it is kept here
            self._close()

    def _append(self, text: str) -> None:
        if self.path is not None:  # kept text: the recorder holds the lines
            self._out().append(text)

    def _out(self) -> BpgnFile:
        if self._file is None:
            assert self.path is not None
            self._file = BpgnFile.open(self.path)
        return self._file

    def _close(self) -> None:
        if self._owns_file and self._file is not None:
            self._file.close()
            self._file = None

    def _open(self, game: BughouseGame, names: Mapping[Seat, str]) -> None:
        now = datetime.datetime.now(datetime.UTC)
        header = attrs.evolve(
            self._header,
            players=dict(self._header.players or names),
            engines=dict(names) if self._name_engines else dict(self._header.engines),
            date=f"{now:%Y.%m.%d}",
            time=f"{now:%H:%M:%S}",
        )
        self.recorder = BpgnRecorder(game, header)
        if self.path is not None:
            start = self.recorder.streamed_header()
            self._out().start_game(start.text, slot=start.slot)
