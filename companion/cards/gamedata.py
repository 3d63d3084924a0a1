"""A game's own data from its ``game.yaml`` (``cardmap/<game>/`` or a user's games folder):
names, card types, glossary, rules, card effects, deck.

This is the one reader of game.yaml (``read_game``). The ``table:`` section (counters, phases,
verbs) belongs to the table engine, which checks it (companion/table/data.py) from the same
document; here it is carried along untouched.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.cards.validate import Checker, describe
from companion.cards.yamlload import load_text_kept, read_file
from companion.i18n import add_messages, t

GLOSSARY_KINDS = frozenset(
    {"keyword", "ability-passive", "ability-active", "term", "discipline", "clan", "phase", "resource", "card-type"})
SECTIONS = frozenset(
    {"overview", "setup", "turn", "combat", "actions", "end", "scoring", "variants", "faq", "deck"})
GAME_KEYS = frozenset({"id", "order", "names", "players", "card_language", "card_types", "card_fields", "glossary",
                       "rules", "effects", "deck", "table", "messages", "speech"})
# The kinds of a game's own card fields (``card_fields:``), read the same way for every game.
FIELD_KINDS = frozenset({"text", "number", "counts", "id", "list", "mapping"})
CARD_ACTIONS = ("play", "acquire", "defeat")
EFFECT_KEYS = frozenset({"actions", "keys", "any", "energized", "from_cost", "cost_key"})


@dataclass(frozen=True)
class GlossaryEntry:
    game: str
    id: str
    names: dict[str, str]
    kind: str
    text: dict[str, str]
    aliases: tuple[str, ...] = ()
    see: tuple[str, ...] = ()
    confirmed: bool = True  # false when the seed names a term without defining it clearly

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id


@dataclass(frozen=True)
class RuleSection:
    game: str
    id: str
    section: str
    title: dict[str, str]
    text: dict[str, str]


@dataclass(frozen=True)
class CardType:
    id: str
    names: dict[str, str]
    text: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GameInfo:
    id: str
    names: dict[str, str]
    players: dict[str, int]
    card_language: str
    card_types: tuple[CardType, ...]
    glossary: tuple[GlossaryEntry, ...]
    rules: tuple[RuleSection, ...]
    deck: dict[str, Any]
    table: dict[str, Any]
    path: str
    # What laying a card does to the numbers (``effects:``): actions, resource keys, choices.
    effects: dict[str, Any] = field(default_factory=dict)
    # The game's own fields in cards.yaml: name → {kind, default} (``card_fields:``).
    card_fields: dict[str, Any] = field(default_factory=dict)
    # Its own messages, key → {fr, en} (``messages:``), for the one translation table.
    messages: dict[str, dict[str, str]] = field(default_factory=dict)
    # Its words for the ear (``speech:``): ``fr``/``en`` trees (types, disciplines, counters,
    # abbreviations, notes...) and ``once``, the notes said once a game (companion/speech).
    speech: dict[str, Any] = field(default_factory=dict)

    def name(self, lang: str = "fr") -> str:
        return self.names.get(lang) or self.names.get("fr") or self.id

    def type_ids(self) -> set[str]:
        return {t.id for t in self.card_types}

    def term(self, term_id: str) -> GlossaryEntry | None:
        for entry in self.glossary:
            if entry.id == term_id:
                return entry
        return None

    def __getattr__(self, name: str) -> Any:
        # Called only for what the game's __dict__ lacks: a game read from the card index keeps
        # its glossary and rules (most of its bytes) as JSON until first asked (``stored``).
        later = self.__dict__.get(STORED)
        if later is None or name not in LATER:
            raise AttributeError(f"'GameInfo' object has no attribute {name!r}")
        parts = _later_parts(json.loads(later))
        # Two threads may decode the same game at once: both write the same values.
        self.__dict__.update(parts)
        self.__dict__.pop(STORED, None)
        return self.__dict__[name]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def stored(self) -> tuple[bytes, bytes]:
        """The game as the card index keeps it: the JSON of its fields but LATER, and that of
        LATER (``from_stored`` reads them back)."""
        data = self.to_json()
        later = {name: data.pop(name) for name in LATER}
        return (json.dumps(data, ensure_ascii=False).encode(),
                json.dumps(later, ensure_ascii=False, separators=(",", ":")).encode())

    @classmethod
    def from_stored(cls, data: dict[str, Any], later: bytes) -> GameInfo:
        """The game of ``stored``'s first part, its LATER fields decoded from ``later`` when first asked."""
        game = cls.from_json({**data, **dict.fromkeys(LATER, [])})
        for name in LATER:
            del game.__dict__[name]
        game.__dict__[STORED] = later
        return game

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameInfo:
        return cls(
            id=data["id"], names=data["names"], players=data["players"], card_language=data["card_language"],
            card_types=tuple(CardType(**t) for t in data["card_types"]),
            **_later_parts(data),
            deck=data["deck"], table=data["table"], path=data["path"], effects=data.get("effects") or {},
            card_fields=data.get("card_fields") or {},
            messages=data.get("messages") or {},
            speech=data.get("speech") or {},
        )


# The fields a game read from the card index decodes on first use (a warm start reads 4,000
# cards' names and every game's messages, not the glossaries and rules nobody reads before a
# player asks), and the key of its __dict__ that holds their JSON meanwhile.
LATER = ("glossary", "rules")
STORED = "_later"


def _later_parts(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "glossary": tuple(GlossaryEntry(**{**g, "aliases": tuple(g["aliases"]), "see": tuple(g["see"])})
                          for g in data["glossary"]),
        "rules": tuple(RuleSection(**r) for r in data["rules"]),
    }


def plain(value: Any) -> Any:
    """LDict/LList → dict/list, so the data can be stored as JSON."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def read_game(path: Path, shown: str | None = None) -> tuple[GameInfo, Any]:
    """The one reader of a game.yaml (the card library's and the table's): the checked GameInfo,
    and the document with the line of every value, for the table engine's own checks of its
    ``table:`` section. Raises DataError naming file, line and field."""
    global _last_read
    shown = shown or str(path)
    text = read_file(path, shown)
    held = _last_read
    if held is not None and held[0] == str(path) and held[1] == text:
        info, data = held[2], held[3]
        add_messages(info.messages)  # as a first reading does (a no-op when they are in already)
        return (info if info.path == shown else replace(info, path=shown)), data
    data = load_text_kept(text, shown, _kept_name(path))
    info = _check_game(path, shown, data)
    _last_read = (str(path), text, info, data)
    return info, data


# The last game.yaml read, with its text: a game's start reads it twice (the table engine, then
# the words of speech), and parsing and checking the largest game's is a tenth of a second here, most of a
# second on a Pi. A reading is reused only for the very same text (the file is read again each
# time: a game edited meanwhile is parsed again); the shown path only names errors, which a
# reading that passed has none of, and the path GameInfo carries. One game's kept, no more.
_last_read: tuple[str, str, GameInfo, Any] | None = None


def _kept_name(path: Path) -> str:
    """The cache file of a game.yaml kept parsed: one per game folder's name (a user's game
    copied under the same name in another home shares it; the text's digest tells them apart)."""
    import hashlib

    return f"game-{hashlib.blake2b(path.parent.name.encode(), digest_size=8).hexdigest()}.marshal"


def load_game(path: Path, shown: str | None = None) -> GameInfo:
    return read_game(path, shown)[0]


def _check_game(path: Path, shown: str, data: Any) -> GameInfo:
    top = Checker(shown, data, "")
    top.mapping()
    top.only(GAME_KEYS)
    game_id = top.ident("id")
    if path.parent.name != game_id:
        raise top.fail("id", t("data.folder_id", folder=path.parent.name, got=repr(game_id)))
    order = top.get("order", int)  # its place in the games menu (read by companion.registry)
    if order is not None and order < 1:
        raise top.fail("order", t("data.at_least", least=1, got=describe(order)))
    names = top.texts("names", langs=("fr", "en"))
    players_raw = top.get("players", dict, required=True)
    pc = Checker(shown, players_raw, "players")
    pc.only({"min", "max", "best", "teams"})
    players = {"min": pc.get("min", int, required=True), "max": pc.get("max", int, required=True)}
    for key in ("best",):
        if pc.get(key, int) is not None:
            players[key] = pc.get(key, int)
    if players["min"] > players["max"]:
        raise pc.fail("min", t("data.min_max", min=players["min"], max=players["max"]))
    card_language = top.get("card_language", str, default="fr")
    if card_language not in ("fr", "en"):
        raise top.fail("card_language", t("data.one_of", choices="fr, en", got=repr(card_language)))

    card_types = []
    for i, item in enumerate(top.get("card_types", list, required=True)):
        c = Checker(shown, item, f"card_types[{i}]")
        c.only({"id", "names", "text"})
        card_types.append(CardType(id=c.ident("id"), names=c.texts("names"), text=c.texts("text", required=False)))
    _unique(shown, top.data["card_types"], [ct.id for ct in card_types], "card_types")

    glossary = []
    glossary_raw = top.get("glossary", list, required=True)
    for i, item in enumerate(glossary_raw):
        c = Checker(shown, item, f"glossary[{i}]")
        c.only({"id", "names", "aliases", "kind", "text", "see", "confirmed"})
        kind = c.get("kind", str, required=True)
        if kind not in GLOSSARY_KINDS:
            raise c.fail("kind", t("data.one_of", choices=", ".join(sorted(GLOSSARY_KINDS)), got=repr(kind)))
        glossary.append(GlossaryEntry(
            game=game_id, id=c.ident("id"), names=c.texts("names"), kind=kind,
            text=c.texts("text"), aliases=tuple(c.str_list("aliases")), see=tuple(c.str_list("see")),
            confirmed=c.get("confirmed", bool, default=True)))
    _unique(shown, glossary_raw, [g.id for g in glossary], "glossary")

    rules = []
    rules_raw = top.get("rules", list, required=True)
    for i, item in enumerate(rules_raw):
        c = Checker(shown, item, f"rules[{i}]")
        c.only({"id", "section", "title", "text"})
        section = c.get("section", str, required=True)
        if section not in SECTIONS:
            raise c.fail("section", t("data.one_of", choices=", ".join(sorted(SECTIONS)), got=repr(section)))
        rules.append(RuleSection(game=game_id, id=c.ident("id"), section=section,
                                 title=c.texts("title"), text=c.texts("text")))
    _unique(shown, rules_raw, [r.id for r in rules], "rules")
    rule_ids = {r.id for r in rules}
    for i, entry in enumerate(glossary):
        for target in entry.see:
            if target not in rule_ids:
                raise Checker(shown, glossary_raw[i], f"glossary[{i}]").fail(
                    "see", t("data.no_rules_section", id=repr(target)))

    deck = plain(top.get("deck", dict, default={}))
    table = plain(top.get("table", dict, default={}))
    return GameInfo(id=game_id, names=names, players=players, card_language=card_language,
                    card_types=tuple(card_types), glossary=tuple(glossary), rules=tuple(rules),
                    deck=deck, table=table, path=shown, effects=_effects(shown, top),
                    card_fields=_card_fields(shown, top), messages=_messages(shown, top),
                    speech=_speech(shown, top))


def _messages(shown: str, top: Checker) -> dict[str, dict[str, str]]:
    """``messages:``: the game's own sentences, ``key: {fr, en}``, both languages required;
    they join the translation table as soon as the game is read."""
    raw = top.get("messages", dict)
    if raw is None:
        return {}
    m = Checker(shown, raw, "messages")
    out = {str(key): m.texts(str(key), langs=("fr", "en")) for key in raw}
    add_messages(out)
    return out


def _speech(shown: str, top: Checker) -> dict[str, Any]:
    """``speech:``: the game's words for the ear, one tree per language (``fr``, ``en``, the
    same keys in both), ``once``: the keys of its notes said only once a game, ``changed``: those
    said only when they differ from the last time for the same player (a draw of two cards each
    turn), ``tells``: note → the value naming the seat whose following change it already says
    (docs/speech.md); ``fr``/``en`` ``again``: a note's short form after its first time."""
    raw = top.get("speech", dict)
    if raw is None:
        return {}
    s = Checker(shown, raw, "speech")
    s.only({"fr", "en", "once", "changed", "tells"})
    out: dict[str, Any] = {"once": s.str_list("once"), "changed": s.str_list("changed"),
                           "tells": plain(s.get("tells", dict, default={}))}
    for lang in ("fr", "en"):
        out[lang] = plain(s.get(lang, dict, default={}))
    missing = set(out["fr"]) ^ set(out["en"])
    if missing:
        raise s.fail("en" if set(out["fr"]) - set(out["en"]) else "fr",
                     t("data.same_keys", keys=", ".join(sorted(missing))))
    return out


def _card_fields(shown: str, top: Checker) -> dict[str, Any]:
    """``card_fields:``: the fields a game adds to its cards, each ``{kind, default}`` (kind:
    text, number, counts, id, list or mapping), e.g. ``count: {kind: number, default: 1}``."""
    raw = top.get("card_fields", dict)
    if raw is None:
        return {}
    out: dict[str, Any] = {}
    for name, spec in raw.items():
        f = Checker(shown, spec, f"card_fields.{name}")
        f.mapping()
        f.only({"kind", "default"})
        kind = f.get("kind", str, required=True)
        if kind not in FIELD_KINDS:
            raise f.fail("kind", t("data.one_of", choices=", ".join(sorted(FIELD_KINDS)), got=repr(kind)))
        out[str(name)] = {"kind": kind, **({"default": plain(spec["default"])} if "default" in spec else {})}
    return out


def _effects(shown: str, top: Checker) -> dict[str, Any]:
    """The ``effects:`` section: which actions a card may have (play, acquire, defeat), the
    resource keys its costs and gains name, what ``any`` may be, and the game's options."""
    raw = top.get("effects", dict)
    if raw is None:
        return {"actions": ["play"], "keys": []}
    e = Checker(shown, raw, "effects")
    e.only(EFFECT_KEYS)
    actions = e.str_list("actions") or ["play"]
    for i, action in enumerate(actions):
        if action not in CARD_ACTIONS:
            raise Checker(shown, raw["actions"], "effects.actions").fail(
                i, t("data.one_of", choices=", ".join(CARD_ACTIONS), got=repr(action)))
    keys = e.str_list("keys")
    out: dict[str, Any] = {"actions": actions, "keys": keys}
    choice = e.str_list("any")
    for i, key in enumerate(choice):
        if key not in keys:
            raise Checker(shown, raw["any"], "effects.any").fail(i, t("data.not_effect_key", key=repr(key)))
    if choice:
        out["any"] = choice
    for flag in ("energized", "from_cost"):
        if e.get(flag, bool, default=False):
            out[flag] = True
    cost_key = e.get("cost_key", str)
    if cost_key is not None:
        if cost_key not in keys:
            raise e.fail("cost_key", t("data.not_effect_key", key=repr(cost_key)))
        out["cost_key"] = cost_key
    return out


def _unique(shown: str, raw: list, ids: list[str], where: str) -> None:
    seen: dict[str, int] = {}
    for i, item_id in enumerate(ids):
        if item_id in seen:
            raise Checker(shown, raw[i], f"{where}[{i}]").fail(
                "id", t("data.duplicate_id", id=repr(item_id), first=f"{where}[{seen[item_id]}]"))
        seen[item_id] = i
