"""Long games stay fast (issue 22, item 4): undo and redo keep their stacks in constant time per
event and hold no copy of every event's effects, so a game of many thousand changes reopens in
time linear in its events (measured by ``bench journal``) and its memory stays flat; the card
search is built when the cards load, never at the first card a player names."""

from __future__ import annotations

import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from companion.benchmarks import bench_game
from companion.benchmarks.journal import cycle
from companion.table.engine import Game, Intent
from companion.table.journal import Journal

pytestmark = pytest.mark.timeout(300)


GAME, MAIN, SECOND = bench_game()
MOVES = cycle(MAIN, SECOND)


def played(journal: Journal, commands: int) -> Game:
    journal._db.execute("PRAGMA synchronous=OFF")  # a test file, not a table: no fsync per change
    game = Game.new(journal, GAME, ["Ann", "Bob", "Cy", "Dee"], seed=8)
    for i in range(commands):
        game.apply(MOVES[i % len(MOVES)])
    return game


def test_a_long_game_reopens_as_it_was_with_its_undo_and_redo(tmp_path: Path) -> None:
    with Journal(tmp_path / "g.sqlite3") as j:
        game = played(j, 6000)
        assert game.apply(Intent("undo", args={"count": 3})).ok
        live, undo, redo = game.state, game.can_undo, game.can_redo
        game.close()
        again = Game.open(j, game.id)
        assert again.state == live and (again.can_undo, again.can_redo) == (undo, redo) and redo == 3
        # Undo and redo still take back exactly what they took back live.
        assert again.apply(Intent("redo", args={"count": 3})).ok
        assert again.apply(Intent("undo", args={"count": 5})).ok
        again.close()
        third = Game.open(j, game.id)
        assert third.state == again.state and third.can_undo == again.can_undo


def test_a_follower_reads_only_the_new_events(tmp_path: Path) -> None:
    with Journal(tmp_path / "g.sqlite3") as j:
        game = played(j, 300)
        ids = [e.id for e in j.iter_events(game.id)]
        assert [e.id for e in j.iter_events(game.id, after=ids[-3])] == ids[-2:]
        assert list(j.iter_events(game.id, after=ids[-1])) == []


def test_memory_stays_flat_while_a_game_goes_on(tmp_path: Path) -> None:
    with Journal(tmp_path / "g.sqlite3") as j:
        game = played(j, 500)
        tracemalloc.start()
        for i in range(3000):
            game.apply(MOVES[i % len(MOVES)])
        held, _peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # 3,000 changes leave less than 100 kB held (each undoable one: an 8-byte id on a stack;
        # before, each kept its effects in memory, about 1.5 MB here).
        assert held < 100 * 1024, held


def test_an_undo_written_by_another_program_naming_an_old_event_still_replays(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with Journal(path) as j:
        game = played(j, 40)
        ids = [e.id for e in j.events(game.id) if e.payload.get("undoable")]
        game.close()
    db = sqlite3.connect(path)  # an undo naming an event deep in the stack, not its top
    last = db.execute("SELECT MAX(id) FROM events").fetchone()[0]
    db.execute("INSERT INTO events (game_id, type, seat, ts, source, payload) VALUES (?, 'undo', NULL, 0, 'script', ?)",
               (game.id, f'{{"targets": [{ids[2]}], "effects": []}}'))
    db.commit()
    db.close()
    with Journal(path) as j:
        again = Game.open(j, game.id)
        assert ids[2] not in list(again._undo) and again.can_redo == 1 and again.last_event_id == last + 1


def test_the_card_search_is_built_when_the_cards_load(tmp_path: Path) -> None:
    from companion.play.runtime import Runtime
    from companion.play.voice import Voice

    runtime = Runtime(journal_path=tmp_path / "g.sqlite3", voice=Voice(enabled=False))
    assert not runtime.library.search_ready
    runtime.load_cards()  # what every front end runs in the background at start
    assert runtime.library.search_ready  # the first vampire named does not wait for it
