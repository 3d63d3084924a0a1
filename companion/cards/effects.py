"""Card effects as data: what playing, acquiring or defeating a card costs and gives on the
numbers the table keeps (schema in cardmap/README.md, "effects").

A card's ``effects`` maps an action (``play``, ``acquire``, ``defeat``) to a plain mapping:
``pay`` and ``gain`` (amounts by resource key; ``any`` is a choice of essences), ``but``
(essences an ``any`` may not be), ``energized`` (a gain once this turn's energy
reaches ``at``, or ``per`` energy of this turn), ``vp`` (the points a component is worth
while in play) and ``ask`` (a choice or a condition the companion leaves to the players, said
with the proposal).

Which actions and resource keys a game knows is its game.yaml's ``effects:`` section. Cards
write their effects in cards.yaml; a game may derive them (its ``effects_of`` hook: from
krcg's pool cost); with ``from_cost: true`` a card that writes none pays its ``cost`` when played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion import registry
from companion.cards.model import Card
from companion.cards.validate import Checker, describe
from companion.cards.yamlload import DataError, line_of
from companion.i18n import t

if TYPE_CHECKING:  # the game.yaml reader is not needed to open the window (its import is 13 ms here)
    from companion.cards.gamedata import GameInfo

FIELDS = frozenset({"pay", "gain", "but", "energized", "vp", "ask"})
# Said after a card's name when another card lets it be taken for nothing.
FREE_WORDS = frozenset({"free", "gratuit", "gratuite", "gratuitement"})


def parse_effects(c: Checker, game: GameInfo) -> dict[str, dict[str, Any]]:
    """The ``effects`` field of one card, checked; raises DataError with file, line and field.
    A card that writes none, in a game whose effects come ``from_cost``, pays its cost."""
    raw = c.get("effects", dict)
    known = game.effects or {}
    keys = frozenset(known.get("keys") or ())
    if raw is None:
        cost = c.data.get("cost") if isinstance(c.data, dict) else None
        if known.get("from_cost") and isinstance(cost, dict):
            pay = {k: int(v) for k, v in cost.items() if k in keys and isinstance(v, int) and v}
            return {"play": {"pay": pay}} if pay else {}
        return {}
    e = Checker(c.path, raw, f"{c.where}.effects")
    allowed = tuple(known.get("actions") or ("play",))
    e.only(frozenset(allowed))
    choice = tuple(known.get("any") or ())
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
            if word not in choice:
                raise DataError(c.path, line_of(raw[action]["but"], i), f"{a.where}.but[{i}]",
                                t("data.one_of", choices=", ".join(choice), got=repr(word)))
        if but:
            spec["but"] = but
        energized = a.get("energized", dict)
        if energized is not None:
            if not known.get("energized"):
                raise a.fail("energized", t("data.not_energized", game=game.id))
            en = Checker(c.path, energized, f"{a.where}.energized")
            en.only({"at", "gain", "per", "instead"})
            at = en.get("at", int, default=1)
            if at < 1:
                raise en.fail("at", t("data.at_least", least=1, got=describe(at)))
            gain, per = en.counts("gain"), en.counts("per")
            _known_keys(en, "gain", gain, keys)
            _known_keys(en, "per", per, keys)
            if not gain and not per:
                raise en.fail(None, t("data.gain_or_per"))
            spec["energized"] = {"at": at, "gain": gain, "per": per, "instead": en.get("instead", bool, default=False)}
        vp = a.get("vp", int)
        if vp is not None:
            if vp < 0:
                raise a.fail("vp", t("data.at_least", least=0, got=describe(vp)))
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
            raise sub.fail(key, t("data.unknown_resource", choices=", ".join(sorted(keys))))


def effects_of(card: Card) -> dict[str, dict[str, Any]]:
    """What each action of this card does to the numbers; {} when nothing is known."""
    written = card.extra.get("effects")
    if written:
        return written
    own = registry.hook(card.game, "effects_of")  # a game that derives them from its card source
    return own(card) if own is not None else {}
