"""docs/distributed.md's "Trying it on one machine" block, run as a user pastes it.

The block is taken out of the doc and pasted into an interactive bash on a
pseudo-terminal (as into a terminal: its background jobs could read the
terminal, and one that does is stopped, which bash reports at once with
``set -b``), in a temporary folder and home (its token goes there), with
this installation's ``bughouse`` and ``ray`` first on PATH (the nodes run
their workers with the same Python). Everything it starts is stopped by its
last line; whatever is left of it after a failure is killed by its HOME.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "distributed.md"
#: The most the block may take (about 50 s here, most of it Ray starting its nodes).
GUARD = 300.0
#: Printed after the block, written so that its echo does not read as it.
DONE = "BLOCK-DONE"


def _block() -> str:
    text = DOC.read_text()
    section = text.split("## Trying it on one machine", 1)[1]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found is not None, "no sh block under 'Trying it on one machine'"
    return found.group(1)


def _session_processes(home: Path) -> list[int]:
    """The pids of processes whose environment has HOME=``home`` (the block's)."""
    found = []
    mark = f"HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _paste(block: str, cwd: Path, env: dict[str, str], guard: float) -> tuple[str, str]:
    """Pastes ``block`` into an interactive bash on a pseudo-terminal and waits
    for it to end: ``("done", output)``, ``("stopped", output)`` when one of
    its commands stopped to read the terminal, or ``("hung", output)`` after
    ``guard`` seconds."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: bash on the terminal, as a user's
        os.chdir(cwd)
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    typed = f'set -b\n{block}\necho "{DONE[:5]}""{DONE[5:]}"\nexit\n'
    os.write(fd, typed.encode())
    out = b""
    how = "hung"
    deadline = time.monotonic() + guard
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:  # the terminal closed: bash is gone
                break
            if not data:
                break
            out += data
            text = _plain(out)
            if re.search(r"^\[\d+\][+-]?\s+Stopped", text, re.M):
                how = "stopped"
                break
            if re.search(rf"^{DONE}\b", text, re.M):
                how = "done"
                break
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return how, _plain(out)


def _plain(out: bytes) -> str:
    """A terminal's output as text: its escape sequences and carriage returns out."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", out.decode(errors="replace"))


def _commands(pids: list[int]) -> list[str]:
    """Each live process's command line (zombies left out: they are gone)."""
    commands = []
    for pid in pids:
        with contextlib.suppress(OSError):
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z":
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                commands.append(f"{pid} {argv.decode(errors='replace').strip()}")
    return commands


@pytest.mark.slow
def test_the_one_machine_cluster_of_the_docs_plays_as_pasted(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    block = _block()
    home = tmp_path / "home"
    home.mkdir()
    tools = tmp_path / "bin"
    tools.mkdir()
    # `ray` and `bughouse` of this installation (the workers run this Python).
    (tools / "ray").write_text(f'#!/bin/sh\nexec {sys.executable} -m ray.scripts.scripts "$@"\n')
    (tools / "bughouse").write_text(f'#!/bin/sh\nexec {sys.executable} -m bughouse_arbiter "$@"\n')
    for tool in tools.iterdir():
        tool.chmod(0o755)
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "PS1": "$ ",
        "TERM": "xterm",
    }
    for name in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_USAGE_STATS_ENABLED"):
        env.pop(name, None)
    survivors: list[str] = []
    try:
        how, out = _paste(block, tmp_path, env, GUARD)
        # Its last line stopped this cluster's processes, and only them: none
        # outlives the block (a moment for the last ones to be reaped).
        deadline = time.monotonic() + 15
        while (survivors := _commands(_session_processes(home))) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for pid in _session_processes(home):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    logs = "".join(f"\n--- {log.name}\n{log.read_text()[-2000:]}" for log in tmp_path.glob("*.log"))
    assert how != "stopped", f"a command of the block stopped to read the terminal:\n{out}"
    assert how == "done", f"the block did not end in {GUARD:g} s:\n{out[-4000:]}{logs}"
    assert (home / ".ray" / "auth_token").is_file()
    assert "games: 4 of 4 scheduled" in out, out + logs
    lines = (tmp_path / "t" / "results.jsonl").read_text().splitlines()
    reports = [json.loads(line)["report"] for line in lines]
    assert len(reports) == 4
    # The nodes that played (the second may join after the games are handed
    # out: the block waits for the head only), under the one address they
    # registered with, as counted.
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert 1 <= len(summary["nodes"]) <= 2, summary["nodes"]
    assert sum(n["games"] for n in summary["nodes"]) == 4
    assert {r["node"].split()[-1] for r in reports} == {n["address"] for n in summary["nodes"]}
    assert survivors == [], survivors
