"""TLS for the line protocol's TCP port (and the certificate check of the web side's).

``server_context(certfile, keyfile)`` and ``client_context(cafile)`` build
the contexts, each failure one clear line. ``accept_tls`` runs a server's
handshake on an accepted connection within a timeout; a client that speaks
plain text instead (its first byte cannot start a TLS record) is answered
``auth refused this server speaks TLS ...`` in plain text, so it can say
why. ``dial_tls`` is the client's handshake, its failures (a certificate
not trusted, a server that does not speak TLS) one line each.
``close_quietly`` closes any stream within a second (a TLS close that the
peer does not read is cut).
"""

from __future__ import annotations

import argparse
import contextlib
import ssl

import trio

from ..errors import UsageError

#: The plain-text answer to a client that does not speak TLS on a TLS port.
PLAIN_CLIENT = (
    "auth refused this server speaks TLS: connect with --tls "
    "(and --cafile FILE if its certificate is not one this machine trusts)"
)
# The first byte of a TLS record carrying a handshake (a ClientHello).
_HANDSHAKE = 0x16


class TlsRefused(Exception):
    """The other end did not complete a TLS handshake; the text says why, in one line."""


def server_context(certfile: str, keyfile: str) -> ssl.SSLContext:
    """A server's context from a certificate (chain) and its key, PEM; ``UsageError`` if bad."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(certfile, keyfile)
    except FileNotFoundError as exc:
        raise UsageError(f"cannot read {exc.filename}: no such file") from None
    except PermissionError as exc:
        raise UsageError(f"cannot read {exc.filename}: permission denied") from None
    except (ssl.SSLError, OSError) as exc:
        raise UsageError(
            f"--certfile {certfile} / --keyfile {keyfile}: not a PEM certificate and its "
            f"key ({getattr(exc, 'reason', None) or exc})"
        ) from None
    return context


def client_context(cafile: str | None = None) -> ssl.SSLContext:
    """A client's context trusting the system's CAs, or ``cafile``'s; ``UsageError`` if bad."""
    try:
        context = ssl.create_default_context(cafile=cafile)
    except FileNotFoundError:
        raise UsageError(f"--cafile {cafile}: no such file") from None
    except (ssl.SSLError, OSError) as exc:
        raise UsageError(
            f"--cafile {cafile}: not a PEM certificate ({getattr(exc, 'reason', None) or exc})"
        ) from None
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def add_client_tls(parser: argparse.ArgumentParser) -> None:
    """``--tls`` and ``--cafile FILE``, for the commands that dial a server."""
    parser.add_argument(
        "--tls", action="store_true", help="the server speaks TLS (serve --certfile/--keyfile)"
    )
    parser.add_argument(
        "--cafile",
        metavar="FILE",
        help="with --tls: trust the certificates this CA file (PEM) signed, such as a "
        "self-signed server's own; implies --tls",
    )


def client_tls(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The client context ``--tls`` / ``--cafile`` ask for, or None (plain TCP)."""
    if not (args.tls or args.cafile):
        return None
    return client_context(args.cafile)


class _Replayed(trio.abc.Stream):
    """``stream`` with ``first`` put back in front of what it receives."""

    def __init__(self, stream: trio.abc.Stream, first: bytes) -> None:
        self.stream = stream
        self.first = first

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.first:
            data, self.first = self.first, b""
            await trio.lowlevel.checkpoint()
            return data
        return bytes(await self.stream.receive_some(max_bytes))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        raise trio.BrokenResourceError("no half-close under TLS")

    async def aclose(self) -> None:
        await self.stream.aclose()


async def accept_tls(
    stream: trio.SocketStream, context: ssl.SSLContext, timeout: float
) -> trio.SSLStream[trio.abc.Stream]:
    """The server's end of the handshake on ``stream``, within ``timeout`` s; ``TlsRefused``
    (after a plain-text answer to a plain-text client) if there is none."""
    with trio.move_on_after(timeout):
        try:
            first = bytes(await stream.receive_some(4096))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            first = b""
        if not first:
            raise TlsRefused("closed before a TLS handshake")
        if first[0] != _HANDSHAKE:
            with trio.move_on_after(1), contextlib.suppress(trio.BrokenResourceError, OSError):
                await stream.send_all((PLAIN_CLIENT + "\n").encode())
            raise TlsRefused("plain text, not TLS")
        tls: trio.SSLStream[trio.abc.Stream] = trio.SSLStream(
            _Replayed(stream, first), context, server_side=True, https_compatible=True
        )
        try:
            await tls.do_handshake()
        except trio.BrokenResourceError as exc:
            raise TlsRefused(f"TLS handshake failed ({_reason(exc)})") from None
        return tls
    raise TlsRefused(f"no TLS handshake in {timeout:g} s")


async def dial_tls(
    stream: trio.SocketStream, context: ssl.SSLContext, host: str, timeout: float
) -> trio.SSLStream[trio.SocketStream]:
    """The client's end of the handshake, checking the certificate names ``host``."""
    tls = trio.SSLStream(stream, context, server_hostname=host, https_compatible=True)
    try:
        with trio.fail_after(timeout):
            await tls.do_handshake()
    except trio.TooSlowError:
        await close_quietly(stream)
        raise TlsRefused("no TLS handshake in time (is it a TLS server?)") from None
    except trio.BrokenResourceError as exc:
        await close_quietly(stream)
        cause = exc.__cause__
        if isinstance(cause, ssl.SSLCertVerificationError):
            raise TlsRefused(
                f"its certificate is not trusted ({cause.verify_message}); "
                "give the CA that signed it with --cafile FILE"
            ) from None
        if isinstance(cause, ssl.SSLError) and cause.reason == "WRONG_VERSION_NUMBER":
            raise TlsRefused("it does not speak TLS (a plain server: leave out --tls)") from None
        raise TlsRefused(f"TLS handshake failed ({_reason(exc)})") from None
    return tls


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__
    if isinstance(cause, ssl.SSLError):
        return str(cause.reason or cause).lower().replace("_", " ")
    return str(cause or exc) or type(exc).__name__


async def close_quietly(stream: trio.abc.AsyncResource) -> None:
    """Closes ``stream``, shielded, within a second (then cut), whatever went wrong."""
    with trio.CancelScope(shield=True):
        with trio.move_on_after(1):
            with contextlib.suppress(Exception):
                await stream.aclose()
        if isinstance(stream, trio.SSLStream):
            with contextlib.suppress(Exception):
                await trio.aclose_forcefully(stream.transport_stream)
