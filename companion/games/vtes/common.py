"""What the VTES adapter (cards.py), both krcg lines (krcg4.py, krcg5.py) and the list
updater (update.py) share: the one shape of a VTES card, a parsed deck line, and the names of
the official files. Apart from cards.py so that the krcg lines never import the adapter that picks them.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import paths
from companion.cards.model import Card

CRYPT_TYPES = {"Vampire", "Imbued"}
LANGS = ("fr", "es")  # the official translations, besides English
# The official lists and translations, as krcg reads them and `cards update` fetches them.
FILES = ("vtessets.csv", "vtescrypt.csv", "vteslib.csv", "vtesbundles.csv")
TRANSLATIONS = {"fr-FR": "vtescsv_utf8.fr-FR.zip", "es-ES": "vtescsv_utf8.es-ES.zip"}
POINTER = "current"  # the file naming the folder of updated lists in use


def root() -> Path:
    """Where the updated lists live (created by the first update only)."""
    return paths.cache_dir() / "vtes-lists"


def current() -> Path | None:
    """The folder of updated lists in use, or None (krcg's bundled lists)."""
    pointer = root() / POINTER
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = root() / name
    if not name or "/" in name or not all((folder / f).is_file() for f in (*FILES, *TRANSLATIONS.values())):
        return None
    return folder


class _LibYaml:
    """``yaml`` as krcg uses it (``safe_load`` only), through libyaml when PyYAML has it. krcg reads
    its rulings (570 kB of YAML) at each load with the pure-Python parser: 0.85 s of CPU here,
    some 6 s on a Pi, at every start that builds the card index and twice per ``cards update``.
    The C loader builds the same data (safe tags only) in a tenth of that."""

    def __init__(self, yaml: Any) -> None:
        self._yaml = yaml
        self._loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def safe_load(self, stream: Any) -> Any:
        return self._yaml.load(stream, Loader=self._loader)

    def __getattr__(self, name: str) -> Any:  # anything else krcg might ask of the module
        return getattr(self._yaml, name)


def fast_yaml(module: Any) -> None:
    """Give a krcg module that reads YAML the libyaml loader (idempotent)."""
    import yaml

    if getattr(module, "yaml", None) is yaml:
        module.yaml = _LibYaml(yaml)


def without_krcg_loader() -> None:
    """Keep krcg 5's ``krcg.loader`` from being imported; call before the first ``import krcg``.

    ``krcg/__init__`` imports it for its ``load``/``load_local``/``load_online``, which nothing
    here calls (``load`` unpickles from the shared temp folder: krcg5.py), and it imports aiohttp
    and asyncio for ``load_online``: 0.45 s of CPU here, some 3 s on a Pi, in every process that
    reads krcg (an index build, a deck read, a tournament's seating). In its place a module whose
    functions refuse: krcg's pickle cannot be reached even by mistake. Once krcg is imported
    (its real loader with it, or this one) nothing changes; krcg 4 has no such module (nor
    asks for one)."""
    if "krcg" in sys.modules or "krcg.loader" in sys.modules:
        return
    stand_in = types.ModuleType("krcg.loader", "krcg 5's loaders, not used by the companion (common.py)")

    def refused(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"krcg.loader.{name}: not used by the companion (companion/games/vtes/common.py)")

        return call

    stand_in.__getattr__ = refused  # type: ignore[method-assign]
    sys.modules["krcg.loader"] = stand_in


def make_card(*, id: int | str, name: str, printed: str, types: list[str], text: str, crypt: bool,
              capacity: int | None = None, group: str | None = None, title: str | None = None,
              costs: dict[str, Any] | None = None, clans: list[str] | None = None,
              disciplines: list[str] | None = None, rulings: list[str] | None = None,
              aliases: set[str] | None = None, i18n: dict[str, dict[str, str]] | None = None) -> Card:
    """The one shape of a VTES card, whichever krcg line read it."""
    extra: dict[str, Any] = {}
    if crypt:
        extra.update(capacity=capacity, group=group, title=title)
    for key, value in (costs or {}).items():
        if value not in (None, ""):
            extra[f"{key}_cost"] = str(value)
    extra["clans"] = list(clans or [])
    extra["disciplines"] = list(disciplines or [])
    extra["crypt"] = crypt
    extra["printed_name"] = printed  # "Anson", not "Anson (G1)"
    names = {"en": name}
    translations: dict[str, dict[str, str]] = {}
    for lang, tr in sorted((i18n or {}).items()):
        if lang in LANGS and tr.get("name") and tr.get("text"):
            # A vampire keeps its group in every language: "Anson (G1)".
            suffix = name[len(printed):] if name.startswith(printed) else ""
            translations[lang] = {"name": tr["name"] + suffix, "text": tr["text"]}
            names[lang] = tr["name"] + suffix
    if translations:
        extra["i18n"] = translations
    # A vampire's capacity is not a cost: it is extra["capacity"], said in the listener's language.
    cost = "" if crypt else ", ".join(f"{v} {k}" for k, v in (costs or {}).items() if v not in (None, ""))
    return Card(
        game="vtes",
        id=str(id),
        name=name,
        types=tuple(types),
        cost=cost,
        text=text or "",
        lang="en",
        names=names,
        aliases=tuple(sorted((aliases or set()) - {name, *names.values()})),
        keywords=tuple(extra["disciplines"]),
        rulings=tuple(rulings or ()),
        extra=extra,
    )


@dataclass(frozen=True)
class DeckEntry:
    """One line of a parsed VTES deck, whichever krcg line parsed it."""

    id: str
    count: int
    crypt: bool
    name: str
    group: str = ""  # "1"…"7" or "ANY" for crypt cards
    banned: str = ""  # the date it was banned, ISO, or ""
