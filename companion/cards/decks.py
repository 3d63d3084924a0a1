"""Deck lists checked against a game's deck rules (``deck.rules`` in its game.yaml).

A game may read its own list formats (its ``check_deck`` hook, e.g. through a card source's own parser);
the others use a plain ``3 Name`` / ``3x Name`` list, one card per line, ``#`` for comments.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from companion import registry
from companion.cards.library import CardLibrary
from companion.cards.model import Card
from companion.i18n import t
from companion.textsafe import printable


@dataclass
class DeckReport:
    game: str
    cards: list[tuple[Card, int]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # rule breaches: the deck is not legal
    unreadable: list[tuple[int, str, str]] = field(default_factory=list)  # (line, text, reason)

    @property
    def legal(self) -> bool:
        return not self.problems and not self.unreadable

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game, "legal": self.legal, "counts": self.counts, "problems": self.problems,
            "unreadable": [{"line": n, "text": s, "reason": r} for n, s, r in self.unreadable],
            "cards": [{"ref": c.ref, "name": c.name, "count": n} for c, n in self.cards],
        }


def check(game: str, text: str, library: CardLibrary) -> DeckReport:
    info = library.game(game)
    rules = (info.deck.get("rules") if info else None) or {}
    own = registry.hook(game, "check_deck")
    if own is not None:
        return own(text, library, rules)
    report = _parse_plain(game, text, library)
    _apply_rules(report, rules)
    return report


_LINE = re.compile(r"^\s*(?:(\d+)\s*[xX×]?\s+)?(.+?)\s*$")


def _parse_plain(game: str, text: str, library: CardLibrary) -> DeckReport:
    report = DeckReport(game)
    totals: Counter[str] = Counter()
    by_ref: dict[str, Card] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line or line.endswith(":"):
            continue  # blank, comment or a section header such as "Sbires:"
        match = _LINE.match(line)
        count = int(match.group(1)) if match and match.group(1) else 1
        name = match.group(2) if match else line
        card = library.get(name) or library.find_by_name(game, name)
        if card is None:
            hits = library.search(name, game=game, limit=2)
            if hits and (len(hits) == 1 or hits[0].score > hits[1].score + 1) and hits[0].score >= 5:
                card = hits[0].card
        if card is None or card.game != game:
            shown = printable(name, limit=200)
            report.unreadable.append((number, printable(raw.strip(), limit=200), f"no card named {shown!r} in {game}"))
            continue
        by_ref[card.ref] = card
        totals[card.ref] += count
    _count(report, [(by_ref[ref], n) for ref, n in totals.items()])
    return report


def _count(report: DeckReport, cards: list[tuple[Card, int]]) -> None:
    report.cards = cards
    report.counts = {"total": sum(n for _card, n in cards)}
    for card, n in cards:
        kind = card.extra.get("type") or (card.types[0] if card.types else "?")
        report.counts[kind] = report.counts.get(kind, 0) + n


def _apply_rules(report: DeckReport, rules: dict[str, Any]) -> None:
    total = report.counts.get("total", 0)
    if "deck_size" in rules and total != rules["deck_size"]:
        report.problems.append(t("deck.size", have=total, need=rules["deck_size"]))
    if "max_cards" in rules and total > rules["max_cards"]:
        report.problems.append(t("deck.max_cards", have=total, most=rules["max_cards"]))
    if "artifacts" in rules:
        artifacts = report.counts.get("artifact", 0)
        if artifacts != rules["artifacts"]:
            report.problems.append(t("deck.artifacts", have=artifacts, need=rules["artifacts"]))
    for kind, bounds in (rules.get("composition") or {}).items():
        have = report.counts.get(kind, 0)
        if "exactly" in bounds and have != bounds["exactly"]:
            report.problems.append(t("deck.kind_exactly", kind=kind, have=have, need=bounds["exactly"]))
        if "min" in bounds and have < bounds["min"]:
            report.problems.append(t("deck.kind_min", kind=kind, have=have, need=bounds["min"]))
        if "max" in bounds and have > bounds["max"]:
            report.problems.append(t("deck.kind_max", kind=kind, have=have, most=bounds["max"]))
    if rules.get("duplicates") is False:
        keyword = rules.get("duplicates_keyword", "multiples")
        for card, n in report.cards:
            allowed = card.extra.get(keyword) or (card.extra.get("stats") or {}).get(keyword) or 1
            if n > allowed:
                report.problems.append(t("deck.copies", name=card.name, have=n, allowed=allowed))


def check_cards(game: str, cards: list[tuple[Card, int]], library: CardLibrary) -> DeckReport:
    """Check cards scanned one by one: the same rules and counts as a deck list file."""
    own = registry.hook(game, "deck_text")  # a game's own list format, e.g. by printed names
    if own is not None or registry.hook(game, "check_deck") is not None:
        return check(game, own(cards) if own is not None else "\n".join(f"{n} {c.ref}" for c, n in cards), library)
    # The cards themselves, not their references looked up again: a card the library does not
    # hold (the demo's made-up cards) counted for nothing, "Total : 0" under five cards listed.
    info = library.game(game)
    report = DeckReport(game)
    totals: Counter[str] = Counter()
    by_ref: dict[str, Card] = {}
    for card, n in cards:
        by_ref[card.ref] = card
        totals[card.ref] += n
    _count(report, [(by_ref[ref], n) for ref, n in totals.items()])
    _apply_rules(report, (info.deck.get("rules") if info else None) or {})
    return report


@dataclass
class DeckDifference:
    missing: list[tuple[Card, int]] = field(default_factory=list)  # in the list, not (all) scanned
    extra: list[tuple[Card, int]] = field(default_factory=list)  # scanned, not in the list (or too many)

    @property
    def complete(self) -> bool:
        return not self.missing and not self.extra


def difference(expected: DeckReport, scanned: list[tuple[Card, int]]) -> DeckDifference:
    """What a scanned deck lacks and has too much of, against the list it should match."""
    want: Counter[str] = Counter()
    have: Counter[str] = Counter()
    cards: dict[str, Card] = {}
    for card, n in expected.cards:
        want[card.ref] += n
        cards[card.ref] = card
    for card, n in scanned:
        have[card.ref] += n
        cards[card.ref] = card
    result = DeckDifference()
    for ref in want:
        if want[ref] > have[ref]:
            result.missing.append((cards[ref], want[ref] - have[ref]))
    for ref in have:
        if have[ref] > want[ref]:
            result.extra.append((cards[ref], have[ref] - want[ref]))
    return result
