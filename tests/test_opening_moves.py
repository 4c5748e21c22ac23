"""A game from a book's moves: the moves are the game's first, and every kind of
player is told them as moves (xboard after ``new``, UCI ``position startpos
moves``, native ``state v 0`` and ``event`` lines), never as a set-up position."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cli_checks import run_bughouse
from test_adapter_common import CLOCKS, RULES
from test_external_engines import BAD_ENDS, require

from bughouse_arbiter.adapters import UciAdapter, XboardAdapter
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.bpgn.write import GameHeader, format_game
from bughouse_arbiter.config.engines_file import builtin_external_engines
from bughouse_arbiter.config.specs import engine_spec
from bughouse_arbiter.core.board import STARTING_FEN
from bughouse_arbiter.core.game import BughouseGame
from bughouse_arbiter.core.model import BoardId, Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.players.factory import create_player
from bughouse_arbiter.table.arbiter import run_match

#: A's capture passes a pawn to B-Black, who drops it; A-Black's capture passes
#: one to B-White. Board A stays plain chess, board B has a pocket.
OPENING = (
    (Seat.A_WHITE, "e2e4"),
    (Seat.A_BLACK, "d7d5"),
    (Seat.A_WHITE, "e4d5"),
    (Seat.B_WHITE, "e2e4"),
    (Seat.B_BLACK, "P@d5"),
    (Seat.A_BLACK, "d8d5"),
)
#: An xboard engine without ``setboard`` (as Sunsetter can be run).
NO_SETBOARD_HELLO = ['feature ping=1 usermove=0 myname="NoSetboard" variants="bughouse" done=1']


def opened() -> BughouseGame:
    game = BughouseGame(RULES)
    game.play_opening(OPENING)
    return game


def test_an_opening_is_played_before_the_clocks_and_the_stalling_rule() -> None:
    game = opened()
    assert game.opening_plies == 6 and game.plies == 6 and not game.is_over
    assert [m.at for m in game.moves] == [0.0] * 6 and all(m.clock is None for m in game.moves)
    assert game.fen(BoardId.B).startswith("rnbqkbnr/pppppppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR[P] w")
    shuffle = [(Seat.A_WHITE, "g1f3"), (Seat.A_BLACK, "g8f6"), (Seat.A_WHITE, "f3g1"),
               (Seat.A_BLACK, "f6g8")] * 2  # fmt: skip
    with pytest.raises(ValueError, match="the opening ends the game at ply 8"):
        BughouseGame(HouseRules(repetition="threefold")).play_opening(shuffle)


def test_the_ply_cap_counts_the_moves_after_the_opening_and_so_does_the_replay() -> None:
    game = BughouseGame(HouseRules(max_plies=2))
    game.play_opening(OPENING)
    assert not game.is_over
    game.push(Seat.A_WHITE, "b1c3")
    game.push(Seat.B_WHITE, "d2d4")
    assert game.outcome is not None and game.outcome.reason == (
        "draw: 2 plies played on the two boards after the opening's 6 (max_plies=2)"
    )
    text = format_game(game, GameHeader(extra=(("OpeningPlies", "6"),)))
    [report] = [replay_game(played) for played in read_games(text)]
    assert report.ok and report.replayed == 8, report.verdict


def test_an_xboard_engine_without_setboard_is_told_the_opening_as_moves_after_new() -> None:
    game = opened()
    adapter = XboardAdapter(Seat.B_WHITE, rules=RULES)
    for line in NO_SETBOARD_HELLO:
        adapter.receive(line)
    adapter.take()
    adapter.new_game(RULES, STARTING_FEN, CLOCKS, game.moves, game.fen(BoardId.B))
    lines, _ = adapter.take()
    assert not [line for line in lines if line.startswith("setboard")]
    assert lines[:2] == ["new", "variant bughouse"]
    # The drop's pawn is announced first, then the board's moves, then its pockets.
    replay = lines[lines.index("force") + 1 :]
    assert replay[0] == "holding [P] [P]"
    assert [line for line in replay if line in ("e2e4", "P@d5")] == ["e2e4", "P@d5"]
    assert replay.index("P@d5") < replay.index("holding [P] []")
    adapter.your_turn(1, game.fen(BoardId.B), CLOCKS)
    assert adapter.take()[0][-1] == "go"


def test_a_uci_engine_gets_startpos_moves_while_its_board_is_plain_chess() -> None:
    game = opened()
    plain = UciAdapter(Seat.A_WHITE, rules=RULES)
    plain.new_game(RULES, STARTING_FEN, CLOCKS, game.moves, game.fen(BoardId.A))
    plain.take()
    plain.your_turn(1, game.fen(BoardId.A), CLOCKS)
    assert plain.take()[0][0] == "position startpos moves e2e4 d7d5 e4d5 d8d5"
    pocket = UciAdapter(Seat.B_WHITE, rules=RULES)
    pocket.new_game(RULES, STARTING_FEN, CLOCKS, game.moves, game.fen(BoardId.B))
    pocket.take()
    pocket.your_turn(1, game.fen(BoardId.B), CLOCKS)
    assert pocket.take()[0][0] == f"position fen {game.fen(BoardId.B)}"


def test_moves_that_do_not_lead_to_the_table_fall_back_to_setting_it_up() -> None:
    game = opened()
    adapter = XboardAdapter(Seat.A_WHITE, rules=RULES)
    adapter.receive('feature setboard=1 ping=1 variants="bughouse" done=1')
    adapter.take()
    adapter.new_game(RULES, STARTING_FEN, CLOCKS, game.moves[:2], game.fen(BoardId.A))
    assert adapter.set_up and adapter.board.fen() == game.fen(BoardId.A)
    assert adapter.probing  # the set-up probe first, as for any set-up game


@pytest.mark.slow
async def test_sjeng_plays_a_game_from_a_book_told_as_moves_and_its_bpgn_replays() -> None:
    require("sjeng")
    known = builtin_external_engines()
    sent: dict[Seat, list[str]] = {seat: [] for seat in Seat}
    specs = {
        Seat.A_WHITE: known["sjeng"],
        Seat.B_BLACK: known["sjeng"],
        Seat.A_BLACK: engine_spec("random"),
        Seat.B_WHITE: engine_spec("random"),
    }

    def log_of(seat: Seat):  # type: ignore[no-untyped-def]
        return lambda line: sent[seat].append(line.split(" < ", 1)[1]) if " < " in line else None

    players = [create_player(seat, spec, log=log_of(seat)) for seat, spec in specs.items()]
    with trio.fail_after(90):
        record = await run_match(players, HouseRules(time=6.0), opening=OPENING)
    outcome = record.game.outcome
    assert outcome is not None and outcome.termination not in BAD_ENDS, outcome.reason
    for seat in (Seat.A_WHITE, Seat.B_BLACK):  # Sjeng: no setboard, ever
        assert not [line for line in sent[seat] if line.startswith("setboard")]
    after_new = sent[Seat.A_WHITE][sent[Seat.A_WHITE].index("new") :]
    told = [line for line in after_new if line in ("e2e4", "d7d5", "e4d5", "d8d5")]
    assert told[:4] == ["e2e4", "d7d5", "e4d5", "d8d5"]
    after_new = sent[Seat.B_BLACK][sent[Seat.B_BLACK].index("new") :]
    assert [line for line in after_new if line in ("e2e4", "P@d5")][:2] == ["e2e4", "P@d5"]
    native = sent[Seat.A_BLACK]  # the native engine: the start, then one event a move
    first = next(line for line in native if line.startswith("state v "))
    assert first.startswith(f"state v 0 a {STARTING_FEN} b {STARTING_FEN} ")
    events = [line.split(" clock ")[0] for line in native if line.startswith("event v ")][:6]
    assert events == [
        "event v 1 board a move e2e4",
        "event v 2 board a move d7d5",
        "event v 3 board a move e4d5 pass p",
        "event v 4 board b move e2e4",
        "event v 5 board b move P@d5",
        "event v 6 board a move d8d5 pass P",
    ]
    text = format_game(record.game, GameHeader(players=dict(record.names)))
    [report] = [replay_game(game) for game in read_games(text)]
    assert report.ok, report.verdict
    assert [(m.seat, m.uci) for m in report.played[:6]] == list(OPENING)


@pytest.mark.slow
def test_a_tournament_from_a_pgn_book_records_the_moves_and_replay_check_passes(
    tmp_path: Path,
) -> None:
    book = tmp_path / "book.pgn"
    book.write_text('[Opening "Scandinavian"]\n\n1. e4 d5 2. exd5 *\n')
    out = tmp_path / "t"
    done = run_bughouse(
        "tournament", "--engine", "a=random", "--engine", "b=random", "--games", "2",
        "--tc", "1+0", "--rule", "max_plies=20", "--openings", str(book), "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = read_games((out / "games.bpgn").read_text())
    assert len(games) == 2
    for game in games:
        assert game.tag("Opening") == "Scandinavian" and game.tag("OpeningPlies") == "6"
        assert not game.tag("FEN")
        assert [m.san for m in game.moves[:6]] == ["e4", "e4", "d5", "d5", "exd5", "exd5"]
        assert len(game.moves) <= 6 + 20  # max_plies counts the moves after the book's
    checked = run_bughouse("replay", "--check", str(out / "games.bpgn"), timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "2 passed, 0 failed" in checked.stdout
