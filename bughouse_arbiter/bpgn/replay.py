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
from collections.abc import Hashable, Mapping, Sequence

import attrs
import chess

from ..core.game import BughouseGame, PlayedMove
from ..core.model import BoardId, Outcome, Result, Seat, Termination
from ..core.rules import MAX_SECONDS, HouseRules
from ..errors import ArbiterError, MoveError
from .claims import Claim, claim_of, seats_named
from .positions import parse_san, read_move, start_fens
from .read import BpgnGame, BpgnMessage, BpgnMove

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
class Frame:
    """The table after ``ply`` moves of the replay (0 = the start)."""

    ply: int
    fens: Mapping[BoardId, str]
    pockets: Mapping[Seat, str]
    clocks: Mapping[Seat, float | None]
    at: float | None
    move: BpgnMove | None
    messages: tuple[BpgnMessage, ...]
    to_move: Mapping[BoardId, Seat]
    running: frozenset[Seat] = frozenset()
    last: Mapping[BoardId, BpgnMove] = attrs.field(factory=dict)


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
    frames: tuple[Frame, ...] = ()


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
    def __init__(
        self,
        source: BpgnGame,
        rules: HouseRules,
        *,
        frames: bool,
        notes: list[Note],
        track_repetition: bool = False,
    ) -> None:
        self.source = source
        self.rules = rules
        self.want_frames = frames
        self.notes = notes
        self.frames: list[Frame] = []
        self.illegal: Note | None = None
        self.replayed = 0
        fen_a, fen_b = start_fens(source)
        self.game = BughouseGame(rules, fen_a=fen_a, fen_b=fen_b)
        # Untimed play (clock=off) has no clock to show.
        start = rules.time if rules.clock else None
        self.clocks: dict[Seat, float | None] = dict.fromkeys(Seat, start)
        self.moved_at: dict[BoardId, float] = {BoardId.A: 0.0, BoardId.B: 0.0}
        self.last_on_board: dict[BoardId, BpgnMove] = {}
        self.ends_done = 0
        self.track_repetition = track_repetition
        self.seen: dict[BoardId, dict[Hashable, int]] = {BoardId.A: {}, BoardId.B: {}}
        for board_id in BoardId:
            self.count_position(board_id)

    def run(self) -> None:
        moves = self.source.moves
        self.has_lower = {b: any(m.board is b and not m.white for m in moves) for b in BoardId}
        self.colour_from_turn: set[BoardId] = set()
        self.snapshot(None)
        game = self.game
        board_a, board_b = game.boards[BoardId.A], game.boards[BoardId.B]
        lower_a, lower_b = self.has_lower[BoardId.A], self.has_lower[BoardId.B]
        ends = len(self.source.board_ends)
        queue = deque(range(len(moves)))
        while queue:
            index = queue.popleft()
            move = moves[index]
            if self.ends_done < ends:
                self.apply_board_ends(index)
            if game.outcome is not None:
                self.notes.append(
                    Note(
                        move=move,
                        message=f"the rules ended the match before this move "
                        f"({game.outcome.reason}): it and {len(queue)} later move(s) "
                        "not played",
                    )
                )
                return
            board_id = move.board
            if board_id in game.board_results:
                self.illegal = Note(move=move, message=f"board {board_id.value} is over")
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
                    return
            else:
                seat = move.seat
            try:
                parsed, plain = read_move(board, move.san)
            except MoveError as exc:
                if not self.supply_drop(moves, queue, index, move, seat):
                    self.illegal = Note(move=move, message=str(exc))
                    return
                continue
            self.play(move, parsed, plain=plain, seat=seat)
        self.apply_board_ends(len(moves))

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
        if self.want_frames:
            if move.clock is not None:
                self.clocks[seat] = move.clock
            if move.at is not None:
                self.moved_at[board_id] = move.at
            self.snapshot(move)

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

    def supply_drop(
        self,
        moves: Sequence[BpgnMove],
        queue: deque[int],
        index: int,
        move: BpgnMove,
        seat: Seat,
    ) -> bool:
        """Puts the capture that supplies ``move``'s drop (among the next few
        moves of the other board) first in ``queue``, then ``move``; False if
        there is none."""
        board = self.game.boards[move.board]
        drop = _drop_piece(move.san)
        if drop is None or board.pockets[seat.color].count(drop):
            return False
        other = self.game.boards[move.board.other].copy(stack=False)
        if not self.game.is_live(move.board.other):
            return False
        earlier: list[int] = []
        for later in itertools.islice(queue, _LOOKAHEAD):
            candidate = moves[later]
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
                supplier = moves[later]
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
        ends = self.source.board_ends
        while self.ends_done < len(ends) and ends[self.ends_done].after <= upto:
            end = ends[self.ends_done]
            self.ends_done += 1
            if end.board in self.game.board_results or self.game.outcome is not None:
                continue
            try:
                termination = Termination(end.termination)
            except ValueError:
                self.notes.append(Note(message=f"unknown board end {end.termination!r}"))
                continue
            claim = Claim(text=end.reason, termination=termination, seat=end.seat, board=end.board)
            apply_claim(self.game, claim, draw=end.result == Result.DRAW.value)

    def snapshot(self, move: BpgnMove | None) -> None:
        if not self.want_frames:
            return
        game = self.game
        now = move.at if move is not None else 0.0
        clocks = dict(self.clocks)
        if now is not None:
            for board_id in BoardId:
                seat = game.to_move(board_id)
                left = clocks[seat]
                if game.is_live(board_id) and left is not None:
                    clocks[seat] = left - max(0.0, now - self.moved_at[board_id])
        plies = move.index + 1 if move is not None else 0
        self.frames.append(
            Frame(
                ply=len(self.frames),
                fens={b: game.fen(b) for b in BoardId},
                pockets={s: game.boards[s.board].pocket_string(s.color) for s in Seat},
                clocks=clocks,
                at=move.at if move is not None else 0.0,
                move=move,
                messages=tuple(m for m in self.source.messages if m.after <= plies),
                to_move={b: game.to_move(b) for b in BoardId},
                running=frozenset(game.seats_to_move()),
                last=dict(self.last_on_board),
            )
        )


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


def replay_game(
    source: BpgnGame, *, rules: HouseRules | None = None, frames: bool = False
) -> ReplayReport:
    """Replays ``source`` with the rules code and compares the results."""
    used, notes = rules_of(source, rules)
    claim = claim_of(source)
    try:
        replayer = _Replayer(
            source,
            used,
            frames=frames,
            notes=notes,
            track_repetition=claim is not None and claim.draw,
        )
    except (ArbiterError, ValueError) as exc:
        note = Note(message=f"start position cannot be read: {exc}")
        return _report(source, used, None, note, notes, claim, None, (), 0)
    replayer.run()
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
    if (
        replayer.illegal is not None
        and source.moves
        and all(m.board is BoardId.A for m in source.moves)
    ):
        notes.append(
            Note(message="no move on board B: this may be a crazyhouse game written as BPGN")
        )
    return _report(
        source,
        used,
        game,
        replayer.illegal,
        notes,
        claim,
        outcome,
        tuple(replayer.frames),
        replayer.replayed,
    )


def _report(
    source: BpgnGame,
    rules: HouseRules,
    game: BughouseGame | None,
    illegal: Note | None,
    notes: list[Note],
    claim: Claim | None,
    outcome: Outcome | None,
    frames: tuple[Frame, ...],
    replayed: int,
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
        total=len(source.moves),
        illegal=illegal,
        notes=tuple(notes),
        claim=claim,
        outcome=outcome,
        recorded=recorded,
        rejudged=rejudged,
        convention=convention,
        verdict=verdict,
        ok=ok,
        played=tuple(game.moves) if game is not None else (),
        frames=frames,
    )


def _flipped(result: str) -> str:
    return {"1-0": "0-1", "0-1": "1-0"}.get(result, result)
