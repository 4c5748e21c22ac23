"""Replaying a BPGN game with the rules code, and judging it again.

``replay_game(game)`` plays a ``BpgnGame``'s moves in file order on a
``BughouseGame``, applies how the file says the game ended when that is
something the boards cannot show (a resignation, a flag, a disconnection, a
draw by agreement or a plain "Game drawn", which stands as agreed),
and compares the result the file records with the result the rules give.
Quirks of real files are handled and reported, never hidden:

- a move logged twice (same number, letter, move and clock) is skipped;
- a drop written just before the capture on the other board that supplied
  the piece is played right after that capture;
- anything else that cannot be played stops the replay there: the report
  names the move, its line and column, and why.

``GameReplay`` does the same for a game fed in parts (``iter_game_parts``),
holding only a window of its moves; ``replay_games`` judges a whole stream
so, as ``bughouse replay --check`` does.

``[Result]`` is read under both conventions found in real files: the
standard's (team of White on board A) and FICS/bughousedb's (White of the
board where the game ended); the report says which one the file follows.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence

import attrs
import chess

from ..core.game import BughouseGame, PlayedMove
from ..core.model import BoardId, Outcome, Result, Seat, Termination
from ..core.rules import MAX_SECONDS, HouseRules
from ..errors import ArbiterError, MoveError
from .claims import Claim, claim_of, seats_named
from .frames import Frame, Frames
from .positions import parse_san, read_move, start_fens
from .read import BoardEnd, BpgnGame, BpgnMessage, BpgnMove

__all__ = ["FOREIGN_RULES", "Frame", "GameReplay", "Note", "ReplayReport", "replay_game"]

#: Rules for files that do not say theirs (every dialect but ours): mate is
#: mate even if a piece could arrive later (FICS), no ply cap.
FOREIGN_RULES = HouseRules(profile="foreign", wait_for_block=True, max_plies=0)

#: Moves of history a board keeps in a replay before its stack is dropped.
_STACK_KEPT = 256
_LOOKAHEAD = 8  # moves of the other board searched for a capture that supplies a drop


@attrs.frozen(kw_only=True)
class Note:
    """Something about one move of the file: where it is and what was done."""

    message: str
    move: BpgnMove | None = None

    def located(self) -> str:
        if self.move is None:
            return self.message
        m = self.move
        return f"{m.label} (line {m.line}, column {m.column}): {self.message}"


@attrs.frozen(kw_only=True)
class ReplayReport:
    """What ``replay_game`` found. ``ok`` is True when every move was played
    and the recorded result agrees with the re-judged one (either convention)."""

    game: BpgnGame
    rules: HouseRules
    replayed: int
    total: int
    illegal: Note | None
    notes: tuple[Note, ...]
    claim: Claim | None
    outcome: Outcome | None
    recorded: str | None
    rejudged: str
    convention: str | None
    verdict: str
    ok: bool
    played: tuple[PlayedMove, ...] = ()
    frames: Sequence[Frame] = ()


def rules_of(game: BpgnGame, override: HouseRules | None = None) -> tuple[HouseRules, list[Note]]:
    """The rules a game was played under: ``override``, else its ``[Rules]`` tag,
    else ``FOREIGN_RULES`` with the time control of ``[TimeControl]``."""
    notes: list[Note] = []
    if override is not None:
        return override, notes
    text = game.tag("Rules")
    if text:
        try:
            pairs = [tuple(item.split("=", 1)) for item in text.split()]
            return HouseRules.from_pairs((p[0], p[1]) for p in pairs if len(p) == 2), notes
        except ArbiterError as exc:
            notes.append(Note(message=f"[Rules] cannot be read ({exc}); foreign rules used"))
    rules = FOREIGN_RULES
    written = game.tag("TimeControl") or ""
    control = _TIME_CONTROL.fullmatch(written)
    if control and float(control.group(1)) > 0:
        base, increment = float(control.group(1)), float(control.group(2) or 0)
        if base <= MAX_SECONDS and increment <= MAX_SECONDS:
            rules = dataclasses.replace(rules, time=base, increment=increment)
        else:
            notes.append(
                Note(
                    message=f"[TimeControl] {_cut(written)} is beyond {MAX_SECONDS:g} "
                    "seconds: the default time is used"
                )
            )
    return rules, notes


_TIME_CONTROL = re.compile(r"\s*(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?\s*")


def _cut(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


class _Replayer:
    """Plays a game's moves as they are fed, a part of the file at a time.

    A move is played once ``_LOOKAHEAD`` later ones are read (a drop may need
    the capture that supplies it): only that window of moves is held.
    """

    def __init__(
        self,
        source: BpgnGame,
        rules: HouseRules,
        *,
        frames: bool,
        notes: list[Note],
        track_repetition: bool = False,
        frame_limit: int | None = None,
    ) -> None:
        self.rules = rules
        self.notes = notes
        self.illegal: Note | None = None
        self.replayed = 0
        fen_a, fen_b = start_fens(source)
        self.game = BughouseGame(rules, fen_a=fen_a, fen_b=fen_b)
        # A tournament game's book moves, which the ply cap and stalling skip.
        book = source.tag("OpeningPlies") or ""
        if book.isascii() and book.isdigit() and len(book) <= 6:
            self.game.opening_plies = int(book)
        self.last_on_board: dict[BoardId, BpgnMove] = {}
        self.ends: deque[BoardEnd] = deque()
        self.track_repetition = track_repetition
        self.seen: dict[BoardId, dict[Hashable, int]] = {BoardId.A: {}, BoardId.B: {}}
        for board_id in BoardId:
            self.count_position(board_id)
        self.window: dict[int, BpgnMove] = {}  # moves read, not yet played, by index
        self.queue: deque[int] = deque()  # their indices, in the order to play them
        self.read = 0
        self.has_lower = {BoardId.A: False, BoardId.B: False}
        self.colour_from_turn: set[BoardId] = set()
        self.stopped = False
        #: The move the rules' end came before, the reason, and the later moves
        #: queued then less the moves read then (the moves read at the end are added).
        self.cut_off: tuple[BpgnMove, str, int] | None = None
        # Untimed play (clock=off) has no clock to show.
        start = rules.time if rules.clock else None
        self.frames = Frames(self.game, start, limit=frame_limit) if frames else None

    def feed(self, part: BpgnGame) -> None:
        """Reads ``part``'s moves, board ends and messages and plays what it can."""
        moves = part.moves
        has_lower = self.has_lower
        for board_id in BoardId:
            if not has_lower[board_id]:
                has_lower[board_id] = any(m.board is board_id and not m.white for m in moves)
        self.read += len(moves)
        self.ends.extend(part.board_ends)
        if self.frames is not None:
            self.frames.add_messages(part.messages)
        if self.stopped:
            return
        indices = [m.index for m in moves]
        self.window.update(zip(indices, moves, strict=True))
        self.queue.extend(indices)
        self.run(final=not part.partial)
        if self.stopped:
            self.window.clear()
            self.queue.clear()

    def finish(self) -> None:
        """After the last part: the note of moves the rules' end left unplayed."""
        if self.cut_off is not None:
            move, reason, later = self.cut_off
            self.notes.append(
                Note(
                    move=move,
                    message=f"the rules ended the match before this move ({reason}): it "
                    f"and {later + self.read} later move(s) not played",
                )
            )
            self.cut_off = None

    def run(self, *, final: bool) -> None:
        game = self.game
        board_a, board_b = game.boards[BoardId.A], game.boards[BoardId.B]
        lower_a, lower_b = self.has_lower[BoardId.A], self.has_lower[BoardId.B]
        queue, window = self.queue, self.window
        keep = 0 if final else _LOOKAHEAD
        while len(queue) > keep:
            index = queue.popleft()
            move = window.pop(index)
            if self.ends:
                self.apply_board_ends(index)
            if game.outcome is not None:
                self.cut_off = (move, game.outcome.reason, len(queue) - self.read)
                self.stopped = True
                return
            board_id = move.board
            if board_id in game.board_results:
                self.illegal = Note(move=move, message=f"board {board_id.value} is over")
                self.stopped = True
                return
            is_a = board_id is BoardId.A
            board = board_a if is_a else board_b
            if move.white != board.turn:
                seat = move.seat
                if not (lower_a if is_a else lower_b) and move.number == board.fullmove_number:
                    # pychess-variants' legacy export writes every board letter in
                    # upper case: the side to move is the only colour it can be.
                    seat = Seat.of(board_id, board.turn)
                    if board_id not in self.colour_from_turn:
                        self.colour_from_turn.add(board_id)
                        self.notes.append(
                            Note(
                                move=move,
                                message=f"board {board_id.value}'s letters are all upper "
                                "case: each move's colour is taken from the side to move",
                            )
                        )
                else:
                    previous = self.last_on_board.get(board_id)
                    if previous is not None and _same(previous, move):
                        self.notes.append(
                            Note(
                                move=move,
                                message=f"the same move as line {previous.line}, column "
                                f"{previous.column}: skipped",
                            )
                        )
                        continue
                    self.illegal = Note(
                        move=move,
                        message=f"{game.to_move(board_id)} is to move on board "
                        f"{board_id.value}, not {seat} (a move missing before it?)",
                    )
                    self.stopped = True
                    return
            else:
                seat = move.seat
            try:
                parsed, plain = read_move(board, move.san)
            except MoveError as exc:
                if not self.supply_drop(index, move, seat):
                    self.illegal = Note(move=move, message=str(exc))
                    self.stopped = True
                    return
                window[index] = move
                continue
            self.play(move, parsed, plain=plain, seat=seat)
        if final:
            self.apply_board_ends(self.read)

    def play(
        self,
        move: BpgnMove,
        parsed: chess.Move,
        *,
        plain: bool = False,
        seat: Seat | None = None,
    ) -> None:
        board_id = move.board
        if seat is None:
            seat = self.game.to_move(board_id)
        frames = self.frames
        if frames is not None:
            frames.before_move()
        # A move read as plain SAN keeps its text: it is not checked or written again.
        self.game.push(seat, parsed, at=move.at, clock=move.clock, san=move.san if plain else None)
        self.replayed += 1
        board = self.game.boards[board_id]
        if len(board.move_stack) >= _STACK_KEPT:
            # Nothing here takes a move back, and the rules read the position,
            # not its history (repetitions are counted apart): a long game
            # need not keep python-chess's per-move board states.
            board.clear_stack()
        self.last_on_board[board_id] = move
        if self.track_repetition:
            self.count_position(board_id)
        if frames is not None:
            frames.played(move, seat, parsed)

    def count_position(self, board_id: BoardId) -> None:
        if not self.track_repetition:
            return
        key = self.game.boards[board_id]._transposition_key()
        seen = self.seen[board_id]
        seen[key] = seen.get(key, 0) + 1

    def repeated(self) -> BoardId | None:
        """A board whose current position has occurred three times, if any."""
        for board_id in BoardId:
            key = self.game.boards[board_id]._transposition_key()
            if self.seen[board_id].get(key, 0) >= 3:
                return board_id
        return None

    def supply_drop(self, index: int, move: BpgnMove, seat: Seat) -> bool:
        """Puts the capture that supplies ``move``'s drop (among the next few
        moves of the other board) first in the queue, then ``move``; False if
        there is none."""
        queue, window = self.queue, self.window
        board = self.game.boards[move.board]
        drop = _drop_piece(move.san)
        if drop is None or board.pockets[seat.color].count(drop):
            return False
        other = self.game.boards[move.board.other].copy(stack=False)
        if not self.game.is_live(move.board.other):
            return False
        earlier: list[int] = []
        for later in itertools.islice(queue, _LOOKAHEAD):
            candidate = window[later]
            if candidate.board is move.board:
                continue
            if (
                self.has_lower[candidate.board]
                and Seat.of(candidate.board, other.turn) is not candidate.seat
            ):
                return False
            try:
                other.push(parse_san(other, candidate.san))
            except MoveError:
                return False
            earlier.append(later)
            passed = other.last_passed
            if passed is not None and passed.color == seat.color and passed.piece_type == drop:
                supplier = window[later]
                self.notes.append(
                    Note(
                        move=move,
                        message=f"dropped before the capture that supplied it "
                        f"({supplier.label}, line {supplier.line}): played after it",
                    )
                )
                head = [queue.popleft() for _ in range(min(_LOOKAHEAD, len(queue)))]
                rest = [i for i in head if i not in earlier]
                queue.extendleft(reversed([*earlier, index, *rest]))
                return True
        return False

    def apply_board_ends(self, upto: int) -> None:
        ends = self.ends
        while ends and ends[0].after <= upto:
            end = ends.popleft()
            if end.board in self.game.board_results or self.game.outcome is not None:
                continue
            try:
                termination = Termination(end.termination)
            except ValueError:
                self.notes.append(Note(message=f"unknown board end {end.termination!r}"))
                continue
            claim = Claim(text=end.reason, termination=termination, seat=end.seat, board=end.board)
            apply_claim(self.game, claim, draw=end.result == Result.DRAW.value)


def _same(a: BpgnMove, b: BpgnMove) -> bool:
    return (a.number, a.white, a.san, a.clock_text) == (b.number, b.white, b.san, b.clock_text)


def _drop_piece(san: str) -> chess.PieceType | None:
    if "@" not in san:
        return None
    head = san.split("@", 1)[0].upper() or "P"
    try:
        return chess.Piece.from_symbol(head).piece_type
    except ValueError:
        return None


def apply_claim(game: BughouseGame, claim: Claim, *, draw: bool = False) -> None:
    """Ends ``game`` the way ``claim`` says, when the boards cannot show it."""
    kind, seat = claim.termination, claim.seat
    if game.outcome is not None:
        return
    if kind is Termination.RESIGNATION and seat is not None:
        game.resign(seat)
    elif kind is Termination.FLAG and seat is not None:
        game.flag([seat, seat.opponent] if (draw or claim.draw) else [seat])
    elif kind is Termination.ILLEGAL_MOVE and seat is not None:
        game.illegal(seat, "?", claim.text)
    elif kind is Termination.LEFT and seat is not None:
        game.leave(seat)
    elif kind is Termination.AGREEMENT:
        game.agree_draw()
    elif kind is Termination.ABORTED:
        game.abort(claim.text)


def _pick_seat(game: BughouseGame, source: BpgnGame, claim: Claim) -> Claim:
    """Resolves a claim naming a handle that sits at two seats: the one to move."""
    if claim.seat is not None or claim.termination is None:
        return claim
    text = claim.text
    who = re.match(r"^(?P<who>.+?) (?:checkmated|resigns?|forfeits|ran out|disconnected)", text)
    if who is None:
        return claim
    seats = seats_named(source, who.group("who"))
    waiting = [s for s in seats if game.to_move(s.board) is s]
    if len(waiting) == 1:
        return attrs.evolve(claim, seat=waiting[0], board=waiting[0].board)
    return claim


# -- the whole replay ------------------------------------------------------------


class GameReplay:
    """Replays one game fed part by part (``iter_game_parts``), holding only
    a window of its moves: memory is flat in the game's length (with
    ``frames``, the moves and keyframes of ``Frames``).

    Example::

        replay = GameReplay(first_part)
        replay.feed(first_part)      # then each later part of the game
        report = replay.report()     # after the last part (partial False)
    """

    def __init__(
        self,
        first: BpgnGame,
        *,
        rules: HouseRules | None = None,
        frames: bool = False,
        frame_limit: int | None = None,
        keep_played: bool = False,
    ) -> None:
        self.rules, self.notes = rules_of(first, rules)
        self.keep_played = keep_played
        self.parts = 0
        self.last = first
        self.total = 0
        self.only_a = True
        self.messages: list[BpgnMessage] = []
        self.keep_messages = frames
        self.start_error: Note | None = None
        if first.partial:
            # Repetitions are counted for a claimed draw; a long game's closing
            # comment comes last, so its tags decide.
            claim = claim_of(first)
            drawn = first.result_tag == Result.DRAW.value
            track = drawn or (claim is not None and claim.draw)
        else:
            claim = claim_of(first)
            track = claim is not None and claim.draw
        self.replayer: _Replayer | None = None
        try:
            self.replayer = _Replayer(
                first,
                self.rules,
                frames=frames,
                notes=self.notes,
                track_repetition=track,
                frame_limit=frame_limit,
            )
        except (ArbiterError, ValueError) as exc:
            self.start_error = Note(message=f"start position cannot be read: {exc}")

    def feed(self, part: BpgnGame) -> None:
        """Plays ``part`` (the next part of this game, in order)."""
        self.parts += 1
        self.last = part
        self.total += len(part.moves)
        if self.only_a:
            self.only_a = all(m.board is BoardId.A for m in part.moves)
        replayer = self.replayer
        if self.keep_messages and not (replayer and replayer.frames and replayer.frames.cut):
            self.messages.extend(part.messages)
        if replayer is None:
            return
        replayer.feed(part)
        if not self.keep_played:
            replayer.game.forget_moves()

    def report(self) -> ReplayReport:
        """The report, once the last part is fed."""
        last = self.last
        if self.parts > 1:
            source = attrs.evolve(
                last, moves=(), messages=tuple(self.messages), board_ends=(), partial=False
            )
        else:
            source = last
        claim = claim_of(source)
        notes = self.notes
        replayer = self.replayer
        if replayer is None:
            error = self.start_error
            return _report(source, self.rules, None, error, notes, claim, None, self.total)
        replayer.finish()
        game = replayer.game
        outcome = game.outcome
        if replayer.illegal is None and claim is not None and outcome is None:
            claim = _pick_seat(game, source, claim)
            apply_claim(game, claim)
            outcome = game.outcome
            repeated = replayer.repeated()
            if outcome is None and claim.draw and claim.termination is None and repeated is None:
                # "Game drawn" with no reason the boards could show: a draw by
                # agreement is a legal end, so the recorded draw stands as one.
                game.agree_draw()
                outcome = game.outcome
            if outcome is None and claim.draw and repeated is not None:
                # Files without our [Rules] tag do not say whether repetition
                # ended games; a claimed draw stands when the position repeated.
                outcome = Outcome(
                    termination=Termination.REPETITION,
                    winner=None,
                    reason=f"draw: threefold repetition on board {repeated.value} (as claimed)",
                    board=repeated,
                )
        if replayer.illegal is not None and self.total and self.only_a:
            notes.append(
                Note(message="no move on board B: this may be a crazyhouse game written as BPGN")
            )
        return _report(
            source,
            self.rules,
            game,
            replayer.illegal,
            notes,
            claim,
            outcome,
            self.total,
            played=tuple(game.moves) if self.keep_played else (),
            frames=replayer.frames if replayer.frames is not None else (),
            replayed=replayer.replayed,
        )


def replay_game(
    source: BpgnGame, *, rules: HouseRules | None = None, frames: bool = False
) -> ReplayReport:
    """Replays ``source`` (a whole game) with the rules code and compares the results."""
    replay = GameReplay(source, rules=rules, frames=frames, keep_played=True)
    replay.feed(attrs.evolve(source, partial=False) if source.partial else source)
    return replay.report()


def replay_games(
    parts: Iterable[BpgnGame],
    *,
    rules: Callable[[BpgnGame], HouseRules | None] = lambda game: None,
) -> Iterator[ReplayReport]:
    """A report per game of ``parts`` (``iter_game_parts``), one game and a
    window of its moves in memory at a time, as ``replay --check`` judges;
    ``rules`` gives a game's rules from its first part (None: its own)."""
    replay: GameReplay | None = None
    for part in parts:
        if replay is None:
            replay = GameReplay(part, rules=rules(part))
        replay.feed(part)
        if not part.partial:
            yield replay.report()
            replay = None


def _report(
    source: BpgnGame,
    rules: HouseRules,
    game: BughouseGame | None,
    illegal: Note | None,
    notes: list[Note],
    claim: Claim | None,
    outcome: Outcome | None,
    total: int,
    *,
    played: tuple[PlayedMove, ...] = (),
    frames: Sequence[Frame] = (),
    replayed: int = 0,
) -> ReplayReport:
    recorded = source.result_tag
    if recorded not in {r.value for r in Result}:
        recorded = source.result_token
    if (
        source.result_tag is not None
        and source.result_token is not None
        and source.result_tag != source.result_token
    ):
        notes.append(
            Note(
                message=f'[Result "{source.result_tag}"] but the movetext ends '
                f"{source.result_token}; the tag is taken"
            )
        )
    rejudged = outcome.result.value if outcome is not None else Result.UNFINISHED.value
    convention: str | None = None
    problems: list[str] = []
    if illegal is not None:
        problems.append(f"stopped at {illegal.located()}")
    if recorded is None:
        problems.append("no result recorded")
    elif recorded == rejudged:
        convention = "standard"
    elif outcome is not None and outcome.board is BoardId.B and recorded == _flipped(rejudged):
        convention = "per-board"
    elif (
        claim is not None
        and claim.termination is Termination.REPETITION
        and outcome is not None
        and outcome.termination is Termination.CHECKMATE
    ):
        problems.append(
            f"recorded {recorded} ({claim.text}), but the position is mate: re-judged "
            f"{rejudged} ({outcome.reason}); the writer recorded a mate as a repetition draw"
        )
    else:
        why = outcome.reason if outcome is not None else "the rules do not end the game"
        said = f" ({claim.text})" if claim is not None else ""
        problems.append(f"recorded {recorded}{said}, re-judged {rejudged} ({why})")
    agreed = outcome is not None and outcome.termination is Termination.AGREEMENT
    offers = ", ".join(o.seat.bpgn for o in source.draw_offers)
    if agreed and rules.draw == "both-teams" and len({o.seat.team for o in source.draw_offers}) < 2:
        problems.append(
            "a draw by agreement under draw=both-teams needs both teams, but "
            + (f"only {offers} agreed" if offers else "no agreement is recorded")
        )
    ok = not problems
    if ok:
        verdict = f"ok: {recorded}" + (
            " (as White of board B sees it: the FICS per-board convention)"
            if convention == "per-board"
            else ""
        )
        if agreed and offers:
            verdict += f" — draw by agreement of {offers} (draw={rules.draw}, as recorded)"
        elif agreed:
            verdict += " — draw as recorded (agreement; the rules cannot confirm it)"
        elif outcome is not None:
            verdict += f" — {outcome.reason}"
    else:
        verdict = "; ".join(problems)
    return ReplayReport(
        game=source,
        rules=rules,
        replayed=replayed,
        total=total,
        illegal=illegal,
        notes=tuple(notes),
        claim=claim,
        outcome=outcome,
        recorded=recorded,
        rejudged=rejudged,
        convention=convention,
        verdict=verdict,
        ok=ok,
        played=played,
        frames=frames,
    )


def _flipped(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
