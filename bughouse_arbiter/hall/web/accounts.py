"""Accounts on the web: register, log in, log out, change the password; who a lobby
socket or a bot is.

Sessions are kept in the store (``open_session``): the signed cookie
(Starlette's ``SessionMiddleware``, itsdangerous; ``SameSite=Lax``,
``Secure`` under TLS, signed with a key kept beside the database:
``key_for``) names one, so logging out, a password change or "log out
everywhere" ends it on the server. Every form carries the session's CSRF
token and a POST without it is refused (403). Login tries are counted
before they are checked, per address, per name from one address and per
name from strangers (``LoginLimiter``): past a limit the form says how
long to wait (429). Passwords are hashed in a bounded pool of their own
(``storage.hashing``): past it, 503 at once. A person logged in joins the
lobby as their account, with its rating; a guest may not take an
account's name. A bot whose name is a bot account must give its token
(``bot_identity``): a token seats its own bot only.
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
from ...storage.accounts import check_password, check_username, needs_rehash
from ...storage.aio import AsyncStore
from ...storage.hashing import HashBusy, HashPool
from ..runtime import JoinRefused
from .shell import CSS, HEADERS, csrf_field, esc, page

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

#: Tries one address may make in ``WINDOW`` seconds; tries at one name from one address;
#: tries at one name from all the addresses that never logged in as it.
PER_ADDRESS = 20
PER_NAME = 5
PER_NAME_EVERYWHERE = 100
WINDOW = 300.0
#: Addresses remembered per name as its owner's (they logged in as it).
KNOWN_ADDRESSES = 16
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
    """Login tries (and registrations) in a sliding window.

    A try is counted as it is taken (``take``), before its password is
    checked, so tries sent at once cannot all slip under the limit; a right
    one is then given back (``succeeded``). The buckets: the address; the
    name from that address; and the name from everywhere, which the owner's
    known addresses (those that logged in as it) skip, so a stranger's tries
    can lock out the stranger, never the owner.
    """

    def __init__(
        self,
        *,
        per_address: int = PER_ADDRESS,
        per_name: int = PER_NAME,
        per_name_everywhere: int = PER_NAME_EVERYWHERE,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = {"address": per_address, "pair": per_name, "name": per_name_everywhere}
        self.window = window
        self.clock = clock
        self._tries: dict[tuple[str, str], deque[float]] = {}
        self._known: dict[str, deque[str]] = {}

    def take(self, address: str, name: str) -> float:
        """Counts a try and gives 0, or the seconds to wait (the try not counted)."""
        now = self.clock()
        if len(self._tries) > 10_000:
            self.forget_old()
        keys = self._keys(address, name)
        longest = 0.0
        for key in keys:
            times = self._recent(key, now)
            if len(times) >= self.limits[key[0]]:
                longest = max(longest, times[0] + self.window - now)
        if longest == 0.0:
            for key in keys:
                self._recent(key, now).append(now)
        return longest

    def give_back(self, address: str, name: str) -> None:
        """A try taken but never checked (the server was busy) no longer counts."""
        for key in self._keys(address, name):
            times = self._tries.get(key)
            if times:
                times.pop()

    def succeeded(self, address: str, name: str) -> None:
        """The try was right: it no longer counts, and ``address`` is the owner's."""
        self.give_back(address, name)
        self.owner_at(address, name)

    def owner_at(self, address: str, name: str) -> None:
        """``address`` is one of the owner's of ``name`` (it logged in or registered there)."""
        known = self._known.setdefault(name.lower(), deque(maxlen=KNOWN_ADDRESSES))
        if address not in known:
            known.append(address)

    def _keys(self, address: str, name: str) -> list[tuple[str, str]]:
        """The buckets a try counts in: its address, and its name if it gave one."""
        if not name:
            return [("address", address)]
        name = name.lower()
        keys = [("address", address), ("pair", f"{name}\n{address}")]
        if address not in self._known.get(name, ()):
            keys.append(("name", name))
        return keys

    def _recent(self, key: tuple[str, str], now: float) -> deque[float]:
        times = self._tries.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def forget_old(self) -> None:
        """Drops the empty buckets (so strangers' names do not pile up)."""
        now = self.clock()
        for key in [k for k in self._tries if not self._recent(k, now)]:
            del self._tries[key]


class Accounts:
    """The server's accounts as the web side and the line port use them."""

    def __init__(self, db: AsyncStore, *, secret: str, tls: bool = False) -> None:
        self.db = db
        self.secret = secret
        self.tls = tls
        self.limiter = LoginLimiter()
        self.hashes = HashPool()

    # -- who is who ----------------------------------------------------------------------

    async def account(self, name: str) -> Account | None:
        return await self.db.run(lambda s: s.account(name))

    async def person(self, session: Any, name: str) -> Identity:
        """The lobby identity of a socket whose page says ``name``: its account when
        logged in (whatever name it gave), else a guest, never an account's name."""
        account = await self.session_account(session)
        if account is not None:
            return Identity(account.name, "account", round(account.rating.rating, 1))
        return await self.guest(name)

    async def session_account(self, session: Any) -> Account | None:
        """The account of a cookie's session, if the server still holds that session
        (logging out, a password change or "log out everywhere" ends it here)."""
        sid = session.get("sid") if isinstance(session, dict) else None
        if not isinstance(sid, str):
            return None
        return await self.db.run(lambda s: s.session_account(sid, SESSION_AGE))

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
        account = await self.session_account(request.session)
        if account is None:
            request.session.pop("sid", None)
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
            Route("/logout-everywhere", self.logout_everywhere, methods=["POST"]),
            Route("/password", self.password, methods=["GET", "POST"]),
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
            wait = self.limiter.take(address, "")  # every registration counts: it spends a hash
            if wait > 0:
                return await self._form(request, "register", name, _wait(wait), status=429)
            try:
                check_username(name)
                check_password(password)
                if password != again:
                    raise StoreError("the two passwords differ")
                if await self.account(name) is not None:
                    raise StoreError(f"the name {name!r} is taken")
                hashed = await self.hashes.hash(password, address)
                account = await self.db.run(lambda s: s.add_account(name, hashed))
            except HashBusy as exc:
                self.limiter.give_back(address, "")
                return await self._form(request, "register", name, str(exc), status=503)
            except StoreError as exc:
                problem = str(exc)
            else:
                self.limiter.owner_at(address, account.name)
                return await self._logged_in(request, account.name, form.get("next"))
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
            wait = self.limiter.take(address, name)  # counted before it is checked
            if wait > 0:
                return await self._form(request, "login", name, _wait(wait), status=429)
            try:
                account = await self.check_password(name, password, address)
            except HashBusy as exc:
                self.limiter.give_back(address, name)
                return await self._form(request, "login", name, str(exc), status=503)
            if account is not None:
                self.limiter.succeeded(address, name)
                return await self._logged_in(request, account.name, form.get("next"))
            problem = "wrong username or password"
        return await self._form(request, "login", name, problem)

    async def logout(self, request: Request) -> Response:
        from starlette.responses import RedirectResponse

        if await read_form(request) is None:
            return await self.refused(request)
        sid = request.session.get("sid")
        if isinstance(sid, str):
            await self.db.run(lambda s: s.end_session(sid))
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    async def logout_everywhere(self, request: Request) -> Response:
        """Ends every session of the account logged in here (this one too)."""
        from starlette.responses import RedirectResponse

        if await read_form(request) is None:
            return await self.refused(request)
        who = await self.viewer(request)
        if who is not None:
            await self.db.run(lambda s: s.end_sessions(who.name))
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    async def check_password(self, name: str, password: str, address: str) -> Account | None:
        """The account if ``password`` is its password: the record read in the store's
        thread, the hash checked in the hash pool (``HashBusy`` when it is full, or
        holds ``address``'s share)."""
        record = await self.db.run(lambda s: s.password_record(name)) if name else None
        stored = None if record is None else record[1]
        if not await self.hashes.verify(stored, password, address) or record is None:
            return None
        if needs_rehash(record[1]):
            hashed = await self.hashes.hash(password, address)
            await self.db.run(lambda s: s.set_password_hash(name, hashed))
        return record[0]

    async def password(self, request: Request) -> Response:
        """The password change page: the current password, the new one twice. A change
        ends every other session of the account."""
        from starlette.responses import RedirectResponse

        who = await self.viewer(request)
        if who is None:
            return RedirectResponse("/login?next=/password", 303)
        problem = ""
        status = 200
        if request.method == "POST":
            form = await read_form(request)
            if form is None:
                return await self.refused(request)
            address = _address(request)
            new, again = form.get("new", "")[:256], form.get("new2", "")[:256]
            try:
                check_password(new)
                if new != again:
                    raise StoreError("the two new passwords differ")
            except StoreError as exc:
                return await self._password_form(request, who, str(exc), 400)
            wait = self.limiter.take(address, who.name)  # a guess at the current one
            if wait > 0:
                return await self._password_form(request, who, _wait(wait), 429)
            try:
                current = form.get("current", "")[:256]
                right = await self.check_password(who.name, current, address) is not None
            except HashBusy as exc:
                self.limiter.give_back(address, who.name)
                return await self._password_form(request, who, str(exc), 503)
            if not right:
                return await self._password_form(
                    request, who, "the current password is wrong", 400
                )
            self.limiter.succeeded(address, who.name)
            try:
                hashed = await self.hashes.hash(new, address)
            except HashBusy as exc:
                return await self._password_form(request, who, str(exc), 503)
            sid = request.session.get("sid")
            keep = sid if isinstance(sid, str) else None
            await self.db.run(lambda s: s.set_password_hash(who.name, hashed, keep=keep))
            problem = "password changed: every other session is logged out"
        return await self._password_form(request, who, problem, status)

    async def _password_form(
        self, request: Request, who: Identity, problem: str, status: int
    ) -> Response:
        from starlette.responses import HTMLResponse

        token = csrf_token(request)
        kind = "note" if status == 200 else "error"
        shown = f'<p class="{kind}" role="alert">{esc(problem)}</p>' if problem else ""
        body = f"""<div class="panel narrow"><h1>Password</h1>{shown}
<form method="post" action="/password">{csrf_field(token)}
<input type="hidden" name="username" value="{esc(who.name)}" autocomplete="username">
<label for="current">Current password</label>
<input id="current" name="current" type="password" required maxlength="256"
 autocomplete="current-password">
<label for="new">New password</label>
<input id="new" name="new" type="password" required minlength="8" maxlength="256"
 autocomplete="new-password">
<label for="new2">New password again</label>
<input id="new2" name="new2" type="password" required minlength="8" maxlength="256"
 autocomplete="new-password">
<button type="submit">Change the password</button></form>
<form method="post" action="/logout-everywhere">{csrf_field(token)}
<p class="note">Logged in somewhere you should not be? This ends every session of
{esc(who.name)}, this one too.</p>
<button type="submit">Log out everywhere</button></form></div>"""
        return HTMLResponse(
            page("Password", body, who=who, csrf=token), status_code=status, headers=HEADERS
        )

    async def _logged_in(self, request: Request, name: str, target: str | None) -> Response:
        from starlette.responses import RedirectResponse

        sid = await self.db.run(lambda s: s.open_session(name))
        request.session.clear()
        request.session["sid"] = sid
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
 autocomplete="{"new-password" if kind == "register" else "current-password"}">
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
    return f"too many login tries: try again in {max(1, round(seconds))} s"
