"""``bughouse check-engine SPEC``: a compliance run for one engine.

The engine sits at A-White and this command plays the arbiter and the other
three seats, step by step: handshake, options, new game, following the game
state, a drop, a piece arriving while it thinks, waiting when it has no move
(then moving when a piece comes), a partner message, game over and quit. It
prints PASS or FAIL per step with the reason, and exits 0 when every step
passed, 1 otherwise, 2 for a bad SPEC. Ctrl+C (or SIGTERM, SIGHUP) stops the
run, closes the engine and exits 130 (143, 129).

SPEC is a name (built-in, from the engines file) or a command line, as in
``bughouse match --engine``; ``--protocol`` overrides the spec's protocol.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import chess
import trio

from ..config.engines_file import known_engines
from ..config.specs import PROTOCOLS, EngineSpec, engine_spec
from ..core.board import STARTING_FEN as START
from ..core.game import BughouseGame
from ..core.model import BoardId, Outcome, Seat, Termination
from ..core.rules import HouseRules
from ..errors import ConfigError, EngineFailed
from ..players.base import (
    Action,
    Gone,
    MatchInfo,
    MoveAction,
    Player,
    TableState,
    TellAction,
    WaitAction,
)
from ..players.factory import check_command, create_player
from ..players.process import live_engine_pids
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


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check-engine",
        help=SUMMARIES["check-engine"],
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="engine name or command line")
    parser.add_argument("--protocol", choices=PROTOCOLS, help="the protocol the engine speaks")
    parser.add_argument("--engines-file", metavar="FILE", help="a TOML file of named engines")
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


def run(args: argparse.Namespace) -> int:
    if not (args.time > 0 and math.isfinite(args.time)):
        raise ConfigError("--time must be a positive number of seconds")
    if not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise ConfigError("--timeout must be a positive number of seconds")
    spec = engine_spec(args.spec, known_engines(args.engines_file))
    if args.protocol:
        spec = attrs.evolve(spec, protocol=args.protocol)
    check_command(spec)
    print(f"check-engine: {spec.name} ({spec.protocol}): {' '.join(spec.command)}", flush=True)
    log = (lambda line: print(f"    {line}", file=sys.stderr, flush=True)) if args.debug else None
    become_subreaper()
    try:
        results, stop = trio.run(_check, spec, args.time, args.timeout, log)
    finally:
        kill_orphans(keep=live_engine_pids())
    if stop.signal is not None:
        print(f"interrupted ({stop.name}) after {len(results)} steps; the engine was closed")
        return exit_status(stop.signal)
    passed = sum(1 for r in results if r.ok)
    print(f"{passed} of {len(results)} steps passed")
    return 0 if passed == len(results) else 1


@attrs.frozen
class StepResult:
    name: str
    ok: bool
    detail: str


class StepFailed(Exception):
    """One step did not hold; the message says why."""


class EngineGone(StepFailed):
    """The engine left: the remaining steps cannot run."""


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
        self.send, self.receive = trio.open_memory_channel[Action](math.inf)

    def state(self) -> TableState:
        return TableState(
            version=self.game.plies,
            fens={board: self.game.fen(board) for board in BoardId},
            clocks={seat: self.clock for seat in Seat},
        )

    async def new_game(self, fen_a: str = START, fen_b: str = START) -> None:
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
        info = MatchInfo(
            game_id="check",
            names={seat: "checker" for seat in Seat},
            rules=self.rules,
            start_fens=dict(self.game.start_fens),
        )
        with trio.fail_after(self.timeout):
            await self.player.new_game(info, self.state())

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
        adapter = getattr(self.player, "adapter", None)
        if adapter is not None and hasattr(adapter, "engine_options"):
            names = adapter.engine_options
            missing = [o for o in adapter.options if o not in names]
            if missing:
                raise StepFailed(f"option(s) not offered by the engine: {', '.join(missing)}")
            return f"{len(names)} options; UCI_Variant bughouse selected"
        if adapter is not None and hasattr(adapter, "features"):
            features = adapter.features
            if not features:
                raise StepFailed("no 'feature' lines (a protocol 1 engine cannot be re-synced)")
            if features.get("setboard") != "1":
                raise StepFailed("no 'feature setboard=1': the position cannot be re-synced")
            shown = " ".join(
                f"{k}={features[k]}"
                for k in ("ping", "setboard", "usermove", "colors")
                if k in features
            )
            return f"features {shown}; bughouse among its variants"
        session = getattr(self.player, "session", None)
        offered = getattr(session, "options", {}) if session is not None else {}
        wanted = getattr(self.player, "options", {})
        missing = [o for o in wanted if o not in offered]
        if missing:
            raise StepFailed(f"option(s) not offered by the engine: {', '.join(missing)}")
        return f"{len(offered)} options offered"

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
        await self.new_game(DROP_ONLY)
        san = await self.legal_move(await self.turn())
        return f"dropped {san} (only drops were legal)"

    async def step_mid_think(self) -> str:
        await self.new_game(KNIGHT_MATES, PASS_KNIGHT)
        token = await self.turn()
        early = await self.quiet(0.3)
        if any(isinstance(a, MoveAction) for a in early):
            for action in early:
                if isinstance(action, MoveAction):
                    self.game.push(SEAT, action.move)
            return "it moved before the piece could arrive (too fast to test)"
        await self.push(Seat.B_BLACK, "h8h1")  # a white knight arrives
        san = await self.legal_move(token)
        if "@" in san:
            return f"{san}: it used the knight that arrived while it was thinking"
        return f"{san}: legal, but the knight that arrived mid-think was not used"

    async def step_waiting(self) -> str:
        await self.new_game(MUST_WAIT, PASS_ROOK)
        token = await self.turn()
        action = await self.answer(token)
        if isinstance(action, MoveAction):
            raise StepFailed(f"it answered {action.move!r} where no move is legal")
        reason = action.reason or "no reason given"
        await self.push(Seat.B_BLACK, "h8h1")  # a white rook arrives
        san = await self.legal_move(token)
        return f"waited ({reason}); when a rook arrived it played {san}"

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
    spec: EngineSpec, clock: float, timeout: float, log: Callable[[str], None] | None
) -> tuple[list[StepResult], Stop]:
    """Runs the steps; a stop signal (``table.stopping``) ends them and closes the engine."""
    results: list[StepResult] = []
    player = create_player(SEAT, spec, log=log, handshake_timeout=timeout)
    async with stop_on_signals() as stop, trio.open_nursery() as nursery:
        with stop.scope:
            await _steps(player, nursery, clock, timeout, results)
        if stop.signal is not None:
            with trio.CancelScope(shield=True):
                await player.aclose()
        nursery.cancel_scope.cancel()
    return results, stop


async def _steps(
    player: Player, nursery: trio.Nursery, clock: float, timeout: float, results: list[StepResult]
) -> None:
    checker = Checker(player, clock, timeout)
    started = trio.current_time()
    try:
        await player.start(nursery, checker.send)
    except (EngineFailed, OSError) as exc:
        results.append(StepResult("handshake", False, str(exc) or type(exc).__name__))
    else:
        took = trio.current_time() - started
        results.append(StepResult("handshake", True, f"{player.name} in {took:.2f} s"))
    _print(results[0])
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
            result = StepResult(name, False, f"not run: {gone}")
        else:
            try:
                result = StepResult(name, True, await step())
            except EngineGone as exc:
                gone = str(exc)
                result = StepResult(name, False, gone)
            except StepFailed as exc:
                result = StepResult(name, False, str(exc))
            except trio.TooSlowError:
                result = StepResult(name, False, f"the engine did not keep up ({timeout:g} s)")
            except (EngineFailed, OSError, ValueError) as exc:
                gone = f"the engine failed: {exc}"
                result = StepResult(name, False, gone)
        results.append(result)
        _print(result)
    if gone is not None:
        await player.aclose()


def _print(result: StepResult) -> None:
    print(f"  {'PASS' if result.ok else 'FAIL'}  {result.name:<24} {result.detail}", flush=True)
