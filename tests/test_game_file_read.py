"""Reading a game's table data: its own section first (the home screen reads five before its
first frame), the whole file when the section does not stand alone."""

from pathlib import Path

import pytest

from companion.table.data import TableDataError, read_game_file

TABLE = """table:
  seats: {min: 2, max: 4}
  counters:
    - {id: life, name: {fr: Vie, en: Life}, start: 20}
"""


def test_the_table_section_is_read_when_another_section_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text("id: demo\nnames: {fr: Démo, en: Demo}\n" + TABLE + "glossary:\n  - [unclosed\n", encoding="utf-8")
    doc = read_game_file(path)
    assert doc["id"] == "demo" and doc["names"]["en"] == "Demo" and doc["table"]["seats"]["max"] == 4


def test_a_section_leaning_on_the_rest_of_the_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text("id: demo\nshared: &seats {min: 2, max: 5}\ntable:\n  seats: *seats\n", encoding="utf-8")
    assert read_game_file(path)["table"]["seats"] == {"min": 2, "max": 5}


def test_a_broken_table_section_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text("id: demo\ntable:\n  seats: [unclosed\n", encoding="utf-8")
    with pytest.raises(TableDataError, match="not valid YAML"):
        read_game_file(path)
