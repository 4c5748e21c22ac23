"""TLS on ``serve``'s two ports: ``--certfile/--keyfile``, and ``--tls/--cafile`` on the clients.

The certificate is made for each test by ``trustme`` (a CA of its own, a
server certificate for 127.0.0.1 and localhost). The line port is spoken to
in-process (``TcpFrontEnd`` and ``open_seat``), every mismatch being one
clear line; one real ``serve`` plays a short game with a ``connect --tls``
engine while its live page answers over https.
"""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trio
from cli_checks import BUGHOUSE, run_bughouse
from serve_helpers import ENV, ROOT, Server, bughouse, reap
from tls_files import certificate

from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.clients.link import ConnectRefused, open_seat
from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import UsageError
from bughouse_arbiter.net.limits import Limits
from bughouse_arbiter.net.tls import client_context, server_context
from bughouse_arbiter.serve.listener import TcpFrontEnd
from bughouse_arbiter.serve.seam import LiveTable


class Holder:
    """A remote seat that greets a link and reads it to its end."""

    connected = False
    lost = False

    async def attach(self, link: Any) -> None:
        link.send("bug")
        while await link.receive() is not None:
            pass


async def start_tcp(
    nursery: trio.Nursery, tls: ssl.SSLContext | None
) -> tuple[TcpFrontEnd, LiveTable, list[str]]:
    logged: list[str] = []
    table = LiveTable(HouseRules(), {Seat.B_WHITE: Holder()}, names=dict, log=logged.append)  # type: ignore[dict-item]
    front = TcpFrontEnd("127.0.0.1", 0, Limits(auth_timeout=2), tls=tls)
    await nursery.start(front.serve, table)
    return front, table, logged


async def test_the_line_port_speaks_tls_and_each_mismatch_is_one_line(tmp_path: Path) -> None:
    cafile, certfile, keyfile = certificate(tmp_path / "ours")
    other_ca, _, _ = certificate(tmp_path / "theirs")
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            front, table, logged = await start_tcp(nursery, server_context(certfile, keyfile))
            token = table.tokens[Seat.B_WHITE]
            link = await open_seat(
                "127.0.0.1", front.port, "wb", token, tls=client_context(cafile)
            )
            line = await link.receive()  # the seat's greeting, past "auth ok"
            assert line is not None and line.text == "bug"
            await link.aclose()
            # A plain client is told, in plain text, what to do.
            with pytest.raises(ConnectRefused, match="seat refused: this server speaks TLS: con"):
                await open_seat("127.0.0.1", front.port, "wb", token)
            # A CA that did not sign the certificate: the client refuses the server.
            with pytest.raises(ConnectRefused, match=r"its certificate is not trusted .*--cafile"):
                await open_seat("127.0.0.1", front.port, "wb", token, tls=client_context(other_ca))
            # The system's CAs do not know a test CA either.
            with pytest.raises(ConnectRefused, match="not trusted"):
                await open_seat("127.0.0.1", front.port, "wb", token, tls=client_context())
            # A connection that says nothing is dropped after the timeout, as before auth.
            silent = await trio.open_tcp_stream("127.0.0.1", front.port)
            assert await silent.receive_some(100) == b""
            await trio.sleep(0.1)
            assert any("plain text, not TLS" in line for line in logged)
            assert any("no TLS handshake in 2 s" in line for line in logged)
            nursery.cancel_scope.cancel()


async def test_a_tls_client_against_a_plain_server_says_so(tmp_path: Path) -> None:
    cafile, _, _ = certificate(tmp_path)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            front, table, _ = await start_tcp(nursery, None)
            with pytest.raises(ConnectRefused, match=r"it does not speak TLS .*leave out --tls"):
                await open_seat(
                    "127.0.0.1",
                    front.port,
                    "wb",
                    table.tokens[Seat.B_WHITE],
                    tls=client_context(cafile),
                )
            nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_bad_certificate_files_are_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    connect = ["connect", "127.0.0.1:7790", "--seat", "wb", "--token=x"]
    cases = [
        (
            ["serve", "--remote", "WB", "--certfile", str(junk), "--keyfile", str(junk)],
            "not a PEM certificate and its key",
        ),
        (["serve", "--remote", "WB", "--certfile", str(junk)], "--certfile and --keyfile go"),
        ([*connect, "--cafile", str(junk), "--", "searcher"], f"--cafile {junk}: not a PEM"),
    ]
    for argv, text in cases:
        done = run_bughouse(*argv, cwd=tmp_path, timeout=60)
        assert done.returncode == 2, (argv, done.stderr)
        [line] = done.stderr.strip().splitlines()
        assert text in line, line
    with pytest.raises(UsageError, match="no such file"):
        server_context(str(tmp_path / "none"), str(junk))
    with pytest.raises(UsageError, match="no such file"):
        client_context(str(tmp_path / "none"))


@pytest.mark.slow
async def test_a_tls_table_plays_with_a_tls_engine_and_serves_its_page_over_https(
    tmp_path: Path,
) -> None:
    cafile, certfile, keyfile = certificate(tmp_path)
    tls = ("--certfile", certfile, "--keyfile", keyfile)
    server = Server(tmp_path, "--remote", "B-white", "--tc", "3+0", "--web", "0", *tls)
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await server.start(nursery, remote_seats=1)
            assert any(line.endswith("(TLS)") for line in server.lines)
            page = next(line for line in server.lines if line.startswith("live page: "))
            assert page.startswith("live page: https://127.0.0.1:")
            web_port = int(page.rsplit(":", 1)[1].strip("/"))
            join = next(line for line in server.lines if "join: bughouse connect" in line)
            assert f"127.0.0.1:{server.port} --tls --seat" in join
            # Without --tls the engine is told why it cannot sit.
            connect = server.connect_argv("b-white")[len(BUGHOUSE) :]  # connect ... -- searcher
            plain = run_bughouse(*connect, cwd=ROOT, timeout=60)
            assert plain.returncode == 3, plain.stderr
            assert "this server speaks TLS: connect with --tls" in plain.stderr
            # The page over https, checked against the test's CA.
            stream = trio.SSLStream(
                await trio.open_tcp_stream("127.0.0.1", web_port),
                ssl.create_default_context(cafile=cafile),
                server_hostname="127.0.0.1",
                https_compatible=True,  # as browsers are: Hypercorn sends no close_notify
            )
            await stream.send_all(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            answer = b""
            with trio.fail_after(10):
                while chunk := await stream.receive_some(65536):
                    answer += chunk
            assert answer.startswith(b"HTTP/1.1 200") and b"/assets/live.js" in answer
            cut = connect.index("--")
            client = await trio.lowlevel.open_process(
                bughouse(*connect[:cut], "--tls", "--cafile", cafile, *connect[cut:]),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=ENV,
                cwd=str(ROOT),
            )
            assert await server.wait() == 0, server.err
            await reap(client)
    [game] = read_games(server.out.read_text())
    assert game.tags["Result"] in {"1-0", "0-1", "1/2-1/2"}
    assert game.tags["Termination"] != "left"
    assert "took seat WB" in server.err
