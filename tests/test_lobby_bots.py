"""Bots in the lobby, end to end: two ``bughouse connect --server ... --bot``
processes (a native searcher and Fairy-Stockfish over UCI) play two games in a
row at lobby tables with two guests, each on one engine process, and
``--games 2`` ends them with exit 0."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
import trio
from cli_checks import BUGHOUSE, ROOT, environment

from bughouse_arbiter.exits import OK
from bughouse_arbiter.hall.line_lobby import serve_line_lobby
from bughouse_arbiter.hall.runtime import Hall
from bughouse_arbiter.players.process import EngineProcess
from bughouse_arbiter.protocol.lobby_lines import Hello
from bughouse_arbiter.server import bot
from bughouse_arbiter.server.lobby_client import LinePort, open_lobby

FAIRY = "/usr/games/fairy-stockfish"
TC = "10+0"
GUARD = 150

pytestmark = pytest.mark.skipif(not Path(FAIRY).exists(), reason="needs fairy-stockfish")


async def _guest(port: int, name: str) -> int:
    """A guest that queues at TC and plays one game with a random mover."""
    link, _ = await open_lobby(LinePort("127.0.0.1", port), Hello("guest", name, ping=True))
    await link.send(f"queue {TC}")
    engine = EngineProcess([sys.executable, str(ROOT / "engines" / "random_mover.py")], label=name)
    said: list[str] = []
    return await bot.run_bot(
        link, 1, lambda lines: bot.pump_native(lines, engine, said.append), said.append
    )


async def test_two_bots_play_two_games_each_on_one_engine_and_stop(tmp_path: Path) -> None:
    log: list[str] = []
    hall = Hall(tmp_path / "games", log=log.append)
    (tmp_path / "games").mkdir()
    logs = {name: tmp_path / f"{name}.log" for name in ("srch", "fsf")}
    specs = {"srch": "searcher", "fsf": f"uci:{FAIRY}"}
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            await nursery.start(hall.run)
            port = await nursery.start(
                partial(serve_line_lobby, hall, host="127.0.0.1", port=0, log=log.append)
            )
            url = f"tcp://127.0.0.1:{port}"
            bots: dict[str, trio.Process] = {}
            errs = {name: (tmp_path / f"{name}.err").open("wb") for name in specs}
            for name, spec in specs.items():
                argv = ["connect", "--server", url, "--bot", name, "--tc", TC, "--games", "2"]
                bots[name] = await trio.lowlevel.open_process(
                    [*BUGHOUSE, *argv, "--debug", str(logs[name]), "--", spec],
                    stdout=subprocess.DEVNULL,
                    stderr=errs[name],
                    env=environment(),
                    cwd=str(ROOT),
                )
            while set(hall.bots) != set(specs):
                await trio.sleep(0.05)
            for game in (1, 2):
                async with trio.open_nursery() as guests:
                    for name in (f"g{game}a", f"g{game}b"):
                        guests.start_soon(_guest, port, name)
            codes = {name: await process.wait() for name, process in bots.items()}
            nursery.cancel_scope.cancel()
    for handle in errs.values():
        handle.close()
    errors = {name: (tmp_path / f"{name}.err").read_text() for name in specs}
    assert codes == {"srch": OK, "fsf": OK}, (errors, log[-20:])
    for name in specs:
        assert "done: 2 games played" in errors[name]
        started = [line for line in logs[name].read_text().splitlines() if " started pid " in line]
        assert len(started) == 1, started  # one engine process for both games
    native = logs["srch"].read_text().splitlines()
    assert sum(line.split()[2:] == ["<", "bug", "1"] for line in native) == 1
    assert sum(line.split()[2:4] == ["<", "newgame"] for line in native) == 2
    uci = logs["fsf"].read_text().splitlines()
    assert sum(line.split()[2:] == ["<", "uci"] for line in uci) == 1
    games = sorted((tmp_path / "games").glob("*.bpgn"))
    assert len(games) == 2, (games, log[-20:])
