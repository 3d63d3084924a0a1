"""A game.yaml kept parsed in the cache folder (yamlload.load_text_kept, read by every game's
start): the very document a parse gives, every value's line included (the table's checks name
lines); an edited file parsed again, its error named; a damaged kept file only parsed again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion import registry
from companion.cards import gamedata
from companion.cards.yamlload import DataError, LDict, LList, line_of, load_text, load_text_kept, read_file


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    return tmp_path


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types, and the same line for every key and item."""
    if type(a) is not type(b):
        return False
    if isinstance(a, LDict):
        return (a.line, a.key_lines, list(a)) == (b.line, b.key_lines, list(b)) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, LList):
        return ((a.line, a.item_lines, len(a)) == (b.line, b.item_lines, len(b))
                and all(same(x, y) for x, y in zip(a, b, strict=True)))
    return bool(a == b)


@pytest.mark.parametrize("game", ["vtes", "rise"])
def test_a_kept_game_is_the_document_a_parse_gives_lines_included(cache: Path, game: str) -> None:
    path = registry.game_file(game)
    assert path is not None
    text = read_file(path, "game.yaml")
    first = load_text_kept(text, "game.yaml", "g.marshal")  # parsed, and kept
    assert (cache / "g.marshal").is_file()
    again = load_text_kept(text, "game.yaml", "g.marshal")  # from the kept file
    assert again is not first
    assert same(first, load_text(text, "game.yaml")) and same(again, first)


def test_an_edited_text_is_parsed_again_and_its_error_named(cache: Path) -> None:
    text = "id: x\nnames:\n  fr: X\n  en: X\nlist: [1, deux]\n"
    kept = load_text_kept(text, "x.yaml", "g.marshal")
    assert line_of(kept, "list") == 5 and line_of(kept["list"], 1) == 5
    moved = load_text_kept("\n" + text, "x.yaml", "g.marshal")
    assert line_of(moved, "list") == 6
    # Caught here, not kept in pytest.raises' ExceptionInfo: its traceback's frames hold the
    # parser's nodes in a cycle until a collection, which test_cards_loader's count of nodes
    # would then see go (the same worker may run it next).
    try:
        load_text_kept(text + "id: y\n", "x.yaml", "g.marshal")
    except DataError as exc:
        line = exc.line
    else:
        pytest.fail("a duplicate key was read")
    assert line == 6  # the duplicate key, as a first parse names it


@pytest.mark.parametrize("damage", [b"", b"\x00" * 40, b"not marshal at all, just bytes " * 3])
def test_a_damaged_kept_file_is_parsed_again(cache: Path, damage: bytes) -> None:
    text = "a: [1, {b: 2}]\n"
    load_text_kept(text, "x.yaml", "g.marshal")
    (cache / "g.marshal").write_bytes(damage)
    assert same(load_text_kept(text, "x.yaml", "g.marshal"), load_text(text, "x.yaml"))


def test_a_game_read_twice_in_two_programs_is_read_from_the_kept_file(cache: Path) -> None:
    path = registry.game_file("astral")
    assert path is not None
    gamedata._last_read = None  # what another program, started afresh, holds
    info, doc = gamedata.read_game(path)
    kept_files = list(cache.glob("game-*.marshal"))
    assert len(kept_files) == 1
    gamedata._last_read = None
    info2, doc2 = gamedata.read_game(path)
    assert info2 == info and same(doc2, doc) and doc2 is not doc
