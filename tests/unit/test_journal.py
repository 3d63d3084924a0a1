"""The journal itself: durable settings, order, listing, bad files, and the bench function."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.benchmarks.journal import journal_bench
from companion.table.engine import Game, Intent
from companion.table.journal import Journal, JournalError


def test_settings_and_append(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as j:
        assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        gid, first = j.new_game("vtes", ["Ann", "Bob"], first=("start", {"x": 1}, "script"))
        ev = j.append(gid, "counter", {"a": "é"}, seat=1, source="touch", ts=100.0)
        assert [e.type for e in j.events(gid)] == ["start", "counter"]
        assert j.events(gid)[1] == ev and ev.payload == {"a": "é"} and ev.source == "touch" and ev.seat == 1
        with pytest.raises(ValueError):
            j.append(gid, "counter", {}, source="telepathy")
        assert len(j.events(gid)) == 2  # the bad append wrote nothing
    # another connection sees everything: it was committed
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2


def test_games_are_listed_most_recent_first(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite3") as j:
        a = Game.new(j, "rise", ["Ann", "Bob"], seed=1)
        b = Game.new(j, "astral", ["Cy", "Dee"], seed=2)
        a.apply(Intent("toss"))
        rows = j.games()
        assert [r.id for r in rows] == [a.id, b.id]
        assert rows[0].game == "rise" and rows[0].players == ["Ann", "Bob"] and rows[0].events == 3
        from companion.table.engine import summary_text

        assert summary_text(rows[1].game, rows[1].summary, "en").startswith("round 1")
        assert summary_text(rows[1].game, rows[1].summary, "fr").startswith("manche 1")


def test_not_a_journal(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError):
        Journal(bad)


def test_bench_journal_function(tmp_path: Path) -> None:
    # The memory of the last 300 commands only is traced (the tracing, not the game, was most of
    # this test's CPU); `bench` traces the 10,000 its budget is stated for. Games of 250 and 1,000
    # changes: the bench's every step (an undo timed early, at 200, and late; the traced tail; each
    # size reopened), its figures judged by `bench` on 5,000 to 50,000, not here.
    result = journal_bench(appends=50, replay_sizes=(250, 1000), directory=str(tmp_path), traced=300)
    reopen = result["reopen"]
    assert set(reopen["events"]) == {"250", "1000"} and all(v["same_state"] for v in reopen["events"].values())
    assert reopen["ratio"] > 0 and reopen["budget_ratio"] == 12.0 and reopen["memory"]["budget_kb"] == 1024
    assert result["journal_append_durable_ms"]["median"] > 0  # its budget (5 ms) is checked by `bench`, not here
