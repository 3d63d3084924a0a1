"""Rules questions, answered offline: search over a game's rules sections and glossary."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml

from companion import registry
from companion.cards.gamedata import GameInfo, GlossaryEntry, RuleSection, load_game
from companion.cards.search import Doc, DocIndex, Hit, normalize
from companion.cards.yamlload import DataError, file_identity

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Held:
    game: GameInfo  # the game as the caller holds it
    identity: tuple[int, int, int] | None  # its file's when the index was built (None: no file)
    index: DocIndex[GlossaryEntry | RuleSection]


# game id → its rules index. Both languages are in one index (a French or an English question
# is answered whatever the listener's language), so the game alone keys it.
_indexes: dict[str, _Held] = {}
registry.on_forget(_indexes.clear)


def _identity(path: Path | None) -> tuple[int, int, int] | None:
    try:
        return file_identity(path) if path is not None else None
    except OSError:
        return None


def rules_index(game: GameInfo) -> DocIndex[GlossaryEntry | RuleSection]:
    """The game's rules and glossary ready to search: built once (tens of milliseconds, far
    more on a small board) and again only when the game's file changed. The card library keeps
    the game as it was read at start; a user's own game edited while the program runs is read
    again here, so its questions find the new rules (a broken edit keeps the last good index)."""
    path = registry.game_file(game.id)
    now = _identity(path)
    held = _indexes.get(game.id)
    if held is not None and held.game is game:
        if held.identity == now:
            return held.index
        if path is not None and now is not None and held.identity is not None:
            try:
                fresh = load_game(path)
            except DataError as exc:
                log.warning("%s changed and cannot be read (%s): the last good rules are kept", path, exc)
                _indexes[game.id] = _Held(game, now, held.index)
                return held.index
            index = _build(fresh)
            _indexes[game.id] = _Held(game, now, index)
            return index
    index = _build(game)
    _indexes[game.id] = _Held(game, now, index)
    return index


def _build(game: GameInfo) -> DocIndex[GlossaryEntry | RuleSection]:
    docs: list[Doc[GlossaryEntry | RuleSection]] = []
    for entry in game.glossary:
        docs.append(Doc(entry, (*entry.names.values(), *entry.aliases, entry.id),
                        " ".join(entry.text.values())))
    for section in game.rules:
        docs.append(Doc(section, tuple(section.title.values()), " ".join(section.text.values())))
    return DocIndex(docs)


# A rules section whose title answers a question weighs this much more than a glossary entry:
# "comment gagner" asks for the victory rule, not for the word "victoire".
TITLE_WEIGHT = 1.5


# libyaml's parser when PyYAML has it (the same values, ten times faster): read at the first rule asked
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.cache
def _question_words() -> dict[str, frozenset[str]]:
    text = resources.files("companion.cards").joinpath("questions.yaml").read_text(encoding="utf-8")
    return {lang: frozenset(words) for lang, words in (yaml.load(text, Loader=_LOADER) or {}).items()}


@functools.cache
def _game_questions(game_id: str) -> dict[str, str]:
    """The game's own question words (cardmap/<game>/questions.yaml), both languages in one
    map: a French or an English question is answered whatever the listener's language."""
    from companion.cards.catalog import cardmap_dir

    path = cardmap_dir() / game_id / "questions.yaml"
    if not path.exists():
        return {}
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}
    return {normalize(k): normalize(str(v)) for words in raw.values() for k, v in (words or {}).items()}


def question_terms(game_id: str, query: str) -> str:
    """A question as the words of the rules that answer it: the words that only make a
    question left out, the game's question words put in their place ("comment gagner" → "fin
    partie victoire"); "" when nothing is left."""
    stop = set().union(*_question_words().values())
    mapped = _game_questions(game_id)
    words = [w for w in normalize(query.replace("'", " ").replace("’", " ")).split() if w not in stop]
    return " ".join(mapped.get(w, w) for w in words)


def search_rules(game: GameInfo, query: str, limit: int = 10) -> list[Hit[GlossaryEntry | RuleSection]]:
    """The best entries for ``query``: as typed first; a question ("comment gagner", "combien de
    transferts") is searched by its meaningful words, rules sections whose title answers first."""
    index = rules_index(game)
    asked = question_terms(game.id, query)
    if not asked or asked == normalize(query):
        return index.search(query, limit=limit)
    hits = index.search(asked, limit=limit * 2)
    if not hits:
        return index.search(query, limit=limit)
    weighed = [Hit(h.item, h.score * TITLE_WEIGHT if isinstance(h.item, RuleSection) and h.where == "name"
                   else h.score, h.where) for h in hits]
    return sorted(weighed, key=lambda h: -h.score)[:limit]
