"""The words of speech, read once: phrases.yaml (what numbers.py and phrases.py both use) and
each game's own words for the ear, from its game.yaml (``speech:``) found through the registry,
so that a user's game folder brings its own words as a shipped game does."""

from __future__ import annotations

import functools
import logging
import os
from importlib import resources
from typing import Any

from companion import kept, registry

log = logging.getLogger(__name__)


@functools.cache
def _all() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("phrases.yaml").read_text(encoding="utf-8")
    return kept.load_yaml("speech_phrases.marshal", text)  # read at every start that speaks: kept parsed


def data(lang: str) -> dict[str, Any]:
    """The phrase tree of one language; an unknown language falls back to French."""
    table = _all()
    return table.get(lang) or table["fr"]


@functools.lru_cache(maxsize=64)
def _words_of(game: str, _cardmap: str | None, _home: str | None) -> dict[str, Any]:
    """A game's ``speech:`` section, read once per place the games are read from (like
    phrases.yaml, once a process: the registry lists folders, far too slow for each word said)."""
    from companion.cards.gamedata import load_game  # the one game.yaml reader

    path = registry.game_file(game) if game and registry.ID.match(game) else None
    if path is None:
        return {}
    try:
        return load_game(path).speech
    except Exception:  # a broken game.yaml: the loader names it elsewhere; here the raw words are said
        log.warning("speech: no words from %s", path, exc_info=True)
        return {}


def words_place() -> tuple[str | None, str | None]:
    """Where the games' words are read from: what is read once is read once per place (a test,
    or a user's second home, points the program elsewhere)."""
    return os.environ.get("COMPANION_CARDMAP"), os.environ.get("COMPANION_HOME")


def _speech_of(game: str) -> dict[str, Any]:
    return _words_of(game, *words_place())


def game_words(lang: str, game: str) -> dict[str, Any]:
    """A game's words for the ear in one language (card types, disciplines, counters,
    abbreviations, notes...); empty for a game that has none."""
    words = _speech_of(game)
    return words.get(lang) or words.get("fr") or {}


def game_once(game: str) -> frozenset[str]:
    """The keys of a game's notes said once a game (a rule reminded each turn)."""
    return frozenset(_speech_of(game).get("once") or ())


def game_changed(game: str) -> frozenset[str]:
    """The keys of a game's notes said only when they differ from the last time for the same
    player ("Ann pioche deux cartes." each turn: once, until the count changes)."""
    return frozenset(_speech_of(game).get("changed") or ())


def game_tells(game: str) -> dict[str, str]:
    """A game's notes that already say the change of a counter that follows them, each with the
    value that names whose ("SuperNova : le Navigateur d'Ann perd un point de vie.": ``name``;
    "Ann saigne Bob de dix.": ``target``): that change is then said by its new value."""
    return dict(_speech_of(game).get("tells") or {})
