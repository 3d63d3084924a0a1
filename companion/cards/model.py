"""The card as the rest of the program sees it, whatever game it comes from."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

# Tag contents are untrusted: a reference is short, lower-case ASCII and nothing else.
_REF = re.compile(r"^(?P<game>[a-z][a-z0-9-]{1,23}):(?P<id>[A-Za-z0-9][A-Za-z0-9_.-]{0,63})$")


def parse_ref(text: str) -> tuple[str, str] | None:
    """Split ``game:id`` into its parts, or None when the text is not a card reference."""
    m = _REF.match(text.strip())
    if not m:
        return None
    return m.group("game"), m.group("id")


@dataclass(frozen=True)
class Card:
    game: str
    id: str
    name: str
    types: tuple[str, ...] = ()
    cost: str = ""  # as printed for a reader of the card, e.g. "1 sang" or "2 Or + 1 Vie"
    text: str = ""
    lang: str = "fr"  # language the card's own text is written in
    names: dict[str, str] = field(default_factory=dict)  # by language
    aliases: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    rulings: tuple[str, ...] = ()
    flavor: str = ""
    confirmed: bool = True
    extra: dict[str, Any] = field(default_factory=dict)  # game-specific structured fields

    @property
    def ref(self) -> str:
        return f"{self.game}:{self.id}"

    def __getattr__(self, name: str) -> Any:
        # Called only for what the card's __dict__ lacks: a card read from the card index keeps
        # its long fields (LATER) as JSON until first asked (under STORED). A warm start
        # decodes 4,000 names, not 4,000 texts and rulings nobody reads before a card is shown.
        # And a card of the index whose ``names`` are only its name in its own language (most
        # cards) has them made when first asked (index._cards: 4,000 dicts fewer per start).
        if name == "names" and "name" in self.__dict__ and "lang" in self.__dict__:
            names = self.__dict__["names"] = {self.__dict__["lang"]: self.__dict__["name"]}
            return names
        later = self.__dict__.get(STORED)
        if later is None or name not in LATER:
            raise AttributeError(f"'Card' object has no attribute {name!r}")
        blob, start, end = later
        text, rulings, flavor, extra = json.loads(blob[start:end])
        # Two threads may decode the same card at once: both write the same values.
        self.__dict__.update(text=text, rulings=tuple(rulings) if rulings else (), flavor=flavor, extra=extra)
        self.__dict__.pop(STORED, None)
        return self.__dict__[name]

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "game": self.game,
            "id": self.id,
            "name": self.name,
            "names": dict(self.names),
            "types": list(self.types),
            "cost": self.cost,
            "text": self.text,
            "lang": self.lang,
            "keywords": list(self.keywords),
            "rulings": list(self.rulings),
            "confirmed": self.confirmed,
            "extra": self.extra,
        }


# The fields a card read from the card index decodes on first use, in the order stored, and the
# key of its __dict__ that holds where they are: (bytes, start, end) of what ``later_json`` wrote.
LATER = ("text", "rulings", "flavor", "extra")
STORED = "_later"
# Their defaults must not be class attributes, or a card whose fields are still encoded would
# answer the default instead of reaching __getattr__ (the dataclass's __init__ keeps its own copy).
for _name in LATER:
    if _name in vars(Card):
        delattr(Card, _name)


def later_json(card: Card) -> str:
    """The JSON of ``card``'s LATER fields, as ``Card.__getattr__`` reads them back (STORED)."""
    return json.dumps([card.text, list(card.rulings), card.flavor, card.extra], ensure_ascii=False,
                      separators=(",", ":"))


def localized(card: Card, lang: str) -> Card:
    """The card as a reader of ``lang`` should see and hear it: its official translation of name
    and text when there is one (a card source's official French or Spanish), else the card unchanged. Rulings
    keep their own language, named in ``extra["rulings_lang"]``."""
    extra = card.extra if isinstance(card.extra, dict) else {}
    translation = (extra.get("i18n") or {}).get(lang)
    if card.lang == lang:
        return card
    if not translation:
        # a name of the listener's language without a translated text (names.en alone)
        own = (card.names or {}).get(lang)
        return replace(card, name=own) if own else card
    return replace(card, name=translation["name"], text=translation["text"], lang=lang,
                   extra={**extra, "rulings_lang": card.lang})
