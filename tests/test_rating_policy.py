"""The rating policy (``ratings.policy``): aborted and farmed games are not rated."""

from __future__ import annotations

from pathlib import Path

import attrs
from archive_games import START, finished, seats

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.ratings.policy import REPEAT_LIMIT, REPEAT_WINDOW, rating_call
from bughouse_arbiter.storage.sqlite import SqliteStore

NAMES = ("ann", "bob", "cy", "di")
EVERYONE = frozenset(Seat)


def call(**changed: object) -> tuple[bool, str]:
    given: dict[str, object] = dict(
        table_rated=True, all_rated_players=True, result="1-0", moved=EVERYONE, repeats=0
    )
    given.update(changed)
    made = rating_call(**given)  # type: ignore[arg-type]
    return made.rated, made.why


def test_a_full_game_between_four_accounts_is_rated() -> None:
    assert call() == (True, "")
    assert call(moved=None)[0]  # not known (a game recorded by hand): not held against it


def test_each_reason_for_an_unrated_game_says_so() -> None:
    assert call(table_rated=False) == (False, "the table is unrated")
    assert call(all_rated_players=False)[1].startswith("not all four")
    assert call(result="*") == (False, "the game has no result")


def test_a_game_ended_before_every_player_moved_is_aborted() -> None:
    for missing in Seat:
        rated, why = call(moved=EVERYONE - {missing})
        assert not rated and why.startswith("aborted")
    assert not call(moved=frozenset())[0]


def test_repeated_games_between_the_same_four_stop_counting() -> None:
    assert call(repeats=REPEAT_LIMIT - 1)[0]
    rated, why = call(repeats=REPEAT_LIMIT)
    assert not rated and "already played" in why


def _store(tmp_path: Path) -> SqliteStore:
    store = SqliteStore.open(tmp_path / "db.sqlite3")
    for name in NAMES:
        store.add_bot(name, now=START)
    return store


def test_the_store_rates_no_resignation_before_everyone_moved(tmp_path: Path) -> None:
    store = _store(tmp_path)
    early = finished("g1", seats(NAMES, "bot"), "1-0", ended=START + 1)
    assert store.record_game(attrs.evolve(early, moved=frozenset({Seat.A_WHITE}))) == ()
    ann = store.account("ann")
    assert ann is not None and ann.rating.games == 0
    assert store.record_game(attrs.evolve(finished("g2", seats(NAMES, "bot"), "1-0",
                                                   ended=START + 2), moved=EVERYONE))
    ann = store.account("ann")
    assert ann is not None and ann.rating.games == 1


def test_the_store_stops_rating_the_same_four_within_the_window(tmp_path: Path) -> None:
    store = _store(tmp_path)
    rated = [
        bool(store.record_game(finished(f"g{i}", seats(NAMES, "bot"), "1-0",
                                        ended=START + i * 60)))
        for i in range(REPEAT_LIMIT + 3)
    ]
    assert rated == [True] * REPEAT_LIMIT + [False] * 3
    games = store.games()
    assert sum(g.rated for g in games) == REPEAT_LIMIT  # the archive says which counted
    # After the window the four count again.
    later = START + REPEAT_WINDOW + REPEAT_LIMIT * 60 + 1
    assert store.record_game(finished("late", seats(NAMES, "bot"), "1-0", ended=later))
