"""The BPGN writer: tags, one line per event, the closing comment, the file side."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import attrs
import pytest

from bughouse_arbiter import BoardId, BughouseGame, HouseRules, Seat
from bughouse_arbiter.bpgn import BpgnFile, BpgnRecorder, GameHeader, SearchInfo, format_game
from bughouse_arbiter.bpgn.file import OutputFileError, check_output_path
from bughouse_arbiter.bpgn.read import BpgnGame, read_games
from bughouse_arbiter.bpgn.replay import replay_game
from bughouse_arbiter.bpgn.write import SLOT_BYTES

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
    assert lines[:5] == [
        '[Event "test"]',
        '[Site "?"]',
        '[Date "2026.11.29"]',
        '[Round "-"]',
        '[TimeControl "120+2"]',
    ]
    # The tags that may change by the end close the section (a streamed file
    # fills them in place).
    assert lines[-6:] == [
        '[WhiteA "alice"]',
        '[BlackA "bob"]',
        '[WhiteB "carol"]',
        '[BlackB "dan"]',
        '[Result "*"]',
        "",
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
    chunk = recorder.update({1: SearchInfo(score_cp=-35, depth=9)})
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


def test_streamed_header_pads_the_outcome_slot_and_it_is_filled_to_the_byte() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    header = recorder.streamed_header()
    data = header.text.encode()
    start, size = header.slot
    assert size == SLOT_BYTES
    assert data[start : start + size].rstrip(b" ").endswith(b'[BlackB "dan"]\n[Result "*"]')
    assert data[start + size :] == b"\n\n"
    game.illegal(Seat.B_BLACK, "x" * 500, "a very long reason " * 40)
    slot = recorder.outcome_slot()
    assert len(slot.encode()) == SLOT_BYTES
    assert '[BlackB "dan"]\n[Result "0-1"]\n[Termination "illegal_move"]\n' in slot
    assert '"]\n[TerminationReason "B-Black played an illegal move' in slot
    assert slot.rstrip(" ").endswith('…"]')


def test_a_player_replaced_mid_game_is_named_in_the_final_tags(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    with BpgnFile.open(path) as out:
        header = recorder.streamed_header()
        out.start_game(header.text, slot=header.slot)
        game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
        out.append(recorder.update())
        players = {**HEADER.players, Seat.B_WHITE: "carol / searcher " + "x" * 700}
        recorder.header = attrs.evolve(HEADER, players=players)
        game.resign(Seat.A_BLACK)
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    (read,) = read_games(path.read_bytes(), strict=True)
    assert read.tag("WhiteB", "").startswith("carol / searcher xxx")
    assert read.tag("WhiteB", "").endswith("…")
    assert read.tag("Termination") == "resignation"
    assert replay_game(read).ok


def _read_one(path: Path) -> BpgnGame:
    (game,) = [g for g in read_games(path.read_bytes()) if g.tag("Event") == "test"]
    return game


def _stream(out: BpgnFile, *, resign: bool = True) -> BpgnRecorder:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    header = recorder.streamed_header()
    out.start_game(header.text, slot=header.slot)
    game.push(Seat.A_WHITE, "e4", at=1.0, clock=179.0)
    out.append(recorder.update())
    if resign:
        game.resign(Seat.A_BLACK)
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    return recorder


def test_file_appends_after_earlier_games_and_fills_the_outcome_in_place(tmp_path: Path) -> None:
    path = tmp_path / "match.bpgn"
    path.write_text('[Event "earlier"]\n\n{x} *')  # no line end at the end
    with BpgnFile.open(path) as out:
        recorder = _stream(out, resign=False)
        running = path.read_text()
        assert running.startswith('[Event "earlier"]\n\n{x} *\n\n[Event "test"]')
        assert running.endswith("1A. e4 {179.000} {[%ts 1.000]}\n")
        game = recorder.game
        game.resign(Seat.A_BLACK)
        out.end_game(recorder.outcome_slot(), recorder.closing_text())
    final = path.read_text()
    assert final.startswith(running[: running.index('[Result "*"]')])
    assert final.endswith("1A. e4 {179.000} {[%ts 1.000]}\n{BA resigns} 1-0\n\n")
    game_read = _read_one(path)
    assert game_read.finished and game_read.tag("Result") == "1-0"
    assert game_read.tag("Termination") == "resignation"
    assert replay_game(game_read).ok
    assert list(tmp_path.iterdir()) == [path]


def test_board_ends_under_continue_are_written_where_each_board_ended() -> None:
    # Board A (set up at move 12) ends by mate while B plays on; the mate's
    # [%boardend] goes right after the mating move, not after B's later moves
    # nor after a later message whose text looks like a board-A move number.
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 12"
    game = BughouseGame(HouseRules(board_end="continue", max_plies=13), fen_a=fen)
    recorder = BpgnRecorder(game)
    moves = [
        (Seat.A_WHITE, "e4"),
        (Seat.B_WHITE, "d4"),
        (Seat.A_BLACK, "e5"),
        (Seat.B_BLACK, "d5"),
        (Seat.A_WHITE, "Qh5"),
        (Seat.A_BLACK, "Nc6"),
        (Seat.B_WHITE, "Nf3"),
        (Seat.A_WHITE, "Bc4"),
        (Seat.A_BLACK, "Nf6"),
        (Seat.A_WHITE, "Qxf7#"),
        (Seat.B_BLACK, "Nf6"),
        (Seat.B_WHITE, "e3"),
        (Seat.B_BLACK, "e6"),  # the 13th ply: board B is drawn by max_plies
    ]
    for i, (seat, move) in enumerate(moves):
        game.push(seat, move, at=float(i + 1))
    game.tell(Seat.A_BLACK, "help", at=1.5)
    game.tell(Seat.B_WHITE, "mate on board A. thanks")  # no time stamp: written last
    draw = "draw: 13 plies played on the two boards (max_plies=13)"
    assert recorder.update().splitlines() == [
        "12A. e4 {[%ts 1.000]}",
        "{[%tell BA 1.500] help}",
        "1B. d4 {[%ts 2.000]}",
        "12a. e5 {[%ts 3.000]}",
        "1b. d5 {[%ts 4.000]}",
        "13A. Qh5 {[%ts 5.000]}",
        "13a. Nc6 {[%ts 6.000]}",
        "2B. Nf3 {[%ts 7.000]}",
        "14A. Bc4 {[%ts 8.000]}",
        "14a. Nf6 {[%ts 9.000]}",
        "15A. Qxf7# {[%ts 10.000]}",
        "{[%boardend A 1-0 checkmate BA] A-Black checkmated}",
        "2b. Nf6 {[%ts 11.000]}",
        "3B. e3 {[%ts 12.000]}",
        "3b. e6 {[%ts 13.000]}",
        "{[%tell WB -] mate on board A. thanks}",
        f"{{[%boardend B 1/2-1/2 max_plies -] {draw}}}",
    ]
    summed = f"boards summed 1.5-0.5 (board A: A-Black checkmated; board B: {draw})"
    final = recorder.final_text()
    assert f'[Termination "boards_summed"]\n[TerminationReason "{summed}"]\n\n' in final
    assert final.endswith(f"{{{summed}}} 1-0\n")


def test_engine_numbers_up_to_the_limit_are_kept_beyond_it_dropped() -> None:
    limit = 10**12
    kept = SearchInfo(score_cp=-limit, depth=limit)
    assert (kept.score_cp, kept.depth) == (-limit, limit)
    assert kept.command() == f"[%eval -{limit // 100}.00,{limit}]"
    dropped = SearchInfo(score_cp=limit + 1, mate=-limit - 1, depth=7, lag_ms=limit + 1)
    assert (dropped.score_cp, dropped.mate, dropped.lag_ms) == (None, None, None)
    assert dropped.command() == "[%eval ?,7]"


def test_format_game_writes_the_engine_info_it_is_given() -> None:
    game = BughouseGame()
    game.push(Seat.A_WHITE, "e4", at=0.5)
    game.push(Seat.A_BLACK, "e5", at=1.0)
    info = {1: SearchInfo(score_cp=20, depth=10), 2: SearchInfo(mate=-3, lag_ms=40)}
    text = format_game(game, info=info)
    assert (
        "1A. e4 {[%ts 0.500] [%eval +0.20,10]}\n1a. e5 {[%ts 1.000] [%eval #-3] [%lag 40]}\n*\n"
        in (text)
    )


def test_a_reason_with_braces_and_a_newline_cannot_break_the_closing_comment() -> None:
    game = BughouseGame()
    game.push(Seat.A_WHITE, "e4")
    game.abort("server {down}\nnow")
    text = format_game(game)
    assert '[TerminationReason "server {down} now"]\n' in text
    assert text.endswith("1A. e4\n{server (down) now} *\n")


def test_the_header_of_a_running_file_says_unfinished_even_once_the_game_is_over() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game)
    game.resign(Seat.A_WHITE)
    header = recorder.header_text()
    assert '[Result "*"]\n' in header
    assert "Termination" not in header
    streamed = recorder.streamed_header().text
    assert '[Result "*"]' in streamed and "Termination" not in streamed
    assert '[Result "0-1"]\n' in recorder.final_text()


def test_header_of_an_untimed_game_with_one_named_player_in_full() -> None:
    game = BughouseGame(HouseRules(clock=False))
    header = GameHeader(players={Seat.B_BLACK: "dan"}, time="09:05:00", extra=(("Annotator", "x"),))
    rules = " ".join(
        f"{name}={value}" for name, value in [("profile", "default"), *game.rules.to_pairs()]
    )
    assert BpgnRecorder(game, header).header_text() == (
        '[Event "bughouse-arbiter match"]\n'
        '[Site "?"]\n'
        '[Date "????.??.??"]\n'
        '[Round "-"]\n'
        '[TimeControl "-"]\n'
        '[Time "09:05:00"]\n'
        '[Variant "bughouse"]\n'
        f'[Rules "{rules}"]\n'
        '[Annotator "x"]\n'
        '[WhiteA "?"]\n'
        '[BlackA "?"]\n'
        '[WhiteB "?"]\n'
        '[BlackB "dan"]\n'
        '[Result "*"]\n'
        "\n"
    )
    assert "clock=off" in rules


def test_file_keeps_symlinks_hard_links_mode_and_inode(tmp_path: Path) -> None:
    target = tmp_path / "real.bpgn"
    target.write_text("")
    os.chmod(target, 0o600)
    link = tmp_path / "link.bpgn"
    link.symlink_to(target)
    hard = tmp_path / "hard.bpgn"
    os.link(target, hard)
    inode = target.stat().st_ino
    with BpgnFile.open(link) as out:
        _stream(out)
        _stream(out)
    assert link.is_symlink()
    assert target.stat().st_ino == inode
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert hard.read_bytes() == target.read_bytes()
    assert [g.result_token for g in read_games(target.read_bytes())] == ["1-0", "1-0"]


def test_a_second_writer_is_refused_while_the_first_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.bpgn"
    with BpgnFile.open(path) as first:
        with pytest.raises(OutputFileError, match="another process is writing this file"):
            BpgnFile.open(path)
        _stream(first)
    with BpgnFile.open(path) as again:  # released on close
        _stream(again)
    assert len(read_games(path.read_bytes())) == 2


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "socket"])
def test_files_that_are_not_regular_are_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "odd"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path = Path("/dev/null")
    else:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
    with pytest.raises(OutputFileError) as refused:
        BpgnFile.open(path)
    assert "\n" not in str(refused.value)
    with pytest.raises(OutputFileError):
        check_output_path(path)
    if kind == "device":
        assert stat.S_ISCHR(os.stat(path).st_mode)  # untouched


def test_a_fifo_made_between_the_check_and_the_open_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / "late"
    os.mkfifo(path)
    with pytest.raises(OutputFileError, match="FIFO"):
        BpgnFile.open(path)


def _final_slot(reason: str, name: str = "p") -> str:
    game = BughouseGame()
    recorder = BpgnRecorder(game, GameHeader(players=dict.fromkeys(Seat, name)))
    game.abort(reason)
    return recorder.outcome_slot()


def _slot_tags(slot: str) -> list[str]:
    assert len(slot.encode("utf-8")) == SLOT_BYTES
    return slot.rstrip(" ").split("\n")


def test_the_outcome_slot_cuts_the_reason_then_the_names_only_as_far_as_needed() -> None:
    # Unpadded, these tags take 111 bytes with an empty reason: 529 bytes of
    # reason fill the slot exactly and are kept whole; one more is cut to 120.
    fits = "r" * (SLOT_BYTES - 111)
    assert _slot_tags(_final_slot(fits))[-1] == f'[TerminationReason "{fits}"]'
    assert _final_slot(fits).endswith('"]')  # no padding left
    cut = _slot_tags(_final_slot(fits + "r"))
    assert cut[0] == '[WhiteA "p"]'
    assert cut[-1] == f'[TerminationReason "{"r" * 119}…"]'
    # Long names are cut to 60 once the reason is at 120 ...
    tags = _slot_tags(_final_slot("r" * 300, name="n" * 200))
    assert tags[:4] == [
        f'[{tag} "{"n" * 59}…"]' for tag in ("WhiteA", "BlackA", "WhiteB", "BlackB")
    ]
    assert tags[-1] == f'[TerminationReason "{"r" * 119}…"]'
    # ... and both to 40 when two-byte letters still overflow.
    tags = _slot_tags(_final_slot("é" * 300, name="é" * 200))
    assert tags[0] == f'[WhiteA "{"é" * 39}…"]'
    assert tags[-1] == f'[TerminationReason "{"é" * 39}…"]'


def test_outcome_tags_that_cannot_fit_even_cut_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match=f"^final tags do not fit in {SLOT_BYTES} bytes: "):
        _final_slot("r", name="\U0001d11e" * 200)  # four bytes a letter: 4 x 160 bytes of names


def test_a_reason_of_exactly_120_is_kept_whole_when_only_the_names_must_be_cut() -> None:
    tags = _slot_tags(_final_slot("r" * 120, name="n" * 104))
    assert tags[0] == f'[WhiteA "{"n" * 59}…"]'
    assert tags[-1] == f'[TerminationReason "{"r" * 120}"]'


def test_events_at_the_same_instant_keep_the_order_they_happened_in() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game)
    game.push(Seat.B_WHITE, "d4", at=1.0)
    game.push(Seat.A_WHITE, "e4", at=1.0)
    game.tell(Seat.B_BLACK, "zz", at=1.0)
    game.tell(Seat.A_BLACK, "aa", at=1.0)
    assert recorder.update().splitlines() == [
        "1B. d4 {[%ts 1.000]}",
        "1A. e4 {[%ts 1.000]}",
        "{[%tell BB 1.000] zz}",
        "{[%tell BA 1.000] aa}",
    ]


def test_each_board_end_is_written_once_in_the_update_that_saw_it() -> None:
    game = BughouseGame(HouseRules(board_end="continue"))
    recorder = BpgnRecorder(game)
    game.resign(Seat.A_WHITE)
    first = "{[%boardend A 0-1 resignation WA] A-White resigned}\n"
    assert recorder.update() == first
    game.push(Seat.B_WHITE, "d4", at=1.0)
    assert recorder.update() == "1B. d4 {[%ts 1.000]}\n"
    game.resign(Seat.B_BLACK)
    assert recorder.update() == "{[%boardend B 0-1 resignation BB] B-Black resigned}\n"
    assert recorder.final_text().count("[%boardend A ") == 1


@pytest.mark.parametrize(
    ("cp", "written"), [(0, "+0.00"), (1, "+0.01"), (-1, "-0.01"), (-100, "-1.00"), (250, "+2.50")]
)
def test_an_even_score_is_written_with_a_plus_sign(cp: int, written: str) -> None:
    assert SearchInfo(score_cp=cp, depth=3).command() == f"[%eval {written},3]"


def test_moves_written_one_update_at_a_time_are_numbered_as_in_one_go() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    chunks = []
    for seat, move in [
        (Seat.A_WHITE, "e4"),
        (Seat.B_WHITE, "d4"),
        (Seat.A_BLACK, "e5"),
        (Seat.A_WHITE, "Nf3"),
        (Seat.B_BLACK, "d5"),
        (Seat.A_BLACK, "Nc6"),
        (Seat.A_WHITE, "Bb5"),
    ]:
        game.push(seat, move, at=1.0)
        chunks.append(recorder.update())
    assert [chunk.split(" {")[0] for chunk in chunks] == [
        "1A. e4",
        "1B. d4",
        "1a. e5",
        "2A. Nf3",
        "1b. d5",
        "2a. Nc6",
        "3A. Bb5",
    ]
    assert "".join(chunks) in format_game(game, HEADER)


def test_a_mating_move_and_its_board_end_come_in_the_same_update() -> None:
    # Without wait_for_block, mate is mate even though a dropped piece could block later.
    game = BughouseGame(HouseRules(board_end="continue", wait_for_block=False))
    recorder = BpgnRecorder(game)
    for move in ["f3", "e5", "g4"]:
        game.push(game.to_move(BoardId.A), move, at=1.0)
        recorder.update()
    game.push(Seat.A_BLACK, "Qh4#", at=2.0)
    assert recorder.update().splitlines() == [
        "2a. Qh4# {[%ts 2.000]}",
        "{[%boardend A 0-1 checkmate WA] A-White checkmated}",
    ]


def test_a_draw_offer_is_a_line_of_its_own_in_time_order() -> None:
    game = BughouseGame()
    recorder = BpgnRecorder(game, HEADER)
    game.push(Seat.A_WHITE, "e4", at=0.5, clock=179.5)
    recorder.update()
    game.offer_draw(Seat.A_WHITE, at=1.25)
    assert recorder.update() == "{[%draw WA 1.250]}\n"
    game.push(Seat.B_WHITE, "d4", at=2.0, clock=178.0)
    game.offer_draw(Seat.B_WHITE, at=1.5)  # made before the move, told after it
    assert recorder.update().splitlines() == [
        "{[%draw WB 1.500]}",
        "1B. d4 {178.000} {[%ts 2.000]}",
    ]
