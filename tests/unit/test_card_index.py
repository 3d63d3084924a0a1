"""The compiled card index (companion/cards/index.py): a warm start gives the cards built from
the YAML, decodes a card's long fields (text, rulings, flavour, extra) only when something asks
for them, and never trusts a damaged file: it is rebuilt, with a warning saying so."""

import dataclasses
import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion.cards import index
from companion.cards.catalog import Catalog

FIXTURE = Path(__file__).parents[1] / "fixtures" / "cardmap"
GAME, CARD = "res-arcana", "dragon-de-feu"


@pytest.fixture
def cardmap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPANION_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("COMPANION_CACHE", raising=False)  # an index of its own
    target = tmp_path / "cardmap"
    shutil.copytree(FIXTURE, target)
    return target


def load(cardmap: Path) -> tuple[Catalog, bool]:
    return index.load(cardmap, overlay=cardmap / "no-overlay")


def test_a_warm_start_gives_the_cards_built_from_yaml(cardmap: Path) -> None:
    built, rebuilt = load(cardmap)
    assert rebuilt
    warm, rebuilt = load(cardmap)
    assert not rebuilt
    assert warm.cards == built.cards and warm.games == built.games
    card, fresh = warm.cards[GAME][CARD], built.cards[GAME][CARD]
    assert card.to_json() == fresh.to_json()
    assert card.extra["powers"][0]["cost"] == {"vigueur": 1}
    other = dataclasses.replace(warm.cards[GAME]["alchimiste"], name="Autre")
    assert other.text == built.cards[GAME]["alchimiste"].text and other.name == "Autre"
    assert repr(card) == repr(fresh)


def test_long_fields_are_decoded_on_first_use(cardmap: Path) -> None:
    built, _ = load(cardmap)
    warm, _ = load(cardmap)
    card = warm.cards[GAME][CARD]
    assert card.name == built.cards[GAME][CARD].name
    assert "text" not in vars(card) and "extra" not in vars(card)  # a warm start left them encoded
    assert card.text == built.cards[GAME][CARD].text
    assert card.rulings == built.cards[GAME][CARD].rulings and isinstance(card.rulings, tuple)
    assert "text" in vars(card)  # decoded once, kept
    with pytest.raises(AttributeError):
        card.no_such_field  # noqa: B018
    assert not hasattr(card, "no_such_field")


@pytest.mark.parametrize("column", ["data", "bodies"])
def test_a_damaged_index_is_rebuilt_with_a_warning(cardmap: Path, column: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    built, _ = load(cardmap)
    with sqlite3.connect(index.index_path()) as db:
        (blob,) = db.execute(f"SELECT {column} FROM cards WHERE game = ?", (GAME,)).fetchone()
        damaged = bytearray(blob.encode() if isinstance(blob, str) else blob)
        at = next(i for i in range(len(damaged) // 2, len(damaged)) if chr(damaged[i]).islower())
        damaged[at] ^= 0x20  # one letter's case: still JSON, no longer what was written
        db.execute(f"UPDATE cards SET {column} = ? WHERE game = ?", (bytes(damaged), GAME))
    with caplog.at_level(logging.WARNING, logger="companion.cards.index"):
        again, rebuilt = load(cardmap)
    assert rebuilt and again.cards == built.cards
    assert "rebuilding" in caplog.text
    warm, rebuilt = load(cardmap)
    assert not rebuilt and warm.cards == built.cards
