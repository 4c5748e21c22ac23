"""Reading BPGN as a stream: chunk by chunk, one game at a time, with bounds
on what one game, one line or one comment may cost."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bughouse_arbiter.bpgn import read as bpgn_read
from bughouse_arbiter.bpgn.read import MAX_PROBLEMS, BpgnGame, iter_games, read_games

CORPUS = sorted((Path(__file__).parent / "data" / "corpus").glob("*.bpgn"))
GOLDEN = Path(__file__).parent / "data" / "arbiter_game.bpgn"


@pytest.mark.parametrize("chunk", [13, 4096])
@pytest.mark.parametrize("path", [*CORPUS, GOLDEN], ids=lambda p: p.name)
def test_any_chunk_size_reads_the_same_games(
    path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = path.read_bytes()
    whole = read_games(data, file="f")
    monkeypatch.setattr(bpgn_read, "CHUNK", chunk)
    streamed = list(iter_games(io.BytesIO(data), file="f"))
    assert streamed == whole


def test_games_come_one_at_a_time_before_the_stream_ends() -> None:
    game = b'[Event "x"]\n\n1A. e4 1-0\n\n'

    class Endless(io.RawIOBase):
        """Games forever: only a streaming reader can return any."""

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
            data = (game * (len(buffer) // len(game) + 1))[: len(buffer)]
            buffer[: len(data)] = data
            return len(data)

    games = iter_games(io.BufferedReader(Endless()))
    first = [next(games) for _ in range(3)]
    assert [g.number for g in first] == [1, 2, 3]
    assert all(g.result_token == "1-0" and g.moves[0].san == "e4" for g in first)


def test_a_utf8_character_cut_by_a_chunk_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    data = '[WhiteA "Łukasz ♞"]\n\n1A. e4 *\n'.encode()
    monkeypatch.setattr(bpgn_read, "CHUNK", 1)
    (game,) = iter_games(io.BytesIO(data))
    assert game.tag("WhiteA") == "Łukasz ♞"


def test_latin1_files_are_still_read(monkeypatch: pytest.MonkeyPatch) -> None:
    data = '[WhiteA "Müller"]\n\n1A. e4 *\n'.encode("latin-1")
    monkeypatch.setattr(bpgn_read, "CHUNK", 3)
    (game,) = iter_games(io.BytesIO(data))
    assert game.tag("WhiteA") == "Müller"


def test_problems_are_capped_per_game_and_the_rest_counted() -> None:
    text = '[Event "x"]\n\n' + "} x " * 1000 + "1A. e4 *\n"
    (game,) = read_games(text)
    assert len(game.problems) == MAX_PROBLEMS + 1
    more = 2000 - MAX_PROBLEMS
    assert game.problems[-1].message == f"{more} more problem(s) in this game not listed"
    assert [m.san for m in game.moves] == ["e4"]


def test_a_run_of_closing_braces_is_one_problem() -> None:
    (game,) = read_games("}" * 100_000)
    assert [p.message for p in game.problems] == [
        "movetext without a tag section",
        f"cannot read {'}' * 20!r}: skipped",
        "game ends without a result token (truncated?)",
    ]


def test_a_comment_too_long_to_read_is_skipped_and_reading_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bpgn_read, "MAX_TOKEN", 1000)
    monkeypatch.setattr(bpgn_read, "CHUNK", 100)
    data = b'[Event "x"]\n\n1A. e4 {' + b"a" * 5000 + b"} 1a. e5 *\n"
    (game,) = iter_games(io.BytesIO(data))
    assert [m.san for m in game.moves] == ["e4", "e5"]
    assert [p.message for p in game.problems] == ["comment longer than 1000 characters: skipped"]
    assert (game.problems[0].line, game.problems[0].column) == (3, 8)


def test_a_line_too_long_to_read_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bpgn_read, "MAX_TOKEN", 1000)
    monkeypatch.setattr(bpgn_read, "CHUNK", 100)
    data = b'[Event "' + b"e" * 5000 + b'"]\n[Site "s"]\n\n1A. e4 *\n'
    (game,) = iter_games(io.BytesIO(data))
    assert game.tag("Site") == "s"
    assert "Event" not in game.tags
    assert game.problems[0].message == "line longer than 1000 characters: skipped"
    assert [m.san for m in game.moves] == ["e4"]


def test_positions_stay_exact_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '[Event "x"]\n\n1A. e4 {1.0}\n1a. e5 zz\n  2A. Nf3 *\n'
    monkeypatch.setattr(bpgn_read, "CHUNK", 5)
    (game,) = iter_games(io.BytesIO(text.encode()))
    assert [(m.line, m.column) for m in game.moves] == [(3, 1), (4, 1), (5, 3)]
    assert [(p.line, p.column) for p in game.problems] == [(4, 8)]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_dropping_board_history_in_a_replay_changes_no_verdict(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bughouse_arbiter.bpgn import replay as bpgn_replay

    games = read_games(path.read_bytes())
    kept = [bpgn_replay.replay_game(g) for g in games]
    monkeypatch.setattr(bpgn_replay, "_STACK_KEPT", 1)
    dropped = [bpgn_replay.replay_game(g) for g in games]
    for a, b in zip(kept, dropped, strict=True):
        assert (a.ok, a.verdict, a.replayed, a.rejudged) == (
            b.ok,
            b.verdict,
            b.replayed,
            b.rejudged,
        )
        assert [m.move for m in a.played] == [m.move for m in b.played]


@pytest.mark.parametrize("seed", range(0, 120, 3))
def test_random_matches_under_every_profile_replay_the_same_without_history(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_bpgn_roundtrip import _random_match

    from bughouse_arbiter.bpgn import replay as bpgn_replay

    game, _, text, _ = _random_match(seed)
    (read,) = read_games(text)
    monkeypatch.setattr(bpgn_replay, "_STACK_KEPT", 1)
    report = bpgn_replay.replay_game(read)
    assert report.ok, report.verdict
    assert [m.move for m in report.played] == [m.move for m in game.moves]
    assert report.rejudged == game.result.value


def _read_text_stream(text: str, monkeypatch: pytest.MonkeyPatch) -> BpgnGame:
    monkeypatch.setattr(bpgn_read, "MAX_TOKEN", 1000)
    monkeypatch.setattr(bpgn_read, "CHUNK", 100)
    (game,) = iter_games(io.StringIO(text))
    return game


def test_a_token_of_exactly_the_longest_length_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    tag = '[Event "' + "e" * 990 + '"]'
    assert len(tag) == 1000  # ends exactly where the tenth chunk does
    game = _read_text_stream(tag + "\n1A. e4 *\n", monkeypatch)
    assert game.tag("Event") == "e" * 990
    assert game.problems == ()


def test_skipping_ends_at_a_brace_that_starts_a_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    head = '[Event "x"]\n1A. e4 {'
    text = head + "a" * (1200 - len(head)) + "} 1a. e5 2A. Nf3 *\n"
    assert text[1200] == "}"  # the first character of the thirteenth chunk
    game = _read_text_stream(text, monkeypatch)
    assert [m.san for m in game.moves] == ["e4", "e5", "Nf3"]
    assert [p.message for p in game.problems] == ["comment longer than 1000 characters: skipped"]


@pytest.mark.parametrize("length", range(850, 950, 7))
def test_a_long_comment_within_the_limit_leaves_what_follows_alone(
    length: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    moves = "1a. e5 2A. Nf3 2a. Nc6 3A. Bb5 3a. a6 4A. Ba4 4a. Nf6 5A. O-O 5a. Be7 "
    game = _read_text_stream(
        '[Event "x"]\n1A. e4 {' + "a" * length + "} " + moves + "*\n", monkeypatch
    )
    assert len(game.moves) == 10
    assert game.moves[0].comments == ("a" * length,)
    assert game.problems == ()


def test_a_line_too_long_inside_a_game_leaves_the_game_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bpgn_read, "MAX_TOKEN", 1000)
    monkeypatch.setattr(bpgn_read, "CHUNK", 100)
    data = b'[Event "x"]\n1A. e4\n[' + b"x" * 5000 + b"\n1a. e5 *\n"
    (game,) = iter_games(io.BytesIO(data))
    assert [m.san for m in game.moves] == ["e4", "e5"]
    assert [p.message for p in game.problems] == ["line longer than 1000 characters: skipped"]


def test_a_comment_too_long_right_after_another_is_skipped_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bpgn_read, "MAX_TOKEN", 1000)
    monkeypatch.setattr(bpgn_read, "CHUNK", 100)
    # One line: the stream is cut anywhere, and the long comment starts mid-piece.
    data = b'[Event "x"] 1A. e4 {c}{' + b"a" * 5000 + b"} 1a. e5 *"
    (game,) = iter_games(io.BytesIO(data))
    assert [m.san for m in game.moves] == ["e4", "e5"]
    assert [p.message for p in game.problems] == ["comment longer than 1000 characters: skipped"]


def test_a_text_stream_read_in_pieces_reads_as_the_whole_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = '[Event "a"]\n1A. e4 1a. e5 2A. Nf3 zz 2a. Nc6 *\n\n[Event "b"]\n1B. d4 *\n'
    monkeypatch.setattr(bpgn_read, "CHUNK", 5)
    pieces = list(iter_games(io.StringIO(text)))
    whole = read_games(text)
    assert pieces == whole
    assert [(p.line, p.column) for p in pieces[0].problems] == [(2, 23)]
