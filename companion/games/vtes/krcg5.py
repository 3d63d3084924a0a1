"""The krcg 5 line (``krcg.models``, ``krcg.collections``, ``krcg.parser``): Python 3.12 and later.

krcg 5's ``loader.load()`` unpickles ``krcg_cards_<version>.pkl`` from the shared temp folder and
``loader.load_local()`` writes that file: another local user could plant it and run code in the
companion. Neither is ever called here (``krcg.loader`` is not even imported: ``common.without_krcg_loader``);
the collection is built from krcg's own parsing steps, and the program's cache is its own card
index (JSON, in the user's cache folder).
"""

from __future__ import annotations

import csv
import io
import re
import threading
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from companion.games.vtes.common import DeckEntry, fast_yaml, make_card, without_krcg_loader

without_krcg_loader()  # this module is imported before anything here imports krcg 5
_lock = threading.Lock()


def _rows(text: str) -> Iterable[dict[str, str]]:
    return csv.DictReader(io.StringIO(text))


def _bundled() -> tuple[dict, dict]:
    """krcg's packaged lists and translations (as its ``vekn_csv.from_files`` reads them)."""
    from importlib.resources import files

    from krcg import vekn_csv

    package = files("krcg.cards")
    return _read(lambda name: package.joinpath(name).read_text(encoding="utf-8-sig"),
                 [(lang, package.joinpath(path).read_text(encoding="utf-8-sig"))
                  for lang, path in vekn_csv.TRANSLATIONS])


def _from_folder(lists: Path) -> tuple[dict, dict]:
    """A folder of official lists (``cards update``), the translations as VEKN publishes them:
    one zip per language."""
    from krcg import models

    from companion.games.vtes.common import TRANSLATIONS

    translations = []
    for code, archive in TRANSLATIONS.items():
        with zipfile.ZipFile(lists / archive) as z:
            translations += [(models.Lang(code[:2]), z.read(name).decode("utf-8-sig"))
                             for name in (f"vtescrypt.{code}.csv", f"vteslib.{code}.csv")]
    return _read(lambda name: (lists / name).read_text(encoding="utf-8-sig"), translations)


def _read(read: Callable[[str], str], translations: list[tuple[Any, str]]) -> tuple[dict, dict]:
    """krcg's own steps of ``vekn_csv.from_files`` but its last, ``compute_urls``: the web
    addresses of each card's pictures on krcg's site (15,000 ``urljoin``: a quarter of a load,
    0.4 s of CPU here and some 3 s on a Pi, at each index build and deck read), which nothing
    here shows or follows; they stay empty ("", krcg's default). ``read`` gives a list's text by
    its file name; ``translations`` are (language, CSV text) pairs."""
    from krcg import models, vekn_csv

    from companion.games.vtes.common import FILES

    sets_name, crypt_name, lib_name, bundles_name = FILES
    sets: dict[Any, Any] = {"Promo": models.Set(code="Promo", name="Promo"),
                            "POD": models.Set(code="POD", name="Print on Demand")}
    for line in _rows(read(sets_name)):
        set_ = vekn_csv.set_from_vekn(line)
        sets[set_.id] = sets[set_.code] = sets[set_.name] = set_
    for line in _rows(read(bundles_name)):
        vekn_csv.add_bundle(sets, line)
    cards: dict[int, Any] = {}
    for line in _rows(read(crypt_name)):
        card = vekn_csv.crypt_card_from_vekn(sets, line)
        cards[card.id] = card
    for line in _rows(read(lib_name)):
        card = vekn_csv.lib_card_from_vekn(sets, line)
        cards[card.id] = card
    for lang, text in translations:
        for line in _rows(text):
            vekn_csv.add_translation(cards, line, lang)
    vekn_csv.compute_variants(cards)
    return cards, sets


def load(lists: Path | None) -> Any:
    from krcg import card_references, collections, rulings

    fast_yaml(rulings)  # its rulings, read at every load
    with _lock:
        raw, sets = _from_folder(lists) if lists is not None else _bundled()
        cards = collections.CardDict(raw)
        cards.sets = sets
        rulings.load_local(cards)
        card_references.load(cards)
        # Not cards.index(): krcg's own search tries (3.5 s of CPU here at every load, some 25 s
        # on a Pi) serve its complete() and search(), which nothing here calls: the companion
        # searches its own card index, and a deck is read by name lookups in the card map.
        return cards


def release() -> None:
    """Nothing to do: krcg 5's collection is the one ``load`` returned, kept by no global."""


def bundled_folder() -> Path:
    """Where krcg 5 keeps its bundled lists (a folder of data inside the package)."""
    import krcg

    return Path(krcg.__file__).parent / "cards"


def iter_krcg(cards: Any) -> Iterator[Any]:
    return cards.cards()


def _group(card: Any) -> str:
    group = getattr(card, "group", None)
    if group is None:
        return ""
    value = str(group.value)
    return "ANY" if value == "Any" else value.lstrip("G")


def _name(card: Any) -> str:
    """krcg 4's unique name, kept on every line: a crypt card always shows its group
    ("Anson (G1)", "Anarch Convert (ANY)", "Sascha Vykos, The Angel of Caine (G2 ADV)")."""
    if card.kind != card.Kind.CRYPT:
        return card.printed_name
    group = _group(card)
    suffix = " ".join(x for x in (("ANY" if group == "ANY" else f"G{group}") if group else "",
                                 "ADV" if card.advanced else "") if x)
    return f"{card.printed_name} ({suffix})" if suffix else card.printed_name


_REFERENCE = re.compile(r"\{\d+\|([^}]*)\}")  # krcg 5 marks cards in rulings as {100916|Hidden Lurker}


_MARKED = re.compile(r"<([^<>\n]+)>")  # krcg 5 marks card names in texts as <Nefertiti>


def _text(text: str) -> str:
    return _MARKED.sub(r"/\1/", text or "")  # krcg 4's /Nefertiti/, which display and speech know


def _discipline(code: str) -> str:
    return "FLIGHT" if code == "fli" else code  # krcg 4's spelling, which the glossary knows


def _title(card: Any) -> str | None:
    if not card.title:
        return None
    value = str(card.title.value)
    return value.lower() if "Vote" in value else value  # "1 vote", as krcg 4 and the glossary say


def to_card(c: Any) -> Any:
    from krcg import models

    crypt = c.kind == models.Card.Kind.CRYPT
    types = [t.value for t in c.types]
    costs: dict[str, Any] = {}
    clans: list[str] = []
    disciplines: list[str] = []
    if crypt:
        clans = [c.clan] if c.clan else []
        disciplines = [_discipline(d) for d in c.disciplines]
    else:
        if c.cost is not None:
            costs[c.cost.type.value.lower()] = c.cost.value
        clans = list(c.clan_requirement)
        if c.discipline_requirement is not None:
            disciplines = [_discipline(d) for d in c.discipline_requirement.disciplines]
    kept = {models.NameVariant.Type.LEXICOGRAPHICAL, models.NameVariant.Type.HISTORICAL}
    translated = {tr.name for tr in c.i18n.values()}
    aliases = {c.printed_name, *(v.name for v in c.name_variants if v.type in kept and v.name not in translated)}
    i18n = {lang.value: {"name": tr.name, "text": _text(tr.text)} for lang, tr in c.i18n.items()}
    return make_card(
        id=c.id, name=_name(c), printed=c.printed_name, types=types, text=_text(c.text), crypt=crypt,
        capacity=c.capacity if crypt else None, group=_group(c) if crypt else None,
        title=_title(c) if crypt else None, costs=costs, clans=clans, disciplines=disciplines,
        rulings=[_REFERENCE.sub(r"{\1}", r.text) for r in c.rulings], aliases=aliases, i18n=i18n,
    )


def parse_deck(text: str, cards: Any) -> list[DeckEntry]:
    from krcg import models, parser

    with _lock:
        deck = parser.deck_from_txt(io.StringIO(text), cards)
    out = []
    for entry in deck.cards:
        card = cards[entry.id]
        crypt = card.kind == models.Card.Kind.CRYPT
        out.append(DeckEntry(id=str(card.id), count=entry.count, crypt=crypt, name=_name(card),
                             group=_group(card) if crypt else "", banned=str(card.banned or "")))
    return out
