"""The project's texts are its own words: no glossary entry, rules section, card type or phase
reminder of a game shares a run of ten or more consecutive words with that game's rulebook (the
seed text in ../shared/seeds). Facts may be reused; sentences may not. Case, accents and
punctuation are ignored, so a copy cannot hide behind a changed comma."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from companion.cards.gamedata import load_game

ROOT = Path(__file__).resolve().parents[2]
SEED_OF = {"ascension": "000", "rise": "001", "astral": "002", "vtes": "003", "res-arcana": "004"}
RUN = 10


def words(text: str) -> list[str]:
    # The seeds glue some headings to their text ("NiveauJouable"): a capital after a small
    # letter starts a new word.
    text = re.sub(r"(?<=[a-zà-ÿ])(?=[A-ZÀ-Ý])", " ", text)
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return re.findall(r"[a-z0-9]+", text.replace("œ", "oe"))


def runs(text: str) -> set[tuple[str, ...]]:
    w = words(text)
    return {tuple(w[i:i + RUN]) for i in range(len(w) - RUN + 1)}


def our_texts(game: str) -> list[tuple[str, str]]:
    info = load_game(ROOT / "cardmap" / game / "game.yaml")
    out = []
    for entry in info.glossary:
        out += [(f"glossary {entry.id} ({lang})", text) for lang, text in entry.text.items()]
    for section in info.rules:
        out += [(f"rules {section.id} ({lang})", text) for lang, text in section.text.items()]
    for card_type in info.card_types:
        out += [(f"card_types {card_type.id} ({lang})", text) for lang, text in card_type.text.items()]
    for phase in info.table.get("phases", []):
        reminder = phase.get("reminder") or {}
        out += [(f"table.phases {phase['id']} ({lang})", text) for lang, text in reminder.items()]
    return out


def test_the_run_finder_catches_a_copy_despite_case_accents_and_punctuation() -> None:
    seed = "Au premier tour, on définit aléatoirement qui sera le premier joueur; il pioche 6 cartes."
    copied = "AU PREMIER TOUR on definit -- aleatoirement, qui sera le premier joueur : bonne chance"
    assert runs(seed) & runs(copied)
    assert not runs(seed) & runs("Le premier joueur est tiré au sort au premier tour ; il pioche six cartes.")


@pytest.mark.parametrize("game", sorted(SEED_OF))
def test_no_entry_shares_ten_words_in_a_row_with_its_rulebook(game: str, rulebooks: Path) -> None:
    found = sorted(rulebooks.glob(f"{SEED_OF[game]}_*.txt"))
    if not found:
        pytest.skip(f"no rulebook of {game} in {rulebooks}")
    seed = runs(found[0].read_text(encoding="utf-8"))
    copied = []
    for where, text in our_texts(game):
        shared = [" ".join(r) for r in runs(text) & seed]
        if shared:
            copied.append(f"{where}: « {min(shared)} »")
    assert not copied, f"{len(copied)} {game} text(s) repeat the rulebook word for word:\n" + "\n".join(copied)
