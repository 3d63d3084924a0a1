"""Files players share (issue 15, items 6 and 9): a YAML alias bomb in a card file, a recursive
alias, an over-large file, and a collection that is not UTF-8. Each is refused with the file and
line named; the rest of the library loads and the programs go on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from companion.cards import catalog
from companion.cards.yamlload import MAX_FILE_BYTES, DataError, load_file
from companion.tags.collection import CollectionError, bind_uid, load_uid_map
from tests.cards_index import warm_index
from tests.cli_run import run_cli

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]

# Under 700 bytes: 9 levels of nine aliases, about 387 million strings when expanded.
BOMB = "cards:\n  - &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"  - &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))
RECURSIVE = "cards: &a [*a]\n"


def test_the_bomb_is_the_size_of_the_report() -> None:
    assert len(BOMB.encode()) < 700


@pytest.mark.parametrize("text, line", [(BOMB, 3), (RECURSIVE, 1), ("a: &x {b: 1}\nc: *x\n", 2)])
def test_aliases_are_refused_with_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "rise.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_file(path)
    assert caught.value.line == line and "alias" in caught.value.message
    assert str(caught.value).startswith(f"{path}:{line}:")


def test_an_anchor_without_alias_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: &x {b: 1}\n", encoding="utf-8")
    assert load_file(path) == {"a": {"b": 1}}


def test_an_over_large_file_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    from companion import i18n

    monkeypatch.setattr(i18n, "_lang", "en")  # the cause as written below
    path = tmp_path / "astral.yaml"
    with path.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(DataError, match="too large"):
        load_file(path)


def test_the_rest_of_the_library_loads(tmp_path: Path) -> None:
    overlay = tmp_path / "cards"
    overlay.mkdir()
    (overlay / "rise.yaml").write_text(RECURSIVE, encoding="utf-8")
    (overlay / "astral.yaml").write_text(BOMB, encoding="utf-8")
    built = catalog.build(overlay=overlay, with_sources=False)
    assert {"rise", "astral", "res-arcana", "ascension"} <= set(built.games)
    assert built.cards["res-arcana"]
    assert any("rise.yaml:1" in m for m in built.errors["rise"])
    assert any("astral.yaml:3" in m for m in built.errors["astral"])


def companion(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    warm_index(home)  # from the session's: only the games of the files a test wrote are rebuilt
    # In this process (tests.cli_run): what the command says and its status; the user's files in
    # this home, its own card index.
    return run_cli("--lang", "en", *args, cwd=ROOT, stdin=stdin,
                   env={"COMPANION_HOME": str(home), "COMPANION_CACHE": None})


def test_search_goes_on_with_a_bomb_in_the_overlay(tmp_path: Path) -> None:
    (tmp_path / "data" / "cards").mkdir(parents=True)
    (tmp_path / "data" / "cards" / "astral.yaml").write_text(BOMB, encoding="utf-8")
    (tmp_path / "data" / "cards" / "rise.yaml").write_text(RECURSIVE, encoding="utf-8")
    run = companion(tmp_path, "cards", "search", "--game", "res-arcana", "athanor")
    assert run.returncode == 0, run.stderr
    assert "Athanor" in run.stdout and "Traceback" not in run.stderr
    stats = companion(tmp_path, "cards", "stats")
    assert "astral.yaml:3: alias *a" in stats.stdout + stats.stderr


NOT_UTF8 = "04112233445566: res-arcana:athanor  # caf\xe9\n".encode("latin-1")


def test_a_collection_that_is_not_utf8_is_treated_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "collection.yaml"
    path.write_bytes(NOT_UTF8)
    assert load_uid_map(path) == {}
    with pytest.raises(CollectionError):
        bind_uid("04A1B2C3D4E5F6", "vtes:100845", path=path)
    assert path.read_bytes() == NOT_UTF8  # left untouched


def test_a_collection_with_an_alias_bomb_is_treated_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "collection.yaml"
    path.write_text("a: &a [*a]\n04112233445566: res-arcana:athanor\n", encoding="utf-8")
    assert load_uid_map(path) == {}


def test_the_console_starts_with_a_collection_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "collection.yaml").write_bytes(NOT_UTF8)
    run = companion(tmp_path, "console", "--reader", "sim:vtes:100845", "--count", "1")
    assert run.returncode == 0, run.stderr
    assert "vtes:100845" in run.stdout and "Traceback" not in run.stderr


def test_escapes_written_in_a_card_file_are_made_printable(tmp_path: Path) -> None:
    path = tmp_path / "rise.yaml"
    path.write_text('cards:\n  - {id: x, name: "Evil\\e]0;pwned\\a", text: "line one\\nline \\e[2J two"}\n',
                    encoding="utf-8")
    card = load_file(path)["cards"][0]
    assert card["name"] == "Evil\\x1b]0;pwned\\x07"
    assert card["text"] == "line one\nline \\x1b[2J two"


def test_a_shared_deck_list_prints_no_escape(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("2 Athanor\n1 Evil\x1b]0;pwned\x07 card\n", encoding="utf-8")
    run = companion(tmp_path, "deck", "check", "--game", "res-arcana", str(deck))
    assert "\x1b" not in run.stdout + run.stderr and "\\x1b" in run.stdout + run.stderr
