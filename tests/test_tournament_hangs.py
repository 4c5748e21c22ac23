"""Hangs in a tournament: an engine that stops answering is told from one that is
only slow by a ping after the game; a hang is a failure, restarts the engine,
and drops a participant that keeps hanging.

The keeper's logic runs under trio's MockClock with scripted players kept
alive between games; the end-to-end tests use real engine processes
(``engines/faulty.py freeze`` stops answering anything, ``hang`` answers
``isready`` but never moves)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio
from fakes import RandomFake

from bughouse_arbiter.cli import main
from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.model import Outcome, Seat, Team, Termination
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.exits import INCOMPLETE
from bughouse_arbiter.players.base import Action
from bughouse_arbiter.players.native import NativeEnginePlayer
from bughouse_arbiter.table import keeper as keeper_module
from bughouse_arbiter.table.arbiter import NOT_READY
from bughouse_arbiter.table.keeper import PING_TIMEOUT, EngineKeeper
from bughouse_arbiter.tournament import play as play_module
from bughouse_arbiter.tournament.jobs import MatchJob, MatchReport
from bughouse_arbiter.tournament.play import play_job_async, play_on_table
from bughouse_arbiter.tournament.schedule import Participant, schedule

RULES = HouseRules(time=10.0, increment=0.0)


def plain(name: str, spec: str) -> Participant:
    s = engine_spec(spec)
    return Participant(name=name, members=(s, s), member_names=(name, name))


def one_job(rules: HouseRules = RULES, second: str = "slow") -> MatchJob:
    [job] = schedule(
        [plain("good", "random"), plain(second, "searcher")],
        format="gauntlet",
        games=1,
        rules=rules,
        openings=[],
    )
    return job


class KeptFake(RandomFake):
    """A scripted engine kept between games: moves every second until it
    stops after ``moves`` turns; answers a ping ``answers_after`` seconds
    later (None: never, it hung)."""

    def __init__(
        self, seats: Sequence[Seat], *, moves: int = 10**6, answers_after: float | None = 0.0
    ) -> None:
        super().__init__(seats, think=1.0)
        self.moves = moves
        self.answers_after = answers_after
        self.pinged_at: list[float] = []

    def next_entry(self, seat: Seat, state: object) -> object:  # type: ignore[override]
        if self.moves <= 0:
            return None
        self.moves -= 1
        return super().next_entry(seat, state)  # type: ignore[arg-type]

    async def ping(self, timeout: float) -> bool:
        self.pinged_at.append(trio.current_time())
        if self.answers_after is None:
            await trio.sleep(timeout)
            return False
        with trio.move_on_after(timeout):
            await trio.sleep(self.answers_after)
            return True
        return False

    def can_play_again(self) -> bool:
        return self.closed == 0

    def reseat(self, seats: tuple[Seat, ...]) -> None:
        self.seats = seats


async def kept(keeper: EngineKeeper, job: MatchJob, fakes: dict[Seat, KeptFake]) -> None:
    """Seats ``fakes`` (one per seat) as the keeper's idle engines for ``job``."""
    assert keeper._nursery is not None
    for entrant in job.entrants:
        fake = fakes[entrant.seats[0]]
        await fake.start(keeper._nursery, keeper._send.clone())
        keeper._idle.append((entrant.key, fake))


def table(job: MatchJob, **special: KeptFake) -> dict[Seat, KeptFake]:
    """Four kept fakes; ``special`` replaces the one at a seat (by BPGN name, - as _)."""
    fakes = {seat: KeptFake((seat,)) for seat in Seat}
    for name, fake in special.items():
        fakes[Seat.parse(name.replace("_", "-"))] = fake
    return fakes


async def test_an_engine_that_stops_answering_is_a_hang_and_is_closed(
    autojump_clock: trio.abc.Clock,
) -> None:
    job = one_job()
    hung = KeptFake((Seat.A_BLACK,), moves=2, answers_after=None)
    fakes = table(job, A_Black=hung)
    async with EngineKeeper.open() as keeper:
        await kept(keeper, job, fakes)
        start = trio.current_time()
        report = await play_on_table(job, keeper)
        took = trio.current_time() - start
        idle = [player for _, player in keeper._idle]
        closed = {seat: fake.closed for seat, fake in fakes.items()}
    assert report.termination == "flag" and report.time_losses == (Seat.A_BLACK,)
    [incident] = report.incidents
    assert incident.kind == "hang" and incident.is_failure
    assert incident.seat is Seat.A_BLACK and incident.participant == job.sides[Seat.A_BLACK.team]
    assert "lost on time, then did not answer a ping within 5 s: hung" in incident.text
    # Its clock ran out 10 s after its turn opened (two moves of 1 s each before);
    # all four were pinged at once, the hung one for the whole timeout.
    assert PING_TIMEOUT == 5.0
    flag_at = hung.pinged_at[0] - start
    assert all(f.pinged_at == [start + flag_at] for f in fakes.values())
    assert took == pytest.approx(flag_at + PING_TIMEOUT)
    assert closed[Seat.A_BLACK] == 1 and hung not in idle
    assert all(fakes[s] in idle and closed[s] == 0 for s in Seat if s is not Seat.A_BLACK)


async def test_a_slow_engine_that_answers_the_ping_only_lost_on_time(
    autojump_clock: trio.abc.Clock,
) -> None:
    job = one_job()
    slow = KeptFake((Seat.B_WHITE,), moves=3, answers_after=4.9)  # busy, but alive
    async with EngineKeeper.open() as keeper:
        await kept(keeper, job, table(job, B_White=slow))
        report = await play_on_table(job, keeper)
        pinged = slow.pinged_at[0]
        assert trio.current_time() == pytest.approx(pinged + 4.9)
        assert slow.closed == 1  # restarted all the same: it lost on time
    [incident] = report.incidents
    assert incident.kind == "time" and not incident.is_failure
    assert incident.text == "B-White lost on time"
    assert keeper.hung == {}


async def test_an_engine_that_hangs_while_another_ends_the_game_is_caught_at_its_end(
    autojump_clock: trio.abc.Clock,
) -> None:
    job = one_job(HouseRules(time=10.0, increment=0.0))
    # A-White moves once, then stops answering anything; B-White never moves, and
    # its clock (running from the start) runs out first, at 10 s; A-White's at 11 s.
    quiet = KeptFake((Seat.A_WHITE,), moves=1, answers_after=None)
    flagging = KeptFake((Seat.B_WHITE,), moves=0, answers_after=0.0)
    fakes = table(job, A_White=quiet, B_White=flagging)
    async with EngineKeeper.open(ping_timeout=2.0) as keeper:
        await kept(keeper, job, fakes)
        start = trio.current_time()
        report = await play_on_table(job, keeper)
        assert quiet.pinged_at == [start + 10.0]
        assert trio.current_time() == start + 12.0
        closed = {seat: fake.closed for seat, fake in fakes.items()}
    assert report.termination == "flag" and report.reason == "B-White lost on time"
    assert [(i.seat, i.kind) for i in report.incidents] == [
        (Seat.B_WHITE, "time"),
        (Seat.A_WHITE, "hang"),
    ]
    assert report.incidents[1].text == (
        "A-White did not answer a ping within 2 s after the game: hung (killed and restarted)"
    )
    assert closed == {Seat.A_WHITE: 1, Seat.A_BLACK: 0, Seat.B_WHITE: 1, Seat.B_BLACK: 0}


async def test_a_player_that_cannot_be_pinged_is_not_hung(
    autojump_clock: trio.abc.Clock,
) -> None:
    job = one_job()

    class Unaskable(KeptFake):
        async def ping(self, timeout: float) -> None:  # type: ignore[override]
            return None  # the Player default: cannot be asked

    unaskable = Unaskable((Seat.A_BLACK,), moves=1)
    async with EngineKeeper.open() as keeper:
        await kept(keeper, job, table(job, A_Black=unaskable))
        report = await play_on_table(job, keeper)
    [incident] = report.incidents
    assert incident.kind == "time"


# -- real engine processes -------------------------------------------------------------------


@pytest.mark.slow
async def test_a_freezing_engine_is_a_hang_a_slow_one_is_not() -> None:
    freezing = schedule(
        [plain("good", "random"), plain("frozen", "faulty-freeze")],
        format="gauntlet",
        games=2,
        rules=HouseRules(time=1.0),
        openings=[],
    )
    slow = schedule(
        [plain("good", "random"), plain("slow", "faulty-hang")],
        format="gauntlet",
        games=1,
        rules=HouseRules(time=1.0),
        openings=[],
    )
    reports: list[MatchReport] = []
    with trio.fail_after(120):
        async with EngineKeeper.open(ping_timeout=2.0) as keeper:
            for job in [*freezing, *slow]:
                reports.append(await play_job_async(job, keeper))
    first, second, slow_report = reports
    for report in (first, second):
        assert report.termination == "flag"
        kinds = {i.kind for i in report.incidents}
        assert kinds == {"hang"}, report.incidents
        assert all(i.participant == "frozen" and i.is_failure for i in report.incidents)
        assert "did not answer" in report.incidents[0].text
    # The frozen engines were killed: the second game started fresh ones.
    assert second.started_engines >= 1
    [incident] = slow_report.incidents
    assert incident.kind == "time" and incident.participant == "slow"


@pytest.mark.slow
async def test_a_live_engine_answers_the_ping_a_closed_one_does_not() -> None:
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            send, _receive = trio.open_memory_channel[Action](100)
            player = NativeEnginePlayer(Seat.A_WHITE, engine_spec("random").command)
            await player.start(nursery, send.clone())
            assert await player.ping(5.0) is True
            await player.aclose()
            assert await player.ping(5.0) is False
            nursery.cancel_scope.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["fairy-stockfish", "sjeng"])
async def test_uci_and_xboard_engines_answer_the_ping(engine: str) -> None:
    from test_external_engines import require

    from bughouse_arbiter.config.engines_file import known_engines
    from bughouse_arbiter.players.factory import create_player

    require(engine)
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            send, _receive = trio.open_memory_channel[Action](100)
            player = create_player(Seat.A_WHITE, known_engines(None)[engine])
            await player.start(nursery, send.clone())
            answered = await player.ping(5.0)
            await player.aclose()
            nursery.cancel_scope.cancel()
    assert answered is True


@pytest.mark.slow
def test_a_participant_that_keeps_hanging_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keeper_module, "PING_TIMEOUT", 1.0)
    out = tmp_path / "t"
    argv = [
        "tournament",
        "--engine",
        "good=random",
        "--engine",
        "bad=faulty-freeze",
        "--games",
        "6",
        "--tc",
        "1+0",
        "--max-failures",
        "2",
        "--recover",  # its failures scored as losses, though it never completed a game
        "--out",
        str(out),
    ]
    assert main(argv) == INCOMPLETE  # 4 of its games are not played
    data = json.loads((out / "summary.json").read_text())
    assert data["games_played"] == 2
    # Each of bad's two engines hung after each game: four hangs, each counted
    # once (not also as a crash, nor the game's flag as a time loss).
    assert data["hangs"] == {"good": 0, "bad": 4}
    assert data["crashes"] == data["time_losses"] == {"good": 0, "bad": 0}
    assert data["dropped"]["bad"].startswith("2 failures in a row (last: ")
    assert "hung" in data["dropped"]["bad"]
    assert {i["kind"] for i in data["incidents"]} == {"hang"}
    journal = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert all(any(i["kind"] == "hang" for i in line["report"]["incidents"]) for line in journal)
    printed = capsys.readouterr().out
    assert "game 1: bad hung: " in printed and "did not answer a ping within 1 s" in printed
    assert "bad dropped: 2 failures in a row" in printed
    assert re.search(r"\nbad +0 +0 +4 +0 +0 +0\n", printed), printed


def test_an_engine_never_ready_for_its_game_is_a_hang() -> None:
    outcome = Outcome(
        termination=Termination.LEFT,
        winner=Team.ONE,
        reason=f"A-Black left: {NOT_READY}",
        seat=Seat.A_BLACK,
    )
    [incident] = play_module._incidents(one_job(), outcome)
    assert (incident.seat, incident.kind) == (Seat.A_BLACK, "hang")
