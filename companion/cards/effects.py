"""Card effects as data: what playing, acquiring or defeating a card costs and gives on the
numbers the table keeps (schema in cardmap/README.md, "effects").

A card's ``effects`` maps an action (``play``, ``acquire``, ``defeat``) to a plain mapping:
``pay`` and ``gain`` (amounts by resource key; ``any`` is a choice of essences), ``but``
(essences an ``any`` may not be), ``energized`` (Ascension: a gain once this turn's energy
reaches ``at``, or ``per`` energy of this turn), ``vp`` (Res Arcana: the component's points
while in play) and ``ask`` (a choice or a condition the companion leaves to the players, said
with the proposal).

Ascension and Res Arcana write them in cards.yaml; VTES derives them from krcg's pool cost;
users' Rise and ASTRAL cards may write them, and otherwise their ``cost`` is what playing costs.
"""

from __future__ import annotations

from typing import Any

from companion.cards.model import Card
from companion.cards.validate import Checker
from companion.cards.yamlload import DataError, line_of

ACTIONS = ("play", "acquire", "defeat")
# The resource keys an effect may name, per game: the table's counters they move.
KEYS: dict[str, frozenset[str]] = {
    "ascension": frozenset({"runes", "power", "energy", "honor"}),
    "res-arcana": frozenset({"mort", "serenite", "vie", "vigueur", "or", "any"}),
    "vtes": frozenset({"pool"}),
    "rise": frozenset({"coins"}),
    "astral": frozenset({"energy", "stars"}),
}
# Which actions a game knows: only shared displays are acquired, only Ascension defeats.
GAME_ACTIONS: dict[str, tuple[str, ...]] = {
    "ascension": ("play", "acquire", "defeat"),
    "res-arcana": ("play", "acquire"),
    "vtes": ("play",),
    "rise": ("play",),
    "astral": ("play",),
}
ESSENCES = ("mort", "serenite", "vie", "vigueur", "or")
FIELDS = frozenset({"pay", "gain", "but", "energized", "vp", "ask"})
# Said after a card's name when another card lets it be taken for nothing (Ascension).
FREE_WORDS = frozenset({"free", "gratuit", "gratuite", "gratuitement"})


def parse_effects(c: Checker, game: str) -> dict[str, dict[str, Any]]:
    """The ``effects`` field of one card, checked; raises DataError with file, line and field."""
    raw = c.get("effects", dict)
    if raw is None:
        return {}
    e = Checker(c.path, raw, f"{c.where}.effects")
    allowed = GAME_ACTIONS.get(game, ("play",))
    e.only(frozenset(allowed))
    keys = KEYS.get(game, frozenset())
    out: dict[str, dict[str, Any]] = {}
    for action in allowed:
        if action not in raw:
            continue
        a = Checker(c.path, raw[action], f"{e.where}.{action}")
        a.mapping()
        a.only(FIELDS)
        spec: dict[str, Any] = {}
        for part in ("pay", "gain"):
            counts = a.counts(part)
            _known_keys(a, part, counts, keys)
            if counts:
                spec[part] = counts
        but = a.str_list("but")
        for i, word in enumerate(but):
            if word not in ESSENCES:
                raise DataError(c.path, line_of(raw[action]["but"], i), f"{a.where}.but[{i}]",
                                f"expected one of {', '.join(ESSENCES)}, got {word!r}")
        if but:
            spec["but"] = but
        energized = a.get("energized", dict)
        if energized is not None:
            if game != "ascension":
                raise a.fail("energized", "only Ascension cards are energized")
            en = Checker(c.path, energized, f"{a.where}.energized")
            en.only({"at", "gain", "per", "instead"})
            at = en.get("at", int, default=1)
            if at < 1:
                raise en.fail("at", f"expected a whole number of 1 or more, got the number {at}")
            gain, per = en.counts("gain"), en.counts("per")
            _known_keys(en, "gain", gain, keys)
            _known_keys(en, "per", per, keys)
            if not gain and not per:
                raise en.fail(None, "expected 'gain' (given once) or 'per' (given per energy of this turn)")
            spec["energized"] = {"at": at, "gain": gain, "per": per, "instead": en.get("instead", bool, default=False)}
        vp = a.get("vp", int)
        if vp is not None:
            if vp < 0:
                raise a.fail("vp", f"expected a whole number of 0 or more, got the number {vp}")
            spec["vp"] = vp
        ask = a.texts("ask", required=False, langs=("fr", "en"))
        if ask:
            spec["ask"] = ask
        out[action] = spec
    return out


def _known_keys(c: Checker, part: str, counts: dict[str, int], keys: frozenset[str]) -> None:
    sub = Checker(c.path, c.data.get(part), f"{c.where}.{part}")
    for key in counts:
        if key not in keys:
            raise sub.fail(key, f"unknown resource; expected one of: {', '.join(sorted(keys))}")


def effects_of(card: Card) -> dict[str, dict[str, Any]]:
    """What each action of this card does to the numbers; {} when nothing is known."""
    written = card.extra.get("effects")
    if written:
        return written
    if card.game == "vtes":
        return _vtes(card)
    if card.game in ("rise", "astral"):
        cost = card.extra.get("cost") or {}
        keys = KEYS[card.game]
        pay = {k: v for k, v in cost.items() if k in keys and v}
        return {"play": {"pay": pay}} if pay else {}
    return {}


def _vtes(card: Card) -> dict[str, dict[str, Any]]:
    if card.extra.get("crypt"):
        return {}  # a vampire is influenced out, not paid for: the table's `vampire` verb
    spec: dict[str, Any] = {}
    cost = card.extra.get("pool_cost")
    if isinstance(cost, int) or (isinstance(cost, str) and cost.isdigit()):
        spec["pay"] = {"pool": int(cost)}
    elif cost not in (None, ""):
        spec["ask"] = _said("effects.vtes.pool_variable", cost)
    for key in ("blood_cost", "conviction_cost"):
        value = card.extra.get(key)
        if value not in (None, ""):
            spec["ask"] = _said(f"effects.vtes.{key}", value)
    return {"play": spec} if spec else {}


def _said(key: str, cost: Any) -> dict[str, str]:
    from companion.i18n import t

    return {lang: t(key, lang, cost=cost) for lang in ("fr", "en")}
