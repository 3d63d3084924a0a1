"""Rules questions, answered offline: search over a game's rules sections and glossary."""

from __future__ import annotations

import functools
from importlib import resources

import yaml

from companion.cards.gamedata import GameInfo, GlossaryEntry, RuleSection
from companion.cards.search import Doc, DocIndex, Hit, normalize


def rules_index(game: GameInfo) -> DocIndex[GlossaryEntry | RuleSection]:
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


@functools.cache
def _question_words() -> dict[str, frozenset[str]]:
    text = resources.files("companion.cards").joinpath("questions.yaml").read_text(encoding="utf-8")
    return {lang: frozenset(words) for lang, words in (yaml.safe_load(text) or {}).items()}


@functools.cache
def _game_questions(game_id: str) -> dict[str, str]:
    """The game's own question words (cardmap/<game>/questions.yaml), both languages in one
    map: a French or an English question is answered whatever the listener's language."""
    from companion.cards.catalog import cardmap_dir

    path = cardmap_dir() / game_id / "questions.yaml"
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
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
