"""Numbers and the nouns they count, in French and English: the one pluralisation helper.

``plural(2, "carte", "fr")`` is "cartes"; ``count(1, "carte", "fr")`` is "1 carte"; and
``agree(text, lang)`` settles what a message template wrote as "{n} carte(s)" or "{n} cartes"
once its numbers are in ("1 carte", "3 cartes"), so that no line, written or said, shows
"(s)" or "1 cartes". French counts 0 and 1 in the singular, English only 1. The irregular
plurals and the fixed plurals a template may hold are data (grammar.yaml).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any

from companion import kept


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("grammar.yaml").read_text(encoding="utf-8")
    return kept.load_yaml("grammar.marshal", text) or {}  # read at every start: kept parsed


def _lang(lang: str) -> dict[str, Any]:
    return _data().get(lang) or _data()["fr"]


def is_plural(n: int, lang: str = "fr") -> bool:
    """Whether ``n`` of something takes the plural: French from 2 (and -2), English all but 1."""
    return abs(n) >= 2 if lang == "fr" else abs(n) != 1


def plural(n: int, noun: str, lang: str = "fr") -> str:
    """``noun`` (given in the singular) in the form ``n`` of it takes."""
    if not is_plural(n, lang):
        return noun
    words = noun.split(" ")  # "point de vie" → "points de vie": the head noun agrees
    head = words[0]
    irregular = _lang(lang)["irregular"]
    if head.lower() in irregular:
        head = irregular[head.lower()]
    elif lang == "fr":
        head = head if head.endswith(("s", "x", "z")) else head[:-2] + "aux" if head.endswith("al") else \
            head + "x" if head.endswith(("eau", "eu")) else head + "s"
    else:
        head = head + "es" if head.endswith(("s", "x", "z", "ch", "sh")) else \
            head[:-1] + "ies" if re.search(r"[^aeiou]y$", head) else head + "s"
    return " ".join([head, *words[1:]])


def count(n: int, noun: str, lang: str = "fr") -> str:
    """``count(3, "carte")`` → "3 cartes", for a written line."""
    return f"{n} {plural(n, noun, lang)}"


# "carte(s)", "transfert(s)", "événement(s) illisible(s)": a word with its plural ending in brackets.
_BRACKETED = re.compile(r"(\w+)\((s|x|es)\)")
_NUMBER = re.compile(r"(?<![\w.,+])-?\d+(?![\w.,]\d)")
_CLAUSE = re.compile(r"[.;:!?]|\s—\s")


def agree(text: str, lang: str = "fr") -> str:
    """A filled template with its numbered nouns agreeing: "1 transfert(s)" → "1 transfert",
    "3 carte(s)" → "3 cartes", "1 cartes" → "1 carte"."""
    if "(" in text:
        text = _BRACKETED.sub(lambda m: _bracketed(m, text, lang), text)
    singular = _lang(lang)["singular"]

    def one(m: re.Match[str]) -> str:
        word = m.group(2)
        form = singular.get(word.lower())
        if form is None:
            return m.group(0)
        return f"{m.group(1)} {form[:1].upper() + form[1:] if word[:1].isupper() else form}"

    return re.sub(r"(?<![\w.,+-])([01])\s+(\w+)" if lang == "fr" else r"(?<![\w.,+-])(1)\s+(\w+)", one, text)


def _bracketed(m: re.Match[str], text: str, lang: str) -> str:
    """The word of ``m`` in the form the nearest number before it (in its clause) asks for; with
    no number, the plural."""
    before = _CLAUSE.split(text[:m.start()])[-1]
    numbers = _NUMBER.findall(before)
    many = is_plural(int(numbers[-1]), lang) if numbers else True
    return m.group(1) + (m.group(2) if many else "")
