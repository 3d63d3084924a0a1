"""Forgiving search over cards, rules and glossary: case- and accent-insensitive, prefix and word
matches, and typos (up to two edits) through rapidfuzz's Levenshtein distance.

Every query word must match a word of the name or of the text (words that stand in more than a
fifth of the documents, such as "the" or "de", are ignored in texts: they would match everything).
A match in a name weighs three times a match in a text.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from companion.cards.model import Card

T = TypeVar("T")
_NON_WORD = re.compile(r"[^0-9a-z]+")
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "đ": "d", "ł": "l"})


def normalize(text: str) -> str:
    """Lower case, no accents, words separated by single spaces: 'Sérénité' → 'serenite'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_LIGATURES))
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NON_WORD.sub(" ", plain).strip()


def max_edits(word: str) -> int:
    # Two edits on a three-letter word would match half the dictionary.
    return 0 if len(word) <= 3 else 1 if len(word) <= 5 else 2


@dataclass(frozen=True)
class Doc(Generic[T]):
    item: T
    names: tuple[str, ...]
    text: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit(Generic[T]):
    item: T
    score: float
    where: str  # "name" or "text": where the query matched best

    @property
    def card(self) -> T:
        return self.item


class DocIndex(Generic[T]):
    def __init__(self, docs: Iterable[Doc[T]]) -> None:
        self.docs: list[Doc[T]] = list(docs)
        self._full: list[list[str]] = []  # normalized whole names per doc
        name_map: dict[str, set[int]] = defaultdict(set)
        text_map: dict[str, set[int]] = defaultdict(set)
        for i, doc in enumerate(self.docs):
            fulls = [normalize(n) for n in doc.names if n]
            self._full.append(fulls)
            for full in fulls:
                for word in full.split():
                    name_map[word].add(i)
            for word in set(normalize(doc.text).split()):
                text_map[word].add(i)
        common = max(20, len(self.docs) // 5)
        self._name_map = dict(name_map)
        self._name_words = sorted(name_map)
        self._text_map = {w: d for w, d in text_map.items() if len(d) <= common}
        self._text_words = sorted(self._text_map)

    # --- matching one query word -------------------------------------------------------
    @staticmethod
    def _prefixed(words: list[str], prefix: str) -> list[str]:
        start = bisect.bisect_left(words, prefix)
        end = bisect.bisect_left(words, prefix + "\uffff")
        return words[start:end]

    def _word_scores(self, word: str, allowed: set[int] | None) -> dict[int, tuple[float, str]]:
        best: dict[int, tuple[float, str]] = {}

        def offer(docs: Iterable[int], score: float, where: str) -> None:
            for d in docs:
                if allowed is not None and d not in allowed:
                    continue
                if d not in best or best[d][0] < score:
                    best[d] = (score, where)

        if word in self._name_map:
            offer(self._name_map[word], 3.0, "name")
        if len(word) >= 2:
            for w in self._prefixed(self._name_words, word):
                if w != word:
                    offer(self._name_map[w], 2.4 + 0.5 * len(word) / len(w), "name")
        edits = max_edits(word)
        if edits:
            for w, dist, _ in process.extract(word, self._name_words, scorer=OSA.distance,
                                              score_cutoff=edits, limit=None):
                if dist:
                    offer(self._name_map[w], 2.2 - 0.4 * dist, "name")
        if word in self._text_map:
            offer(self._text_map[word], 1.0, "text")
        if len(word) >= 4:
            for w in self._prefixed(self._text_words, word)[:200]:
                offer(self._text_map[w], 0.7, "text")
        return best

    # --- the query -------------------------------------------------------------------
    def search(self, query: str, limit: int = 20, allowed: set[int] | None = None) -> list[Hit[T]]:
        q = normalize(query)
        words = q.split()
        if not words:
            return []
        totals: dict[int, float] = defaultdict(float)
        matched: dict[int, int] = defaultdict(int)
        where: dict[int, str] = {}
        for word in dict.fromkeys(words):
            for d, (score, place) in self._word_scores(word, allowed).items():
                totals[d] += score
                matched[d] += 1
                if place == "name" or d not in where:
                    where[d] = place
        need = len(dict.fromkeys(words))
        candidates = [d for d in totals if matched[d] == need]
        if not candidates and need > 1:  # forgive one word the user got too wrong
            candidates = [d for d in totals if matched[d] >= need - 1]
        hits = []
        for d in candidates:
            score = totals[d]
            fulls = self._full[d]
            if q in fulls:
                score += 10
            elif any(f.startswith(q) for f in fulls):
                score += 5
            elif fulls:
                score += 2 * max(fuzz.ratio(q, f) for f in fulls) / 100
            # Shorter names first among equals: "Majesty" before "Mantle of the Bestial Majesty".
            hits.append((-round(score, 3), len(fulls[0]) if fulls else 0, d))
        hits.sort()
        return [Hit(self.docs[d].item, -neg, where.get(d, "text")) for neg, _, d in hits[:limit]]


def card_doc(card: Card) -> Doc[Card]:
    extra = card.extra
    attrs: dict[str, Any] = {
        "game": card.game,
        "types": {normalize(t) for t in card.types},
        "groups": {normalize(g) for g in (*extra.get("clans", []), extra.get("faction") or "")} - {""},
        "cost": _cost_number(card),
    }
    text = " ".join((card.text, " ".join(card.keywords), " ".join(card.types)))
    return Doc(card, (card.name, *card.names.values(), *card.aliases), text, attrs)


def _cost_number(card: Card) -> int | None:
    extra = card.extra
    for key in ("pool_cost", "blood_cost", "conviction_cost"):
        value = extra.get(key)
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            return int(value)
    cost = extra.get("cost")
    if isinstance(cost, dict) and cost:
        return sum(v for v in cost.values() if isinstance(v, int))
    return None


class SearchIndex:
    """Search over cards with filters: game, type, cost, clan or faction."""

    def __init__(self, cards: Sequence[Card]) -> None:
        self._docs = [card_doc(c) for c in cards]
        self._index = DocIndex(self._docs)
        self._by_game: dict[str, set[int]] = defaultdict(set)
        for i, doc in enumerate(self._docs):
            self._by_game[doc.attrs["game"]].add(i)

    def search(self, query: str, game: str | None = None, limit: int = 20, type: str | None = None,
               cost: int | None = None, clan: str | None = None, **_: object) -> list[Hit[Card]]:
        allowed: set[int] | None = None
        if game is not None:
            allowed = set(self._by_game.get(game, set()))
        if type or cost is not None or clan:
            base = allowed if allowed is not None else set(range(len(self._docs)))
            t, c = normalize(type or ""), normalize(clan or "")
            allowed = {i for i in base if self._has(i, "types", t) and self._has(i, "groups", c)
                       and (cost is None or self._docs[i].attrs["cost"] == cost)}
        if not normalize(query):  # filters alone: list what they allow
            items = sorted(allowed or (), key=lambda i: self._docs[i].item.name)[:limit]
            return [Hit(self._docs[i].item, 0.0, "name") for i in items]
        return self._index.search(query, limit=limit, allowed=allowed)

    def _has(self, i: int, attr: str, value: str) -> bool:
        """Exact value ("toreador" is not "toreador antitribu"), or a prefix when no card has that
        exact value, so that "act" still finds actions."""
        if not value:
            return True
        values = self._docs[i].attrs[attr]
        if value in values:
            return True
        if value not in self._known(attr):
            return any(x.startswith(value) for x in values)
        return False

    def _known(self, attr: str) -> set[str]:
        cache = self.__dict__.setdefault("_known_cache", {})
        if attr not in cache:
            cache[attr] = {v for d in self._docs for v in d.attrs[attr]}
        return cache[attr]
