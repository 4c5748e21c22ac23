"""Random tables against both adapters: whatever the engine says and whenever
pieces arrive, no illegal move leaves an adapter and no second ``go`` is sent
while a search runs."""

from __future__ import annotations

import chess
import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_adapter_common import CLOCKS, RULES

from bughouse_arbiter.adapters import EngineMove, UciAdapter, XboardAdapter
from bughouse_arbiter.adapters.common import EngineAdapter
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import Seat

SJENG_HELLO = 'feature ping=1 setboard=1 usermove=0 myname="Sjeng 11.2" variants="bughouse" done=1'
UCI_HELLO = [
    "option name UCI_Variant type combo default chess var bughouse",
    "uciok",
    "readyok",
]


def _pick(data: st.DataObject, moves: list[chess.Move], label: str) -> chess.Move:
    ordered = sorted(moves, key=lambda m: m.uci())
    return ordered[data.draw(st.integers(0, len(ordered) - 1), label=label)]


def _engine_reply(data: st.DataObject, game: BughouseGame, seat: Seat) -> str:
    """What an engine might say: a legal move, a stale or bad one, or nonsense."""
    board = game.board(seat.board)
    kind = data.draw(st.sampled_from(["legal", "legal", "legal", "other", "garbage"]))
    legal = list(board.legal_moves)
    if kind == "legal" and legal and board.turn == seat.color:
        return _pick(data, legal, "reply").uci()
    if kind == "other":
        return data.draw(st.sampled_from(["e2e4", "e7e5", "Q@e4", "n@f6", "a1a8", "e1g1"]))
    return data.draw(st.sampled_from(["(none)", "0000", "xyz", "P@a1"]))


def run_table(data: st.DataObject, adapter: EngineAdapter, hello: list[str], xboard: bool) -> None:
    seat = adapter.seat
    game = BughouseGame(RULES)
    adapter.begin()  # type: ignore[attr-defined]
    for line in hello:
        adapter.receive(line)  # type: ignore[attr-defined]
    adapter.new_game(RULES, game.fen(seat.board), CLOCKS)  # type: ignore[attr-defined]
    token = 0
    open_token: int | None = None
    searching = 0  # gos without an answer yet
    pings: list[str] = []
    sent: list[str] = []

    def drain() -> list[EngineMove]:
        nonlocal searching
        lines, events = adapter.take()
        for line in lines:
            sent.append(line)
            if line == "go":
                # A second "go" only after a re-sync ("new" since the last "go").
                earlier = [i for i, old in enumerate(sent[:-1]) if old == "go"]
                since = sent[earlier[-1] + 1 :] if earlier else sent
                assert searching == 0 or not xboard or "new" in since, sent[-12:]
                searching = 1
            elif line.startswith("go "):
                assert searching == 0, f"second go while searching: {sent[-6:]}"
                searching = 1
            elif line.startswith("ping "):
                pings.append(line.split()[1])
        return [e for e in events if isinstance(e, EngineMove)]

    drain()
    for _ in range(data.draw(st.integers(5, 60), label="steps")):
        if game.is_over:
            break
        if game.is_to_move(seat) and open_token is None:
            token += 1
            open_token = token
            adapter.your_turn(token, game.fen(seat.board), CLOCKS)  # type: ignore[attr-defined]
            pending = drain()
        else:
            pending = []
        choice = data.draw(st.sampled_from(["other", "other", "engine", "pong"]))
        if choice == "other":
            movers = [s for s in game.seats_to_move() if s is not seat]
            if movers:
                mover = data.draw(st.sampled_from(movers))
                legal = list(game.board(mover.board).legal_moves)
                if legal:
                    played = game.push(mover, _pick(data, legal, "other"))
                    adapter.moved(played, game.fen(seat.board), CLOCKS)  # type: ignore[attr-defined]
        elif choice == "pong" and pings:
            adapter.receive(f"pong {pings.pop(0)}")  # type: ignore[attr-defined]
        elif choice == "engine":
            reply = _engine_reply(data, game, seat)
            if xboard:
                adapter.receive(f"move {reply}")  # type: ignore[attr-defined]
            elif searching:  # a UCI engine answers each go exactly once
                searching = 0
                adapter.receive(f"bestmove {reply}")  # type: ignore[attr-defined]
        moves = pending + drain()
        for event in moves:
            assert event.token == open_token
            played = game.push(seat, event.move)  # raises if the adapter let an illegal move out
            open_token = None
            adapter.moved(played, game.fen(seat.board), CLOCKS)  # type: ignore[attr-defined]
            drain()
            if xboard:
                searching = 0
    assert adapter.board.fen() == game.fen(seat.board)


# 60 games a run, or fewer where the loaded profile asks for fewer (tests/conftest.py).
EXAMPLES = min(60, settings.default.max_examples)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seat=st.sampled_from(list(Seat)))
def test_uci_adapter_on_random_tables(data: st.DataObject, seat: Seat) -> None:
    run_table(data, UciAdapter(seat, rules=RULES), ["uci", *UCI_HELLO][1:], xboard=False)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seat=st.sampled_from(list(Seat)))
def test_xboard_adapter_on_random_tables(data: st.DataObject, seat: Seat) -> None:
    run_table(data, XboardAdapter(seat, rules=RULES), [SJENG_HELLO], xboard=True)
