"""The games the companion knows, and where each one's knowledge lives.

A game is two folders (Home Assistant's integration layout as the model):

- its data, ``cardmap/<id>/`` (``game.yaml``, optionally ``cards.yaml``), shipped with the
  program; or a user's own ``<data dir>/games/<id>/`` with the same files;
- its code, if it needs any, ``companion/games/<package>/`` (the id with ``-`` as ``_``):
  ``rules.py`` (the ``GameRules`` of its table and its own command parsers) and, in its
  ``__init__.py``, the hooks the generic packages may call (see ``hook``).

A game with no code folder gets the generic rules: a user's game is a game by data alone.

This module is the one door from the generic packages to game code. It names no game and
imports none statically (games are found by listing folders and imported by name), so
``companion.games`` may import the domain packages without an import cycle.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from companion import paths

try:
    _Parser: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _Parser = yaml.SafeLoader

ID = re.compile(r"^[a-z][a-z0-9-]{1,23}$")  # the same shape as a card reference's game part
_LAST = 1_000_000  # the place of a game whose game.yaml gives no ``order``


def builtin_dir() -> Path:
    """The game data shipped with the program (``COMPANION_CARDMAP`` overrides, for tests).
    In an installed wheel it is package data beside this module; in a source tree, the
    top-level ``cardmap/`` folder."""
    override = os.environ.get("COMPANION_CARDMAP")
    if override:
        return Path(override)
    here = Path(__file__).resolve().parent
    packaged = here / "cardmap"
    return packaged if packaged.is_dir() else here.parent / "cardmap"


def user_dir() -> Path:
    """Users' own games, one folder per game, by data alone. Not created here."""
    return paths.data_dir() / "games"


def _folders(root: Path) -> list[Path]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    return [Path(e.path) for e in entries
            if ID.match(e.name) and e.is_dir() and os.path.isfile(os.path.join(e.path, "game.yaml"))]


@functools.lru_cache(maxsize=64)
def _order(path: str, _mtime: int) -> int:
    """The ``order`` key of a game.yaml (its place in menus), read by streaming the YAML events
    and stopping there: the key comes first in the file, so the long rest is never parsed."""
    depth, expecting_key, want = 0, True, False
    try:
        with open(path, encoding="utf-8") as stream:
            for event in yaml.parse(stream, Loader=_Parser):
                if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                    if depth == 1:  # a top-level value that is a collection
                        if want:
                            return _LAST
                        expecting_key = True
                    depth += 1
                elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                    depth -= 1
                    if depth == 0:
                        break
                elif isinstance(event, yaml.ScalarEvent) and depth == 1:
                    if expecting_key:
                        want, expecting_key = event.value == "order", False
                    elif want:
                        return int(event.value) if event.value.isdigit() else _LAST
                    else:
                        expecting_key = True
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        pass  # the loader says what is wrong with the file; here it only goes last
    return _LAST


def _sorted(folders: list[Path]) -> list[Path]:
    def key(folder: Path) -> tuple[int, str]:
        game = folder / "game.yaml"
        try:
            mtime = game.stat().st_mtime_ns
        except OSError:
            mtime = 0
        return _order(str(game), mtime), folder.name

    return sorted(folders, key=key)


def folders() -> dict[str, Path]:
    """Game id → its data folder: the shipped games in their menu order, then the user's own
    (a user's folder never shadows a shipped game of the same id)."""
    out = {f.name: f for f in _sorted(_folders(builtin_dir()))}
    for folder in _sorted(_folders(user_dir())):
        out.setdefault(folder.name, folder)
    return out


def ids() -> tuple[str, ...]:
    """Every game's id, in menu order."""
    return tuple(folders())


def builtin_ids() -> tuple[str, ...]:
    return tuple(f.name for f in _sorted(_folders(builtin_dir())))


def is_user_game(game_id: str) -> bool:
    path = folders().get(game_id)
    return path is not None and path.parent != builtin_dir()


def help_list() -> str:
    """The ids as a help string says them, comma-separated, in menu order."""
    return ", ".join(ids())


def folder(game_id: str) -> Path | None:
    return folders().get(game_id)


def game_file(game_id: str) -> Path | None:
    found = folder(game_id)
    return found / "game.yaml" if found is not None else None


# -- demo data ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=64)
def _demo(path: str, _mtime: int) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = yaml.load(stream, Loader=_Parser)
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def demo(game_id: str) -> dict[str, Any]:
    """A game's demo table (its folder's ``demo.yaml``: players, a few commands, the card laid,
    the cards laid before it, a deck, a rules query, a tag to enroll, made-up cards), or {}."""
    found = folder(game_id)
    path = found / "demo.yaml" if found is not None else None
    try:
        mtime = path.stat().st_mtime_ns if path is not None else 0
    except OSError:
        return {}
    return _demo(str(path), mtime) if path is not None else {}


def example_game() -> str:
    """The game a help text or a message gives as its example: the first shipped one."""
    shipped = builtin_ids()
    return shipped[0] if shipped else "game"


def example_ref() -> str:
    """A card reference a help text or a message gives as its example: the demo card of the
    first shipped game that has one."""
    for game_id in builtin_ids():
        card = demo(game_id).get("card")
        if card:
            return str(card)
    return "game:id"


def demo_cards() -> list[str]:
    """The cards the simulated reader lays for ``run --demo``: the first shipped game's demo
    ``reader`` list (or its demo card and the cards laid before it)."""
    for game_id in builtin_ids():
        data = demo(game_id)
        refs = data.get("reader") or ([data["card"], *(data.get("history") or [])] if data.get("card") else [])
        if refs:
            return [str(r) for r in refs]
    return []


# -- code ---------------------------------------------------------------------------------------

def package_name(game_id: str) -> str:
    return "companion.games." + game_id.replace("-", "_")


@functools.cache
def code(game_id: str, module: str = "") -> ModuleType | None:
    """The game's code package (or one of its modules); None when the game has none. Only the
    shipped games have code: a user's folder of the same shape is data alone."""
    if not ID.match(game_id) or game_id not in builtin_ids():
        return None
    name = package_name(game_id) + (f".{module}" if module else "")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and name.startswith(exc.name):
            return None  # no such folder or module: the generic behaviour
        raise


def hook(game_id: str, name: str) -> Any:
    """A function or value a game's ``__init__.py`` offers the generic packages, or None.

    The hooks (each optional): ``card_source`` (cards read from elsewhere than cards.yaml: an
    object with ``cards()``, ``warnings()``, ``version()``, ``files()``), ``card_fields`` and
    ``read_card_fields(checker, extra)`` (a game's own fields in cards.yaml),
    ``effects_of(card)`` (what playing a card does when cards.yaml does not say),
    ``card_intent(action, card, args)`` and ``card_actions(card, actions)`` (a card laid at the
    table), ``check_deck(text, library, rules)`` and ``deck_text(cards)`` (deck lists),
    ``named_card(name, library)`` (a card a player names at the table), ``speech`` (a module
    with the game's words for the ear), ``explain`` (glossary lookups of a card's own marks),
    ``table_options`` (set-up options of ``table``, name → help), ``tournament`` (a venue's
    events of this game: its results proposed, checked and scored, its rounds seated),
    ``bench_compare`` (``bench compare``: our card search against the game's card source's own).
    """
    module = code(game_id)
    return getattr(module, name, None) if module is not None else None


def rules_for(data: Any) -> Any:
    """The rules object of a game's table data (``TableData``): the game's ``GameRules`` when it
    has code, else the generic rules."""
    module = code(data.id, "rules")
    if module is None:
        module = importlib.import_module("companion.table.rules.base")
    cls = getattr(module, "GameRules", None) or module.Rules
    return cls(data)


_forgetters: list[Callable[[], None]] = []


def on_forget(fn: Callable[[], None]) -> None:
    """``fn`` clears what a module keeps of the games when ``forget`` is called (the table data:
    companion.table.data registers itself; the registry never imports it)."""
    _forgetters.append(fn)


def forget() -> None:
    """Look at the folders again (a game was just added, or removed)."""
    code.cache_clear()
    for fn in _forgetters:
        fn()
