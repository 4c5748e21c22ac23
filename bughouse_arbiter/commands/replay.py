"""``bughouse replay``: step through a BPGN game, or re-judge whole files.

``bughouse replay FILE [--game N]`` shows the table as ``bughouse match`` draws
it (both boards, the pockets, all four clocks at that moment) and the partner
messages so far, then reads commands from standard input (a terminal or a
pipe): Enter or ``n`` forward, ``b`` back, ``12A`` (or ``9b.``, ``g 12A``) to
go to that move (number, board letter: upper case White, lower case Black),
``N`` (or ``g N``) to go to ply N, counted over both boards, ``s`` start,
``e`` end, ``q`` quit, ``h`` help. End of input quits.

``bughouse replay --check FILE...`` replays every game with the rules code
and prints, per game, the moves replayed, the first move that cannot be
played and where, and the recorded against the re-judged result; then a
summary line. Exit status 0 when every game passes, 1 when any fails. Files
are read and judged a part at a time (memory stays flat however long a game
is); at most 20 reading problems and 20 notes are listed per game, and
control characters from the file are shown escaped (``\x1b``).

Stepping keeps the game's moves and a snapshot every 256 plies (a ply is
rebuilt from the snapshot before it); ``--html`` embeds at most the first
10000 plies, and says so on the page and on standard error when it leaves
some out.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ..bpgn.frames import Frames
from ..bpgn.read import BpgnGame, BpgnMove, iter_game_parts
from ..bpgn.replay import Frame, GameReplay, ReplayReport, replay_games, rules_of
from ..config.options import add_rule, house_rules
from ..core.game import BughouseGame, PlayedMove
from ..core.model import BoardId, Seat
from ..core.rules import HouseRules
from ..environment import Environment
from ..errors import UsageError
from ..exits import FAILED, OK
from ..ui.render import RenderOptions, render_table
from ..ui.safe_text import printable, printable_lines
from . import SUMMARIES

_MOVE_NUMBER = re.compile(r"(\d{1,6})([ABab])\.?")
HELP = (
    "Enter/n forward · b back · 12A or 9b. go to that move (A/B White, a/b Black) · "
    "N go to ply N · s start · e end · q quit"
)


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help=SUMMARIES["replay"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="BPGN file(s)")
    parser.add_argument("--game", type=int, default=1, metavar="N", help="game number (from 1)")
    parser.add_argument("--check", action="store_true", help="re-judge every game and report")
    parser.add_argument(
        "--html",
        metavar="OUT",
        help="write game N as one self-contained HTML page (boards, pockets, clocks, "
        "messages, move lists; keys: arrows, Home, End) instead of stepping; an existing "
        "OUT is replaced",
    )
    parser.add_argument(
        "--strict", action="store_true", help="with --check: a reading problem fails the game"
    )
    parser.add_argument("--ascii", action="store_true", help="letters instead of chess glyphs")
    parser.add_argument("--no-color", action="store_true", help="no ANSI colours")
    add_rule(
        parser,
        note="; the game is judged with it changed (files without a [Rules] tag are "
        "judged with wait_for_block=on, no ply cap)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, env: Environment) -> int:
    rule_texts: list[str] = args.rule
    house_rules(rule_texts)  # a bad rule is one line before any file is read
    if args.html is not None and args.check:
        raise UsageError("--html writes one game's page; it does not go with --check")
    if args.check:
        for path in args.files:
            _open(path).close()  # a missing file is a usage error before any report
        return check(args.files, rule_texts, strict=args.strict, out=env.stdout)
    if len(args.files) != 1:
        raise UsageError("stepping through a game takes one FILE (use --check for several)")
    path = args.files[0]
    report = _replayed(path, args.game, rule_texts, limit=_page_limit() if args.html else None)
    if not report.frames:
        raise UsageError(f"{path} game {args.game}: {report.verdict}")
    if args.html is not None:
        return write_html(report, args.html, out=env.stdout, err=env.stderr)
    return step(report, env.stdin, env.stdout, options=_options(args, env))


def _page_limit() -> int:
    from ..web.replay_page import MAX_PLIES

    return MAX_PLIES


def _replayed(
    path: str, number: int, rule_texts: Sequence[str], *, limit: int | None
) -> ReplayReport:
    """Game ``number`` of ``path`` replayed with frames (at most ``limit`` plies
    kept), read a part at a time; the games before it are skipped unjudged."""
    replay: GameReplay | None = None
    count = 0
    with _open(path) as stream:
        for part in iter_game_parts(stream, file=path):
            count = part.number
            if part.number != number:
                continue
            if replay is None:
                rules = _rules_for(part, rule_texts)
                replay = GameReplay(part, rules=rules, frames=True, frame_limit=limit)
            replay.feed(part)
            if not part.partial:
                return replay.report()
    if count == 0:
        raise UsageError(f"{path}: no game found")
    raise UsageError(f"--game {number}: {path} holds games 1 to {count}")


def _options(args: argparse.Namespace, env: Environment) -> RenderOptions:
    """Glyphs on a UTF-8 output and colour on a terminal, as ``match`` and ``play``
    draw them, unless ``--ascii`` / ``--no-color`` / ``NO_COLOR``."""
    return RenderOptions(
        unicode=env.unicode and not args.ascii, color=env.color and not args.no_color
    )


def write_html(report: ReplayReport, target: str, *, out: TextIO, err: TextIO) -> int:
    """Writes the game's page to ``target`` (a new or regular file, replaced)."""
    from ..web.replay_page import notice, replay_page

    path = Path(target)
    if path.is_dir():
        raise UsageError(f"--html {target}: is a folder; give a file name such as game.html")
    if path.exists() and not path.is_file():
        raise UsageError(f"--html {target}: not a regular file; give a file name such as game.html")
    page = replay_page(report)
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--html {target}: cannot write it ({exc.strerror})") from None
    plies = report.replayed
    print(f"{target}: game {report.game.number}, {plies} plies, {len(page) // 1024} KiB", file=out)
    left_out = notice(report)
    if left_out:
        print(f"{target}: {left_out}", file=err)
    return OK


def _open(path: str) -> BinaryIO:
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a BPGN file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None


def _rules_for(source: BpgnGame, rule_texts: Sequence[str]) -> HouseRules | None:
    """The rules ``--rule`` makes of ``source``'s own (None: no ``--rule``)."""
    if not rule_texts:
        return None
    base, _ = rules_of(source)
    return house_rules(rule_texts, base=base)


# -- --check ------------------------------------------------------------------------


def check(
    paths: Sequence[str],
    rule_texts: Sequence[str],
    *,
    strict: bool,
    out: TextIO,
) -> int:
    """Re-judges every game of every file, one game in memory at a time;
    prints a report; 0 if all pass, else 1."""
    games_total = passed = moves = 0
    for path in paths:
        found = 0
        try:
            with _open(path) as stream:
                parts = iter_game_parts(stream, file=path)
                rules = functools.partial(_rules_for, rule_texts=rule_texts)
                for report in replay_games(parts, rules=rules):
                    source = report.game
                    found += 1
                    games_total += 1
                    moves += report.replayed
                    ok = report.ok and not (strict and source.problems)
                    passed += ok
                    for line in describe(report, path, strict=strict):
                        print(printable(line, MAX_LINE), file=out)
        except OSError as exc:
            print(printable(f"{path}: cannot read it ({exc.strerror or exc})"), file=out)
            games_total += 1
            continue
        if not found:
            print(printable(f"{path}: no game found"), file=out)
    failed = games_total - passed
    print(
        f"checked {games_total} game(s) in {len(paths)} file(s): {passed} passed, "
        f"{failed} failed; {moves} moves replayed",
        file=out,
    )
    return OK if failed == 0 else FAILED


#: The longest line ``--check`` prints, and the notes it lists per game.
MAX_LINE = 400
MAX_NOTES = 20


def describe(report: ReplayReport, path: str, *, strict: bool = False) -> list[str]:
    """The report's lines for one game."""
    source = report.game
    failed = not report.ok or (strict and bool(source.problems))
    mark = "FAIL" if failed else "ok"
    names = _team_names(source)
    lines = [
        f"{path} game {source.number} (line {source.line}){names}: {mark}: "
        f"{report.replayed}/{report.total} moves replayed; recorded {report.recorded or '-'}, "
        f"re-judged {report.rejudged}"
        + (f" ({_convention(report.convention)})" if report.convention else "")
    ]
    if report.outcome is not None:
        lines.append(f"  re-judged: {report.outcome.reason}")
    if report.claim is not None:
        lines.append(f"  the file says: {report.claim.text}")
    if report.illegal is not None:
        lines.append(f"  first move that cannot be played: {report.illegal.located()}")
    if not report.ok and report.illegal is None:
        lines.append(f"  {report.verdict}")
    notes = report.notes
    lines.extend(f"  note: {note.located()}" for note in notes[:MAX_NOTES])
    if len(notes) > MAX_NOTES:
        lines.append(f"  note: {len(notes) - MAX_NOTES} more note(s) not listed")
    lines.extend(f"  reading: {problem.located()}" for problem in source.problems)
    return lines


def _convention(convention: str) -> str:
    if convention == "per-board":
        return "[Result] from White of the deciding board (FICS/bughousedb), not team 1"
    return "[Result] from team 1 (WhiteA + BlackB), as the standard says"


def _team_names(source: BpgnGame) -> str:
    names = [source.name_of(seat) for seat in Seat]
    if not any(names):
        return ""
    a_w, a_b, b_w, b_b = (n or "?" for n in names)
    return f" {a_w} & {b_b} vs {a_b} & {b_w}"


# -- stepping --------------------------------------------------------------------------


def step(
    report: ReplayReport, stdin: TextIO, out: TextIO, *, options: RenderOptions | None = None
) -> int:
    """The console loop: shows a frame, reads a command, until quit or end of input."""
    frames = report.frames
    print(printable_lines(_title(report), MAX_LINE), file=out)
    print(HELP, file=out)
    index = 0
    last = len(frames) - 1
    print(_shown(report, index, options), file=out)
    while True:
        print(f"[{_where(report, index)}] > ", end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            print(file=out)
            return OK
        command = line.strip().lower()
        target: int | None
        if command in ("", "n", "next", "f"):
            target = index + 1
        elif command in ("b", "p", "back", "prev"):
            target = index - 1
        elif command in ("s", "start"):
            target = 0
        elif command in ("e", "end"):
            target = last
        elif command in ("q", "quit", "exit"):
            return OK
        elif command in ("h", "help", "?"):
            print(HELP, file=out)
            continue
        else:
            wanted = line.strip()
            wanted = wanted[1:].strip() if wanted[:1] in ("g", "G") else wanted
            found = _target(report, wanted)
            if isinstance(found, str):
                print(found, file=out)
                continue
            target = found
        if not 0 <= target <= last:
            # Stay where we are: a typo must not lose the place.
            edge = "the end" if target > last else "the start"
            if target == index + 1 or target == index - 1:
                print(f"already at {edge} (plies 0 to {last})", file=out)
            else:
                print(
                    f"no move {target}: plies go from 0 to {last} (or type a move such as 2A)",
                    file=out,
                )
            continue
        index = target
        print(_shown(report, index, options), file=out)


def _target(report: ReplayReport, text: str) -> int | str:
    """The ply ``text`` names (``12A``, ``9b.``, ``7``), or the message saying why not."""
    match = _MOVE_NUMBER.fullmatch(text)
    if match is not None:
        number, letter = int(match.group(1)), match.group(2)
        for ply, move in enumerate(_moves(report), start=1):
            written = move.board.value if move.white else move.board.value.lower()
            if move.number == number and written == letter:
                return ply
        return f"no move {number}{letter}. in this game (the prompt shows where you are)"
    try:
        return int(text)
    except ValueError:
        return f"unknown command {printable(text, 40)!r} ({HELP})"


def _moves(report: ReplayReport) -> Sequence[BpgnMove]:
    """The move of each ply from 1, without building the frames."""
    frames = report.frames
    if isinstance(frames, Frames):
        return frames.moves
    return [frame.move for frame in frames[1:] if frame.move is not None]


def _where(report: ReplayReport, index: int) -> str:
    """``2A. exd5 · ply 5/10`` (``start · ply 0/10`` before the first move)."""
    move = _moves(report)[index - 1] if index else None
    at = move.label if move is not None else "start"
    return f"{at} · ply {index}/{len(report.frames) - 1}"


def _shown(report: ReplayReport, index: int, options: RenderOptions | None = None) -> str:
    """Frame ``index``, and at the last one how the game ended or where the replay
    stopped; every line from the file is shown through ``printable``."""
    # The table is our own text (colour escapes included); ``render`` passes
    # what it shows from the file through ``printable``.
    text = render(report.frames[index], report.game, report.rules, options)
    end = ""
    if index == len(report.frames) - 1:
        if report.illegal is not None:
            end = f"the replay stops here: next is {report.illegal.located()}"
        elif report.outcome is not None:
            end = f"result: {report.rejudged} ({report.outcome.reason})"
    return text + "\n" + printable_lines(end, MAX_LINE) if end else text


def _title(report: ReplayReport) -> str:
    source = report.game
    rules = ", ".join(f"{k}={v}" for k, v in report.rules.differences.items()) or "default"
    return (
        f"game {source.number}{_team_names(source)} — rules: {rules}\n"
        f"{report.replayed}/{report.total} moves replayable; {report.verdict}"
    )


def render(
    frame: Frame,
    source: BpgnGame,
    rules: HouseRules,
    options: RenderOptions | None = None,
    played: Sequence[PlayedMove] = (),
) -> str:
    """The table at ``frame`` as ``render.render_table`` draws it (board A from
    White's side, board B beside it from Black's, pockets, the four clocks at
    that moment), the last move of each board and the partner messages so far.
    ``played`` (the moves up to ``frame``; by default the frame's ``marks``) marks
    each board's last move's squares."""
    table = BughouseGame(rules, fen_a=frame.fens[BoardId.A], fen_b=frame.fens[BoardId.B])
    start = rules.time if rules.clock else math.inf  # untimed: shown as --:--
    clocks = {seat: start if left is None else left for seat, left in frame.clocks.items()}
    names = {seat: source.name_of(seat) or "" for seat in Seat}
    last = {board: printable(move.label, 40) for board, move in frame.last.items()}
    marks = {move.board: move.move for move in played} if played else dict(frame.marks)
    drawn = render_table(
        table, clocks, names=names, running=frame.running, options=options, last=last, marks=marks
    )
    if frame.move is not None:
        stamp = f" at {frame.at:.3f} s" if frame.at is not None else ""
        lines = [printable(f"after {frame.move.label} (ply {frame.ply}){stamp}", MAX_LINE)]
    else:
        lines = ["start position"]
    # Before the first move the boards' status row is blank: leave it out.
    lines += [line for line in drawn.splitlines() if line]
    for message in frame.messages[-5:]:
        when = f" ({message.at:.1f} s)" if message.at is not None else ""
        text = printable(message.text, 200)
        lines.append(f"  {message.seat.bpgn} to partner{when}: {text}")
    return "\n".join(lines)
