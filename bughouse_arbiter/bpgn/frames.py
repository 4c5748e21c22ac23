"""The frames of a replay: the table after each ply, kept small.

``Frames`` is what ``replay_game(..., frames=True)`` gives: a sequence with
one ``Frame`` per ply (0 = the start). It does not hold a frame per ply: it
keeps every move, packed (``MoveList``: the file's move without its comments
and commands, about 80 bytes; the seat that played it; the move played, in
an int) and, every ``every`` plies, a keyframe (both boards, the clocks,
each board's last move). A frame is rebuilt on demand
from the keyframe before it by playing the moves between; walking forward
(iteration, or the next ply after the one last asked for) plays one move a
frame. Memory is the moves plus one keyframe per ``every`` plies.

``limit`` keeps only the first ``limit`` plies (``cut`` counts the rest):
for a page that cannot show a whole huge game.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import overload

import attrs
import chess

from ..core.board import BughouseBoard
from ..core.game import BughouseGame
from ..core.model import BoardId, Seat
from .read import BpgnMessage, BpgnMove

#: Plies between keyframes: a frame costs at most this many moves to rebuild.
KEYFRAME_EVERY = 256


@attrs.frozen(kw_only=True)
class Frame:
    """The table after ``ply`` moves of the replay (0 = the start).
    ``marks`` is each board's last move as played (the squares to highlight)."""

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
    marks: Mapping[BoardId, chess.Move] = attrs.field(factory=dict)


@attrs.define
class _State:
    """What a frame is made from, at ``ply``: the boards and what the moves set."""

    ply: int
    boards: dict[BoardId, BughouseBoard]
    clocks: dict[Seat, float | None]
    moved_at: dict[BoardId, float]
    last: dict[BoardId, int]  # the ply of each board's last move
    marks: dict[BoardId, chess.Move]

    def copy(self) -> _State:
        boards = {board_id: _copy(board) for board_id, board in self.boards.items()}
        clocks, moved_at = dict(self.clocks), dict(self.moved_at)
        return _State(self.ply, boards, clocks, moved_at, dict(self.last), dict(self.marks))


def _copy(board: BughouseBoard) -> BughouseBoard:
    copied = board.copy(stack=False)
    copied._seen = {}  # repetition counts: a frame never judges
    return copied


_SEATS = tuple(Seat)
_SEAT_NUMBER = {seat: number for number, seat in enumerate(_SEATS)}


class Frames(Sequence[Frame]):
    """One frame per ply, rebuilt from keyframes (see the module's doc)."""

    def __init__(
        self, game: BughouseGame, start_clock: float | None, *, every: int = KEYFRAME_EVERY,
        limit: int | None = None,
    ) -> None:
        self.every = max(1, every)
        self.limit = limit
        #: Plies replayed but not kept (beyond ``limit``).
        self.cut = 0
        self._game = game
        self.moves = MoveList()  # ply p's move is moves[p - 1]
        self._seats = bytearray()
        self._played = array("l")
        self._messages: list[BpgnMessage] = []
        self._afters: list[int] = []
        # (ply, boards that had ended before that ply's move): passes skip them.
        self._ended: list[tuple[int, frozenset[BoardId]]] = [(0, frozenset())]
        # (ply, boards live in its frame), from that ply on.
        self._live: list[tuple[int, tuple[bool, bool]]] = []
        self._state = _State(
            0,
            dict(game.boards),
            dict.fromkeys(Seat, start_clock),
            {BoardId.A: 0.0, BoardId.B: 0.0},
            {},
            {},
        )
        self._keyframes: list[_State] = []
        self._cursor: _State | None = None
        self._snapshot()

    # -- recording (the replay calls these) ---------------------------------------

    def add_messages(self, messages: Sequence[BpgnMessage]) -> None:
        if self.cut:
            return  # past ``limit``: no frame shows them
        self._messages.extend(messages)
        self._afters.extend(m.after for m in messages)

    def before_move(self) -> None:
        """Called before each move is pushed: which boards have ended."""
        ended = self._game.board_results
        if len(ended) != len(self._ended[-1][1]):  # boards only ever end
            self._ended.append((len(self.moves) + 1, frozenset(ended)))

    def played(self, move: BpgnMove, seat: Seat, played: chess.Move) -> None:
        """Records ``move`` (just pushed on the game, for ``seat``)."""
        if self.limit is not None and len(self.moves) >= self.limit:
            self.cut += 1
            return
        self.moves.append(move)
        self._seats.append(_SEAT_NUMBER[seat])
        self._played.append(_pack(played))
        state = self._state
        state.ply += 1
        _apply(state, move, seat, played)
        self._snapshot()

    def _snapshot(self) -> None:
        game = self._game
        ply = len(self.moves)
        live = (game.is_live(BoardId.A), game.is_live(BoardId.B))
        if not self._live or self._live[-1][1] != live:
            self._live.append((ply, live))
        if ply % self.every == 0:
            state = self._state
            state.boards = dict(game.boards)
            self._keyframes.append(state.copy())

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.moves) + 1

    @overload
    def __getitem__(self, index: int) -> Frame: ...

    @overload
    def __getitem__(self, index: slice) -> list[Frame]: ...

    def __getitem__(self, index: int | slice) -> Frame | list[Frame]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("frame index out of range")
        cursor = self._cursor
        if cursor is None or not cursor.ply <= index < cursor.ply + self.every:
            cursor = self._keyframes[index // self.every].copy()
        self._forward(cursor, index)
        self._cursor = cursor
        return self._frame(cursor)

    def __iter__(self) -> Iterator[Frame]:
        state = self._keyframes[0].copy()
        for ply in range(len(self)):
            self._forward(state, ply)
            yield self._frame(state)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def _forward(self, state: _State, ply: int) -> None:
        while state.ply < ply:
            state.ply += 1
            at = state.ply
            move = self.moves[at - 1]
            played = _unpack(self._played[at - 1])
            board = state.boards[move.board]
            board.push(played)
            passed = board.last_passed
            if passed is not None and move.board.other not in self._ended_at(at):
                state.boards[move.board.other].receive(passed)
            _apply(state, move, _SEATS[self._seats[at - 1]], played)

    def _ended_at(self, ply: int) -> frozenset[BoardId]:
        changes = self._ended
        index = bisect.bisect_right(changes, ply, key=lambda change: change[0]) - 1
        return changes[index][1]

    def _live_at(self, ply: int) -> tuple[bool, bool]:
        changes = self._live
        index = bisect.bisect_right(changes, ply, key=lambda change: change[0]) - 1
        return changes[index][1]

    def _frame(self, state: _State) -> Frame:
        ply = state.ply
        moves = self.moves
        move = moves[ply - 1] if ply else None
        boards = state.boards
        live = self._live_at(ply)
        to_move = {b: Seat.of(b, boards[b].turn) for b in BoardId}
        running = frozenset(to_move[b] for b, on in zip(BoardId, live, strict=True) if on)
        now = move.at if move is not None else 0.0
        clocks = dict(state.clocks)
        if now is not None:
            for board_id, is_live in zip(BoardId, live, strict=True):
                seat = to_move[board_id]
                left = clocks[seat]
                if is_live and left is not None:
                    clocks[seat] = left - max(0.0, now - state.moved_at[board_id])
        plies = move.index + 1 if move is not None else 0
        said = bisect.bisect_right(self._afters, plies)
        return Frame(
            ply=ply,
            fens={b: boards[b].fen() for b in BoardId},
            pockets={s: boards[s.board].pocket_string(s.color) for s in Seat},
            clocks=clocks,
            at=now,
            move=move,
            messages=tuple(self._messages[:said]),
            to_move=to_move,
            running=running,
            last={board_id: moves[at - 1] for board_id, at in state.last.items()},
            marks=dict(state.marks),
        )


class MoveList(Sequence[BpgnMove]):
    """``BpgnMove`` values stored packed: numbers in arrays, texts once each.
    A move read back has no ``commands`` or ``comments`` (no frame shows them)."""

    def __init__(self) -> None:
        self._numbers = array("q")  # index, number, line, column
        self._times = array("d")  # clock, at; NaN for None
        self._texts = array("l")  # san, written, clock_text; -1 for None
        self._white = bytearray()
        self._boards = bytearray()
        self._words: list[str] = []
        self._word_ids: dict[str, int] = {}

    def append(self, move: BpgnMove) -> None:
        self._numbers.extend((move.index, move.number, move.line, move.column))
        self._times.append(_NAN if move.clock is None else move.clock)
        self._times.append(_NAN if move.at is None else move.at)
        self._texts.extend((self._id(move.san), self._id(move.written), self._id(move.clock_text)))
        self._white.append(move.white)
        self._boards.append(move.board is BoardId.B)

    def _id(self, text: str | None) -> int:
        if text is None:
            return -1
        known = self._word_ids.get(text)
        if known is None:
            known = self._word_ids[text] = len(self._words)
            self._words.append(text)
        return known

    def __len__(self) -> int:
        return len(self._white)

    @overload
    def __getitem__(self, index: int) -> BpgnMove: ...

    @overload
    def __getitem__(self, index: slice) -> list[BpgnMove]: ...

    def __getitem__(self, index: int | slice) -> BpgnMove | list[BpgnMove]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("move index out of range")
        number_at, time_at, text_at = 4 * index, 2 * index, 3 * index
        numbers, times, texts, words = self._numbers, self._times, self._texts, self._words
        clock, at = times[time_at], times[time_at + 1]
        clock_id = texts[text_at + 2]
        return BpgnMove(
            index=numbers[number_at],
            number=numbers[number_at + 1],
            board=BoardId.B if self._boards[index] else BoardId.A,
            white=bool(self._white[index]),
            san=words[texts[text_at]],
            written=words[texts[text_at + 1]],
            line=numbers[number_at + 2],
            column=numbers[number_at + 3],
            clock=None if math.isnan(clock) else clock,
            clock_text=None if clock_id < 0 else words[clock_id],
            at=None if math.isnan(at) else at,
        )


_NAN = math.nan


def _apply(state: _State, move: BpgnMove, seat: Seat, played: chess.Move) -> None:
    """What ``move`` (at ``state.ply``) sets: the mover's clock, the board's time, its last move."""
    if move.clock is not None:
        state.clocks[seat] = move.clock
    if move.at is not None:
        state.moved_at[move.board] = move.at
    state.last[move.board] = state.ply
    state.marks[move.board] = played


def _pack(move: chess.Move) -> int:
    return (
        move.from_square
        | move.to_square << 6
        | (move.promotion or 0) << 12
        | (move.drop or 0) << 15
    )


def _unpack(packed: int) -> chess.Move:
    return chess.Move(
        packed & 63,
        packed >> 6 & 63,
        promotion=(packed >> 12 & 7) or None,
        drop=(packed >> 15 & 7) or None,
    )
