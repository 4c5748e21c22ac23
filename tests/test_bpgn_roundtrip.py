"""Every game the writer writes reads back to the same moves, clocks, messages
and result, and replays to the same outcome (many generated matches)."""

from __future__ import annotations

import functools
import random

import chess
import pytest

from bughouse_arbiter import BoardId, BughouseGame, HouseRules, Seat, Termination
from bughouse_arbiter.bpgn import BpgnRecorder, GameHeader, SearchInfo, format_game
from bughouse_arbiter.bpgn.claims import recorded_outcome
from bughouse_arbiter.bpgn.read import read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.core.rules import PROFILES

# Start positions with pawns about to promote and full pockets (promotions, drops, SetUp/FEN).
PROMOTING = "r3k3/1P4P1/8/8/8/8/1p4p1/R3K3[QRBNPqrbnp] w Qq - 0 1"
SET_UP = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[Nn] w KQkq - 0 12"

TEXTS = ["go", "sit", "need N!", "{brace} 100% ]", "line\nbreak", "ümlaut ♞", ""]
SEEDS = 120
ENDS = ["resign", "flag", "flag2", "illegal", "leave", "agree", "abort", "none"]


@functools.cache
def _random_match(seed: int) -> tuple[BughouseGame, dict[int, SearchInfo], str, bool]:
    rng = random.Random(seed)
    profile = rng.choice(list(PROFILES.values()))
    rules = profile.with_rule("max_plies", str(rng.choice([0, 40, 120, 400])))
    if rng.random() < 0.3:
        rules = rules.with_rule("stalemate", "draw").with_rule("time", "60")
    elif seed % 7 == 3:
        rules = rules.with_rule("clock", "off")  # untimed: the stalling rule ends games
    fen_a = rng.choice([chess.variant.CrazyhouseBoard.starting_fen, PROMOTING, SET_UP])
    fen_b = rng.choice([chess.variant.CrazyhouseBoard.starting_fen, PROMOTING])
    game = BughouseGame(rules, fen_a=fen_a, fen_b=fen_b)
    header = GameHeader(
        players={seat: f'player {seat.slug} "q"' for seat in Seat},
        engines={Seat.A_WHITE: "random mover 1.0"} if seed % 2 else {},
        event=f"round trip {seed}",
        date="2026.11.29",
        time="12:00:00",
    )
    recorder = BpgnRecorder(game, header)
    incremental = seed % 3 != 0
    chunks = [recorder.header_text()]
    infos: dict[int, SearchInfo] = {}
    at = 0.0
    clocks = dict.fromkeys(Seat, rules.time)
    end = rng.choice(ENDS)
    stop_after = rng.randint(0, 250)
    while game.outcome is None and game.plies < stop_after:
        live = [b for b in BoardId if game.is_live(b) and any(game.board(b).legal_moves)]
        if not live:
            break
        board_id = rng.choice(live)
        seat = game.to_move(board_id)
        moves = list(game.board(board_id).legal_moves)
        special = [m for m in moves if m.drop or m.promotion or game.board(board_id).is_capture(m)]
        move = rng.choice(special if special and rng.random() < 0.5 else moves)
        at = round(at + rng.uniform(0.001, 3.0), 3)
        clocks[seat] = round(clocks[seat] - rng.uniform(0.0, 2.0), 3)
        played = game.push(seat, move, at=at, clock=clocks[seat])
        if rng.random() < 0.3:
            infos[played.ply] = SearchInfo(
                score_cp=rng.randint(-900, 900) if rng.random() < 0.8 else None,
                mate=rng.randint(-5, 5) if rng.random() < 0.1 else None,
                depth=rng.randint(1, 30) if rng.random() < 0.8 else None,
            )
        if rng.random() < 0.1:
            at = round(at + 0.5, 3)
            game.tell(rng.choice(list(Seat)), rng.choice(TEXTS), at=at)
        if rules.board_end == "continue" and rng.random() < 0.01:
            game.resign(rng.choice([s for s in Seat if game.is_live(s.board)]))
        if incremental:
            chunks.append(recorder.update(infos))
    if game.outcome is None:
        live_seats = [s for s in Seat if game.is_live(s.board)]
        seat = rng.choice(live_seats)
        if end == "resign":
            game.resign(seat)
        elif end == "flag":
            game.flag([seat])
        elif end == "flag2":
            game.flag([seat, seat.partner])
        elif end == "illegal":
            game.illegal(seat, "Ke9", "no such square")
        elif end == "leave":
            game.leave(seat, "closed its pipe")
        elif end == "agree":
            at = game.moves[-1].at if game.moves else None
            for offering in Seat:  # as the arbiter records them, every seat agreeing
                game.offer_draw(offering, at=at)
            game.agree_draw()
        elif end == "abort":
            game.abort("stopped by Ctrl+C")
    if incremental:
        chunks.append(recorder.update(infos))
        text = recorder.final_text()
        running = "".join(chunks)
        _assert_running_text_is_the_final_one_so_far(running, text, game)
    else:
        text = format_game(game, header, info=infos)
    return game, infos, text, incremental


def _assert_running_text_is_the_final_one_so_far(
    running: str, final: str, game: BughouseGame
) -> None:
    """The file as written during play is the final file but for the result:
    the same tags with ``[Result "*"]`` and no outcome tags, the same movetext,
    and no closing line."""
    running_head, running_moves = running.split("\n\n", 1)
    final_head, final_moves = final.split("\n\n", 1)
    running_tags = running_head.splitlines()
    assert '[Result "*"]' in running_tags
    result = f'[Result "{game.result.value}"]'
    expected = [result if tag.startswith("[Result ") else tag for tag in running_tags]
    assert final_head.splitlines()[: len(expected)] == expected
    assert final_moves.startswith(running_moves)
    closing = final_moves[len(running_moves) :]
    assert closing.count("\n") == 1 and closing.endswith(f"{game.result.value}\n"), closing


@pytest.mark.parametrize("seed", range(SEEDS))
def test_written_games_read_back_identically(seed: int) -> None:
    game, infos, text, _ = _random_match(seed)
    (read,) = read_games(text, strict=True)
    assert read.finished
    assert [(m.seat, m.clock, m.at) for m in read.moves] == [
        (m.seat, m.clock, m.at) for m in game.moves
    ]
    assert [m.commands.get("eval") for m in read.moves] == [
        (infos[m.ply].command() or "")[7:-1] or None if m.ply in infos else None for m in game.moves
    ]
    assert [(m.seat, m.text, m.at) for m in read.messages] == [
        (m.seat, m.text, m.at) for m in game.messages
    ]
    assert [(o.seat, o.at) for o in read.draw_offers] == [(o.seat, o.at) for o in game.draw_offers]
    assert read.tag("Result") == game.result.value
    assert recorded_outcome(read) == game.outcome
    report = replay_game(read)
    assert report.ok, report.verdict
    assert report.rules == game.rules
    assert [(m.seat, m.move, m.clock, m.at) for m in report.played] == [
        (m.seat, m.move, m.clock, m.at) for m in game.moves
    ]
    assert report.rejudged == game.result.value
    if game.outcome is not None and report.outcome is not None:
        assert report.outcome.termination == game.outcome.termination
        assert report.outcome.winner == game.outcome.winner


def test_generated_matches_cover_what_matters() -> None:
    seen: set[str] = set()
    for seed in range(SEEDS):
        game, _, text, _ = _random_match(seed)
        if game.outcome is not None:
            seen.add(game.outcome.termination.value)
        if any(m.move.drop for m in game.moves):
            seen.add("drop")
        if any(m.move.promotion for m in game.moves):
            seen.add("promotion")
        if game.messages:
            seen.add("message")
        if "[%boardend" in text:
            seen.add("boardend")
        if game.outcome is None:
            seen.add("unfinished")
    expected = {t.value for t in Termination} - {"repetition", "stalemate", "deadlock"}
    assert expected | {"drop", "promotion", "message", "boardend", "unfinished"} <= seen


def test_a_killed_writer_leaves_a_readable_game() -> None:
    game = BughouseGame(HouseRules())
    recorder = BpgnRecorder(game, GameHeader(event="killed"))
    text = recorder.header_text()
    for seat, move in [(Seat.A_WHITE, "e4"), (Seat.B_WHITE, "d4"), (Seat.A_BLACK, "d5")]:
        game.push(seat, move, at=1.0, clock=170.0)
        text += recorder.update()
    (read,) = read_games(text)
    assert not read.finished
    assert read.tag("Result") == "*"
    assert [m.san for m in read.moves] == ["e4", "d4", "d5"]
    assert [p.message for p in read.problems] == ["game ends without a result token (truncated?)"]
    report = replay_game(read)
    assert report.ok
    assert (report.replayed, report.rejudged) == (3, "*")
