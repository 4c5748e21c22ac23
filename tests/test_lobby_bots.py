"""Bots in a real ``bughouse server``'s lobby: ``bughouse connect --server URL --bot``
processes (a native searcher, Fairy-Stockfish over UCI) seated at tables with
guests, game after game on one engine process each; ``--games N`` and Ctrl+C
end them cleanly. The guests are line-lobby connections playing a random mover."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from serve_helpers import ENV, ROOT, bughouse, reap

from bughouse_arbiter.clients import bot
from bughouse_arbiter.clients.lobby_link import LinePort, open_lobby
from bughouse_arbiter.exits import OK, by_signal
from bughouse_arbiter.players.process import EngineProcess
from bughouse_arbiter.protocol.lobby_lines import Hello

FAIRY = "/usr/games/fairy-stockfish"
TC = "10+0"
GUARD = 150


class ServerProcess:
    """One ``bughouse server --port 0 --line-port 0``; ``start`` reads its ports."""

    def __init__(self, tmp_path: Path) -> None:
        self.out = tmp_path / "games"
        self.err_path = tmp_path / "server.err"
        self.process: trio.Process | None = None
        self.web = self.line = 0

    async def start(self) -> None:
        self.process = await trio.lowlevel.open_process(
            bughouse("server", "--port", "0", "--line-port", "0", "--out", str(self.out)),
            stdout=subprocess.PIPE,
            stderr=self.err_path.open("wb"),
            env=ENV,
            cwd=str(ROOT),
        )
        assert self.process.stdout is not None
        seen = b""
        while not (self.web and self.line):
            chunk = await self.process.stdout.receive_some(4096)
            assert chunk, self.err_path.read_text()
            seen += chunk
            if m := re.search(rb"lobby: http://127\.0\.0\.1:(\d+)/", seen):
                self.web = int(m.group(1))
            if m := re.search(rb"line port: 127\.0\.0\.1:(\d+)", seen):
                self.line = int(m.group(1))

    @property
    def log(self) -> str:
        return self.err_path.read_text()


class BotProcess:
    """One ``bughouse connect --server ... --bot NAME`` process."""

    def __init__(self, tmp_path: Path, name: str) -> None:
        self.name = name
        self.err_path = tmp_path / f"{name}.err"
        self.debug = tmp_path / f"{name}.log"
        self.process: trio.Process | None = None

    async def start(self, url: str, spec: str, *extra: str) -> None:
        argv = ["connect", "--server", url, "--bot", self.name, "--tc", TC, *extra]
        self.process = await trio.lowlevel.open_process(
            bughouse(*argv, "--debug", str(self.debug), "--", spec),
            stdout=subprocess.DEVNULL,
            stderr=self.err_path.open("wb"),
            env=ENV,
            cwd=str(ROOT),
        )

    @property
    def err(self) -> str:
        return self.err_path.read_text() if self.err_path.exists() else ""

    async def says(self, text: str) -> None:
        while text not in self.err:
            assert self.process is not None and self.process.returncode is None, self.err
            await trio.sleep(0.05)

    def to_engine(self) -> list[list[str]]:
        """The lines the engine was sent (``<ms> label < LINE`` in its protocol log)."""
        logged = [line.split() for line in self.debug.read_text().splitlines()]
        return [words[3:] for words in logged if len(words) > 2 and words[2] == "<"]


async def _guest(port: int, name: str, *commands: str) -> int:
    """A guest that sends ``commands`` and plays one game with a random mover."""
    link, _ = await open_lobby(LinePort("127.0.0.1", port), Hello("guest", name, ping=True))
    for command in commands:
        await link.send(command)
    engine = EngineProcess([sys.executable, str(ROOT / "engines" / "random_mover.py")], label=name)
    said: list[str] = []
    return await bot.run_bot(
        link, 1, lambda lines: bot.pump_native(lines, engine, said.append), said.append
    )


async def _joined(server: ServerProcess, *names: str) -> None:
    while not all(f"bot {name} joined the lobby" in server.log for name in names):
        await trio.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(not Path(FAIRY).exists(), reason="needs fairy-stockfish")
async def test_two_bots_play_two_games_each_on_one_engine_and_stop(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    bots = {"srch": BotProcess(tmp_path, "srch"), "fsf": BotProcess(tmp_path, "fsf")}
    specs = {"srch": "searcher", "fsf": f"uci:{FAIRY}"}
    try:
        with trio.fail_after(GUARD):
            await server.start()
            for name, one in bots.items():
                # The web address: the bot asks /api/server for the line port.
                await one.start(f"http://127.0.0.1:{server.web}", specs[name], "--games", "2")
            await _joined(server, *bots)
            for game in (1, 2):
                # Two guests queue; with the two idle bots they make a table at once.
                async with trio.open_nursery() as guests:
                    for name in (f"g{game}a", f"g{game}b"):
                        guests.start_soon(_guest, server.line, name, f"queue {TC}")
            codes = {name: await one.process.wait() for name, one in bots.items() if one.process}
    finally:
        for one in bots.values():
            if one.process is not None:
                await reap(one.process)
        if server.process is not None:
            await reap(server.process)
    assert codes == {"srch": OK, "fsf": OK}, ({n: b.err for n, b in bots.items()}, server.log)
    for one in bots.values():
        assert "done: 2 games played" in one.err
        assert one.err.count("seated at t") == 2
        started = [line for line in one.debug.read_text().splitlines() if " started pid " in line]
        assert len(started) == 1, started  # one engine process for both games
    native = bots["srch"].to_engine()
    assert native.count(["bug", "1"]) == 1  # the second seating's handshake answered for it
    assert [words[0] for words in native].count("newgame") == 2
    assert bots["fsf"].to_engine().count(["uci"]) == 1
    assert sorted(path.name for path in server.out.glob("*.bpgn")) == ["t1.bpgn", "t2.bpgn"]
    for path in server.out.glob("*.bpgn"):
        text = path.read_text()
        assert '"srch"]' in text and '"fsf"]' in text and "[Result " in text


@pytest.mark.slow
async def test_ctrl_c_ends_a_bot_after_its_game_and_twice_at_once(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path)
    calm, hasty = BotProcess(tmp_path, "calm"), BotProcess(tmp_path, "hasty")
    try:
        with trio.fail_after(GUARD):
            await server.start()
            url = f"tcp://127.0.0.1:{server.line}"
            for one in (calm, hasty):
                await one.start(url, "searcher")
            await _joined(server, "calm", "hasty")
            async with trio.open_nursery() as nursery:
                # A person's table: the bots fill two seats, a computer the last.
                nursery.start_soon(
                    _guest, server.line, "host", f"create {TC}", "sit t1 A-white", "start t1"
                )
                for one in (calm, hasty):
                    await one.says("seated at t1")
                assert calm.process is not None and hasty.process is not None
                calm.process.send_signal(signal.SIGINT)
                await calm.says("leaving after this game")
                hasty.process.send_signal(signal.SIGINT)
                await hasty.says("leaving after this game")
                hasty.process.send_signal(signal.SIGINT)
                assert await hasty.process.wait() == by_signal(signal.SIGINT)
                assert await calm.process.wait() == OK
    finally:
        for one in (calm, hasty):
            if one.process is not None:
                await reap(one.process)
        if server.process is not None:
            await reap(server.process)
    assert "stopping now" in hasty.err
    assert "done: 1 game played" in calm.err, calm.err
    assert calm.to_engine()[-1] == ["quit"]
