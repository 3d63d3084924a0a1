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
keys).

The card search is made of parts (``_Part``): one per game, and one for a user's own cards of a
game, each ranked on its own and kept in the card index's cache as binary segments
(``PartRecord``), so that a card added to one game ranks that game's part again (or only the
user's few cards), not every game's 4,000 cards. A query over several parts merges their hits
by the very scores and order one index of all the cards gives: what is too common to count, and
which words a text prefix completes, are the whole catalog's (``Context``), and a part is ranked
again when they change for its words.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import json
import logging
import re
import sys
import unicodedata
import zlib
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import accumulate, chain, combinations, compress, groupby, islice, repeat
from operator import add, and_, getitem, lshift, mul, neg, or_, rshift, sub
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from companion.cards import gcpause
from companion.cards.model import Card

log = logging.getLogger(__name__)
T = TypeVar("T")
_NON_WORD = re.compile(r"[^0-9a-z]+")
_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "đ": "d", "ł": "l"})
STATE_FORMAT = 6  # bump when the shape of a part's record (``PartRecord``) changes
_TEXT_COMPLETIONS = 200  # a query word starting text words matches the first these many of them


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
                or len(starts) != (1 << (32 - _START_SHIFT)) + 1 or starts[-1] != len(keys)):
            raise ValueError("typo forms whose arrays do not add up")
        self._keys, self._words, self._slots, self._starts = keys, words, slots, starts
        self._shift = 33 - size.bit_length()  # a key's slot: its top bits, as many as the filter has
        self.lookup: dict[int, tuple[int, ...]] | None = None  # see ``build``
        self.owns: list[tuple[int, ...]] = []  # see ``build``

    @classmethod
    def build(cls, words: Sequence[str]) -> _TypoForms:
        """The forms of the name ``words`` (sorted: the numbers are their places), with a dict of
        them (``lookup``) that the one building the index uses as long as it ranks (a lookup
        there is a tenth of a bisection; a card index's build looks up every token's typos), and
        each word's own forms (``owns``: a name word's typos are looked up with the very forms
        made here)."""
        lookup: dict[int, tuple[int, ...]] = {}  # a form's key → its words' numbers
        forms = lookup.keys()
        every: list[int] = []  # each word's forms, a form of several words once per word
        numbers: list[int] = []  # the word of each of ``every``
        owns: list[tuple[int, ...]] = []
        for i, word in enumerate(words):
            depth = _stored_depth(word)
            if depth < 0:
                owns.append(())
                continue
            own = set(_deletions(word, depth))
            every += own
            numbers += repeat(i, len(own))
            owns.append(tuple(own))
            shared = own & forms  # a set operation in C: most forms belong to one word
            for form in shared:
                lookup[form] = (*lookup[form], i)
            lookup.update(dict.fromkeys(own - shared, (i,)))
        # The keys as stored, each with its word's number below it: sorted once, they are the
        # keys in order and, for a form of several words, its words in theirs (as in ``lookup``).
        below = max(len(words) - 1, 1).bit_length()
        pairs = sorted(map(or_, map(lshift, every, repeat(below)), numbers))
        every = list(map(rshift, pairs, repeat(below)))
        size = max(64, 1 << (4 * len(every)).bit_length())
        shift = 33 - size.bit_length()
        slots = bytearray(size)
        deque(map(slots.__setitem__, map(shift.__rrshift__, every), repeat(1)), 0)  # each key's slot: 1
        # Found in the list (the array's items would be made into numbers at each step).
        starts = array("I", map(bisect.bisect_left, repeat(every), range(0, (1 << 32) + 1, 1 << _START_SHIFT)))
        typos = cls(array("I", every), _packed(map(and_, pairs, repeat((1 << below) - 1))), bytes(slots), starts)
        typos.lookup, typos.owns = lookup, owns
        return typos

    def segments(self) -> dict[str, array | bytes]:
        """The arrays as a part's record keeps them (``_pack``); the filter compressed (mostly zeros)."""
        return {"typo_keys": self._keys, "typo_words": self._words, "typo_starts": self._starts,
                "typo_slots": zlib.compress(self._slots)}

    @classmethod
    def restore(cls, segments: _Segments) -> _TypoForms:
        """The forms a record keeps. Their words' numbers are not checked one by one (a third of
        a start): the record's CRC says they are what this program wrote."""
        keys = segments.array("typo_keys")
        if keys.typecode != "I":
            raise ValueError("typo forms of other keys")
        try:
            slots = zlib.decompress(segments.bytes("typo_slots"))
        except zlib.error as exc:  # damaged: built again, as any unusable record
            raise ValueError(f"typo forms unreadable: {exc}") from exc
        return cls(keys, segments.array("typo_words"), slots, segments.array("typo_starts"))

    def words(self, keys: Iterable[int]) -> list[int]:
        """The numbers of the words that have a form of one of ``keys`` (one may come twice)."""
        lookup = self.lookup
        if lookup is not None:
            # The keys of the dict among ``keys``: one probe a key, in C (most are none of its).
            return list(chain.from_iterable(map(lookup.__getitem__, lookup.keys() & keys)))
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
    """Each prefix of ``shortest`` letters or more of ``words`` → the words it starts, in their order."""
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


def _pack(segments: Mapping[str, array | str | bytes]) -> tuple[dict[str, list[Any]], bytes]:
    """Segments back to back in one blob, and where each lies: its kind (an array's type code, or
    "s" for bytes, text as UTF-8), its item size, its start and end. Arrays little-endian."""
    directory: dict[str, list[Any]] = {}
    chunks: list[bytes] = []
    at = 0
    for name, value in segments.items():
        if isinstance(value, array):
            kind, size = value.typecode, value.itemsize
            if sys.byteorder == "big":
                value = array(kind, value)
                value.byteswap()
            raw = value.tobytes()
        else:
            kind, size, raw = "s", 1, value.encode() if isinstance(value, str) else value
        directory[name] = [kind, size, at, at + len(raw)]
        chunks.append(raw)
        at += len(raw)
    return directory, b"".join(chunks)


class _Segments:
    """A record's blob read back: each segment made into an array or text when asked (an array
    is one copy of its bytes, no number made). Data, never code: a kind, a size or a place that
    does not fit (a damaged record, or one of a machine whose numbers have other sizes) is a
    ValueError, and the part is ranked again."""

    def __init__(self, directory: Any, data: bytes) -> None:
        if not isinstance(directory, dict):
            raise ValueError("a search part without its segments")
        for name, entry in directory.items():
            kind, size, start, end = entry if isinstance(entry, list) and len(entry) == 4 else (None,) * 4
            expected = 1 if kind == "s" else array(kind).itemsize if kind in ("B", "H", "I") else None
            if (expected is None or size != expected or type(start) is not int or type(end) is not int
                    or not 0 <= start <= end <= len(data) or (end - start) % expected):
                raise ValueError(f"a search segment {name!r} that does not fit: {entry!r}")
        self._directory, self._data = directory, data

    def _place(self, name: str, array_wanted: bool) -> tuple[str, int, int]:
        entry = self._directory.get(name)
        if entry is None or (entry[0] != "s") != array_wanted:
            raise ValueError(f"a search part without its {name}")
        return entry[0], entry[2], entry[3]

    def array(self, name: str) -> array:
        kind, start, end = self._place(name, True)
        values = array(kind)
        values.frombytes(memoryview(self._data)[start:end])
        if sys.byteorder == "big":
            values.byteswap()
        return values

    def bytes(self, name: str) -> bytes:
        _, start, end = self._place(name, False)
        return self._data[start:end]

    def text(self, name: str) -> str:
        return self.bytes(name).decode()  # not UTF-8: a UnicodeDecodeError, a ValueError


class _Words(NamedTuple):
    """Documents' words, normalized: each one's names, and each name and text word's documents."""
    full: list[list[str]]
    name_map: dict[str, set[int]]
    text_map: dict[str, set[int]]

    def counts(self) -> dict[str, int]:
        """Each text word → how many documents have it (what ``Context`` adds up)."""
        return {word: len(docs) for word, docs in self.text_map.items()}


def _words(docs: Sequence[Doc[Any]]) -> _Words:
    full: list[list[str]] = []
    name_map: dict[str, set[int]] = defaultdict(set)
    text_map: dict[str, set[int]] = defaultdict(set)
    for i, doc in enumerate(docs):
        fulls = [normalize(n) for n in doc.names if n]
        full.append(fulls)
        for name in fulls:
            for word in name.split():
                name_map[word].add(i)
        for word in set(normalize(doc.text).split()):
            text_map[word].add(i)
    return _Words(full, name_map, text_map)


class Context(NamedTuple):
    """What a part of the card search takes from all the cards: the text words too common to
    count (in more than a fifth of all the documents) and, for a word start that begins more
    than 200 text words, the last of them it completes (a query word completes the first 200).
    Ranked with it, a part answers as one index of all the cards answers for its documents."""
    common: frozenset[str]
    cuts: dict[str, str]

    def key(self, counts: Mapping[str, int]) -> str:
        """What of this context the part whose text words are ``counts`` is ranked with: its
        stored ranking holds while this key does."""
        kept = sorted(w for w in counts if w not in self.common)
        cuts = []
        for prefix, last in sorted(self.cuts.items()):
            at = bisect.bisect_right(kept, last)  # the words it starts are consecutive
            if at < len(kept) and kept[at].startswith(prefix):
                cuts.append((prefix, last))
        text = json.dumps([sorted(self.common.intersection(counts)), cuts], ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


def context_of(counts: Iterable[Mapping[str, int]], docs: int) -> Context:
    """The context of parts whose text words are ``counts``, ``docs`` documents in all."""
    total: Counter[str] = Counter()
    for part in counts:
        total.update(part)
    common = max(20, docs // 5)
    too_common = frozenset(w for w, n in total.items() if n > common)
    words = sorted(w for w in total if w not in too_common)
    starts = Counter(w[:end] for w in words for end in range(4, len(w) + 1))
    # The words a prefix starts are consecutive in sorted order, from where the prefix would go.
    cuts = {prefix: words[bisect.bisect_left(words, prefix) + _TEXT_COMPLETIONS - 1]
            for prefix, n in starts.items() if n > _TEXT_COMPLETIONS}
    return Context(too_common, cuts)


class DocIndex(Generic[T]):
    """The words of documents' names and texts, ready for ``search``.

    ``ranked`` (the card search): every word and word start the documents have (a "token") gets,
    when the index is built, its documents in the order a one-word query for it ranks them, with
    their scores. The usual query, a name or the start of one, is then one lookup and a slice;
    only a query with several words, or a word the cards do not have (a typo), is scored per
    query. Without it (a game's rules: few documents, kept by companion.cards.rules), every query is scored.

    ``context``: the words too common to count and the prefixes' last completions of a larger
    whole this index is a part of (see ``Context``); without it, its own documents'."""

    # A ranked index read from a part's record (``_restored``) makes what only some queries use
    # when first asked: these attributes, by the method that makes them.
    _LAZY: ClassVar[dict[str, str]] = {
        "_full": "_load_names", "_single": "_load_names", "_names": "_load_names",
        "_sorted_names": "_load_names", "_sorted_docs": "_load_names", "_first_len": "_load_first_len",
        "_name_words": "_load_words", "_name_map": "_load_words", "_typos": "_load_typos", "_bases": "_load_bases",
    }

    def __init__(self, docs: Iterable[Doc[T]] = (), *, ranked: bool = False, context: Context | None = None,
                 words: _Words | None = None) -> None:
        docs = list(docs)
        self.items: list[T] = [d.item for d in docs]
        words = words if words is not None else _words(docs)
        self._full: list[list[str]] = words.full  # normalized whole names per doc
        name_map, text_map = words.name_map, words.text_map
        if context is None:
            common = max(20, len(docs) // 5)
            text_words = sorted(w for w, d in text_map.items() if len(d) <= common)
        else:
            text_words = sorted(w for w in text_map if w not in context.common)
        self._name_words = sorted(name_map)
        self._name_map = {w: tuple(sorted(name_map[w])) for w in self._name_words}
        self._text_map = {w: tuple(sorted(text_map[w])) for w in text_words}
        self._typos = _TypoForms.build(self._name_words)
        # Every prefix of a word (2 letters or more for names, 4 for texts: shorter ones are not
        # completed) → the words it starts: a name's longest first (``_word_codes`` scores them
        # by their length), a text's in sorted order.
        self._name_prefixes = _prefix_table(sorted(self._name_words, key=len, reverse=True), 2)
        self._text_prefixes = _prefix_table(text_words, 4)
        for prefix, last in (context.cuts.items() if context is not None else ()):
            found = self._text_prefixes.get(prefix)
            if found is not None and found[-1] > last:  # past the whole's first completions
                kept = tuple(w for w in found if w <= last)
                if kept:
                    self._text_prefixes[prefix] = kept
                else:
                    del self._text_prefixes[prefix]
        self._tokens: list[str] = []  # sorted: a token's number is its place
        self._ranked = ranked
        self._kept_scores: dict[str, dict[int, float]] = {}  # _word_scores' of an index not ranked
        self._prepare_names()
        self._load_bases()
        if ranked:
            self._rank_tokens()

    def _prepare_names(self) -> None:
        """What queries use besides the stored state: each document's names without repeats,
        and every name sorted, for the bonus of a name that is or starts with the query."""
        self._full = [list(dict.fromkeys(fulls)) for fulls in self._full]
        self._single = [fulls[0] if len(fulls) == 1 else None for fulls in self._full]
        self._first_len = [len(fulls[0]) if fulls else 0 for fulls in self._full]
        self._names = [tuple(fulls) or ("",) for fulls in self._full]  # a nameless document measures ""
        pairs = sorted((f, d) for d, fulls in enumerate(self._full) for f in fulls)
        self._sorted_names = [f for f, _ in pairs]
        self._sorted_docs = [d for _, d in pairs]

    def _load_bases(self) -> None:
        longest = self._longest if "_longest" in self.__dict__ else max(map(len, self._name_words), default=0)
        self._bases = [_bases(n, longest) for n in range(longest + 1)]
        self._where = tuple("name" if score > _TEXT else "text" for score in _bases(0, longest))  # by code

    def _rank_tokens(self) -> None:
        """Each token's documents as a one-word query for it ranks them (see the class), in
        three flat arrays; the tables they come from are not kept.

        All the tokens are ranked in one flat pass (``_rank``), each step a ``map`` over every
        token's documents at once (run in C: the largest game's tokens have 270,000 documents
        in all, and a line of Python for each took a second; a step per token, 20,000 of them,
        took a third of the build)."""
        tokens = sorted({*self._name_map, *self._name_prefixes, *self._text_map, *self._text_prefixes})
        order = _Order(self._names, self._first_len)
        found = list(map(self._word_codes, tokens))
        sizes = list(map(len, found))
        offsets = list(accumulate(sizes, initial=0))
        keys = self._rank(tokens, found, sizes, offsets, order)
        docs = list(map(order.docs.__getitem__, map(and_, keys, repeat(order.mask))))
        scores = map(sub, repeat(_MILLIS), map(rshift, keys, repeat(order.shift)))
        codes = map(getitem, chain.from_iterable(map(repeat, found, sizes)), docs)
        self._tokens = tokens
        self._offsets, self._docs, self._scores, self._codes = map(_packed, (offsets, docs, scores, codes))
        self._name_prefixes = self._text_prefixes = self._text_map = {}
        self._typos.lookup, self._typos.owns = None, []  # 8 MB: the flat arrays answer the queries from now on

    # --- the cache -----------------------------------------------------------------------
    def segments(self) -> tuple[dict[str, Any], dict[str, array | str | bytes]]:
        """What ``_restored`` makes this same index from (a ranked one): a few numbers (JSON
        data), and segments for ``_pack``: texts and flat arrays, read back with no parsing."""
        if not self._ranked:
            raise ValueError("only a ranked index is stored")
        names = [self._name_map[w] for w in self._name_words]
        head = {"longest": max(map(len, self._name_words), default=0), "check": _check_key()}
        return head, {
            "tokens": "\n".join(self._tokens), "offsets": self._offsets, "docs": self._docs,
            "scores": self._scores, "codes": self._codes, "first_len": _packed(self._first_len),
            "full": json.dumps(self._full, ensure_ascii=False, separators=(",", ":")),
            "name_words": "\n".join(self._name_words), "name_ends": _packed(accumulate(map(len, names))),
            "name_docs": _packed(chain.from_iterable(names)), **self._typos.segments(),
        }

    @classmethod
    def _restored(cls, head: Any, segments: _Segments, items: list[T]) -> DocIndex[T]:
        """The ranked index ``segments`` hold, for ``items``: what every query needs (the tokens
        and their rankings) now, the rest when a query first needs it (``_LAZY``)."""
        self = cls.__new__(cls)
        longest, check = (head.get("longest"), head.get("check")) if isinstance(head, dict) else (None, None)
        if type(longest) is not int or not 0 <= longest < 1000 or type(check) is not int:
            raise ValueError("a search part without its numbers")
        self.items, self._segments, self._longest, self._check = items, segments, longest, check
        tokens = segments.text("tokens")
        # A sorted list, found by bisection: a dict of them cost a start more than a query saves.
        self._tokens = tokens.split("\n") if tokens else []
        self._offsets, self._docs, self._scores, self._codes = map(
            segments.array, ("offsets", "docs", "scores", "codes"))
        if len(self._offsets) != len(self._tokens) + 1 or self._offsets[-1] != len(self._docs) or not (
                len(self._docs) == len(self._scores) == len(self._codes)):
            raise ValueError("a search part whose ranked tokens do not add up")
        self._ranked = True
        self._name_prefixes = self._text_prefixes = self._text_map = {}
        self._load_bases()
        return self

    def __getattr__(self, name: str) -> Any:
        # Only for what an index read from a record has not made yet (see _LAZY).
        load = DocIndex._LAZY.get(name)
        if load is None or "_segments" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        getattr(self, load)()
        return self.__dict__[name]

    def _load_first_len(self) -> None:
        first_len = self._segments.array("first_len")
        if len(first_len) != len(self.items):
            raise ValueError("a search part whose names do not add up")
        self._first_len = first_len

    def _load_names(self) -> None:
        full = json.loads(self._segments.text("full"))
        if not (isinstance(full, list) and len(full) == len(self.items) and set(map(type, full)) <= {list}
                and set(map(type, chain.from_iterable(full))) <= {str}):
            raise ValueError("a search part whose names do not add up")
        self._full = full
        self._prepare_names()

    def _load_words(self) -> None:
        text = self._segments.text("name_words")
        words = text.split("\n") if text else []
        ends, docs = self._segments.array("name_ends"), self._segments.array("name_docs")
        if len(ends) != len(words) or (ends and ends[-1] != len(docs)):
            raise ValueError("a search part whose name words do not add up")
        runs = map(docs.__getitem__, map(slice, chain((0,), ends), ends))
        self._name_map = dict(zip(words, map(tuple, runs), strict=True))
        self._name_words = words

    def _load_typos(self) -> None:
        # Keys hashed otherwise (see _check_key): built again, as a first build does.
        self._typos = (_TypoForms.restore(self._segments) if self._check == _check_key()
                       else _TypoForms.build(self._name_words))
        # As a ranked index built here keeps them: the flat arrays alone.
        self._typos.lookup, self._typos.owns = None, []

    # --- matching one query word ---------------------------------------------------------
    def _token(self, word: str) -> int | None:
        tokens = self._tokens
        at = bisect.bisect_left(tokens, word)
        return at if at < len(tokens) and tokens[at] == word else None

    def _scan_near(self, word: str, edits: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Name words one and two edits away from ``word``, through the deletion index."""
        words, typos = self._name_words, self._typos
        keys: Iterable[int] | None = None
        if typos.owns and _stored_depth(word) == edits:  # a name word's forms: made with the index
            at = bisect.bisect_left(words, word)
            if at < len(words) and words[at] == word:
                keys = typos.owns[at]
        found = set(map(words.__getitem__, typos.words(_deletions(word, edits) if keys is None else keys)))
        near: tuple[list[str], ...] = ([], [], [], [])  # by distance; edits + 1: too far
        for other in found:
            near[OSA.distance(word, other, score_cutoff=edits)].append(other)
        return (tuple(near[1]), tuple(near[2]) if edits > 1 else ()) if near[1] or near[2] else _NOTHING_NEAR

    _near = _scan_near  # name words one and two edits away from ``word`` (never ``word`` itself)

    def _word_codes(self, word: str) -> dict[int, int]:
        """The best match code of each document for one query word, from the word tables (a
        ranked index keeps only the name words: a word it has no token for is a typo or
        nothing)."""
        name_map, text_map = self._name_map, self._text_map
        # A document keeps the best code offered to it: the offers are written worst first, the
        # best last, one dict update a code (in C, where a test per document cost a tenth of the
        # index's build).
        best: dict[int, int] = {}
        if len(word) >= 4:
            found = self._text_prefixes.get(word)
            if found:
                best = dict.fromkeys(chain.from_iterable(map(text_map.__getitem__, found[:_TEXT_COMPLETIONS])),
                                     _TEXT_PREFIX)
        if word in text_map:
            best.update(dict.fromkeys(text_map[word], _IN_TEXT))
        edits = max_edits(word)
        if edits:
            one, two = self._scan_near(word, edits)
            for near, code in ((two, _NEAR2), (one, _NEAR1)):
                if near:
                    best.update(dict.fromkeys(chain.from_iterable(map(name_map.__getitem__, near)), code))
        completions = self._name_prefixes.get(word) if len(word) >= 2 else None
        if completions:
            # A shorter completion scores higher: written after the longer ones, it keeps the
            # document. The only one as long as the word is the word itself (exact, below).
            for length, group in groupby(completions, len):  # longest first (``_name_prefixes``)
                if length > len(word):
                    best.update(dict.fromkeys(chain.from_iterable(map(name_map.__getitem__, group)),
                                              _PREFIX + length))
        if word in name_map:
            best.update(dict.fromkeys(name_map[word], _EXACT))
        return best

    def _word_scores(self, word: str) -> dict[int, float]:
        """The best score of each document for one query word; above 1.0 means in a name."""
        bases = self._bases[len(word)] if len(word) < len(self._bases) else _HEAD
        i = self._token(word)
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
        # Every query is scored here (a game's rules): a search box asks again at each key typed,
        # with the same first words; a few words' scores kept (never changed: read only).
        kept = self._kept_scores.get(word)
        if kept is None:
            if len(self._kept_scores) >= 32:
                self._kept_scores.clear()
            kept = self._kept_scores[word] = {d: bases[code] for d, code in self._word_codes(word).items()}
        return kept

    def _rank(self, tokens: list[str], found: list[dict[int, int]], sizes: list[int], offsets: list[int],
              order: _Order) -> list[int]:
        """Every token's documents (``found``: each one's best match code, by document), best
        first, as their sort keys (``_Order``: each holds the document's place and its score in
        thousandths, each score as ``search_normalized`` adds it up: the same float steps, the
        same rounding), the tokens' back to back (token i's from ``offsets[i]``)."""
        def each(values: Iterable[Any]) -> Iterator[Any]:  # a value a token → the value a document
            return chain.from_iterable(map(repeat, values, sizes))

        docs = list(chain.from_iterable(found))
        queries = list(each(tokens))
        ratio = fuzz.ratio
        best = list(map(ratio, queries, map(order.names[0].__getitem__, docs)))
        # A document's nearest name counts: its second names measured where it has one, then
        # its third ones, each step over those that have as many names.
        at: Sequence[int] = range(len(docs))
        for names, has in zip(order.names[1:], order.has[1:], strict=True):
            at = list(compress(at, map(has.__getitem__, map(docs.__getitem__, at))))
            ratios = map(ratio, map(queries.__getitem__, at), map(names.__getitem__, map(docs.__getitem__, at)))
            deque(map(best.__setitem__, at, map(max, map(best.__getitem__, at), ratios)), 0)
        # A name that is, or starts with, the token: its bonus instead of the ratio's (a ratio is
        # never negative: the bonus is written as one, see ``_RatioKeys``), by (token, document).
        size = len(self._full)
        bonus = self._name_bonuses({token: t for t, token in enumerate(tokens)}, size)
        if bonus:
            pairs = list(map(add, map(mul, each(range(len(tokens))), repeat(size)), docs))
            at = list(compress(range(len(docs)), map(bonus.__contains__, pairs)))
            deque(map(best.__setitem__, at, map(neg, map(bonus.__getitem__, map(pairs.__getitem__, at)))), 0)
        # Each code's table (by the token's length) turns a document's best ratio into its
        # score's sort key.
        count = len(self._bases)
        tables = each(map(order.tables, (self._bases[len(q)] if len(q) < count else _HEAD for q in tokens)))
        keys = list(map(or_, map(getitem, map(getitem, tables, chain.from_iterable(map(dict.values, found))), best),
                        map(order.place.__getitem__, docs)))
        # Each token's keys sorted in place (``sorted`` of each token's slice, in C).
        ends = offsets[1:]
        return list(chain.from_iterable(map(sorted, map(keys.__getitem__, map(slice, offsets, ends)))))

    # --- the query -----------------------------------------------------------------------
    def search(self, query: str, limit: int = 20, allowed: Allowed | None = None) -> list[Hit[T]]:
        return self.search_normalized(normalize(query), limit, allowed)

    def search_normalized(self, q: str, limit: int = 20,
                          allowed: Allowed | None = None) -> list[Hit[T]]:
        """``search`` of a query already through ``normalize``."""
        if " " not in q:
            i = self._token(q)
            if i is not None:
                return self._token_hits(i, limit, allowed)
            if not q:
                return []
            if self._ranked:
                return self._typo_hits(q, limit, allowed)
            words = [q]
        else:
            words = list(dict.fromkeys(q.split()))
        scores, candidates = self._scored(words, allowed)
        if not candidates and len(words) > 1:  # forgive one word the user got too wrong
            candidates = self._forgiven(scores, len(words), allowed)
        items = self.items
        return [_hit(Hit, (items[d], -neg, "name" if name else "text"))
                for neg, _, d, name in self._ranked_hits(q, scores, candidates)[:limit]]

    def _scored(self, words: list[str], allowed: Allowed | None) -> tuple[list[dict[int, float]], Iterable[int]]:
        """Each query word's scores by document, and the documents that have every word."""
        scores = [self._word_scores(word) for word in words]
        if len(words) == 1:
            candidates: Iterable[int] = scores[0].keys()
        else:
            ordered = sorted(scores, key=len)
            candidates = set(ordered[0]).intersection(*ordered[1:])
        if allowed is not None:
            candidates = set(filter(allowed.__contains__, candidates))
        return scores, candidates

    @staticmethod
    def _forgiven(scores: list[dict[int, float]], need: int, allowed: Allowed | None) -> set[int]:
        """The documents that have all the query's words but one."""
        counts = Counter(d for s in scores for d in s)
        candidates = {d for d, n in counts.items() if n >= need - 1}
        if allowed is not None:
            candidates = set(filter(allowed.__contains__, candidates))
        return candidates

    def _ranked_hits(self, q: str, scores: list[dict[int, float]],
                     candidates: Iterable[int]) -> list[tuple[float, int, int, bool]]:
        """The ``candidates`` best first: (-score, first name's length, doc, in a name)."""
        candidates = list(candidates)
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
        need = len(scores)
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
        return hits

    def _typo_hits(self, q: str, limit: int, allowed: Allowed | None) -> list[Hit[T]]:
        items = self.items
        return [_hit(Hit, (items[d], -neg, "name")) for neg, _, d in self._typo_ranked(q, allowed)[:limit]]

    def _typo_ranked(self, q: str, allowed: Allowed | None) -> list[tuple[float, int, int]]:
        """A one-word query no card has nor starts (a ranked index has every word and start as a
        token): only the documents of its typos' name words, scored as ``search_normalized``
        scores them, best first. No name is or starts with such a word: no name bonus to look for."""
        best = self._word_scores(q)
        candidates: Iterable[int] = best if allowed is None else filter(allowed.__contains__, best)
        names, first_len, ratio = self._names, self._first_len, fuzz.ratio
        hits = []
        for d in candidates:
            own = names[d]
            near = ratio(q, own[0]) if len(own) == 1 else max(map(ratio, repeat(q), own))
            hits.append((-round(best[d] + 2 * near / 100, 3), first_len[d], d))
        hits.sort()
        return hits

    def _positions(self, token: int, limit: int, allowed: Allowed | None) -> Iterable[int]:
        """The places in the rankings of the first ``limit`` allowed documents of a token."""
        start, end = self._offsets[token], self._offsets[token + 1]
        if allowed is None:
            return range(start, min(end, start + max(limit, 0)))
        # the filter, the count and the stop made in C
        return islice(compress(range(start, end), map(allowed.__contains__, self._docs[start:end])), max(limit, 0))

    def _token_hits(self, token: int, limit: int, allowed: Allowed | None) -> list[Hit[T]]:
        """The first ``limit`` allowed documents of a token's ranking, as a one-word query's hits."""
        items, docs, scores, codes, where = self.items, self._docs, self._scores, self._codes, self._where
        # A score n/1000 is the same float as round(score, 3) was: both are the double nearest n/1000.
        return [_hit(Hit, (items[docs[j]], scores[j] / 1000, where[codes[j]]))
                for j in self._positions(token, limit, allowed)]

    def _one_word(self, q: str, limit: int, allowed: Allowed | None,
                  places: Sequence[int]) -> list[tuple[float, int, int, Hit[T]]]:
        """``search_normalized`` of a one-word query, each hit after the key that orders it among
        other parts' hits: (-score, first name's length, the document's place among all)."""
        items, first_len = self.items, self._first_len
        i = self._token(q)
        if i is not None:
            docs, scores, codes, where = self._docs, self._scores, self._codes, self._where
            return [(-scores[j] / 1000, first_len[docs[j]], places[docs[j]],
                     _hit(Hit, (items[docs[j]], scores[j] / 1000, where[codes[j]])))
                    for j in self._positions(i, limit, allowed)]
        if not q:
            return []
        if self._ranked:
            return [(neg, n, places[d], _hit(Hit, (items[d], -neg, "name")))
                    for neg, n, d in self._typo_ranked(q, allowed)[:limit]]
        scores, candidates = self._scored([q], allowed)
        return self._placed(self._ranked_hits(q, scores, candidates)[:limit], places)

    def _placed(self, ranked: list[tuple[float, int, int, bool]],
                places: Sequence[int]) -> list[tuple[float, int, int, Hit[T]]]:
        items = self.items
        return [(neg, n, places[d], _hit(Hit, (items[d], -neg, "name" if name else "text")))
                for neg, n, d, name in ranked]

    def _name_bonuses(self, tokens: Mapping[str, int], size: int) -> dict[int, int]:
        """``_name_bonus`` of every token at once, by token number * ``size`` + document: a name
        starts with a token (which has no space) only if its first word does."""
        bonus: dict[int, int] = {}
        for d, fulls in enumerate(self._full):
            for full in fulls:
                first = full.split(" ", 1)[0]
                for end in range(1, len(first) + 1):
                    t = tokens.get(first[:end])
                    if t is not None:
                        if end == len(full):
                            bonus[t * size + d] = 10
                        else:
                            bonus.setdefault(t * size + d, 5)
        return bonus

    def _name_bonus(self, q: str) -> dict[int, int]:
        """The documents one of whose names is the whole query (10) or starts with it (5)."""
        names, docs = self._sorted_names, self._sorted_docs
        start = bisect.bisect_left(names, q)
        end = bisect.bisect_left(names, q + "\uffff", start)
        if start == end:
            return {}
        # The names that are the query sort first among those that start with it.
        whole = bisect.bisect_right(names, q, start, end)
        bonus = dict.fromkeys(docs[start:end], 5)
        if whole > start:
            bonus.update(dict.fromkeys(docs[start:whole], 10))
        return bonus


_MILLIS = 1 << 14  # above any score in thousandths (13,000 at most: 3 + a bonus of 10)


class _Order:
    """What ranking a part's tokens shares: its documents in the order equal scores rank them
    (shorter first name first, then the document's own order), each one's place in it; each
    document's first names, second names and so on (``names``, and ``has``: whether it has
    one); and ``keys``, each
    score seen → what it sorts as: its thousandths (``round(score, 3)``, the slow part, once a
    score), from ``_MILLIS`` down, shifted above a place. A score and a place make one number
    that sorts as (-score, first name's length, document) does (and stays below 2 ** 30, a
    number that Python sorts and combines fastest, for 8,000 documents)."""

    def __init__(self, names: Sequence[tuple[str, ...]], first_len: Sequence[int]) -> None:
        self.docs = sorted(range(len(first_len)), key=lambda d: (first_len[d], d))
        self.place = [0] * len(self.docs)
        for at, d in enumerate(self.docs):
            self.place[d] = at
        self.shift = max(len(self.docs) - 1, 1).bit_length()
        self.mask = (1 << self.shift) - 1
        # Each document's first names, second names (None where it has only one)...
        most = max(map(len, names), default=1)
        self.names = [[own[n] if len(own) > n else None for own in names] for n in range(most)]
        self.has = [[len(own) > n for own in names] for n in range(most)]
        self.keys = _Keys(self.shift)
        self._tables: dict[int, list[_RatioKeys]] = {}

    def tables(self, bases: tuple[float, ...]) -> list[_RatioKeys]:
        """For a query word whose codes score ``bases``: each code's ratio → sort key table."""
        tables = self._tables.get(id(bases))
        if tables is None:  # ``bases`` are the index's own (one tuple a word length): kept alive by it
            tables = self._tables[id(bases)] = [_RatioKeys(base, self.keys) for base in bases]
        return tables


class _Keys(dict[float, int]):
    """A score → its sort key (see ``_Order``), made when first asked."""

    def __init__(self, shift: int) -> None:
        super().__init__()
        self.shift = shift

    def __missing__(self, score: float) -> int:
        millis = round(round(score, 3) * 1000)  # as a ranking stored its score (see _token_hits)
        if not 0 <= millis < _MILLIS:
            raise ValueError(f"a score out of range: {score}")
        key = self[score] = (_MILLIS - millis) << self.shift
        return key


class _RatioKeys(dict[float, int]):
    """For one match code of one query length: a document's best name ratio → the sort key of
    its score (the code's score plus the ratio's bonus, 2 * r / 100 as a query adds it), made
    when first asked. One lookup a document where the sum and its key's lookup were five steps."""

    def __init__(self, base: float, keys: _Keys) -> None:
        super().__init__()
        self.base, self.keys = base, keys

    def __missing__(self, best: float) -> int:
        # A negative "ratio" is a name bonus (``DocIndex._rank``): the code's score plus it.
        key = self[best] = self.keys[self.base + 2 * best / 100 if best >= 0 else self.base + -best]
        return key


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


def content_key(game: str, docs: Sequence[Doc[Card]]) -> str:
    """What a part of the card search is made of: its cards' ids, and their names, texts and
    filter values as the search reads them. Two parts of one key rank alike (in one context)."""
    made = [[d.item.id, d.names, d.text, sorted(d.attrs["types"]), sorted(d.attrs["groups"]), d.attrs["cost"]]
            for d in docs]
    text = json.dumps([STATE_FORMAT, game, made], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class PartRecord(NamedTuple):
    """One part of the card search as the card index keeps it (a row of its ``search`` table):
    plain data, bytes and text, never code to run."""
    key: str  # what the part is made of (``content_key``)
    context: str  # what it was ranked with (``Context.key``)
    meta: bytes  # JSON: format, game, its cards' ids, the index's numbers, the segments' places
    data: bytes  # the segments (``_pack``): texts and little-endian arrays
    stats: bytes  # JSON: each text word → how many of its cards have it (for ``Context``)


Attrs = tuple[frozenset[str], frozenset[str], int | None]  # a card's types, clans or faction, and cost


def _doc_attrs(doc: Doc[Card]) -> tuple[AbstractSet[str], AbstractSet[str], int | None]:
    return doc.attrs["types"], doc.attrs["groups"], doc.attrs["cost"]


def _stats(record: PartRecord) -> dict[str, int]:
    """A record's text words and their counts (checked: data, no code)."""
    counts = json.loads(record.stats)
    if not isinstance(counts, dict) or not all(type(n) is int for n in counts.values()):
        raise ValueError("a search part whose words are not counted")
    return counts


class _Part:
    """The search over one game's cards, or over a user's own cards of a game (a part apart, so
    that a card added ranks the user's few cards again, not the game's thousands): the cards,
    their places among all the cards (the order equal scores keep), and their index, made from
    the part's record when a query first needs it."""

    def __init__(self, game: str, places: Sequence[int], items: list[Card], key: str, context: str, *,
                 index: DocIndex[Card] | None = None, attrs: list[Any] | None = None,
                 counts: dict[str, int] | None = None, record: PartRecord | None = None,
                 head: dict[str, Any] | None = None, segments: _Segments | None = None) -> None:
        self.game, self.places, self.items, self.key, self.context = game, places, items, key, context
        self.built = index is not None  # ranked here, not read from a record
        self._index, self._raw_attrs, self._counts = index, attrs, counts
        self._record, self._head, self._segments = record, head, segments
        self._attrs: list[Attrs] | None = None

    @classmethod
    def ranked(cls, game: str, places: Sequence[int], docs: list[Doc[Card]], words: _Words,
               context: Context, key: str) -> _Part:
        counts = words.counts()
        index = DocIndex(docs, ranked=True, context=context, words=words)
        return cls(game, places, index.items, key, context.key(counts), index=index,
                   attrs=[_doc_attrs(d) for d in docs], counts=counts)

    @property
    def name(self) -> str:
        own = self.items and self.items[0].extra.get("overlay")
        return f"{self.game} (own)" if own else self.game

    @property
    def index(self) -> DocIndex[Card]:
        index = self._index
        if index is None:  # two threads may both make it: the same index
            assert self._head is not None and self._segments is not None
            index = self._index = DocIndex._restored(self._head.get("index"), self._segments, self.items)
        return index

    @property
    def attrs(self) -> list[Attrs]:
        """Each card's filter values; most cards share their types and clans with others: one
        frozenset each (2 MB less)."""
        if self._attrs is None:
            raw = self._raw_attrs
            if raw is None:
                assert self._segments is not None
                raw = json.loads(self._segments.text("attrs"))
                if not isinstance(raw, list) or len(raw) != len(self.items):
                    raise ValueError("a search part whose filters do not add up")
            shared: dict[frozenset[str], frozenset[str]] = {}

            def one(values: Iterable[str]) -> frozenset[str]:
                key = frozenset(values)
                return shared.setdefault(key, key)

            self._attrs = [(one(t), one(g), c) for t, g, c in raw]
        return self._attrs

    def counts(self) -> dict[str, int]:
        if self._counts is None:
            assert self._record is not None
            self._counts = _stats(self._record)
        return self._counts

    def record(self) -> PartRecord:
        if self._record is None:
            head, segments = self.index.segments()
            segments["attrs"] = json.dumps([(sorted(t), sorted(g), c) for t, g, c in self.attrs], ensure_ascii=False)
            directory, data = _pack(segments)
            meta = {"format": STATE_FORMAT, "game": self.game, "ids": [c.id for c in self.items], "order": "little",
                    "index": head, "segments": directory}
            self._record = PartRecord(self.key, self.context, json.dumps(meta, ensure_ascii=False).encode(), data,
                                      json.dumps(self.counts(), ensure_ascii=False).encode())
        return self._record


def _read_record(record: PartRecord, game: str) -> tuple[dict[str, Any], _Segments]:
    """A record's head (checked: this format, this game, little-endian arrays) and segments."""
    head = json.loads(record.meta)
    if not isinstance(head, dict) or head.get("format") != STATE_FORMAT or head.get("game") != game:
        raise ValueError("a search part of another format or game")
    if head.get("order") != "little":
        raise ValueError(f"a search part of {head.get('order')!r} numbers")
    ids = head.get("ids")
    if not isinstance(ids, list) or not set(map(type, ids)) <= {str}:
        raise ValueError("a search part without its cards")
    return head, _Segments(head.get("segments"), record.data)


class _Plan(NamedTuple):
    """A part to be: its cards, and its record if one is kept (else, or if its context changed,
    it is ranked from ``docs``)."""
    game: str
    places: Sequence[int]
    items: list[Card]
    key: str
    record: PartRecord | None
    head: dict[str, Any] | None
    segments: _Segments | None
    docs: list[Doc[Card]] | None


def _places(found: list[int]) -> Sequence[int]:
    return range(found[0], found[-1] + 1) if found and found[-1] - found[0] + 1 == len(found) else found


def _kept_plans(game: str, keys: Sequence[str], stored: Mapping[str, PartRecord], places: list[int],
                items: list[Card]) -> list[_Plan] | None:
    """A game's parts as last kept (its cards unchanged since), if their records are there and
    hold these very cards, each once, in their order."""
    plans = []
    try:
        heads = [(key, stored[key], *_read_record(stored[key], game)) for key in keys]
    except (KeyError, ValueError, TypeError) as exc:
        if not isinstance(exc, KeyError):
            log.warning("search: a kept part of %s is unusable (%s): ranking it again", game, exc)
        return None
    if len(heads) == 1 and heads[0][2]["ids"] == [c.id for c in items]:  # the usual: one part a game
        key, record, head, segments = heads[0]
        return [_Plan(game, _places(places), items, key, record, head, segments, None)]
    at = {c.id: i for i, c in enumerate(items)}
    seen = 0
    for key, record, head, segments in heads:
        mine = [at.get(i, -1) for i in head["ids"]]
        if not mine or min(mine) < 0 or any(a >= b for a, b in zip(mine, mine[1:], strict=False)):
            return None
        seen += len(mine)
        plans.append(_Plan(game, _places([places[i] for i in mine]), [items[i] for i in mine], key, record,
                           head, segments, None))
    return plans if seen == len(items) and len({p for plan in plans for p in plan.places}) == seen else None


def _fresh_plans(game: str, places: list[int], items: list[Card], stored: Mapping[str, PartRecord]) -> list[_Plan]:
    """A game's parts from its cards: the shipped ones, and the user's own ones (``cards add``),
    each found by what it is made of among the records kept (a game built again with the cards it
    had: a user's file unreadable, a list update that changed nothing of the search)."""
    docs = [card_doc(c) for c in items]
    own = [bool(c.extra.get("overlay")) for c in items]
    plans = []
    for side in (False, True):
        mine = [i for i, o in enumerate(own) if o is side]
        if not mine:
            continue
        part_docs = [docs[i] for i in mine]
        key = content_key(game, part_docs)
        record, head, segments = stored.get(key), None, None
        if record is not None:
            try:
                head, segments = _read_record(record, game)
                if head["ids"] != [d.item.id for d in part_docs]:
                    raise ValueError("a search part of other cards")
            except (ValueError, TypeError) as exc:
                log.warning("search: a kept part of %s is unusable (%s): ranking it again", game, exc)
                record = head = segments = None
        plans.append(_Plan(game, _places([places[i] for i in mine]), [items[i] for i in mine], key, record,
                           head, segments, part_docs))
    return plans


@gcpause.paused()  # thousands of tables and ranked lists, none garbage
def assemble(cards: Sequence[Card], stored: Mapping[str, PartRecord] | None = None,
             known: Mapping[str, Sequence[str]] | None = None,
             trusted: Sequence[Sequence[str]] | None = None) -> SearchIndex:
    """The search over ``cards`` (every game's, in the library's order), made of the parts kept
    where they still hold, the others ranked here (``SearchIndex.built`` names them).

    ``stored``: the records kept, by key; ``known``: by game, the keys of its parts as last kept,
    for the games whose cards did not change since (their cards then need not be read to find
    them); ``trusted``: the (key, context) of the parts last kept for these very cards, in order:
    when they are all there, no part's context needs computing."""
    stored, known = stored or {}, known or {}
    by_game: dict[str, list[int]] = {}
    for i, card in enumerate(cards):
        by_game.setdefault(card.game, []).append(i)
    plans: list[_Plan] = []
    for game, places in by_game.items():
        items = [cards[i] for i in places]
        kept = _kept_plans(game, known[game], stored, places, items) if game in known else None
        plans += kept if kept is not None else _fresh_plans(game, places, items, stored)
    if trusted is not None and all(p.record is not None for p in plans) and (
            [[p.key, p.record.context] for p in plans if p.record is not None] == [list(t) for t in trusted]):
        return SearchIndex(cards, [_Part(p.game, p.places, p.items, p.key, p.record.context, record=p.record,
                                         head=p.head, segments=p.segments) for p in plans if p.record is not None])
    # Something changed: the words of all the parts say what each is ranked with.
    counts: list[dict[str, int]] = []
    words: list[_Words | None] = []
    for n, plan in enumerate(plans):
        made = None
        if plan.record is not None:
            try:
                made = _stats(plan.record)
            except (ValueError, TypeError) as exc:
                log.warning("search: a kept part of %s is unusable (%s): ranking it again", plan.game, exc)
                plans[n] = plan = plan._replace(record=None)
        if made is None:
            docs = plan.docs if plan.docs is not None else [card_doc(c) for c in plan.items]
            plans[n] = plan._replace(docs=docs)
            words.append(_words(docs))
            made = words[-1].counts()
        else:
            words.append(None)
        counts.append(made)
    context = context_of(counts, len(cards))
    parts = []
    for plan, made, found in zip(plans, counts, words, strict=True):
        wanted = context.key(made)
        if plan.record is not None and plan.record.context == wanted:
            parts.append(_Part(plan.game, plan.places, plan.items, plan.key, wanted, record=plan.record,
                               head=plan.head, segments=plan.segments, counts=made))
            continue
        docs = plan.docs if plan.docs is not None else [card_doc(c) for c in plan.items]
        parts.append(_Part.ranked(plan.game, plan.places, docs, found or _words(docs), context, plan.key))
    return SearchIndex(cards, parts)


def _merged(q: str, limit: int, chosen: Sequence[tuple[_Part, Allowed | None]]) -> list[Hit[Card]]:
    """One query over several parts: each part's hits as one index of all the cards would rank
    them (the same scores; equal ones by the first name's length, then by the cards' order),
    merged. A query of several words that no card has all of forgives a word in every part
    alike, as that index did."""
    cut = max(limit, 0)
    if " " not in q:
        lists = [part.index._one_word(q, cut, allowed, part.places) for part, allowed in chosen]
    else:
        words = list(dict.fromkeys(q.split()))
        scored = [(part, allowed, *part.index._scored(words, allowed)) for part, allowed in chosen]
        if len(words) > 1 and not any(candidates for *_, candidates in scored):
            scored = [(part, allowed, scores, part.index._forgiven(scores, len(words), allowed))
                      for part, allowed, scores, _ in scored]
        lists = [part.index._placed(part.index._ranked_hits(q, scores, candidates)[:cut], part.places)
                 for part, _, scores, candidates in scored]
    return [hit for *_, hit in islice(heapq.merge(*lists), cut)]


class SearchIndex:
    """Search over cards with filters: game, type, cost, clan or faction. Made of parts (one per
    game, and one for a user's own cards of a game): see the module's doc."""

    def __init__(self, cards: Sequence[Card], parts: list[_Part] | None = None) -> None:
        """``parts``: from ``assemble``; without them, every part is ranked here."""
        if parts is None:
            parts = assemble(cards)._parts
        self._cards = list(cards)
        self._parts = parts
        self._of_game: dict[str, list[_Part]] = {}
        for part in parts:
            self._of_game.setdefault(part.game, []).append(part)
        self._known_cache: dict[int, set[str]] = {}
        self._every_attrs: list[Attrs] | None = None
        self._by_game_made: dict[str, Allowed] | None = None
        self._allowed_cache: dict[int, tuple[Any, list[set[int]]]] = {}  # _search_normalized's
        self._filtered_cache: dict[tuple[str | None, str, str, int | None], list[frozenset[int]]] = {}

    @property
    def built(self) -> tuple[str, ...]:
        """The parts ranked here, by name (the others were read from their records)."""
        return tuple(part.name for part in self._parts if part.built)

    def records(self) -> list[PartRecord]:
        """Every part's record, in order (a part read from its record gives it back as read)."""
        return [part.record() for part in self._parts]

    def new_records(self) -> list[PartRecord]:
        """The records of the parts ranked here (to be kept)."""
        return [part.record() for part in self._parts if part.built]

    def layout(self) -> dict[str, list[str]]:
        """Each game's parts, by key, in order."""
        games: dict[str, list[str]] = {}
        for part in self._parts:
            games.setdefault(part.game, []).append(part.key)
        return games

    def prepare(self) -> None:
        """Make every part's index now, not at the first query over it."""
        for part in self._parts:
            _ = part.index

    @property
    def _by_game(self) -> dict[str, Allowed]:
        """Each game's cards by their places among all the cards: a range when they are listed
        together (a range's test is two comparisons; a set's, a probe into a table)."""
        if self._by_game_made is None:
            made: dict[str, Allowed] = {}
            for game, parts in self._of_game.items():
                places = sorted(chain.from_iterable(part.places for part in parts))
                span = range(places[0], places[-1] + 1)
                made[game] = span if len(span) == len(places) else frozenset(places)
            self._by_game_made = made
        return self._by_game_made

    @property
    def _attrs(self) -> list[Attrs]:
        """Every card's filter values, by its place among all the cards."""
        if self._every_attrs is None:
            every: list[Any] = [None] * len(self._cards)
            for part in self._parts:
                for place, attrs in zip(part.places, part.attrs, strict=True):
                    every[place] = attrs
            self._every_attrs = every
        return self._every_attrs

    def search(self, query: str, game: str | None = None, limit: int = 20, type: str | None = None,
               cost: int | None = None, clan: str | None = None, **_: object) -> list[Hit[Card]]:
        filtered = bool(type) or cost is not None or bool(clan)
        t, c = (normalize(type or ""), normalize(clan or "")) if filtered else ("", "")
        q = normalize(query)
        if not q:  # filters alone: list what they allow
            allowed: Allowed | None = None
            if game is not None:
                allowed = self._by_game.get(game, frozenset())
            if filtered:
                base = allowed if allowed is not None else range(len(self._cards))
                every = self._attrs
                allowed = {i for i in base if self._fits(every[i], t, c, cost)}
            items = sorted(allowed or (), key=lambda i: self._cards[i].name)[:limit]
            return [Hit(self._cards[i], 0.0, "name") for i in items]
        parts = self._parts if game is None else self._of_game.get(game, ())
        if not filtered and len(parts) == 1:  # one game's cards, the usual: that part's own hits
            return parts[0].index.search_normalized(q, limit)
        chosen = list(zip(parts, self._allowed_in_parts(game, t, c, cost), strict=True)) if filtered else [
            (part, None) for part in parts]
        if len(chosen) == 1:
            part, allowed = chosen[0]
            return part.index.search_normalized(q, limit, allowed)
        return _merged(q, limit, chosen)

    def _search_normalized(self, q: str, limit: int, allowed: AbstractSet[int] | range | None) -> list[Hit[Card]]:
        """A normalized query over the cards of ``allowed`` places (all: None), as one index of
        all the cards would answer it (for tests)."""
        if allowed is None:
            return _merged(q, limit, [(part, None) for part in self._parts])
        # Each part's own places among ``allowed``, kept for the next query over the same places
        # (a test asks hundreds of queries of each: the sets were most of its time).
        kept = self._allowed_cache.get(id(allowed))
        if kept is None or kept[0] is not allowed:
            if len(self._allowed_cache) >= 8:
                self._allowed_cache.clear()
            kept = self._allowed_cache[id(allowed)] = (
                allowed, [{i for i, p in enumerate(part.places) if p in allowed} for part in self._parts])
        return _merged(q, limit, list(zip(self._parts, kept[1], strict=True)))

    def _allowed_in_parts(self, game: str | None, t: str, c: str, cost: int | None) -> list[frozenset[int]]:
        """Each part's cards (of ``game``, all: None) that the filters allow, by their place in the
        part. Kept for the next queries with the same filters: the search box asks again at each
        key typed, and testing every card's filters was most of a filtered search's time. A few
        filters kept (a card's filters never change in one index)."""
        key = (game, t, c, cost)
        kept = self._filtered_cache.get(key)
        if kept is None:
            parts = self._parts if game is None else self._of_game.get(game, ())
            kept = [frozenset(i for i, a in enumerate(part.attrs) if self._fits(a, t, c, cost)) for part in parts]
            if len(self._filtered_cache) >= 16:
                self._filtered_cache.clear()
            self._filtered_cache[key] = kept
        return kept

    def _fits(self, attrs: Attrs, t: str, c: str, cost: int | None) -> bool:
        return self._has(attrs, 0, t) and self._has(attrs, 1, c) and (cost is None or attrs[2] == cost)

    def _has(self, attrs: Attrs, attr: int, value: str) -> bool:
        """Exact value ("toreador" is not "toreador antitribu"), or a prefix when no card has that
        exact value, so that "act" still finds actions."""
        if not value:
            return True
        values = attrs[attr]
        if value in values:
            return True
        if value not in self._known(attr):
            return any(x.startswith(value) for x in values)
        return False

    def _known(self, attr: int) -> set[str]:
        if attr not in self._known_cache:
            self._known_cache[attr] = {v for part in self._parts for a in part.attrs for v in a[attr]}
        return self._known_cache[attr]
