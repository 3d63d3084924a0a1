"""Command words → intents. The same words for ``python -m companion table``, the console
companion and a keyboard: ``pool 2 -3``, ``essence 2 or -1``, ``next``, ``undo``... (the whole
list is in docs/commands.md).

Seats are given by number (1 is the first seat in table order) or by name (any unambiguous
beginning, accents and case ignored). Amounts carry their sign: ``+2``, ``-3``; ``=20`` sets.
A line that cannot be understood raises ``ParseError`` with a message key and its values.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from companion import registry
from companion.cards.effects import FREE_WORDS
from companion.i18n import language, t
from companion.table.data import TableData, fold
from companion.table.engine import Intent


class ParseError(Exception):
    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        # A word quoted back is the user's own, but may be thousands of characters long.
        self.values = {k: _shorten(v) if isinstance(v, str) else v for k, v in values.items()}

    def text(self, lang: str | None = None) -> str:
        return t(self.key, lang or language(), **self.values)


# ASCII digits only: ``\d`` also matches ``²`` (the key left of 1 on a French keyboard), which
# ``int`` refuses. Every number typed is capped: no count, amount or seat of a card game needs more.
AMOUNT = re.compile(r"^([+\-=])\s*([0-9]+)$")
MAX_DIGITS = 4
MAX_NUMBER = 10**MAX_DIGITS - 1


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def number(token: str) -> int | None:
    """The value of a token of ASCII digits; None when it is not one; ParseError when it is
    beyond MAX_NUMBER (a number of thousands of digits is refused before ``int`` reads it)."""
    if not token or not token.isascii() or not token.isdigit():
        return None
    if len(token.lstrip("0")) > MAX_DIGITS:
        raise ParseError("table.parse.too_big", word=token, max=MAX_NUMBER)
    return int(token)


def is_number_like(token: str) -> bool:
    """Digits of any script (``²``, ``٣``): a number the user meant, if not one we read."""
    return bool(token) and token.isnumeric()

# The verbs of every game: canonical verb → its words. A game's own verbs and their words in
# each language are in its game.yaml (``table.verbs``); their parsers in its rules module.
VERBS: dict[str, tuple[str, ...]] = {
    "next": ("next", "suivant", "suite", "phase"),
    "end": ("end", "fin", "finir"),
    "undo": ("undo", "annuler", "annule"),
    "redo": ("redo", "refaire", "retablir"),
    "toss": ("toss", "coin", "pile", "lancer", "flip"),
    "dice": ("dice", "die", "de", "des"),
    "status": ("status", "etat", "state"),
    "timer": ("timer", "chrono", "temps", "time"),
    "help": ("help", "aide", "?"),
    "play": ("play", "jouer", "joue"),
}


def verb_words(data: TableData) -> dict[str, str]:
    """Every word a line of this game may start with → its canonical verb."""
    out: dict[str, str] = {}
    for verb, words in VERBS.items():
        for w in words:
            out[w] = verb
    for verb, by_lang in data.verbs.items():
        for words in by_lang.values():
            for w in words:
                out[fold(w)] = verb
    return out


def _game_parsers(game_id: str) -> dict[str, Callable[..., Intent]]:
    module = registry.code(game_id, "rules")
    return dict(getattr(module, "PARSERS", None) or {})


class Parser:
    def __init__(self, data: TableData, seat_names: list[str], source: str = "key",
                 crypt_card: Callable[[str], tuple[str, int] | None] | None = None,
                 library: Any = None, laid: Callable[[int | None], str | None] | None = None) -> None:
        self.data = data
        self.names = seat_names
        self.source = source
        self.verbs = verb_words(data)
        self.parsers = _game_parsers(data.id)  # a game's own verbs (``edge``, ``summon``...)
        # The card library of the caller (cards named in play/acquire/defeat, a vampire's
        # capacity); the parser never loads one of its own.
        self.library = library
        # The reference of the card last laid on a seat's reader (None: the table's reader).
        self.laid = laid
        # A vampire named without its capacity takes the card's: a game's parser asks this, or
        # by default its card library.
        self.crypt_card = crypt_card

    # -- tokens ---------------------------------------------------------------------------

    def seat(self, token: str) -> int | None:
        """0-based seat of a token (number or name), None if it is not one."""
        n = number(token)
        if n is None and is_number_like(token):
            raise ParseError("table.parse.digits", word=token)
        if n is not None:
            if 1 <= n <= len(self.names):
                return n - 1
            raise ParseError("table.parse.no_seat", seat=n, count=len(self.names))
        wanted = fold(token)
        exact = [i for i, n in enumerate(self.names) if fold(n) == wanted]
        if exact:
            return exact[0]
        hits = [i for i, n in enumerate(self.names) if fold(n).startswith(wanted)]
        if len(hits) > 1:
            raise ParseError("table.parse.ambiguous_seat", word=token,
                             names=", ".join(self.names[i] for i in hits))
        return hits[0] if hits else None

    @staticmethod
    def amount(token: str) -> tuple[str, int] | None:
        m = AMOUNT.match(token)
        if not m:
            return None
        sign, digits = m.groups()
        value = number(digits)
        assert value is not None  # the pattern only matches ASCII digits
        return ("=", value) if sign == "=" else ("+", value * (-1 if sign == "-" else 1))

    # -- lines ----------------------------------------------------------------------------

    def parse(self, line: str) -> Intent | None:
        """One command line → an intent; None for an empty line or a comment."""
        text = line.strip()
        if not text or text.startswith("#"):
            return None
        text = re.sub(r"(^|\s)#.*$", "", text).strip()  # a comment at the end of the line
        if not text:
            return None
        try:
            tokens = shlex.split(text)
        except ValueError:
            if '"' in text:
                raise ParseError("table.parse.quotes") from None
            tokens = text.split()  # a lone apostrophe, as in a name like D'Artagnan
        # `+2` glued to a word (`pool2` is not supported, `pool +2` and `pool+2` are)
        split: list[str] = []
        for tok in tokens:
            m = re.match(r"^(.*[^\s+\-=])([+\-=][0-9]+)$", tok)
            split.extend([m.group(1), m.group(2)] if m else [tok])
        word, rest = fold(split[0]), split[1:]
        verb = self.verbs.get(word)
        if verb is not None:
            own = self.parsers.get(verb)
            generic = getattr(self, f"_p_{verb}", self._p_plain)
            intent = own(self, verb, rest) if own is not None else generic(verb, rest)
        elif word in self.data.groups:
            intent = self._p_group(word, rest)
        elif word in self.data.words:
            intent = self._p_counter(self.data.words[word], rest)
        else:
            raise ParseError("table.parse.unknown", word=split[0])
        intent.source = self.source
        intent.text = text
        return intent

    def _seat_and_amount(self, rest: list[str], what: str) -> tuple[int | None, tuple[str, int]]:
        seat, amount = None, None
        for tok in rest:
            a = self.amount(tok)
            if a is not None and amount is None:
                amount = a
                continue
            if number(tok) is not None and seat is not None:
                raise ParseError("table.parse.sign", word=tok)
            s = self.seat(tok)
            if s is not None and seat is None:
                seat = s
                continue
            if number(tok) is not None:
                raise ParseError("table.parse.sign", word=tok)
            raise ParseError("table.parse.unexpected", word=tok, command=what)
        if amount is None:
            raise ParseError("table.parse.no_amount", command=what)
        return seat, amount

    def _p_counter(self, cid: str, rest: list[str]) -> Intent:
        seat, (mode, n) = self._seat_and_amount(rest, cid)
        return Intent("counter", seat, {"counter": cid, "amount": n, "mode": mode})

    def _p_group(self, group: str, rest: list[str]) -> Intent:
        keys = self.data.groups[group]
        cid = None
        left = []
        for tok in rest:
            if cid is None and fold(tok) in keys and self.amount(tok) is None:
                cid = keys[fold(tok)]
            else:
                left.append(tok)
        if cid is None:
            raise ParseError("table.parse.which", group=group, keys=", ".join(sorted(set(keys.values()))))
        seat, (mode, n) = self._seat_and_amount(left, group)
        return Intent("counter", seat, {"counter": cid, "amount": n, "mode": mode})

    def only_seat(self, verb: str, rest: list[str], required: bool = False) -> Intent:
        if len(rest) > 1:
            raise ParseError("table.parse.unexpected", word=rest[1], command=verb)
        seat = self.need_seat(rest[0]) if rest else None
        if required and seat is None:
            raise ParseError("table.parse.need_seat", command=verb)
        return Intent(verb, seat)

    def need_seat(self, token: str) -> int:
        s = self.seat(token)
        if s is None:
            raise ParseError("table.parse.not_a_seat", word=token)
        return s

    def count(self, token: str, verb: str) -> int:
        n = number(token)
        if n is None or n < 1:
            raise ParseError("table.parse.number", word=token, command=verb)
        return n

    def _p_plain(self, verb: str, rest: list[str]) -> Intent:
        return self.only_seat(verb, rest)

    def _p_undo(self, verb: str, rest: list[str]) -> Intent:
        if len(rest) > 1:
            raise ParseError("table.parse.unexpected", word=rest[1], command=verb)
        return Intent(verb, None, {"count": self.count(rest[0], verb) if rest else 1})

    _p_redo = _p_undo

    def _p_dice(self, verb: str, rest: list[str]) -> Intent:
        if not rest:
            return Intent(verb, None, {"sides": 6, "count": 1})
        m = re.fullmatch(r"([0-9]*)[dD]([0-9]+)|([0-9]+)", rest[0])
        if not m or len(rest) > 1:
            raise ParseError("table.parse.dice", word=" ".join(rest))
        if m.group(3):
            return Intent(verb, None, {"sides": number(m.group(3)), "count": 1})
        return Intent(verb, None, {"sides": number(m.group(2)), "count": number(m.group(1) or "1")})

    def _p_toss(self, verb: str, rest: list[str]) -> Intent:
        return self.only_seat(verb, rest)

    def _p_play(self, verb: str, rest: list[str]) -> Intent:
        """``play [SEAT] [CARD] [CHOICES]``: a card by name or reference, or the one last laid."""
        from companion.table.cardplay import CardNotFound, card_intent, find_card

        seat = None
        if rest and len(rest) >= 1 and (rest[0].isdigit() or any(fold(n) == fold(rest[0]) for n in self.names)):
            seat = self.need_seat(rest[0])
            rest = rest[1:]
        words = rest
        if not words or all(self._is_choice(w) for w in words):
            ref = self.laid(seat) if self.laid is not None else None
            if ref is None:
                raise ParseError("table.parse.no_card", command=verb)
            words = [ref, *words]
        if self.library is None:
            raise ParseError("table.parse.no_library", command=verb)
        try:
            card, choice = find_card(self.library, self.data.id, words, self._is_choice)
        except CardNotFound as exc:
            raise ParseError(exc.key, command=verb, **exc.values) from None
        return card_intent(verb, card, seat, choice)

    _p_acquire = _p_play
    _p_defeat = _p_play

    def _is_choice(self, word: str) -> bool:
        """A word given after a card's name to choose: an essence, a count, a
        reduction (``-1``), or ``free`` (a card another card lets you take for nothing)."""
        if word.isdigit() or fold(word) in FREE_WORDS:
            return True
        essences = self.data.groups.get("essence", {})
        # "-1 vigueur": a cost lowered by another component.
        return fold(word) in essences or (bool(essences) and word.startswith("-") and word[1:].isdigit())
