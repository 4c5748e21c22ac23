"""A tournament's game played on a table: a ``MatchJob`` in, a ``MatchReport`` out.

``play_on_table`` plays one job on an ``EngineKeeper``'s engines (the local
scheduler's tables and each Ray table), through the table's one game path
(``table.games.play_game``), recorded by its one writer
(``table.recording.GameWriter``, so each move has its ``[%eval]``), and
turns the record into a report: result, incidents per seat, the harness's
delays. ``play_job`` (blocking, its own trio loop) and ``play_job_async``
play a job without a scheduler (tests and bench).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import trio

from ..bpgn import GameHeader
from ..core.board import STARTING_FEN
from ..core.model import BoardId, Outcome, Seat, Termination
from ..players.debug_logs import DebugLogs
from ..table.arbiter import MatchRecord
from ..table.games import play_game
from ..table.keeper import EngineKeeper
from ..table.recording import GameWriter
from .jobs import MatchJob, MatchReport, SeatIncident, failed_report, node_name

__all__ = ["HARNESS_LOSS_SHARE", "harness_caused", "play_job", "play_job_async", "play_on_table"]

#: A time loss counts as caused by the harness when the harness's delay on
#: that seat's clock came to this share of the seat's time (start + increments).
HARNESS_LOSS_SHARE = 0.01
#: Reasons for leaving that mean the engine stopped answering (a hang, not a crash):
#: a notification it did not take, no ``readyok`` at the start of a game.
_HANG_REASONS = ("stopped reading", "no 'readyok'", "not ready for the game")


async def play_on_table(
    job: MatchJob, keeper: EngineKeeper, *, debug: Path | None = None
) -> MatchReport:
    """Plays ``job`` with ``keeper``'s engines and reports it (see ``jobs.py``).

    ``debug`` (``--debug DIR``): the game's engines are started for it, each
    with its protocol log, ``DIR/game.g<ROUND>.<seat>.log``, and closed after.
    """
    wall = time.monotonic()
    opening = job.opening
    names = {seat: entrant.engine for entrant in job.entrants for seat in entrant.seats}
    header = GameHeader(
        players=names,
        event=job.event,
        round=str(job.number),
        extra=job.tags,
    )
    writer = GameWriter(None, game_number=job.number, games=0, header=header, name_engines=True)
    logs = DebugLogs(debug / "game", job.number) if debug is not None else None
    try:
        record, started = await play_game(
            job.entrants,
            job.rules,
            game_id=job.job_id,
            keeper=keeper,
            fen_a=opening.fen_a if opening else STARTING_FEN,
            fen_b=opening.fen_b if opening else STARTING_FEN,
            opening=opening.moves if opening else (),
            seed=job.seed,
            observer=writer.observe,
            logs=logs,
        )
    finally:
        if logs is not None:
            logs.close()
    outcome = record.outcome
    time_losses = (
        (outcome.seat,)
        if outcome.termination is Termination.FLAG and outcome.seat is not None
        else ()
    )
    if writer.text is None:  # not recorded: a harness error, the job may be played again
        raise RuntimeError(writer.error or "the game was not recorded")
    return MatchReport(
        job_id=job.job_id,
        result=outcome.result,
        termination=outcome.termination.value,
        reason=outcome.reason,
        bpgn=writer.text,
        plies=record.game.plies,
        seconds=time.monotonic() - wall,
        incidents=_incidents(job, outcome, keeper.hung),
        time_losses=time_losses,
        overhead_max=max(record.overheads, default=0.0),
        harness_delay=dict(record.harness_delay),
        harness_delay_max=record.harness_delay_max,
        harness_time_losses=tuple(s for s in time_losses if harness_caused(record, s)),
        started_engines=started,
        node=node_name(),
        final_fens=(record.game.fen(BoardId.A), record.game.fen(BoardId.B)),
    )


def harness_caused(record: MatchRecord, seat: Seat) -> bool:
    """Whether the harness's delay on ``seat``'s clock came to ``HARNESS_LOSS_SHARE``
    of the time the seat had (start time and the increments of its moves; the
    opening's moves had none)."""
    rules = record.rules
    game = record.game
    moves = sum(1 for move in game.moves[game.opening_plies :] if move.seat is seat)
    had = rules.time + rules.increment * moves
    return record.harness_delay.get(seat, 0.0) >= HARNESS_LOSS_SHARE * had


def _incidents(
    job: MatchJob, outcome: Outcome, hung: Mapping[Seat, str] | None = None
) -> tuple[SeatIncident, ...]:
    """What went wrong, per seat: the seat the game ended on (a crash, a failed
    start, an illegal move, a time loss), and every engine that did not answer
    the ping after the game (``hang``, which replaces a time loss)."""
    hung = dict(hung or {})
    found: list[tuple[Seat, str, str]] = []
    seat = outcome.seat
    kinds = {
        Termination.LEFT: "crash",
        Termination.FLAG: "time",
        Termination.ILLEGAL_MOVE: "illegal",
    }
    kind = kinds.get(outcome.termination)
    if seat is not None and kind is not None:
        if kind == "crash" and "failed to start" in outcome.reason:
            kind = "start"
        elif kind == "crash" and any(why in outcome.reason for why in _HANG_REASONS):
            kind = "hang"
        if seat in hung:
            found.append((seat, "hang", hung.pop(seat)))
        else:
            found.append((seat, kind, outcome.reason))
    found.extend((s, "hang", text) for s, text in sorted(hung.items()))
    return tuple(
        SeatIncident(
            seat=s,
            participant=job.participant_at(s),
            engine=job.entrant_at(s).engine,
            kind=k,
            text=text,
        )
        for s, k, text in found
    )


def play_job(job: MatchJob) -> MatchReport:
    """Plays ``job`` in a new trio loop with engines started for it and closed after.

    Blocking; for a fresh process or a remote worker. Never raises for an
    engine's fault (a forfeit) nor for a harness error (``report.error``).
    """
    try:
        return trio.run(play_job_async, job)
    except Exception as exc:  # the harness failed: "not played", the caller may retry
        return failed_report(job, exc)


async def play_job_async(job: MatchJob, keeper: EngineKeeper | None = None) -> MatchReport:
    """Plays ``job`` in the running trio loop.

    With ``keeper``, engines it holds from earlier jobs play again (and stay
    alive afterwards); without, they are started for this job and closed.
    Cancellation propagates (the game is abandoned, nothing is reported), and
    so does an exception of the harness itself (``failed_report`` makes it a
    report).
    """
    if keeper is not None:
        return await play_on_table(job, keeper)
    async with EngineKeeper.open() as own:
        return await play_on_table(job, own)
