"""Scan to play: a card becomes a ``play``, ``acquire`` or ``defeat`` intent for the table.

Front ends (app, console, phones) and the command words share these functions; none of them
loads a card library: the caller hands its own. ``propose(game, card, seat)`` gives the likely
action for a card laid on a reader, ``proposal_text`` the question asked before applying it
("Mystique : acquérir pour 3 runes ?"); nothing is applied until the intent is confirmed and
given to ``Game.apply``.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol

from companion import registry
from companion.cards.effects import effects_of
from companion.cards.model import Card, parse_ref
from companion.i18n import language, t
from companion.table.data import TableData, fold, load_table
from companion.table.engine import Game, Intent, resolve_values
from companion.table.model import counted

ACTIONS = ("play", "acquire", "defeat")


class Library(Protocol):
    def get(self, ref: str) -> Card | None: ...
    def load(self, game: str) -> dict[str, Card]: ...
    def search(self, query: str, game: str | None = None, limit: int = 20) -> list[Any]: ...


class CardNotFound(Exception):
    """No card answers to the words given; ``key`` and ``values`` name why, for a message."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class LastLaid:
    """The card last laid on each seat's reader (seat None: the table's reader), for the table
    words given without a card (``play`` alone). A front end records each scan; the parser asks
    (``Parser(..., laid=last_laid)``). A seat with nothing laid falls back to the table's reader
    only when it is the active seat, so a card never counts for someone who did not lay it."""

    def __init__(self, active: Any = None) -> None:
        self._refs: dict[int | None, str] = {}
        self._active = active  # () -> the active seat or None

    def record(self, ref: str, seat: int | None = None) -> None:
        self._refs[seat] = ref

    def __call__(self, seat: int | None) -> str | None:
        if seat in self._refs:
            return self._refs[seat]
        active = self._active() if self._active is not None else None
        if seat is None or seat == active:
            return self._refs.get(None)
        return None


def card_intent(action: str, card: Card, seat: int | None = None, choice: list[str] | None = None,
                source: str = "key") -> Intent:
    """The intent of one action with one card: its reference, name and effect travel with it, so
    the rules need no card library and the event names the card."""
    args: dict[str, Any] = {"card": card.ref, "name": card.name, "type": card.extra.get("type", ""),
                            "choice": list(choice or [])}
    names = card_names(card)
    if len(set(names.values())) > 1:
        args["names"] = names  # said and written in the listener's language (names.en)
    spec = effects_of(card).get(action)
    if spec is not None:
        args["effect"] = copy.deepcopy(spec)
    if card.extra.get("pair"):
        args["pair"] = card.extra["pair"]
    own = registry.hook(card.game, "card_intent")  # a game's own way of playing a card
    if own is not None:
        args = own(action, card, args)
    return Intent(action, seat, args, source=source)


def card_names(card: Card) -> dict[str, str]:
    """A card's name by language: its own, its ``names``, its official translations."""
    extra = card.extra if isinstance(card.extra, dict) else {}
    names = {lang: tr["name"] for lang, tr in (extra.get("i18n") or {}).items()
             if isinstance(tr, dict) and tr.get("name")}
    names.update({k: v for k, v in (card.names or {}).items() if v})
    names[card.lang or "fr"] = card.name
    return names


def name_in(intent: Intent, lang: str) -> str:
    """The name of an intent's card in ``lang`` when the data has it, else as laid."""
    names = intent.args.get("names")
    if isinstance(names, dict) and names.get(lang):
        return str(names[lang])
    return str(intent.args.get("name") or intent.args.get("card") or "")


def actions_of(card: Card) -> list[str]:
    """The actions this card has data for, in the game's order."""
    known = effects_of(card)
    out = [a for a in ACTIONS if a in known]  # a card's effects name only its game's actions
    own = registry.hook(card.game, "card_actions")
    return own(card, out) if own is not None else out


def likely_action(game: Game, card: Card, seat: int | None = None) -> str | None:
    """What laying this card most likely means for ``seat`` (default: the active seat) now."""
    actions = actions_of(card)
    if not actions or card.game != game.data.id:
        return None
    if len(actions) == 1:
        return actions[0]
    s = game.state
    who = s.get("active") if seat is None else seat
    owned = 0
    if who is not None and 0 <= who < len(s["seats"]):
        owned = s["seats"][who].get("owned", {}).get(card.ref, 0)
    # A card the seat already took is one it plays; otherwise it is taken from the display.
    if owned and "play" in actions:
        return "play"
    for action in ("defeat", "acquire", "play"):
        if action in actions:
            return action
    return None


def propose(game: Game, card: Card, seat: int | None = None) -> Intent | None:
    """The likely intent for a card laid during a game, to confirm before ``game.apply``. A card
    of this game whose effect on the numbers is not known is proposed as a plain "jouer ?": ``ok``
    records it played (the journal names it), ``non`` leaves it read only."""
    if game.state.get("over") or card.game != game.data.id:
        return None
    action = likely_action(game, card, seat)
    if action is None:
        if card.extra.get("type") in (game.data.params.get("unplayed_types") or ()):
            return None  # a card of a kind that is never played is only read
        intent = card_intent("play", card, seat, source="scan")
        if "vampire" not in intent.args:
            intent.args["effect"] = {}  # nothing known to pay or gain: played as it is
        return intent
    return card_intent(action, card, seat, source="scan")


def choices_needed(intent: Intent, data: TableData | None = None) -> dict[str, Any] | None:
    """What a front end must ask before applying (essences "of your choice"): how many to pay,
    how many to gain, and which essences are allowed; None when the card needs no choice. The
    answer goes back with ``with_choice``; the rules still refuse a wrong one with its reason."""
    spec = intent.args.get("effect") or {}
    pay = int((spec.get("pay") or {}).get("any", 0))
    gain = int((spec.get("gain") or {}).get("any", 0))
    if not pay and not gain:
        return None
    if data is None:
        ref = parse_ref(str(intent.args.get("card", "")))
        data = load_table(ref[0]) if ref is not None else None
    choice = (data.effects.get("any") if data is not None else None) or []
    allowed = [e for e in choice if e not in (spec.get("but") or [])]
    return {"pay": pay, "gain": gain, "allowed": allowed}


def with_choice(intent: Intent, choice: list[str]) -> Intent:
    """The same intent with the player's choices (essence words, paid first, then gained)."""
    return Intent(intent.verb, intent.seat, {**copy.deepcopy(intent.args), "choice": list(choice)},
                  source=intent.source, text=intent.text)


def _amounts(data: TableData, amounts: dict[str, int], lang: str, sign: str = "") -> str:
    parts = []
    for key, n in amounts.items():
        if not n:
            continue
        if key == "any":
            what = t(f"cost.{data.id}.any", lang)
        else:
            try:
                what = data.counter(key).name(lang)
            except KeyError:
                what = key
        parts.append(f"{sign}{n} {counted(what, n, lang)}")
    return ", ".join(parts)


def proposal_text(game: Game, intent: Intent, lang: str | None = None) -> str:
    """The question for one proposed intent, e.g. "Mystique : acquérir pour 3 runes ?"."""
    lang = lang or language()
    data = game.data
    spec = intent.args.get("effect") or {}
    cost = _amounts(data, spec.get("pay") or {}, lang)
    gain = _amounts(data, spec.get("gain") or {}, lang, sign="+")
    vampire = intent.args.get("vampire")
    if isinstance(vampire, dict):
        gain = t("table.card.propose.vampire", lang, capacity=vampire.get("capacity"))
    who = intent.seat if intent.seat is not None else game.state.get("active")
    values = {
        "card": name_in(intent, lang),
        "name": game.state["seats"][who]["name"] if who is not None else "",
        "action": t(f"table.card.verb.{intent.verb}", lang),
        "cost": t("table.card.propose.cost", lang, cost=cost) if cost else "",
        "gain": t("table.card.propose.gain", lang, gain=gain) if gain else "",
        "ask": t("table.card.propose.ask", lang, ask=resolve_values(data, {"a": spec["ask"]}, lang)["a"])
        if spec.get("ask") else "",
    }
    return t("table.card.propose", lang, **values)


def find_card(library: Library, game: str, words: list[str], choice_word: Any = None) -> tuple[Card, list[str]]:
    """The card named by ``words`` (a reference, or a name in any language, typos forgiven) and
    the words after its name that are choices (``choice_word(word) -> bool``)."""
    if not words:
        raise CardNotFound("table.parse.no_card")
    ref = parse_ref(words[0])
    if ref is not None:
        card = library.get(words[0])
        if card is None:
            raise CardNotFound("table.parse.no_such_card", name=words[0], game=game)
        if card.game != game:
            raise CardNotFound("table.parse.wrong_game", name=card.name, game=game)
        return card, words[1:]
    is_choice = choice_word or (lambda w: False)
    by_name = _names(library.load(game))
    # The longest beginning that is exactly a card's name, the rest being choices: "arbre de vie
    # mort serenite" is Arbre de Vie paid with Mort and Sérénité.
    for k in range(len(words), 0, -1):
        rest = words[k:]
        if all(is_choice(w) for w in rest):
            hit = by_name.get(_plain(" ".join(words[:k])))
            if hit is not None:
                return hit, rest
    k = len(words)
    while k > 1 and is_choice(words[k - 1]):
        k -= 1
    # Only a card whose name answers: a word of some card's text is not that card.
    hits = [h for h in library.search(" ".join(words[:k]), game=game, limit=3) if getattr(h, "where", "name") == "name"]
    if not hits:
        raise CardNotFound("table.parse.no_such_card", name=" ".join(words[:k]), game=game)
    return hits[0].card, words[k:]


_NAMES: dict[int, tuple[dict[str, Card], dict[str, Card]]] = {}


def _names(cards: dict[str, Card]) -> dict[str, Card]:
    """Every name and alias of a game's cards, plain; kept while the library keeps that list
    (a reloaded library has a new one), since a game may have thousands of cards and names."""
    hit = _NAMES.get(id(cards))
    if hit is not None and hit[0] is cards:
        return hit[1]
    out: dict[str, Card] = {}
    for card in cards.values():
        for n in (card.name, *card.names.values(), *card.aliases):
            out.setdefault(_plain(n), card)
    if len(_NAMES) > 16:
        _NAMES.clear()
    _NAMES[id(cards)] = (cards, out)
    return out


def _plain(name: str) -> str:
    return " ".join(fold(name).replace("'", " ").replace("’", " ").replace("-", " ").split())
