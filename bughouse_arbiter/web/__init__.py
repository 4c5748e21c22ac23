"""Pages in a browser, from the rules code's own values: the page files and the replay page.

- ``replay_page``: a replayed BPGN game as one self-contained HTML file
  (boards drawn by python-chess's ``chess.svg``, no network needed to open
  it). Pure: functions take values and return text; the commands write files.
- ``assets``: the page files shipped in ``assets/`` (the live, lobby and event
  pages' scripts and styles, and chessground, vendored: see its README),
  read once per process.

The live page is ``serve.live_page``; the lobby server's pages are ``hall.web``.
"""
