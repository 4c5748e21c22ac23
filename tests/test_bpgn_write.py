"""The BPGN writer: tags, one line per event, the closing comment, the file side."""

from __future__ import annotations

from pathlib import Path

from bughouse_arbiter import BughouseGame, HouseRules, Seat
from bughouse_arbiter.bpgn import BpgnFile, BpgnRecorder, EngineInfo, GameHeader, format_game

HEADER = GameHeader(
    players={
        Seat.A_WHITE: "alice",
        Seat.A_BLACK: "bob",
        Seat.B_WHITE: "carol",
        Seat.B_BLACK: "dan",
    },
    engines={Seat.A_WHITE: "sjeng 11.2"},
    event="test",
    date="2026.11.29",
    time="13:00:00",
)


def test_header_names_seats_rules_and_unfinished_result() -> None:
    game = BughouseGame(HouseRules(time=120, increment=2))
    text = BpgnRecorder(game, HEADER).header_text()
    lines = text.splitlines()
    assert lines[:10] == [
        '[Event "test"]',
        '[Site "?"]',
        '[Date "2026.11.29"]',
        '[Round "-"]',
        '[WhiteA "alice"]',
        '[BlackA "bob"]',
        '[WhiteB "carol"]',
        '[BlackB "dan"]',
        '[TimeControl "120+2"]',
        '[Result "*"]',
    ]
    assert '[WhiteAEngine "sjeng 11.2"]' in lines
    assert any(line.startswith('[Rules "profile=default time=120 increment=2 ') for line in lines)
    assert text.endswith("]\n\n")
    assert "SetUp" not in text


def test_updates_give_one_line_per_new_event_in_order() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    assert recorder.update() == ""
    game.push(Seat.A_WHITE, "e4", at=0.25, clock=179.75)
    game.push(Seat.B_WHITE, "d4", at=1.0, clock=179.0)
    chunk = recorder.update({1: EngineInfo(score_cp=-35, depth=9)})
    assert chunk == (
        "1A. e4 {179.750} {[%ts 0.250] [%eval -0.35,9]}\n1B. d4 {179.000} {[%ts 1.000]}\n"
    )
    game.push(Seat.A_BLACK, "d5", at=2.0, clock=178.0)
    game.tell(Seat.A_BLACK, "need a {knight}\n100%", at=2.0)
    assert recorder.update() == (
        "1a. d5 {178.000} {[%ts 2.000]}\n{[%tell BA 2.000] need a %7Bknight%7D%0A100%25}\n"
    )
    game.push(Seat.A_WHITE, "exd5", at=3.5, clock=177.0)
    game.push(Seat.B_BLACK, "P@e5", at=4.0, clock=176.0)
    assert recorder.update().splitlines() == [
        "2A. exd5 {177.000} {[%ts 3.500]}",
        "1b. P@e5 {176.000} {[%ts 4.000]}",
    ]


def test_a_clock_a_hair_below_zero_is_written_as_zero_never_minus_zero() -> None:
    # A move judged at its deadline can bank -0.0002 s: "-0.000" reads as a
    # negative clock and some readers refuse it.
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    game.push(Seat.A_WHITE, "e4", at=0.0004, clock=-0.0002)
    game.push(Seat.B_WHITE, "d4", at=1.0, clock=-0.0)
    assert recorder.update().splitlines() == [
        "1A. e4 {0.000} {[%ts 0.000]}",
        "1B. d4 {0.000} {[%ts 1.000]}",
    ]


def test_final_text_has_result_termination_tags_and_closing_comment() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    for seat, move in [
        (Seat.A_WHITE, "e4"),
        (Seat.A_BLACK, "e5"),
        (Seat.A_WHITE, "Qh5"),
        (Seat.A_BLACK, "Nc6"),
        (Seat.A_WHITE, "Bc4"),
        (Seat.A_BLACK, "Nf6"),
        (Seat.A_WHITE, "Qxf7#"),
    ]:
        game.push(seat, move)
    assert game.outcome is not None
    text = recorder.final_text()
    assert '[Result "1-0"]' in text
    assert '[Termination "checkmate"]' in text
    assert '[TerminationSeat "BA"]' in text
    assert '[TerminationBoard "A"]' in text
    assert text.endswith("4A. Qxf7#\n{BA checkmated} 1-0\n")
    assert format_game(game, HEADER) == text


def test_move_numbers_follow_a_set_up_position() -> None:
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 7"
    game = BughouseGame(fen_a=fen)
    game.push(Seat.A_BLACK, "e5")
    game.push(Seat.A_WHITE, "Nf3")
    text = format_game(game)
    assert '[SetUp "1"]' in text
    assert f'[FEN "{game.start_fens[game.moves[0].board]} | ' in text
    assert "7a. e5\n8A. Nf3\n* " not in text
    assert "7a. e5\n8A. Nf3\n*\n" in text


def test_file_appends_then_finalizes_atomically_after_earlier_games(tmp_path: Path) -> None:
    path = tmp_path / "match.bpgn"
    path.write_text('[Event "earlier"]\n\n{x} *\n')
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    out = BpgnFile(path)
    out.start(recorder.header_text())
    game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
    out.append(recorder.update())
    running = path.read_text()
    assert running.startswith('[Event "earlier"]\n\n{x} *\n\n[Event "test"]')
    assert running.endswith("1A. e4 {179.000} {[%ts 1.000]}\n")
    game.resign(Seat.A_BLACK)
    out.finalize(recorder.final_text())
    final = path.read_text()
    assert final == '[Event "earlier"]\n\n{x} *\n\n' + recorder.final_text()
    assert list(tmp_path.iterdir()) == [path]
