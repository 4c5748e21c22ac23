"""The engine side of protocol.md: a local ``Player`` driven by a server's lines.

``bughouse connect ... -- uci:ENGINE`` (and ``xboard:``) and ``bughouse play
--connect`` seat a player that does not speak protocol.md itself: the UCI
or xboard adapter player, or the console. ``PlayerDriver`` reads the
server's commands (``parse_command``), keeps a mirror of the game
(``BughouseGame`` under the rules the server announced) so it can hand the
player the same ``PlayedMove`` and ``TableState`` values the arbiter would,
and turns the player's actions back into protocol lines (``bestmove`` in
UCI notation, ``wait``, ``resign``, ``draw offer``, ``ptell``, ``info``).
Unknown or malformed lines are skipped (the server never sends them).

Seats rotate between the games of a ``serve`` run: a ``newgame`` that names
other seats than the player holds moves it there (``Player.reseat``) before
it hears of the game.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncIterator, Callable

import trio

from ..core.game import BoardResult, BughouseGame
from ..core.model import SEATS, BoardId, Outcome, Seat
from ..core.rules import HouseRules
from ..errors import ArbiterError
from ..protocol import (
    BestMove,
    BoardOver,
    Bug,
    BugOk,
    Command,
    Draw,
    GameOver,
    Go,
    Id,
    Info,
    IsReady,
    Message,
    MoveEvent,
    NewGame,
    PartnerTell,
    PlayerInfo,
    ProtocolSyntaxError,
    Quit,
    RawLine,
    ReadyOk,
    Refused,
    RelayedDrawOffer,
    Resign,
    RulesInfo,
    State,
    Tell,
    Wait,
    format_message,
    parse_command,
)
from .base import (
    Action,
    DrawOfferAction,
    Gone,
    InfoAction,
    MatchInfo,
    MoveAction,
    Player,
    ResignAction,
    TableState,
    TellAction,
    WaitAction,
)

SendLines = Callable[[list[str]], None]
Log = Callable[[str], None]


class PlayerDriver:
    """Plays ``player`` at a remote seat: server lines in, the player's actions out."""

    def __init__(self, player: Player, send: SendLines, *, log: Log | None = None) -> None:
        self.player = player
        self.send = send
        self.log = log
        self.rules = HouseRules()
        self.seats: tuple[Seat, ...] = player.seats
        self.names: dict[Seat, str] = {}
        self.humans: set[Seat] = set()
        self.game_id = "1"
        self.game: BughouseGame | None = None
        self.state: TableState | None = None
        self.turns: dict[int, Seat] = {}
        self.quit = False
        self._new = False  # a newgame came, the player has not been told yet

    async def run(self, nursery: trio.Nursery, lines: AsyncIterator[RawLine]) -> None:
        """Starts the player, then follows the server's lines until ``quit`` or the end."""
        send, receive = trio.open_memory_channel[Action](math.inf)
        await self.player.start(nursery, send)
        nursery.start_soon(self._answer, receive)
        async for line in lines:
            try:
                command = parse_command(line.text)
            except (ProtocolSyntaxError, ValueError) as exc:
                self._note(f"skipped {line.text[:80]!r}: {exc}")
                continue
            try:
                await self._follow(command)
            except ArbiterError as exc:  # a move the mirror cannot play: say so, go on
                self._note(f"cannot follow {line.text[:80]!r}: {exc}")
            if self.quit:
                break

    async def _follow(self, command: Command) -> None:
        player = self.player
        match command:
            case Bug():
                self._out(Id("name", player.name), BugOk())
            case IsReady():
                self._out(ReadyOk())
            case NewGame(game_id=game_id, seats=seats):
                self.game_id, self.seats = game_id, seats
                if tuple(player.seats) != tuple(seats):
                    self._reseat(seats)
                self.names, self.humans, self.turns = {}, set(), {}
                self.game, self.state, self._new = None, None, True
            case PlayerInfo(seat=seat, kind=kind, name=name):
                self.names[seat] = name
                if kind == "human":
                    self.humans.add(seat)
            case RulesInfo(pairs=pairs):
                try:
                    self.rules = HouseRules.from_pairs(pairs)
                except ArbiterError as exc:
                    self._note(f"rules not understood ({exc}); playing by the defaults")
                    self.rules = HouseRules()
            case State():
                await self._state(command)
            case MoveEvent(version=version, board=board, move=move, clocks=clocks):
                if self.game is None:
                    return
                seat = self.game.to_move(board)
                played = self.game.push(seat, move)
                state = self._table_state(version, clocks)
                await player.moved(played, state)
            case Go(version=version, token=token, board=board, limit=limit):
                seat = next((s for s in self.seats if s.board is board), self.seats[0])
                self.turns[token] = seat
                now = self.state
                if now is None:
                    return
                if limit is not None:
                    now = TableState(
                        version=version,
                        fens=now.fens,
                        clocks=now.clocks,
                        turn_left={seat: limit / 1000},
                        no_double=now.no_double,
                    )
                await player.your_turn(seat, token, now)
            case Refused(token=token, move=move, reason=reason):
                if token in self.turns:
                    await player.move_refused(self.turns[token], token, move, reason)
            case PartnerTell(text=text):
                await player.partner_says(self.seats[0], text)
            case RelayedDrawOffer(by=by):
                await player.draw_offered(by)
            case BoardOver(board=board, result=result, reason=reason, seat=seat, text=text):
                ended = BoardResult(
                    board=board, winner=result.winner, termination=reason, reason=text, seat=seat
                )
                await player.board_ended(ended)
            case GameOver(result=result, reason=reason, board=board, seat=seat, text=text):
                outcome = Outcome(
                    termination=reason, winner=result.winner, reason=text, board=board, seat=seat
                )
                await player.game_over(outcome)
            case Quit():
                self.quit = True

    def _reseat(self, seats: tuple[Seat, ...]) -> None:
        try:
            self.player.reseat(seats)
        except (NotImplementedError, ValueError) as exc:
            self._note(f"the player cannot move to {'+'.join(s.bpgn for s in seats)}: {exc}")

    async def _state(self, command: State) -> None:
        fens = {BoardId.A: command.fen_a, BoardId.B: command.fen_b}
        game = self.game
        if game is None or any(game.fen(b) != fens[b] for b in BoardId):
            # A new game, or a state the mirror does not match (a reconnect): start again from it.
            self.game = BughouseGame(self.rules, fen_a=command.fen_a, fen_b=command.fen_b)
        self.state = self._table_state(command.version, command.clocks)
        if self._new:
            self._new = False
            info = MatchInfo(
                game_id=self.game_id,
                names=dict(self.names),
                rules=self.rules,
                start_fens=dict(fens),
                human_seats=frozenset(self.humans),
            )
            await self.player.new_game(info, self.state)

    def _table_state(self, version: int, clocks: tuple[int, int, int, int]) -> TableState:
        assert self.game is not None
        self.state = TableState(
            version=version,
            fens={b: self.game.fen(b) for b in BoardId},
            clocks={seat: ms / 1000 for seat, ms in zip(SEATS, clocks, strict=True)},
        )
        return self.state

    async def _answer(self, actions: trio.MemoryReceiveChannel[Action]) -> None:
        """The player's actions, as protocol lines to the server."""
        async for action in actions:
            board = action.seat.board if len(self.seats) > 1 else None
            match action:
                case MoveAction(seat=seat, token=token, move=text):
                    self._out(BestMove(move=self._uci(seat, text), token=token, board=board))
                case WaitAction(token=token, reason=reason):
                    self._out(Wait(token=token, board=board, reason=reason))
                case ResignAction():
                    self._out(Resign(board=board))
                case DrawOfferAction():
                    self._out(Draw(board=board))
                case TellAction(text=text):
                    self._out(Tell(text))
                case InfoAction(text=text):
                    self._out(Info(text=text, board=board))
                case Gone(reason=reason):
                    self._note(f"the player left: {reason}")
                    self._out(Resign(board=board))

    def _uci(self, seat: Seat, text: str) -> str:
        """The move in UCI notation (drops ``P@e4``), whatever the player wrote."""
        if self.game is not None:
            with contextlib.suppress(ArbiterError, ValueError):
                return self.game.parse_move(seat, text).uci()
        return text.split()[0] if text.split() else "-"

    def _out(self, *messages: Message) -> None:
        self.send([format_message(m) for m in messages])

    def _note(self, text: str) -> None:
        if self.log is not None:
            self.log(text)
