"""Runs ``bughouse serve`` and ``bughouse connect`` as real processes for the tests."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import trio
from cli_checks import BUGHOUSE, ROOT, environment

ENV = environment()


def bughouse(*args: str) -> list[str]:
    return [*BUGHOUSE, *args]


class Server:
    """One ``bughouse serve --port 0`` process; ``start`` reads its port and tokens."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.out = tmp_path / "games.bpgn"
        self.err_path = tmp_path / "serve.err"
        self.argv = bughouse("serve", "--port", "0", "--out", str(self.out), *args)
        self.process: trio.Process | None = None
        self.lines: list[str] = []
        self.port = 0
        self.tokens: dict[str, str] = {}
        self._pending = b""
        self._changed = trio.Event()

    async def start(self, nursery: trio.Nursery, remote_seats: int) -> None:
        self.process = await trio.lowlevel.open_process(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=self.err_path.open("wb"),
            env=ENV,
            cwd=str(ROOT),
        )
        nursery.start_soon(self._read)
        await self.wait_for(lambda: len(self.tokens) == remote_seats and self.port > 0)

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        while chunk := await self.process.stdout.receive_some(65536):
            self._pending += chunk
            *done, self._pending = self._pending.split(b"\n")
            for raw in done:
                line = raw.decode()
                self.lines.append(line)
                if m := re.match(r"listening on [\d.]+:(\d+)", line):
                    self.port = int(m.group(1))
                if m := re.search(r"--seat (\S+) --token=(\S+) --", line):
                    self.tokens[m.group(1)] = m.group(2)
            self._changed.set()
            self._changed = trio.Event()

    async def wait_for(self, done: object) -> None:
        assert callable(done)
        while not done():
            await self._changed.wait()

    async def plies(self, n: int) -> None:
        """Waits until the server has printed ``n`` moves."""
        await self.wait_for(lambda: sum(line.startswith("ply") for line in self.lines) >= n)

    async def wait(self) -> int:
        assert self.process is not None
        return await self.process.wait()

    @property
    def err(self) -> str:
        return self.err_path.read_text()

    def connect_argv(self, seat: str, spec: str = "searcher") -> list[str]:
        return bughouse(
            "connect",
            f"127.0.0.1:{self.port}",
            "--seat",
            seat,
            f"--token={self.tokens[seat]}",
            "--",
            spec,
        )

    async def connect(self, seat: str, spec: str = "searcher") -> trio.Process:
        return await trio.lowlevel.open_process(
            self.connect_argv(seat, spec),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=ENV,
            cwd=str(ROOT),
        )

    def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()


async def reap(process: trio.Process) -> None:
    if process.returncode is None:
        process.kill()
    with trio.move_on_after(10):
        await process.wait()
