"""The journal against what a year of evenings does to it (issue 15, items 1, 2, 3 and 10): a
damaged page, a 0-byte file, another program's database, hand-edited payloads, two programs on
one game, a full disk and a lock held by another process. The companion always starts, keeps the
damaged file, says what happened in one sentence, and never loses a change it showed."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.table.commands import Parser
from companion.table.engine import Game
from companion.table.journal import GameLocked, Journal, JournalError
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


def play(game: Game, *lines: str):
    parser = Parser(game.data, [s["name"] for s in game.state["seats"]], crypt_card=lambda name: None)
    return [game.apply(parser.parse(line)) for line in lines]


def pools(game: Game) -> list[int]:
    return [s["counters"]["pool"] for s in game.state["seats"]]


def table(*args: str, stdin: str = "", home: Path | None = None) -> subprocess.CompletedProcess:
    """The table command in this process (tests.cli_run): what it says and its status. A program
    holding the journal is a real child below: its lock names its own process."""
    env = {"COMPANION_HOME": str(home)} if home is not None else {}
    return run_cli("--lang", "en", "table", *args, cwd=ROOT, stdin=stdin, env=env)


def season(path: Path, games: int = 12, moves: int = 30) -> dict[int, list[int]]:
    """A journal of many games; returns each game's pools."""
    out = {}
    with Journal(path) as j:
        for n in range(games):
            g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=n)
            play(g, *[f"pool {1 + i % 3} -1" for i in range(moves)])
            out[g.id] = pools(g)
            g.close()
    return out


def damage(path: Path, page: int, page_size: int = 4096) -> None:
    with open(path, "r+b") as f:
        f.seek(page * page_size)
        f.write(b"\xde\xad\xbe\xef" * (page_size // 4))


# --- item 1: a damaged journal --------------------------------------------------------------------------
def test_a_damaged_page_is_set_aside_and_the_games_recovered(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    before = season(path)
    pages = path.stat().st_size // 4096
    damage(path, pages - 1)  # the last page: the most recent events
    damaged_bytes = path.read_bytes()

    with Journal(path) as j:
        assert j.notice is not None and j.notice.key == "journal.notice.recovered"
        sentence = j.notice_text("en")
        assert "\n" not in sentence and sentence.endswith("journal.") and str(j.set_aside) in sentence
        assert j.set_aside is not None and j.set_aside.read_bytes() == damaged_bytes  # kept, untouched
        recovered = {r.id for r in j.games()}
        assert len(recovered) >= len(before) - 2 and recovered <= set(before)
        for gid in recovered:
            g = Game.open(j, gid)  # every recovered game opens
            if gid != max(recovered):
                assert pools(g) == before[gid]
            g.close()
        g = Game.new(j, "rise", ["Ann", "Bob"], seed=1)  # and a new game starts on it
        assert g.id not in before


def test_the_table_command_on_a_damaged_journal(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    season(path, games=4)
    damage(path, 1)  # an early page: the games table itself
    listed = table("--journal", str(path), "--list")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr and "was damaged: set aside as" in listed.stderr
    assert re.search(r"\d+ games? recovered", listed.stderr) and "(s)" not in listed.stderr
    new = table("--journal", str(path), "--game", "vtes", "--players", "Ann,Bob", stdin="pool 1 -2\n")
    assert new.returncode == 0, new.stderr
    assert "Traceback" not in new.stderr and "28" in new.stdout
    assert len(list(tmp_path.glob("games.sqlite3.damaged-*"))) == 1  # only the first opening set it aside


def test_quick_check_finds_damage_that_opening_does_not(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    season(path, games=6)
    damage(path, path.stat().st_size // 4096 // 2)
    with Journal(path) as j:
        assert j.notice is not None
        for row in j.games():
            Game.open(j, row.id).close()


def test_a_zero_byte_journal_is_said_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"")
    with Journal(path) as j:
        assert j.notice is not None and j.notice.key == "journal.notice.empty"
        assert "0 bytes" in j.notice_text("en")
        assert j.set_aside is not None and j.set_aside.exists() and j.set_aside.stat().st_size == 0
        assert j.games() == []


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "photos.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalError) as caught:
        Journal(path)
    assert caught.value.key == "journal.cause.not_a_journal"
    assert path.read_bytes() == before
    assert {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")} == {"photos"}
    listed = table("--journal", str(path), "--list")
    assert listed.returncode == 2 and "Traceback" not in listed.stderr
    assert "not a Table Companion journal" in listed.stderr


def test_hand_edited_payloads_are_skipped_and_said(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3)
        play(g, "pool 1 -1", "pool 2 -2", "pool 3 -3", "pool 1 -4")
        ids = j.event_ids(g.id)
        g.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET payload = '{not json' WHERE id = ?", (ids[2],))
    db.execute("""UPDATE events SET payload = '{"effects": [{"p": ["seats", 9, "x"], "n": 1}], "undoable": true}'
                  WHERE id = ?""", (ids[3],))
    db.execute("UPDATE events SET payload = '[1, 2]' WHERE id = ?", (ids[4],))
    db.commit()
    db.close()
    with Journal(path) as j:
        g = Game.open(j, 1)
        assert g.skipped == ids[2:5]
        assert pools(g)[0] == 25  # the last event still applied: the number is its recorded value
        assert "3 unreadable journal events skipped" in g.opening.text("en")
        assert play(g, "pool 2 +1")[0].ok
    resumed = table("--journal", str(path), "--resume", "1", stdin="pool 1 -1\n")
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr


# --- item 2: two programs on one game -----------------------------------------------------------------
def test_a_second_program_is_refused_naming_the_first(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3).close()
    # The first program: the table command, waiting on its standard input.
    holder = subprocess.Popen([sys.executable, "-m", "companion", "table", "--journal", str(path), "--resume", "1"],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lock = tmp_path / "games.sqlite3.locks" / "1.lock"
        deadline = time.monotonic() + 60
        while not (lock.exists() and str(holder.pid) in lock.read_text()):
            assert time.monotonic() < deadline and holder.poll() is None
            time.sleep(0.05)
        with Journal(path) as j, pytest.raises(GameLocked) as caught:
            Game.open(j, 1)
        assert f"pid {holder.pid}" in caught.value.holder
        assert "open in another program" in caught.value.describe("en")
        second = table("--journal", str(path), "--resume", "1", stdin="pool 1 -3\n")
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert f"pid {holder.pid}" in second.stderr
        holder.stdin.write(b"pool 1 +2\n")
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    with Journal(path) as j:  # the holder is gone: the game opens again, with its change
        g = Game.open(j, 1)
        assert pools(g)[0] == 32


def test_two_writers_without_the_lock_lose_nothing_shown(tmp_path: Path) -> None:
    """The lock is the kernel's, per process; two Journals in one process stand for two programs
    that got past it (another machine on a network folder, an old version)."""
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3).close()
    kiosk_j, laptop_j = Journal(path), Journal(path)
    try:
        kiosk, laptop = Game.open(kiosk_j, 1), Game.open(laptop_j, 1)
        shown = play(kiosk, "pool 1 +2")[0]
        assert shown.ok and pools(kiosk)[0] == 32  # VTES starts at 30 (+2 is capped by nothing)
        other = play(laptop, "pool 1 -3")[0]
        assert not other.ok and "another program changed this game" in other.text("en")
        assert pools(laptop)[0] == 32  # the laptop now shows what the journal holds
        assert play(laptop, "undo")[0].ok
        undo_again = play(kiosk, "undo")[0]
        assert not undo_again.ok  # an undo of an already undone change: refused, not fatal
        assert pools(kiosk)[0] == 30
        assert play(kiosk, "undo")[0].reason is not None  # still refused, never raised
    finally:
        kiosk_j.close()
        laptop_j.close()
    with Journal(path) as j:
        g = Game.open(j, 1)
        assert pools(g)[0] == 30


def test_a_journal_where_an_undo_names_an_undone_event_still_resumes(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3)
        play(g, "pool 1 -1", "undo")
        undo = j.events(g.id)[-1]
        # What two programs used to write: a second undo of the same event.
        j.append(g.id, "undo", undo.payload, source="key")
        g.close()
        again = Game.open(j, g.id)
        assert again.can_undo == 0 and again.can_redo == 1


# --- item 3: a full disk, a lock held by another process -------------------------------------------------
def test_a_full_journal_refuses_the_change_with_its_cause(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with Journal(path) as j:
        g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3)
        pages = j._db.execute("PRAGMA page_count").fetchone()[0]
        j._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own SQLITE_FULL
        results = play(g, *["pool 1 -1"] * 200)
        refused = [r for r in results if not r.ok]
        assert refused, "the journal never filled"
        assert "change not saved: disk full" in refused[0].text("en")
        assert "rollback" not in refused[0].text("en")
        shown = pools(g)
    with Journal(path) as j:
        assert pools(Game.open(j, g.id)) == shown  # everything shown is in the journal


@contextlib.contextmanager
def small_disk(where: Path, size: str = "192k"):
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_disk_for_real(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "games.sqlite3"
        j = Journal(path)
        g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3)
        filler = disk / "filler"
        with contextlib.suppress(OSError), open(filler, "wb") as f:
            while True:
                f.write(b"\0" * 4096)
                f.flush()
        results = play(g, *[f"pool {1 + i % 3} -1" for i in range(300)])
        refused = [r for r in results if not r.ok]
        assert refused and "disk full" in refused[0].text("en")
        shown = pools(g)
        filler.unlink()
        assert play(g, "pool 2 +1")[0].ok  # room again: the game goes on
        shown[1] += 1
        j.close()
        with Journal(path) as again:
            assert pools(Game.open(again, g.id)) == shown


def test_a_journal_locked_by_another_process_says_so(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    j = Journal(path, timeout=0.2)
    g = Game.new(j, "vtes", ["Ann", "Bob", "Cy"], seed=3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        result = play(g, "pool 1 -2")[0]
        assert not result.ok and "busy in another program" in result.text("en")
        assert pools(g)[0] == 30
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert play(g, "pool 1 -2")[0].ok and pools(g)[0] == 28
    j.close()
