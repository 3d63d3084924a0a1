"""What is said, written for the ear: cards, scans and table changes turned into utterances.

The words are data (phrases.yaml, French and English); this module only assembles them. A card
is spoken in two languages at once: its name and its own text in the card's language (a game's
``card_language``), the words around them (type, cost, "capacité") in the listener's language.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from companion import registry
from companion.cards.model import Card, localized
from companion.i18n.grammar import agree, plural
from companion.speech.lexicon import data, game_words, words_place
from companion.speech.numbers import fraction_words, number_words, ordinal_words, signed_words

LANGS = ("fr", "en")
Verbosity = Literal["short", "normal", "full"]
VERBOSITIES: tuple[str, ...] = ("short", "normal", "full")


class _Pattern:
    """A regular expression compiled when first used: the voice's module is imported on the way
    to the window's first frame, and its 21 patterns (a few ms here, several times that on a
    Raspberry Pi) are needed only once a card or a change is said. Its methods, once looked up,
    are the compiled pattern's own."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        value = getattr(re.compile(*self._source), name)
        setattr(self, name, value)  # found on the object from now on, without this method
        return value


@dataclass(frozen=True)
class Utterance:
    text: str
    lang: str = "fr"




def _lang(lang: str) -> str:
    return lang if lang in LANGS else "fr"


# ---------------------------------------------------------------------------------------------
# Text for the ear

# Ruling references ("[LSJ 20010108]", "[RBK equip]") mean nothing to the ear.
_RULING_REF = _Pattern(r"\s*\[[A-Z]{2,5}\s+[a-z0-9][^\]]*\]")
_CARD_LINK = _Pattern(r"\{([^{}]{1,80})\}")
_LOOSE_REF = _Pattern(r"\(?\b(?:Partial reversal of )?[A-Z]{2,4} \d{8}(?:-\d+)?\b\)?")
_EMPHASIS = _Pattern(r"\*([^*\n]{1,40})\*")
_ANGLE = _Pattern(r"<([A-Z][A-Z ]{1,30})>")
_DOTTED = _Pattern(r"\b\d+(?:\.\d+)+\b")
_ITALIC = _Pattern(r"(?<![\w/])/([A-Z][^/\n]{0,40}?)/(?![\w/])")
_BRACKET = _Pattern(r"\[([A-Za-z0-9 ]{1,30})\]")
# (A word is tried from its first letter only: from each of its letters, a long card text took
# twice as long, and the first letter's try finds whatever a later one would.)
_NAMED_ICON = _Pattern(r"(?<![^\W\d_])(?P<word>[^\W\d_][\w'-]*)\s*\[(?P<code>[A-Za-z]{2,10})\]")
_RANGED = _Pattern(r"(?<![\w.])([+-]?)(\d+)R\b")
_TIMES_X = _Pattern(r"(?<![\w.])([+-]?)(\d+)X\b")
_SIGNED = _Pattern(r"(?<![\d\w.])([+-])(\d+|X)\b|(?<=[A-Za-z])([+-])(\d+|X)\b")
_ORDINAL = _Pattern(r"\b(\d+)(st|nd|rd|th|e|er|re|ère|ème)\b")
_FRACTION = _Pattern(r"(?<![\w/.])(\d+)\s?/\s?(\d+)(?![\w/])")  # "3/4": three of four
_GROUP_MARK = _Pattern(r"\s*\(G(\d{1,2})\)")  # a vampire's group, "Anson (G1)"
# French elision a spelled number asks for: "de un" → "d'un", "que une" → "qu'une".
_NUMBER_ELISION = _Pattern(r"\b([DdQq]u?e) (une?)\b")
_NUMBER = _Pattern(r"(?<![\d.,])\d+(?![\d])")
_DOT_NUMBER = _Pattern(r"(?<![\w.])\.(\d+)\b")  # ".44 Magnum"
_NUMBERED_ICON = _Pattern(r"^(\d+) (.+)$")
# What for_the_ear tidies last, and its tests of what a text holds before a pattern is tried
# (every card is said in two languages, each rule and ruling too: most texts have no digit).
_DIGIT = _Pattern(r"\d")
_SPACES = _Pattern(r"\s+")
_SPACE_BEFORE = {"fr": _Pattern(r"\s+([.,)])"), "en": _Pattern(r"\s+([.,;:!?)])")}
_AFTER_PAREN = _Pattern(r"([(])\s+")
_DOUBLE_COLON = _Pattern(r":\s*:")
_EMPTY_PARENS = _Pattern(r"\(\s*\)")
_MASCULINE_ONE = _Pattern(r"\bun(\s+)([\w'’-]+)")
_SENTENCE_END = _Pattern(r"([.!?…])[.\s]+$")


@functools.cache
def _replacements(lang: str) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """(the text replaced, its pattern, what replaces it): a pattern is tried only on a text
    holding that text, which most card texts do not (a substring test is a tenth of a search)."""
    out = []
    for old, new in data(lang)["text"]["replace"]:
        # Word-like ends only match whole words, so that "eg." never eats the end of "leg.".
        pattern = ("(?<!\\w)" if re.match(r"\w", old) else "") + re.escape(old)
        pattern += "(?!\\w)" if re.search(r"\w$", old) else ""
        out.append((old, re.compile(pattern), new))
    return tuple(out)


def prepare(langs: Iterable[str] = ("fr", "en")) -> None:
    """Read the words of speech and make their patterns now (the worker that loads the cards at
    start calls this): the first card laid is then said without first reading phrases.yaml and
    compiling its replacements, which cost more than the rest of its way to the voice."""
    for lang in langs:
        data(lang)
        _replacements(lang)


def _game_data(lang: str, game: str) -> dict[str, Any]:
    return game_words(lang, game)


def _named_icon(m: re.Match[str], game: str) -> str:
    """"requires Chimerstry [chi]", "Flight [FLIGHT]": the icon repeats the word before it,
    so the word alone is said, not "Chimerstry Inferior Chimerstry:"."""
    code = m.group("code").lower()
    names = set()
    for lang in ("en", "fr"):
        known = _game_data(lang, game).get("disciplines", {})
        if code in known:
            names.add(_fold(known[code]))
    return m.group("word") if _fold(m.group("word")) in names else m.group(0)


def _fold(word: str) -> str:
    text = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def _bracket(m: re.Match[str], lang: str, game: str) -> str:
    inner = m.group(1).strip()
    text = data(lang)["text"]
    disciplines = _game_data(lang, game).get("disciplines", {})
    code = inner.lower()
    if code in disciplines and " " not in inner:
        name = disciplines[code]
        if code == "flight":  # a discipline with a single level, always printed upper-case
            return " " + text["discipline_single"].format(name=name) + " "
        template = text["discipline_superior"] if inner.isupper() else text["discipline_inferior"]
        return " " + template.format(name=name) + " "
    icons = text["icons"]
    if code in icons:
        return " " + icons[code] + " "
    numbered = _NUMBERED_ICON.match(code)
    if numbered:
        word = icons.get(numbered.group(2), numbered.group(2))
        return f" {number_words(int(numbered.group(1)), lang)} {word} "
    return " " + code + " "


def _marks_as_words(text: str, lang: str, game: str) -> str:
    """Card text with its links, emphasis, icons, discipline marks and symbols as words: what
    both the ear and the eye get; numbers are left as they are."""
    # Each mark's pattern is tried only on a text holding the character it needs: most card
    # texts have none of them (thousands of cards, two languages, each said several ways).
    s = _RULING_REF.sub("", text) if "[" in text else text
    if _DIGIT.search(s):  # a loose ruling reference has eight digits
        s = _LOOSE_REF.sub("", s)
    if "{" in s:
        s = _CARD_LINK.sub(r"\1", s).replace("{", "")
    s = s.replace("}", "")
    if "*" in s:
        s = _EMPHASIS.sub(r"\1", s)
    if "<" in s:
        s = _ANGLE.sub(lambda m: m.group(1).lower(), s)
    if "/" in s:
        s = _ITALIC.sub(r"\1", s)
    if "[" in s:
        s = _NAMED_ICON.sub(lambda m: _named_icon(m, game), s)
        s = _BRACKET.sub(lambda m: _bracket(m, lang, game), s)
    for old, pattern, new in _replacements(lang):
        if old in s:
            s = pattern.sub(new, s)
    return s


def for_the_eye(text: str, lang: str = "fr", game: str = "") -> str:
    """Card text for a braille display or a screen reader: symbols, icons and discipline marks
    as the speech says them ("[dom]" is "Domination inférieure :"), numbers kept as digits."""
    lang = _lang(lang)
    if not text:
        return ""
    s = _marks_as_words(text, lang, game)
    lines = [_SPACES.sub(" ", line).strip() for line in s.splitlines() if line.strip()]
    return _DOUBLE_COLON.sub(":", " / ".join(lines)).strip()


def written_card(card: Card, games: Callable[[str], Any] | None, lang: str) -> tuple[str, list[tuple[str, str]], str]:
    """A card as a terminal, a braille display or a phone's screen reader gets it, in ``lang``
    where the card has it: (name, rows of type, cost, clan, disciplines..., text for the eye)."""
    from companion.cards.explain import card_rows

    card = localized(card, lang)
    try:
        game = games(card.game) if games is not None else None
    except Exception:  # a game whose data did not load: the card is still shown
        game = None
    return card.name, card_rows(card, game, lang), for_the_eye(card.text, lang, card.game)


@functools.cache
def _symbol_nouns(lang: str) -> re.Pattern[str] | None:
    """The nouns a symbol is said as ("✦" → "étoile"), after a number: their count agrees. Only
    those phrases.yaml lists as counted: "&" said "et" or "/" said "ou" are no nouns ("4 et 1
    point", never "quatre ets")."""
    nouns = {x.strip() for x in data(lang)["text"].get("counted") or []}
    if not nouns:
        return None
    return re.compile(r"(?<![\w.,])(\d+)(\s+)(" + "|".join(sorted(map(re.escape, nouns))) + r")(?!\w)")


def _counted_symbols(s: str, lang: str) -> str:
    pattern = _symbol_nouns(lang)
    if pattern is None:
        return s
    return pattern.sub(lambda m: m.group(1) + m.group(2) + plural(int(m.group(1)), m.group(3), lang), s)


def for_the_ear(text: str, lang: str = "fr", game: str = "") -> str:
    """Card text made speakable: symbols, icons, discipline marks and numbers as words."""
    lang = _lang(lang)
    if not text:
        return ""
    return _for_the_ear(text, lang, game, words_place())


# The same texts are said again and again: a card's text, flavour and rulings for a listener of
# either language (they are said in the card's), a type or a name on many cards, a card read
# again. What they become depends only on them and on the words of speech, read once per place.
@functools.lru_cache(maxsize=2048)
def _for_the_ear(text: str, lang: str, game: str, _place: tuple[str | None, str | None]) -> str:
    group = data(lang)["numbers"]["group"]
    s = _GROUP_MARK.sub(lambda m: ", " + group.format(n=number_words(int(m.group(1)), lang)), text) \
        if "(G" in text else text
    if "/" in s:
        s = _FRACTION.sub(lambda m: fraction_words(int(m.group(1)), int(m.group(2)), lang), s)
    s = _marks_as_words(s, lang, game)
    if _DIGIT.search(s):  # (each step about numbers is skipped by a text that has none)
        s = _counted_symbols(s, lang)
    abbreviations = _game_data(lang, game).get("abbreviations") or {}
    for short, long in abbreviations.items():
        if short in s:
            s = re.sub(rf"(?<!\w){re.escape(short)}(?!\w)", long, s)
    if abbreviations:
        s = agree(s, lang)  # "1 PV" said in full is "un point de vie", not "un points de vie"
    ranged = data(lang)["text"]["ranged"]
    if "R" in s:
        s = _RANGED.sub(lambda m: ranged.format(n=_amount(m, lang)), s)
    if "X" in s:
        s = _TIMES_X.sub(lambda m: f"{_amount(m, lang)} X", s)
    if "+" in s or "-" in s:
        s = _SIGNED.sub(lambda m: _signed_text(m, lang), s)
    if "." in s and _DIGIT.search(s):
        s = _DOT_NUMBER.sub(r"\1", s)
        point = f" {data(lang)['text']['point']} "
        s = _DOTTED.sub(lambda m: point.join(number_words(int(x), lang) for x in m.group(0).split(".")), s)
    if _DIGIT.search(s):
        s = _ordinal_safe_numbers(s, lang)
    # A line break on the card is a pause for the ear.
    lines = [line.strip() for line in s.splitlines() if line.strip()]
    s = " ".join(line if line[-1] in ".:;!?" or i == len(lines) - 1 else line + "."
                 for i, line in enumerate(lines))
    s = _SPACES.sub(" ", s)
    # French typography keeps its space before ":" ";" "!" "?" (and it shows in --print).
    s = _SPACE_BEFORE[lang].sub(r"\1", s)
    if lang == "fr" and "un" in s:
        s = _feminine_agreement(s, game)
        s = _NUMBER_ELISION.sub(lambda m: m.group(1)[:-1] + "'" + m.group(2), s)
    if "(" in s:
        s = _AFTER_PAREN.sub(r"\1", s)
    if ":" in s:
        s = _DOUBLE_COLON.sub(":", s)
    if "(" in s:
        s = _EMPTY_PARENS.sub("", s)
    return s.strip()


def _feminine_agreement(s: str, game: str) -> str:
    # Numbers were spelled out masculine; "un" before a feminine noun becomes "une". The nouns
    # are gathered at the first "un" found (most texts have none).
    nouns: set[str] = set()

    def one(m: re.Match[str]) -> str:
        if not nouns:
            nouns.update(_feminine_nouns("fr", game),
                         (w.casefold() for w in data("fr")["text"].get("feminine_nouns", [])))
        return ("une" if m.group(2).casefold() in nouns else "un") + m.group(1) + m.group(2)

    return _MASCULINE_ONE.sub(one, s)


def _amount(m: re.Match[str], lang: str) -> str:
    value = int(m.group(2))
    return signed_words(-value if m.group(1) == "-" else value, lang) if m.group(1) else number_words(value, lang)


def _signed_text(m: re.Match[str], lang: str) -> str:
    sign, digits = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if digits == "X":
        return " " + data(lang)["numbers"]["plus" if sign == "+" else "minus"] + " X "
    value = int(digits)
    return " " + signed_words(-value if sign == "-" else value, lang) + " "


def _ordinal_safe_numbers(s: str, lang: str) -> str:
    # Ordinals ("7e", "47th") as ordinal words ("septième", never "sept e"), other numbers as numbers.
    parts: list[str] = []
    last = 0
    for m in _ORDINAL.finditer(s):
        parts.append(_NUMBER.sub(lambda n: number_words(int(n.group(0)), lang), s[last:m.start()]))
        parts.append(ordinal_words(int(m.group(1)), lang, feminine=m.group(2) in ("re", "ère")))
        last = m.end()
    parts.append(_NUMBER.sub(lambda n: number_words(int(n.group(0)), lang), s[last:]))
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Cards

_GROUP = _Pattern(r"\s*\(G(\d+)\)\s*$")
_ADVANCED = _Pattern(r"\s*\(ADV\)\s*")


def _spoken_name(card: Any, lang: str) -> tuple[str, int | None]:
    name = getattr(card, "names", {}).get(lang) or card.name
    group = None
    m = _GROUP.search(name)
    if m:
        group = int(m.group(1))
        name = name[: m.start()]
    name = _ADVANCED.sub(", " + data(lang)["card"]["advanced"] + " ", name).strip(" ,")
    return name, group


def _join(items: list[str], lang: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {data(lang)['text']['and']} " + items[-1]


def _types(card: Any, lang: str, game: Any = None) -> str:
    names = _game_data(lang, card.game).get("types") or {}
    if game is not None and not names:
        from companion.cards.explain import type_names

        spoken = type_names(card, game, lang)
    else:
        spoken = [names.get(t, t) for t in card.types]
    # An id the game data does not name ("always-available") is still read as words.
    spoken = [t.replace("-", " ") if re.fullmatch(r"[a-z0-9-]+", t) else t for t in spoken]
    return _join([for_the_ear(t, lang, card.game) for t in dict.fromkeys(spoken)], lang)


def _cost_word(lang: str, game: str, key: str) -> tuple[str, bool] | None:
    g = _game_data(lang, game)
    entry = (g.get("cost_words") or {}).get(key) or (g.get("counters") or {}).get(key)
    return (entry["name"], bool(entry.get("feminine"))) if entry else None


def _counted(n: int, noun: str, lang: str) -> str:
    """A counter's name (written plural, "runes") agreeing with its amount: "one rune"."""
    return agree(f"{n} {noun}", lang).split(" ", 1)[1]


def _feminine_nouns(lang: str, game: str) -> set[str]:
    counters = _game_data(lang, game).get("counters") or {}
    return {c["name"].casefold() for c in counters.values() if c.get("feminine")}


def _cost(card: Any, lang: str) -> str:
    """The cost as words in the listener's language, or "" when the card costs nothing."""
    phrases = data(lang)["card"]
    extra = getattr(card, "extra", {}) or {}
    parts = []
    for key in ("pool_cost", "blood_cost", "conviction_cost"):
        value = extra.get(key)
        if value in (None, ""):
            continue
        amount = number_words(int(value), lang) if str(value).isdigit() else str(value)
        parts.append(phrases["cost_" + key.split("_")[0]].format(n=amount))
    if parts:
        return _join(parts, lang)
    if extra.get("crypt") or not card.cost:
        return ""
    structured = extra.get("cost")
    if isinstance(structured, dict) and structured:
        # Known essences and resources are said in the listener's language.
        words = {k: _cost_word(lang, card.game, k) for k in structured}
        if all(words.values()) and all(str(v).isdigit() for v in structured.values()):
            return _join([f"{number_words(int(v), lang, words[k][1])} {_counted(int(v), words[k][0], lang)}"  # type: ignore[index]
                          for k, v in structured.items()], lang)
    # Other games print costs like "2 Or + 1 Vie": each amount agrees with its noun.
    feminine = _feminine_nouns(card.lang, card.game)
    pieces = []
    for piece in re.split(r"\s*(?:\+|,|;| et | and )\s*", card.cost.strip()):
        m = re.match(r"^(\d+)\s+(.+)$", piece)
        if m:
            noun = m.group(2).strip()
            fem = noun.casefold() in feminine
            pieces.append(f"{number_words(int(m.group(1)), card.lang, fem)} {for_the_ear(noun, card.lang, card.game)}")
        elif piece:
            pieces.append(for_the_ear(piece, card.lang, card.game))
    return _join(pieces, card.lang)


def _crypt_line(card: Any, lang: str, group: int | None) -> str:
    phrases = data(lang)["card"]
    extra = card.extra
    imbued = "Imbued" in card.types  # an Imbued has a creed and life, not a clan and capacity
    bits = [_types(card, lang)]
    bits += [phrases["creed" if imbued else "clan"].format(clan=c) for c in extra.get("clans") or []]
    if extra.get("capacity") not in (None, ""):
        bits.append(phrases["life" if imbued else "capacity"].format(n=number_words(int(extra["capacity"]), lang)))
    if extra.get("group") not in (None, "") and str(extra["group"]).isdigit():
        group = int(extra["group"])
    if group is not None:
        bits.append(phrases["group"].format(n=number_words(group, lang)))
    if extra.get("title"):
        bits.append(phrases["title"].format(title=for_the_ear(str(extra["title"]), lang, card.game)))
    return ", ".join(b for b in bits if b) + "."


VIRTUES = frozenset({"def", "inn", "jud", "mar", "red", "ven", "viz"})


def _disciplines_line(card: Any, lang: str) -> str:
    """Grouped by level, superior first: the way players read a crypt card."""
    phrases = data(lang)["card"]
    names = _game_data(lang, card.game).get("disciplines") or {}
    groups: dict[str, list[str]] = {"disciplines_superior": [], "disciplines_inferior": [],
                                    "disciplines_single": [], "virtues": []}
    for code in card.extra.get("disciplines") or []:
        low = code.lower()
        name = names.get(low, code)
        if low in VIRTUES:
            groups["virtues"].append(name)
        elif low == "flight":
            groups["disciplines_single"].append(name)
        else:
            groups["disciplines_superior" if code.isupper() else "disciplines_inferior"].append(name)
    said = [phrases[key].format(list=_join(items, lang)) for key, items in groups.items() if items]
    return " ".join(_sentence(x) for x in said) if said else phrases["no_discipline"]


def card_speech(card: Any, verbosity: str = "normal", lang: str = "fr",
                glossary: Callable[[str], str | None] | None = None, game: Any = None) -> list[Utterance]:
    """What to say for a card: short = name and cost; normal = everything printed on it;
    full = also its flavour text, its keywords explained and its rulings.

    ``game`` is the card's GameInfo (``CardLibrary.game(card.game)``): it names the card types
    and, in full, explains the keywords from the game's glossary. ``glossary(keyword)``, when
    given, returns a keyword's definition in ``lang`` instead.
    """
    lang = _lang(lang)
    if isinstance(card, Card):
        card = localized(card, lang)  # the official translation when there is one, said in its voice
    verbosity = verbosity if verbosity in VERBOSITIES else "normal"
    card_lang = _lang(getattr(card, "lang", "fr"))
    phrases = data(lang)["card"]
    # The name in the listener's language when the data has it (a card's names.en), in their voice.
    name_lang = lang if (getattr(card, "names", None) or {}).get(lang) else card_lang
    name, group = _spoken_name(card, name_lang)
    out: list[Utterance] = [Utterance(phrases["name"].format(name=for_the_ear(name, name_lang, card.game)), name_lang)]
    extra = getattr(card, "extra", {}) or {}
    crypt = bool(extra.get("crypt"))
    cost = _cost(card, lang)
    if verbosity == "short":
        if crypt and extra.get("capacity") not in (None, ""):
            out.append(Utterance(phrases["capacity"].format(n=number_words(int(extra["capacity"]), lang)) + ".", lang))
        elif cost:
            out.append(Utterance(phrases["cost"].format(cost=cost), lang))
        return _merged(out)
    if not getattr(card, "confirmed", True):
        out.append(Utterance(phrases["unconfirmed"], lang))
    if crypt:
        out.append(Utterance(_crypt_line(card, lang, group), lang))
        out.append(Utterance(_disciplines_line(card, lang), lang))
    else:
        if card.types:
            out.append(Utterance(phrases["types"].format(types=_types(card, lang, game)), lang))
        if cost:
            out.append(Utterance(phrases["cost"].format(cost=cost), lang))
        out += _worth(card, lang)
    body = for_the_ear(card.text, card_lang, card.game)
    if body:
        out.append(Utterance(body, card_lang))
    elif not crypt:
        out += _type_rules(card, lang, game)
    if verbosity == "full":
        out += _full_extras(card, lang, card_lang, _definitions(card, lang, glossary, game))
    return _merged(out)


def _type_rules(card: Any, lang: str, game: Any) -> list[Utterance]:
    """A card known only by its name and type (a starter card whose effect the player has
    not entered yet): what its type's rules say, so that a scan still teaches something."""
    from companion.cards.explain import card_type

    for type_id in card.types:
        known = card_type(game, type_id)
        rules = known.text.get(lang) or known.text.get("fr") if known is not None else ""
        if rules:
            spoken = for_the_ear(rules, lang, card.game)
            return [Utterance(data(lang)["card"]["no_text"].format(definition=spoken), lang)]
    return []


def _worth(card: Any, lang: str) -> list[Utterance]:
    """What a game prints besides the cost and says nowhere else: a card's honor
    points (a monster's reward is in its text) and its faction."""
    g = _game_data(lang, card.game)
    extra = getattr(card, "extra", {}) or {}
    out = []
    points = extra.get("points")
    if "points" in g and isinstance(points, int) and points > 0 and extra.get("type") != "monster":
        said = g["points_one"] if points == 1 else g["points"].format(n=number_words(points, lang))
        out.append(Utterance(said, lang))
    faction = extra.get("faction")
    if "faction" in g and faction:
        out.append(Utterance(g["faction"].format(faction=(g.get("factions") or {}).get(faction, faction)), lang))
    return out


def _definitions(card: Any, lang: str, glossary: Callable[[str], str | None] | None,
                 game: Any) -> list[tuple[str, str]]:
    """(term, definition) for each keyword of the card that the glossary explains."""
    out: list[tuple[str, str]] = []
    if glossary is not None:
        disciplines = _game_data(lang, card.game).get("disciplines") or {}
        for keyword in card.keywords:
            try:
                definition = glossary(keyword)
            except Exception:  # a broken glossary must not silence the card
                definition = None
            if definition:
                out.append((disciplines.get(keyword.lower(), keyword), definition))
    elif game is not None:
        from companion.cards.explain import keyword_entries

        for entry in keyword_entries(card, game):
            definition = entry.text.get(lang) or entry.text.get("fr")
            if definition:
                out.append((entry.name(lang), definition))
    return out


def _full_extras(card: Any, lang: str, card_lang: str, definitions: list[tuple[str, str]]) -> list[Utterance]:
    phrases = data(lang)["card"]
    out: list[Utterance] = []
    if getattr(card, "flavor", ""):
        out.append(Utterance(phrases["flavor"], lang))
        out.append(Utterance(for_the_ear(card.flavor, card_lang, card.game), card_lang))
    if definitions:
        out.append(Utterance(phrases["keywords"], lang))
        for term, definition in definitions:
            spoken = for_the_ear(definition, lang, card.game)
            out.append(Utterance(phrases["keyword"].format(term=term, definition=spoken), lang))
    rulings_lang = _lang((getattr(card, "extra", {}) or {}).get("rulings_lang") or card_lang)
    rulings = [for_the_ear(r, rulings_lang, card.game) for r in getattr(card, "rulings", ())]
    rulings = [r for r in rulings if r]
    if rulings:
        out.append(Utterance(phrases["rulings"], lang))
        out += [Utterance(r, rulings_lang) for r in rulings]
    return out


def _sentence(text: str) -> str:
    """One spoken sentence: capital first letter, one full stop at the end."""
    text = text.strip()
    if not text:
        return ""
    if text[0].islower():
        text = text[0].upper() + text[1:]
    # (Stripped, a text the pattern changes ends in a full stop after a mark or a space: "!.", "..".)
    if text[-1] == "." and len(text) > 1 and (text[-2] in ".!?…" or text[-2].isspace()):
        text = _SENTENCE_END.sub(r"\1", text)
    return text if text[-1] in ".!?…" else text.rstrip(":;,") + "."


def _merged(utterances: Iterable[Utterance]) -> list[Utterance]:
    """Neighbours in one language become one utterance: fewer voice switches, smoother speech."""
    out: list[Utterance] = []
    for u in utterances:
        u = Utterance(_sentence(u.text), u.lang)
        if not u.text:
            continue
        if out and out[-1].lang == u.lang:
            out[-1] = Utterance(f"{out[-1].text} {u.text}", u.lang)
        else:
            out.append(u)
    return out


def text_of(utterances: Iterable[Utterance]) -> str:
    return " ".join(u.text for u in utterances)


# ---------------------------------------------------------------------------------------------
# Scans, table changes, game events

def scan_speech(status: str, lang: str = "fr", detail: str = "") -> list[Utterance]:
    """Calm words for a tag that names no card (``unknown``, ``unreadable``, ``lifted``). An
    unknown tag also says why (``detail``, already in ``lang``) and what to do next: enroll it."""
    lang = _lang(lang)
    phrases = data(lang)["scan"]
    if status == "unknown" or status not in phrases:
        first = phrases["unknown_detail"].format(detail=detail) if detail else phrases["unknown"]
        return [Utterance(f"{first} {phrases['unknown_next']}", lang)]
    return [Utterance(phrases[status], lang)]


def counter_names(game: str, counter: str) -> dict[str, str]:
    """The spoken names of one counter of one game, by language (empty when unknown)."""
    out = {}
    for lang in LANGS:
        entry = (_game_data(lang, game).get("counters") or {}).get(counter)
        if entry:
            out[lang] = entry["name"]
    return out


def _counter_entry(names: str | Mapping[str, str], lang: str, game: str) -> tuple[str, dict[str, Any]]:
    if isinstance(names, str):
        game, _, counter = names.partition(".")
        entry = (_game_data(lang, game).get("counters") or {}).get(counter)
        if entry is None:
            return names, {}
        return entry["name"], entry
    name = names.get(lang) or names.get("fr") or next(iter(names.values()), "")
    # A name given by the table engine still finds its gender and on/off phrases in the data.
    games = [game] if game else list(registry.ids())
    for g in games:
        for entry in (_game_data(lang, g).get("counters") or {}).values():
            if entry["name"].casefold() == name.casefold():
                return name, entry
    return name, {}


def change_speech(seat_name: str | None, counter_names: str | Mapping[str, str], delta: int, value: int,
                  lang: str = "fr", game: str = "") -> list[Utterance]:
    """A change of the table, briefly: who, what, how much, the new value.

    ``counter_names`` is either the names by language (``{"fr": "réserve", "en": "pool"}``) or
    a key into the phrase data, ``"game.counter"`` (``"<game id>.pool"``), which also knows a
    counter's gender and its on/off phrases (a mark taken and lost). ``delta`` 0 announces a value set.
    """
    lang = _lang(lang)
    phrases = data(lang)["change"]
    counter, entry = _counter_entry(counter_names, lang, game)
    if not game and isinstance(counter_names, str):
        game = counter_names.partition(".")[0]
    counter = for_the_ear(counter, lang, game)
    seat = (seat_name or "").strip()
    if "on" in entry and value in (0, 1) and seat:
        return [Utterance(entry["on" if value else "off"].format(seat=seat), lang)]
    fem = bool(entry.get("feminine"))
    value_words = number_words(int(value), lang, fem)
    if delta == 0:
        template = phrases["set"] if seat else phrases["set_no_seat"]
        return [Utterance(template.format(seat=seat, counter=counter, value=value_words), lang)]
    shown = (phrases["value_down"] if delta < 0 else phrases["value_up"]).format(value=value_words)
    template = phrases["seat"] if seat else phrases["no_seat"]
    if delta > 0 and value == delta:  # from zero: "plus cinq, total cinq" says the same twice
        template = phrases["seat_from_zero"] if seat else phrases["no_seat_from_zero"]
    text = template.format(seat=seat, counter=counter, delta=signed_words(int(delta), lang, fem), value=shown)
    return [Utterance(text, lang)]


def game_speech(key: str, lang: str = "fr", **values: Any) -> list[Utterance]:
    """A game event from phrase data (``turn``, ``phase``, ``undo``...); integers become words."""
    lang = _lang(lang)
    template = data(lang)["game"].get(key)
    if template is None:
        return []
    spoken = {k: number_words(v, lang) if isinstance(v, int) and not isinstance(v, bool) else v
              for k, v in values.items()}
    return [Utterance(template.format(**spoken), lang)]


def spell_speech(name: str, lang: str = "fr") -> list[Utterance]:
    """A name letter by letter, with the letter names of ``lang`` (accents said in words)."""
    lang = _lang(lang)
    spell = data(lang)["spell"]
    words = []
    for ch in name:
        low = ch.lower()
        if ch.isspace():
            words.append(spell["space"])
        elif ch in "-‐–":
            words.append(spell["hyphen"])
        elif ch in "'’":
            words.append(spell["apostrophe"])
        elif low in spell["accents"]:
            words.append(spell["accents"][low])
        elif low in spell["letters"]:
            words.append(spell["letters"][low])
        elif ch.isdigit():
            words.append(number_words(int(ch), lang))
        elif ch.isalnum():
            words.append(ch)
    # Commas make every engine pause between letters.
    return [Utterance(", ".join(words) + ".", lang)] if words else []
