"""The client end of the line lobby: find the line port, dial it, say hello.

``--server URL`` is either the web address of ``bughouse server``
(``http://host:port``: ``GET /api/server`` names the line port) or the line
port itself (``tcp://host:port``). ``open_lobby`` dials, sends the hello line
(protocol.md §12.7) and waits for ``hello ok``; a refusal raises
``ConnectRefused`` with the server's reason. The ``ClientLink`` it returns
answers the server's pings itself, as for a seat. TLS is dialled when the
server says its line port speaks it, or when asked (``--tls``, ``--cafile``).
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request

import attrs
import trio

from ..errors import UsageError
from ..net.tls import PLAIN_CLIENT, TlsRefused, client_context, close_quietly, dial_tls
from ..protocol import MAX_LINE, LineBuffer, RawLine
from ..protocol.lobby_lines import Hello, HelloOk, HelloRefused, format_hello, parse_server_line
from .link import AUTH_TIMEOUT, ClientLink, ConnectRefused

#: Seconds the web side has to answer ``GET /api/server``.
API_TIMEOUT = 10.0


@attrs.frozen
class LinePort:
    """Where the line lobby listens."""

    host: str
    port: int
    tls: bool = False

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_server_url(text: str) -> tuple[str, str, int]:
    """``http://host:port`` / ``https://...`` / ``tcp://host:port`` as (scheme, host, port);
    UsageError if not one of these."""
    try:
        url = urllib.parse.urlsplit(text.strip())
        port = url.port
    except ValueError as exc:
        raise UsageError(f"--server {text!r}: {exc}") from None
    scheme = url.scheme.lower()
    if scheme not in ("http", "https", "tcp") or not url.hostname:
        raise UsageError(
            f"--server {text!r}: expected http://HOST:PORT (the server's web address) "
            "or tcp://HOST:PORT (its line port)"
        )
    if port is None:
        if scheme == "tcp":
            raise UsageError(f"--server {text!r}: tcp:// needs a port")
        port = 443 if scheme == "https" else 80
    if not 0 < port < 65536:
        raise UsageError(f"--server {text!r}: port {port} is out of range")
    return scheme, url.hostname, port


def line_port_of(info: object, host: str) -> LinePort:
    """The line port named by ``/api/server``'s JSON; ConnectRefused if it names none."""
    port = info.get("line_port") if isinstance(info, dict) else None
    if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
        raise ConnectRefused("the server's /api/server names no line port")
    tls = info.get("tls") is True if isinstance(info, dict) else False
    return LinePort(host, port, tls)


def _fetch_api(base: str, tls: ssl.SSLContext | None) -> object:
    url = base.rstrip("/") + "/api/server"
    context = (tls or client_context()) if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(url, timeout=API_TIMEOUT, context=context) as answer:
            body = answer.read(65536)
    except urllib.error.HTTPError as exc:
        raise ConnectRefused(f"{url} answered {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConnectRefused(f"cannot reach {url}: {reason}") from None
    try:
        return json.loads(body)
    except ValueError:
        raise ConnectRefused(f"{url} did not answer JSON") from None


async def find_line_port(text: str, tls: ssl.SSLContext | None = None) -> LinePort:
    """The line port ``--server URL`` leads to (asks the web side for an http URL).

    ``tls`` (``--tls``/``--cafile``) checks an https server's certificate, and
    makes a ``tcp://`` line port a TLS one; a server whose ``/api/server`` says
    ``"tls": true`` is dialled with TLS in any case."""
    scheme, host, port = parse_server_url(text)
    if scheme == "tcp":
        return LinePort(host, port, tls is not None)
    base = f"{scheme}://{host}:{port}"
    info = await trio.to_thread.run_sync(_fetch_api, base, tls, abandon_on_cancel=True)
    where = line_port_of(info, host)
    return LinePort(where.host, where.port, where.tls or tls is not None)


async def _dial(where: LinePort, tls: ssl.SSLContext | None) -> trio.abc.Stream:
    try:
        raw = await trio.open_tcp_stream(where.host, where.port)
    except OSError as exc:
        raise ConnectRefused(f"cannot connect to {where}: {exc.strerror or exc}") from exc
    if not where.tls:
        return raw
    try:
        return await dial_tls(raw, tls or client_context(), where.host, AUTH_TIMEOUT)
    except TlsRefused as exc:
        raise ConnectRefused(f"{where}: {exc}") from None


async def open_lobby(
    where: LinePort, hello: Hello, tls: ssl.SSLContext | None = None
) -> tuple[ClientLink, str]:
    """Dials the line port (TLS if ``where.tls``, checked by ``tls`` or this
    machine's CAs) and says hello; the link and the name the server took.
    Raises ``ConnectRefused`` (unreachable, refused, no answer)."""
    stream = await _dial(where, tls)
    pending: list[RawLine] = []
    link = ClientLink(stream, LineBuffer(MAX_LINE), pending)
    try:
        with trio.fail_after(AUTH_TIMEOUT):
            await link.send(format_hello(hello))
            while True:
                answer = await link.receive()
                if answer is None or answer.text.strip():
                    break
    except trio.TooSlowError:
        await close_quietly(stream)
        raise ConnectRefused(f"{where} did not answer the hello line") from None
    except (trio.BrokenResourceError, OSError) as exc:
        await close_quietly(stream)
        raise ConnectRefused(f"{where} closed the connection: {exc}") from exc
    parsed = parse_server_line(answer.text) if answer is not None else None
    if isinstance(parsed, HelloOk):
        return link, parsed.name
    await link.aclose()
    if isinstance(parsed, HelloRefused):
        raise ConnectRefused(f"{hello.name!r} refused: {parsed.reason}")
    text = answer.text.strip()[:200] if answer is not None else ""
    if text == PLAIN_CLIENT:
        raise ConnectRefused(f"{where} speaks TLS: connect with --tls (and --cafile FILE)")
    if not text and not where.tls:
        raise ConnectRefused(
            f"{where} closed the connection without answering (if it speaks TLS, add --tls)"
        )
    raise ConnectRefused(
        f"{where} is not a line lobby ({text!r})" if text else f"{where} closed the connection"
    )
