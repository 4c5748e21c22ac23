"""``bughouse serve`` / ``bughouse connect`` over loopback, with real processes.

Each test runs the server and its clients as subprocesses and judges the
game file the server wrote. Seats B-White and A-Black are remote; the others
are local searchers.
"""

from __future__ import annotations

import socket
import sys
from functools import partial
from pathlib import Path

import pytest
import trio
from serve_helpers import ROOT, Server, reap

from bughouse_arbiter.bpgn.read import BpgnGame, read_games

REMOTE = ("--remote", "B-white", "--remote", "A-black")
GAME_TIMEOUT = 240
# A-White thinks 3 s a move, so board A cannot end the game in the seconds a
# dropped client takes to come back or to be declared gone.
SLOW_BOARD_A = (
    "--engine",
    f"WA={sys.executable} {ROOT / 'engines' / 'random_mover.py'} --delay 3000",
)


def the_game(server: Server) -> BpgnGame:
    games = read_games(server.out.read_text())
    assert len(games) == 1
    return games[0]


def remote_moves(game: BpgnGame) -> list[dict[str, str]]:
    """The commands of the moves made by the remote seats (WB, BA)."""
    return [
        dict(m.commands)
        for m in game.moves
        if (m.board.value, m.white) in {("B", True), ("A", False)}
    ]


@pytest.mark.slow
async def test_two_remote_engines_and_two_local_ones_play_a_full_game(tmp_path: Path) -> None:
    server = Server(tmp_path, *REMOTE, "--tc", "8+0")
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            clients = [await server.connect(seat) for seat in ("b-white", "a-black")]
            assert await server.wait() == 0, server.err
            for client in clients:
                with trio.fail_after(30):
                    assert await client.wait() == 0
    game = the_game(server)
    assert game.tags["Result"] in {"1-0", "0-1", "1/2-1/2"}
    assert game.tags["Termination"] != "left"
    assert game.tags["WhiteB"] == game.tags["BlackA"] == "Searcher 1.0"
    lags = [c["lag"] for c in remote_moves(game)]
    assert lags and all(int(lag) >= 0 for lag in lags)
    assert "took seat WB" in server.err and "took seat BA" in server.err


@pytest.mark.slow
async def test_the_move_lines_show_while_the_game_goes_on(tmp_path: Path) -> None:
    # Each move's line reaches the output within a flush tick, not once
    # thousands of characters have gathered (about ninety lines) or at the end.
    server = Server(tmp_path, *REMOTE, *SLOW_BOARD_A, "--tc", "60+0")
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            clients = [await server.connect(seat) for seat in ("b-white", "a-black")]
            await server.plies(1)
            shown = [line for line in server.lines if line.startswith("ply")]
            assert server.process is not None and server.process.returncode is None
            server.kill()
            for client in clients:
                await reap(client)
    assert 1 <= len(shown) < 10, shown


@pytest.mark.slow
async def test_a_killed_client_that_comes_back_within_the_grace_plays_on(tmp_path: Path) -> None:
    server = Server(
        tmp_path, *REMOTE, *SLOW_BOARD_A, "--tc", "20+0", "--rule", "reconnect_grace=30"
    )
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            first = await server.connect("b-white")
            other = await server.connect("a-black")
            await server.plies(6)
            first.kill()
            await first.wait()
            await server.wait_for(lambda: "dropped the connection" in server.err)
            again = await server.connect("b-white")
            assert await server.wait() == 0, server.err
            await reap(again)
            await reap(other)
    game = the_game(server)
    assert game.tags["Termination"] != "left", game.tags
    assert game.tags["Result"] in {"1-0", "0-1", "1/2-1/2"}
    assert "WB : 127.0.0.1" in server.err and "came back" in server.err
    assert game.tags["WhiteB"] == "Searcher 1.0"


@pytest.mark.slow
@pytest.mark.parametrize("leaver", ["lose", "computer"])
async def test_a_client_that_does_not_come_back(tmp_path: Path, leaver: str) -> None:
    server = Server(
        tmp_path,
        *REMOTE,
        *(SLOW_BOARD_A if leaver == "lose" else ()),
        "--tc",
        "20+0",
        "--rule",
        "reconnect_grace=1",
        "--rule",
        f"leaver={leaver}",
    )
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            gone = await server.connect("b-white")
            # Board A slow on both sides under "lose": no mate there before the grace ends.
            other = await server.connect(
                "a-black", SLOW_BOARD_A[1][3:] if leaver == "lose" else "searcher"
            )
            await server.plies(6)
            gone.kill()
            await gone.wait()
            await server.wait()
            await reap(other)
    game = the_game(server)
    if leaver == "lose":
        assert game.tags["Termination"] == "left"
        assert game.tags["TerminationSeat"] == "WB"
        assert game.tags["Result"] == "1-0"  # B-White plays for team 2
    else:
        assert game.tags["Termination"] != "left"
        assert game.tags["WhiteB"] == "Searcher 1.0 / searcher"
        assert game.tags["Result"] in {"1-0", "0-1", "1/2-1/2"}


@pytest.mark.slow
async def test_wrong_and_reused_tokens_are_refused(tmp_path: Path) -> None:
    server = Server(tmp_path, *REMOTE, "--tc", "20+0")
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            assert (
                await ask(server.port, "auth b-white not-the-token") == "auth refused wrong token"
            )
            assert await ask(server.port, "auth a-white x") == "auth refused not a remote seat"
            assert await ask(server.port, "auth C-green x") == "auth refused unknown seat"
            assert await ask(server.port, "hello") == "auth refused expected 'auth <seat> <token>'"
            token = server.tokens["b-white"]
            holder = await trio.open_tcp_stream("127.0.0.1", server.port)
            await holder.send_all(f"auth WB {token}\n".encode())
            assert (await holder.receive_some(100)).startswith(b"auth ok WB")
            assert await ask(server.port, f"auth WB {token}") == "auth refused seat taken"
            connect = await server.connect("a-black")
            await holder.aclose()
            server.kill()
            await reap(connect)
    assert server.err.count("auth refused") == 4  # each refusal logged once
    assert "wrong token" in server.err and "not an auth line" in server.err
    assert server.tokens["b-white"] not in server.err


async def ask(port: int, line: str) -> str:
    """Sends one line on a fresh connection and returns the server's answer."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(line.encode() + b"\n")
        data = b""
        while b"\n" not in data:
            chunk = await stream.receive_some(1000)
            if not chunk:
                break
            data += chunk
    return data.decode().strip()


@pytest.mark.slow
async def test_a_flood_of_junk_connections_does_not_disturb_the_game(tmp_path: Path) -> None:
    server = Server(tmp_path, *REMOTE, "--tc", "10+0")
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=2)
            clients = [await server.connect(seat) for seat in ("b-white", "a-black")]
            await server.plies(2)
            async with trio.open_nursery() as junk:
                for index in range(60):
                    junk.start_soon(flood, server.port, index)
            assert await server.wait() == 0, server.err
            for client in clients:
                await reap(client)
    game = the_game(server)
    assert game.tags["Termination"] != "left"
    assert game.tags["Result"] in {"1-0", "0-1", "1/2-1/2"}
    # Logged one by one, or (past the first few) counted by kind.
    assert "junk connection" in server.err


async def flood(port: int, index: int) -> None:
    """One junk client: garbage, an endless line, silence, or a half-open socket."""
    try:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
    except OSError:
        return
    async with stream:
        try:
            with trio.move_on_after(8):
                kind = index % 4
                if kind == 0:
                    await stream.send_all(b"\xff\xfe garbage \x00\n" * 50)
                elif kind == 1:
                    for _ in range(100):  # one line of 1.6 MB, never ended
                        await stream.send_all(b"a" * 16384)
                elif kind == 2:
                    await trio.sleep(8)  # says nothing
                else:
                    await stream.send_all(b"auth WB wrong\nbestmove e2e4 turn 1\n" * 20)
                await stream.receive_some(1000)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass


def test_the_server_listens_only_on_loopback_by_default() -> None:
    from bughouse_arbiter.cli import build_parser

    args = build_parser().parse_args(["serve", "--remote", "WB"])
    assert args.host == "127.0.0.1"
    assert socket.inet_aton(args.host)


async def raw_seat(port: int, seat: str, token: str, heard: list[str], *, tell: str = "") -> None:
    """Plays ``seat`` over TCP by hand: greets, sits on every turn (``wait``) and
    notes every line; with ``tell``, its first turn says it to the partner, then
    resigns a second later."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(f"auth {seat} {token}\n".encode())
        pending = b""
        while chunk := await stream.receive_some(65536):
            pending += chunk
            *done, pending = pending.split(b"\n")
            for raw in done:
                line = raw.decode()
                heard.append(line)
                words = line.split()
                answer = ""
                if line == "bug 1":
                    answer = "bugok"
                elif line == "isready":
                    answer = "readyok"
                elif words[:1] == ["go"] and tell:
                    await stream.send_all(f"ptell {tell}\n".encode())
                    await trio.sleep(1)
                    answer = "resign"
                elif words[:1] == ["go"]:
                    answer = f"wait turn {words[words.index('turn') + 1]}"
                elif words[:1] == ["gameover"]:
                    return
                if answer:
                    await stream.send_all(f"{answer}\n".encode())


@pytest.mark.slow
async def test_a_partner_message_reaches_only_the_partner_over_tcp(tmp_path: Path) -> None:
    """protocol.md §8: A-White's ptell goes to its partner B-Black's connection,
    never to the opponents'; the game file keeps it."""
    server = Server(
        tmp_path,
        "--remote=A-white",
        "--remote=A-black",
        "--remote=B-black",
        "--engine=B-white=random",
        "--tc=20+0",
    )
    heard: dict[str, list[str]] = {seat: [] for seat in ("a-white", "a-black", "b-black")}
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=3)
            for seat, lines in heard.items():
                tell = "---trades for my partner only" if seat == "a-white" else ""
                nursery.start_soon(
                    partial(raw_seat, server.port, seat, server.tokens[seat], lines, tell=tell)
                )
            assert await server.wait() == 0, server.err
    assert "ptell ---trades for my partner only" in heard["b-black"]
    assert not [line for line in heard["a-black"] if line.startswith("ptell")]
    assert not [line for line in heard["a-white"] if line.startswith("ptell")]
    assert all(any(line.startswith("gameover") for line in lines) for lines in heard.values())
    game = the_game(server)
    assert game.tags["Termination"] == "resignation"
    assert "---trades for my partner only" in server.out.read_text()
