"""The BUG/1 loop (protocol.md): a reader thread, a controller, a search thread.

The reader thread turns stdin lines into inbox items. The controller (the
main thread) owns all state and is the only one that reads the inbox: it
answers ``isready`` at once, keeps both boards current from ``state`` and
``event``, and starts one search thread per decision. A search reports back
through the inbox; a newer event (a piece arriving on this board) stops it and
starts a fresh one. Sitting ends on an event, a ``go`` from the partner, or the
clock floor (a ``queue.get`` timeout, no polling).

House rules come from the ``rules`` line: the boards follow the ones that
change legality (``BugRules``), ``state`` may name dropped pawns that may not
double-step (``nodouble``), ``go`` may carry the turn's time ``limit`` (never
think or sit past it), and a ``boardover`` for the other board means no piece
will arrive any more (no sitting, and a blockable check is mate).
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import chess

from .partner import PartnerWishes
from .plan import SEAT_INDEX, Decision, Table, decide, think_seconds
from .position import DEFAULT_RULES, BugBoard, BugRules, parse_move, piece_of_letter

NAME = "Searcher 1.0"
AUTHOR = "The bughouse-arbiter authors"
# A turn restarts its search at most this often because of arriving pieces.
_MAX_RESTARTS = 4
# Untimed play: the clocks the plan pretends every seat has (so it never panics).
_UNTIMED_MS = 600_000
# Share of a turn's time limit the engine may think, and may sit, before moving.
_LIMIT_THINK = 0.3
_LIMIT_SIT = 0.6


@dataclass
class _Go:
    token: int
    started: float
    movetime: int | None = None
    depth: int = 64
    nodes: int | None = None
    restarts: int = 0
    waiting: bool = False
    wait_sent: bool = False
    sit_until: float | None = None  # monotonic instant to stop sitting
    limit_ms: int | None = None  # the turn's time limit, counted from ``started``
    partner_moves: int = 0  # moves the partner made during this turn (untimed play)


class Engine:
    """The controller: every protocol command goes through ``handle``."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.inbox: queue.Queue[tuple[str, object]] = queue.Queue()
        self.board_letter = "a"
        self.color = chess.WHITE
        self.in_game = False
        self.boards = {"a": BugBoard(), "b": BugBoard()}
        self.clocks = (180_000, 180_000, 180_000, 180_000)
        self.clocks_at = time.monotonic()
        self.base_ms = 180_000
        self.increment_ms = 0
        self.wishes = PartnerWishes()
        self.partner_reads = True
        self.turn: _Go | None = None
        self.search_id = 0
        self.stop_flag = threading.Event()
        self.searching = False
        self.standing_tells: set[str] = set()
        self.running = True
        self.seed: int | None = None
        self.rules = DEFAULT_RULES
        # Untimed play (newgame time 0): the stalling rule instead of clocks.
        self.untimed = False
        self.stalling = 3

    # -- main loop ------------------------------------------------------------

    def run(self, lines: TextIO) -> None:
        """Reads ``lines`` in a thread and serves commands until ``quit`` or EOF."""
        reader = threading.Thread(target=self._read, args=(lines,), daemon=True)
        reader.start()
        while self.running:
            timeout = None
            if self.turn is not None and self.turn.sit_until is not None:
                timeout = max(0.0, self.turn.sit_until - time.monotonic())
            try:
                kind, payload = self.inbox.get(timeout=timeout)
            except queue.Empty:
                self._sitting_over()
                continue
            if kind == "line":
                assert isinstance(payload, str)
                try:
                    self.handle(payload)
                except Exception as exc:  # one bad line must never end the engine
                    self.write(f"info string could not handle {payload[:80]!r}: {exc}")
            elif kind == "decision":
                assert isinstance(payload, tuple)
                self.on_decision(*payload)
            elif kind == "eof":
                self.running = False
        self.stop_flag.set()

    def _read(self, lines: TextIO) -> None:
        try:
            for line in lines:
                self.inbox.put(("line", line))
        finally:  # a broken input ends the engine like EOF, never leaves it hanging
            self.inbox.put(("eof", None))

    # -- commands -------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Acts on one line from the arbiter; unknown or malformed lines are ignored."""
        tokens = line.split()
        if not tokens:
            return
        command, args = tokens[0], tokens[1:]
        handler = getattr(self, f"_on_{command}", None)
        if handler is not None:
            handler(args)

    def _on_bug(self, args: list[str]) -> None:
        self.write(f"id name {NAME}")
        self.write(f"id author {AUTHOR}")
        self.write("option name Seed type spin default 0 min 0 max 2147483647")
        self.write("bugok")

    def _on_setoption(self, args: list[str]) -> None:
        # setoption name <id> [value <x>]; the only option is Seed (0 = no shuffling).
        text = " ".join(args)
        name, _, value = text.removeprefix("name ").partition(" value ")
        if name.strip().lower() == "seed":
            self.seed = int(value) or None

    def _on_isready(self, args: list[str]) -> None:
        self.write("readyok")

    def _on_quit(self, args: list[str]) -> None:
        self.running = False

    def _on_newgame(self, args: list[str]) -> None:
        fields = _pairs(args)
        seat = fields.get("seat", "a-white").lower()
        letter, _, colour = seat.partition("-")
        if letter not in ("a", "b") or colour not in ("white", "black"):
            raise ValueError(f"bad seat {seat!r}")
        self._abandon_turn()
        self.board_letter = letter
        self.color = colour == "white"
        self.base_ms = int(fields.get("time", "180000"))
        self.untimed = self.base_ms == 0
        if self.untimed:
            self.base_ms = _UNTIMED_MS
        self.increment_ms = int(fields.get("inc", "0"))
        self.rules = DEFAULT_RULES
        self.boards = {"a": self._board(), "b": self._board()}
        self.clocks = (self.base_ms,) * 4
        self.clocks_at = time.monotonic()
        self.wishes = PartnerWishes()
        self.standing_tells = set()
        self.in_game = True

    def _on_player(self, args: list[str]) -> None:
        if len(args) >= 2 and args[0].lower() == self._partner_seat():
            self.partner_reads = args[1] in ("engine", "human")

    def _on_rules(self, args: list[str]) -> None:
        pairs = dict(arg.partition("=")[::2] for arg in args)
        self.rules = BugRules.from_pairs(pairs)
        self.untimed = self.untimed or pairs.get("clock") == "off"
        stalling = pairs.get("stalling", "3")
        self.stalling = int(stalling) if stalling.isdigit() else 3
        for board in self.boards.values():
            board.rules = self.rules

    def _on_state(self, args: list[str]) -> None:
        # state v <v> a <6 fen tokens> b <6 fen tokens> clock <4 ms> [nodouble <a> <b>]
        if len(args) < 20 or args[2] != "a" or args[9] != "b" or args[16] != "clock":
            raise ValueError("malformed state")
        boards = {"a": self._board(" ".join(args[3:9])), "b": self._board(" ".join(args[10:16]))}
        extra = args[21:]
        if "nodouble" in extra:
            index = extra.index("nodouble")
            for letter, squares in zip("ab", extra[index + 1 : index + 3], strict=False):
                boards[letter].no_double = _squares(squares)
        changed = boards[self.board_letter].key() != self.boards[self.board_letter].key()
        self.boards = boards
        self._set_clocks(args[17:21])
        if changed:
            self._position_changed()

    def _on_event(self, args: list[str]) -> None:
        fields = _pairs(args)
        letter = fields["board"].lower()
        board = self.boards[letter]
        board.push(parse_move(board, fields["move"]))
        board.clear_stack()
        if "pass" in fields:
            piece = piece_of_letter(fields["pass"])
            other = "b" if letter == "a" else "a"
            self.boards[other].pockets[piece.color].add(piece.piece_type)
        if "clock" in fields:
            index = args.index("clock")
            self._set_clocks(args[index + 1 : index + 5])
        if letter == self.board_letter or "pass" in fields:
            self._position_changed()
        if letter != self.board_letter and board.turn == self.color:
            self._stall_check()  # the partner (the other colour there) just moved

    def _on_go(self, args: list[str]) -> None:
        fields = _pairs(args)
        # A re-opened turn (a piece reached us while we sat) keeps the stalling count.
        carried = self.turn.partner_moves if self.turn is not None else 0
        self._abandon_turn()
        self.turn = _Go(
            token=int(fields["turn"]),
            started=time.monotonic(),
            movetime=int(fields["movetime"]) if "movetime" in fields else None,
            depth=int(fields["depth"]) if "depth" in fields else 64,
            nodes=int(fields["nodes"]) if "nodes" in fields else None,
            limit_ms=int(fields["limit"]) if "limit" in fields else None,
            partner_moves=carried,
        )
        if "board" in fields and fields["board"].lower() in ("a", "b"):
            self.board_letter = fields["board"].lower()
        self._start_search(may_sit=True)

    def _on_illegal(self, args: list[str]) -> None:
        fields = _pairs(args)
        if self.turn is not None and fields.get("turn") == str(self.turn.token):
            self._start_search(may_sit=False)
        elif "turn" in fields:
            self.turn = _Go(token=int(fields["turn"]), started=time.monotonic())
            self._start_search(may_sit=False)

    def _on_ptell(self, args: list[str]) -> None:
        self.wishes.hear(" ".join(args))
        go_now, self.wishes.go_now = self.wishes.go_now, False
        turn = self.turn
        if turn is not None and turn.waiting and go_now:
            self._start_search(may_sit=False)

    def _on_stop(self, args: list[str]) -> None:
        self._abandon_turn()

    def _on_gameover(self, args: list[str]) -> None:
        self._abandon_turn()
        self.in_game = False

    def _on_boardover(self, args: list[str]) -> None:
        fields = _pairs(args)
        if fields.get("board", "").lower() == self.board_letter:
            self._abandon_turn()
        elif fields.get("board", "").lower() in ("a", "b"):
            # board_end=continue: nothing can arrive from there any more.
            self.rules = BugRules(**{**vars(self.rules), "arrivals": False})
            for board in self.boards.values():
                board.rules = self.rules

    # -- turns ----------------------------------------------------------------

    def _abandon_turn(self) -> None:
        self.turn = None
        self.stop_flag.set()
        self.search_id += 1

    def _position_changed(self) -> None:
        turn = self.turn
        if turn is None:
            return
        if turn.waiting:
            self._start_search(may_sit=True)
        elif self.searching and turn.restarts < _MAX_RESTARTS:
            turn.restarts += 1
            self._start_search(may_sit=True)

    def _stall_check(self) -> None:
        """Untimed play: move at once one partner move before the stalling rule bites."""
        turn = self.turn
        if not self.untimed or turn is None or not self.stalling:
            return
        turn.partner_moves += 1
        if turn.partner_moves < self.stalling - 1:
            return
        turn.sit_until = None
        turn.movetime = 1  # whatever the search has at once
        if turn.waiting or self.searching:
            self._start_search(may_sit=False)

    def _sitting_over(self) -> None:
        turn = self.turn
        if turn is not None and turn.waiting:
            turn.sit_until = None
            self._start_search(may_sit=False)

    def _start_search(self, *, may_sit: bool) -> None:
        turn = self.turn
        if turn is None:
            return
        self.stop_flag.set()
        self.search_id += 1
        search_id = self.search_id
        stop_flag = threading.Event()
        self.stop_flag = stop_flag
        table = self._table()
        seconds = think_seconds(table, self.wishes, turn.movetime)
        if turn.restarts and turn.movetime is None:
            spent = time.monotonic() - turn.started
            seconds = max(seconds - spent, seconds * 0.3)
        left = self._turn_left(turn)
        if left is not None:
            seconds = max(0.01, min(seconds, left * _LIMIT_THINK))
            may_sit = may_sit and left > 0.5
        if not self.rules.arrivals:
            may_sit = False  # nothing will come: sitting only loses time
        if self.untimed and self.stalling and turn.partner_moves >= self.stalling - 2:
            may_sit = False  # the partner's next move would leave no time to move
        wishes = PartnerWishes(**vars(self.wishes))
        wishes.wants = dict(self.wishes.wants)
        wishes.nogive = dict(self.wishes.nogive)
        self.searching = True
        seed = self.seed

        def work() -> None:
            try:
                decision = decide(
                    table,
                    wishes,
                    seconds=seconds,
                    may_sit=may_sit,
                    depth=turn.depth,
                    nodes=turn.nodes,
                    stop=stop_flag.is_set,
                    seed=None if seed is None else seed + turn.token,
                )
            except Exception as exc:  # fall back to any legal move
                moves = list(table.mine.generate_legal_moves())
                decision = Decision(moves[0] if moves else None, reason=f"search failed: {exc}")
            self.inbox.put(("decision", (search_id, decision)))

        threading.Thread(target=work, daemon=True).start()

    def on_decision(self, search_id: int, decision: Decision) -> None:
        if search_id != self.search_id:
            return
        self.searching = False
        turn = self.turn
        if turn is None:
            return
        if decision.info:
            self.write(f"info {decision.info}")
        self.tell_partner(decision.tells)
        if decision.move is not None and not self.boards[self.board_letter].is_legal(decision.move):
            # Decided on a position that has changed since (a re-sync): think again.
            self._start_search(may_sit=False)
            return
        if decision.move is not None:
            if decision.reason == "partner's move":
                self.wishes.suggested = None
            self.write(f"bestmove {decision.move.uci()} turn {turn.token}")
            self.turn = None
            return
        turn.waiting = True
        if not turn.wait_sent:
            reason = f" reason {decision.reason}" if decision.reason else ""
            self.write(f"wait turn {turn.token}{reason}")
            turn.wait_sent = True
        if not decision.sit_floor_ms:
            turn.sit_until = None  # no legal move: nothing to do but wait for an event
            return
        my_ms = self._table().my_ms
        if my_ms > decision.sit_floor_ms:
            turn.sit_until = time.monotonic() + (my_ms - decision.sit_floor_ms) / 1000
            if turn.limit_ms is not None:
                limit_end = turn.started + turn.limit_ms * _LIMIT_SIT / 1000
                turn.sit_until = min(turn.sit_until, limit_end)
        else:
            # The clock passed the floor while deciding: move now.
            turn.sit_until = None
            self._start_search(may_sit=False)

    def tell_partner(self, tells: list[str]) -> None:
        """Sends what is new; a request that no longer holds is cancelled with ``x``."""
        fresh = set(tells)
        standing = self.standing_tells
        self.standing_tells = fresh
        if not self.partner_reads:
            return
        if standing - fresh - {"dead"}:
            # "x" clears every request at the partner's end: repeat those still true.
            self.write("ptell x")
            standing = set()
        for text in tells:
            if text not in standing:
                self.write(f"ptell {text}")

    # -- helpers --------------------------------------------------------------

    def _board(self, fen: str | None = BugBoard.starting_fen) -> BugBoard:
        board = BugBoard(fen)
        board.rules = self.rules
        return board

    @staticmethod
    def _turn_left(turn: _Go) -> float | None:
        """Seconds left of the turn's time limit (None without one)."""
        if turn.limit_ms is None:
            return None
        return turn.limit_ms / 1000 - (time.monotonic() - turn.started)

    def _partner_seat(self) -> str:
        other = "b" if self.board_letter == "a" else "a"
        return f"{other}-{'black' if self.color else 'white'}"

    def _set_clocks(self, values: list[str]) -> None:
        if self.untimed:
            return  # no clocks: plan as if every seat had the same ample time
        numbers = tuple(int(value) for value in values[:4])
        if len(numbers) == 4:
            self.clocks = (numbers[0], numbers[1], numbers[2], numbers[3])
            self.clocks_at = time.monotonic()

    def _table(self) -> Table:
        """A snapshot for a decision; the clock of the side to move on each board runs."""
        elapsed = 0 if self.untimed else int((time.monotonic() - self.clocks_at) * 1000)
        clocks = list(self.clocks)
        for letter, board in self.boards.items():
            index = SEAT_INDEX[(letter, board.turn)]
            clocks[index] = max(0, clocks[index] - elapsed)
        other = "b" if self.board_letter == "a" else "a"
        return Table(
            board=self.board_letter,
            color=self.color,
            mine=self.boards[self.board_letter].copy(stack=False),
            other=self.boards[other].copy(stack=False),
            clocks=(clocks[0], clocks[1], clocks[2], clocks[3]),
            increment_ms=self.increment_ms,
            base_ms=self.base_ms,
        )


def _squares(text: str) -> chess.Bitboard:
    """``e2,g7`` (or ``-``) as a bitboard; unknown names are skipped."""
    mask = chess.BB_EMPTY
    for name in text.split(","):
        if name in chess.SQUARE_NAMES:
            mask |= chess.BB_SQUARES[chess.parse_square(name)]
    return mask


def _pairs(args: list[str]) -> dict[str, str]:
    """``key value`` tokens as a dict (the first value of a repeated key wins)."""
    fields: dict[str, str] = {}
    for key, value in zip(args[::2], args[1::2], strict=False):
        fields.setdefault(key, value)
    return fields


def main() -> int:
    """Runs the engine on stdin/stdout."""
    lock = threading.Lock()

    def write(line: str) -> None:
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    # Bad bytes on the input become U+FFFD (the line is then ignored), never an error.
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    engine = Engine(write)
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        engine.run(sys.stdin)
    return 0
