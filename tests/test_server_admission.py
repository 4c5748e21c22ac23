"""The pure parts of the server's defences: pools, the refusal log, the limits,
the names a page must use, and the edge check of a page's messages."""

from __future__ import annotations

import pytest
import trio

from bughouse_arbiter.core.model import Seat
from bughouse_arbiter.core.rules import HouseRules
from bughouse_arbiter.errors import UsageError
from bughouse_arbiter.net.admission import Pool
from bughouse_arbiter.net.gate import SiteNames
from bughouse_arbiter.net.limits import Limits, limits_from_texts
from bughouse_arbiter.net.refusals import RefusalLog
from bughouse_arbiter.serve.live_page import failure, page_message
from bughouse_arbiter.serve.seam import AuthRefused, LiveTable


def test_an_evicting_pool_makes_the_oldest_go_its_own_address_first() -> None:
    evicted: list[str] = []
    pool = Pool(4, 2, evict=True)
    a1 = pool.admit("a", lambda: evicted.append("a1"))
    pool.admit("b", lambda: evicted.append("b1"))
    pool.admit("a", lambda: evicted.append("a2"))
    # "a" has its share: its own oldest goes, not b's older one.
    pool.admit("a", lambda: evicted.append("a3"))
    assert evicted == ["a1"] and a1 is not None and a1.evicted
    assert pool.count("a") == 2 and len(pool) == 3
    pool.admit("c", lambda: evicted.append("c1"))
    # Full: the oldest of all (b1) makes room for a newcomer of another address.
    pool.admit("d")
    assert evicted == ["a1", "b1"]
    assert len(pool) == 4 and pool.count("b") == 0


def test_a_refusing_pool_turns_newcomers_away_and_a_release_makes_room() -> None:
    pool = Pool(2, 1, evict=False)
    first = pool.admit("a")
    assert first is not None
    assert pool.admit("a") is None  # a's share
    second = pool.admit("b")
    assert second is not None and pool.admit("c") is None  # full
    pool.release(first)
    pool.release(first)  # twice: no harm
    assert pool.admit("c") is not None and len(pool) == 2
    assert not first.evicted


def test_the_refusal_log_writes_the_first_ones_then_one_count_a_period() -> None:
    log = RefusalLog(period=10, first=3)
    written = [
        line for i in range(1000) for line in log.note(i / 200, f"refused {i}", "wrong token")
    ]
    assert written == ["refused 0", "refused 1", "refused 2"]
    assert log.due(9.9) == []
    summary = log.due(10.0)
    assert summary == [
        "997 more refusals in the last 10 s, not logged one by one (wrong token: 997)"
    ]
    # The flood goes on: no line one by one, one count per period.
    assert log.note(11, "refused again", "junk connection") == []
    assert log.note(12, "and again", "wrong token") == []
    assert log.due(20.0) == [
        "2 more refusals in the last 10 s, not logged one by one "
        "(junk connection: 1, wrong token: 1)"
    ]
    # A quiet period, then refusals are written one by one again.
    assert log.due(30.0) == []
    assert log.note(31, "later", "wrong token") == ["later"]


async def test_the_table_reports_the_counts_each_period_and_when_it_stops(
    autojump_clock: trio.testing.MockClock,
) -> None:
    logged: list[tuple[float, str]] = []
    table = LiveTable(
        HouseRules(),
        {Seat.B_WHITE: _Holder()},  # type: ignore[dict-item]
        names=dict,
        log=lambda text: logged.append((trio.current_time(), text)),
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.report_refusals)
        nursery.start_soon(table.report_refusals)  # a second front end: runs once
        for _ in range(30):
            with pytest.raises(AuthRefused):
                table.authenticate("WB", "wrong", peer="1.2.3.4:5")
        await trio.sleep(12)
        for _ in range(4):
            with pytest.raises(AuthRefused):
                table.authenticate("WB", "\ud800", peer="1.2.3.4:6")
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert [text for _, text in logged[:10]] == [
        "1.2.3.4:5: auth refused for seat 'WB': wrong token"
    ] * 10
    assert logged[10] == (
        10.0,
        "20 more refusals in the last 10 s, not logged one by one (wrong token: 20)",
    )
    assert logged[11:] == [(13.0, "4 more refusals, not logged one by one (wrong token: 4)")]


class _Holder:
    connected = False
    lost = False

    async def attach(self, link: object) -> None:
        pass


def test_limits_are_set_by_name_and_bad_ones_are_one_clear_error() -> None:
    limits = limits_from_texts(["connections=4", "per-address=2", "timeout=0.5", "ping=1"])
    assert limits == Limits(max_connections=4, per_address=2, auth_timeout=0.5, ping_every=1.0)
    for text, message in [
        ("sockets=3", "expected NAME=VALUE with NAME one of connections, requests, pages"),
        ("pages", "expected NAME=VALUE"),
        ("pages=many", "pages: 'many' is not a number"),
        ("pages=0", "pages: 0 is out of range"),
        ("timeout=-1", "timeout: -1 is out of range"),
    ]:
        with pytest.raises(UsageError, match=message):
            limits_from_texts([text])


def test_a_request_must_name_this_server_and_a_socket_come_from_its_page() -> None:
    names = SiteNames.of("127.0.0.1", ("127.0.0.1", "box"), 7791, ["bughouse.example.org"])
    for host in [
        "127.0.0.1:7791",
        "localhost:7791",
        "LOCALHOST",
        "box:80",
        "bughouse.example.org",
        None,
    ]:
        assert names.host_ok(host), host
    for host in ["evil.example.com:7791", "127.0.0.2:7791", "", "[::1", "127.0.0.1:x"]:
        assert not names.host_ok(host), host
    for origin in [
        "http://127.0.0.1:7791",
        "http://localhost:7791",
        "https://bughouse.example.org",
        "http://bughouse.example.org:8080",
        None,
    ]:
        assert names.origin_ok(origin), origin
    for origin in [
        "http://evil.example.com",
        "http://127.0.0.1:3000",  # another page on this machine
        "http://localhost",
        "null",
        "file://",
        "ftp://127.0.0.1:7791",
    ]:
        assert not names.origin_ok(origin), origin
    v6 = SiteNames.of("::ffff:10.0.0.5", ("::",), 80)
    assert (
        v6.host_ok("10.0.0.5") and v6.origin_ok("http://10.0.0.5") and not v6.host_ok("localhost")
    )


def test_a_pages_message_is_checked_at_the_edge() -> None:
    assert page_message('{"type": "tell", "text": "+trades"}') == {
        "type": "tell",
        "text": "+trades",
    }
    assert page_message('{"type": "tell", "text": "\\ud83d\\ude00"}') == {
        "type": "tell",
        "text": "😀",
    }
    for text, answer in [
        ("[" * 2000 + "]" * 2000, "not JSON (nested too deeply)"),
        (
            '{"type": "sit", "seat": "WB", "token": "\\ud800"}',
            "not valid Unicode text (a lone surrogate)",
        ),
        ('{"type": "tell", "text": "a\\udfffb"}', "not valid Unicode text (a lone surrogate)"),
        ('{"type": "x", "deep": {"k": ["\\ud800"]}}', "not valid Unicode text (a lone surrogate)"),
        ("{", "not JSON"),
        ("[1]", "a message is an object with a 'type'"),
        ('{"type": 1}', "a message is an object with a 'type'"),
    ]:
        assert page_message(text) == answer, text


def test_a_peer_going_away_is_no_failure_to_log() -> None:
    assert failure(ExceptionGroup("x", [trio.BrokenResourceError(), OSError(104, "reset")])) is None
    assert failure(trio.Cancelled._create()) is None  # type: ignore[attr-defined]
    inner = ExceptionGroup("x", [ExceptionGroup("y", [KeyError("k")])])
    assert failure(ExceptionGroup("z", [OSError(), inner])) == "KeyError: 'k'"
