"""What the server benches share: a ``bughouse server`` process, a line-lobby
connection, and a process's /proc figures."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent


class ServerProcess:
    """A ``bughouse server`` process on 127.0.0.1 with its own database, room for
    ``pages`` pages, its ports read from its stdout (``out``: all it printed).

    ``command``: how Python runs it (``-m bughouse_arbiter``, or a wrapper script).
    """

    def __init__(
        self, folder: Path, pages: int, command: Sequence[str] = ("-m", "bughouse_arbiter")
    ) -> None:
        limit = str(max(64, pages + 64))
        self.argv = [
            sys.executable, *command, "server",
            "--port", "0", "--line-port", "0", "--out", str(folder / "games"),
            "--db", str(folder / "server.sqlite3"),
            "--limit", f"pages={limit}", "--limit", f"per_address={limit}",
            "--limit", f"connections={limit}", "--limit", "timeout=30",
        ]  # fmt: skip
        self.err = (folder / "server.err").open("wb")
        self.process: trio.Process | None = None
        self.port = self.line_port = 0
        self.out = b""

    async def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = await trio.lowlevel.open_process(
            self.argv, stdout=subprocess.PIPE, stderr=self.err, env=env, cwd=str(ROOT)
        )
        assert self.process.stdout is not None
        with trio.fail_after(60):
            while not (self.port and self.line_port):
                chunk = await self.process.stdout.receive_some(4096)
                if not chunk:
                    raise SystemExit("the server exited before listening (see server.err)")
                self.out += chunk
                if m := re.search(rb"lobby: http://127\.0\.0\.1:(\d+)/", self.out):
                    self.port = int(m.group(1))
                if m := re.search(rb"line port: 127\.0\.0\.1:(\d+)", self.out):
                    self.line_port = int(m.group(1))

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid


class Lines:
    """A line-protocol connection: ``readline`` (None once the server closed it) and ``send``."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = bytearray()

    async def readline(self) -> str | None:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = self.buffer[:end].decode()
                del self.buffer[: end + 1]
                return line.rstrip("\r")
            try:
                chunk = await self.stream.receive_some(65536)
            except trio.BrokenResourceError:
                return None
            if not chunk:
                return None
            self.buffer += chunk

    async def send(self, *lines: str) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.stream.send_all("".join(f"{line}\n" for line in lines).encode())


def rss_kib(pid: int) -> int:
    """The process's resident memory (VmRSS), in KiB."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """The CPU seconds (user and system) the process has taken so far."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
