"""docs/distributed.md's "Trying it on one machine" block, run as written.

The block is taken out of the doc and run by bash in a temporary folder and
home (its token goes there), with this installation's ``bughouse`` and
``ray`` first on PATH (the nodes run their workers with the same Python).
Everything it starts listens on 127.0.0.1 and is stopped by its last line;
whatever is left of it after a failure is killed by the pids it printed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "distributed.md"


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


@pytest.mark.slow
def test_the_one_machine_cluster_of_the_docs_plays_as_written(tmp_path: Path) -> None:
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
    }
    env.pop("RAY_ADDRESS", None)
    env.pop("RAY_AUTH_TOKEN", None)
    script = f"set -e\n{block}"
    try:
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
    finally:
        for pid in _session_processes(home):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    logs = "".join(
        f"\n--- {log.name}\n{log.read_text()[-2000:]}"
        for log in tmp_path.glob("*.log")
    )
    assert done.returncode == 0, done.stdout + done.stderr + logs
    assert (home / ".ray" / "auth_token").is_file()
    assert "games: 4 of 4 scheduled" in done.stdout, done.stdout
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
    # Its last line stopped this cluster's processes, and only them.
    assert _session_processes(home) == []
