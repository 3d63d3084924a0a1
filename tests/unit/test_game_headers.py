"""The games menu's few facts of each game (names, seat bounds: ``table.data.header``) come from a
small cache file filled by the full game.yaml reader, so the Home screen parses no game.yaml
before its first frame once they are known; an edited, broken or unknown file is read again."""

import hashlib
import json
import logging
import shutil
from pathlib import Path

import pytest

from companion import registry
from companion.table import data
from companion.table.data import TableDataError, header, load_table

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cardmap of two shipped games, a home and a cache of their own."""
    cardmap = tmp_path / "cardmap"
    for game in ("vtes", "res-arcana"):
        shutil.copytree(ROOT / "cardmap" / game, cardmap / game)
    monkeypatch.setenv("COMPANION_CARDMAP", str(cardmap))
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)
    registry.forget()
    registry.forget()  # the table data read again, as by a new process
    data.forget_headers()
    yield cardmap
    registry.forget()
    registry.forget()  # the table data read again, as by a new process
    data.forget_headers()


def test_a_header_is_what_the_full_reader_says(games: Path) -> None:
    for game in registry.ids():
        full = load_table(game)
        head = header(game)
        assert (head.id, head.names, head.seats_min, head.seats_max) == (
            full.id, full.names, full.seats_min, full.seats_max)
        assert head.name("en") == full.name("en") and head.name("es") == full.name("es")


def test_known_headers_are_read_without_parsing_game_yaml(games: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = {game: header(game) for game in registry.ids()}
    data.forget_headers()  # a new process: only the cache file knows them

    def refuse(*_args: object) -> None:
        raise AssertionError("a game.yaml was parsed")

    monkeypatch.setattr(data, "load_table", refuse)
    assert {game: header(game) for game in registry.ids()} == expected


def test_an_edited_game_file_is_read_again(games: Path) -> None:
    assert header("vtes").seats_max == 6
    path = games / "vtes" / "game.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  seats: {min: 2, max: 6}", "  seats: {min: 2, max: 5}", 1), encoding="utf-8")
    registry.forget()  # the table data read again, as by a new process
    assert header("vtes").seats_max == 5
    data.forget_headers()
    assert header("vtes").seats_max == 5  # and the cache file holds the new one


def test_a_broken_game_file_has_no_header(games: Path) -> None:
    good = header("res-arcana")
    load_table("res-arcana")  # a game being played
    path = games / "res-arcana" / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("card_types:", "card_typos:", 1), encoding="utf-8")
    assert header("res-arcana") == good  # the last good reading, as the table keeps it
    stored = json.loads(data.headers_path().read_text(encoding="utf-8"))["games"]
    broken = hashlib.sha256(path.read_bytes()).hexdigest()
    assert all(v["key"] != broken for v in stored.values())  # nothing stored for the broken file
    registry.forget()  # a new process: nothing good was ever read of this file
    with pytest.raises(TableDataError):
        header("res-arcana")
    with pytest.raises(TableDataError):
        header("no-such-game")


def test_a_damaged_cache_file_is_not_trusted(games: Path, caplog: pytest.LogCaptureFixture) -> None:
    expected = header("vtes")
    data.forget_headers()
    cache = data.headers_path()
    stored = json.loads(cache.read_text(encoding="utf-8"))
    (entry,) = [v for k, v in stored["games"].items() if k.endswith("vtes/game.yaml")]
    entry["seats"] = "many"  # not what was written: read from game.yaml again
    cache.write_text(json.dumps(stored), encoding="utf-8")
    assert header("vtes") == expected
    data.forget_headers()
    cache.write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="companion.table.data"):
        assert header("vtes") == expected
    assert "game-headers" in caplog.text
