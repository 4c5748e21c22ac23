"""Ratings and the archive on the web: the leaderboard, a player's page, the games.

- ``/leaderboard?kind=all|people|bots&provisional=1``: rated players, highest
  first; provisional ratings (a deviation still wide) only when asked for.
- ``/player/NAME``: the rating, its history as an inline SVG plot, the
  newest games.
- ``/games?player=&since=YYYY-MM-DD&until=&result=&page=N``: the archive,
  newest first, searchable and paged; ``/games.bpgn?...`` the same query's
  games as one BPGN file (oldest first, ``MAX_DOWNLOAD`` at most).
- ``/game/ID``: the game as the replay page ``bughouse replay --html``
  draws; ``/game/ID.bpgn`` its BPGN.

A replay page is drawn in the site's page pool (processes: drawing holds the
GIL), never on the loop, and kept (``PAGE_CACHE`` characters of pages): a
finished game's page never changes. A full pool is answered 503 with one line.
"""

from __future__ import annotations

import contextlib
import datetime
import itertools
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING

import trio

from ...core.model import Team
from ...errors import ArbiterError
from ...loop.cache import SizedCache
from ...loop.workers import Refused, WorkerPool
from ...net.gate import csp_allowing
from ...ratings import DEFAULT_RATING
from ...storage import ArchivedGame, GameQuery, Store
from ...storage.aio import AsyncStore
from ...storage.records import RESULTS
from .accounts import Accounts, csrf_token
from .plot import rating_plot
from .shell import HEADERS, esc, page, rows

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

#: Games a list page shows, and the most one BPGN download holds.
PAGE_SIZE = 25
MAX_DOWNLOAD = 5000
KINDS = {"all": None, "people": "account", "bots": "bot"}
#: Characters of replay pages kept.
PAGE_CACHE = 64 * 1024 * 1024


class ArchiveSite:
    """The pages of the module docstring, over the server's database."""

    def __init__(
        self, db: AsyncStore, accounts: Accounts, *, pages: WorkerPool | None = None
    ) -> None:
        self.db = db
        self.accounts = accounts
        self.pages = pages or WorkerPool("replay page", workers=2, queue=8, kind="process")
        self.drawn: SizedCache[int] = SizedCache(PAGE_CACHE)
        self._drawing: dict[int, trio.Event] = {}

    async def replay(self, game_id: int) -> str | None:
        """The replay page of game ``game_id`` (None: no such game), drawn off the loop
        once and kept; raises ``Refused``, or ``ValueError`` saying why it cannot be
        replayed."""
        while (busy := self._drawing.get(game_id)) is not None:
            await busy.wait()  # drawn once, whoever asks meanwhile
        kept = self.drawn.get(game_id)
        if kept is not None:
            return kept
        self._drawing[game_id] = done = trio.Event()
        try:
            text = await self.db.run(lambda s: s.game_bpgn(game_id))
            if text is None:
                return None
            drawn, problem = await self.pages.run(_draw, text, game_id)
            if problem:
                raise ValueError(problem)
            self.drawn.put(game_id, drawn)
            return drawn
        finally:
            del self._drawing[game_id]
            done.set()

    def routes(self) -> list[BaseRoute]:
        from starlette.routing import Route

        return [
            Route("/leaderboard", self.leaderboard),
            Route("/player/{name}", self.player),
            Route("/games", self.games),
            Route("/games.bpgn", self.games_bpgn),
            Route("/game/{id:int}", self.game),
            Route("/game/{id:int}.bpgn", self.game_bpgn),
        ]

    async def _page(self, request: Request, title: str, body: str, status: int = 200) -> Response:
        from starlette.responses import HTMLResponse

        who = await self.accounts.viewer(request)
        shown = page(title, body, who=who, csrf=csrf_token(request))
        return HTMLResponse(shown, status_code=status, headers=HEADERS)

    async def leaderboard(self, request: Request) -> Response:
        kind = request.query_params.get("kind", "all")
        if kind not in KINDS:
            kind = "all"
        provisional = request.query_params.get("provisional") == "1"
        board = await self.db.run(
            lambda s: s.leaderboard(limit=500, provisional=provisional)
        )
        wanted = KINDS[kind]
        board = [a for a in board if wanted is None or a.kind == wanted][:100]
        tabs = "".join(
            f'<a class="{"on" if k == kind else ""}" href="/leaderboard?kind={k}'
            f'{"&amp;provisional=1" if provisional else ""}">{label}</a>'
            for k, label in (("all", "Everyone"), ("people", "People"), ("bots", "Bots"))
        )
        toggle = (
            f'<a href="/leaderboard?kind={kind}">Hide provisional ratings</a>'
            if provisional
            else f'<a href="/leaderboard?kind={kind}&amp;provisional=1">'
            "Show provisional ratings too</a>"
        )
        table = rows(
            (
                f'<td class="num">{i}</td>',
                f"<td>{_player_link(a.name)}{_kind(a.kind)}</td>",
                f'<td class="num">{_rating(a.rating.rating, a.rating.rd)}</td>',
                f'<td class="num wide">±{a.rating.rd:.0f}</td>',
                f'<td class="num">{a.rating.games}</td>',
            )
            for i, a in enumerate(board, start=1)
        )
        empty = "" if board else '<p class="note">Nobody has a rating here yet.</p>'
        body = f"""<h1>Leaderboard</h1><div class="tabs">{tabs}</div>
<div class="panel table-wrap"><table class="list"><thead><tr><th class="num">#</th><th>Player</th>
<th class="num">Rating</th><th class="num wide">Deviation</th><th class="num">Games</th></tr>
</thead>
<tbody>{table}</tbody></table>{empty}</div><p class="note">{toggle}. A rating is provisional
while its deviation is wide (few games, or none for a long time).</p>"""
        return await self._page(request, "Leaderboard", body)

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        account = await self.db.run(lambda s: s.account(name))
        recent = await self.db.run(lambda s: s.games(GameQuery(player=name, limit=20)))
        if account is None and not recent:
            body = f'<h1>{esc(name)}</h1><p class="error">No player of that name here.</p>'
            return await self._page(request, name, body, status=404)
        head = f"<h1>{esc(name)}{_kind(account.kind if account else 'guest')}</h1>"
        if account is not None:
            history = await self.db.run(lambda s: s.rating_history(account.name))
            r = account.rating
            since = datetime.datetime.fromtimestamp(account.created, datetime.UTC)
            stats = f"""<div class="panel stats">
<div><div class="note">Rating</div>
<div class="big" id="rating">{_rating(r.rating, r.rd)}</div></div>
<div><div class="note">Deviation</div><div class="big">±{r.rd:.0f}</div></div>
<div><div class="note">Rated games</div><div class="big" id="rated-games">{r.games}</div></div>
<div><div class="note">Member since</div><div class="big">{since:%Y-%m-%d}</div></div>
</div><h2>Rating history</h2>
<div class="panel">{rating_plot(history, start=DEFAULT_RATING)}</div>"""
            if account.revoked:
                stats = '<p class="note">This bot\'s token was revoked.</p>' + stats
        else:
            stats = '<p class="note">A guest: games only, no rating.</p>'
        games = _games_table(recent, focus=name)
        more = (
            f'<p><a href="/games?player={urllib.parse.quote(name)}">'
            f"All games of {esc(name)}</a></p>"
        )
        body = f"{head}{stats}<h2>Recent games</h2>{games}{more}"
        return await self._page(request, name, body)

    async def games(self, request: Request) -> Response:
        query, problem, shown = _query(request.query_params)
        page_no = _int(request.query_params.get("page"), 1)
        found = await self.db.run(
            lambda s: s.games(
                GameQuery(
                    player=query.player,
                    since=query.since,
                    until=query.until,
                    result=query.result,
                    offset=(page_no - 1) * PAGE_SIZE,
                    limit=PAGE_SIZE + 1,
                )
            )
        )
        more = len(found) > PAGE_SIZE
        found = found[:PAGE_SIZE]
        search = urllib.parse.urlencode({k: v for k, v in shown.items() if v})
        results = "".join(
            f'<option value="{esc(r)}"{" selected" if shown["result"] == r else ""}>'
            f"{esc(r) or 'any'}</option>"
            for r in ("", *RESULTS)
        )
        form = f"""<form class="search panel" method="get" action="/games">
<div><label for="player">Player</label>
<input id="player" name="player" value="{esc(shown['player'])}"
 maxlength="40" autocapitalize="none"></div>
<div><label for="since">From (UTC)</label>
<input id="since" name="since" type="date" value="{esc(shown['since'])}"></div>
<div><label for="until">To (UTC)</label>
<input id="until" name="until" type="date" value="{esc(shown['until'])}"></div>
<div><label for="result">Result</label><select id="result" name="result">{results}</select></div>
<button type="submit">Search</button></form>"""
        error = f'<p class="error">{esc(problem)}</p>' if problem else ""
        link = f"/games?{search}&amp;page=" if search else "/games?page="
        pager = '<div class="pager"><span>' + (
            f'<a href="{link}{page_no - 1}">← Newer</a>' if page_no > 1 else ""
        ) + "</span><span>" + (f'<a href="{link}{page_no + 1}">Older →</a>' if more else "") + (
            "</span></div>"
        )
        download = (
            f'<a class="button" href="/games.bpgn?{esc(search)}">Download these games (BPGN)</a>'
        )
        body = (
            f"<h1>Archive</h1>{form}{error}{_games_table(found, focus=query.player)}"
            f"{pager}<p>{download}</p>"
        )
        return await self._page(request, "Archive", body)

    async def games_bpgn(self, request: Request) -> Response:
        from starlette.responses import PlainTextResponse, Response

        query, problem, _ = _query(request.query_params)
        if problem:
            return PlainTextResponse(problem + "\n", status_code=400)
        texts = await self.db.run(lambda s: _bpgn_texts(s, query))
        return Response(
            "".join(_ended(t) for t in texts),
            media_type="application/x-bughouse-pgn",
            headers={"content-disposition": 'attachment; filename="games.bpgn"'},
        )

    async def game(self, request: Request) -> Response:
        from starlette.responses import HTMLResponse

        game_id = int(request.path_params["id"])
        try:
            html = await self.replay(game_id)
        except Refused as exc:
            body = f'<h1>Game {game_id}</h1><p class="error">{esc(exc)}</p>'
            return await self._page(request, f"Game {game_id}", body, status=503)
        except ValueError as exc:
            body = (
                f"<h1>Game {game_id}</h1><p class=\"error\">This game cannot be replayed: "
                f'{esc(exc)}</p><p><a href="/game/{game_id}.bpgn">Its BPGN</a></p>'
            )
            return await self._page(request, f"Game {game_id}", body)
        if html is None:
            body = (
                '<h1>No such game</h1><p class="error">The archive has no game of that number.</p>'
            )
            return await self._page(request, "No such game", body, status=404)
        from ...web.replay_page import page_script

        headers = {**HEADERS, "content-security-policy": csp_allowing(page_script())}
        return HTMLResponse(html, headers=headers)

    async def game_bpgn(self, request: Request) -> Response:
        from starlette.responses import PlainTextResponse, Response

        game_id = int(request.path_params["id"])
        text = await self.db.run(lambda s: s.game_bpgn(game_id))
        if text is None:
            return PlainTextResponse("no such game\n", status_code=404)
        return Response(
            _ended(text),
            media_type="application/x-bughouse-pgn",
            headers={"content-disposition": f'attachment; filename="game-{game_id}.bpgn"'},
        )


def replay_html(text: str, *, title: str) -> str:
    """The replay page of the one game in ``text`` (as ``bughouse replay --html``)."""
    from ...bpgn.read import read_games
    from ...bpgn.replay import GameReplay
    from ...web.replay_page import MAX_PLIES, replay_page

    games = read_games(text)
    if not games:
        raise ValueError("no game in its record")
    source = games[0]
    replay = GameReplay(source, frames=True, frame_limit=MAX_PLIES)
    replay.feed(source)
    return replay_page(replay.report(), title=title)


def _draw(text: str, game_id: int) -> tuple[str, str]:
    """Game ``game_id``'s page with the archive's bar, or "" and why it cannot be drawn
    (in a page worker: the answer pickles whatever went wrong)."""
    try:
        html = replay_html(text, title=f"Game {game_id}")
    except (ArbiterError, ValueError) as exc:
        return "", str(exc) or type(exc).__name__
    bar = (
        '<nav style="font:14px system-ui,sans-serif;padding:6px 10px;background:#17191c">'
        '<a style="color:#f2c14e;margin-right:16px" href="/games">← Archive</a>'
        f'<a style="color:#f2c14e" href="/game/{game_id}.bpgn">Download BPGN</a></nav>'
    )
    return html.replace("<body>", "<body>" + bar, 1), ""


def _bpgn_texts(store: Store, query: GameQuery) -> list[str]:
    with contextlib.closing(store.iter_bpgn(query)) as texts:
        return list(itertools.islice(texts, MAX_DOWNLOAD))


def _ended(text: str) -> str:
    return text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n"


def _query(params: Mapping[str, str]) -> tuple[GameQuery, str, dict[str, str]]:
    """The search a query string asks for, what is wrong with it, and its fields as given."""
    shown = {k: params.get(k, "").strip()[:40] for k in ("player", "since", "until", "result")}
    problems = []
    since = until = None
    try:
        since = _day(shown["since"])
        until = _day(shown["until"])
        if until is not None:
            until += 86400  # the whole day
    except ValueError:
        problems.append("a date is YYYY-MM-DD")
    result = shown["result"] or None
    if result is not None and result not in RESULTS:
        problems.append(f"a result is one of {', '.join(RESULTS)}")
        result = None
    query = GameQuery(player=shown["player"] or None, since=since, until=until, result=result)
    return query, "; ".join(problems), shown


def _day(text: str) -> float | None:
    if not text:
        return None
    day = datetime.date.fromisoformat(text)
    return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC).timestamp()


def _int(text: str | None, default: int) -> int:
    try:
        return max(1, min(10_000, int(text or default)))
    except ValueError:
        return default


def _games_table(games: list[ArchivedGame], *, focus: str | None) -> str:
    if not games:
        return '<div class="panel"><p class="note">No games found.</p></div>'
    body = rows(
        (
            f'<td><a href="/game/{g.id}">#{g.id}</a></td>',
            f'<td class="wide">{_when(g.ended or g.started)}</td>',
            f"<td>{_team(g, Team.ONE, focus)}</td>",
            f'<td class="num"><b>{esc(g.result)}</b></td>',
            f"<td>{_team(g, Team.TWO, focus)}</td>",
            f'<td class="wide">{esc(g.time_control)}{" rated" if g.rated else ""}</td>',
            f'<td class="wide note">{esc(g.reason or g.status)}</td>',
        )
        for g in games
    )
    return f"""<div class="panel table-wrap"><table class="list games"><thead><tr><th>Game</th>
<th class="wide">Ended (UTC)</th><th>Team 1</th><th class="num">Result</th><th>Team 2</th>
<th class="wide">Time</th><th class="wide">How</th></tr></thead><tbody>{body}</tbody></table>
</div>"""


def _team(game: ArchivedGame, team: Team, focus: str | None) -> str:
    names = []
    for seat in team.seats:
        who = game.players.get(seat)
        if who is None:
            continue
        shown = _player_link(who.name) if who.kind in ("account", "bot", "guest") else esc(who.name)
        if focus is not None and who.name.lower() == focus.lower():
            shown = f"<b>{shown}</b>"
        if who.rating_before is not None and who.rating_after is not None:
            delta = who.rating_after - who.rating_before
            shown += f' <span class="{"up" if delta >= 0 else "down"}">{delta:+.0f}</span>'
        names.append(shown)
    return " &amp; ".join(names)


def _player_link(name: str) -> str:
    return f'<a href="/player/{urllib.parse.quote(name)}">{esc(name)}</a>'


def _kind(kind: str) -> str:
    label = {"bot": "bot", "guest": "guest", "computer": "computer"}.get(kind)
    return f' <span class="kind">{label}</span>' if label else ""


def _rating(value: float, rd: float) -> str:
    from ...ratings import PROVISIONAL_RD

    return f'{value:.0f}<span class="prov">?</span>' if rd > PROVISIONAL_RD else f"{value:.0f}"


def _when(seconds: float) -> str:
    return f"{datetime.datetime.fromtimestamp(seconds, datetime.UTC):%Y-%m-%d %H:%M}"
