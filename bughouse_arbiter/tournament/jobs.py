"""One game to play anywhere (``MatchJob``) and what came of it (``MatchReport``).

Both are frozen attrs values made of strings, numbers, enums and other such
values, so they pickle and cross process and machine boundaries (a Ray
worker, a subprocess) unchanged. A job holds everything needed to play its
game without the tournament: who sits where (engine specs), the house rules
and time control, the opening, the seed and the BPGN tags. A report holds
the whole game as BPGN text, the result from team 1's point of view and, per
seat, what went wrong (a crash, a hang, a failed start).

A job is played by ``play.py`` (``play_on_table``, on an ``EngineKeeper``'s
engines). Nothing a player does raises: a player's fault is a result (a
forfeit) with a reason. An error of the harness itself (an exception while
setting the table) becomes a report with ``error`` set (``failed_report``),
meaning "not played, try again elsewhere".
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

import attrs

from ..config.specs import rotated_team
from ..core.model import Result, Seat, Team
from ..core.rules import HouseRules
from ..table.keeper import Entrant
from .openings import Opening

__all__ = [
    "MatchJob",
    "MatchReport",
    "SeatIncident",
    "failed_report",
]


#: Decimals of a second the journal keeps of the harness's delays: to the microsecond.
DELAY_DIGITS = 6


@attrs.frozen(kw_only=True)
class MatchJob:
    """Everything needed to play one game of a tournament, anywhere."""

    #: Unique within the tournament and stable across ``--resume`` (``p<pairing>-g<game>``).
    job_id: str
    #: 1-based number in the tournament's schedule (the ``[Round]`` tag).
    number: int
    #: Index of the pairing (side one against side two) in the schedule.
    pairing: int
    #: Index of the game within its pairing; games 2k and 2k+1 are one opening pair.
    game: int
    #: The participant holding team 1's seats (A-White + B-Black) and team 2's.
    sides: Mapping[Team, str]
    #: Who holds the four seats (each seat exactly once).
    entrants: tuple[Entrant, ...]
    #: House rules, time control included.
    rules: HouseRules
    opening: Opening | None = None
    #: Seed for the project's own engines (``Seed`` option), if any.
    seed: int | None = None
    event: str = "bughouse-arbiter tournament"
    #: Extra BPGN tags, written after the standard ones, in order.
    tags: tuple[tuple[str, str], ...] = ()
    #: The seat rotation seating the game (``config.specs.rotated_seat``'s index;
    #: None: ``game``, unless ``--noswap`` or ``--reverse`` chose another).
    rotation: int | None = None

    @property
    def first_team(self) -> Team:
        """The team whose seats the pairing's first participant holds."""
        return rotated_team(Team.ONE, self.game if self.rotation is None else self.rotation)

    @property
    def pair(self) -> int:
        """Index of the opening pair within the pairing."""
        return self.game // 2

    def participant_at(self, seat: Seat) -> str:
        return self.sides[seat.team]

    def entrant_at(self, seat: Seat) -> Entrant:
        for entrant in self.entrants:
            if seat in entrant.seats:
                return entrant
        raise KeyError(seat)


@attrs.frozen(kw_only=True)
class SeatIncident:
    """Something that went wrong with one engine during a job."""

    seat: Seat
    participant: str
    engine: str
    #: ``crash`` (the process ended or broke the protocol), ``start`` (it failed
    #: to start), ``hang`` (it stopped answering), ``illegal`` (an illegal move),
    #: ``time`` (it lost on time).
    kind: str
    text: str

    @property
    def is_failure(self) -> bool:
        """True for a fault of the engine program (counts towards dropping it)."""
        return self.kind in ("crash", "start", "hang")


@attrs.frozen(kw_only=True)
class MatchReport:
    """What came of a ``MatchJob``."""

    job_id: str
    #: ``1-0``/``0-1``/``1/2-1/2`` from team 1's point of view; ``*`` if not finished.
    result: Result
    #: ``Termination`` value (``checkmate``, ``flag``, ``left``...) and the sentence for people.
    termination: str = ""
    reason: str = ""
    #: The whole game as BPGN text (tags, moves, result), ending with a newline.
    bpgn: str = ""
    plies: int = 0
    seconds: float = 0.0
    incidents: tuple[SeatIncident, ...] = ()
    #: Seats that lost on time, and the largest arbiter overhead per move (seconds).
    time_losses: tuple[Seat, ...] = ()
    overhead_max: float = 0.0
    #: Per seat, the seconds its clock ran while the harness had its turns
    #: (``MatchRecord.harness_delay``), and the most of one turn.
    harness_delay: Mapping[Seat, float] = attrs.field(factory=dict)
    harness_delay_max: float = 0.0
    #: The time losses the harness may have caused: its delay on the seat's clock
    #: came to ``HARNESS_LOSS_SHARE`` of the seat's time or more.
    harness_time_losses: tuple[Seat, ...] = ()
    #: Engine processes started for this job (0 when all were kept from earlier jobs).
    started_engines: int = 0
    #: Where it ran: host name and process id.
    node: str = ""
    #: Set when the harness failed (the game was not played): the job may be played again.
    error: str | None = None
    #: The boards' last positions, A then B (bughouse FEN; empty in older journals).
    final_fens: tuple[str, ...] = ()

    @property
    def played(self) -> bool:
        return self.error is None and self.result is not Result.UNFINISHED

    def points(self, team: Team) -> float:
        """``team``'s points: 1, 0.5 or 0."""
        winner = self.result.winner
        if winner is None:
            return 0.5
        return 1.0 if winner is team else 0.0

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (the journal's form); ``from_dict`` reads it back."""
        return {
            "job_id": self.job_id,
            "result": self.result.value,
            "termination": self.termination,
            "reason": self.reason,
            "plies": self.plies,
            "seconds": round(self.seconds, 3),
            "incidents": [
                {
                    "seat": i.seat.bpgn,
                    "participant": i.participant,
                    "engine": i.engine,
                    "kind": i.kind,
                    "text": i.text,
                }
                for i in self.incidents
            ],
            "time_losses": [s.bpgn for s in self.time_losses],
            "overhead_max": round(self.overhead_max, DELAY_DIGITS),
            "harness_delay": {
                s.bpgn: round(d, DELAY_DIGITS) for s, d in self.harness_delay.items()
            },
            "harness_delay_max": round(self.harness_delay_max, DELAY_DIGITS),
            "harness_time_losses": [s.bpgn for s in self.harness_time_losses],
            "started_engines": self.started_engines,
            "node": self.node,
            "error": self.error,
            "final_fens": list(self.final_fens),
            "bpgn": self.bpgn,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> MatchReport:
        """Reads ``to_dict``'s form; raises ValueError, KeyError or TypeError if it is not."""
        if not isinstance(data, Mapping):
            raise TypeError("a report is an object")

        def text(key: str) -> str:
            value = data.get(key, "")
            if not isinstance(value, str):
                raise TypeError(f"{key} is not text")
            return value

        def number(key: str) -> float:
            value = data.get(key, 0)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise TypeError(f"{key} is not a number")
            if not -1e15 < value < 1e15:  # inf, nan and absurd sizes
                raise ValueError(f"{key} is out of range")
            return float(value)

        def count(key: str) -> int:
            value = number(key)
            if value < 0 or value != int(value):
                raise ValueError(f"{key} is not a count")
            return int(value)

        def incident(i: object) -> SeatIncident:
            if not isinstance(i, dict):
                raise TypeError("an incident is an object")
            fields = {}
            for key in ("seat", "participant", "engine", "kind", "text"):
                value = i[key]
                if not isinstance(value, str):
                    raise TypeError(f"an incident's {key} is not text")
                fields[key] = value
            return SeatIncident(
                seat=Seat.parse(fields["seat"]),
                participant=fields["participant"],
                engine=fields["engine"],
                kind=fields["kind"],
                text=fields["text"],
            )

        def seats(values: list[object]) -> tuple[Seat, ...]:
            if not all(isinstance(v, str) for v in values):
                raise TypeError("a seat is text")
            return tuple(Seat.parse(str(v)) for v in values)

        incidents_data = data.get("incidents", [])
        losses_data = data.get("time_losses", [])
        harness_losses = data.get("harness_time_losses", [])
        delay_data = data.get("harness_delay", {})
        if not (
            isinstance(incidents_data, list)
            and isinstance(losses_data, list)
            and isinstance(harness_losses, list)
        ):
            raise TypeError("incidents and time losses are lists")
        if not isinstance(delay_data, dict) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < 1e15
            for v in delay_data.values()
        ):
            raise TypeError("harness_delay maps seats to seconds")
        error = data.get("error")
        if error is not None and not isinstance(error, str):
            raise TypeError("error is not text")
        fens = data.get("final_fens", [])
        if not (isinstance(fens, list) and len(fens) in (0, 2)):
            raise TypeError("final_fens is not a list of two positions")
        if not all(isinstance(fen, str) and "\n" not in fen for fen in fens):
            raise TypeError("a final position is not one line of text")
        return cls(
            job_id=text("job_id"),
            result=Result(text("result")),
            termination=text("termination"),
            reason=text("reason"),
            bpgn=text("bpgn"),
            plies=count("plies"),
            seconds=number("seconds"),
            incidents=tuple(incident(i) for i in incidents_data),
            time_losses=seats(losses_data),
            overhead_max=number("overhead_max"),
            harness_delay={Seat.parse(str(s)): float(d) for s, d in delay_data.items()},
            harness_delay_max=number("harness_delay_max"),
            harness_time_losses=seats(harness_losses),
            started_engines=count("started_engines"),
            node=text("node"),
            error=error,
            final_fens=tuple(str(fen) for fen in fens),
        )


def node_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def failed_report(job: MatchJob, exc: BaseException) -> MatchReport:
    """The report of a job the harness could not play (``error`` set)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]  # trio wraps what a nursery raised
    return MatchReport(
        job_id=job.job_id,
        result=Result.UNFINISHED,
        error=f"{type(exc).__name__}: {exc}",
        node=node_name(),
    )
