"""Playing tournament jobs with real engine processes: engines kept alive between
games, reseated as seats rotate, restarted after a crash; the local scheduler."""

from __future__ import annotations

import pickle

import pytest
import trio

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Result, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.table.keeper import EngineKeeper
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.play import play_job, play_job_async
from bughouse_arbiter.tournament.schedule import Participant, schedule
from bughouse_arbiter.tournament.scheduler import LocalScheduler

RULES = HouseRules(time=5.0, increment=0.0)


def plain(name: str, spec: str) -> Participant:
    s = engine_spec(spec)
    return Participant(name=name, members=(s, s), member_names=(name, name))


def jobs(first: str, second: str, games: int, rules: HouseRules = RULES) -> list[MatchJob]:
    return schedule(
        [plain(first, first), plain(second, second)],
        format="gauntlet",
        games=games,
        rules=rules,
        openings=[],
        seed=3,
    )


def check(report: MatchReport) -> None:
    [game] = read_games(report.bpgn)
    replayed = replay_game(game)
    assert replayed.ok, replayed.verdict
    assert game.tag("Round") is not None


def test_jobs_and_reports_survive_pickling() -> None:
    [job] = jobs("random", "searcher", 1)
    assert pickle.loads(pickle.dumps(job)) == job
    report = MatchReport(job_id="x", result=Result.DRAW, bpgn='[Event "x"]\n')
    assert pickle.loads(pickle.dumps(report)) == report
    assert MatchReport.from_dict(report.to_dict()) == report


@pytest.mark.slow
def test_play_job_blocking_starts_and_closes_its_engines() -> None:
    [job] = jobs("random", "random", 1)
    report = play_job(job)
    assert report.played and report.started_engines == 4 and report.error is None
    check(report)


@pytest.mark.slow
async def test_a_kept_engine_plays_the_next_game_at_its_rotated_seat() -> None:
    with trio.fail_after(120):
        async with EngineKeeper.open() as keeper:
            reports = [await play_job_async(job, keeper) for job in jobs("random", "random", 3)]
    assert [r.started_engines for r in reports] == [4, 0, 0]
    assert keeper.games_reusing == 2
    for report in reports:
        assert report.played, report.reason
        check(report)


@pytest.mark.slow
async def test_a_crashing_engine_forfeits_and_is_restarted() -> None:
    good = jobs("random", "random", 1)[0]
    crashing = jobs("random", "faulty-crash", 2)[1]
    with trio.fail_after(120):
        async with EngineKeeper.open() as keeper:
            first = await play_job_async(good, keeper)
            crashed = await play_job_async(crashing, keeper)
            again = await play_job_async(crashing, keeper)
    assert first.started_engines == 4
    # The two random movers of the side that stays are kept; the crashing ones start anew.
    assert crashed.started_engines == 2 and again.started_engines >= 1
    for report in (crashed, again):
        assert report.termination == "left"
        assert crashing.sides[report.result.winner] == "random"  # type: ignore[index]
        [incident] = report.incidents
        assert incident.kind == "crash" and incident.participant == "faulty-crash"
        assert "crashing on purpose" in incident.text
        check(report)


@pytest.mark.slow
async def test_a_harness_failure_is_reported_as_not_played() -> None:
    [job] = jobs("random", "random", 1)
    broken = MatchJob(
        job_id="broken",
        number=1,
        pairing=0,
        game=0,
        sides=job.sides,
        entrants=job.entrants[:3],
        rules=RULES,
    )
    reports: list[MatchReport] = []

    async def on_report(report: MatchReport) -> None:
        reports.append(report)

    blocking = await trio.to_thread.run_sync(play_job, broken)
    assert not blocking.played and blocking.error and "nobody holds" in blocking.error
    queue = [broken]
    with trio.fail_after(60):
        await LocalScheduler(1).run(lambda: queue.pop() if queue else None, on_report)
    [report] = reports
    assert not report.played and report.error and "nobody holds" in report.error


@pytest.mark.slow
async def test_local_scheduler_plays_every_job_with_two_tables() -> None:
    todo = jobs("random", "random", 4)
    reports: list[MatchReport] = []
    in_flight_seen: list[int] = []

    async def on_report(report: MatchReport) -> None:
        reports.append(report)
        in_flight_seen.append(len(todo))

    scheduler = LocalScheduler(2)
    with trio.fail_after(180):
        await scheduler.run(lambda: todo.pop(0) if todo else None, on_report)
    assert sorted(r.job_id for r in reports) == [f"p0-g{g}" for g in range(4)]
    assert all(r.played for r in reports)
    # Two tables of four engines each, kept for the games after their first.
    assert scheduler.stats.engines_started == 8
    assert scheduler.stats.games_reusing == 2


@pytest.mark.slow
async def test_cancelling_the_scheduler_abandons_games_in_flight() -> None:
    todo = jobs("random", "random", 10)
    reports: list[MatchReport] = []
    with trio.fail_after(120):
        with trio.CancelScope() as scope:

            async def on_report(report: MatchReport) -> None:
                reports.append(report)
                scope.cancel()

            await LocalScheduler(2).run(lambda: todo.pop(0) if todo else None, on_report)
    assert len(reports) == 1
    assert len(todo) == 8  # nothing more was handed out


@pytest.mark.slow
async def test_a_hanging_engine_loses_on_time_and_is_restarted() -> None:
    hanging = jobs("random", "faulty-hang", 2, rules=HouseRules(time=1.0))
    with trio.fail_after(120):
        async with EngineKeeper.open() as keeper:
            first = await play_job_async(hanging[0], keeper)
            second = await play_job_async(hanging[1], keeper)
    for report in (first, second):
        assert report.termination == "flag"
        [incident] = report.incidents
        assert incident.kind == "time" and incident.participant == "faulty-hang"
        assert report.time_losses == (incident.seat,)
        check(report)
    # Only the engine that lost on time is started again.
    assert second.started_engines == 1


@pytest.mark.slow
async def test_a_keeper_closes_the_least_recently_used_engines_beyond_its_limit() -> None:
    from bughouse_arbiter.table.keeper import MAX_IDLE

    short = HouseRules(time=60.0, max_plies=10)

    def variant(n: int) -> Participant:
        s = engine_spec("random").with_options(Delay=str(n))  # another key each
        return Participant(name=f"r{n}", members=(s, s), member_names=(f"r{n}", f"r{n}"))

    played = []
    with trio.fail_after(120):
        async with EngineKeeper.open() as keeper:
            for n in range(3):
                [job] = schedule(
                    [variant(2 * n), variant(2 * n + 1)],
                    format="gauntlet",
                    games=1,
                    rules=short,
                    openings=[],
                )
                played.append(await play_job_async(job, keeper))
                assert len(keeper._idle) <= MAX_IDLE
            # The newest engines were kept: the last job's can play again.
            assert keeper.matching(job.entrants) == 4
    assert [r.started_engines for r in played] == [4, 4, 4]
    assert all(r.played for r in played)


@pytest.mark.slow
async def test_an_engine_that_cannot_start_forfeits_with_the_reason() -> None:
    from bughouse_arbiter.config.specs import EngineSpec

    missing = EngineSpec(name="ghost", command=("/nonexistent/ghost-engine",))
    ghost = Participant(name="ghost", members=(missing, missing), member_names=("ghost",) * 2)
    [job] = schedule(
        [plain("random", "random"), ghost], format="gauntlet", games=1, rules=RULES, openings=[]
    )
    with trio.fail_after(60):
        report = await play_job_async(job)
    assert report.played and report.termination == "left"
    assert job.sides[report.result.winner] == "random"  # type: ignore[index]
    [incident] = report.incidents
    assert incident.kind == "start" and incident.participant == "ghost"
    assert "failed to start" in incident.text and "No such file" in incident.text
    check(report)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["fairy-stockfish", "sjeng"])
async def test_uci_and_xboard_engines_play_again_at_rotated_seats(engine: str) -> None:
    from test_external_engines import require

    from bughouse_arbiter.config.engines_file import known_engines

    require(engine)
    spec = known_engines(None)[engine]
    external = Participant(name=engine, members=(spec, spec), member_names=(engine, engine))
    played = schedule(
        [external, plain("random", "random")],
        format="gauntlet",
        games=3,
        rules=HouseRules(time=3.0),
        openings=[],
    )
    with trio.fail_after(180):
        async with EngineKeeper.open() as keeper:
            reports = [await play_job_async(job, keeper) for job in played]
    assert [r.started_engines for r in reports] == [4, 0, 0]
    for report in reports:
        assert report.played and report.termination not in ("left", "illegal_move"), report.reason
        check(report)


@pytest.mark.slow
async def test_a_keeper_seats_players_it_does_not_own_and_leaves_them_alone() -> None:
    """``serve``'s remote players: started by the caller into ``sender()`` and
    seated with the keeper's engines; the keeper neither pings, keeps nor closes
    them. One that could not start is stood in for and leaves as the game begins."""
    from fakes import FakePlayer, Move, Resign

    from bughouse_arbiter.core.model import Seat, Termination
    from bughouse_arbiter.table.keeper import Entrant

    spec = engine_spec("random")
    entrants = [
        Entrant(seats=(seat,), spec=spec, participant=f"team {seat.team.value}", engine="random")
        for seat in (Seat.A_WHITE, Seat.B_BLACK)
    ]
    # A-Black is a person's seat: its illegal move is refused, then it resigns.
    black = FakePlayer(Seat.A_BLACK, {Seat.A_BLACK: [Move("e7e1", 0.1), Resign(0.1)]})
    white = FakePlayer(Seat.B_WHITE)
    with trio.fail_after(120):
        async with EngineKeeper.open() as keeper, trio.open_nursery() as nursery:
            for fake in (black, white):
                await fake.start(nursery, keeper.sender())
            record, started = await keeper.play(
                entrants, RULES, game_id="1", others=[black, white], human_seats=[Seat.A_BLACK]
            )
            assert started == 2
            outcome = record.outcome
            assert (outcome.termination, outcome.seat) == (Termination.RESIGNATION, Seat.A_BLACK)
            assert black.refused and black.closed == 0 and white.closed == 0
            assert keeper.idle_keys == (entrants[0].key, entrants[1].key)
            stand_in = keeper.stand_in((Seat.B_WHITE,), "remote", "failed to start: gone")
            record, started = await keeper.play(
                entrants, RULES, game_id="2", others=[black, stand_in]
            )
            assert started == 0
            outcome = record.outcome
            assert (outcome.termination, outcome.seat) == (Termination.LEFT, Seat.B_WHITE)
            assert outcome.reason == "B-White left: failed to start: gone"
            nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_a_tournament_game_records_the_engines_evals() -> None:
    # Written once by format_game with no engine info: match games had [%eval], these none.
    [job] = jobs("searcher", "random", 1)
    with trio.fail_after(120):
        report = await play_job_async(job)
    check(report)
    [game] = read_games(report.bpgn)
    searcher = {seat for seat in Seat if job.entrant_at(seat).engine == "searcher"}
    # The searcher reports a score and depth; the random mover only "depth 0".
    scored = [move for move in game.moves if move.commands.get("eval", "?")[:1] != "?"]
    assert scored, report.bpgn
    assert all(Seat.of(move.board, move.white) in searcher for move in scored)
    assert game.tag("WhiteAEngine") is not None
