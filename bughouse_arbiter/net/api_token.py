"""The JSON API's CSRF token: a random cookie the page reads back and sends as a header.

``GET /api/csrf`` answers ``{"csrf": TOKEN}`` and sets it as the cookie
``bughouse_csrf`` (``SameSite=Strict``, ``HttpOnly``); a state-changing JSON
request must carry ``X-CSRF-Token: TOKEN`` equal to that cookie
(``token_ok``). Another site's page can neither read the answer nor set the
header without a preflight this server never grants, and ``SiteGate``
refuses its ``Origin`` first. No session needed: it works with or without
a database.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

COOKIE = "bughouse_csrf"
HEADER = "x-csrf-token"


def issue(request: Any, *, tls: bool = False) -> Any:
    """The token (the cookie's, or a new one) as JSON, with the cookie set."""
    from starlette.responses import JSONResponse

    token = request.cookies.get(COOKIE) or secrets.token_urlsafe(24)
    answer = JSONResponse({"csrf": token}, headers={"cache-control": "no-store"})
    answer.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=tls, path="/")
    return answer


def token_ok(request: Any) -> bool:
    """Whether the request's header carries its cookie's token."""
    cookie = request.cookies.get(COOKIE, "")
    given = request.headers.get(HEADER, "")
    return bool(cookie) and hmac.compare_digest(cookie.encode(), given.encode())
