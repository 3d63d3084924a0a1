"""Whole numbers as words, in French and English, for a voice that must not read "3B".

The words come from phrases.yaml; only the grammar of each language is here (French
"et un", "soixante-dix", "quatre-vingts"; English hyphenated tens). No dependency: the
companion only ever says counters and card numbers, far below a million.
"""

from __future__ import annotations

from typing import Any

from companion.speech.lexicon import data

LIMIT = 1_000_000  # at and beyond this, the digits are left to the voice


def _words(lang: str) -> dict[str, Any]:
    return data(lang)["numbers"]


def number_words(n: int, lang: str = "fr", feminine: bool = False) -> str:
    """``27`` → "vingt-sept"; ``-3`` → "moins trois"; ``1`` (feminine) → "une"."""
    w = _words(lang)
    if n < 0:
        return f"{w['minus']} {number_words(-n, lang, feminine)}"
    if n >= LIMIT:
        return str(n)
    text = _fr(n, w) if lang == "fr" else _en(n, w)
    if feminine and (text == w["units"][1] or text.endswith((" " + w["units"][1], "-" + w["units"][1]))):
        text = text[: -len(w["units"][1])] + w["feminine_one"]
    return text


def ordinal_words(n: int, lang: str = "fr", feminine: bool = False) -> str:
    """``7`` → "septième" / "seventh"; ``1`` → "premier" (feminine "première") / "first"."""
    w = _words(lang)["ordinal"]
    if n == 1:
        return w["first_feminine"] if feminine and lang == "fr" else w["first"]
    words = number_words(n, lang)
    if lang == "fr":
        if words.endswith("quatre-vingts"):
            words = words[:-1]
        for end, new in w["ends"].items():  # cinq → cinquième, neuf → neuvième, un → unième
            if words.endswith(end):
                return words[: -len(end)] + new
        return (words[:-1] if words.endswith("e") else words) + "ième"
    head, sep, last = words.rpartition("-") if "-" in words else words.rpartition(" ")
    last = w["ends"].get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return head + sep + last


def fraction_words(a: int, b: int, lang: str = "fr", feminine: bool = False) -> str:
    """``3/4`` (three of four: blood on a vampire, actions of a turn) → "trois sur quatre"."""
    return _words(lang)["fraction"].format(a=number_words(a, lang, feminine), b=number_words(b, lang, feminine))


def signed_words(n: int, lang: str = "fr", feminine: bool = False) -> str:
    """A change of a counter: ``+2`` → "plus deux", ``-3`` → "moins trois"."""
    w = _words(lang)
    if n > 0:
        return f"{w['plus']} {number_words(n, lang, feminine)}"
    return number_words(n, lang, feminine)


def duration_words(seconds: int, lang: str = "fr") -> str:
    """``10`` → "dix secondes"; ``185`` → "trois minutes et cinq secondes"; ``3600`` → "une heure"."""
    w = _words(lang)["time"]
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    parts = [f"{number_words(n, lang, feminine=True)} {w[unit][0 if n == 1 else 1]}"
             for n, unit in ((h, "hour"), (m, "minute"), (s, "second")) if n]
    if not parts:  # French says "zéro seconde", English "zero seconds"
        return f"{number_words(0, lang)} {w['second'][0 if lang == 'fr' else 1]}"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" {w['and']} " + parts[-1]


def _en(n: int, w: dict[str, Any]) -> str:
    units, tens = w["units"], w["tens"]
    if n < 20:
        return units[n]
    if n < 100:
        t, u = divmod(n, 10)
        return tens[t] + (f"-{units[u]}" if u else "")
    if n < 1000:
        h, rest = divmod(n, 100)
        return f"{units[h]} {w['hundred']}" + (f" {_en(rest, w)}" if rest else "")
    k, rest = divmod(n, 1000)
    return f"{_en(k, w)} {w['thousand']}" + (f" {_en(rest, w)}" if rest else "")


def _fr(n: int, w: dict[str, Any]) -> str:
    units, tens = w["units"], w["tens"]
    if n < 20:
        return units[n]
    if n < 100:
        t, u = divmod(n, 10)
        if t in (7, 9):  # 70-79 and 90-99 count on from sixty and eighty: soixante-douze
            base = tens[t - 1]
            if t == 7 and u == 1:
                return f"{base} et {units[11]}"
            return f"{base}-{units[10 + u]}"
        if t == 8:
            return tens[8] + (f"-{units[u]}" if u else "s")
        if u == 1:
            return f"{tens[t]} et {units[1]}"
        return tens[t] + (f"-{units[u]}" if u else "")
    if n < 1000:
        h, rest = divmod(n, 100)
        head = w["hundred"] if h == 1 else f"{units[h]} {w['hundred']}" + ("" if rest else "s")
        return head + (f" {_fr(rest, w)}" if rest else "")
    k, rest = divmod(n, 1000)
    head = w["thousand"] if k == 1 else f"{_fr(k, w)} {w['thousand']}"
    # "deux cents mille" loses its s before mille, and "quatre-vingts mille" too.
    if head.endswith(("cents " + w["thousand"], "vingts " + w["thousand"])):
        head = head.replace("s " + w["thousand"], " " + w["thousand"])
    return head + (f" {_fr(rest, w)}" if rest else "")
