"""EngineProcess against real child processes (real time, generous guards)."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from bughouse_arbiter.errors import EngineFailed
from bughouse_arbiter.players.process import (
    EngineProcess,
    ProtocolLog,
    describe_exit,
    open_engine_process,
)
from bughouse_arbiter.protocol import RawLine

GUARD = 30


def python(code: str) -> list[str]:
    return [sys.executable, "-u", "-c", textwrap.dedent(code)]


ECHO = python(
    """
    import sys
    for line in sys.stdin:
        line = line.rstrip("\\n")
        if line == "quit":
            break
        print("echo " + line, flush=True)
    """
)

IGNORE_QUIT = python(
    """
    import signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("ready", flush=True)
    for line in sys.stdin:
        pass
    while True:
        time.sleep(1)
    """
)


def assert_reaped(pid: int) -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@pytest.mark.slow
async def test_send_and_receive_lines_in_order() -> None:
    with trio.fail_after(GUARD):
        async with open_engine_process(ECHO) as engine:
            for i in range(50):
                engine.send(f"line {i}")
            got = [(await engine.receive()) for _ in range(50)]
            assert [line.text for line in got if line] == [f"echo line {i}" for i in range(50)]
            pid = engine.pid
        assert engine.returncode == 0  # it read "quit" and left by itself
        assert pid is not None
        assert_reaped(pid)


@pytest.mark.slow
async def test_lines_sent_in_a_batch_go_out_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[bytes] = []
    real_write = os.write

    def counting_write(fd: int, data: bytes) -> int:
        if fd == engine._stdin_fd:
            writes.append(bytes(data))
        return real_write(fd, data)

    with trio.fail_after(GUARD):
        async with open_engine_process(ECHO) as engine:
            monkeypatch.setattr("bughouse_arbiter.players.process.os.write", counting_write)
            with engine.batched():
                engine.send("one")
                engine.send_data(b"two\nthree\n")
                with engine.batched():  # nested: written when the outer block ends
                    engine.send("four")
                assert writes == []
            assert writes == [b"one\ntwo\nthree\nfour\n"]
            engine.send("five")  # outside a batch: written at once
            assert writes[1:] == [b"five\n"]
            got = [(await engine.receive()) for _ in range(5)]
            assert [line.text for line in got if line] == [
                f"echo {word}" for word in ("one", "two", "three", "four", "five")
            ]


@pytest.mark.slow
async def test_lines_held_in_a_batch_go_out_before_the_quit_line() -> None:
    with trio.fail_after(GUARD):
        async with open_engine_process(ECHO) as engine:
            with engine.batched():
                engine.send("last words")
                await engine.aclose()  # the quit line follows what was held
            line = await engine.receive()
            assert line is not None and line.text == "echo last words"
        assert engine.returncode == 0


SLOW_ECHO = python(
    """
    import sys, time
    time.sleep(0.5)  # lets the pipe fill while we keep sending
    for line in sys.stdin:
        line = line.rstrip("\\n")
        if line == "quit":
            break
        print(len(line), line[:8], flush=True)
    """
)


@pytest.mark.slow
async def test_what_the_pipe_cannot_take_is_queued_in_order() -> None:
    # 64 KiB pipes: the big lines fill it, and send() must neither block nor reorder.
    lines = [f"{i:03d}" + "x" * 50_000 if i % 3 == 0 else f"{i:03d} small" for i in range(30)]
    with trio.fail_after(GUARD):
        async with open_engine_process(SLOW_ECHO) as engine:
            for line in lines:  # 500 kB against a 64 KiB pipe nobody reads yet
                engine.send(line)
            got = [await engine.receive() for _ in lines]
    assert [g.text if g else None for g in got] == [f"{len(x)} {x[:8]}" for x in lines]


@pytest.mark.slow
async def test_lines_go_to_on_lines_with_their_read_time() -> None:
    seen: list[tuple[str, float]] = []

    def sink(lines: list[RawLine], at: float) -> None:
        assert at <= trio.current_time()
        seen.extend((line.text, at) for line in lines)

    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(ECHO)
            await engine.start(nursery, on_lines=sink)
            start = trio.current_time()
            for i in range(20):
                engine.send(f"line {i}")
            engine.send("quit")
            await engine.wait_eof()
            await engine.aclose()
    assert [text for text, _ in seen] == [f"echo line {i}" for i in range(20)]
    times = [at for _, at in seen]
    assert times == sorted(times) and times[0] >= start
    assert await engine.receive() is None  # nothing went to the channel


@pytest.mark.slow
async def test_partial_lines_are_joined_and_last_line_kept() -> None:
    code = python(
        """
        import sys, time
        sys.stdout.write("bestm"); sys.stdout.flush(); time.sleep(0.2)
        sys.stdout.write("ove e2e4 turn 1\\r\\nSjeng: "); sys.stdout.flush()
        """
    )
    with trio.fail_after(GUARD):
        async with open_engine_process(code) as engine:
            lines = [line async for line in engine]
    assert lines == [RawLine("bestmove e2e4 turn 1", 20), RawLine("Sjeng: ", 7)]


@pytest.mark.slow
async def test_eof_and_exit_status_are_reported() -> None:
    code = python(
        """
        import sys
        print("bye", flush=True)
        print("Traceback: something broke", file=sys.stderr, flush=True)
        sys.exit(3)
        """
    )
    with trio.fail_after(GUARD):
        async with open_engine_process(code) as engine:
            assert (await engine.receive()) == RawLine("bye", 3)
            assert await engine.receive() is None
            assert await engine.receive() is None
            assert engine.eof
            assert await engine.wait_exit(GUARD) == 3
            while not engine.stderr_tail:  # the stderr reader catches the last line
                await trio.sleep(0.01)
            assert engine.exit_description() == (
                "exited with status 3 (stderr: Traceback: something broke)"
            )
            engine.send("ignored: nobody reads")  # must not raise


@pytest.mark.slow
async def test_flood_is_drained_while_nobody_reads() -> None:
    # 4 MB of output: without a draining reader the child would block on a
    # full pipe and never exit.
    code = python(
        """
        import sys
        line = "info " + "x" * 995 + "\\n"
        sys.stdout.write(line * 4000)
        sys.stdout.write("x" * 50000 + "\\n")
        print("done", flush=True)
        """
    )
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(code, max_backlog=1000)
            await engine.start(nursery)
            assert await engine.wait() == 0
            await engine.wait_eof()  # everything read (and what did not fit dropped)
            lines = [line async for line in engine]
            await engine.aclose()
    assert len(lines) == 1000
    assert engine.dropped == 4000 + 2 - 1000
    assert all(line.text.startswith("info ") for line in lines)


@pytest.mark.slow
async def test_overlong_lines_are_cut_and_flagged() -> None:
    code = python('print("y" * 20000); print("ok")')
    with trio.fail_after(GUARD):
        async with open_engine_process(code, max_line=100) as engine:
            lines = [line async for line in engine]
    assert lines == [RawLine("y" * 100, 20000, overlong=True), RawLine("ok", 2)]


@pytest.mark.slow
async def test_closed_pipe_while_alive_is_eof_then_killed() -> None:
    code = python(
        """
        import os, time
        print("closing", flush=True)
        os.close(1)
        time.sleep(60)
        """
    )
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(code)
            await engine.start(nursery)
            assert (await engine.receive()) == RawLine("closing", 7)
            assert await engine.receive() is None
            assert engine.returncode is None
            await engine.aclose(grace=0.2, term_grace=5)
    assert engine.returncode == -signal.SIGTERM
    assert engine.pid is not None
    assert_reaped(engine.pid)


@pytest.mark.slow
async def test_ignore_quit_is_killed_and_reaped() -> None:
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(IGNORE_QUIT, log=(log := []).append)
            await engine.start(nursery)
            assert (await engine.receive()) == RawLine("ready", 5)
            await engine.aclose(grace=0.3, term_grace=0.3)
            await engine.aclose()  # twice is fine
    assert engine.returncode == -signal.SIGKILL
    assert describe_exit(engine.returncode) == "killed by SIGKILL"
    assert engine.pid is not None
    assert_reaped(engine.pid)
    assert any("still running: SIGTERM" in line for line in log)
    assert any("still running: SIGKILL" in line for line in log)


@pytest.mark.slow
async def test_engine_runs_in_its_own_session_and_its_helpers_die_with_it() -> None:
    code = python(
        """
        import os, signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        helper = subprocess.Popen(["sleep", "60"])
        print(os.getsid(0), helper.pid, flush=True)
        sys.stdin.read()
        time.sleep(60)
        """
    )
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(code)
            await engine.start(nursery)
            first = await engine.receive()
            assert first is not None
            session_id, helper = (int(x) for x in first.text.split())
            assert session_id == engine.pid != os.getsid(0)
            await engine.aclose(grace=0.2, term_grace=0.2)
        # the helper got the group's SIGKILL (reparented, it may linger as a zombie
        # of this process when an earlier test made pytest a child subreaper)
        with trio.fail_after(5):
            while _running(helper):
                await trio.sleep(0.05)


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a zombie child is reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if stat.rsplit(")", 1)[1].split()[0] != "Z":
        return True
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    return False


@pytest.mark.slow
async def test_protocol_log_has_timestamps_and_directions() -> None:
    stream = io.StringIO()
    with trio.fail_after(GUARD):
        async with open_engine_process(ECHO, label="WA", log=ProtocolLog(stream)) as engine:
            engine.send("hello")
            assert (await engine.receive()) == RawLine("echo hello", 10)
    lines = stream.getvalue().splitlines()
    parts = [line.split(maxsplit=1) for line in lines]
    assert all(stamp.isdigit() for stamp, _ in parts)
    texts = [text for _, text in parts]
    assert "WA < hello" in texts
    assert "WA > echo hello" in texts
    assert "WA < quit" in texts
    assert "WA : exited with status 0" in texts
    assert texts[0].startswith("WA : started pid ")


@pytest.mark.slow
async def test_a_program_that_cannot_run() -> None:
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            engine = EngineProcess(["/nonexistent/engine"])
            with pytest.raises(EngineFailed, match="cannot run '/nonexistent/engine'"):
                await engine.start(nursery)
            await engine.aclose()
    with pytest.raises(EngineFailed, match="empty engine command"):
        EngineProcess([])


@pytest.mark.slow
async def test_send_refuses_line_breaks() -> None:
    with trio.fail_after(GUARD):
        async with open_engine_process(ECHO) as engine:
            with pytest.raises(ValueError, match="line break"):
                engine.send("go\nquit")


@pytest.mark.slow
async def test_cancellation_still_stops_the_engine() -> None:
    with trio.fail_after(GUARD):
        with trio.move_on_after(0.3):
            async with open_engine_process(IGNORE_QUIT, grace=0.2, term_grace=0.2) as engine:
                await trio.sleep_forever()
    assert engine.returncode == -signal.SIGKILL
    assert engine.pid is not None
    assert_reaped(engine.pid)


@pytest.mark.slow
async def test_argv_cwd_and_env_are_used_as_given(tmp_path: object) -> None:
    code = python(
        """
        import os, sys
        print(os.getcwd(), os.environ.get("BUG_TEST", "-"), sys.argv[1:], flush=True)
        """
    )
    env = {**os.environ, "BUG_TEST": "hello world"}
    with trio.fail_after(GUARD):
        async with open_engine_process([*code, "a b", "$HOME"], cwd=str(tmp_path), env=env) as e:
            line = await e.receive()
    assert line is not None
    assert line.text == f"{tmp_path} hello world ['a b', '$HOME']"
