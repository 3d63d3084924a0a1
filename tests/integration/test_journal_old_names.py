"""A journal written before a seat's counters were named "counters" (they were "c") opens,
replays, undoes and recovers as if written today: the new name is only in the code."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import Journal


def _play(path: Path) -> tuple[int, list[dict]]:
    with Journal(path) as journal:
        game = Game.new(journal, "ascension", ["Ann", "Bob"], seed=7)
        parser = Parser(game.data, ["Ann", "Bob"])
        for words in ("honor 1 +3", "honor 2 +1", "honor 2 +2", "undo"):
            assert game.apply(parser.parse(words)).ok, words
        seats = [dict(s, counters=dict(s["counters"])) for s in game.state["seats"]]
        gid = game.id
        game.close()
    return gid, seats


def _as_old(path: Path, drop_start: bool = False) -> int:
    """Every payload written back under the old name, as the earlier versions wrote them."""
    db = sqlite3.connect(path)
    changed = 0
    for eid, payload in db.execute("SELECT id, payload FROM events").fetchall():
        old = payload.replace('"counters"', '"c"')
        if old != payload:
            changed += 1
            db.execute("UPDATE events SET payload = ? WHERE id = ?", (old, eid))
    if drop_start:
        db.execute("DELETE FROM events WHERE type = 'start'")
    db.commit()
    db.close()
    return changed


def test_an_old_journal_replays_to_the_same_state_and_undoes(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    gid, seats = _play(path)
    assert [s["counters"]["honor"] for s in seats] == [3, 1]
    assert _as_old(path) >= 3  # the start and each counter change named the old key

    with Journal(path) as journal:
        game = Game.open(journal, gid)
        assert game.state["seats"] == seats
        parser = Parser(game.data, ["Ann", "Bob"])
        assert game.apply(parser.parse("redo")).ok  # the undone "honor 2 +2", from old effects
        assert [s["counters"]["honor"] for s in game.state["seats"]] == [3, 3]
        assert game.apply(parser.parse("undo")).ok
        assert game.apply(parser.parse("undo")).ok  # an old change taken back
        assert [s["counters"]["honor"] for s in game.state["seats"]] == [3, 0]
        assert all("c" not in s for s in game.state["seats"])
        game.close()


def test_an_old_journal_without_its_start_is_rebuilt_with_its_counters(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    gid, seats = _play(path)
    _as_old(path, drop_start=True)
    with open(path, "r+b") as f:  # the header zeroed: the power-cut case, recovery reads the pages
        f.write(b"\0" * 100)

    with Journal(path) as journal:
        assert journal.notice is not None
        rows = journal.games()
        assert [r.players for r in rows] == [["Ann", "Bob"]]
        game = Game.open(journal, rows[0].id)
        assert [s["counters"]["honor"] for s in game.state["seats"]] == [s["counters"]["honor"] for s in seats]
        assert all("c" not in s for s in game.state["seats"])
        game.close()
