"""The `bughouse` subcommands: one module per verb, each with `register` and `run`.

The only layer that reads arguments, opens files given by the user and
prints to the terminal; the work is done by the layers below. No command
imports another: what several share is in a module that is not a command
(``plans``: ``match``'s options read into a ``MatchPlan``, for ``serve`` too).
"""

#: Each command's one-line summary: its ``help`` in ``bughouse --help``,
#: listed here so that the summary needs no import of the command.
SUMMARIES: dict[str, str] = {
    "position": "judge a bughouse position: status and legal moves",
    "replay": "step through a BPGN game, or re-judge BPGN files (--check)",
    "play": "play one seat yourself; engines take the other three",
    "match": "play engines against each other, live, and write BPGN",
    "serve": "run a table that engines and people join over the network",
    "server": "run a lobby: any number of tables, quick pairing, the lobby page",
    "connect": "play a local engine at a seat of a remote 'bughouse serve' table",
    "tournament": "many games between engines: Elo, SPRT, openings, concurrency, resume",
    "check-engine": "compliance run for one engine (native, UCI or xboard): PASS/FAIL per step",
}
