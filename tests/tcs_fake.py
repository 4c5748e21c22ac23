"""A fake tinyChessServer-dialect engine with the habits of LazyBug, TandemTurtle
and BughouseAlphaZero, in memory (``TcsLike``) or as a program.

Written from the engines' sources (``TimSchneider42/lazybug``
``game_view_cecp.py``, ``BluemlJ/TandemTurtle`` ``util/xboardInterface.py``,
``MbProg/BughouseAlphaZero`` ``WebSocketGameClient.py``). Every trap they
have is here, so that a line the adapter should not send shows:

- LazyBug's feature line, commas and all: ``feature san=1, time=1,
  variants="bughouse", otherboard=1, colors=1, time=1, done=1, myname="X"``;
- **dies silently** (LazyBug's reading thread): on an empty line, or on
  ``time``/``otim`` once the game has begun; the process lives on and says
  nothing more (``dead``);
- **crashes** (exit 4, TandemTurtle) on any line that contains "move" and is
  not ``move <uci>`` / ``pmove <uci>`` / ``Illegal move...``;
- **crashes** (exit 3, TandemTurtle and BughouseAlphaZero) on a move sent to
  it that is not legal on its board, or on the other board;
- learns its seat **only from** ``partner P`` (BughouseAlphaZero) and crashes
  (exit 5) when ``go``/``playother`` says another colour;
- reads pockets only from ``holding``/``pholding`` in lower case (exit 6 on
  anything else); never says SAN;
- ignores result lines and moves on whenever it thinks it is its turn
  (LazyBug moved after a time forfeit);
- ``sit``: on its first turn of a game it sits ``sit`` seconds, saying
  ``tellics ptell sitting (...)`` once a second, as LazyBug's MCTS does;
- ``stubborn``: ignores ``quit`` and keeps running after its input closed
  (LazyBug and TandemTurtle), with a helper process in its group.

Its move: a mate in one, else a capture, else any legal move (seeded).

Run as a program: ``python tests/tcs_fake.py [--name X] [--sit S]
[--stubborn] [--delay S] [--no-otherboard] [--trace FILE] [--ws URL [--reconnect]]``
(``--trace``: every line it hears, with its pid, appended to FILE); with
``--ws`` it is a WebSocket client of URL (one message a line), and with
``--reconnect`` it closes the connection after each game and opens a new
one, as TandemTurtle does when it restarts itself.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import select
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit

import chess
import chess.variant

#: tinyChessServer's places by partner number: partner P -> (board, colour).
SEAT_OF_PARTNER = {1: ("A", chess.WHITE), 0: ("B", chess.BLACK), 3: ("A", chess.BLACK),
                   2: ("B", chess.WHITE)}
_POCKETS = re.compile(r"^\[([a-z]*)\] \[([a-z]*)\]$")
_RESULT = re.compile(r"^p?(1-0|0-1|1/2-1/2|\*) \{")



def choose_move(board: chess.Board, rng: random.Random) -> chess.Move | None:
    """A mate in one, else a capture, else any legal move (``rng``'s pick); None: no move."""
    moves = sorted(board.legal_moves, key=lambda m: m.uci())
    if not moves:
        return None
    for move in moves:
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return move
    captures = [m for m in moves if board.is_capture(m)]
    return rng.choice(captures or moves)

class Crashed(Exception):
    """The engine would have crashed; ``status`` is its exit status."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


class TcsLike:
    """The engine's state: ``handle(line)`` and ``tick(now)``; lines it says go to ``out``."""

    def __init__(self, *, name: str = "TcsFake", sit: float = 0.0, otherboard: bool = True,
                 delay: float = 0.0, seed: int = 1) -> None:
        self.name = name
        self.sit = sit
        self.otherboard = otherboard
        self.delay = delay
        self.random = random.Random(seed)
        self.out: list[str] = []
        self.dead = False
        self.quit = False
        self.heard: list[str] = []
        self.games_ended = 0
        self._reset()

    def _reset(self) -> None:
        self.boards = {"A": chess.variant.CrazyhouseBoard(), "B": chess.variant.CrazyhouseBoard()}
        self.board_name: str | None = None
        self.colour: chess.Color | None = None
        self.started = False
        self.sat = False
        self.sit_until: float | None = None
        self.next_tell = 0.0
        self.move_at: float | None = None
        #: On the move with nothing legal: waits for a line.
        self.stuck = False

    @property
    def board(self) -> chess.variant.CrazyhouseBoard:
        assert self.board_name is not None
        return self.boards[self.board_name]

    @property
    def other(self) -> chess.variant.CrazyhouseBoard:
        return self.boards["B" if self.board_name == "A" else "A"]

    # -- lines in ---------------------------------------------------------------------

    def handle(self, line: str) -> None:
        if self.dead:
            return
        self.heard.append(line)
        if self.stuck:
            self.stuck, self.move_at = False, None  # a piece may have come
        if not line.strip():
            self.dead = True  # LazyBug: "cmd, *params = ''.split()" kills its thread
            return
        cmd, *params = line.split()
        if "move" in line and cmd not in ("move", "pmove") and not line.startswith("Illegal"):
            raise Crashed(4, f"took {line!r} for a move")
        if cmd in ("xboard", "accepted", "variant", "otim") or cmd.startswith("#"):
            if cmd == "otim" and self.started:
                self.dead = True
            return
        if cmd == "protover":
            self.say(f'feature san=1, time=1, variants="bughouse", otherboard='
                     f'{int(self.otherboard)}, colors=1, time=1, done=1, myname="{self.name}"')
        elif cmd == "new":
            self._reset()
        elif cmd == "partner":
            self.board_name, self.colour = SEAT_OF_PARTNER[int(params[0])]
        elif cmd == "time":
            if self.started:
                self.dead = True  # LazyBug: the clock's limit cannot change once started
        elif cmd in ("go", "playother"):
            wanted = chess.WHITE if cmd == "go" else chess.BLACK
            if self.colour != wanted:
                raise Crashed(5, f"{cmd} does not fit the seat its partner number gives")
            self.started = True
        elif cmd in ("move", "pmove"):
            self._their_move(cmd == "move", params[0] if params else "")
        elif cmd in ("holding", "pholding"):
            self._pockets(cmd == "holding", " ".join(params))
        elif cmd == "ptell":
            pass  # heard
        elif cmd == "quit":
            self.quit = True
        elif _RESULT.match(line):
            if self.started:
                self.games_ended += 1  # and it plays on, as LazyBug does
        elif cmd != "Illegal":
            self.say(f"Error (unknown command): {cmd}")

    def _their_move(self, own: bool, text: str) -> None:
        if self.board_name is None:
            raise Crashed(3, "a move before it knows its seat")
        board = self.board if own else self.other
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise Crashed(3, f"unreadable move {text!r}") from None
        if own and board.turn == self.colour:
            raise Crashed(3, f"the opponent's move {text} when it is on the move itself")
        if not board.is_legal(move):
            raise Crashed(3, f"illegal move sent to it: {text} on {board.fen()}")
        push(board, move)

    def _pockets(self, own: bool, text: str) -> None:
        found = _POCKETS.match(text)
        if found is None or self.board_name is None:
            raise Crashed(6, f"pockets it cannot read: {text!r}")
        board = self.board if own else self.other
        for colour, letters in zip((chess.WHITE, chess.BLACK), found.groups(), strict=True):
            board.pockets[colour] = chess.variant.CrazyhousePocket(letters)

    # -- its own turn ------------------------------------------------------------------

    def my_turn(self) -> bool:
        return (self.started and not self.dead and self.board_name is not None
                and self.board.turn == self.colour)

    def tick(self, now: float) -> None:
        """Moves, or sits, when it is on the move (``now``: seconds, any origin)."""
        if not self.my_turn():
            self.move_at = None
            return
        if self.sit and not self.sat:
            if self.sit_until is None:
                self.sit_until, self.next_tell = now + self.sit, now
            if now < self.sit_until:
                if now >= self.next_tell:
                    self.say("tellics ptell sitting (best move on other board is e2e4, which "
                             "is better than any of my moves)")
                    self.next_tell = now + 1.0
                return
            self.sat = True
        if self.move_at is None:
            self.move_at = now + self.delay
        if now < self.move_at:
            return
        move = self.choose()
        if move is None:
            self.stuck, self.move_at = True, now + 3600.0  # it sits without a word
            return
        push(self.board, move)
        self.move_at = None
        self.say(f"move {move.uci()}")

    def next_deadline(self, now: float) -> float | None:
        """Seconds until ``tick`` may have something to do (None: only a line can)."""
        if not self.my_turn():
            return None
        due = [t for t in (self.move_at, self.sit_until, self.next_tell) if t is not None]
        return max(0.0, min(due) - now) if due else 0.0

    def choose(self) -> chess.Move | None:
        return choose_move(self.board, self.random)

    def say(self, line: str) -> None:
        self.out.append(line)

    def take(self) -> list[str]:
        out, self.out = self.out, []
        return out


def push(board: chess.variant.CrazyhouseBoard, move: chess.Move) -> None:
    """Plays ``move`` with bughouse pockets: a capture goes to the partner, not here
    (the server tells the pockets with ``holding``)."""
    mover = board.turn
    kept = {c: chess.variant.CrazyhousePocket(str(board.pockets[c])) for c in chess.COLORS}
    board.push(move)
    if move.drop is not None:
        kept[mover].remove(move.drop)
    board.pockets[chess.WHITE], board.pockets[chess.BLACK] = kept[chess.WHITE], kept[chess.BLACK]


# -- as a program --------------------------------------------------------------------


class Pipes:
    """Lines over standard input and output."""

    def __init__(self) -> None:
        self.buffer = b""
        self.closed = False

    def read(self, timeout: float | None) -> list[str] | None:
        """Lines that came within ``timeout`` s ([] for none); None once input is closed."""
        if b"\n" not in self.buffer:
            ready, _, _ = select.select([0], [], [], timeout)
            if ready:
                data = os.read(0, 65536)
                if not data:
                    self.closed = True
                    return None
                self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        return [line.decode(errors="replace").rstrip("\r") for line in lines]

    def write(self, lines: list[str]) -> None:
        if lines:
            os.write(1, "".join(f"{line}\n" for line in lines).encode())


class WebSocketClient:
    """Lines as WebSocket text messages, one a message (a client of ``url``)."""

    def __init__(self, url: str) -> None:
        from wsproto import ConnectionType, WSConnection
        from wsproto.events import Request

        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80))
        self.ws = WSConnection(ConnectionType.CLIENT)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        self.sock.sendall(self.ws.send(Request(host=f"{parts.hostname}:{parts.port}",
                                               target=target)))
        self.closed = False
        self.pending: list[str] = []
        self.parts: list[str] = []

    def read(self, timeout: float | None) -> list[str] | None:
        from wsproto.events import CloseConnection, TextMessage

        if not self.pending:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if ready:
                data = self.sock.recv(65536)
                self.ws.receive_data(data or None)
                for event in self.ws.events():
                    if isinstance(event, TextMessage):
                        self.parts.append(event.data)
                        if event.message_finished:
                            self.pending.append("".join(self.parts))
                            self.parts.clear()
                    elif isinstance(event, CloseConnection):
                        self.closed = True
                if not data:
                    self.closed = True
        lines, self.pending = self.pending, []
        if not lines and self.closed:
            return None
        return lines

    def write(self, lines: list[str]) -> None:
        from wsproto.events import TextMessage

        for line in lines:
            self.sock.sendall(self.ws.send(TextMessage(data=line)))

    def close(self) -> None:
        from wsproto.events import CloseConnection

        with contextlib.suppress(OSError):
            self.sock.sendall(self.ws.send(CloseConnection(code=1000)))
        self.sock.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="TcsFake")
    parser.add_argument("--sit", type=float, default=0.0)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stubborn", action="store_true")
    parser.add_argument("--no-otherboard", action="store_true")
    parser.add_argument("--ws", metavar="URL")
    parser.add_argument("--reconnect", action="store_true")
    parser.add_argument("--trace", metavar="FILE", help="append each line heard to FILE")
    args = parser.parse_args()
    trace = open(args.trace, "a", buffering=1) if args.trace else None  # noqa: SIM115
    if args.stubborn:
        # A helper in its process group, as a threaded engine's would be.
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        if trace is not None:
            trace.write(f"{os.getpid()} : helper {helper.pid}\n")
    fake = TcsLike(name=args.name, sit=args.sit, otherboard=not args.no_otherboard,
                   delay=args.delay, seed=args.seed + os.getpid())
    link: Pipes | WebSocketClient = WebSocketClient(args.ws) if args.ws else Pipes()
    ended = 0  # games this connection has seen end
    told_dead = False
    while True:
        lines = link.read(fake.next_deadline(time.monotonic()))
        if lines is None:
            if args.stubborn:
                time.sleep(0.05)  # spins on, as LazyBug's reader does on a closed pipe
                continue
            return 0
        try:
            for line in lines:
                if trace is not None:
                    trace.write(f"{os.getpid()} < {line}\n")
                fake.handle(line)
                if fake.quit and not args.stubborn:
                    return 0
            fake.tick(time.monotonic())
        except Crashed as exc:
            print(f"crash: {exc}", file=sys.stderr, flush=True)
            if trace is not None:
                trace.write(f"{os.getpid()} : crash {exc}\n")
            return exc.status
        if fake.dead and trace is not None and not told_dead:
            told_dead = True
            trace.write(f"{os.getpid()} : dead\n")
        link.write(fake.take())
        if args.reconnect and args.ws and fake.games_ended > ended:
            # TandemTurtle restarts itself after a game: a new client, a new handshake.
            assert isinstance(link, WebSocketClient)
            link.close()
            fake = TcsLike(name=args.name, sit=args.sit, otherboard=not args.no_otherboard,
                           delay=args.delay, seed=args.seed + os.getpid() + len(lines))
            ended = 0
            link = WebSocketClient(args.ws)
            if trace is not None:
                trace.write(f"{os.getpid()} : reconnected\n")


if __name__ == "__main__":
    sys.exit(main())
