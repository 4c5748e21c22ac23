"""What a person sees of a match: the live table (or one line per move), and
the summary of several games (progress lines, running score, final table).

``Display`` observes the arbiter's events; ``GameSummary`` is what is kept of
a finished game for the table (a few names and numbers, so memory stays flat
in the number of games).
"""

from __future__ import annotations

import contextlib
import io
import os
import textwrap
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TextIO

import attrs
import trio

from ..core.clock import Clocks
from ..core.game import BughouseGame, PlayedMove
from ..core.model import SEATS, Result, Seat, Team
from ..environment import OutputGone
from ..table.match_events import (
    MatchEnded,
    MatchEvent,
    MatchRecord,
    MatchStarted,
    MovePlayed,
    MoveRefused,
    PartnerTold,
)
from .render import RenderOptions, move_line, render_table
from .safe_text import printable, printable_lines

__all__ = [
    "Display",
    "GameSummary",
    "game_summary",
    "progress_line",
    "score_text",
    "summary_table",
]

#: Live display refreshes per second (at least one, as promised).
REFRESH_HZ = 4
#: Characters of unflushed display text held before they are handed to the
#: output stream all the same (as its buffer would, were it buffered).
HELD_CHARS = 8192

class Display:
    """The live table on a terminal, or one line per move elsewhere."""

    def __init__(self, out: TextIO, *, live: bool, options: RenderOptions) -> None:
        self.out = out
        self.live = live
        self.options = options
        self.game: BughouseGame | None = None
        self.names: Mapping[Seat, str] = {}
        self.clocks: Clocks | None = None
        self.footer = ""
        self.message = ""
        self.cursor_hidden = False
        self.ended_at = 0.0
        self.broken = False
        #: The running score of a multi-game run, shown under the live table.
        self.progress = ""
        #: Lines were written but not flushed yet (no terminal: see ``keep_flushed``).
        self.unflushed = False
        #: Text written with flush=False and moves played, not handed on yet.
        self._held: list[str | _HeldMove] = []
        self._held_chars = 0

    def begin(self, number: int, games: int, path: Path) -> None:
        self.game = None
        self.clocks = None
        which = f"game {number}/{games}" if games > 1 else "match"
        self.footer = f"{which} · writing {printable(str(path))} · Ctrl+C stops"
        if not self.live:
            self.line(f"{which}: starting engines")

    def observe(self, event: MatchEvent) -> None:
        if isinstance(event, MovePlayed):  # first: the event of every move
            self.clocks = event.clocks
            if not (self.live or self.broken) and self.game is not None:
                # Written out soon, by ``keep_flushed``; made into text only then,
                # with the other lines held (one line at a time costs more).
                self._held.append((self.game, event.played, self.names, event.used))
                self._held_chars += MOVE_LINE_CHARS
                self.unflushed = True
                if self._held_chars >= HELD_CHARS:
                    self.write("", flush=False)
        elif isinstance(event, MatchStarted):
            self.game, self.names = event.game, event.names
            self.clocks = self._turns_started(event.clocks, event.now)
            if not self.live:
                seats = ", ".join(f"{seat} {event.names[seat]}" for seat in SEATS)
                rules = event.game.rules
                timing = f"time {rules.time:g}+{rules.increment:g}" if rules.clock else "untimed"
                self.line(f"start: {seats}; {timing}")
        elif isinstance(event, PartnerTold):
            text = f"{event.message.seat} to partner: {printable(event.message.text, 200)}"
            self.message = text
            if not self.live:
                self.line(f"  {text}")
        elif isinstance(event, MoveRefused):
            refused = printable(event.text, 40)
            self.message = printable(f"{event.seat}: move {refused!r} refused ({event.reason})")
            if not self.live:
                self.line(f"  {self.message}")
        elif isinstance(event, MatchEnded):
            self.game, self.names, self.clocks = event.game, event.names, event.clocks
            self.ended_at = event.now
            if not self.live:
                self.line(f"result: {event.outcome}")

    def _turns_started(self, clocks: Clocks, now: float) -> Clocks:
        """``clocks`` with the clock of every seat to move running.

        The start's clocks are taken before the first turns open; counting
        those from the start keeps both boards' clocks (and markers) moving.
        """
        if self.game is None:
            return clocks
        return clocks.start_all(
            (seat for seat in self.game.seats_to_move() if not clocks.is_running(seat)), now
        )

    @contextlib.asynccontextmanager
    async def kept_current(self) -> AsyncIterator[None]:
        """Keeps the output current while the block runs (a game): the live
        table redrawn (``refresh``), or else the held move lines flushed
        (``keep_flushed``)."""
        async with trio.open_nursery() as nursery:
            scope = trio.CancelScope()
            nursery.start_soon(self.refresh if self.live else self.keep_flushed, scope)
            try:
                yield
            finally:
                scope.cancel()

    async def refresh(self, scope: trio.CancelScope) -> None:
        """Redraws the table ``REFRESH_HZ`` times a second until ``scope`` is cancelled."""
        with scope:
            self.write("\x1b[?25l\x1b[H\x1b[2J")
            self.cursor_hidden = True
            while True:
                self.draw(trio.current_time())
                await trio.sleep(1 / REFRESH_HZ)

    async def keep_flushed(self, scope: trio.CancelScope) -> None:
        """Without a terminal: flushes the move lines ``REFRESH_HZ`` times a second.

        One flush per move would cost a system call a move; this way a
        ``| tee`` still sees the game go on.
        """
        with scope:
            while True:
                await trio.sleep(1 / REFRESH_HZ)
                if self.unflushed:
                    self.write("")

    def draw(self, now: float, *, final: bool = False) -> None:
        if self.game is None or self.clocks is None:
            text = "starting engines..."
        else:
            text = render_table(
                self.game,
                self.clocks.snapshot(now),
                names=self.names,
                running=self.clocks.running.keys(),
                options=self.options,
                footer=self.message,
            )
        footer = f"{self.footer} · {self.progress}" if self.progress else self.footer
        lines = [*text.split("\n"), "", footer]
        if final:
            self.write("\x1b[H" + "\n".join(f"{ln}\x1b[K" for ln in lines[:-1]) + "\x1b[J\n")
        else:
            self.write("\x1b[H" + "\n".join(f"{ln}\x1b[K" for ln in lines) + "\x1b[J")

    def end_live(self) -> None:
        """Draws the final table once more, leaving the cursor below it."""
        if self.live:
            self.draw(self.ended_at, final=True)

    def line(self, text: str, *, flush: bool = True) -> None:
        """One line of plain text; control characters in it are shown escaped."""
        self.write(printable_lines(text, limit=2000) + "\n", flush=flush)

    def write(self, text: str, *, flush: bool = True) -> None:
        """Writes and flushes; once the output is gone (``| head``), writes nothing more.

        Text written with ``flush=False`` is held here until the next flushed
        write (``keep_flushed``'s, or a line that must show at once), or until
        ``HELD_CHARS`` are held: so it costs no system call even when the output
        stream writes through (``PYTHONUNBUFFERED``). The match goes on and its
        file is still written.
        """
        if self.broken:
            return
        if not flush:
            self._held.append(text)
            self._held_chars += len(text)
            self.unflushed = True
            if self._held_chars < HELD_CHARS:
                return
        if self._held:
            if flush:
                self._held.append(text)
            text = "".join(
                item if isinstance(item, str) else _held_move_line(*item) for item in self._held
            )
            self._held.clear()
            self._held_chars = 0
        try:
            self.out.write(text)
            self.unflushed = not flush
            if flush:
                self.out.flush()
        except (OSError, ValueError, OutputGone):
            self.broken = True
            _silence(self.out)

    def close(self) -> None:
        if self.cursor_hidden:
            self.write("\x1b[?25h")
            self.cursor_hidden = False
        if self._held:
            self.write("")


#: A move the display holds: its game, the move, the seats' names and the time it used.
_HeldMove = tuple[BughouseGame, PlayedMove, Mapping[Seat, str], float]

#: About the length of a move's line, counted towards ``HELD_CHARS``.
MOVE_LINE_CHARS = 80


def _held_move_line(
    game: BughouseGame, played: PlayedMove, names: Mapping[Seat, str], used: float
) -> str:
    # Printable as it is: move_line escapes the name, the rest is the board's and ours.
    return move_line(game, played, names=names, used=used) + "\n"


def _silence(out: TextIO) -> None:
    # Point the descriptor at /dev/null so the interpreter's final flush
    # does not complain about the closed pipe either.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


# -- reports -------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class GameSummary:
    number: int
    names: Mapping[Seat, str]
    result: Result
    reason: str
    plies: int
    seconds: float
    side_one_team: Team  # the team the game-1 A-White + B-Black side played as
    #: Seats held by a team-mode engine (one process for both seats of its team).
    team_seats: frozenset[Seat] = frozenset()
    write_error: str | None = None


def game_summary(
    record: MatchRecord,
    index: int,
    *,
    side_one_team: Team,
    team_seats: frozenset[Seat] = frozenset(),
    write_error: str | None = None,
) -> GameSummary:
    """The summary row of game ``index`` (from 0), from what ``run_match`` returned.

    ``side_one_team``: the team that the side seated at A-White + B-Black in
    the first game plays as in this one (``rotated_seat(Seat.A_WHITE,
    index).team`` when seats rotate).
    """
    started, ended = record.started, record.ended
    return GameSummary(
        number=index + 1,
        names=dict(record.names),
        result=record.outcome.result,
        reason=record.outcome.reason,
        plies=record.game.plies,
        seconds=(ended - started) if started is not None and ended is not None else 0.0,
        side_one_team=side_one_team,
        team_seats=team_seats,
        write_error=write_error,
    )



def _side_points(summary: GameSummary) -> tuple[float, float]:
    winner = summary.result.winner
    if summary.result is Result.UNFINISHED:
        return 0.0, 0.0
    if winner is None:
        return 0.5, 0.5
    return (1.0, 0.0) if winner is summary.side_one_team else (0.0, 1.0)


def _seat_name(summary: GameSummary, seat: Seat) -> str:
    """The seat's engine name, marked ``(team)`` when one process holds its team."""
    name = summary.names.get(seat, "?")
    return f"{name} (team)" if seat in summary.team_seats else name


def _sides(summary: GameSummary) -> tuple[str, str]:
    one = summary.side_one_team

    def side(team: Team) -> str:
        if all(s in summary.team_seats for s in team.seats):
            return _seat_name(summary, team.seats[0])
        return "+".join(summary.names.get(s, "?") for s in team.seats)

    first, second = side(one), side(one.other)
    if first == second:
        return f"side 1 ({first})", f"side 2 ({second})"
    return first, second


def score_text(done: list[GameSummary]) -> str:
    """``score S+S 2.5 - 0.5 R+R`` for the games so far."""
    one = sum(_side_points(s)[0] for s in done)
    two = sum(_side_points(s)[1] for s in done)
    side_one, side_two = _sides(done[0])
    return f"score {side_one} {one:g} - {two:g} {side_two}"


def progress_line(summary: GameSummary, done: list[GameSummary], games: int) -> str:
    """``game 3/10: 1-0 A-Black checkmated (42 plies, 12.5 s) · score ...``"""
    return (
        f"game {summary.number}/{games}: {summary.result.value} {summary.reason} "
        f"({summary.plies} plies, {summary.seconds:.1f} s) · {score_text(done)}"
    )


def summary_table(summaries: list[GameSummary]) -> str:
    """One row per game (who sat where, result, plies, reason), then the score.

    Engines are shown by a short tag (``S``, ``R``...) explained on the first
    line, so the rows fit 80 columns. An engine holding both seats of its team
    (``--team``) is named ``NAME (team)``.
    """
    tags = _engine_tags(summaries)
    legend = ", ".join(f"{tag} = {name}" for name, tag in tags.items())
    width = max(2, *(len(tag) for tag in tags.values()))
    seats = "".join(f"{seat.bpgn:<{width + 1}}" for seat in SEATS)
    side_one, side_two = _sides(summaries[0])
    named = not side_one.startswith("side 1")
    labels = (side_one, side_two) if named else ("side 1", "side 2")
    won = max(6, *(len(label) for label in labels))
    head = f"{'game':>4}  {seats} result   {'won by':<{won}} plies  "
    rows = [f"engines: {legend}", head + "reason"]
    room = max(20, 80 - len(head))
    for s in summaries:
        sat = "".join(f"{tags[_seat_name(s, seat)]:<{width + 1}}" for seat in SEATS)
        points = _side_points(s)
        if s.result is Result.UNFINISHED:
            winner = "-"
        elif points[0] == points[1]:
            winner = "draw"
        else:
            winner = labels[0] if points[0] > points[1] else labels[1]
        start = f"{s.number:>4}  {sat} {s.result.value:<8} {winner:<{won}} {s.plies:>5}  "
        # The whole reason, wrapped under its column when long.
        pieces = textwrap.wrap(s.reason, room) or [""]
        rows.append(start + pieces[0])
        rows.extend(" " * len(start) + piece for piece in pieces[1:])
    one = sum(_side_points(s)[0] for s in summaries)
    two = sum(_side_points(s)[1] for s in summaries)
    rows.append(
        f"score: {side_one} {one:g} - {two:g} {side_two} "
        "(sides as seated in game 1: A-White+B-Black against A-Black+B-White)"
    )
    return "\n".join(rows)


def _engine_tags(summaries: list[GameSummary]) -> dict[str, str]:
    tags: dict[str, str] = {}
    for s in summaries:
        for seat in SEATS:
            name = _seat_name(s, seat)
            if name in tags:
                continue
            tag = (name[:1] or "?").upper()
            if tag in tags.values():
                tag = f"{tag}{len(tags) + 1}"
            tags[name] = tag
    return tags
