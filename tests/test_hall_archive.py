"""The hall's archive over the server's database: rated only with four accounts or bots,
ratings back into the lobby, games without a start kept too, bot tokens and guest names;
and a game's end told only once the archive has it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.core.model import SEATS, Seat
from bughouse_arbiter.hall.runtime import Hall, JoinRefused
from bughouse_arbiter.hall.web.accounts import Accounts, LoginLimiter
from bughouse_arbiter.lobby.archive import GameFinished, GameStarted
from bughouse_arbiter.lobby.identity import COMPUTER, Identity
from bughouse_arbiter.players.base import ResignAction
from bughouse_arbiter.serve.live_page import WebPlayer
from bughouse_arbiter.storage import GameQuery, SqliteStore
from bughouse_arbiter.storage.aio import AsyncStore
from bughouse_arbiter.storage.archive import RETRY_EVERY, StoreArchive
from bughouse_arbiter.table.match_events import MatchEnded, MatchStarted

BPGN = '[Event "lobby"]\n[Result "1-0"]\n\n1A. e4 {resigns} 1-0\n'


def game(seats: dict[Seat, Identity], number: int, *, rated: bool = True) -> GameStarted:
    return GameStarted(
        table="t1", game=number, tc="180+0", rules="profile=default", rated=rated,
        seats=seats, header='[Event "lobby"]',
    )


def _bot(db: AsyncStore, name: str) -> Identity:
    """A bot account whose token was checked: its identity carries its rating."""
    db.store.add_bot(name)
    return Identity(name, "bot", 1500.0)


def finished(start: GameStarted, result: str = "1-0") -> GameFinished:
    return GameFinished(
        table=start.table, game=start.game, tc=start.tc, rated=start.rated, seats=start.seats,
        result=result, reason="A-Black resigns", termination="resignation", path=None, bpgn=BPGN,
    )


@pytest.fixture
def db(tmp_path: Path) -> AsyncStore:
    store = SqliteStore.open(tmp_path / "server.sqlite3")
    for name in ("ann", "ben"):
        store.create_account(name, "password1")
    return AsyncStore(store)


async def test_a_game_of_four_accounts_and_bots_is_rated_and_the_lobby_sees_it(
    db: AsyncStore, tmp_path: Path
) -> None:
    tokens = {name: db.store.add_bot(name) for name in ("bot1", "bot2")}
    hall = Hall(tmp_path)
    hall.lobby.join(Identity("ann", "account", 1500.0))
    archive = StoreArchive(
        db, rerated=lambda changes: hall.rerate({c.name: c.after.rating for c in changes})
    )
    who = [Identity(name, kind, 1500.0) for name, kind in
           (("ann", "account"), ("bot1", "bot"), ("ben", "account"), ("bot2", "bot"))]
    start = game(dict(zip(SEATS, who, strict=True)), 1)
    await archive.begin(start)
    assert db.store.counts()["playing"] == 1
    await archive.record(finished(start))
    (kept,) = db.store.games(GameQuery())
    assert kept.rated and kept.result == "1-0" and kept.status == "finished"
    for seat, won in ((Seat.A_WHITE, True), (Seat.B_BLACK, True), (Seat.A_BLACK, False)):
        player = kept.players[seat]
        assert player.rating_before is not None and player.rating_after is not None
        assert (player.rating_after > player.rating_before) is won
    ann = db.store.account("ann")
    assert ann is not None and ann.rating.games == 1
    assert hall.lobby.members["ann"].rating == round(ann.rating.rating, 1) > 1500
    assert db.store.game_bpgn(kept.id) == BPGN
    # A bot's token seats that bot only; a person's name is not a bot's.
    accounts = Accounts(db, secret="x")
    bot = await accounts.bot_identity("bot1", tokens["bot1"])
    assert bot.kind == "bot" and bot.rating is not None and bot.rating < 1500
    for name, token in (("bot1", tokens["bot2"]), ("bot1", None), ("ann", tokens["bot1"])):
        with pytest.raises(JoinRefused):
            await accounts.bot_identity(name, token)
    assert await accounts.bot_identity("freebot", None) == Identity("freebot", "bot")
    assert (await accounts.person({}, "carol")).kind == "guest"
    with pytest.raises(JoinRefused, match="belongs to an account"):
        await accounts.person({}, "ann")
    hall.accounts = accounts
    winner = await hall.check_bot("bot2", tokens["bot2"])  # B-Black: team one won
    assert winner.kind == "bot" and winner.rating is not None and winner.rating > 1500
    with pytest.raises(JoinRefused, match="token"):
        await hall.check_bot("bot2", "0" * 32)
    with pytest.raises(JoinRefused, match="belongs to an account"):
        await hall.check_guest("ben")
    assert await hall.check_guest("gus") == Identity("gus")
    # A cookie names a session the server holds: once ended, it is a guest's again.
    sid = db.store.open_session("ann")
    person = await accounts.person({"sid": sid}, "whatever")
    assert person == Identity("ann", "account", round(ann.rating.rating, 1))
    assert (await accounts.person({"user": "ann"}, "whatever")).kind == "guest"
    db.store.end_session(sid)
    assert (await accounts.person({"sid": sid}, "whatever")).kind == "guest"


async def test_a_guest_or_the_computer_leaves_the_game_unrated_and_an_unstarted_one_is_kept(
    db: AsyncStore,
) -> None:
    rerated: list[object] = []
    archive = StoreArchive(db, rerated=rerated.append)
    with_guest = game(
        {Seat.A_WHITE: Identity("ann", "account"), Seat.A_BLACK: Identity("gus"),
         Seat.B_WHITE: COMPUTER, Seat.B_BLACK: Identity("ben", "account")}, 1,
    )
    await archive.begin(with_guest)
    await archive.record(finished(with_guest))
    # A bot that gave no token is no account's, even under a bot account's name.
    db.store.add_bot("bot9")
    unchecked = game(
        {Seat.A_WHITE: Identity("ann", "account", 1500.0), Seat.A_BLACK: Identity("bot9", "bot"),
         Seat.B_WHITE: Identity("ben", "account", 1500.0)} | {Seat.B_BLACK: _bot(db, "bot8")}, 3,
    )
    await archive.record(finished(unchecked))
    # A game that ended before it began (a player failed) is recorded all the same.
    never = game(with_guest.seats, 2)
    await archive.record(finished(never, "*"))
    games = db.store.games(GameQuery())
    assert [g.rated for g in games] == [False, False, False] and rerated == []
    assert {g.result for g in games} == {"1-0", "*"}
    assert db.store.counts() == {"playing": 0, "finished": 3, "aborted": 0}
    account = db.store.account("ann")
    assert account is not None and account.rating.games == 0


def test_a_try_counts_before_it_is_checked_per_address_name_pair_and_name() -> None:
    now = [0.0]
    limiter = LoginLimiter(
        per_address=4, per_name=2, per_name_everywhere=3, window=60.0, clock=lambda: now[0]
    )
    # Counted as taken: two at once from one address at one name, the third waits.
    assert limiter.take("1.2.3.4", "ann") == 0 and limiter.take("1.2.3.4", "ANN") == 0
    assert limiter.take("1.2.3.4", "ann") == 60.0
    now[0] = 10.0
    assert limiter.take("5.6.7.8", "ann") == 0  # another address: its own pair
    assert limiter.take("9.9.9.9", "ann") == 50.0  # the name, from strangers everywhere
    assert limiter.take("9.9.9.9", "ben") == 0
    # The owner's address (it logged in as ann) skips the strangers' bucket.
    limiter.succeeded("5.6.7.8", "ann")
    assert limiter.take("5.6.7.8", "ann") == 0
    limiter.succeeded("5.6.7.8", "ann")
    assert limiter.take("5.6.7.8", "ann") == 0 and limiter.take("5.6.7.8", "ann") == 0
    assert limiter.take("5.6.7.8", "ann") == 60.0  # its own pair is full now
    # The address, whatever the name.
    assert limiter.take("1.2.3.4", "x1") == 0 and limiter.take("1.2.3.4", "x2") == 0
    assert limiter.take("1.2.3.4", "ben") == 50.0
    now[0] = 55.0
    assert limiter.take("9.9.9.9", "ann") == 0  # the owner's right try was given back
    assert limiter.take("9.9.9.9", "ann") == 5.0
    now[0] = 60.0
    assert limiter.take("9.9.9.9", "ann") == 0 and limiter.take("1.2.3.4", "ben") == 0
    now[0] = 500.0
    limiter.forget_old()
    assert limiter.take("1.2.3.4", "ann") == 0


async def test_hall_rerate_changes_the_lobby_view(tmp_path: Path) -> None:
    hall = Hall(tmp_path)
    hall.lobby.join(Identity("ann", "account", 1500.0))
    before = hall.lobby.version
    hall.rerate({"ann": 1523.456, "nobody": 1400.0})
    assert hall.lobby.members["ann"] == Identity("ann", "account", 1523.5)
    assert hall.lobby.version > before
    await trio.sleep(0)


class HeldArchive:
    """An archive whose ``record`` waits to be released, saying what had been told by then."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall
        self.release = trio.Event()
        self.recording = trio.Event()
        self.kept: list[GameFinished] = []

    async def begin(self, game: GameStarted) -> None:
        pass

    async def record(self, game: GameFinished) -> None:
        self.recording.set()
        await self.release.wait()
        self.kept.append(game)


@pytest.mark.slow
async def test_the_end_is_told_only_once_the_archive_has_the_game(tmp_path: Path) -> None:
    hall = Hall(tmp_path, log=lambda text: None, join_timeout=20)
    archive = HeldArchive(hall)
    hall.archive = archive
    seen: list[object] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            inbox: list[dict[str, object]] = []
            member = hall.join(Identity("alice"), inbox.append)
            hall.handle(member, {"type": "create", "tc": "120+0", "fill_after": 30})
            hall.handle(member, {"type": "sit", "table": "t1", "seat": "A-white"})
            hall.handle(member, {"type": "start", "table": "t1"})
            while not any(m["type"] == "seat" for m in inbox):
                await trio.sleep(0.01)
            seat = next(m for m in inbox if m["type"] == "seat")
            live = hall.live_table("t1")
            assert live is not None
            live.observe(seen.append)
            joined = live.authenticate(str(seat["seat"]), str(seat["token"]))
            player = WebPlayer(live.seat_of(joined), "alice", on_turn=lambda: None)
            await nursery.start(player.run, live, joined, "alice")
            while not any(isinstance(e, MatchStarted) for e in seen):
                await trio.sleep(0.01)
            player.act(ResignAction(seat=player.seat, arrived_at=trio.current_time()))
            await archive.recording.wait()
            await trio.sleep(0.5)  # whatever would be told is told by now
            assert not any(isinstance(e, MatchEnded) for e in seen)
            assert hall.lobby.tables["t1"].state == "playing"
            archive.release.set()
            while hall.lobby.tables["t1"].state != "between":
                await trio.sleep(0.01)
            assert any(isinstance(e, MatchEnded) for e in seen)
            nursery.cancel_scope.cancel()
    (kept,) = archive.kept
    assert kept.result == "0-1" and kept.termination == "resignation"
    assert kept.bpgn is not None and '[WhiteA "alice"]' in kept.bpgn


def test_the_rating_plot_draws_every_rated_game() -> None:
    from bughouse_arbiter.hall.web.plot import rating_plot
    from bughouse_arbiter.storage import HistoryPoint

    assert "No rated games yet" in rating_plot([], start=1500)
    history = [
        HistoryPoint(game_id=i, ended=1.8e9 + 3600 * i, rating=1500 + 40 * i, rd=300 - 30 * i)
        for i in range(1, 6)
    ]
    svg = rating_plot(history, start=1500)
    assert svg.startswith('<svg class="plot"') and svg.endswith("</svg>")
    assert svg.count("<circle") == 5 and svg.count("<polyline") == 1
    assert "game 5: 1700 ± 150" in svg and ">2027-01-15<" in svg


async def test_a_finished_game_waits_for_a_store_locked_elsewhere_then_is_kept(
    db: AsyncStore,
) -> None:
    # Real time: each try blocks a worker thread on the lock, which a mock clock jumps over.
    archive = StoreArchive(db)
    start = game({seat: Identity(f"g{i}") for i, seat in enumerate(SEATS)}, 1)
    await archive.begin(start)
    other = sqlite3.connect(db.store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    kept = trio.Event()

    async def record() -> None:
        await archive.record(finished(start))
        kept.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(record)
        await trio.sleep(RETRY_EVERY + 1)
        assert not kept.is_set()  # held: nobody may hear the result yet
        other.execute("ROLLBACK")
        other.close()
        with trio.fail_after(60):
            await kept.wait()
    assert db.store.counts() == {"playing": 0, "finished": 1, "aborted": 0}
