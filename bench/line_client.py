"""What the server benches share: a line-lobby connection and a process's /proc figures."""

from __future__ import annotations

import contextlib
import os

import trio


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
