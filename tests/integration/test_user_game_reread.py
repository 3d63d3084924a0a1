"""A user's own game edited while the program runs (issue 21, item 2): ``load_table`` reads the
game.yaml again once the file changed (its identity: size, modification time, inode), and forgets
a folder that went away when ``registry.forget`` is called; before, the first reading was kept for
the life of the process, keyed by the game's id alone. A broken edit mid-game keeps the last good
reading (a game being played never loses its table) until the file is fixed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from companion import registry
from companion.cli import main
from companion.table.data import TableDataError, load_table


@pytest.fixture
def duel(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path))
    registry.forget()
    assert main(["games", "new", "duel"]) == 0
    path = tmp_path / "data" / "games" / "duel" / "game.yaml"
    assert path.exists()
    yield path
    registry.forget()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    before = path.stat()
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    # Saved within the same clock tick as the first reading, a file of the same size would look the
    # same: an editor's save moves the time on, as this does.
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))


def test_an_edited_user_game_is_read_again(duel: Path) -> None:
    first = load_table("duel")
    assert first.counters["life"].start == 50
    assert load_table("duel") is first  # unchanged: the same reading, no file parsed again
    edit(duel, "start: 50", "start: 40")
    again = load_table("duel")
    assert again.counters["life"].start == 40
    edit(duel, "start: 40", "start: 45")  # the same size: the time and identity tell it
    assert load_table("duel").counters["life"].start == 45


def test_a_broken_edit_keeps_the_last_good_table_until_fixed(duel: Path) -> None:
    good = load_table("duel")
    edit(duel, "start: 50", "start: cinquante")
    assert load_table("duel") is good  # a game being played goes on
    edit(duel, "start: cinquante", "start: 30")
    assert load_table("duel").counters["life"].start == 30


def test_a_game_folder_removed_is_forgotten(duel: Path) -> None:
    load_table("duel")
    shutil.rmtree(duel.parent)
    registry.forget()
    with pytest.raises(TableDataError):
        load_table("duel")
    assert main(["games", "new", "duel"]) == 0  # made again: read afresh
    assert load_table("duel").counters["life"].start == 50


def test_a_shipped_game_is_read_once() -> None:
    assert load_table("ascension") is load_table("ascension")
