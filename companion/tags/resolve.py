"""Turn a TagEvent into a Scan: which card was laid, or why none could be named."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from companion.cards.library import CardLibrary
from companion.cards.model import Card
from companion.i18n import t
from companion.readers.events import TagEvent
from companion.tags import records
from companion.textsafe import printable

Status = Literal["card", "unknown", "unreadable"]


@dataclass(frozen=True)
class Scan:
    event: TagEvent
    status: Status
    card: Card | None = None
    ref: str = ""  # the reference read or mapped, even when no card has it
    detail: str = ""  # why the card is unknown or unreadable (English, for logs and JSON)
    # The same reason as a message key and its values, said in the listener's language.
    reason: tuple[str, tuple[tuple[str, str], ...]] | None = None

    def detail_text(self, lang: str | None = None, spoken: bool = False) -> str:
        """Why no card could be named, in ``lang``; ``spoken`` leaves out tag codes."""
        from companion.i18n import t

        if self.reason is None:
            return "" if spoken else self.detail  # a front end's own words: shown, not said
        key, values = self.reason
        if spoken:
            return t(key + ".spoken", lang)
        return t(key, lang, **dict(values))

    @property
    def uid(self) -> str:
        return self.event.uid

    @property
    def seat(self) -> int | None:
        return self.event.seat

    def to_json(self) -> dict:
        card = self.card
        return {
            "status": self.status,
            "ref": self.ref,
            "uid": self.uid,
            "reader": self.event.reader,
            "seat": self.seat,
            "name": card.name if card else "",
            "types": list(card.types) if card else [],
            "cost": card.cost if card else "",
            "text": card.text if card else "",
            "detail": self.detail,
        }


class Resolver:
    def __init__(self, library: CardLibrary, uid_map: Mapping[str, str] | None = None) -> None:
        self.library = library
        self.uid_map = dict(uid_map or {})

    def resolve(self, event: TagEvent) -> Scan:
        if event.kind == "unreadable":
            return Scan(event, "unreadable", detail=event.detail)
        decoded = records.decode(event.ndef)
        for ref in decoded.refs:
            card = self.library.get(ref)
            if card is not None:
                return Scan(event, "card", card=card, ref=ref)
        mapped = self.uid_map.get(event.uid.upper())
        if mapped:
            card = self.library.get(mapped)
            if card is not None:
                return Scan(event, "card", card=card, ref=mapped)
        ref = decoded.refs[0] if decoded.refs else (mapped or "")
        if ref:
            shown = printable(ref, limit=100)
            detail, reason = f"no card {shown} in the library", ("scan.detail.no_card", (("ref", shown),))
        elif decoded.error:
            error = printable(decoded.error, limit=300)
            detail, reason = error, ("scan.detail.bad_record", (("error", error),))
        elif event.ndef is None:
            detail = "no NDEF message and UID not in the collection"
            reason = ("scan.detail.blank", (("uid", event.uid),))
        else:
            detail, reason = "no card reference on the tag", ("scan.detail.no_ref", ())
        return Scan(event, "unknown", ref=ref, detail=printable(detail, limit=300), reason=reason)


def scan_line(scan: Scan) -> str:
    """A scan as one line of text: the card's reference, name, types, cost and text, or why no
    card could be named (the console, ``tag read``)."""
    if scan.card is not None:
        card = scan.card
        head = f"{card.ref}  {card.name}"
        details = "; ".join(x for x in (", ".join(card.types), card.cost) if x)
        text = " / ".join(line.strip() for line in card.text.splitlines() if line.strip())
        return f"{head}  ({details})  {text}" if details else f"{head}  {text}"
    if scan.status == "unreadable":
        return t("card.unreadable", detail=scan.detail) + f"  [uid {scan.uid}]"
    return t("card.unknown", detail=scan.detail_text()) + f"  [uid {scan.uid}]"
