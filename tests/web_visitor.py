"""``Visitor``: a stranger (or an owner) on a real server's web port, from an address of its own.

Each request is one HTTP/1.1 connection (h11) from ``source``, a loopback
address such as ``127.0.0.7``, so that the server counts it as that address.
The visitor keeps its cookies (``copy`` gives another visitor the same ones,
as a stolen cookie) and reads a form's CSRF token off the page before it
posts the form, as a browser with the page open does.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import Any

import attrs
import h11
import trio


@attrs.frozen
class Answer:
    status: int
    headers: dict[str, str]
    body: str

    @property
    def location(self) -> str:
        return self.headers.get("location", "")


class Visitor:
    """See the module docstring."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port = port
        self.source = source
        self.cookies: dict[str, str] = {}
        self.origin = f"http://127.0.0.1:{port}"

    def copy(self, source: str | None = None) -> Visitor:
        """Another visitor holding the same cookies (from ``source``, or the same address)."""
        other = Visitor(self.port, source or self.source)
        other.cookies = dict(self.cookies)
        return other

    async def request(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> Answer:
        sock = trio.socket.socket()
        await sock.bind((self.source, 0))
        await sock.connect(("127.0.0.1", self.port))
        stream = trio.SocketStream(sock)
        conn = h11.Connection(h11.CLIENT)
        sent: dict[str, str] = {"host": f"127.0.0.1:{self.port}", "connection": "close"}
        if self.cookies:
            sent["cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body or method == "POST":
            sent["content-length"] = str(len(body))
        sent.update(headers or {})
        try:
            out = conn.send(h11.Request(method=method, target=path, headers=list(sent.items())))
            out += conn.send(h11.Data(data=body)) if body else b""
            out += conn.send(h11.EndOfMessage())
            await stream.send_all(out)
            status, got, chunks = 0, {}, []
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await stream.receive_some(65536))
                elif isinstance(event, h11.Response):
                    status = event.status_code
                    for key, value in event.headers:
                        name, text = key.decode().lower(), value.decode("latin-1")
                        if name == "set-cookie":
                            self._keep_cookie(text)
                        got[name] = text
                elif isinstance(event, h11.Data):
                    chunks.append(bytes(event.data))
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
        finally:
            await stream.aclose()
        return Answer(status, got, b"".join(chunks).decode("utf-8", "replace"))

    def _keep_cookie(self, line: str) -> None:
        pair, _, attributes = line.partition(";")
        name, _, value = pair.strip().partition("=")
        gone = value in ("", "null") or "max-age=0" in attributes.lower().replace(" ", "")
        if gone or "expires=thu, 01 jan 1970" in attributes.lower():
            self.cookies.pop(name, None)
        else:
            self.cookies[name] = value

    async def get(self, path: str) -> Answer:
        return await self.request("GET", path)

    async def token(self, page: str) -> str:
        """The CSRF token of the form on ``page`` (this visitor's session's)."""
        answer = await self.get(page)
        found = re.search(r'name="csrf" value="([^"]+)"', answer.body)
        assert found is not None, answer
        return found.group(1)

    async def post(
        self, path: str, form: dict[str, str], *, token: str | None = None, **headers: str
    ) -> Answer:
        """POSTs ``form`` with ``token`` (or the one on ``path``'s page), from this site."""
        fields = {**form, "csrf": token if token is not None else await self.token(path)}
        sent = {
            "content-type": "application/x-www-form-urlencoded",
            "origin": self.origin,
            **{k.replace("_", "-"): v for k, v in headers.items()},
        }
        return await self.request("POST", path, urllib.parse.urlencode(fields).encode(), sent)

    async def me(self) -> Any:
        """``/api/me``: who this visitor's cookie is logged in as."""
        return json.loads((await self.get("/api/me")).body)


def login(name: str, password: str) -> dict[str, str]:
    return {"username": name, "password": password}


def register(name: str, password: str) -> dict[str, str]:
    return {"username": name, "password": password, "password2": password}
