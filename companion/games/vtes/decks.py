"""VTES deck lists, read by krcg's parser (TWD/TWDA, JOL, Lackey, VDB/Amaranth text) and checked
against the crypt and library rules of ``deck.rules`` in cardmap/vtes/game.yaml."""

from __future__ import annotations

from typing import Any

from companion.cards.decks import DeckReport
from companion.cards.library import CardLibrary
from companion.games.vtes.cards import parse_deck
from companion.i18n import t
from companion.textsafe import printable


def check_deck(text: str, library: CardLibrary, rules: dict[str, Any]) -> DeckReport:
    report = DeckReport("vtes")
    parsed = parse_deck(text)
    # krcg's own line numbers depend on how it split the preface off: find the line ourselves.
    file_lines = [raw.strip() for raw in text.splitlines()]
    for line, content in parsed.failed:
        wanted = content.strip()
        number = next((i for i, raw in enumerate(file_lines, 1) if raw == wanted), line)
        report.unreadable.append((number, printable(wanted, limit=200), "unknown card or unreadable line"))
    crypt = [(e, e.count) for e in parsed.entries if e.crypt]
    library_cards = [(e, e.count) for e in parsed.entries if not e.crypt]
    for entry, _ in crypt + library_cards:
        card = library.get(f"vtes:{entry.id}")
        if card is not None:
            report.cards.append((card, entry.count))
    crypt_count = sum(n for _, n in crypt)
    library_count = sum(n for _, n in library_cards)
    report.counts = {"crypt": crypt_count, "library": library_count}
    groups = sorted({int(e.group) for e, _ in crypt if e.group.isdigit()})
    report.counts["groups"] = groups  # type: ignore[assignment]
    crypt_min = rules.get("crypt_min", 12)
    lib_min, lib_max = rules.get("library_min", 40), rules.get("library_max", 90)
    if crypt_count < crypt_min:
        report.problems.append(t("deck.crypt_min", have=crypt_count, need=crypt_min))
    if not lib_min <= library_count <= lib_max:
        report.problems.append(t("deck.library_range", have=library_count, low=lib_min, high=lib_max))
    span = rules.get("max_group_span", 2)
    if groups and groups[-1] - groups[0] >= span:
        report.problems.append(t("deck.group_span", groups=", ".join(map(str, groups)), span=span))
    for entry in parsed.entries:
        if entry.banned:
            report.problems.append(t("deck.banned", name=entry.name, since=entry.banned))
    return report
