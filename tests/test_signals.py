"""The shared table of partner signals (protocol.md §8.2)."""

from __future__ import annotations

import json
import re

from bughouse_arbiter.protocol.signals import (
    BY_CODE,
    SIGNALS,
    meaning,
    signal,
    signals_message,
    words_of,
)


def test_the_table_holds_the_words_of_protocol_8_2_each_once() -> None:
    codes = [s.code for s in SIGNALS]
    assert len(codes) == len(set(codes)) == 6 + 2 * 6 * 3
    assert codes[:6] == ["sit", "go", "fast", "slow", "dead", "x"]
    for s in SIGNALS:
        assert re.fullmatch(r"[a-z]+|[+]{1,3}([pnbrq]|trades)|-{1,3}([pnbrq]|trades)", s.code)
        assert s.words and s.words == s.words.strip()
    assert BY_CODE["++n"].words == "I want a knight: very good"
    assert BY_CODE["---q"].words == "don't let them get a queen: it mates me"
    assert BY_CODE["+trades"].words == "trades are good for me"
    assert BY_CODE["---trades"].words == "any trade mates me"
    assert (BY_CODE["--r"].kind, BY_CODE["--r"].subject, BY_CODE["--r"].level) == ("avoid", "r", 2)


def test_a_message_of_signals_reads_as_words_and_a_sentence_does_not() -> None:
    assert meaning("++N, ---q") == (
        "I want a knight: very good; don't let them get a queen: it mates me"
    )
    assert meaning("move e7e8q") == "please play e7e8q"
    assert meaning("=") == "cancel my requests"
    assert signal("X") is BY_CODE["x"]
    # §8.3: a sentence is not picked apart for signal words.
    assert meaning("Tell me 'go' to start moving into it.") is None
    for text in ("", "need N", "don't give Q", "trade", "move", "move nowhere", "++k"):
        assert words_of(text) is None, text


def test_the_page_gets_the_table_as_json() -> None:
    message = json.loads(json.dumps(signals_message()))
    assert message["type"] == "signals"
    assert message["signals"][0] == {
        "code": "sit",
        "words": "wait: do not move until I say go",
        "kind": "word",
        "subject": "",
        "level": 0,
    }
    assert [s["code"] for s in message["signals"]] == [s.code for s in SIGNALS]
