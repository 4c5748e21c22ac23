"""The server's own pages (accounts, ratings, the archive): one HTML shell and its style.

Everything a user typed or a player is called is escaped (``esc``): names are
shown as text everywhere. The style is the live page's (dark panels, the
accent yellow, the board's colours), laid out for a wide window and a phone.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from ...lobby.identity import Identity

CSS = """
:root { --bg: #1f2125; --panel: #2b2e33; --line: #3a3e45; --text: #eceff1; --muted: #b0b6bd;
  --accent: #f2c14e; --good: #6cc070; --bad: #ff7a70; --light-square: #f0d9b5;
  --dark-square: #946f51; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
html, body { max-width: 100%; overflow-x: hidden; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.45; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
nav.top { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 18px; padding: 10px 18px;
  background: #17191c; border-bottom: 3px solid var(--dark-square); }
nav.top .brand { font-weight: 700; font-size: 1.1rem; color: var(--text); margin-right: 10px; }
nav.top .brand::before { content: "\\265E  "; color: var(--accent); }
nav.top .me { margin-left: auto; color: var(--muted); display: flex; gap: 14px; }
nav.top form { display: inline; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 18px; }
h1 { font-size: 1.45rem; margin: 4px 0 14px; }
h2 { font-size: 1.1rem; margin: 22px 0 8px; color: var(--muted); }
.panel { background: var(--panel); border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; }
.narrow { max-width: 420px; margin: 24px auto; }
label { display: block; margin: 10px 0 4px; color: var(--muted); font-size: .9rem; }
input, select { width: 100%; padding: 9px 10px; font-size: 1rem; border-radius: 6px;
  border: 1px solid var(--line); background: #17191c; color: var(--text); }
button, .button { display: inline-block; margin-top: 14px; padding: 9px 16px; font-size: 1rem;
  font-weight: 600; border: 0; border-radius: 6px; background: var(--accent); color: #1f2125;
  cursor: pointer; }
button.link { background: none; color: var(--accent); padding: 0; margin: 0; font-weight: 400; }
.error { background: #4a1f1c; color: #ffd7d3; border-radius: 6px; padding: 8px 12px; }
.note { color: var(--muted); font-size: .9rem; }
.table-wrap { overflow-x: auto; }
table.list { width: 100%; border-collapse: collapse; font-size: .95rem; }
table.list th { text-align: left; color: var(--muted); font-weight: 600; padding: 6px 8px;
  border-bottom: 1px solid var(--line); white-space: nowrap; }
table.list td { padding: 7px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.list tr:nth-child(even) td { background: #262a2f; }
table.list .num { text-align: right; font-variant-numeric: tabular-nums; }
.up { color: var(--good); } .down { color: var(--bad); }
.kind { font-size: .75rem; color: var(--muted); border: 1px solid var(--line); border-radius: 4px;
  padding: 0 4px; margin-left: 4px; }
.prov { color: var(--muted); }
.tabs { display: flex; gap: 8px; margin-bottom: 12px; flex-wrap: wrap; }
.tabs a { padding: 5px 12px; border-radius: 14px; background: var(--panel); }
.tabs a.on { background: var(--accent); color: #1f2125; }
form.search { display: grid; grid-template-columns: repeat(4, 1fr) auto; gap: 8px 12px;
  align-items: end; }
form.search label { margin: 0 0 4px; }
form.search button { margin: 0; }
.pager { display: flex; justify-content: space-between; margin-top: 12px; }
.stats { display: flex; flex-wrap: wrap; gap: 10px 28px; }
.stats .big { font-size: 1.6rem; font-weight: 700; }
svg.plot { width: 100%; height: auto; display: block; }
svg.plot text { fill: var(--muted); font-size: 13px; }
@media (max-width: 700px) {
  main { padding: 12px; }
  form.search { grid-template-columns: 1fr 1fr; }
  table.list .wide { display: none; }
  nav.top { padding: 8px 12px; }
  svg.plot text { font-size: 19px; }
}
"""


#: Every page of the site: not to be framed by another site (its forms), nor sniffed.
HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def page(title: str, body: str, *, who: Identity | None, csrf: str) -> str:
    """The whole page: the site's bar (with who is logged in) and ``body``."""
    if who is None:
        me = '<a href="/login">Log in</a> <a href="/register">Register</a>'
    else:
        me = (
            f'<a href="/player/{esc(who.name)}">{esc(who.name)}</a> '
            f'<form method="post" action="/logout">{csrf_field(csrf)}'
            '<button class="link" type="submit">Log out</button></form>'
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · bughouse</title>
<link rel="stylesheet" href="/site.css"></head>
<body><nav class="top"><a class="brand" href="/">bughouse</a>
<a href="/">Lobby</a><a href="/leaderboard">Leaderboard</a><a href="/games">Archive</a>
<span class="me">{me}</span></nav>
<main>{body}</main></body></html>
"""


def csrf_field(token: str) -> str:
    return f'<input type="hidden" name="csrf" value="{esc(token)}">'


def rows(cells: Iterable[Iterable[str]]) -> str:
    return "".join("<tr>" + "".join(row) + "</tr>" for row in cells)
