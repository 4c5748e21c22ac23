"""Accounts on the web: register, log in, log out; who a lobby socket or a bot is.

Sessions are signed cookies (Starlette's ``SessionMiddleware``, itsdangerous;
``SameSite=Lax``, ``Secure`` under TLS), signed with a key kept in a file
beside the database (``key_for``), so a restart keeps people logged in.
Every form carries the session's CSRF token and a POST without it is
refused (403). Failed logins are limited per address and per name
(``LoginLimiter``): past the limit the form says how long to wait (429).
A person logged in joins the lobby as their account, with its rating; a
guest may not take an account's name. A bot whose name is a bot account
must give its token (``bot_identity``): a token seats its own bot only.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
import urllib.parse
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...lobby.identity import Identity, name_problem
from ...storage import Account, StoreError
from ...storage.accounts import check_password, check_username
from ...storage.aio import AsyncStore
from ..runtime import JoinRefused
from .shell import CSS, HEADERS, csrf_field, esc, page

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

#: Failed logins one address may make in ``WINDOW`` seconds, and tries at one name.
PER_ADDRESS = 20
PER_NAME = 5
WINDOW = 300.0
#: The largest form body read, in bytes.
MAX_FORM = 8192
#: Seconds a session lasts.
SESSION_AGE = 30 * 24 * 3600
COOKIE = "bughouse_session"


def key_for(db_path: Path) -> str:
    """The session signing key kept beside the database (made once, mode 0600)."""
    path = db_path.with_name(db_path.name + ".key")
    try:
        return path.read_text("ascii").strip()
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(key + "\n")
    return key


class LoginLimiter:
    """Failed logins (and registrations) in a sliding window, per address and per
    (lower-cased) name."""

    def __init__(
        self,
        *,
        per_address: int = PER_ADDRESS,
        per_name: int = PER_NAME,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = {"address": per_address, "name": per_name}
        self.window = window
        self.clock = clock
        self._failures: dict[tuple[str, str], deque[float]] = {}

    def wait(self, address: str, name: str) -> float:
        """Seconds before another try (0: now)."""
        now = self.clock()
        longest = 0.0
        for key in _keys(address, name):
            times = self._recent(key, now)
            if len(times) >= self.limits[key[0]]:
                longest = max(longest, times[0] + self.window - now)
        return longest

    def failed(self, address: str, name: str) -> None:
        now = self.clock()
        for key in _keys(address, name):
            self._recent(key, now).append(now)

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        times = self._failures.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[key]
            times = self._failures.setdefault(key, deque())
        return times


def _keys(address: str, name: str) -> list[tuple[str, str]]:
    """The buckets a try counts in: its address, and its name if it gave one."""
    return [("address", address)] + ([("name", name.lower())] if name else [])


class Accounts:
    """The server's accounts as the web side and the line port use them."""

    def __init__(self, db: AsyncStore, *, secret: str, tls: bool = False) -> None:
        self.db = db
        self.secret = secret
        self.tls = tls
        self.limiter = LoginLimiter()

    # -- who is who ----------------------------------------------------------------------

    async def account(self, name: str) -> Account | None:
        return await self.db.run(lambda s: s.account(name))

    async def person(self, session: Any, name: str) -> Identity:
        """The lobby identity of a socket whose page says ``name``: its account when
        logged in (whatever name it gave), else a guest, never an account's name."""
        user = session.get("user") if isinstance(session, dict) else None
        if isinstance(user, str):
            account = await self.account(user)
            if account is not None and account.kind == "account":
                return Identity(account.name, "account", round(account.rating.rating, 1))
        return await self.guest(name)

    async def guest(self, name: str) -> Identity:
        """A guest called ``name``: never an account's name."""
        problem = name_problem(name)
        if problem is not None:
            raise JoinRefused(problem)
        if await self.account(name) is not None:
            raise JoinRefused(f"the name {name!r} belongs to an account: log in to use it")
        return Identity(name, "guest")

    async def bot_identity(self, name: str, token: str | None) -> Identity:
        """The identity a bot connecting as ``name`` plays as. A bot account needs its
        token; a name no account has plays unrated; a person's name is refused."""
        account = await self.account(name)
        if account is None:
            return Identity(name, "bot")
        if account.kind != "bot":
            raise JoinRefused(f"the name {name!r} is a person's account, not a bot's")
        if token is None:
            raise JoinRefused(f"the bot {name!r} has an account: give its token (token=...)")
        checked = await self.db.bot_for_token(name, token)
        if checked is None:
            raise JoinRefused(f"wrong or revoked token for the bot {name!r}")
        return Identity(checked.name, "bot", round(checked.rating.rating, 1))

    async def viewer(self, request: Request) -> Identity | None:
        """Who is logged in on ``request`` (None: nobody)."""
        user = request.session.get("user")
        if not isinstance(user, str):
            return None
        account = await self.account(user)
        if account is None or account.kind != "account":
            request.session.pop("user", None)
            return None
        return Identity(account.name, "account", account.rating.rating)

    # -- the web side ---------------------------------------------------------------------

    def middleware(self) -> list[Any]:
        from starlette.middleware import Middleware
        from starlette.middleware.sessions import SessionMiddleware

        return [
            Middleware(
                SessionMiddleware,
                secret_key=self.secret,
                session_cookie=COOKIE,
                max_age=SESSION_AGE,
                same_site="lax",
                https_only=self.tls,
            )
        ]

    def routes(self) -> list[BaseRoute]:
        from starlette.routing import Route

        return [
            Route("/site.css", self.css),
            Route("/register", self.register, methods=["GET", "POST"]),
            Route("/login", self.login, methods=["GET", "POST"]),
            Route("/logout", self.logout, methods=["POST"]),
            Route("/api/me", self.me),
        ]

    async def css(self, request: Request) -> Response:
        from starlette.responses import Response

        return Response(CSS, media_type="text/css", headers={"cache-control": "no-cache"})

    async def me(self, request: Request) -> Response:
        """``{"name": ..., "kind": "account", "rating": ...}`` of who is logged in, or
        ``{"name": null}``: the lobby page shows it (its hello then joins as that account)."""
        from starlette.responses import JSONResponse

        who = await self.viewer(request)
        if who is None:
            return JSONResponse({"name": None}, headers={"cache-control": "no-store"})
        shown = {**who.shown(), "rating": round(who.rating or 0.0, 1)}
        return JSONResponse(shown, headers={"cache-control": "no-store"})

    async def register(self, request: Request) -> Response:
        problem = ""
        name = ""
        if request.method == "POST":
            form = await read_form(request)
            if form is None:
                return await self.refused(request)
            name = form.get("username", "").strip()
            password, again = form.get("password", ""), form.get("password2", "")
            address = _address(request)
            wait = self.limiter.wait(address, "")
            if wait > 0:
                return await self._form(request, "register", name, _wait(wait), status=429)
            self.limiter.failed(address, "")  # every registration counts: it spends a hash
            try:
                check_username(name)
                check_password(password)
                if password != again:
                    raise StoreError("the two passwords differ")
                account = await self.db.run(lambda s: s.create_account(name, password))
            except StoreError as exc:
                problem = str(exc)
            else:
                return self._logged_in(request, account.name, form.get("next"))
        return await self._form(request, "register", name, problem)

    async def login(self, request: Request) -> Response:
        problem = ""
        name = ""
        if request.method == "POST":
            form = await read_form(request)
            if form is None:
                return await self.refused(request)
            name = form.get("username", "").strip()[:40]
            password = form.get("password", "")[:256]
            address = _address(request)
            wait = self.limiter.wait(address, name)
            if wait > 0:
                return await self._form(request, "login", name, _wait(wait), status=429)
            account = await self.db.verify_password(name, password) if name else None
            if account is not None:
                return self._logged_in(request, account.name, form.get("next"))
            self.limiter.failed(address, name)
            problem = "wrong username or password"
        return await self._form(request, "login", name, problem)

    async def logout(self, request: Request) -> Response:
        from starlette.responses import RedirectResponse

        if await read_form(request) is None:
            return await self.refused(request)
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    def _logged_in(self, request: Request, name: str, target: str | None) -> Response:
        from starlette.responses import RedirectResponse

        request.session.clear()
        request.session["user"] = name
        request.session["csrf"] = secrets.token_urlsafe(24)
        return RedirectResponse(_local(target) or f"/player/{urllib.parse.quote(name)}", 303)

    async def _form(
        self, request: Request, kind: str, name: str, problem: str, *, status: int = 200
    ) -> Response:
        from starlette.responses import HTMLResponse

        token = csrf_token(request)
        title = "Register" if kind == "register" else "Log in"
        again = (
            '<label for="password2">Password again</label>'
            '<input id="password2" name="password2" type="password" required '
            'autocomplete="new-password" minlength="8" maxlength="256">'
            if kind == "register"
            else ""
        )
        other = (
            'Have an account? <a href="/login">Log in</a>'
            if kind == "register"
            else 'No account yet? <a href="/register">Register</a>. Guests play unrated.'
        )
        rule = (
            '<p class="note">2 to 20 letters, digits and . - _; a password of 8 or more.</p>'
            if kind == "register"
            else ""
        )
        error = f'<p class="error" role="alert">{esc(problem)}</p>' if problem else ""
        target = _local(request.query_params.get("next")) or ""
        body = f"""<div class="panel narrow"><h1>{title}</h1>{error}
<form method="post" action="/{kind}">{csrf_field(token)}
<input type="hidden" name="next" value="{esc(target)}">
<label for="username">Username</label>
<input id="username" name="username" value="{esc(name)}" required maxlength="20"
 autocomplete="username" autocapitalize="none" spellcheck="false">
<label for="password">Password</label>
<input id="password" name="password" type="password" required maxlength="256"
 autocomplete="{'new-password' if kind == 'register' else 'current-password'}">
{again}{rule}<button type="submit">{title}</button></form>
<p class="note">{other}</p></div>"""
        who = await self.viewer(request)
        return HTMLResponse(
            page(title, body, who=who, csrf=token), status_code=status, headers=HEADERS
        )

    async def refused(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        token = csrf_token(request)
        body = (
            '<div class="panel narrow"><h1>Form expired</h1><p class="error">'
            "This form was not sent from this site's page (or it expired): "
            "load the page again and send it from there.</p></div>"
        )
        return HTMLResponse(
            page("Form expired", body, who=None, csrf=token), status_code=403, headers=HEADERS
        )


def csrf_token(request: Request) -> str:
    """The session's CSRF token (made on first use)."""
    token = request.session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        request.session["csrf"] = token
    return token


async def read_form(request: Request) -> dict[str, str] | None:
    """The POSTed form's fields, or None when its CSRF token is not the session's."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            return None
    text = body.decode("utf-8", "replace")
    fields = {k: v[0] for k, v in urllib.parse.parse_qs(text, keep_blank_values=True).items()}
    expected = request.session.get("csrf")
    given = fields.get("csrf", "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected, given):
        return None
    return fields


def _local(target: str | None) -> str | None:
    """``target`` if it is a path on this site (never another site's address)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    return target


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


def _wait(seconds: float) -> str:
    return f"too many failed logins: try again in {max(1, round(seconds))} s"
