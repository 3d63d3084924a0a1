"""VTES on every supported Python: krcg 4 (Python 3.11) and krcg 5 (3.12+) give the same cards
through one adapter; with krcg 5 the official French texts it ships are shown, spoken and
searchable; nothing is ever read from krcg 5's pickle in the shared temp folder, and the card
index itself holds no pickle. ``make test`` runs this file under every Python it finds (noxfile.py)."""

import json
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cards import index
from companion.cards.explain import card_lines
from companion.cards.library import CardLibrary
from companion.games.vtes import cards as vtes
from companion.speech.phrases import card_speech
from tests.cards_index import warm_index, without
from tests.cli_run import run_cli

KRCG5 = vtes.krcg_major() >= 5
needs_krcg5 = pytest.mark.skipif(not KRCG5, reason="krcg 4 (Python 3.11) ships no translations")


@pytest.fixture(scope="module")
def library(card_library) -> CardLibrary:
    return card_library  # the session's (conftest.py)


def test_the_installed_krcg_line_matches_the_python() -> None:
    # pyproject.toml's markers: krcg 5 needs Python 3.12; 3.11 keeps krcg 4.
    assert vtes.krcg_major() == (5 if sys.version_info >= (3, 12) else 4)


def test_every_vtes_card_with_the_same_references(library: CardLibrary) -> None:
    assert "vtes" not in library.errors()
    cards = library.load("vtes")
    assert len(cards) > 4000
    govern = library.get("vtes:100845")
    assert govern is not None and govern.name == "Govern the Unaligned"
    assert govern.types == ("Action",) and govern.extra["blood_cost"] == "1" and govern.keywords == ("dom",)
    anson = library.get("vtes:200107")
    assert anson is not None and anson.name == "Anson (G1)"
    assert (anson.extra["group"], anson.extra["capacity"], anson.extra["title"]) == ("1", 8, "Prince")
    assert anson.extra["clans"] == ["Toreador"] and "CEL" in anson.keywords
    convert = library.get("vtes:200076")
    assert convert is not None and convert.name == "Anarch Convert (ANY)" and convert.extra["group"] == "ANY"
    # krcg 5 marks cards in rulings with their id; the reader sees the name only.
    magnum = library.get("vtes:100001")
    assert magnum is not None and any("{Hidden Lurker}" in r for r in magnum.rulings)
    assert library.search("govern unaligned", game="vtes")[0].card.ref == "vtes:100845"
    assert library.search("Anson", game="vtes")[0].card.ref == "vtes:200107"


@needs_krcg5
def test_french_listener_sees_and_hears_the_official_french_card(library: CardLibrary) -> None:
    govern = library.get("vtes:100845")
    assert govern is not None and govern.names["fr"] == "Diriger les indécis"
    translated = [c for c in library.load("vtes").values() if "fr" in (c.extra.get("i18n") or {})]
    assert len(translated) > 400  # about 430 cards have an official French text today
    lines = card_lines(govern, library.game("vtes"), "fr")
    assert lines[0].startswith("Diriger les indécis")
    assert any("Mordre à +2 en morsure" in line for line in lines)
    said = card_speech(govern, "normal", "fr", game=library.game("vtes"))
    assert "Diriger les indécis" in said[0].text and said[0].lang == "fr"
    # Said once, in French: no English card text, no English voice.
    assert all(u.lang == "fr" for u in said)
    assert not any("Bleed with" in u.text for u in said)
    english = card_speech(govern, "normal", "en", game=library.game("vtes"))
    assert "Govern the Unaligned" in english[0].text


@needs_krcg5
def test_untranslated_card_stays_english_once(library: CardLibrary) -> None:
    untranslated = next(c for c in library.load("vtes").values()
                        if "fr" not in (c.extra.get("i18n") or {}) and not c.extra["crypt"] and c.text
                        and c.name.isalpha())
    said = card_speech(untranslated, "normal", "fr", game=library.game("vtes"))
    english = [u.text for u in said if u.lang == "en"]
    # Its name and its text in the English voice, once each; what the companion adds is French.
    assert len(english) == 2 and untranslated.name in english[0], english
    assert any(u.lang == "fr" for u in said)


@needs_krcg5
def test_french_name_is_searchable(library: CardLibrary) -> None:
    assert library.search("Diriger les indécis", game="vtes")[0].card.ref == "vtes:100845"
    assert library.search("diriger les indecis", game="vtes")[0].card.ref == "vtes:100845"


def test_cards_show_in_french_from_the_command_line() -> None:
    out = run_cli("--lang", "fr", "cards", "show", "vtes:100845")  # what it prints: in this process
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("Diriger les indécis" if KRCG5 else "Govern the Unaligned"), out.stdout


PLANT = """
import os, pickle
class Plant:
    def __reduce__(self):
        return (os.mkdir, ({marker!r},))
"""


def _planted_pickle(marker: Path) -> bytes:
    namespace: dict = {}
    exec(PLANT.format(marker=str(marker)), namespace)  # noqa: S102 - builds the hostile file
    return pickle.dumps(namespace["Plant"]())


def test_a_pickle_planted_in_the_temp_folder_is_never_read(tmp_path: Path) -> None:
    """krcg 5's loader.load() unpickles krcg_cards_<version>.pkl from the shared temp folder:
    another local user could plant it. The companion never reads (nor writes) that path."""
    temp = tmp_path / "shared-tmp"
    temp.mkdir()
    marker = tmp_path / "code-ran"
    planted = temp / f"krcg_cards_{vtes.krcg_version()}.pkl"
    planted.write_bytes(_planted_pickle(marker))
    before = planted.read_bytes()
    env = {**os.environ, "TMPDIR": str(temp), "COMPANION_HOME": str(tmp_path / "home")}
    # Its own index, the session's without VTES: the child must load krcg itself (the other
    # games read as they are, not built again for nothing).
    env.pop("COMPANION_CACHE", None)
    without(warm_index(tmp_path / "home"), "vtes")
    script = ("from companion.cards.library import CardLibrary\n"
              "from companion.cards import decks\n"
              "lib = CardLibrary()\n"
              "assert len(lib.load('vtes')) > 4000, lib.errors()\n"
              "report = decks.check('vtes', 'Crypt:\\n12 Anson\\nLibrary:\\n40 Govern the Unaligned\\n', lib)\n"
              "assert report.counts['library'] == 40, report.counts\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "the planted pickle was unpickled"
    assert planted.read_bytes() == before, "krcg's temp cache was written"


def test_the_card_index_holds_json_and_a_planted_pickle_runs_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    # An index of its own, written here: the session's copied without VTES, whose row is built
    # here from krcg's lists (the other games' rows are written again as they were stored).
    monkeypatch.delenv("COMPANION_CACHE", raising=False)
    without(warm_index(tmp_path / "home"), "vtes")
    catalog, rebuilt = index.load()
    assert rebuilt and len(catalog.cards["vtes"]) > 4000
    with sqlite3.connect(index.index_path()) as db:
        for rows, bodies in db.execute("SELECT data, bodies FROM cards"):
            json.loads(rows), json.loads(bodies)  # JSON text, nothing else
        marker = tmp_path / "code-ran"
        db.execute("UPDATE cards SET data = ? WHERE game = 'vtes'", (_planted_pickle(marker),))
    again, rebuilt = index.load()
    assert not marker.exists(), "the index was unpickled"
    assert rebuilt and again.cards["vtes"]["100845"] == catalog.cards["vtes"]["100845"]
    warm, rebuilt = index.load()
    assert not rebuilt and warm.cards == catalog.cards and warm.games == catalog.games


def test_krcg_s_collection_is_let_go_once_its_cards_are_ours() -> None:
    """Building the card index reads krcg's whole collection; the running app then keeps only
    its own cards (krcg's objects were 30 MB kept for the life of the app). A deck read later
    reads krcg again, as it does after a start from the card index."""
    from companion.games.vtes import CardSource

    assert len(CardSource.cards()) > 4000
    assert not vtes._loaded
    if not KRCG5:
        from krcg import vtes as krcg_vtes

        assert not list(krcg_vtes.VTES)  # krcg 4's own global map, emptied too
    parsed = vtes.parse_deck("Crypt (1 card)\n1x Anson\n\nLibrary (1 card)\n1x Govern the Unaligned\n")
    assert [(e.id, e.count, e.crypt) for e in parsed.entries] == [("200107", 1, True), ("100845", 1, False)]
