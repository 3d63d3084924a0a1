"""Forgiving search over cards, rules and glossary: case- and accent-insensitive, prefix and word
matches, and typos (up to two edits, optimal string alignment distance as rapidfuzz counts it).

Every query word must match a word of the name or of the text (words that stand in more than a
fifth of the documents, such as "the" or "de", are ignored in texts: they would match everything).
A match in a name weighs three times a match in a text.

Speed: everything a query needs is computed when the index is built, so that a query is a few
dictionary lookups. The card index ranks, when it is built, the documents of every word and word
start the cards have (a "token"): a one-word query the cards know, the usual one, is one lookup
and a slice. Typos go through a deletion index (the "symmetric delete" method): every name word
is stored under each form it takes with one or two letters deleted; two words within two edits
of each other share such a form, so a query word finds its candidates by looking up its own
deletions, and rapidfuzz measures only those few (``_TypoForms``: flat arrays of the forms'
keys). The state of a card index is plain JSON data (``state()``), typo forms included, kept in
the card index's cache so that a warm start builds none of it again.
"""

from __future__ import annotations

import base64
import bisect
import re
import sys
import unicodedata
import zlib
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain, combinations, compress, islice, repeat
from operator import mul
from typing import Any, Generic, NamedTuple, TypeVar

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from companion.cards.model import Card

T = TypeVar("T")
_NON_WORD = re.compile(r"[^0-9a-z]+")
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "đ": "d", "ł": "l"})
STATE_FORMAT = 5  # bump when the shape of ``SearchIndex.state()`` changes


def normalize(text: str) -> str:
    """Lower case, no accents, words separated by single spaces: 'Sérénité' → 'serenite'."""
    if text.isascii():  # the usual query: the same result without the Unicode steps
        return _NON_WORD.sub(" ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text.casefold().translate(_LIGATURES))
    # Accents dropped by one translate: each distinct character is looked at once, not each
    # character of a card's whole text.
    marks = [ord(ch) for ch in set(decomposed) if ch > "\x7f" and unicodedata.combining(ch)]
    plain = decomposed.translate(dict.fromkeys(marks)) if marks else decomposed
    return _NON_WORD.sub(" ", plain).strip()


def max_edits(word: str) -> int:
    # Two edits on a three-letter word would match half the dictionary.
    return 0 if len(word) <= 3 else 1 if len(word) <= 5 else 2


_KEY = 0xFFFFFFFF  # a form's key: the low 32 bits of its hash
_START_SHIFT = 18  # keys are found from where those of their top 14 bits start (64 KB of starts)


def _deletions(word: str, depth: int) -> Iterator[int]:
    """The key of ``word`` and of every form of it with up to ``depth`` letters deleted (a form
    may come twice: "ll" less either l). A key is the hash of the tuple of the form's letters as
    bytes (itertools' combinations, hashed in C: no string is made for a form), cut to 32 bits:
    small numbers hash alike in every process, so keys computed once are kept in the cache
    (``_TypoForms``). Two forms with one key merely offer one more candidate, which rapidfuzz's
    measure then turns away."""
    letters = word.encode()
    n = len(letters)
    return map(_KEY.__and__, map(hash, chain.from_iterable(
        combinations(letters, kept) for kept in range(n, max(n - depth, 0) - 1, -1))))


def _stored_depth(word: str) -> int:
    """How many letters the deletion index deletes from a name word: only what a query can reach.
    A query word of 4-5 letters allows one edit, of 6 or more two (``max_edits``); two words within
    k edits share a form with at most k letters deleted from each, so a word of n letters needs its
    one-letter deletions only when n >= 4 and its two-letter ones only when n >= 6 (-1: none)."""
    n = len(word)
    return -1 if n < 3 else 0 if n == 3 else 1 if n < 6 else 2


def _check_key() -> int:
    """The key of one known form: a state whose check differs was written by a Python that hashes
    otherwise (another implementation, a 32-bit one), and its keys are built again."""
    return next(_deletions("companion", 0))


class _TypoForms:
    """The deletion index: each stored form of the name words (see ``_stored_depth``) → the words
    that have it, as flat arrays: the forms' keys sorted (a form of several words once per word)
    with their words' numbers, and a filter of one byte per slot of keys (a key's top bits), 1
    where some form's key falls (4 slots a key: an eighth of the keys not stored pass it). 1.9 MB
    for 4,000 cards where a dict of them took 10 MB, and kept in the cache as they are: a warm
    start builds nothing (building took a third of a console's start).

    A query word's forms go through the filter in C (most have no stored form: nothing to look
    up), then the few left are looked up in the keys by bisection, between the starts of their
    top bits' keys (a third of the probes of a bisection of them all)."""

    def __init__(self, keys: array, words: array, slots: bytes, starts: array) -> None:
        size = len(slots)  # a power of two, 64 or more
        if (len(keys) != len(words) or size < 64 or size & (size - 1) or size > 1 << 32
                or len(starts) != (1 << (32 - _START_SHIFT)) + 1 or starts[-1] != len(keys) or max(starts) > len(keys)):
            raise ValueError("typo forms whose arrays do not add up")
        self._keys, self._words, self._slots, self._starts = keys, words, slots, starts
        self._shift = 33 - size.bit_length()  # a key's slot: its top bits, as many as the filter has
        self.lookup: dict[int, tuple[int, ...]] | None = None  # see ``build``

    @classmethod
    def build(cls, words: Sequence[str]) -> _TypoForms:
        """The forms of the name ``words`` (sorted: the numbers are their places), with a dict of
        them (``lookup``) that the one building the index uses as long as it ranks (a lookup
        there is a tenth of a bisection; a card index's build looks up every token's typos)."""
        lookup: dict[int, tuple[int, ...]] = {}  # a form's key → its words' numbers
        forms = lookup.keys()
        for i, word in enumerate(words):
            depth = _stored_depth(word)
            if depth < 0:
                continue
            own = set(_deletions(word, depth))
            shared = own & forms  # a set operation in C: most forms belong to one word
            for form in shared:
                lookup[form] = (*lookup[form], i)
            lookup.update(dict.fromkeys(own - shared, (i,)))
        ordered = sorted(lookup)
        found = list(map(lookup.__getitem__, ordered))
        # A form of several words: its key once per word, each step in C.
        keys = array("I", chain.from_iterable(map(repeat, ordered, map(len, found))))
        size = max(64, 1 << (4 * len(keys)).bit_length())
        shift = 33 - size.bit_length()
        slots = bytearray(size)
        for key in ordered:
            slots[key >> shift] = 1
        starts = array("I", map(bisect.bisect_left, repeat(keys), range(0, (1 << 32) + 1, 1 << _START_SHIFT)))
        typos = cls(keys, _packed(chain.from_iterable(found)), bytes(slots), starts)
        typos.lookup = lookup
        return typos

    def state(self) -> dict[str, Any]:
        return {"check": _check_key(), "keys": _encode(self._keys), "words": _encode(self._words),
                "slots": base64.b64encode(zlib.compress(self._slots)).decode("ascii"), "starts": _encode(self._starts)}

    @classmethod
    def restore(cls, stored: dict[str, Any], word_count: int) -> _TypoForms:
        keys, words = _decode(stored["keys"]), _decode(stored["words"])
        if keys.typecode != "I" or (words and max(words) >= word_count):
            raise ValueError("typo forms of other words")
        try:
            slots = zlib.decompress(base64.b64decode(stored["slots"]))
        except zlib.error as exc:  # damaged: built again, as any unusable state
            raise ValueError(f"typo forms unreadable: {exc}") from exc
        return cls(keys, words, slots, _decode(stored["starts"]))

    def words(self, keys: Iterable[int]) -> list[int]:
        """The numbers of the words that have a form of one of ``keys`` (one may come twice)."""
        if self.lookup is not None:
            return list(chain.from_iterable(filter(None, map(self.lookup.get, keys))))
        keys = list(keys)
        stored, numbers, last, starts = self._keys, self._words, len(self._keys), self._starts
        found = []
        for key in compress(keys, map(self._slots.__getitem__, map(self._shift.__rrshift__, keys))):
            top = key >> _START_SHIFT
            at = bisect.bisect_left(stored, key, starts[top], starts[top + 1])
            while at < last and stored[at] == key:
                found.append(numbers[at])
                at += 1
        return found


def _prefix_table(words: list[str], shortest: int) -> dict[str, tuple[str, ...]]:
    """Each prefix of ``shortest`` letters or more of the sorted ``words`` → the words it starts."""
    table: dict[str, list[str]] = {}
    for word in words:
        for end in range(shortest, len(word) + 1):
            table.setdefault(word[:end], []).append(word)
    return {prefix: tuple(found) for prefix, found in table.items()}


@dataclass(frozen=True)
class Doc(Generic[T]):
    item: T
    names: tuple[str, ...]
    text: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)


class Hit(NamedTuple, Generic[T]):
    # A tuple rather than a frozen dataclass: a query makes up to ``limit`` of them, and a
    # frozen dataclass's __init__ costs as much as the rest of a fast query.
    item: T
    score: float
    where: str  # "name" or "text": where the query matched best

    @property
    def card(self) -> T:
        return self.item


_hit = tuple.__new__  # Hit(...) without the keyword handling of a named tuple's __new__

# The documents a query may find: a set, or a range when they are the consecutive ones of a game
# (a range's test is two comparisons; a set's, a probe into a table of every card of the game).
Allowed = AbstractSet[int] | range

# The match categories of a query word, best first; a document takes the score of the best one
# that holds it: exact name word 3, name word it starts 2.4-2.9 (a shorter completion scores
# higher), name word one or two edits away 1.8 / 1.4, text word 1, text word it starts 0.7. Each
# is stored as a small number, its code: _PREFIX + the completed word's length for a prefix.
_TEXT = 1.0
_TYPO = (0.0, 2.2 - 0.4 * 1, 2.2 - 0.4 * 2)  # by distance
_EXACT, _NEAR1, _NEAR2, _IN_TEXT, _TEXT_PREFIX, _PREFIX = 0, 1, 2, 3, 4, 5
_HEAD = (3.0, _TYPO[1], _TYPO[2], _TEXT, 0.7)
_NOTHING_NEAR: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def _bases(word_length: int, longest: int) -> tuple[float, ...]:
    """The score of each code for a query word of ``word_length`` letters (the same arithmetic
    as when the scores were computed per query, so that sums round alike)."""
    return _HEAD + tuple(2.4 + 0.5 * word_length / length if length > word_length else 0.0
                         for length in range(longest + 1))


def _packed(values: Iterable[int]) -> array:
    """``values`` in the narrowest array that holds them: 2 bytes a document for 4,000 cards,
    where a tuple of Python numbers takes 8 to 36."""
    values = list(values)
    top = max(values, default=0)
    return array("B" if top < 1 << 8 else "H" if top < 1 << 16 else "I", values)


def _encode(values: array) -> list[str]:
    """An array as JSON data: its type and its little-endian bytes in base64."""
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return [values.typecode, base64.b64encode(values.tobytes()).decode("ascii")]


def _decode(stored: list[str]) -> array:
    typecode, data = stored
    if typecode not in ("B", "H", "I"):
        raise ValueError(f"a stored array of type {typecode!r}")
    values = array(typecode)
    values.frombytes(base64.b64decode(data))
    if sys.byteorder == "big":
        values.byteswap()
    return values


class DocIndex(Generic[T]):
    """The words of documents' names and texts, ready for ``search``.

    ``ranked`` (the card search): every word and word start the documents have (a "token") gets,
    when the index is built, its documents in the order a one-word query for it ranks them, with
    their scores. The usual query, a name or the start of one, is then one lookup and a slice;
    only a query with several words, or a word the cards do not have (a typo), is scored per
    query. Without it (a game's rules: few documents, kept by companion.cards.rules), every query is scored."""

    def __init__(self, docs: Iterable[Doc[T]] = (), *, state: dict[str, Any] | None = None,
                 items: Sequence[T] | None = None, ranked: bool = False) -> None:
        if state is not None:
            self._restore(state, items or ())
            return
        docs = list(docs)
        self.items: list[T] = [d.item for d in docs]
        self._full: list[list[str]] = []  # normalized whole names per doc
        name_map: dict[str, set[int]] = defaultdict(set)
        text_map: dict[str, set[int]] = defaultdict(set)
        for i, doc in enumerate(docs):
            fulls = [normalize(n) for n in doc.names if n]
            self._full.append(fulls)
            for full in fulls:
                for word in full.split():
                    name_map[word].add(i)
            for word in set(normalize(doc.text).split()):
                text_map[word].add(i)
        common = max(20, len(docs) // 5)
        self._name_words = sorted(name_map)
        self._name_map = {w: tuple(sorted(name_map[w])) for w in self._name_words}
        text_words = sorted(w for w, d in text_map.items() if len(d) <= common)
        self._text_map = {w: tuple(sorted(text_map[w])) for w in text_words}
        self._typos = _TypoForms.build(self._name_words)
        # Every prefix of a word (2 letters or more for names, 4 for texts: shorter ones are not
        # completed) → the words it starts, in sorted order.
        self._name_prefixes = _prefix_table(self._name_words, 2)
        self._text_prefixes = _prefix_table(text_words, 4)
        self._tokens: dict[str, int] = {}
        self._ranked = ranked
        self._prepare()
        if ranked:
            self._rank_tokens()

    def _prepare(self) -> None:
        """What queries use besides the stored state: each document's names without repeats,
        and every name sorted, for the bonus of a name that is or starts with the query."""
        self._full = [list(dict.fromkeys(fulls)) for fulls in self._full]
        self._single = [fulls[0] if len(fulls) == 1 else None for fulls in self._full]
        self._first_len = [len(fulls[0]) if fulls else 0 for fulls in self._full]
        self._names = [tuple(fulls) or ("",) for fulls in self._full]  # a nameless document measures ""
        pairs = sorted((f, d) for d, fulls in enumerate(self._full) for f in fulls)
        self._sorted_names = [f for f, _ in pairs]
        self._sorted_docs = [d for _, d in pairs]
        longest = max(map(len, self._name_words), default=0)
        self._bases = [_bases(n, longest) for n in range(longest + 1)]
        self._where = tuple("name" if score > _TEXT else "text" for score in self._bases[0])  # by code

    def _rank_tokens(self) -> None:
        """Each token's documents as a one-word query for it ranks them (see the class), in
        three flat arrays; the tables they come from are not kept."""
        tokens = sorted({*self._name_map, *self._name_prefixes, *self._text_map, *self._text_prefixes})
        offsets, docs, scores, codes = [0], [], [], []
        for token in tokens:
            negs, _, ranked_docs, ranked_codes = zip(*self._rank(token, self._word_codes(token)), strict=True)
            docs += ranked_docs
            scores += map(round, map(mul, negs, repeat(-1000)))  # three decimals, exactly (see _token_hits)
            codes += ranked_codes
            offsets.append(len(docs))
        self._tokens = {t: i for i, t in enumerate(tokens)}
        self._offsets, self._docs, self._scores, self._codes = map(_packed, (offsets, docs, scores, codes))
        self._name_prefixes = self._text_prefixes = self._text_map = {}
        self._typos.lookup = None  # 8 MB: the flat arrays answer the queries from now on

    # --- the cache -----------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """Plain JSON data from which ``DocIndex(state=..., items=...)`` is the same index
        (a ``ranked`` one)."""
        if not self._ranked:
            raise ValueError("only a ranked index is stored")
        return {
            "full": self._full,
            "name_words": self._name_words, "name_docs": [self._name_map[w] for w in self._name_words],
            "tokens": "\n".join(self._tokens), "typos": self._typos.state(),
            "ranked": [_encode(a) for a in (self._offsets, self._docs, self._scores, self._codes)],
        }

    def _restore(self, state: dict[str, Any], items: Sequence[T]) -> None:
        self.items = list(items)
        self._full = state["full"]
        if len(self._full) != len(self.items):
            raise ValueError(f"a search state of {len(self._full)} documents for {len(self.items)} items")
        self._name_words = state["name_words"]
        self._name_map = dict(zip(self._name_words, map(tuple, state["name_docs"]), strict=True))
        self._name_prefixes = self._text_prefixes = self._text_map = {}
        typos = state["typos"]
        # Keys hashed otherwise (see _check_key): built again, as a first build does.
        self._typos = (_TypoForms.restore(typos, len(self._name_words)) if typos["check"] == _check_key()
                       else _TypoForms.build(self._name_words))
        self._typos.lookup = None  # as a ranked index built here keeps them: the flat arrays alone
        tokens = state["tokens"].split("\n") if state["tokens"] else []
        self._offsets, self._docs, self._scores, self._codes = map(_decode, state["ranked"])
        if len(self._offsets) != len(tokens) + 1 or self._offsets[-1] != len(self._docs) or not (
                len(self._docs) == len(self._scores) == len(self._codes)):
            raise ValueError("a search state whose ranked tokens do not add up")
        if self._docs and max(self._docs) >= len(self.items):
            raise ValueError("a search state naming documents it does not have")
        self._tokens = {t: i for i, t in enumerate(tokens)}
        self._ranked = True
        self._prepare()

    # --- matching one query word ---------------------------------------------------------
    def _scan_near(self, word: str, edits: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Name words one and two edits away from ``word``, through the deletion index."""
        words = self._name_words
        found = set(map(words.__getitem__, self._typos.words(_deletions(word, edits))))
        near: tuple[list[str], ...] = ([], [], [], [])  # by distance; edits + 1: too far
        for other in found:
            near[OSA.distance(word, other, score_cutoff=edits)].append(other)
        return (tuple(near[1]), tuple(near[2]) if edits > 1 else ()) if near[1] or near[2] else _NOTHING_NEAR

    _near = _scan_near  # name words one and two edits away from ``word`` (never ``word`` itself)

    def _word_codes(self, word: str) -> dict[int, int]:
        """The best match code of each document for one query word, from the word tables (a
        ranked index keeps only the name words: a word it has no token for is a typo or
        nothing)."""
        name_map = self._name_map
        offers: list[tuple[Iterable[int], int]] = [(name_map.get(word, ()), _EXACT)]  # (docs, code), best first
        if len(word) >= 2:
            completions = [w for w in self._name_prefixes.get(word, ()) if w != word]
            # A shorter completion scores higher: offered first, it keeps the document.
            completions.sort(key=len)
            offers += [(name_map[w], _PREFIX + len(w)) for w in completions]
        edits = max_edits(word)
        if edits:
            one, two = self._scan_near(word, edits)
            offers += [(name_map[w], _NEAR1) for w in one] + [(name_map[w], _NEAR2) for w in two]
        text_map = self._text_map
        if word in text_map:
            offers.append((text_map[word], _IN_TEXT))
        if len(word) >= 4:
            offers += [(text_map[w], _TEXT_PREFIX) for w in self._text_prefixes.get(word, ())[:200]]
        # A document keeps the first (best) code offered to it: written in reverse, the best last
        # (dict updates in C, where a test per document cost a tenth of the index's build).
        best: dict[int, int] = {}
        for docs, code in reversed(offers):
            best.update(dict.fromkeys(docs, code))
        return best

    def _word_scores(self, word: str) -> dict[int, float]:
        """The best score of each document for one query word; above 1.0 means in a name."""
        bases = self._bases[len(word)] if len(word) < len(self._bases) else _HEAD
        i = self._tokens.get(word)
        if i is not None:
            start, end = self._offsets[i], self._offsets[i + 1]
            return dict(zip(self._docs[start:end], map(bases.__getitem__, self._codes[start:end]), strict=True))
        if self._ranked:  # and no card has or starts with this word: only its typos can match
            edits = max_edits(word)
            if not edits:
                return {}
            one, two = self._scan_near(word, edits)
            best: dict[int, float] = {}
            for near, score in ((two, _TYPO[2]), (one, _TYPO[1])):  # one edit, written last, wins
                for other in near:
                    best.update(dict.fromkeys(self._name_map[other], score))
            return best
        return {d: bases[code] for d, code in self._word_codes(word).items()}

    def _rank(self, q: str, codes: dict[int, int]) -> list[tuple[float, int, int, int]]:
        """A one-word query's documents, best first: (-score, first name's length, doc, code);
        each score as ``search_normalized`` adds it up, rapidfuzz's ratios measured in one call."""
        special = self._name_bonus(q)
        bases = self._bases[len(q)] if len(q) < len(self._bases) else _HEAD
        docs = list(codes)
        names = self._names
        counts = list(map(len, map(names.__getitem__, docs)))
        ratios = iter([r for _, r, _ in process.extract_iter(
            q, list(chain.from_iterable(map(names.__getitem__, docs))), scorer=fuzz.ratio)])
        best = [next(ratios) if n == 1 else max(islice(ratios, n)) for n in counts]  # a document's nearest name
        first_len = self._first_len
        ranked = [(-round(bases[c] + (special[d] if d in special else 2 * r / 100), 3), first_len[d], d, c)
                  for d, c, r in zip(docs, codes.values(), best, strict=True)]
        ranked.sort()
        return ranked

    # --- the query -----------------------------------------------------------------------
    def search(self, query: str, limit: int = 20, allowed: Allowed | None = None) -> list[Hit[T]]:
        return self.search_normalized(normalize(query), limit, allowed)

    def search_normalized(self, q: str, limit: int = 20,
                          allowed: Allowed | None = None) -> list[Hit[T]]:
        """``search`` of a query already through ``normalize``."""
        if " " not in q:
            i = self._tokens.get(q)
            if i is not None:
                return self._token_hits(i, limit, allowed)
            if not q:
                return []
            if self._ranked:
                return self._typo_hits(q, limit, allowed)
            words = [q]
        else:
            words = list(dict.fromkeys(q.split()))
        scores = [self._word_scores(word) for word in words]
        need = len(words)
        if need == 1:
            candidates: Iterable[int] = scores[0].keys()
        else:
            ordered = sorted(scores, key=len)
            candidates = set(ordered[0]).intersection(*ordered[1:])
        if allowed is not None:
            candidates = set(filter(allowed.__contains__, candidates))
        if not candidates and need > 1:  # forgive one word the user got too wrong
            counts = Counter(d for s in scores for d in s)
            candidates = {d for d, n in counts.items() if n >= need - 1}
            if allowed is not None:
                candidates = set(filter(allowed.__contains__, candidates))
        full = self._full
        if len(candidates) <= 32:  # a few: their own names are quicker to look at
            special = {}
            for d in candidates:
                fulls = full[d]
                if q in fulls:
                    special[d] = 10
                elif any(map(str.startswith, fulls, repeat(q))):
                    special[d] = 5
        else:
            special = self._name_bonus(q)
        single, first_len = self._single, self._first_len
        ratio = fuzz.ratio
        hits = []
        for d in candidates:
            if need == 1:
                score = scores[0][d]
                name = score > _TEXT
            else:
                score = 0.0
                name = False
                for s in scores:
                    x = s.get(d)
                    if x is not None:
                        score += x
                        name = name or x > _TEXT
            bonus = special.get(d)
            if bonus is not None:
                score += bonus
            elif single[d] is not None:
                score += 2 * ratio(q, single[d]) / 100
            elif full[d]:
                score += 2 * max(map(ratio, repeat(q), full[d])) / 100
            # Shorter names first among equals: "Majesty" before "Mantle of the Bestial Majesty".
            hits.append((-round(score, 3), first_len[d], d, name))
        hits.sort()
        items = self.items
        return [_hit(Hit, (items[d], -neg, "name" if name else "text")) for neg, _, d, name in hits[:limit]]

    def _typo_hits(self, q: str, limit: int, allowed: Allowed | None) -> list[Hit[T]]:
        """A one-word query no card has nor starts (a ranked index has every word and start as a
        token): only the documents of its typos' name words, scored as ``search_normalized``
        scores them. No name is or starts with such a word: no name bonus to look for."""
        best = self._word_scores(q)
        candidates: Iterable[int] = best if allowed is None else filter(allowed.__contains__, best)
        names, first_len, ratio = self._names, self._first_len, fuzz.ratio
        hits = []
        for d in candidates:
            own = names[d]
            near = ratio(q, own[0]) if len(own) == 1 else max(map(ratio, repeat(q), own))
            hits.append((-round(best[d] + 2 * near / 100, 3), first_len[d], d))
        hits.sort()
        items = self.items
        return [_hit(Hit, (items[d], -neg, "name")) for neg, _, d in hits[:limit]]

    def _token_hits(self, token: int, limit: int, allowed: Allowed | None) -> list[Hit[T]]:
        """The first ``limit`` allowed documents of a token's ranking, as a one-word query's hits."""
        start, end = self._offsets[token], self._offsets[token + 1]
        if allowed is None:
            positions: Iterable[int] = range(start, min(end, start + max(limit, 0)))
        else:  # the filter, the count and the stop made in C
            positions = islice(compress(range(start, end), map(allowed.__contains__, self._docs[start:end])),
                               max(limit, 0))
        items, docs, scores, codes, where = self.items, self._docs, self._scores, self._codes, self._where
        # A score n/1000 is the same float as round(score, 3) was: both are the double nearest n/1000.
        return [_hit(Hit, (items[docs[j]], scores[j] / 1000, where[codes[j]])) for j in positions]

    def _name_bonus(self, q: str) -> dict[int, int]:
        """The documents one of whose names is the whole query (10) or starts with it (5)."""
        names = self._sorted_names
        start = bisect.bisect_left(names, q)
        end = bisect.bisect_left(names, q + "\uffff", start)
        bonus: dict[int, int] = {}
        for i in range(start, end):
            d = self._sorted_docs[i]
            if names[i] == q:
                bonus[d] = 10
            else:
                bonus.setdefault(d, 5)
        return bonus


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

    def __init__(self, cards: Sequence[Card], state: dict[str, Any] | None = None) -> None:
        """``state``: what ``state()`` returned for these same cards (from the card index's
        cache); without it, everything is computed from the cards."""
        self._cards = list(cards)
        if state is None:
            docs = [card_doc(c) for c in self._cards]
            raw = [(d.attrs["types"], d.attrs["groups"], d.attrs["cost"]) for d in docs]
            self._index = DocIndex(docs, ranked=True)
        else:
            if state.get("format") != STATE_FORMAT or state.get("refs") != [c.ref for c in self._cards]:
                raise ValueError("a search state made for other cards")
            raw = state["attrs"]
            self._index = DocIndex(state=state["index"], items=self._cards)
        # Most cards share their types and clans with others: one frozenset each (2 MB less).
        shared: dict[frozenset[str], frozenset[str]] = {}

        def one(values: Iterable[str]) -> frozenset[str]:
            key = frozenset(values)
            return shared.setdefault(key, key)

        self._attrs = [(one(t), one(g), c) for t, g, c in raw]
        by_game: dict[str, set[int]] = defaultdict(set)
        for i, card in enumerate(self._cards):
            by_game[card.game].add(i)
        self._by_game: dict[str, Allowed] = {}
        for g, ids in by_game.items():  # the library lists each game's cards together
            span = range(min(ids), max(ids) + 1)
            self._by_game[g] = span if len(span) == len(ids) else frozenset(ids)
        self._known_cache: dict[int, set[str]] = {}

    def state(self) -> dict[str, Any]:
        """Plain JSON data, kept in the card index's cache (see ``__init__``)."""
        return {"format": STATE_FORMAT, "refs": [c.ref for c in self._cards],
                "attrs": [(sorted(t), sorted(g), c) for t, g, c in self._attrs], "index": self._index.state()}

    def search(self, query: str, game: str | None = None, limit: int = 20, type: str | None = None,
               cost: int | None = None, clan: str | None = None, **_: object) -> list[Hit[Card]]:
        allowed: Allowed | None = None
        if game is not None:
            allowed = self._by_game.get(game, frozenset())
        if type or cost is not None or clan:
            base = allowed if allowed is not None else range(len(self._cards))
            t, c = normalize(type or ""), normalize(clan or "")
            allowed = {i for i in base if self._has(i, 0, t) and self._has(i, 1, c)
                       and (cost is None or self._attrs[i][2] == cost)}
        q = normalize(query)
        if not q:  # filters alone: list what they allow
            items = sorted(allowed or (), key=lambda i: self._cards[i].name)[:limit]
            return [Hit(self._cards[i], 0.0, "name") for i in items]
        return self._index.search_normalized(q, limit=limit, allowed=allowed)

    def _has(self, i: int, attr: int, value: str) -> bool:
        """Exact value ("toreador" is not "toreador antitribu"), or a prefix when no card has that
        exact value, so that "act" still finds actions."""
        if not value:
            return True
        values = self._attrs[i][attr]
        if value in values:
            return True
        if value not in self._known(attr):
            return any(x.startswith(value) for x in values)
        return False

    def _known(self, attr: int) -> set[str]:
        if attr not in self._known_cache:
            self._known_cache[attr] = {v for a in self._attrs for v in a[attr]}
        return self._known_cache[attr]
