"""``bughouse server``'s database commands (commands/server_admin.py): add-bot,
revoke-bot, export (checked by ``bughouse replay --check``), backup."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest
from archive_games import START, finished, seats, start_of

from bughouse_arbiter.cli import main
from bughouse_arbiter.commands import server_admin
from bughouse_arbiter.environment import Environment, OutputGone
from bughouse_arbiter.errors import UsageError
from bughouse_arbiter.storage import SqliteStore

NAMES = ("ann", "bob", "cat", "dan")


def _run(*argv: str) -> tuple[int, str, str]:
    """``bughouse server ARGV`` as l1's ``server`` command will hand it on."""
    parser = argparse.ArgumentParser(prog="bughouse server")
    server_admin.add_db_option(parser)
    server_admin.register(parser.add_subparsers(dest="sub", required=True))
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"HOME": "/nonexistent"}, command="server")
    status = args.run(args, env)
    env.stdout.flush()
    return status, out.getvalue(), err.getvalue()


def test_add_bot_prints_a_token_that_seats_that_bot_and_revoke_ends_it(tmp_path: Path) -> None:
    db = tmp_path / "data" / "server.sqlite3"
    status, out, err = _run("admin", "add-bot", "sjengbot", "--db", str(db))
    assert status == 0
    token = out.strip()
    assert len(token) == 32 and out.count("\n") == 1
    assert "'sjengbot' added" in err and "only this once" in err
    store = SqliteStore.open(db)
    assert store.bot_for_token("sjengbot", token) is not None
    store.close()
    # --db before the subcommand's name works as well.
    assert _run("--db", str(db), "admin", "revoke-bot", "sjengbot")[0] == 0
    store = SqliteStore.open(db)
    assert store.bot_for_token("sjengbot", token) is None
    store.close()
    with pytest.raises(UsageError, match="no bot 'sjengbot' with a live token"):
        _run("admin", "revoke-bot", "sjengbot", "--db", str(db))
    with pytest.raises(UsageError, match="the name 'SJENGBOT' is taken"):
        _run("admin", "add-bot", "SJENGBOT", "--db", str(db))
    with pytest.raises(UsageError, match="a username has 2 to 20 characters"):
        _run("admin", "add-bot", "x", "--db", str(db))


def test_the_default_database_is_in_the_data_folder() -> None:
    assert server_admin.default_db({"XDG_DATA_HOME": "/d"}) == Path(
        "/d/bughouse-arbiter/server.sqlite3"
    )
    assert server_admin.default_db({"HOME": "/h"}) == Path(
        "/h/.local/share/bughouse-arbiter/server.sqlite3"
    )


def _archive(db: Path) -> None:
    store = SqliteStore.open(db)
    for name in NAMES:
        store.add_bot(name, now=START)
    for i, result in enumerate(("1-0", "0-1", "1/2-1/2", "1-0")):
        store.record_game(finished(f"g{i}", seats(NAMES, "bot"), result, ended=START + i * 86400,
                                   seed=i, plies=10 + i))
    store.begin_game(start_of("g4", seats(NAMES, "bot")))
    store.abort_interrupted(now=START + 5 * 86400)
    store.begin_game(start_of("g5", seats(NAMES, "bot")))  # still playing: not exported
    store.close()


def test_export_writes_every_game_and_replay_check_passes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "server.sqlite3"
    _archive(db)
    status, out, err = _run("export", "--db", str(db))
    assert status == 0
    assert "exported 5 game(s); 1 game(s) in progress left out" in err
    assert out.count("[Event ") == 5
    path = tmp_path / "all.bpgn"
    path.write_text(out)
    assert main(["replay", "--check", str(path)]) == 0
    summary = capsys.readouterr().out
    assert "checked 5 game(s) in 1 file(s): 5 passed, 0 failed" in summary
    # Chosen by date and result.
    _, out, err = _run("export", "--db", str(db), "--since", "2025-12-02", "--result", "1-0")
    assert out.count("[Event ") == 1 and "exported 1 game(s)" in err
    _, out, _ = _run("export", "--db", str(db), "--until", "2025-12-02", "--player", "ann")
    assert out.count("[Event ") == 1
    with pytest.raises(UsageError, match="--since takes a date YYYY-MM-DD, not 'tuesday'"):
        _run("export", "--db", str(db), "--since", "tuesday")
    with pytest.raises(UsageError, match="no database at"):
        _run("export", "--db", str(tmp_path / "none.sqlite3"))
    assert not (tmp_path / "none.sqlite3").exists()


class _ClosedAfterOneGame(io.StringIO):
    """A standard output whose reader goes away (``| head``) after the first game."""

    def write(self, text: str) -> int:
        if "[Event " in self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


@pytest.mark.filterwarnings("error")
def test_export_into_a_closed_pipe_stops_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    _archive(db)
    parser = argparse.ArgumentParser(prog="bughouse server")
    server_admin.register(parser.add_subparsers(dest="sub", required=True))
    args = parser.parse_args(["export", "--db", str(db)])
    env = Environment(stdout=_ClosedAfterOneGame(), stderr=io.StringIO(), command="server")
    with pytest.raises(OutputGone):
        args.run(args, env)
    # The export's read transaction ended with it: the file takes a writer at once.
    store = SqliteStore.open(db)
    store.add_bot("afterwards")
    store.close()


def test_backup_copies_the_database_while_it_is_open(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    _archive(db)
    server = SqliteStore.open(db)  # the running server's connection
    server.begin_game(start_of("g6", seats(NAMES, "bot")))
    out = tmp_path / "backup.sqlite3"
    status, _, err = _run("backup", "--db", str(db), str(out))
    assert status == 0 and "(4 finished, 1 aborted game(s))" in err
    server.close()
    copy = SqliteStore.open(out, create=False)
    assert copy.counts() == {"playing": 2, "finished": 4, "aborted": 1}
    copy.close()
