"""``bughouse check-engine SPEC``: a compliance run for one engine.

The engine sits at A-White and this command plays the arbiter and the other
three seats, step by step: handshake, options, new game, following the game
state, a drop, a piece arriving while it thinks, waiting when it has no move
(then moving when a piece comes), a partner message, game over and quit. It
prints PASS, FAIL or SKIP (the step could not be tested) per step with the
reason, and exits 0 when no step failed, 1 otherwise, 2 for a bad SPEC.

The options step really sets an option, as a match would: the engine's own
options from the engines file, or else the first option the engine declares
with a value, set to that value (``setoption`` for native and UCI engines,
``option NAME=VALUE`` for xboard ones), says which, and expects the engine to
answer ``isready``/``ping`` after it. An xboard engine's ``memory`` and
``cores`` are sent only when the engines file sets Hash or Threads.
An engine that sits without a word where it has no move (xboard has no
"wait") passes the waiting step if it moves once the piece comes.

The three bughouse steps (a drop, mid-think, waiting) start from set-up
positions. An engine that cannot be set up (no ``setboard``, or one that
leaves bughouse after it, as Sunsetter does) reaches the same tests by book
moves from the standard start (fool's mate with a pawn in hand; the same with
an empty pocket; a king boxed in for N@d6); one that takes no book moves
either (tinyChessServer's dialect) plays the mid-think step on from the
standard start, and skips the other two, saying why. A team engine
(``team-uci``) holds A-White and B-Black; the checker plays the other two.
A step that fails because the engine died shows its last stderr lines.

Ctrl+C (or SIGTERM, SIGHUP) stops the run, closes the engine and exits 130
(143, 129).

SPEC is a name (built-in, from the engines file) or a command line, as in
``bughouse match --engine``; ``--protocol`` overrides the spec's protocol.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TextIO

import attrs
import chess
import trio

from ..adapters.declared import Declared, native_declared, xboard_declared
from ..config.engines_file import known_engines
from ..config.options import add_engines_file
from ..config.specs import PROTOCOLS, TEAM_ONLY, EngineSpec, engine_spec
from ..core.board import STARTING_FEN as START
from ..core.game import BughouseGame
from ..core.model import BoardId, Outcome, Seat, Termination
from ..core.rules import HouseRules
from ..environment import Environment, OutputGone
from ..errors import ConfigError, EngineFailed
from ..exits import FAILED, OK
from ..players.base import (
    Action,
    Gone,
    MatchInfo,
    MoveAction,
    Player,
    ResignAction,
    TableState,
    TellAction,
    WaitAction,
)
from ..players.factory import check_command, create_player, create_team_player
from ..players.process import EngineProcess, live_engine_pids
from ..players.reaper import become_subreaper, kill_orphans
from ..table.stopping import Stop, exit_status, stop_on_signals
from . import SUMMARIES

SEAT = Seat.A_WHITE
#: Back-rank check with a rook in hand: every legal move is a drop.
DROP_ONLY = "6k1/5ppp/8/8/8/8/6PP/r6K[R] w - - 0 1"
#: The same check with an empty pocket: no move now, but a piece may come.
MUST_WAIT = "6k1/5ppp/8/8/8/8/6PP/r6K[] w - - 0 1"
#: A knight in hand would mate at once (N@f7); the pocket starts empty.
KNIGHT_MATES = "6rk/6pp/8/8/8/8/6PP/6K1[] w - - 0 1"
#: Board B where B-Black takes a white knight (h8h1), passing it to A-White.
PASS_KNIGHT = "4k2r/8/8/8/8/8/8/4K2N[] b - - 0 1"
#: Board B where B-Black takes a white rook (h8h1), passing it to A-White.
PASS_ROOK = "4k2r/8/8/8/8/8/8/4K2R[] b - - 0 1"

# The same three tests reached by moves from the standard start, for an engine
# that cannot be set up (no setboard, or one that leaves bughouse: Sunsetter).
# Each is a book opening (``MatchInfo.opening``) and the capture on board B
# that then passes a piece to A-White.
Line = tuple[tuple[Seat, str], ...]
_FOOLS_MATE: Line = (
    (Seat.A_WHITE, "f2f3"), (Seat.A_BLACK, "e7e5"), (Seat.A_WHITE, "g2g4"), (Seat.A_BLACK, "d8h4"),
)  # fmt: skip
_B_TAKES_PAWN: Line = ((Seat.B_WHITE, "e2e4"), (Seat.B_BLACK, "d7d5"), (Seat.B_WHITE, "a2a3"))
#: Fool's mate with a pawn in hand (B-Black took e4): every legal move is a drop.
DROP_LINE: Line = (*_B_TAKES_PAWN, (Seat.B_BLACK, "d5e4"), *_FOOLS_MATE)
#: Fool's mate with an empty pocket: no move until d5xe4 on B passes a pawn.
WAIT_LINE: Line = (*_B_TAKES_PAWN, *_FOOLS_MATE)
#: N@d6 would mate (king boxed by its own Q, B, pawns and Ne7); c6xd5 on B passes the knight.
KNIGHT_LINE: Line = (
    (Seat.A_WHITE, "a2a3"), (Seat.A_BLACK, "e7e5"), (Seat.A_WHITE, "b2b3"), (Seat.A_BLACK, "c7c6"),
    (Seat.A_WHITE, "h2h3"), (Seat.A_BLACK, "g8e7"),
    (Seat.B_WHITE, "b1c3"), (Seat.B_BLACK, "c7c6"), (Seat.B_WHITE, "c3d5"),
)  # fmt: skip


@attrs.frozen
class Route:
    """A test position two ways: set up (``fens``), or by ``line`` from the start;
    and the capture B-Black then makes to pass a piece to A-White, each way."""

    fens: tuple[str, str]
    capture: str
    line: Line
    line_capture: str
    #: A third way, for an engine that takes no book moves either: a game from
    #: the start, these moves of board B told as they are played, then ``live_capture``.
    live: Line = ()
    live_capture: str = ""


DROP_ROUTE = Route((DROP_ONLY, START), "", DROP_LINE, "")
KNIGHT_ROUTE = Route(
    (KNIGHT_MATES, PASS_KNIGHT),
    "h8h1",
    KNIGHT_LINE,
    "c6d5",
    live=_B_TAKES_PAWN,
    live_capture="d5e4",  # a pawn, not the knight: A-White's own moves are its own
)
WAIT_ROUTE = Route((MUST_WAIT, PASS_ROOK), "h8h1", WAIT_LINE, "d5e4")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check-engine",
        help=SUMMARIES["check-engine"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="engine name or command line")
    parser.add_argument("--protocol", choices=PROTOCOLS, help="the protocol the engine speaks")
    add_engines_file(parser)
    parser.add_argument(
        "--time",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="clock of every seat during the checks (default 20)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="longest wait for one answer (default 15)",
    )
    parser.add_argument("--debug", action="store_true", help="print the protocol log to stderr")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, env: Environment) -> int:
    if not (args.time > 0 and math.isfinite(args.time)):
        raise ConfigError("--time must be a positive number of seconds")
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise ConfigError("--timeout must be a positive number of seconds")
    spec = engine_spec(args.spec, known_engines(args.engines_file))
    if args.protocol:
        spec = attrs.evolve(spec, protocol=args.protocol)
    check_command(spec)
    out = env.stdout
    print(f"check-engine: {spec.name} ({spec.protocol}): {' '.join(spec.command)}", file=out)
    out.flush()
    log = (lambda line: print(f"    {line}", file=env.stderr, flush=True)) if args.debug else None
    become_subreaper()
    try:
        results, stop = trio.run(_check, spec, args.time, args.timeout, log, out)
    finally:
        kill_orphans(keep=live_engine_pids())
    if stop.signal is not None:
        print(
            f"interrupted ({stop.name}) after {len(results)} steps; the engine was closed",
            file=out,
        )
        return exit_status(stop.signal)
    passed = sum(1 for r in results if r.status == PASS)
    skipped = sum(1 for r in results if r.status == SKIP)
    failed = len(results) - passed - skipped
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} of {len(results)} steps passed{tail}", file=out)
    return OK if failed == 0 else FAILED


PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"
#: Seconds of silence after which a seat with no move counts as sitting quietly.
QUIET_SIT = 2.0


@attrs.frozen
class StepResult:
    name: str
    status: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.status != FAIL


class StepFailed(Exception):
    """One step did not hold; the message says why."""


class StepSkipped(Exception):
    """One step could not be tested with this engine; the message says why."""


class EngineGone(StepFailed):
    """The engine left: the remaining steps cannot run."""


class Resigned(StepFailed):
    """The engine resigned where it was asked for a move."""


class Checker:
    """Plays the arbiter for one engine at A-White."""

    def __init__(self, player: Player, clock: float, timeout: float) -> None:
        self.player = player
        self.clock = clock
        self.timeout = timeout
        self.rules = HouseRules(time=clock)
        self.game = BughouseGame(self.rules)
        self.token = 0
        self.started = False
        self.tells: list[str] = []
        #: A step has said why the engine cannot be set up (the next ones only refer to it).
        self.told_refusal = False
        self.send, self.receive = trio.open_memory_channel[Action](math.inf)

    def state(self) -> TableState:
        return TableState(
            version=self.game.plies,
            fens={board: self.game.fen(board) for board in BoardId},
            clocks={seat: self.clock for seat in Seat},
        )

    async def new_game(self, fen_a: str = START, fen_b: str = START, opening: Line = ()) -> None:
        if self.started:
            # Every protocol wants the last game over before the next begins.
            with trio.fail_after(self.timeout):
                await self.player.game_over(
                    Outcome(
                        termination=Termination.ABORTED,
                        winner=None,
                        reason="next check",
                        aborted=True,
                    )
                )
        self.started = True
        self.game = BughouseGame(self.rules, fen_a=fen_a, fen_b=fen_b)
        played = tuple(self.game.push(seat, move) for seat, move in opening)
        info = MatchInfo(
            game_id="check",
            names={seat: "checker" for seat in Seat},
            rules=self.rules,
            start_fens=dict(self.game.start_fens),
            opening=played,
        )
        with trio.fail_after(self.timeout):
            try:
                await self.player.new_game(info, self.state())
            except EngineFailed as exc:
                process = getattr(self.player, "engine", None)
                plain = (fen_a, fen_b) == (START, START) and not opening
                if plain or getattr(process, "eof", True):
                    raise
                # Only this start is out of its reach (no setboard, or it
                # leaves bughouse after setboard; no book moves); other games still work.
                what = "a set-up position" if not opening else "book moves"
                raise StepSkipped(f"cannot start from {what}: {exc}") from None

    async def reach(self, route: Route) -> tuple[str, str]:
        """Starts the game of ``route``: set up, or else by its moves. Returns the
        capture that passes its piece, and how the position was reached ("" when set up).

        Raises:
            StepSkipped: neither way is open to this engine.
        """
        try:
            await self.new_game(*route.fens)
        except StepSkipped as exc:
            refused = str(exc)
        else:
            return route.capture, ""
        try:
            await self.new_game(opening=route.line)
        except StepSkipped as exc:
            refused = _both_refused(refused, str(exc))
            if not route.live:
                raise StepSkipped(refused) from None
            await self.new_game()
            for seat, move in route.live:
                await self.push(seat, move)
            return route.live_capture, " (played on from the standard start: no set-up, no book)"
        if self.told_refusal:
            return route.line_capture, " (reached by moves, as above)"
        self.told_refusal = True
        return route.line_capture, f" (reached by moves: {refused})"

    async def turn(self) -> int:
        self.token += 1
        with trio.fail_after(self.timeout):
            await self.player.your_turn(SEAT, self.token, self.state())
        return self.token

    async def push(self, seat: Seat, move: str) -> None:
        played = self.game.push(seat, move)
        with trio.fail_after(self.timeout):
            await self.player.moved(played, self.state())

    async def answer(self, token: int, timeout: float | None = None) -> MoveAction | WaitAction:
        """The engine's next move or wait for ``token``."""
        with trio.move_on_after(timeout or self.timeout):
            while True:
                action = await self.receive.receive()
                if isinstance(action, Gone):
                    raise EngineGone(f"the engine left: {action.reason}")
                if isinstance(action, TellAction):
                    self.tells.append(action.text)
                if isinstance(action, ResignAction):
                    raise Resigned("it resigned instead of answering its turn")
                if isinstance(action, MoveAction | WaitAction) and action.token == token:
                    return action
        raise StepFailed(f"no answer within {timeout or self.timeout:g} s")

    async def quiet(self, seconds: float) -> list[Action]:
        """Actions that arrive within ``seconds`` (raises if the engine leaves)."""
        got: list[Action] = []
        with trio.move_on_after(seconds):
            while True:
                action = await self.receive.receive()
                if isinstance(action, Gone):
                    raise EngineGone(f"the engine left: {action.reason}")
                if isinstance(action, TellAction):
                    self.tells.append(action.text)
                got.append(action)
        return got

    async def pass_piece(self, capture: str) -> str:
        """B-Black plays ``capture``, passing a white piece to A-White; its name."""
        played = self.game.push(Seat.B_BLACK, capture)
        with trio.fail_after(self.timeout):
            await self.player.moved(played, self.state())
        return chess.piece_name(played.passed.piece_type) if played.passed else "piece"

    async def legal_move(self, token: int) -> str:
        """Waits for a move for ``token`` and plays it; returns its SAN."""
        action = await self.answer(token)
        if isinstance(action, WaitAction):
            raise StepFailed(f"it waited ({action.reason or 'no reason'}) where it can move")
        try:
            played = self.game.push(SEAT, action.move)
        except ValueError as exc:
            raise StepFailed(f"illegal move {action.move!r}: {exc}") from None
        with trio.fail_after(self.timeout):
            await self.player.moved(played, self.state())
        return played.san

    # -- the steps ------------------------------------------------------------------------

    async def step_options(self) -> str:
        """Sets one option on the running engine, as a match would, and expects
        it to answer after: the first the engines file gives it, or else the
        first the engine declares with a value, set to that value. The
        protocol's own settings (xboard's ``memory``, ``cores``) only when the
        engines file asks: an engine may not survive them (Sunsetter crashes at
        the next ``new`` after ``memory``)."""
        wanted = dict(getattr(self.player, "options", None) or {})
        adapter = getattr(self.player, "adapter", None)
        if adapter is not None:
            wanted = dict(adapter.options)
        offered = self.offered_options()
        own = self.protocol_options()
        notes: list[str] = []
        features = getattr(adapter, "features", None)
        if features is not None:
            if not features:
                notes.append("no 'feature' lines (a protocol 1 engine)")
            shown = " ".join(
                f"{k}={features[k]}"
                for k in ("ping", "setboard", "usermove", "colors")
                if k in features
            )
            notes.append(f"features {shown}")
        missing = [name for name in wanted if name not in offered and name not in own]
        if missing:
            raise StepFailed(f"option(s) not offered by the engine: {', '.join(missing)}")
        chosen: tuple[str, str | None] | None
        if wanted:
            chosen = next(iter(wanted.items()))
            how = "from the engines file"
        else:
            chosen = next(((n, v) for n, v in offered.items() if v is not None), None)
            how = "its declared default"
        if chosen is None:
            notes.append("the engine offers no option to set")
            notes += [
                f"{command} ({option}) only when the engines file sets it"
                for option, command in own.items()
            ]
            raise StepSkipped("; ".join(notes))
        name, value = chosen
        setter = getattr(self.player, "set_option", None)
        if setter is None:
            raise StepSkipped("this player cannot set options")
        with trio.fail_after(self.timeout):
            await setter(name, value)
        sent = name if value is None else f"{name}={value}"
        if name in own and name not in offered:
            how += f", sent as {own[name]} {value}"
        if getattr(adapter, "has_ping", True):
            done = f"set {sent} ({how}), engine answered"
        else:
            done = f"set {sent} ({how}; the engine has no ping to confirm it)"
        return "; ".join([*notes, f"{len(offered)} options offered; {done}"])

    def offered_options(self) -> dict[str, str | None]:
        """The options the engine declared, each with its declared default
        (not buttons, nor UCI_Variant, which the harness sets)."""
        adapter = getattr(self.player, "adapter", None)
        declared: Mapping[str, Declared]
        if adapter is not None and hasattr(adapter, "engine_options"):
            declared = adapter.declared_options
        elif adapter is not None and hasattr(adapter, "offered_options"):
            # Only what it offered: memory=1 / smp=1 are protocol_options.
            declared = dict(map(xboard_declared, adapter.offered_options))
        else:
            session = getattr(self.player, "session", None)
            options = getattr(session, "options", None) or {}
            declared = {name: native_declared(spec) for name, spec in options.items()}
        return {
            name: option.default
            for name, option in declared.items()
            if name and name != "UCI_Variant" and option.kind != "button"
        }

    def protocol_options(self) -> dict[str, str]:
        """Options the protocol itself sets, by name, with the command that sets
        them: an xboard engine's ``memory=1`` / ``smp=1`` (Hash, Threads)."""
        adapter = getattr(self.player, "adapter", None)
        features = getattr(adapter, "features", None) or {}
        own: dict[str, str] = {}
        if features.get("memory") == "1":
            own["Hash"] = "memory"
        if features.get("smp") == "1":
            own["Threads"] = "cores"
        return own

    async def step_new_game(self) -> str:
        await self.new_game()
        got = await self.quiet(0.3)
        moves = [a for a in got if isinstance(a, MoveAction)]
        if moves:
            raise StepFailed(f"it moved ({moves[0].move}) before its turn")
        return "new game accepted"

    async def step_state(self) -> str:
        first = await self.legal_move(await self.turn())
        board_a = self.game.board(BoardId.A)
        reply = chess.Move.from_uci("e7e5")
        if not board_a.is_legal(reply):
            reply = min(board_a.legal_moves, key=lambda m: m.uci())
        await self.push(Seat.A_BLACK, reply.uci())
        for seat, move in ((Seat.B_WHITE, "e2e4"), (Seat.B_BLACK, "d7d5"), (Seat.B_WHITE, "e4d5")):
            await self.push(seat, move)  # the last passes a black pawn to its opponent
        second = await self.legal_move(await self.turn())
        return f"played {first}, then {second} with the opponent holding a pawn"

    async def step_drop(self) -> str:
        _, how = await self.reach(DROP_ROUTE)
        san = await self.legal_move(await self.turn())
        return f"dropped {san} (only drops were legal){how}"

    async def step_mid_think(self) -> str:
        capture, how = await self.reach(KNIGHT_ROUTE)
        token = await self.turn()
        early = await self.quiet(0.3)
        if any(isinstance(a, MoveAction) for a in early):
            for action in early:
                if isinstance(action, MoveAction):
                    self.game.push(SEAT, action.move)
            raise StepSkipped("it moved before the piece could arrive (too fast to test)")
        piece = await self.pass_piece(capture)  # a white knight (or pawn) arrives
        san = await self.legal_move(token)
        if "@" in san:
            return f"{san}: it used the {piece} that arrived while it was thinking{how}"
        return f"{san}: legal, but the {piece} that arrived mid-think was not used{how}"

    async def step_waiting(self) -> str:
        capture, how = await self.reach(WAIT_ROUTE)
        token = await self.turn()
        quiet = min(QUIET_SIT, self.timeout)
        try:
            action = await self.answer(token, quiet)
        except Resigned:
            raise
        except StepFailed:
            # No word: it sits silently (xboard has no "wait" message).
            reason = f"sat silently for {quiet:g} s"
        else:
            if isinstance(action, MoveAction):
                raise StepFailed(f"it answered {action.move!r} where no move is legal")
            reason = f"waited ({action.reason or 'no reason given'})"
        piece = await self.pass_piece(capture)
        san = await self.legal_move(token)
        return f"{reason}; when a {piece} arrived it played {san}{how}"

    async def step_partner(self) -> str:
        before = len(self.tells)
        with trio.fail_after(self.timeout):
            await self.player.partner_says(SEAT, "help")
        await self.quiet(1.0)
        replies = self.tells[before:]
        protocol = getattr(self.player, "protocol", "")
        if replies:
            return f"delivered; it answered {replies[0][:60]!r}"
        if protocol == "uci":
            return "UCI has no partner channel: the message is dropped (engine unaffected)"
        if protocol == "team-uci":
            return "it holds both seats, so it has no partner to hear: dropped (engine unaffected)"
        return "delivered (no reply)"

    async def step_game_over(self) -> str:
        outcome = Outcome(
            termination=Termination.AGREEMENT, winner=None, reason="check-engine is done"
        )
        with trio.fail_after(self.timeout):
            await self.player.game_over(outcome)
        await self.quiet(0.3)
        return "game over taken"

    async def step_quit(self) -> str:
        with trio.fail_after(self.timeout + 15):
            await self.player.aclose()
        process = getattr(self.player, "engine", None) or getattr(self.player, "process", None)
        code = getattr(process, "returncode", None)
        if code is None:
            return "closed"
        if code < 0:
            raise StepFailed(f"it did not exit after quit and was killed (status {code})")
        return f"exited by itself (status {code})"


async def _check(
    spec: EngineSpec,
    clock: float,
    timeout: float,
    log: Callable[[str], None] | None,
    out: TextIO,
) -> tuple[list[StepResult], Stop]:
    """Runs the steps, printing each to ``out``; a stop signal (``table.stopping``)
    ends them and closes the engine, as does an output that is gone."""
    results: list[StepResult] = []
    if spec.protocol in TEAM_ONLY:
        player = create_team_player(SEAT.team.seats, spec, log=log, handshake_timeout=timeout)
    else:
        player = create_player(SEAT, spec, log=log, handshake_timeout=timeout)
    async with stop_on_signals() as stop, trio.open_nursery() as nursery:
        try:
            with stop.scope:
                await _steps(player, nursery, clock, timeout, results, out)
        except OutputGone:
            with trio.CancelScope(shield=True):
                await player.aclose()
            raise
        if stop.signal is not None:
            with trio.CancelScope(shield=True):
                await player.aclose()
        nursery.cancel_scope.cancel()
    return results, stop


async def _steps(
    player: Player,
    nursery: trio.Nursery,
    clock: float,
    timeout: float,
    results: list[StepResult],
    out: TextIO,
) -> None:
    checker = Checker(player, clock, timeout)
    started = trio.current_time()
    try:
        await player.start(nursery, checker.send)
    except (EngineFailed, OSError) as exc:
        failed = StepResult("handshake", FAIL, str(exc) or type(exc).__name__)
        results.append(_with_last_words(failed, player))
    else:
        took = trio.current_time() - started
        results.append(StepResult("handshake", PASS, f"{player.name} in {took:.2f} s"))
    _print(results[0], out)
    steps: list[tuple[str, Callable[[], Awaitable[str]]]] = [
        ("options", checker.step_options),
        ("new game", checker.step_new_game),
        ("state", checker.step_state),
        ("a drop", checker.step_drop),
        ("mid-think pocket change", checker.step_mid_think),
        ("waiting", checker.step_waiting),
        ("partner message", checker.step_partner),
        ("game over", checker.step_game_over),
        ("quit", checker.step_quit),
    ]
    gone: str | None = None if results[0].ok else "the handshake failed"
    for name, step in steps:
        if gone is not None:
            result = StepResult(name, FAIL, f"not run: {gone}")
        else:
            try:
                result = StepResult(name, PASS, await step())
            except EngineGone as exc:
                gone = str(exc)
                result = StepResult(name, FAIL, gone)
            except StepSkipped as exc:
                result = StepResult(name, SKIP, str(exc))
            except StepFailed as exc:
                result = StepResult(name, FAIL, str(exc))
            except trio.TooSlowError:
                result = StepResult(name, FAIL, f"the engine did not keep up ({timeout:g} s)")
            except (EngineFailed, OSError, ValueError) as exc:
                gone = f"the engine failed: {exc}"
                result = StepResult(name, FAIL, gone)
        results.append(_with_last_words(result, player))
        _print(results[-1], out)
    if gone is not None:
        await player.aclose()


def _both_refused(set_up: str, book: str) -> str:
    """One line for the two refusals (a set-up position, book moves), their
    shared reason said once."""
    first, _, why = set_up.partition(": ")
    _, _, other = book.partition(": ")
    if why == other:
        return f"{first} or from book moves: {why}"
    return f"{set_up}; {book}"


def _with_last_words(result: StepResult, player: Player) -> StepResult:
    """A failed step of an engine that has ended, with its last stderr lines
    (a crash's own reason: Sunsetter's "table size must be > ..."), unless the
    detail already gives them."""
    process = getattr(player, "engine", None) or getattr(player, "process", None)
    if result.status != FAIL or not isinstance(process, EngineProcess) or not process.eof:
        return result
    words = process.last_words()
    if not words or "(stderr: " in result.detail or result.detail.startswith("not run"):
        return result
    return attrs.evolve(result, detail=result.detail + words)


def _print(result: StepResult, out: TextIO) -> None:
    print(f"  {result.status}  {result.name:<24} {result.detail}", file=out, flush=True)
