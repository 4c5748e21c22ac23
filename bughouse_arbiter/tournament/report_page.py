"""A tournament's ``report.html``: one self-contained page of its figures (pure).

``tournament_page(view)`` turns the summary (``Tournament.summary()``) and
the live tally (``tournament/live.py``) into HTML text: the state of the
run, standings, crosstable, each pairing's W/L/D and pentanomial counts,
Elo ± over the games played (a line in its 95% band), the SPRT's LLR between
its bounds, time losses and the harness's delay per participant, and the
last games, each linked to its replay page when there is one and always
with the ``bughouse replay`` command that makes it. Inline CSS and SVG drawn
here; no script, no network. Every text from the run is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .display import nelo_text, percent, plural, signed
from .failures import COLUMNS
from .live import LiveTally, Point, RecentGame
from .stats import Pentanomial, Summary

#: Pairings drawn as Elo plots (a large round robin lists the rest in its table only).
MAX_PLOTS = 12
#: Elo shown on a plot at most (an early interval is unbounded).
ELO_CLAMP = 1000.0
PLOT_W, PLOT_H = 640, 300
_PAD_L, _PAD_R, _PAD_T, _PAD_B = 64, 14, 16, 36


@attrs.frozen(kw_only=True)
class PageView:
    """What the page shows: the summary, the tally, and the run's state."""

    summary: Mapping[str, Any]
    tally: LiveTally
    #: ``running``, ``finished``, ``stopped`` (SPRT decided), ``incomplete``
    #: (finished without playing what was asked) or ``interrupted``.
    state: str
    updated: str
    eta: str = ""
    #: Game number -> the replay page's address, relative to the report.
    replays: Mapping[int, str] = attrs.field(factory=dict)
    games_file: str = "games.bpgn"
    #: The test's settings as the run recorded them (``tournament/conditions.py``).
    settings: Mapping[str, Any] = attrs.field(factory=dict)
    #: A resumed session's own (``conditions.session``), if this one is.
    session: Mapping[str, Any] | None = None


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def tournament_page(view: PageView) -> str:
    s = view.summary
    title = f"{s.get('event', 'tournament')}: report"
    body = [
        _header(view),
        _shortfall(s),
        _lead(view),
        _section("Standings", _standings(s)),
        _crosstable(s),
        _section("Pairings", _pairings(s)),
        _charts(view),
        _section("Engines: incidents and harness delay", _engines(s, view.tally)),
        _section("Latest games", _games(view)),
        _problems(s),
    ]
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(b for b in body if b)}</main></body></html>\n"
    )


# -- parts ------------------------------------------------------------------------------


def _section(title: str, inner: str, id_: str = "") -> str:
    if not inner:
        return ""
    ident = f' id="{e(id_)}"' if id_ else ""
    return f'<section class="card"{ident}><h2>{e(title)}</h2>{inner}</section>'


def _header(view: PageView) -> str:
    s = view.summary
    played, scheduled = s.get("games_played", 0), s.get("games_scheduled", 0)
    states = {
        "running": "running",
        "finished": "finished",
        "stopped": "stopped: SPRT decided",
        "interrupted": "interrupted",
    }
    facts = [
        f"{played} of {plural(int(scheduled), 'game')}",
        f"{s.get('format', '')}",
        f"time control {s.get('time_control', '')}",
        f"updated {view.updated}",
    ]
    if view.eta and view.state == "running":
        facts.append(view.eta)
    share = played / scheduled if scheduled else 0.0
    return (
        f'<header><div class="title"><h1>{e(s.get("event", "tournament"))}</h1>'
        f'<span class="pill {e(view.state)}">{e(states.get(view.state, view.state))}</span>'
        f'</div><p class="facts">{" · ".join(e(f) for f in facts if f)}</p>'
        f'<div class="bar" role="progressbar" aria-valuenow="{played}" aria-valuemax="{scheduled}">'
        f'<span style="width:{100 * min(1.0, share):.2f}%"></span></div></header>'
    )


def _lead(view: PageView) -> str:
    """The test's settings beside the big figures, at the top of the page."""
    test, cards = _test(view), _cards(view)
    if not test:
        return cards
    return f'<div class="lead{" alone" if not cards else ""}">{test}{cards}</div>'


def _test(view: PageView) -> str:
    """The settings (``conditions.settings``) as a list of facts and a table of engines."""
    s = view.settings
    if not s:
        return ""
    facts = [
        ("time control", _time_text(s)),
        ("SPRT", _sprt_text(s.get("sprt"))),
        ("book", _book_text(s.get("book"))),
        ("colours", _COLOURS.get(str(s.get("colours")), str(s.get("colours") or ""))),
        ("concurrency", _concurrency_text(s)),
        ("tables", _tables_text(s.get("tables"))),
        ("seed", "none" if s.get("seed") is None else str(s.get("seed"))),
        ("games", _games_text(s.get("games"))),
        ("harness", _harness_text(s)),
        ("machine", _machine_text(s.get("machine"))),
        ("started", str(s.get("started", ""))),
    ]
    if view.session:
        facts.append(("this session", _session_text(view.session)))
    items = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts if v)
    return (
        f'<section class="card test"><h2>Test</h2><dl class="settings">{items}</dl>'
        f"{_engine_table(s.get('engines', []))}</section>"
    )


#: The colour rotations (``settings["colours"]``), as the page says them.
_COLOURS = {
    "swapped": "each opening twice, the teams swapped",
    "noswap": "--noswap: the first participant on team 1's seats in both games",
    "reverse": "--reverse: each pair begun with the first participant on team 2's seats",
}


def _time_text(s: Mapping[str, Any]) -> str:
    rules = [str(rule) for rule in s.get("rules") or []]
    margin = s.get("time_margin_ms")
    if isinstance(margin, int | float) and margin:
        rules.insert(0, f"time margin {margin:g} ms")
    text = str(s.get("time_control", ""))
    return f"{text} · {', '.join(rules)}" if rules else text


def _sprt_text(sprt: object) -> str:
    if not isinstance(sprt, Mapping):
        return "none: a fixed number of games"
    return (
        f"[{float(sprt['elo0']):g}, {float(sprt['elo1']):g}] {sprt['model']} · "
        f"α {float(sprt['alpha']):g} β {float(sprt['beta']):g} · "
        f"LLR bounds {float(sprt['lower']):.2f} … {float(sprt['upper']):.2f}"
    )


def _book_text(book: object) -> str:
    if not isinstance(book, Mapping):
        return ""
    name = book.get("file") or "openings.bpgn (the default book)"
    parts = [str(name)]
    if book.get("format") not in (None, "auto"):
        parts.append(str(book["format"]))
    if book.get("plies") is not None:
        parts.append(f"{book['plies']} plies")
    start = book.get("start", 1)
    order = {"sequential": "in its order", "random": "shuffled by the seed"}
    said = order.get(str(book.get("order")), str(book.get("order")))
    parts.append(said + (f", from opening {start}" if start != 1 else ""))
    if isinstance(book.get("openings"), int):
        parts.append(plural(book["openings"], "opening"))
    if book.get("crc32"):
        parts.append(f"CRC32 {book['crc32']}")
    return " · ".join(parts)


def _tables_text(tables: object) -> str:
    """The local tables (``conditions.local_tables``): cores, pause, timeouts."""
    if not isinstance(tables, Mapping):
        return ""
    pinned = tables.get("affinity")
    if isinstance(pinned, list) and pinned:
        cores = ", ".join(" ".join(map(str, cpus)) for cpus in pinned)
        parts = [f"pinned to cores (--use-affinity): {cores}"]
    else:
        parts = ["not pinned to cores"]
    if tables.get("forced"):
        parts.append("engines share cores (--force-concurrency)")
    wait = tables.get("wait_ms")
    if isinstance(wait, int | float) and wait:
        parts.append(f"wait {wait:g} ms between games")
    for key, said in (("start_timeout_ms", "start timeout"), ("ping_timeout_ms", "ping timeout")):
        value = tables.get(key)
        if isinstance(value, int | float):  # None: the default
            parts.append(f"{said} {value:g} ms")
    return " · ".join(parts)


def _games_text(games: object) -> str:
    """The games' own tags (``--tag``) and files beside ``games.bpgn``."""
    if not isinstance(games, Mapping):
        return ""
    parts = [f"tag {tag}" for tag in games.get("tags") or []]
    if games.get("game_files"):
        parts.append("a file each in games/")
    if games.get("final_positions"):
        parts.append("final positions in final.epd")
    return " · ".join(parts)


def _concurrency_text(s: Mapping[str, Any]) -> str:
    count = s.get("concurrency")
    where = str(s.get("where", ""))
    text = f"{count if count is not None else 'as the cluster holds'} · {where}"
    return text.removesuffix(" · ")


def _harness_text(s: Mapping[str, Any]) -> str:
    host = s.get("machine")
    python = host.get("python") if isinstance(host, Mapping) else None
    return f"{s.get('harness', '')}" + (f" · Python {python}" if python else "")


def _machine_text(host: object) -> str:
    if not isinstance(host, Mapping):
        return ""
    cores, usable = host.get("cores"), host.get("usable_cores")
    parts = [plural(int(cores), "core") if isinstance(cores, int) else ""]
    if isinstance(usable, int) and usable != cores:
        parts[0] += f" ({usable} usable)"
    load = host.get("load")
    if isinstance(load, list) and load:
        parts.append("load " + " ".join(f"{float(x):.2f}" for x in load) + " at the start")
    parts += [str(host.get("cpu") or ""), str(host.get("system") or "")]
    return " · ".join(p for p in parts if p)


def _session_text(session: Mapping[str, Any]) -> str:
    """A resumed session: when, its concurrency and the load then."""
    host = session.get("machine")
    load = host.get("load") if isinstance(host, Mapping) else None
    parts = [f"resumed {session.get('started', '')}"]
    if session.get("concurrency") is not None:
        parts.append(f"concurrency {session['concurrency']}")
    if isinstance(session.get("tables"), Mapping):
        parts.append(_tables_text(session["tables"]))
    if isinstance(load, list) and load:
        parts.append("load " + " ".join(f"{float(x):.2f}" for x in load))
    return " · ".join(parts)


def _engine_table(engines: object) -> str:
    """Per engine of each participant (an X+X team's two alike once): who, its
    protocol, options and limits on one line, its command below."""
    items = []
    for entry in engines if isinstance(engines, list) else []:
        members = list(entry.get("members", []))
        if len(members) == 2 and members[0] == members[1]:
            members = members[:1]
        for index, m in enumerate(members):
            who = str(entry.get("participant", "")) if index == 0 else ""
            if len(members) > 1:
                who = f"{who} ({m.get('name', '')})".lstrip()
            elif entry.get("team_mode"):
                who += " (both seats)"
            settings = [f"{k}={v}" for k, v in dict(m.get("options", {})).items()]
            settings += [f"{k} {v}" for k, v in dict(m.get("limits", {})).items()]
            settings += [f"init: {line}" for line in m.get("init", [])]
            command = str(m.get("command", ""))
            if m.get("folder"):
                command = f"cd {m['folder']} && {command}"
            said = " · ".join(e(x) for x in [m.get("protocol", ""), "; ".join(settings)] if x)
            items.append(
                f'<li><span class="name">{e(who)}</span> <span class="muted">{said}</span>'
                f'<code class="cmd">{e(command)}</code></li>'
            )
    return f'<ul class="engines">{"".join(items)}</ul>' if items else ""


def _shortfall(s: Mapping[str, Any]) -> str:
    """The banner of a run that does not play what was asked (``Tournament.shortfall``)."""
    text = s.get("shortfall")
    if not text:
        return ""
    return (
        '<p class="banner" role="alert"><strong>Not what was asked:</strong> '
        f"{e(text)}. The figures below are of the games played.</p>"
    )


def _cards(view: PageView) -> str:
    """Big figures of the first pairing (the SPRT's, or the gauntlet's first)."""
    tally = view.tally.pairings.get(0)
    if tally is None or not tally.games:
        return ""
    summary = tally.summary()
    cards = [
        ("Elo", _elo_short(summary), f"{_interval(summary)} · {tally.first} vs {tally.second}"),
        ("nElo", nelo_text(summary).removeprefix("nElo "), "normalized"),
        ("LOS", percent(summary.los), f"+{summary.wins} −{summary.losses} ={summary.draws}"),
    ]
    sprt = view.summary.get("sprt")
    if isinstance(sprt, Mapping):
        decision = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(str(sprt.get("decision")))
        cards.append(
            (
                "LLR",
                f"{float(sprt['llr']):.2f}",
                decision or f"bounds {float(sprt['lower']):.2f} … {float(sprt['upper']):.2f}",
            )
        )
    inner = "".join(
        f'<div class="kpi"><div class="label">{e(label)}</div>'
        f'<div class="value">{e(value)}</div><div class="sub">{e(sub)}</div></div>'
        for label, value, sub in cards
    )
    return f'<section class="kpis">{inner}</section>'


def _interval(summary: Summary) -> str:
    """``95% [-10.2, +80.3]``, or ``95% n/a`` while the results bound nothing."""
    if not summary.interval_known:
        return "95% n/a"
    low, high = summary.elo_interval()
    return f"95% [{signed(low)}, {signed(high)}]"


def _elo_short(summary: Summary) -> str:
    if math.isinf(summary.elo):
        return signed(summary.elo)
    if not summary.interval_known:
        return f"{signed(summary.elo)} ± n/a"
    margin = summary.elo_margin()
    return f"{signed(summary.elo)} ± {margin:.0f}" if math.isfinite(margin) else (
        f"{signed(summary.elo)} ± inf"
    )


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """``rows`` hold HTML already escaped; ``head`` plain words."""
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<div class="scroll"><table{klass}><thead><tr>{th}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _num(value: object, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, int | float):
        return signed(float(value), digits)
    return e(value)


def _standings(s: Mapping[str, Any]) -> str:
    rows = []
    for rank, r in enumerate(s.get("standings", []), 1):
        record = Summary(wins=r["wins"], losses=r["losses"], draws=r["draws"])
        margin = r.get("elo_margin")
        rows.append(
            [
                str(rank),
                f'<span class="name">{e(r["name"])}</span>',
                str(r["games"]),
                f'<span class="w">{r["wins"]}</span>',
                f'<span class="l">{r["losses"]}</span>',
                str(r["draws"]),
                f"{r['points']:g}",
                percent(record.score),
                _num(r.get("elo")),
                "inf" if margin is None and r.get("elo") is not None else _plain(margin),
                percent(record.los),
            ]
        )
    head = ["#", "participant", "games", "W", "L", "D", "points", "score", "Elo", "±", "LOS"]
    return _table(head, rows, "standings num")


def _plain(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.1f}"
    return e(value)


def _crosstable(s: Mapping[str, Any]) -> str:
    names = [r["name"] for r in s.get("standings", [])]
    cross = s.get("crosstable", {})
    if len(names) <= 2:
        return ""
    rows = []
    for a in names:
        cells = [f'<span class="name">{e(a)}</span>']
        for b in names:
            cell = cross.get(a, {}).get(b)
            if a == b:
                cells.append('<span class="self">—</span>')
            elif cell is None or not cell["games"]:
                cells.append("")
            else:
                share = cell["points"] / cell["games"]
                cells.append(
                    f'<span class="cell" style="--s:{share:.3f}">'
                    f"{cell['points']:g}/{cell['games']}</span>"
                )
        rows.append(cells)
    return _section("Crosstable", _table(["", *names], rows, "cross num"))


def _pairings(s: Mapping[str, Any]) -> str:
    rows = []
    for p in s.get("pairings", []):
        counts = tuple(p["pentanomial"].values())
        summary = Summary(
            wins=p["wins"], losses=p["losses"], draws=p["draws"], penta=Pentanomial(counts)
        )
        if math.isinf(summary.elo) or not summary.interval_known:
            interval = "n/a"
        else:
            low, high = summary.elo_interval()
            interval = f"[{signed(low, 1)}, {signed(high, 1)}]"
        rows.append(
            [
                f'<span class="name">{e(p["first"])}</span> vs '
                f'<span class="name">{e(p["second"])}</span>',
                str(summary.games),
                f'<span class="w">+{summary.wins}</span> <span class="l">−{summary.losses}</span> '
                f"={summary.draws}",
                percent(summary.score),
                f"{signed(summary.elo, 1)} {interval}",
                e(nelo_text(summary, 1).removeprefix("nElo ")),
                percent(summary.los),
                _penta(counts),
            ]
        )
    head = ["pairing", "games", "W L D", "score", "Elo [95%]", "nElo", "LOS"]
    head.append("pairs LL·LD·DD+WL·WD·WW")
    return _table(head, rows, "pairings num")


def _penta(counts: Sequence[int]) -> str:
    """The five counts, with a stacked bar of their shares."""
    total = sum(counts) or 1
    bar = "".join(
        f'<span class="p{i}" style="width:{100 * c / total:.2f}%"></span>'
        for i, c in enumerate(counts)
    )
    numbers = " · ".join(str(c) for c in counts)
    return f'<div class="penta"><div class="pbar">{bar}</div><span>{numbers}</span></div>'


def _charts(view: PageView) -> str:
    """The Elo and SPRT plots, side by side where there is room."""
    parts = [_elo_plots(view.tally), _sprt(view)]
    inner = "".join(p for p in parts if p)
    return f'<div class="charts">{inner}</div>' if inner else ""


def _elo_plots(tally: LiveTally) -> str:
    plots = []
    for _, pairing in list(tally.in_order())[:MAX_PLOTS]:
        points = pairing.elo.points()
        if not points:
            continue
        plots.append(
            f'<figure class="plot"><figcaption>{e(pairing.first)} vs {e(pairing.second)}: '
            f"Elo after each game, with its 95% interval</figcaption>"
            f"{elo_svg(points)}</figure>"
        )
    more = len(tally.pairings) - MAX_PLOTS
    note = f'<p class="note">{more} more pairings are in the table above.</p>' if more > 0 else ""
    inner = f'<div class="plots">{"".join(plots)}</div>{note}'
    return _section("Elo over the games played", inner) if plots else ""


def _sprt(view: PageView) -> str:
    sprt = view.summary.get("sprt")
    tally = view.tally.pairings.get(0)
    if not isinstance(sprt, Mapping) or tally is None or tally.llr is None:
        return ""
    points = tally.llr_points(view.tally.sprt) if view.tally.sprt is not None else []
    lower, upper = float(sprt["lower"]), float(sprt["upper"])
    decision = {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)"}.get(
        str(sprt.get("decision")), "undecided"
    )
    caption = (
        f"SPRT [{float(sprt['elo0']):g}, {float(sprt['elo1']):g}] ({e(sprt['model'])}): "
        f"LLR {float(sprt['llr']):.2f} after {plural(int(sprt['pairs']), 'pair')}, "
        f"bounds {lower:.2f} and {upper:.2f}: {decision}"
    )
    svg = llr_svg(points, lower, upper)
    figure = f'<figure class="plot"><figcaption>{caption}</figcaption>{svg}</figure>'
    return _section("SPRT", figure)


def _engines(s: Mapping[str, Any], tally: LiveTally) -> str:
    names = [r["name"] for r in s.get("standings", [])]
    rows = []
    for name in names:
        t = tally.engines.get(name)
        rows.append(
            [
                f'<span class="name">{e(name)}</span>',
                *(str(s.get(key, {}).get(name, 0)) for key, _ in COLUMNS),
                f"{1000 * t.delay_mean:.2f}" if t and t.seat_games else "–",
                f"{1000 * t.delay_max:.2f}" if t and t.seat_games else "–",
            ]
        )
    head = ["participant", *(heading for _, heading in COLUMNS)]
    head += ["delay mean ms", "delay max ms"]
    note = (
        '<p class="note">Each incident counts once: a hang (no answer to the ping after '
        "a game) is not also a crash or a time loss; "
        "crashes, failed starts and hangs count towards dropping a participant; "
        "&ldquo;by the harness&rdquo; are the time losses its delay on the clock may have "
        "caused. Harness delay: the time an engine's clock ran while the harness had "
        "its turn, per seat and game (this session's games and the journal's).</p>"
    )
    return _table(head, rows, "num") + note


def _games(view: PageView) -> str:
    recent = list(view.tally.recent)[::-1]
    if not recent:
        return ""
    rows = [_game_row(g, view) for g in recent]
    head = ["game", "team 1", "team 2", "result", "replay", "plies", "how"]
    note = (
        f'<p class="note">The newest {plural(len(recent), "game")}; every game is in '
        f"<code>{e(view.games_file)}</code>. A replay page of any game: "
        f"<code>bughouse replay {e(view.games_file)} --game N --html game-N.html</code> "
        "(N its place in the file, shown as “file #”).</p>"
    )
    return _table(head, rows, "games") + note


def _game_row(g: RecentGame, view: PageView) -> list[str]:
    href = view.replays.get(g.number)
    command = f"bughouse replay {view.games_file} --game {g.index} --html game-{g.number}.html"
    if href:
        link = f'<a href="{e(href)}">replay</a> <span class="muted">file #{g.index}</span>'
    else:
        link = f'<code title="{e(command)}">file #{g.index}</code>'
    one = "won" if g.result == "1-0" else "lost" if g.result == "0-1" else ""
    two = {"won": "lost", "lost": "won"}.get(one, "")
    return [
        f'<span id="game-{g.number}">{g.number}</span>',
        f'<span class="name {one}">{e(g.white)}</span>',
        f'<span class="name {two}">{e(g.black)}</span>',
        f'<span class="res">{e(g.result)}</span>',
        link,
        str(g.plies),
        e(g.reason),
    ]


def _problems(s: Mapping[str, Any]) -> str:
    items = [f"<li>dropped: {e(n)}: {e(why)}</li>" for n, why in s.get("dropped", {}).items()]
    if s.get("clock_warning"):  # many time losses the harness did not cause
        items.insert(0, f"<li>clocks: {e(s['clock_warning'])}</li>")
    given_up = s.get("given_up", {})
    items += [f"<li>game {e(n)} given up: {e(why)}</li>" for n, why in given_up.items()]
    return _section("Problems", f"<ul>{''.join(items)}</ul>") if items else ""


# -- plots ------------------------------------------------------------------------------


@attrs.frozen
class _Scale:
    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, v: float) -> float:
        span = self.x1 - self.x0 or 1.0
        return _PAD_L + (v - self.x0) / span * (PLOT_W - _PAD_L - _PAD_R)

    def y(self, v: float) -> float:
        v = min(max(v, self.y0), self.y1)
        span = self.y1 - self.y0 or 1.0
        return PLOT_H - _PAD_B - (v - self.y0) / span * (PLOT_H - _PAD_T - _PAD_B)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    if not high > low:
        return [low]
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    value = first
    while value <= high + 1e-9 * step:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _frame(scale: _Scale, lines: Sequence[tuple[float, str]] = ()) -> str:
    parts = []
    for tick in nice_ticks(scale.y0, scale.y1):
        y = scale.y(tick)
        parts.append(
            f'<line class="grid" x1="{_PAD_L}" x2="{PLOT_W - _PAD_R}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{_PAD_L - 8}" y="{y + 5:.1f}" text-anchor="end">{tick:g}</text>'
        )
    for tick in nice_ticks(scale.x0, scale.x1, 6):
        if tick != int(tick):
            continue
        x = scale.x(tick)
        parts.append(
            f'<text class="tick" x="{x:.1f}" y="{PLOT_H - 10}" '
            f'text-anchor="middle">{int(tick)}</text>'
        )
    for value, cls in lines:
        y = scale.y(value)
        parts.append(
            f'<line class="{cls}" x1="{_PAD_L}" x2="{PLOT_W - _PAD_R}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
    return "".join(parts)


def _path(points: Sequence[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _svg(inner: str, label: str) -> str:
    return (
        f'<svg class="chart" viewBox="0 0 {PLOT_W} {PLOT_H}" role="img" '
        f'aria-label="{e(label)}" preserveAspectRatio="xMidYMid meet">{inner}</svg>'
    )


def elo_svg(points: Sequence[Point]) -> str:
    """Elo after each game (a line) in its 95% interval (a band), zero marked."""
    # The range of the finite figures: an infinite one is drawn at the edge.
    finite = [v for p in points for v in (p.value, p.low, p.high) if math.isfinite(v)]
    clamped = [max(-ELO_CLAMP, min(ELO_CLAMP, v)) for v in finite]
    y0, y1 = min([0.0, *clamped]), max([0.0, *clamped])
    if y1 - y0 < 20:
        y0, y1 = y0 - 10, y1 + 10
    pad = (y1 - y0) * 0.05
    y0, y1 = y0 - pad, y1 + pad
    scale = _Scale(0.0, float(max(p.games for p in points)), y0, y1)
    banded = [p for p in points if not math.isnan(p.low)]
    band = ""
    if len(banded) >= 2:
        top = [(scale.x(p.games), scale.y(p.high)) for p in banded]
        bottom = [(scale.x(p.games), scale.y(p.low)) for p in reversed(banded)]
        band = f'<path class="band" d="{_path(top + bottom)} Z"/>'
    line = [(scale.x(p.games), scale.y(p.value)) for p in points]
    dot = line[-1]
    inner = (
        _frame(scale, [(0.0, "zero")])
        + band
        + f'<path class="line" d="{_path(line)}"/>'
        + f'<circle class="dot" cx="{dot[0]:.1f}" cy="{dot[1]:.1f}" r="3.5"/>'
    )
    return _svg(inner, "Elo over the games played")


def llr_svg(points: Sequence[Point], lower: float, upper: float) -> str:
    """The LLR after each game between the SPRT's bounds."""
    values = [p.value for p in points]
    y0 = min([lower, *values]) - 0.3
    y1 = max([upper, *values]) + 0.3
    scale = _Scale(0.0, float(max([p.games for p in points] + [1])), y0, y1)
    line = [(scale.x(p.games), scale.y(p.value)) for p in points] or [(scale.x(0), scale.y(0))]
    region = (
        f'<rect class="inside" x="{_PAD_L}" y="{scale.y(upper):.1f}" '
        f'width="{PLOT_W - _PAD_L - _PAD_R}" height="{scale.y(lower) - scale.y(upper):.1f}"/>'
    )
    labels = (
        f'<text class="bound-label" x="{PLOT_W - _PAD_R - 4}" y="{scale.y(upper) - 4:.1f}" '
        f'text-anchor="end">H1 {upper:.2f}</text>'
        f'<text class="bound-label" x="{PLOT_W - _PAD_R - 4}" y="{scale.y(lower) + 14:.1f}" '
        f'text-anchor="end">H0 {lower:.2f}</text>'
    )
    dot = line[-1]
    inner = (
        region
        + _frame(scale, [(upper, "bound upper"), (lower, "bound lower"), (0.0, "zero")])
        + labels
        + f'<path class="line llr" d="{_path(line)}"/>'
        + f'<circle class="dot" cx="{dot[0]:.1f}" cy="{dot[1]:.1f}" r="3.5"/>'
    )
    return _svg(inner, "SPRT log-likelihood ratio over the games played")


CSS = """
:root{--bg:#f6f7f9;--card:#fff;--text:#1d2430;--muted:#667085;--line:#e4e7ec;
--accent:#2f6fed;--band:rgba(47,111,237,.16);--win:#1a7f4b;--loss:#c4320a;--draw:#667085;
--ok:#1a7f4b;--warn:#b54708;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#15181d;--card:#1f242b;--text:#e6e9ee;
--muted:#98a2b3;--line:#2e353f;--accent:#6d9bff;--band:rgba(109,155,255,.2);--win:#4ccf86;
--loss:#ff8a65;--draw:#98a2b3}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font-size:15px;line-height:1.45}
main{max-width:1120px;margin:0 auto;padding:20px 16px 40px;display:grid;gap:16px}
header .title{display:flex;align-items:center;gap:12px;flex-wrap:wrap}
h1{font-size:1.5rem;margin:0;letter-spacing:-.01em}
h2{font-size:1.02rem;margin:0 0 10px}
.facts{color:var(--muted);margin:6px 0 10px}
.pill{font-size:.8rem;font-weight:600;padding:3px 10px;border-radius:999px;
background:var(--line);color:var(--text)}
.pill.running{background:#dbe7ff;color:#1d4ed8}.pill.finished{background:#d1fadf;color:#05603a}
.pill.stopped{background:#fef0c7;color:#93370d}.pill.interrupted{background:#fee4e2;color:#912018}
.pill.incomplete{background:#fee4e2;color:#912018}
.banner{background:#fee4e2;color:#912018;border:1px solid #fda29b;border-radius:10px;
padding:10px 14px;margin:0 0 14px}
.bar{height:6px;border-radius:3px;background:var(--line);overflow:hidden}
.bar span{display:block;height:100%;background:var(--accent)}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:12px}
.kpi,.card{background:var(--card);border:1px solid var(--line);border-radius:12px;
box-shadow:0 1px 2px rgba(16,24,40,.05)}
.kpi{padding:12px 16px;min-width:0}.card{padding:16px;min-width:0}
.kpi .label{color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.05em}
.kpi .value{font-size:1.6rem;font-weight:650;font-variant-numeric:tabular-nums;white-space:nowrap}
.kpi .sub{color:var(--muted);font-size:.85rem;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}
.scroll{overflow-x:auto}
.lead{display:grid;grid-template-columns:minmax(0,1.75fr) minmax(0,1fr);gap:16px;align-items:start}
.lead.alone{grid-template-columns:minmax(0,1fr)}
.test h2{margin-bottom:8px}
dl.settings{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px;
margin:0 0 8px;font-size:.88rem}
dl.settings dt{color:var(--muted)}dl.settings dd{margin:0;overflow-wrap:anywhere}
.lead .kpis{grid-template-columns:minmax(0,1fr)}
ul.engines{list-style:none;margin:0;padding:8px 0 0;border-top:1px solid var(--line);
font-size:.88rem;display:grid;gap:6px}
code.cmd{display:block;margin-top:2px;padding:3px 6px;white-space:pre-wrap;
overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th{font-size:.78rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);
font-weight:600;text-align:left;border-bottom:1px solid var(--line);padding:6px 8px;
white-space:nowrap}
td{padding:6px 8px;border-bottom:1px solid var(--line);white-space:nowrap}
tbody tr:last-child td{border-bottom:0}
tbody tr:hover{background:rgba(127,127,127,.06)}
table.num td:not(:first-child):not(:nth-child(2)),
table.num th:not(:first-child):not(:nth-child(2)){text-align:right}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:16px}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:14px 18px}
.name{font-weight:600}.w{color:var(--win)}.l{color:var(--loss)}
.muted,.self{color:var(--muted)}
.cross th{text-transform:none;font-size:.85rem}
.cell{display:inline-block;min-width:3.5em;padding:1px 6px;border-radius:6px;text-align:center;
background:color-mix(in srgb,var(--win) calc(var(--s)*45%),
color-mix(in srgb,var(--loss) calc((1 - var(--s))*45%),transparent))}
.penta{display:flex;align-items:center;gap:8px;justify-content:flex-end}
.pbar{display:flex;width:120px;height:10px;border-radius:5px;overflow:hidden;background:var(--line)}
.pbar span{display:block;height:100%}
.p0{background:var(--loss)}.p1{background:color-mix(in srgb,var(--loss) 55%,var(--draw))}
.p2{background:var(--draw)}.p3{background:color-mix(in srgb,var(--win) 55%,var(--draw))}
.p4{background:var(--win)}
.plot{margin:0}.card>.plot+.plot{margin-top:14px}
figcaption{color:var(--muted);font-size:.88rem;margin-bottom:4px}
svg.chart{width:100%;height:auto;display:block}
.chart .grid{stroke:var(--line);stroke-width:1}
.chart .tick{fill:var(--muted);font-size:14px}
.chart .zero{stroke:var(--muted);stroke-width:1;stroke-dasharray:4 3}
.chart .band{fill:var(--band);stroke:none}
.chart .line{fill:none;stroke:var(--accent);stroke-width:2;stroke-linejoin:round}
.chart .dot{fill:var(--accent)}
.chart .inside{fill:rgba(127,127,127,.06)}
.chart .bound{stroke-width:1.5}.chart .upper{stroke:var(--win)}.chart .lower{stroke:var(--loss)}
.chart .bound-label{fill:var(--muted);font-size:14px}
.res{font-weight:600}.name.won{color:var(--win)}.name.lost{color:var(--muted);font-weight:400}
a{color:var(--accent)}
code{font:.85em ui-monospace,"DejaVu Sans Mono",monospace;background:rgba(127,127,127,.12);
padding:1px 5px;border-radius:4px}
.note{color:var(--muted);font-size:.85rem;margin:10px 0 0}
@media (max-width:900px){.lead{grid-template-columns:minmax(0,1fr)}
.lead .kpis{order:-1;grid-template-columns:repeat(auto-fit,minmax(170px,1fr))}}
@media (max-width:600px){main{padding:12px 10px 28px;gap:12px}h1{font-size:1.25rem}
.kpis{grid-template-columns:repeat(2,1fr);gap:8px}.kpi{padding:10px 12px}
.kpi .value{font-size:1.25rem}
td,th{padding:5px 6px}.card{padding:12px}
.charts{grid-template-columns:1fr;gap:12px}
.chart .tick,.chart .bound-label{font-size:22px}.chart .line{stroke-width:3.5}}
"""
