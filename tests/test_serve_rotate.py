"""``bughouse serve --games N``: the seats rotate as in ``match``, with real processes.

The server and its clients run as subprocesses. Each remote engine is
``tests/seat_engine.py`` under a name of its own (Alpha, Beta), which notes
every ``newgame`` it is told: so each test sees the seat every connection
played in each game, and judges the BPGN file and the summary the server
wrote. Alpha resigns early in its games, so each game ends at its seat.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio
from serve_helpers import ROOT, Server, reap

from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.core.model import Seat

GAME_TIMEOUT = 300
SEAT_ENGINE = ROOT / "tests" / "seat_engine.py"
SLOW_RANDOM = f"{sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 2000"
LOCAL = "RandomMover 1.0"


def seat_engine(name: str, log: Path, *options: str) -> str:
    return " ".join([sys.executable, str(SEAT_ENGINE), name, str(log), *options])


def seats_told(log: Path) -> list[tuple[str, str]]:
    """(game id, seat) of every ``newgame`` the engine was told, in order."""
    told = []
    for line in log.read_text().splitlines():
        words = line.split()
        seats = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "seat"]
        told.append((words[2], "+".join(seats)))
    return told


def pids(log: Path) -> list[str]:
    """The process id that noted each ``newgame`` of the log."""
    return [line.split()[-1] for line in log.read_text().splitlines()]


def name_at(game: BpgnGame, seat: Seat) -> str:
    """The name the BPGN gives ``seat`` (``[WhiteA "..."]`` ...)."""
    return game.tags[f"{'White' if seat.color else 'Black'}{seat.board.value}"]


async def serve_alpha_and_beta(
    tmp_path: Path, *options: str, local: tuple[str, str] = ("random", "random")
) -> tuple[Server, Path, Path]:
    """Serves B-white to Alpha (resigns instead of its third move of a game) and
    A-black to Beta, two seat engines over the network, A-white and B-black to
    the ``local`` engines (random movers), until the run ends; the server and
    the remote engines' logs."""
    alpha, beta = tmp_path / "alpha.log", tmp_path / "beta.log"
    server = Server(
        tmp_path,
        "--remote=B-white",
        "--remote=A-black",
        f"--engine=WA={local[0]}",
        f"--engine=BB={local[1]}",
        "--tc=60+0",
        *options,
    )
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            clients = [
                await server.connect("b-white", seat_engine("Alpha", alpha, "--resign-after=2")),
                await server.connect("a-black", seat_engine("Beta", beta)),
            ]
            assert await server.wait() == 0, server.err
            for client in clients:
                with trio.fail_after(30):
                    assert await client.wait() == 0
    return server, alpha, beta


@pytest.mark.slow
async def test_four_games_rotate_every_remote_player_over_every_seat(tmp_path: Path) -> None:
    server, alpha, beta = await serve_alpha_and_beta(tmp_path, "--games=4")
    # One connection each for the whole run, told its seat by each game's newgame:
    # every player sat at every seat, partners stayed partners.
    assert seats_told(alpha) == [
        ("1", "b-white"),
        ("2", "b-black"),
        ("3", "a-white"),
        ("4", "a-black"),
    ]
    assert seats_told(beta) == [
        ("1", "a-black"),
        ("2", "a-white"),
        ("3", "b-black"),
        ("4", "b-white"),
    ]
    assert server.err.count("took seat") == 2 and "came back" not in server.err
    games = read_games(server.out.read_text())
    assert [g.tags["Round"] for g in games] == ["1", "2", "3", "4"]
    alpha_seats = [Seat.B_WHITE, Seat.B_BLACK, Seat.A_WHITE, Seat.A_BLACK]
    beta_seats = [Seat.A_BLACK, Seat.A_WHITE, Seat.B_BLACK, Seat.B_WHITE]
    for game, at_alpha, at_beta in zip(games, alpha_seats, beta_seats, strict=True):
        names = {seat: name_at(game, seat) for seat in Seat}
        assert names.pop(at_alpha) == "Alpha" and names.pop(at_beta) == "Beta", game.tags
        assert list(names.values()) == [LOCAL, LOCAL]
        assert game.tags["Termination"] == "resignation"
        assert game.tags["TerminationSeat"] == at_alpha.bpgn
        # The network lag is written with the moves of the remote players' seats of
        # this game, and only with those.
        lagged = {(m.board, m.white) for m in game.moves if "lag" in m.commands}
        assert lagged <= {(s.board, s.color) for s in (at_alpha, at_beta)}, lagged
        assert (at_alpha.board, at_alpha.color) in lagged  # Alpha moved twice
    # Alpha's team lost every game, as team 2, then team 1, then 1, then 2.
    assert [g.tags["Result"] for g in games] == ["1-0", "0-1", "0-1", "1-0"]
    lines = server.lines
    assert "game 2/4: 0-1 B-Black resigned" in "\n".join(lines)
    assert "seats: BA's player at WA, WB's player at BB" in lines
    # The score counts by side, not by team: the side Alpha and Beta form lost all four.
    score = [line for line in lines if line.startswith("score: ")]
    assert score == [
        f"score: {LOCAL}+{LOCAL} 4 - 0 Beta+Alpha "
        "(sides as seated in game 1: A-White+B-Black against A-Black+B-White)"
    ]
    table = lines[lines.index(next(x for x in lines if x.startswith("engines: "))) :]
    assert table[2].split()[:6] == ["1", "R", "B", "A", "R", "1-0"]
    assert table[3].split()[:6] == ["2", "B", "R", "R", "A", "0-1"]


@pytest.mark.slow
async def test_a_player_that_drops_mid_run_comes_back_to_its_seat_of_that_game(
    tmp_path: Path,
) -> None:
    first, again, beta = tmp_path / "alpha1.log", tmp_path / "alpha2.log", tmp_path / "beta.log"
    # The local engines think 2 s a move, so game 2 goes on while Alpha is away.
    server = Server(
        tmp_path,
        "--remote=B-white",
        "--remote=A-black",
        f"--engine=WA={SLOW_RANDOM}",
        f"--engine=BB={SLOW_RANDOM}",
        "--games=2",
        "--tc=120+0",
        "--rule=reconnect_grace=60",
    )
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            # Alpha resigns game 1 after two moves, then plays game 2 on and on.
            alpha = await server.connect(
                "b-white", seat_engine("Alpha", first, "--resign-after=2", "--resign-in=1")
            )
            other = await server.connect("a-black", seat_engine("Beta", beta))
            while not (first.exists() and len(seats_told(first)) == 2):
                await trio.sleep(0.05)
            alpha.kill()
            await alpha.wait()
            await server.wait_for(lambda: "dropped the connection" in server.err)
            # The same command as the first time (the token's seat), a new engine
            # that resigns at its first turn.
            back = await server.connect("b-white", seat_engine("Alpha", again, "--resign-after=0"))
            assert await server.wait() == 0, server.err
            with trio.fail_after(30):
                assert await back.wait() == 0
            await reap(other)
    assert seats_told(first) == [("1", "b-white"), ("2", "b-black")]
    assert seats_told(again) == [("2", "b-black")]  # the seat of game 2, not the token's
    assert "WB : 127.0.0.1" in server.err and "came back" in server.err
    one, two = read_games(server.out.read_text())
    assert name_at(one, Seat.B_WHITE) == "Alpha" and one.tags["TerminationSeat"] == "WB"
    assert name_at(two, Seat.B_BLACK) == "Alpha" and name_at(two, Seat.A_WHITE) == "Beta"
    assert two.tags["Termination"] == "resignation"
    assert two.tags["TerminationSeat"] == "BB" and two.tags["Result"] == "0-1"


@pytest.mark.slow
async def test_the_local_engines_are_kept_from_game_to_game_at_their_rotated_seats(
    tmp_path: Path,
) -> None:
    """As in ``match``: one process per local engine plays all the games, and
    moves with its seat; a fresh one only after a crash or hang (the keeper's)."""
    gamma, delta = tmp_path / "gamma.log", tmp_path / "delta.log"
    local = (seat_engine("Gamma", gamma), seat_engine("Delta", delta))
    server, alpha, beta = await serve_alpha_and_beta(tmp_path, "--games=3", local=local)
    assert seats_told(gamma) == [("1", "a-white"), ("2", "a-black"), ("3", "b-white")]
    assert seats_told(delta) == [("1", "b-black"), ("2", "b-white"), ("3", "a-black")]
    for log in (gamma, delta, alpha, beta):
        assert len(set(pids(log))) == 1, log.read_text()  # one process, three games
    games = read_games(server.out.read_text())
    assert [name_at(game, Seat.A_WHITE) for game in games] == ["Gamma", "Beta", "Alpha"]
    assert [game.tags["TerminationSeat"] for game in games] == ["WB", "BB", "WA"]


@pytest.mark.slow
async def test_fixed_seats_keep_every_player_at_its_seat(tmp_path: Path) -> None:
    server, alpha, beta = await serve_alpha_and_beta(tmp_path, "--games=2", "--fixed-seats")
    assert seats_told(alpha) == [("1", "b-white"), ("2", "b-white")]
    assert seats_told(beta) == [("1", "a-black"), ("2", "a-black")]
    games = read_games(server.out.read_text())
    for game in games:
        assert name_at(game, Seat.B_WHITE) == "Alpha" and name_at(game, Seat.A_BLACK) == "Beta"
        assert game.tags["TerminationSeat"] == "WB" and game.tags["Result"] == "1-0"
    assert "seats are fixed for the whole run (--fixed-seats)" in server.lines
    assert not any(line.startswith("seats: ") for line in server.lines)
    assert any(line.startswith(f"score: {LOCAL}+{LOCAL} 2 - 0 Beta+Alpha") for line in server.lines)


@pytest.mark.slow
async def test_the_computer_that_took_a_seat_over_moves_with_it(tmp_path: Path) -> None:
    alpha, beta = tmp_path / "alpha.log", tmp_path / "beta.log"
    server = Server(
        tmp_path,
        "--remote=B-white",
        "--remote=A-black",
        "--engine=WA=random",
        "--engine=BB=random",
        "--games=2",
        "--tc=20+0",
        "--rule=reconnect_grace=1",
        "--rule=leaver=computer",
    )
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            gone = await server.connect("b-white", seat_engine("Alpha", alpha, "--delay=300"))
            other = await server.connect("a-black", seat_engine("Beta", beta, "--delay=300"))
            await server.plies(4)
            gone.kill()
            await gone.wait()
            assert await server.wait() == 0, server.err
            await reap(other)
    assert seats_told(alpha) == [("1", "b-white")]
    assert seats_told(beta) == [("1", "a-black"), ("2", "a-white")]
    assert "searcher takes the seat" in server.err
    one, two = read_games(server.out.read_text())
    # The record names both at the seat the player held in each game.
    assert name_at(one, Seat.B_WHITE) == "Alpha / searcher"
    assert name_at(two, Seat.B_BLACK) == "Alpha / searcher"
    assert name_at(two, Seat.B_WHITE) == LOCAL and name_at(two, Seat.A_WHITE) == "Beta"
    assert "left" not in (one.tags["Termination"], two.tags["Termination"])
    assert any(m.board.value == "B" and not m.white for m in two.moves)  # the searcher played
