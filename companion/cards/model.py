"""The card as the rest of the program sees it, whatever game it comes from."""

from __future__ import annotations

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
