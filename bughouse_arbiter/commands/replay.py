"""``bughouse replay``: step through a BPGN game, or re-judge whole files.

``bughouse replay FILE [--game N]`` shows both boards, the pockets, all four
clocks at that moment and the partner messages so far, then reads commands
from standard input (a terminal or a pipe): Enter or ``n`` forward, ``b``
back, ``g N`` or just ``N`` to go to move N, ``s`` start, ``e`` end, ``q``
quit, ``h`` help. End of input quits.

``bughouse replay --check FILE...`` replays every game with the rules code
and prints, per game, the moves replayed, the first move that cannot be
played and where, and the recorded against the re-judged result; then a
summary line. Exit status 0 when every game passes, 1 when any fails.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import chess

from ..board import BughouseBoard
from ..bpgn.read import BpgnGame, read_games
from ..errors import BpgnError, UsageError
from ..model import BoardId, Seat
from ..replay import Frame, ReplayReport, replay_game, rules_of
from ..rules import HouseRules, apply_rules, parse_rule

HELP = "Enter/n forward · b back · g N or N go to move N · s start · e end · q quit"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="step through a BPGN game, or re-judge BPGN files (--check)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="BPGN file(s)")
    parser.add_argument("--game", type=int, default=1, metavar="N", help="game number (from 1)")
    parser.add_argument("--check", action="store_true", help="re-judge every game and report")
    parser.add_argument(
        "--strict", action="store_true", help="with --check: a reading problem fails the game"
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="judge with this house rule changed (files without a [Rules] tag are judged "
        "with wait_for_block=on, no ply cap)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    pairs = [parse_rule(text) for text in args.rule]
    if args.check:
        texts = [(path, _load(path)) for path in args.files]
        return check(texts, pairs, strict=args.strict, out=sys.stdout)
    if len(args.files) != 1:
        raise UsageError("stepping through a game takes one FILE (use --check for several)")
    path = args.files[0]
    games = read_games(_load(path), file=path)
    if not games:
        raise UsageError(f"{path}: no game found")
    if not 1 <= args.game <= len(games):
        raise UsageError(f"--game {args.game}: {path} holds games 1 to {len(games)}")
    source = games[args.game - 1]
    report = replay_game(source, rules=_rules_for(source, pairs), frames=True)
    if not report.frames:
        raise UsageError(f"{path} game {args.game}: {report.verdict}")
    return step(report, sys.stdin, sys.stdout)


def _load(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a BPGN file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read it ({exc.strerror})") from None


def _rules_for(source: BpgnGame, pairs: list[tuple[str, str]]) -> HouseRules | None:
    if not pairs:
        return None
    base, _ = rules_of(source)
    return apply_rules(base, pairs)


# -- --check ------------------------------------------------------------------------


def check(
    texts: Sequence[tuple[str, bytes]],
    pairs: list[tuple[str, str]],
    *,
    strict: bool,
    out: TextIO,
) -> int:
    """Re-judges every game of every file; prints a report; 0 if all pass, else 1."""
    games_total = passed = moves = 0
    for path, data in texts:
        try:
            games = read_games(data, file=path)
        except BpgnError as exc:  # only in strict reading, which check does not use
            print(f"{path}: {exc}", file=out)
            games_total += 1
            continue
        if not games:
            print(f"{path}: no game found", file=out)
        for source in games:
            games_total += 1
            report = replay_game(source, rules=_rules_for(source, pairs))
            moves += report.replayed
            ok = report.ok and not (strict and source.problems)
            passed += ok
            for line in describe(report, path, strict=strict):
                print(line, file=out)
    failed = games_total - passed
    print(
        f"checked {games_total} game(s) in {len(texts)} file(s): {passed} passed, "
        f"{failed} failed; {moves} moves replayed",
        file=out,
    )
    return 0 if failed == 0 else 1


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
    lines.extend(f"  note: {note.located()}" for note in report.notes)
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


def step(report: ReplayReport, stdin: TextIO, out: TextIO) -> int:
    """The console loop: shows a frame, reads a command, until quit or end of input."""
    frames = report.frames
    print(_title(report), file=out)
    print(HELP, file=out)
    index = 0
    last = len(frames) - 1
    print(_shown(report, index), file=out)
    while True:
        print(f"[move {index}/{last}] > ", end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            print(file=out)
            return 0
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
            return 0
        elif command in ("h", "help", "?"):
            print(HELP, file=out)
            continue
        else:
            number = command[1:].strip() if command.startswith("g") else command
            try:
                target = int(number)
            except ValueError:
                print(f"unknown command {line.strip()!r} ({HELP})", file=out)
                continue
        if not 0 <= target <= last:
            where = "at the end" if target > last else "at the start"
            print(f"no move {target}: already {where} (moves 0 to {last})", file=out)
            target = max(0, min(last, target))
            if target == index:
                continue
        index = target
        print(_shown(report, index), file=out)


def _shown(report: ReplayReport, index: int) -> str:
    """Frame ``index``, and at the last one how the game ended or where the replay stopped."""
    text = render(report.frames[index], report.game)
    if index == len(report.frames) - 1:
        if report.illegal is not None:
            text += f"\nthe replay stops here: next is {report.illegal.located()}"
        elif report.outcome is not None:
            text += f"\nresult: {report.rejudged} ({report.outcome.reason})"
    return text


def _title(report: ReplayReport) -> str:
    source = report.game
    rules = ", ".join(f"{k}={v}" for k, v in report.rules.differences.items()) or "default"
    return (
        f"game {source.number}{_team_names(source)} — rules: {rules}\n"
        f"{report.replayed}/{report.total} moves replayable; {report.verdict}"
    )


def render(frame: Frame, source: BpgnGame) -> str:
    """Both boards side by side (board B from Black's side, as partners sit),
    pockets, the four clocks at that moment and the messages so far."""
    boards = {b: BughouseBoard(frame.fens[b]) for b in BoardId}
    left = _board_lines(boards[BoardId.A], white_bottom=True)
    right = _board_lines(boards[BoardId.B], white_bottom=False)
    top = (Seat.A_BLACK, Seat.B_WHITE)
    bottom = (Seat.A_WHITE, Seat.B_BLACK)
    lines = []
    if frame.move is not None:
        stamp = f" at {frame.at:.3f} s" if frame.at is not None else ""
        lines.append(f"after move {frame.ply}: {frame.move.label}{stamp}")
    else:
        lines.append("start position")
    lines.append(_pair(_seat_line(frame, source, top[0]), _seat_line(frame, source, top[1])))
    lines.append(_pair("  pocket: " + frame.pockets[top[0]], "  pocket: " + frame.pockets[top[1]]))
    lines.extend(_pair(a, b) for a, b in zip(left, right, strict=True))
    lines.append(
        _pair("  pocket: " + frame.pockets[bottom[0]], "  pocket: " + frame.pockets[bottom[1]])
    )
    lines.append(_pair(_seat_line(frame, source, bottom[0]), _seat_line(frame, source, bottom[1])))
    for message in frame.messages[-5:]:
        when = f" ({message.at:.1f} s)" if message.at is not None else ""
        lines.append(f"  {message.seat.bpgn} to partner{when}: {message.text}")
    return "\n".join(lines)


def _pair(left: str, right: str) -> str:
    return f"{left:<36}{right}"


def _seat_line(frame: Frame, source: BpgnGame, seat: Seat) -> str:
    clock = frame.clocks.get(seat)
    shown = _clock(clock) if clock is not None else "--:--"
    turn = " *" if frame.to_move[seat.board] is seat else ""
    name = source.name_of(seat) or "?"
    return f"  {seat.bpgn} {name[:16]} {shown}{turn}"


def _clock(seconds: float) -> str:
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    minutes, rest = divmod(seconds, 60)
    return f"{sign}{int(minutes)}:{rest:04.1f}"


def _board_lines(board: chess.Board, *, white_bottom: bool) -> list[str]:
    ranks = range(7, -1, -1) if white_bottom else range(8)
    files = range(8) if white_bottom else range(7, -1, -1)
    lines = []
    for rank in ranks:
        cells = []
        for file in files:
            piece = board.piece_at(chess.square(file, rank))
            cells.append(piece.symbol() if piece else ".")
        lines.append(f"  {rank + 1} " + " ".join(cells))
    letters = " ".join(chess.FILE_NAMES[f] for f in files)
    lines.append(f"    {letters}")
    return lines
